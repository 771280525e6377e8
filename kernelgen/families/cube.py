"""The cube unit at tile level: matmul, matmul_acc over K chunks, matmul_bias, gemv, gemv_acc,
gemv_bias, under `pl.` and `pl.tile.`, with BF16/FP16 operands (FP32 results) and INT8 ones
(INT32 results).

Measured (2026-11-28) with c39fe714a and e2d0f78ae: operands moved Mat -> Left/Right, the bias
row loaded into Mat, the result in Acc moved to Vec; e2d0f78ae takes a gemv lhs of one row
only, c39 any. The left operand is the era's value `a` cast and moved on chip, or a window of
an extra input; the right one an extra [COLS, COLS] input.
"""

from __future__ import annotations

from . import MAT, VEC, Ctx, production

LEFT, RIGHT = "pl.MemorySpace.Left", "pl.MemorySpace.Right"


def _right(ctx: Ctx, w: str, k0: str, kdim: str) -> str:
    rm, rt = ctx.fresh("rm"), ctx.fresh("rt")
    ctx.add(f"{rm} = pl.load({w}, [{k0}, 0], [{kdim}, COLS], target_memory={MAT})")
    ctx.add(f"{rt} = pl.move({rm}, target_memory={RIGHT})")
    return rt


def _left_input(ctx: Ctx, x: str, rows: str, k0: str, kdim: str) -> str:
    lm, lt = ctx.fresh("lm"), ctx.fresh("lt")
    ctx.add(f"{lm} = pl.load({x}, [{ctx.row0}, {k0}], [{rows}, {kdim}], target_memory={MAT})")
    ctx.add(f"{lt} = pl.move({lm}, target_memory={LEFT})")
    return lt


def _left_value(ctx: Ctx, dtype: str) -> str:
    """The era's value `a` as a left operand: scaled down, cast, moved through Mat."""
    lc, lm, lt = ctx.fresh("lc"), ctx.fresh("lm"), ctx.fresh("lt")
    ctx.add(f"{lc} = pl.cast(pl.mul({ctx.a}, 0.125), target_type=pl.{dtype})")
    ctx.add(f"{lm} = pl.move({lc}, target_memory={MAT})")
    ctx.add(f"{lt} = pl.move({lm}, target_memory={LEFT})")
    return lt


def _operand_dtype(ctx: Ctx) -> str:
    return ctx.one_of(["BF16", "FP16", "INT8"])


def _int_range(ctx: Ctx, name: str, dtype: str) -> None:
    if dtype == "INT8":  # products of INT8 summed in INT32: keep them small
        ctx.verify_inputs[name] = "-4:4"


def _back_to_vec(ctx: Ctx, acc: str, dtype: str) -> str:
    """The Acc result moved to Vec as FP32 (an INT32 result cast)."""
    out = ctx.fresh("o")
    ctx.add(f"{out} = pl.move({acc}, target_memory={VEC})")
    if dtype == "INT8":
        f = ctx.fresh("f")
        ctx.add(f"{f} = pl.cast({out}, target_type=pl.FP32)")
        return f
    return out


@production("cube_matmul", eras=("mar", "aug"))
def cube_matmul(ctx: Ctx) -> None:
    """matmul, matmul_acc over two K chunks, or matmul_bias, of a [TILE, COLS] left operand."""
    op = ctx.one_of(["matmul", "matmul_acc", "matmul_bias"])
    ns = ctx.one_of(["pl.", "pl.tile."])
    dtype = _operand_dtype(ctx)
    w = ctx.input(ctx.fresh("cw"), "COLS", dtype, rows="COLS")
    _int_range(ctx, w, dtype)
    ctx.idioms.append(f"cube_{op}_{dtype}")
    p = ctx.fresh("p")
    if op == "matmul_acc":
        x = ctx.input(ctx.fresh("cx"), "COLS", dtype)
        _int_range(ctx, x, dtype)
        first = _left_input(ctx, x, "TILE", "0", "K")
        ctx.add(f"{p}0 = {ns}matmul({first}, {_right(ctx, w, '0', 'K')})")
        second = _left_input(ctx, x, "TILE", "K", "K")
        ctx.add(f"{p} = {ns}matmul_acc({p}0, {second}, {_right(ctx, w, 'K', 'K')})")
    else:
        lt = _left_value(ctx, dtype) if dtype != "INT8" else _left_input(ctx, _int_input(ctx, dtype), "TILE", "0", "COLS")
        rt = _right(ctx, w, "0", "COLS")
        if op == "matmul":
            ctx.add(f"{p} = {ns}matmul({lt}, {rt})")
        else:
            bias = _bias(ctx, dtype)
            ctx.add(f"{p} = {ns}matmul_bias({lt}, {rt}, {bias})")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {_back_to_vec(ctx, p, dtype)})")


def _int_input(ctx: Ctx, dtype: str) -> str:
    x = ctx.input(ctx.fresh("cx"), "COLS", dtype)
    _int_range(ctx, x, dtype)
    return x


def _bias(ctx: Ctx, dtype: str) -> str:
    """A [1, COLS] bias row of the accumulator's dtype, loaded into Mat."""
    acc = "INT32" if dtype == "INT8" else "FP32"
    name = ctx.input(ctx.fresh("cb"), "COLS", acc, rows="1")
    if acc == "INT32":
        ctx.verify_inputs[name] = "-8:8"
    bm = ctx.fresh("bm")
    ctx.add(f"{bm} = pl.load({name}, [0, 0], [1, COLS], target_memory={MAT})")
    return bm


