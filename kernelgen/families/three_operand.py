"""Three-operand arithmetic of the tile namespace: addc/subc (tile, tile, tile) and
addsc/subsc (tile, scalar, tile). c39fe714a and e2d0f78ae both have them at tile level only."""

from __future__ import annotations

from . import Ctx, production


@production("three_operand", eras=("mar", "aug"))
def three_operand(ctx: Ctx) -> None:
    op = ctx.one_of(["addc", "subc", "addsc", "subsc"])
    ns = ctx.one_of(["pl.", "pl.tile."])
    middle = ctx.one_of(["0.5", "2.0"]) if op.endswith("sc") else ctx.b
    ctx.add(f"{ctx.v} = {ns}{op}({ctx.a}, {middle}, {ctx.b})")
