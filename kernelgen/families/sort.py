"""sort32, mrgsort and the hardware mask patterns (gather_mask / scatter_mask), at tile level
(e2d0f78ae) and tensor level in kernel scopes (the compiler of 2026-05-26); measured 2026-11-28.

sort32 of [R, 32] gives [R, 64] value-index pairs; gather_mask with P0101 takes the values back
out, so the value stays [TILE, COLS] FP32. mrgsort runs on the pairs flattened to one row
(format1 with block_len=64, format2 of two lists).
"""

from __future__ import annotations

from . import Ctx, production

MASKS = {"P0101": 2, "P1010": 2, "P0001": 4, "P0010": 4, "P0100": 4, "P1000": 4}
NUMBERS = {"P0101": 1, "P1010": 2, "P0001": 3, "P0010": 4, "P0100": 5, "P1000": 6}


def _sorted(ctx: Ctx, ns: str) -> tuple[str, str]:
    """The value's elements sorted in blocks of 32 (rows of 32: the 2026-05 compiler wants the
    last axis a multiple of 32), maybe merged: value-index pairs, and the shape the values
    taken back out of them have."""
    idx = ctx.read(ctx.input(ctx.fresh("si"), "COLS", "UINT32"))
    blocks = "[TILE * COLS // 32, 32]"
    s = ctx.fresh("s")
    ctx.add(f"{s} = {ns}sort32(pl.reshape({ctx.a}, {blocks}), pl.reshape({idx}, {blocks}))")
    merge = ctx.one_of(["none", "format1", "format2"])
    ctx.idioms.append(f"sort32_{merge}")
    if merge == "none":
        return s, blocks
    flat = ctx.fresh("r")
    ctx.add(f"{flat} = pl.reshape({s}, [1, TILE * COLS * 2])")
    out = ctx.fresh("m")
    ir = ctx.one_of([False, True])  # the IR op's own name, which both parsers accept too
    ctx.idioms.append("mrgsort_ir" if ir else "mrgsort")
    space = "pl.tile." if ctx.level == "tile" else "pl.tensor."
    if merge == "format1":
        call = f"{space}mrgsort_format1({flat}, 64)" if ir else f"{ns}mrgsort({flat}, block_len=64)"
        ctx.add(f"{out} = {call}")
        return out, "[1, TILE * COLS]"
    other = ctx.fresh("s")
    ctx.add(f"{other} = pl.reshape({ns}sort32(pl.reshape({ctx.b}, {blocks}), pl.reshape({idx}, {blocks})), "
            "[1, TILE * COLS * 2])")
    if ctx.level == "tile":  # the tile form writes src0's shape, through a workspace of it
        tmp = ctx.scratch("1", "TILE * COLS * 2")
        call = f"{space}mrgsort_format2({flat}, {other}, {tmp})" if ir else f"{ns}mrgsort({flat}, {other}, tmp={tmp})"
        ctx.add(f"{out} = {call}")
        return out, "[1, TILE * COLS]"
    call = f"{space}mrgsort_format2({flat}, {other})" if ir else f"{ns}mrgsort({flat}, {other})"
    ctx.add(f"{out} = {call}")  # the tensor form concatenates the lists
    return out, "[1, TILE * COLS * 2]"


def _values(ctx: Ctx, pairs: str) -> str:
    if ctx.level == "tile":
        return f"pl.tile.gather_mask({pairs}, pl.tile.MaskPattern.P0101)"
    return f"pl.tensor.gather({pairs}, mask_pattern=1)"


@production("sort_pairs", eras=("spring", "aug"))
def sort_pairs(ctx: Ctx) -> None:
    ns = ctx.one_of(["pl.", "pl.tile."] if ctx.level == "tile" else ["pl.", "pl.tensor."])
    pairs, shape = _sorted(ctx, ns)
    vals = ctx.fresh("sv")
    ctx.add(f"{vals} = {_values(ctx, pairs)}")
    if shape.endswith("* 2]"):  # the merged lists of the tensor form: the first half, the largest
        vals = f"pl.slice({vals}, [1, TILE * COLS], [0, 0])"
    ctx.add(f"{ctx.v} = pl.reshape({vals}, [TILE, COLS])")


@production("mask_pattern", eras=("spring", "aug"))
def mask_pattern(ctx: Ctx) -> None:
    """Columns of `a` picked by one pattern, written back into another pattern's columns of `b`
    (a pattern of the same stride)."""
    take = ctx.one_of(sorted(MASKS))
    put = ctx.one_of([p for p in sorted(MASKS) if MASKS[p] == MASKS[take]])
    ctx.idioms.append(f"mask_{take}_{put}")
    g = ctx.fresh("g")
    if ctx.level == "tile":
        ctx.add(f"{g} = pl.tile.gather_mask({ctx.a}, pl.tile.MaskPattern.{take})")
        ctx.add(f"{ctx.v} = pl.tile.scatter_mask({ctx.b}, {g}, pl.tile.MaskPattern.{put})")
    elif ctx.one_of([False, True]):  # the IR ops' names: the compact input before dst
        ctx.add(f"{g} = pl.tensor.gather_mask({ctx.a}, mask_pattern={NUMBERS[take]})")
        ctx.add(f"{ctx.v} = pl.tensor.scatter_mask({g}, {ctx.b}, mask_pattern={NUMBERS[put]})")
    else:  # the 2026-05 compiler takes an int pattern at tensor level, refuses pl.tile.MaskPattern there
        ctx.add(f"{g} = pl.tensor.gather({ctx.a}, mask_pattern={NUMBERS[take]})")
        ctx.add(f"{ctx.v} = pl.tensor.scatter({g}, mask_pattern={NUMBERS[put]}, dst={ctx.b})")


@production("gather_compare", eras=("spring", "aug"))
def gather_compare(ctx: Ctx) -> None:
    """The compare form: how many of each row's values compare true with a threshold, added
    to the row (the gathered column numbers past a row's count are unspecified: not read)."""
    mode = ctx.one_of(["eq", "ne", "lt", "le", "gt", "ge"])
    ctx.idioms.append(f"gather_compare_{mode}")
    d, c = ctx.fresh("gd"), ctx.fresh("gc")
    if ctx.level == "tile":
        tmp = ctx.scratch(dtype="UINT8")
        ctx.add(f"{d}, {c} = pl.tile.gather_compare({ctx.a}, 0.5, {tmp}, cmp_mode={mode!r}, out_cols=COLS)")
    else:
        ctx.add(f"{d}, {c} = pl.tensor.gather_compare({ctx.a}, 0.5, cmp_mode={mode!r}, out_cols=COLS)")
    n = ctx.fresh("gn")
    ctx.add(f"{n} = pl.cast(pl.reshape({c}, [TILE, 1]), target_type=pl.FP32)")
    ctx.add(f"{ctx.v} = pl.row_expand_add({ctx.a}, {n})")
