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
