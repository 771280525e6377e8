"""Data movement of tensor code inside kernel scopes (`spring`: what the compiler of 2026-05-26
accepts, measured 2026-11-28): windows with pl.tensor.slice and a valid shape padded by fillpad,
reshapes to rank 1 and 3, transposes, created or filled tensors assembled into, column
concatenation, generated index rows (arange/ci), element reads and writes, set_validshape.
It refused tensor.view, reinterpret_view, create_l1, random, the block indices, pl.tri and a
rank-2 expand_clone; `dim` of a value lowered to a tile."""

from __future__ import annotations

from . import Ctx, production


def _ns(ctx: Ctx) -> str:
    return ctx.one_of(["pl.", "pl.tensor."])


@production("mv_tensor_shape", eras=("spring",))
def shape(ctx: Ctx) -> None:
    ns, s, m = _ns(ctx), ctx.fresh("s"), ctx.fresh("m")
    if ctx.one_of(["reshape", "transpose"]) == "reshape":
        new = ctx.one_of(["[TILE * COLS]", "[2, TILE // 2, COLS]", "[TILE * 2, COLS // 2]", "[1, TILE * COLS]"])
        ctx.add(f"{s} = {ns}reshape({ctx.a}, {new})")
        ctx.add(f"{m} = pl.mul({s}, 0.5)")
        ctx.add(f"{ctx.v} = {ns}reshape({m}, [TILE, COLS])")
    else:
        ctx.add(f"{s} = {ns}transpose({ctx.a}, axis1=0, axis2=1)")
        ctx.add(f"{m} = pl.add({s}, 1.0)")
        ctx.add(f"{ctx.v} = {ns}transpose({m}, axis1=0, axis2=1)")


@production("mv_tensor_window", eras=("spring",))
def window(ctx: Ctx) -> None:
    """A window of an extra input, whole or with a narrower valid region padded with zeros."""
    src, w = ctx.input(ctx.fresh("y"), "COLS", "FP32"), ctx.fresh("w")
    ns = _ns(ctx)
    if ctx.one_of(["plain", "valid"]) == "plain":
        ctx.add(f"{w} = {ns}slice({src}, [TILE, COLS], [{ctx.row0}, 0])")
        ctx.add(f"{ctx.v} = pl.sub({ctx.a}, {w})")
        return
    valid = ctx.one_of(["[TILE, COLS // 2]", "[TILE // 2, COLS]"])
    ctx.add(f"{w} = {ns}slice({src}, [TILE, COLS], [{ctx.row0}, 0], valid_shape={valid})")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, pl.fillpad({w}))")


@production("mv_tensor_create", eras=("spring",))
def create(ctx: Ctx) -> None:
    t = ctx.fresh("t")
    form = ctx.one_of(["full", "assemble"])
    if form == "full":
        dtype, value = ctx.one_of([("FP32", "0.25"), ("FP16", "1.5"), ("INT32", "3")])
        ctx.add(f"{t} = pl.tensor.full([TILE, COLS], dtype=pl.{dtype}, value={value})")
        full = t if dtype == "FP32" else f"pl.cast({t}, target_type=pl.FP32)"
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {full})")
        return
    maker = ctx.one_of(["pl.create_tensor", "pl.tensor.create", "pl.tensor.create_tensor"])
    ctx.add(f"{t} = {maker}([TILE, COLS], dtype=pl.FP32)")
    lo, hi = ctx.fresh("lo"), ctx.fresh("hi")
    ns = _ns(ctx)
    ctx.add(f"{lo} = {ns}slice({ctx.a}, [TILE, COLS // 2], [0, 0])")
    ctx.add(f"{hi} = {ns}slice({ctx.b}, [TILE, COLS // 2], [0, COLS // 2])")
    ctx.add(f"{t} = {ctx.one_of(['pl.assemble', 'pl.tensor.assemble'])}({t}, {hi}, [0, 0])")
    ctx.add(f"{t} = {ctx.one_of(['pl.assemble', 'pl.tensor.assemble'])}({t}, {lo}, [0, COLS // 2])")
    ctx.add(f"{ctx.v} = pl.mul({t}, 1.0)")


@production("mv_tensor_concat", eras=("spring",))
def concat(ctx: Ctx) -> None:
    lo, hi = ctx.fresh("lo"), ctx.fresh("hi")
    ns = _ns(ctx)
    ctx.add(f"{lo} = {ns}slice({ctx.a}, [TILE, COLS // 2], [0, 0])")
    ctx.add(f"{hi} = {ns}slice({ctx.b}, [TILE, COLS // 2], [0, COLS // 2])")
    ctx.add(f"{ctx.v} = {ctx.one_of(['pl.concat', 'pl.tensor.concat'])}({hi}, {lo})")


@production("mv_tensor_index", eras=("spring",))
def index(ctx: Ctx) -> None:
    g = ctx.fresh("g")
    op = ctx.one_of(["pl.tensor.arange", "pl.tensor.ci", "pl.arange"])
    dtype = ctx.one_of(["INT32", "INT16"])
    start, desc = ctx.one_of([("0", ""), ("2", ""), ("COLS", ", descending=True")])
    ctx.add(f"{g} = {op}({start}, [1, COLS], dtype=pl.{dtype}{desc})")
    ctx.add(f"{ctx.v} = pl.col_expand_mul({ctx.a}, pl.cast({g}, target_type=pl.FP32))")


@production("mv_tensor_scalar", eras=("spring",))
def scalar(ctx: Ctx) -> None:
    """An element read as a scalar, or written; or a valid region set and padded."""
    s, c = ctx.fresh("s"), ctx.fresh("c")
    i, j = ctx.one_of([("0", "3"), ("1", "1"), ("TILE - 1", "COLS - 1")])
    form = ctx.one_of(["read", "write", "validshape"])
    if form == "read":
        ctx.add(f"{s} = pl.tensor.read({ctx.a}, [{i}, {j}])")
        ctx.add(f"{ctx.v} = pl.mul({ctx.b}, {s})")
        return
    ctx.add(f"{c} = pl.add({ctx.a}, 0.0)")
    if form == "write":
        ctx.add(f"pl.tensor.write({c}, [{i}, {j}], 2.0)")
        ctx.add(f"{ctx.v} = pl.mul({c}, 1.0)")
    else:
        ctx.add(f"{s} = {ctx.one_of(['pl.set_validshape', 'pl.tensor.set_validshape'])}({c}, TILE, COLS // 2)")
        ctx.add(f"{ctx.v} = pl.fillpad({s})")
