"""Data movement of tile code: windows (slice), reshapes to rank 1 and 3, transposes, moves
between memory spaces, loads of extra inputs (Vec or Mat), created tiles, scalar reads and
writes, block indices; and, at e2d0f78ae only, concatenation, tile assembly and extraction,
index and mask tiles (arange/ci, tri), set_validshape, reinterpret_view, transpose_view.

Measured with both compilers (2026-11-28): c39fe714a has the first group under pl. and
pl.tile. (getval/setval and a flat pl.read offset too; no tile.write, valid_shape on a slice,
concat or the views); e2d0f78ae has them all but getval/setval, and wants `valid_shape=`.
"""

from __future__ import annotations

from . import MAT, VEC, Ctx, production

TILE_ERAS = ("mar", "aug")


def _ns(ctx: Ctx) -> str:
    return ctx.one_of(["pl.", "pl.tile."])


@production("mv_window", eras=TILE_ERAS)
def window(ctx: Ctx) -> None:
    """A column or a row of a tile, spread back over [TILE, COLS] by an expand op."""
    ns, w = _ns(ctx), ctx.fresh("w")
    if ctx.one_of(["column", "row"]) == "column":
        col = ctx.one_of(["0", "3", "COLS - 1", "COLS // 2"])
        ctx.add(f"{w} = {ns}slice({ctx.a}, [TILE, 1], [0, {col}])")
        ctx.add(f"{ctx.v} = pl.row_expand_add({ctx.b}, {w})")
    else:
        row = ctx.one_of(["0", "TILE - 1", "TILE // 2"])
        ctx.add(f"{w} = {ns}slice({ctx.a}, [1, COLS], [{row}, 0])")
        ctx.add(f"{ctx.v} = pl.col_expand_mul({ctx.b}, {w})")


@production("mv_reshape", eras=TILE_ERAS)
def reshape(ctx: Ctx) -> None:
    ns, s, m = _ns(ctx), ctx.fresh("s"), ctx.fresh("m")
    shape = ctx.one_of(["[TILE * COLS]", "[2, TILE // 2, COLS]", "[TILE // 2, 2, COLS]", "[TILE * 2, COLS // 2]",
                        "[1, TILE * COLS]"])
    ctx.add(f"{s} = {ns}reshape({ctx.a}, {shape})")
    ctx.add(f"{m} = pl.mul({s}, 0.5)")
    ctx.add(f"{ctx.v} = {ns}reshape({m}, [TILE, COLS])")


@production("mv_transpose", eras=TILE_ERAS)
def transpose(ctx: Ctx) -> None:
    ns, t, m = _ns(ctx), ctx.fresh("t"), ctx.fresh("m")
    ctx.add(f"{t} = {ns}transpose({ctx.a}, axis1=0, axis2=1)")
    ctx.add(f"{m} = pl.add({t}, 1.0)")
    ctx.add(f"{ctx.v} = {ns}transpose({m}, axis1=0, axis2=1)")


@production("mv_move", eras=TILE_ERAS)
def move(ctx: Ctx) -> None:
    """A Vec tile through Mat and back, or an extra input loaded into Mat and moved to Vec."""
    ns, m = _ns(ctx), ctx.fresh("m")
    if ctx.one_of(["round_trip", "load_mat"]) == "round_trip":
        ctx.add(f"{m} = {ns}move({ctx.a}, target_memory={MAT})")
        ctx.add(f"{ctx.v} = {ns}move({m}, target_memory={VEC})")
    else:
        src = ctx.input(ctx.fresh("y"), "COLS", "FP32")
        w = ctx.fresh("w")
        ctx.add(f"{m} = {ns}load({src}, [{ctx.row0}, 0], [TILE, COLS], target_memory={MAT})")
        ctx.add(f"{w} = {ns}move({m}, target_memory={VEC})")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {w})")


