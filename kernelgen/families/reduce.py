"""Reductions and broadcasts as the 2026-03 and spring compilers had them.

Measured (a kernel per form, 2026-11-28): c39fe714a takes, at tile level, pl.sum/max/min with
an axis and keepdim (pl. and pl.tile.), row_sum/row_max/row_min with a scratch tile,
`row_expand(src)` (one operand: column 0 spread over src), `col_expand(target, [1, N])`, the
add/sub/mul/div row expands, the sub/mul/div column ones, and `fillpad(tile)` of a load with
`valid_shapes` (no pad value). The compiler of 2026-05-26 takes, on Tensors in `pl.incore()`
(pl. and pl.tensor.), row_sum/row_max/row_min, col_sum, `row_expand(target, [M, 1])`,
col_expand, the same expands and `fillpad(x)` of a window with `valid_shape`; neither has
row_prod, the argmax/argmin ones, col_max/min/prod, part_*, fillpad_expand, the max/min/expdif
expands or col_expand_add (those are 2026-08's: reduce_aug). Every production ends on a
[TILE, COLS] FP32 value."""

from __future__ import annotations

from . import VEC, Ctx, production


def _half(ctx: Ctx) -> str:
    return ctx.one_of(["COLS // 2", "16"])


@production("axis_reduction", eras=("mar",))
def axis_reduction(ctx: Ctx) -> None:
    """pl.sum/max/min(t, axis=, keepdim=True), broadcast back over the tile."""
    op = ctx.one_of(["sum", "max", "min"])
    ns = ctx.one_of(["pl.", "pl.tile."])
    axis = ctx.one_of([0, 1])
    r = ctx.fresh("r")
    ctx.add(f"{r} = {ns}{op}({ctx.b}, axis={axis}, keepdim=True)")
    if axis == 1:
        ctx.add(f"{ctx.v} = {ns}row_expand_{ctx.one_of(['sub', 'add'])}({ctx.a}, {r})")
    else:
        how = ctx.one_of(["col_expand_sub", "col_expand_mul", "col_expand"])
        ctx.add(f"{ctx.v} = {ns}{how}({ctx.a}, {r})")


@production("row_expand_first", eras=("mar",))
def row_expand_first(ctx: Ctx) -> None:
    """c39's one-operand row_expand: every row filled with its first element."""
    e = ctx.fresh("e")
    ctx.add(f"{e} = {ctx.one_of(['pl.', 'pl.tile.'])}row_expand({ctx.b})")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {e})")


@production("col_expand_loaded", eras=("mar",))
def col_expand_loaded(ctx: Ctx) -> None:
    """col_expand (or a division by the row, made positive) of a [1, COLS] row read from an input."""
    g = ctx.fresh("g")
    vec = ctx.input(ctx.fresh("cv"), "COLS", "FP32", rows="1")
    ctx.add(f"{g} = {ctx.read(vec, rows='1', row0='0')}")
    e = ctx.fresh("e")
    how = ctx.one_of(["col_expand", "col_expand_div"])
    if how == "col_expand_div":
        h = ctx.fresh("h")
        ctx.add(f"{h} = {ctx.positive(g)}")
        g = h
    ctx.add(f"{e} = {ctx.one_of(['pl.', 'pl.tile.'])}{how}({ctx.b}, {g})")
    ctx.add(f"{ctx.v} = pl.sub({ctx.a}, {e})")


@production("fillpad_loaded", eras=("mar",))
def fillpad_loaded(ctx: Ctx) -> None:
    """A load with a valid region, its padding filled (c39: no pad value, zero)."""
    src = ctx.input(ctx.fresh("p"), "COLS", "FP32")
    c, f = ctx.fresh("c"), ctx.fresh("f")
    ctx.add(f"{c} = pl.load({src}, [{ctx.row0}, 0], [TILE, COLS], valid_shapes=[TILE, {_half(ctx)}], "
            f"target_memory={VEC})")
    ctx.add(f"{f} = {ctx.one_of(['pl.', 'pl.tile.'])}fillpad({c})")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {f})")


@production("tensor_row_reduction", eras=("spring",))
def tensor_row_reduction(ctx: Ctx) -> None:
    op = ctx.one_of(["row_sum", "row_max", "row_min"])
    how = ctx.one_of(["row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div", "row_expand"])
    ns, ns2 = ctx.one_of(["pl.", "pl.tensor."]), ctx.one_of(["pl.", "pl.tensor."])
    r = ctx.fresh("r")
    src = ctx.b
    if how in ("row_expand_div", "row_expand_mul"):  # a positive, moderate row vector
        src = ctx.fresh("q")
        ctx.add(f"{src} = {ctx.positive(f'pl.mul({ctx.b}, 0.125)')}")
    ctx.add(f"{r} = {ns}{op}({src})")
    ctx.add(f"{ctx.v} = {ns2}{how}({ctx.a}, {r})")


@production("tensor_col_reduction", eras=("spring",))
def tensor_col_reduction(ctx: Ctx) -> None:
    how = ctx.one_of(["col_expand_sub", "col_expand_mul", "col_expand_div", "col_expand"])
    ns, ns2 = ctx.one_of(["pl.", "pl.tensor."]), ctx.one_of(["pl.", "pl.tensor."])
    r, src = ctx.fresh("r"), ctx.b
    if how in ("col_expand_div", "col_expand_mul"):
        src = ctx.fresh("q")
        ctx.add(f"{src} = {ctx.positive(f'pl.mul({ctx.b}, 0.125)')}")
    ctx.add(f"{r} = {ns}col_sum({src})")
    ctx.add(f"{ctx.v} = {ns2}{how}({ctx.a}, {r})")


@production("tensor_fillpad", eras=("spring",))
def tensor_fillpad(ctx: Ctx) -> None:
    src = ctx.input(ctx.fresh("p"), "COLS", "FP32")
    c, f = ctx.fresh("c"), ctx.fresh("f")
    ctx.add(f"{c} = pl.slice({src}, [TILE, COLS], [{ctx.row0}, 0], valid_shape=[TILE, {_half(ctx)}])")
    ctx.add(f"{f} = {ctx.one_of(['pl.', 'pl.tensor.'])}fillpad({c})")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {f})")
