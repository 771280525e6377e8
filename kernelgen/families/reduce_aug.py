"""Reductions and broadcasts of 2026-08 tile code (e2d0f78ae, measured with a kernel per form,
pl.X and pl.tile.X): row_sum/max/min/prod/argmax/argmin with a scratch tile (exactly the
input's shape for argmax/argmin); col_sum with or without one, col_max/min/prod without,
col_argmax/argmin with; the argmax/argmin ones give INT32 indices. `row_expand(target, [M, 1])`,
`col_expand(target, [1, N])`, the row expands with max/min/expdif and the column ones with
add/max/min/expdif; part_add/max/min/mul (the op where both operands are valid, the valid
one elsewhere); fillpad with a pad value, `pl.tile.fillpad_inplace` (not `pl.`) and
fillpad_expand to a larger shape. Padding with max/min gives ±FLT_MAX, so such a tile is only
reduced the other way round (a min over a max-padded row) before it meets other values."""

from __future__ import annotations

from . import VEC, Ctx, production

NS = ["pl.", "pl.tile."]
PADS = {"zero": ["", ", pl.PadValue.zero", ", pad_value=pl.PadValue.zero"],
        "max": [", pl.PadValue.max"], "min": [", pad_value=pl.PadValue.min"]}


def _bounded(ctx: Ctx, x: str) -> str:
    """x squeezed into [0.99, 1.01]: a product of up to a few hundred of them stays finite."""
    q = ctx.fresh("q")
    ctx.add(f"{q} = pl.add(pl.mul(pl.minimum(pl.maximum({x}, -1.0), 1.0), 0.01), 1.0)")
    return q


def _to_f32(ctx: Ctx, r: str, op: str) -> str:
    if "arg" not in op:
        return r
    f = ctx.fresh("i")
    ctx.add(f"{f} = pl.cast({r}, target_type=pl.FP32)")
    return f


@production("aug_row_reduction", eras=("aug",))
def aug_row_reduction(ctx: Ctx) -> None:
    op = ctx.one_of(["row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin"])
    src = _bounded(ctx, ctx.b) if op == "row_prod" else ctx.b
    t, r = ctx.scratch(), ctx.fresh("r")
    ctx.add(f"{r} = {ctx.one_of(NS)}{op}({src}, {t})")
    vec = _to_f32(ctx, r, op)
    hows = ["row_expand_add", "row_expand_sub", "row_expand_max", "row_expand_min", "row_expand"]
    how = ctx.one_of(hows + (["row_expand_mul", "row_expand_div"] if op == "row_prod" else []))  # near 1
    ctx.add(f"{ctx.v} = {ctx.one_of(NS)}{how}({ctx.a}, {vec})")


@production("aug_col_reduction", eras=("aug",))
def aug_col_reduction(ctx: Ctx) -> None:
    op = ctx.one_of(["col_sum", "col_max", "col_min", "col_prod", "col_argmax", "col_argmin"])
    src = _bounded(ctx, ctx.b) if op == "col_prod" else ctx.b
    scratch = "arg" in op or (op == "col_sum" and ctx.one_of([False, True]))
    tmp = f", {ctx.scratch()}" if scratch else ""
    r = ctx.fresh("r")
    ctx.add(f"{r} = {ctx.one_of(NS)}{op}({src}{tmp})")
    vec = _to_f32(ctx, r, op)
    hows = ["col_expand_add", "col_expand_sub", "col_expand_max", "col_expand_min", "col_expand"]
    how = ctx.one_of(hows + (["col_expand_mul", "col_expand_div"] if op == "col_prod" else []))
    ctx.add(f"{ctx.v} = {ctx.one_of(NS)}{how}({ctx.a}, {vec})")


@production("aug_expdif", eras=("aug",))
def aug_expdif(ctx: Ctx) -> None:
    """The softmax step: exp(x - max) along rows or columns, at most 1."""
    r = ctx.fresh("r")
    if ctx.one_of(["row", "col"]) == "row":
        ctx.add(f"{r} = pl.row_max({ctx.a}, {ctx.scratch()})")
        ctx.add(f"{ctx.v} = {ctx.one_of(NS)}row_expand_expdif({ctx.a}, {r})")
    else:
        ctx.add(f"{r} = pl.col_max({ctx.a})")
        ctx.add(f"{ctx.v} = {ctx.one_of(NS)}col_expand_expdif({ctx.a}, {r})")


def _partial(ctx: Ctx, cols: str = "COLS") -> str:
    """A [TILE, cols] load of a new input whose valid region is a part of its columns."""
    src = ctx.input(ctx.fresh("p"), "COLS", "FP32")
    c = ctx.fresh("c")
    ctx.add(f"{c} = pl.load({src}, [{ctx.row0}, 0], [TILE, {cols}], valid_shape=[TILE, "
            f"{ctx.one_of(['COLS // 2', '16'])}], target_memory={VEC})")
    return c


@production("aug_part", eras=("aug",))
def aug_part(ctx: Ctx) -> None:
    op = ctx.one_of(["part_add", "part_max", "part_min", "part_mul"])
    rhs = _partial(ctx) if ctx.one_of([True, False]) else ctx.b
    ctx.add(f"{ctx.v} = {ctx.one_of(NS)}{op}({ctx.a}, {rhs})")


@production("aug_fillpad", eras=("aug",))
def aug_fillpad(ctx: Ctx) -> None:
    how = ctx.one_of(["fillpad", "fillpad_inplace", "fillpad_expand"])
    pad = ctx.one_of(sorted(PADS))
    spelled = ctx.one_of(PADS[pad])
    ns = "pl.tile." if how == "fillpad_inplace" else ctx.one_of(NS)
    f = ctx.fresh("f")
    if how == "fillpad_expand":
        e = ctx.fresh("e")
        src = ctx.input(ctx.fresh("p"), "COLS", "FP32")
        ctx.add(f"{e} = {ctx.read(src, cols='COLS // 2')}")
        ctx.add(f"{f} = {ns}fillpad_expand({e}, [TILE, COLS]{spelled})")
    else:
        ctx.add(f"{f} = {ns}{how}({_partial(ctx)}{spelled})")
    if pad == "zero":
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {f})")
        return
    # ±FLT_MAX in the padding: reduced the other way, the valid elements win
    r = ctx.fresh("r")
    ctx.add(f"{r} = pl.row_{'min' if pad == 'max' else 'max'}({f}, {ctx.scratch()})")
    ctx.add(f"{ctx.v} = pl.row_expand_sub({ctx.a}, {r})")
