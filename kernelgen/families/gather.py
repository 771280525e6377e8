"""Index gathers and scatters at tensor level, and the tensor markers (no_dep), in the spring
era's kernel scopes (measured with the compiler of 2026-05-26, 2026-11-28).

`pl.tensor.gather` takes its input and index from global memory (the lowering refuses a
computed value), with keywords only; so the production asks for a [TILE, COLS] source and an
INT32 index in [0, COLS). `pl.tensor.scatter` writes a window of the value at indices of a
window of an INT32 input. `pl.tensor.no_dep` passes its tensor on.
"""

from __future__ import annotations

from . import Ctx, production


def _index(ctx: Ctx, rows: str) -> str:
    name = ctx.input(ctx.fresh("gi"), "COLS", "INT32", rows=rows)
    ctx.verify_inputs[name] = "0:15"  # COLS is 16 at the least
    return name


@production("gather_index", eras=("spring",))
def gather_index(ctx: Ctx) -> None:
    op = ctx.one_of(["gather", "scatter", "no_dep"])
    ctx.idioms.append(f"tensor_{op}")
    if op == "gather":
        src = ctx.input(ctx.fresh("gs"), "COLS", "FP32", rows="TILE")
        idx = _index(ctx, "TILE")
        g = ctx.fresh("g")
        ctx.add(f"{g} = pl.tensor.gather({src}, dim=-1, index={idx})")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {g})")
    elif op == "scatter":
        idx = _index(ctx, "ROWS")
        ctx.add(f"{ctx.v} = pl.tensor.scatter({ctx.a}, dim=-1, index={ctx.read(idx)}, src={ctx.b})")
    else:
        ctx.add(f"{ctx.v} = pl.add(pl.tensor.no_dep({ctx.a}), 0.5)")


@production("gather_tile", eras=("aug",))
def gather_tile(ctx: Ctx) -> None:
    """The tile gathers and scatters of e2d0f78ae (measured 2026-11-28 in an InCore function):
    tile.gather / tile.scatter by flat INT32 indices, scatter_update of rows, mgather of rows
    from global memory, gather_row of one row into a tile."""
    op = ctx.one_of(["gather", "scatter", "scatter_update", "mgather", "gather_row"])
    ctx.idioms.append(f"tile_{op}")
    if op == "gather":
        idx = ctx.read(_index(ctx, "ROWS"))
        ctx.add(f"{ctx.v} = pl.tile.gather({ctx.a}, {idx}, {ctx.scratch()})")
    elif op == "scatter":
        idx = ctx.read(_index(ctx, "ROWS"))
        ctx.add(f"{ctx.v} = pl.tile.scatter({ctx.b}, {ctx.a}, {idx})")
    elif op == "scatter_update":  # rows of b replaced by a's rows: an index [1, TILE] of rows in [0, 4)
        name = ctx.input(ctx.fresh("ri"), "TILE", "INT32")
        ctx.verify_inputs[name] = "0:3"
        ns = ctx.one_of(["pl.", "pl.tile."])
        idx = ctx.read(name, rows="1", cols="TILE")
        ctx.add(f"{ctx.v} = {ns}scatter_update({ctx.b}, -2, {idx}, {ctx.a})")
    elif op == "mgather":
        mem = ctx.input(ctx.fresh("gm"), "COLS", "FP32")
        name = ctx.input(ctx.fresh("ri"), "1", "INT32")
        ctx.verify_inputs[name] = "0:7"  # ROWS is 8 at the least
        ns = ctx.one_of(["pl.", "pl.tile."])
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {ns}mgather({mem}, {ctx.read(name, cols='1')}))")
    else:
        src = ctx.input(ctx.fresh("gm"), "COLS", "FP32")
        ns = ctx.one_of(["pl.", "pl.tile."])
        row = ctx.one_of(["0", "1"])
        ctx.add(f"{ctx.v} = {ns}gather_row({ctx.a}, {src}, [{row}, 0], [{ctx.row0}, 0], [1, COLS])")
