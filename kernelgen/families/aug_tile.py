"""Tile ops that only the 2026-08 compiler has and that no other family writes: counter-based
random bits, and per-element writes. Judged by head's acceptance and the tool leaving the kernel
byte for byte (no interpreter runs them)."""

from __future__ import annotations

from . import Ctx, production


@production("aug_tile_random", eras=("aug",))
def random(ctx: Ctx) -> None:
    bits = ctx.fresh("r")
    ctx.add(f"{bits} = pl.tile.random(1, 2, 0, 0, 0, 0, [TILE, COLS], dtype=pl.INT32)")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, pl.mul(pl.cast({bits}, target_type=pl.FP32), 0.0))")


@production("aug_tile_write", eras=("aug",))
def write(ctx: Ctx) -> None:
    """A zero tile with one element written, added in."""
    zero = ctx.fresh("z")
    ctx.add(f"{zero} = pl.tile.full([TILE, COLS], dtype=pl.FP32, value=0.0)")
    ns = ctx.one_of(["pl.", "pl.tile."])
    ctx.add(f"{ns}write({zero}, [0, 1], 0.5)")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {zero})")