@production("mv_load", eras=TILE_ERAS)
def load(ctx: Ctx) -> None:
    """An extra input loaded, its valid region spelled out the era's way or not. (c39 types a load
    of `[TILE, COLS // 2]` with a dynamic second dimension: "requires compatible shapes".)"""
    ns, src, t = _ns(ctx), ctx.input(ctx.fresh("y"), "COLS", "FP32"), ctx.fresh("t")
    form = ctx.one_of(["plain", "valid"])
    valid = ""
    if form == "valid":
        valid = ", valid_shapes=[TILE, COLS]" if ctx.era == "mar" else ", valid_shape=[TILE, COLS]"
    ctx.add(f"{t} = {ns}load({src}, [{ctx.row0}, 0], [TILE, COLS]{valid}, target_memory={VEC})")
    ctx.add(f"{ctx.v} = pl.sub({ctx.a}, {t})")


@production("mv_create", eras=TILE_ERAS)
def create(ctx: Ctx) -> None:
    """A created tile as a reduction's scratch, or a filled one (of another dtype, cast back)."""
    t, r = ctx.fresh("t"), ctx.fresh("r")
    if ctx.one_of(["scratch", "full"]) == "scratch":
        maker = ctx.one_of(["pl.create_tile", "pl.tile.create", "pl.tile.create_tile"])
        ctx.add(f"{t} = {maker}([TILE, COLS], dtype=pl.FP32, target_memory={VEC})")
        ctx.add(f"{r} = pl.row_max({ctx.a}, {t})")
        ctx.add(f"{ctx.v} = pl.row_expand_sub({ctx.a}, {r})")
        return
    dtype, value = ctx.one_of([("FP32", "0.25"), ("FP16", "1.5"), ("INT32", "3"), ("BF16", "2.0")])
    ctx.add(f"{t} = pl.tile.full([TILE, COLS], dtype=pl.{dtype}, value={value})")
    full = t if dtype == "FP32" else f"pl.cast({t}, target_type=pl.FP32)"
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {full})")


@production("mv_scalar", eras=TILE_ERAS)
def scalar(ctx: Ctx) -> None:
    """One element read (as a scalar) or written, by the era's spelling."""
    s, c = ctx.fresh("s"), ctx.fresh("c")
    flat = ctx.one_of(["3", "COLS + 1", "TILE * COLS - 1"])
    i, j = ctx.one_of([("0", "3"), ("1", "1"), ("TILE - 1", "COLS - 1")])
    if ctx.one_of(["read", "write"]) == "read":
        forms = [f"pl.tile.read({ctx.a}, [{i}, {j}])"]
        forms += ([f"pl.tile.getval({ctx.a}, {flat})", f"pl.getval({ctx.a}, {flat})", f"pl.read({ctx.a}, {flat})"]
                  if ctx.era == "mar" else [f"pl.read({ctx.a}, [{i}, {j}])"])
        ctx.add(f"{s} = {ctx.one_of(forms)}")
        ctx.add(f"{ctx.v} = pl.mul({ctx.b}, {s})")
        return
    ctx.add(f"{c} = pl.add({ctx.a}, 0.0)")
    if ctx.era == "mar":
        ctx.add(f"{s} = {ctx.one_of(['pl.tile.setval', 'pl.setval'])}({c}, {flat}, 2.0)")
        ctx.add(f"{ctx.v} = pl.mul({s}, 1.0)")
    else:
        ctx.add(f"{ctx.one_of(['pl.tile.write', 'pl.write'])}({c}, [{i}, {j}], 2.0)")
        ctx.add(f"{ctx.v} = pl.mul({c}, 1.0)")


@production("mv_block", eras=TILE_ERAS)
def block(ctx: Ctx) -> None:
    """The block index (0 in a task of one block) added in as a number."""
    i = ctx.fresh("i")
    ops = ["get_block_idx"] + (["get_block_num", "get_subblock_idx"] if ctx.era == "aug" else [])
    ctx.add(f"{i} = pl.tile.{ctx.one_of(ops)}()")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, pl.cast({i}, pl.FP32))")


