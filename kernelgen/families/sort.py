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
    if merge == "format1":
        ctx.add(f"{out} = {ns}mrgsort({flat}, block_len=64)")
        return out, "[1, TILE * COLS]"
    other = ctx.fresh("s")
    ctx.add(f"{other} = pl.reshape({ns}sort32(pl.reshape({ctx.b}, {blocks}), pl.reshape({idx}, {blocks})), "
            "[1, TILE * COLS * 2])")
    if ctx.level == "tile":  # the tile form writes src0's shape, through a workspace of it
        ctx.add(f"{out} = {ns}mrgsort({flat}, {other}, tmp={ctx.scratch('1', 'TILE * COLS * 2')})")
        return out, "[1, TILE * COLS]"
    ctx.add(f"{out} = {ns}mrgsort({flat}, {other})")  # the tensor form concatenates the lists
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
    else:
        ctx.add(f"{g} = pl.tensor.gather({ctx.a}, mask_pattern={NUMBERS[take]})")
        ctx.add(f"{ctx.v} = pl.tensor.scatter({g}, mask_pattern={NUMBERS[put]}, dst={ctx.b})")