@production("cube_gemv", eras=("mar", "aug"))
def cube_gemv(ctx: Ctx) -> None:
    """gemv, gemv_acc over two K chunks, or gemv_bias, of one row; its [1, COLS] result is
    broadcast over the value's rows."""
    op = ctx.one_of(["gemv", "gemv_acc", "gemv_bias"])
    ns = ctx.one_of(["pl.", "pl.tile."])
    dtype = _operand_dtype(ctx)
    ctx.idioms.append(f"cube_{op}_{dtype}")
    w = ctx.input(ctx.fresh("cw"), "COLS", dtype, rows="COLS")
    x = ctx.input(ctx.fresh("cx"), "COLS", dtype)
    _int_range(ctx, w, dtype)
    _int_range(ctx, x, dtype)
    g = ctx.fresh("g")
    if op == "gemv_acc":
        ctx.add(f"{g}0 = {ns}gemv({_left_input(ctx, x, '1', '0', 'K')}, {_right(ctx, w, '0', 'K')})")
        ctx.add(f"{g} = {ns}gemv_acc({g}0, {_left_input(ctx, x, '1', 'K', 'K')}, {_right(ctx, w, 'K', 'K')})")
    elif op == "gemv":
        ctx.add(f"{g} = {ns}gemv({_left_input(ctx, x, '1', '0', 'COLS')}, {_right(ctx, w, '0', 'COLS')})")
    else:
        lt, rt = _left_input(ctx, x, "1", "0", "COLS"), _right(ctx, w, "0", "COLS")
        ctx.add(f"{g} = {ns}gemv_bias({lt}, {rt}, {_bias(ctx, dtype)})")
    row = _back_to_vec(ctx, g, dtype)
    ctx.add(f"{ctx.v} = pl.col_expand_sub({ctx.a}, {row})")


@production("cube_tensor", eras=("spring",))
def cube_tensor(ctx: Ctx) -> None:
    """Tensor matmuls in a kernel scope (2026-05-26): out_dtype given (without it that compiler
    refuses the FP32 cast back: the lowered product is FP32 already), b_trans, matmul_acc of a
    second product."""
    form = ctx.one_of(["plain", "b_trans", "acc"])
    ns = ctx.one_of(["pl.", "pl.tensor."])
    dtype = ctx.one_of(["BF16", "FP16"])
    ctx.idioms.append(f"tensor_matmul_{form}_{dtype}")
    w = ctx.input(ctx.fresh("cw"), "COLS", dtype, rows="COLS")
    lhs = ctx.fresh("l")
    ctx.add(f"{lhs} = pl.cast(pl.mul({ctx.a}, 0.125), target_type=pl.{dtype})")
    rhs = f"pl.slice({w}, [COLS, COLS], [0, 0])"
    p = ctx.fresh("p")
    if form == "b_trans":
        ctx.add(f"{p} = {ns}matmul({lhs}, {rhs}, b_trans=True, out_dtype=pl.FP32)")
    else:
        ctx.add(f"{p} = {ns}matmul({lhs}, {rhs}, out_dtype=pl.FP32)")
    if form == "acc":
        q = ctx.fresh("q")
        ctx.add(f"{q} = pl.cast({ctx.b}, target_type=pl.{dtype})")
        ctx.add(f"{p} = {ns}matmul_acc({p}, {q}, {rhs})")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {p})")


@production("cube_batch", eras=("aug",))
def cube_batch(ctx: Ctx) -> None:
    """tile.batch_matmul of rank-3 operands (e2d0f78ae only), or batch_matmul then
    batch_matmul_acc of a second product; one batch of the result, moved to Vec and flattened,
    joins the value. Measured: [B, M, K] x [B, K, N] from Left/Right; with B = 2 the
    accumulating form fails the mixed kernel's cross-core split ("cross-core move destination
    must be Vec, Mat, Left, or Right", no line) while B = 1 passes (and so does B = 2 in a pure
    AIC function); FlattenTileNdTo2D refuses a slice of a rank-3 tile, so the product is
    reshaped first."""
    acc = ctx.one_of([False, True])
    ns = ctx.one_of(["pl.", "pl.tile."]) if not acc else "pl.tile."
    batches = "1" if acc else "2"
    dtype = _operand_dtype(ctx)
    ctx.idioms.append(f"cube_batch_matmul{'_acc' if acc else ''}_{dtype}")
    x = ctx.input(ctx.fresh("bx"), "K", dtype, rows=f"{batches}, TILE")
    w = ctx.input(ctx.fresh("bw"), "COLS", dtype, rows=f"{batches}, K")
    _int_range(ctx, x, dtype)
    _int_range(ctx, w, dtype)
    lm, lt, rm, rt, p = (ctx.fresh(s) for s in ("lm", "lt", "rm", "rt", "p"))
    ctx.add(f"{lm} = pl.load({x}, [0, 0, 0], [{batches}, TILE, K], target_memory={MAT})")
    ctx.add(f"{lt} = pl.move({lm}, target_memory={LEFT})")
    ctx.add(f"{rm} = pl.load({w}, [0, 0, 0], [{batches}, K, COLS], target_memory={MAT})")
    ctx.add(f"{rt} = pl.move({rm}, target_memory={RIGHT})")
    ctx.add(f"{p} = {ns}batch_matmul({lt}, {rt})")
    if acc:
        q = ctx.fresh("q")
        ctx.add(f"{q} = pl.tile.batch_matmul_acc({p}, {lt}, {rt})")
        p = q
    flat = ctx.fresh("f")
    ctx.add(f"{flat} = pl.reshape({_back_to_vec(ctx, p, dtype)}, [{batches} * TILE, COLS])")
    half = "0" if acc else ctx.one_of(["0", "TILE"])
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, pl.slice({flat}, [TILE, COLS], [{half}, 0]))")