# -- e2d0f78ae only ---------------------------------------------------------------------------
@production("mv_concat", eras=("aug",))
def concat(ctx: Ctx) -> None:
    """Halves put together again: concatenated (swapped), assembled, or extracted."""
    lo, hi = ctx.fresh("lo"), ctx.fresh("hi")
    ctx.add(f"{lo} = pl.tile.slice({ctx.a}, [TILE, COLS // 2], [0, 0])")
    ctx.add(f"{hi} = pl.tile.slice({ctx.b}, [TILE, COLS // 2], [0, COLS // 2])")
    form = ctx.one_of(["concat", "assemble", "extract"])
    if form == "concat":
        ctx.add(f"{ctx.v} = {ctx.one_of(['pl.concat', 'pl.tile.concat'])}({hi}, {lo})")
    elif form == "assemble":
        ctx.add(f"{ctx.v} = {ctx.one_of(['pl.assemble', 'pl.tile.assemble'])}({ctx.a}, pl.mul({hi}, 2.0), [0, 0])")
    else:
        e = ctx.fresh("e")
        ctx.add(f"{e} = pl.tile.extract({ctx.b}, 0, COLS // 2, [TILE, COLS // 2], target_memory={VEC})")
        ctx.add(f"{ctx.v} = pl.tile.concat({lo}, {e})")


@production("mv_index", eras=("aug",))
def index(ctx: Ctx) -> None:
    """Generated index rows (arange/ci, INT16/INT32, either direction) and triangular masks."""
    g = ctx.fresh("g")
    if ctx.one_of(["arange", "tri"]) == "arange":
        op = ctx.one_of(["arange", "ci"])
        dtype = ctx.one_of(["INT32", "INT16"])
        start, desc = ctx.one_of([("0", ""), ("1", ""), ("COLS", ", descending=True")])
        ctx.add(f"{g} = pl.tile.{op}({start}, [1, COLS], dtype=pl.{dtype}{desc})")
        ctx.add(f"{ctx.v} = pl.col_expand_mul({ctx.a}, pl.cast({g}, target_type=pl.FP32))")
        return
    diagonal = ctx.one_of(["0", "1", "-1", "COLS // 2"])
    upper = ctx.one_of(["", ", upper=True"])
    dtype = ctx.one_of(["FP32", "INT32"])
    ctx.add(f"{g} = pl.tile.tri({diagonal}, [TILE, COLS], dtype=pl.{dtype}{upper})")
    mask = g if dtype == "FP32" else f"pl.cast({g}, target_type=pl.FP32)"
    ctx.add(f"{ctx.v} = pl.mul({ctx.a}, {mask})")


@production("mv_views", eras=("aug",))
def views(ctx: Ctx) -> None:
    """Views that move no data: valid region narrowed and padded, bytes read as INT32 and back,
    the NZ/ZN transpose view twice."""
    s = ctx.fresh("s")
    form = ctx.one_of(["validshape", "reinterpret", "transpose_view", "slice_valid"])
    if form == "validshape":
        c = ctx.fresh("c")
        ctx.add(f"{c} = pl.add({ctx.a}, 0.0)")
        ctx.add(f"{s} = {ctx.one_of(['pl.set_validshape', 'pl.tile.set_validshape'])}({c}, TILE, COLS // 2)")
        ctx.add(f"{ctx.v} = pl.fillpad({s})")
    elif form == "slice_valid":
        ctx.add(f"{s} = pl.tile.slice({ctx.a}, [TILE, COLS], [0, 0], valid_shape=[TILE // 2, COLS])")
        ctx.add(f"{ctx.v} = pl.fillpad({s})")
    elif form == "reinterpret":
        ns = ctx.one_of(["pl.", "pl.tile."])
        ctx.add(f"{s} = {ns}reinterpret_view({ctx.a}, pl.INT32)")
        ctx.add(f"{ctx.v} = {ns}reinterpret_view({s}, pl.FP32)")
    else:
        ctx.add(f"{s} = pl.tile.transpose_view({ctx.a})")
        ctx.add(f"{ctx.v} = pl.tile.transpose_view({s})")
