"""Casts across the dtype lattice: an extra input of a source dtype (FP32, FP16, BF16, INT8,
UINT8, INT16, INT32, INT64) loaded or sliced, cast along a chain of one or two other dtypes
(float to integer with a rounding mode) and back to FP32.

The chains follow what each era's compiler casts: e2d0f78ae's tile cast paths are the
2026-08 table's `[casts]` (used for `aug` and, lowered to the same tile casts, `spring`);
c39fe714a accepted those and the others measured below (2026-11-28), which the 2026-08
migration must route or mark. Inputs are drawn in 0..100, which every dtype holds.
"""

from __future__ import annotations

from functools import lru_cache

from . import Ctx, production

SOURCES = ("FP32", "FP16", "BF16", "INT8", "UINT8", "INT16", "INT32", "INT64")
FLOATS = ("FP32", "FP16", "BF16", "FP8E4M3FN", "FP8E5M2")
# c39fe714a casts beyond e2d0f78ae's paths, measured on a [TILE, COLS] Vec tile (2026-11-28).
C39_MORE = {"INT8": ("FP32", "INT32"), "UINT8": ("FP32",), "INT16": ("INT32",),
            "FP32": ("FP8E4M3FN", "FP8E5M2"), "FP8E4M3FN": ("FP32",), "FP8E5M2": ("FP16",)}
MODES = ("round", "rint", "floor", "ceil", "trunc")


@lru_cache(maxsize=None)
def paths(era: str) -> dict[str, tuple[str, ...]]:
    from codemods.rulebook.loading import load_api

    head = {src: tuple(sorted(dst)) for src, dst in load_api(None, "2026-08").cast_paths.items()}
    if era != "mar":
        return head
    return {src: tuple(sorted(set(head.get(src, ())) | set(C39_MORE.get(src, ())))) for src in set(head) | set(C39_MORE)}


def _to_fp32(graph: dict, src: str) -> list[str]:
    """The shortest chain of casts from src to FP32 in graph (breadth first, stable order)."""
    seen, frontier = {src: [src]}, [src]
    while frontier:
        nxt = []
        for d in frontier:
            for e in graph.get(d, ()):
                if e not in seen:
                    seen[e] = seen[d] + [e]
                    nxt.append(e)
        frontier = nxt
    return seen.get("FP32", [])


def _cast(ctx: Ctx, x: str, src: str, dst: str) -> str:
    mode = ""
    if src in FLOATS and dst not in FLOATS:
        mode = ctx.one_of(["", *(f', mode="{m}"' for m in MODES)])
    ns = ctx.one_of(["pl.", f"pl.{'tile' if ctx.level == 'tile' else 'tensor'}."])
    return f"{ns}cast({x}, target_type=pl.{dst}{mode})"


@production("mv_cast", eras=("mar", "aug", "spring"))
def cast(ctx: Ctx) -> None:
    graph = paths(ctx.era)
    src = ctx.one_of(SOURCES)
    name = ctx.input(ctx.fresh("q"), "COLS", src)
    ctx.verify_inputs[name] = "0:100"
    chain = [src]
    for _ in range(ctx.one_of([1, 2])):
        options = [d for d in graph.get(chain[-1], ()) if _to_fp32(graph, d)]
        if options:
            chain.append(ctx.one_of(options))
    back = _to_fp32(graph, chain[-1])
    chain += back[1:]
    x = ctx.fresh("x")
    ctx.add(f"{x} = {ctx.read(name)}")
    for step, (a, b) in enumerate(zip(chain, chain[1:])):
        y = ctx.fresh("k")
        ctx.add(f"{y} = {_cast(ctx, x, a, b)}")
        x = y
    ctx.idioms.append("cast_" + "_".join(chain))
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {x})" if len(chain) > 1 else f"{ctx.v} = pl.add({ctx.a}, {x})")
