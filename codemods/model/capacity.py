"""How many bytes of each 910B buffer a kernel's tiles need, known statically.

The figures are the compiler's own: `buffers` replays how pypto gives tile values buffers
and lets values whose lifetimes do not overlap share one. Tiles whose shape does not
evaluate (a runtime value in it) make the total unknown rather than wrong.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .buffers import replay, space_used
from .constants import evaluate
from ..rulebook.loading import ApiTable


class Tile(NamedTuple):
    """One tile a kernel allocates, as a capacity message names it."""

    label: str  # "[BATCH_TILE, K_CHUNK] BF16 load of wq_a"
    bytes: int | None
    shape: tuple[str, ...]


class Usage(NamedTuple):
    """How much of one memory space a kernel uses, against the platform's limit."""

    space: str
    bytes: int | None
    limit: int
    tiles: list[Tile]
    constants: dict[str, float]

    @property
    def over(self) -> bool:
        return self.bytes is not None and self.bytes > self.limit

    def summary(self) -> str:
        used = "unknown" if self.bytes is None else kb(self.bytes)
        text = f"{used} of {kb(self.limit)}"
        if self.tiles:
            worst = self.tiles[0]
            text += f"; largest: the {worst.label} ({kb(worst.bytes) if worst.bytes is not None else '?'})"
            names = sorted({n for s in worst.shape for n in re.findall(r"[A-Za-z_]\w*", s) if n in self.constants})
            if names:
                text += "; " + ", ".join(f"{n}={num(self.constants[n])}" for n in names)
        return text


def tile_bytes(shape, dtype: str, api: ApiTable, env: dict[str, float]) -> int | None:
    size = api.dtype_bytes.get(dtype)
    if size is None:
        return None
    total = float(size)
    for s in shape:
        v = evaluate(s, env)
        if v is None:
            return None
        total *= v
    return int(total)


def region_usage(rp, api: ApiTable, env: dict[str, float]) -> list[Usage]:
    """One Usage per memory space of the table, in the table's order: the buffers the
    compiler allocates for the kernel once values share them (see `buffers`)."""
    buffers = replay(rp.region.kind, rp.body, rp.allocations, lambda a: tile_bytes(a.shape, a.dtype, api, env),
                     lambda a: tuple(evaluate(d, env) for d in a.shape))
    order = {id(a): i for i, a in enumerate(rp.allocations)}
    out = []
    for space, limit in api.memory_limits.items():
        tiles = []
        mine = [b for b in buffers if b.space == space]
        for b in mine:
            a = b.made_for
            shared = len(b.values) - 1
            label = f"[{', '.join(a.shape)}] {a.dtype} {a.what}" + (f" ({a.name})" if a.name else "")
            if shared > 0:
                label += f", shared with {shared} later value{'s' * (shared != 1)}"
            tiles.append(Tile(label, b.aligned, tuple(a.shape)))
        tiles.sort(key=lambda t: -(t.bytes or 0))
        out.append(Usage(space, space_used(mine, order), limit, tiles, env))
    return out


def kb(n: float) -> str:
    if n < 1024:
        return f"{int(n)} B"
    return f"{int(n) // 1024} KB" if n % 1024 == 0 else f"{n / 1024:.1f} KB"


def num(v) -> str:
    return "?" if v is None else (str(int(v)) if float(v).is_integer() else f"{v:g}")
