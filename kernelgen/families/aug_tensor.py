"""Tensor-level forms that only the 2026-08 compiler has (e2d0f78ae lowers tensor code inside a
`pl.at` scope to tiles itself): bitwise and integer ops, products and arg-reductions, the
max/min/expdif expands, `part_*`, `fillpad_expand`. Written in `aug_tensor` bodies only: the
May compiler refuses every one of them, and c39 has no tensor code in kernels at all.

What is judged of such a kernel is that head accepts it and that the tool leaves it byte for
byte at 2026-08 (and says it is newer at 2026-03); no interpreter runs it."""

from __future__ import annotations

from . import Ctx, production

ERAS = ("aug_tensor",)


def _ints(ctx: Ctx, x: str, dtype: str = "INT32") -> str:
    """A small integer tensor made from a float one (|x| * 8 cast down)."""
    name = ctx.fresh("i")
    ctx.add(f"{name} = pl.tensor.cast(pl.tensor.muls(pl.tensor.abs({x}), 8.0), target_type=pl.{dtype}, mode='trunc')")
    return name


@production("aug_tensor_bitwise", eras=ERAS)
def bitwise(ctx: Ctx) -> None:
    op = ctx.one_of(["and_", "or_", "xor", "shl", "shr", "ands", "ors", "xors", "shls", "shrs", "not_"])
    dtype = "INT16" if op == "not_" else "INT32"
    lhs = _ints(ctx, ctx.a, dtype)
    if op == "not_":
        value = f"pl.tensor.not_({lhs})"
    elif op.endswith("s"):
        value = f"pl.tensor.{op}({lhs}, {ctx.one_of(['1', '2', '3'])})"
    else:
        rhs = _ints(ctx, ctx.b, dtype) if op not in ("shl", "shr") else f"pl.tensor.ands({_ints(ctx, ctx.b)}, 3)"
        value = f"pl.tensor.{op}({lhs}, {rhs})"
    ctx.add(f"{ctx.v} = pl.tensor.cast({value}, target_type=pl.FP32)")


@production("aug_tensor_fmod", eras=ERAS)
def fmod(ctx: Ctx) -> None:
    if ctx.one_of([True, False]):
        ctx.add(f"{ctx.v} = pl.tensor.fmods({ctx.a}, {ctx.one_of(['1.5', '3.0'])})")
    else:
        ctx.add(f"{ctx.v} = pl.tensor.fmod({ctx.a}, {ctx.positive(ctx.b)})")


def _statistic(ctx: Ctx, stem: str, ops: list[str], expands: list[str]) -> None:
    """A row or column statistic (`ops`), broadcast back over its axis (`expands`)."""
    op = ctx.one_of(ops)
    stat = ctx.fresh(stem)
    src = f"pl.tensor.muls({ctx.b}, 0.125)" if op.endswith("_prod") else ctx.b
    ctx.add(f"{stat} = pl.tensor.{op}({src})")
    if "arg" in op:  # an INT32 index: a name of its own as FP32 (head refuses re-typing a name)
        index, stat = stat, ctx.fresh("f")
        ctx.add(f"{stat} = pl.tensor.cast({index}, target_type=pl.FP32)")
    ctx.add(f"{ctx.v} = pl.tensor.{ctx.one_of(expands)}({ctx.a}, {stat})")


@production("aug_tensor_rows", eras=ERAS)
def rows(ctx: Ctx) -> None:
    _statistic(ctx, "r", ["row_prod", "row_argmax", "row_argmin", "row_sum", "row_max", "row_min"],
               ["row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_max", "row_expand_min",
                "row_expand_expdif"])


@production("aug_tensor_cols", eras=ERAS)
def cols(ctx: Ctx) -> None:
    _statistic(ctx, "c", ["col_sum", "col_max", "col_min", "col_prod", "col_argmax", "col_argmin"],
               ["col_expand_add", "col_expand_sub", "col_expand_mul", "col_expand_max", "col_expand_min",
                "col_expand_expdif"])


@production("aug_tensor_part", eras=ERAS)
def part(ctx: Ctx) -> None:
    op = ctx.one_of(["part_add", "part_max", "part_min", "part_mul"])
    ctx.add(f"{ctx.v} = pl.tensor.{op}({ctx.a}, {ctx.b})")


@production("aug_tensor_unary", eras=ERAS)
def unary(ctx: Ctx) -> None:
    op = ctx.one_of(["sqrt", "rsqrt", "recip", "log", "exp", "abs", "neg", "sin", "cos"])
    arg = ctx.positive(ctx.a) if op in ("sqrt", "rsqrt", "recip", "log") else ctx.a
    ctx.add(f"{ctx.v} = pl.tensor.{op}({arg})")


@production("aug_tensor_fillpad", eras=ERAS)
def fillpad(ctx: Ctx) -> None:
    """A window widened with padding, then the original columns taken back."""
    wide = ctx.fresh("w")
    pad = ctx.one_of(["pl.PadValue.zero", "pl.PadValue.max", "pl.PadValue.min"])
    back = ctx.fresh("s")
    ctx.add(f"{wide} = pl.tensor.fillpad_expand({ctx.a}, [TILE, COLS * 2], pad_value={pad})")
    ctx.add(f"{back} = pl.tensor.slice({wide}, [TILE, COLS], [0, 0])")
    # The window keeps the pad in its type, and e2d0f78ae refuses a loop that carries it from
    # init_values into a yield of a value without ("Tensor padding mismatch in ForStmt"): the
    # kernel goes on with an op's result, as real code does
    ctx.add(f"{ctx.v} = pl.add({back}, 0.0)")


@production("aug_tensor_random", eras=ERAS)
def random(ctx: Ctx) -> None:
    """Counter-based random bits (pto.trandom) mixed in at a weight of zero: the kernel's values
    stay what they were, the op is still compiled."""
    ns = ctx.one_of(["pl.", "pl.tensor."])
    bits = ctx.fresh("r")
    ctx.add(f"{bits} = {ns}random(1, 2, 0, 0, 0, 0, [TILE, COLS], dtype=pl.INT32)")
    ctx.add(f"{ctx.v} = pl.tensor.add({ctx.a}, pl.tensor.muls(pl.tensor.cast({bits}, target_type=pl.FP32), 0.0))")


@production("aug_tensor_block", eras=ERAS)
def block(ctx: Ctx) -> None:
    """The block indices and an extent read as scalars, used at a weight of zero."""
    # dim of a kernel parameter: a value computed in the kernel is a Tile to head ("tensor.dim
    # requires first argument to be a TensorType")
    op = ctx.one_of(["get_block_idx()", "get_block_num()", "get_subblock_idx()", "dim(x, 1)"])
    ns = ctx.one_of(["pl.", "pl.tensor."]) if op.startswith("dim") else "pl.tensor."
    n = ctx.fresh("n")
    ctx.add(f"{n} = {ns}{op}")
    ctx.add(f"{ctx.v} = pl.tensor.adds({ctx.a}, pl.cast({n}, pl.FP32) * 0.0)")
