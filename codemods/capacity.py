"""How many bytes of each 910B buffer a kernel's tiles need, known statically.

The model, stated so that a person can redo it by hand: every tile variable holds one
buffer (its largest shape if it is reassigned), and the unnamed temporaries of a statement
(a load inside a cast, a move into Left) need their own buffers while that statement runs,
so a space needs the sum of its variables plus the largest sum of temporaries of any one
statement. Tiles whose shape does not evaluate (a runtime value in it) make the total
unknown rather than wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .kernels import evaluate
from .rulebook import ApiTable


@dataclass
class Tile:
    label: str  # "[BATCH_TILE, K_CHUNK] BF16 load of wq_a"
    bytes: int | None
    shape: tuple[str, ...]


@dataclass
class Usage:
    space: str
    bytes: int | None
    limit: int
    tiles: list[Tile] = field(default_factory=list)
    constants: dict[str, float] = field(default_factory=dict)

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


def region_usage(allocations, api: ApiTable, env: dict[str, float]) -> list[Usage]:
    """One Usage per memory space of the table, in the table's order."""
    out = []
    for space, limit in api.memory_limits.items():
        named: dict[str, Tile] = {}
        temps: dict[object, list[Tile]] = {}
        for a in (a for a in allocations if a.space == space):
            tile = Tile(f"[{', '.join(a.shape)}] {a.dtype} {a.what}" + (f" ({a.name})" if a.name else ""),
                        tile_bytes(a.shape, a.dtype, api, env), a.shape)
            if a.name is not None:
                old = named.get(a.name)
                if old is None or (tile.bytes or 0) > (old.bytes or 0):
                    named[a.name] = tile
            else:
                temps.setdefault(a.statement, []).append(tile)
        peak = max(temps.values(), key=lambda ts: sum(t.bytes or 0 for t in ts), default=[])
        tiles = sorted([*named.values(), *peak], key=lambda t: -(t.bytes or 0))
        unknown = any(t.bytes is None for t in tiles)
        total = None if unknown else sum(t.bytes for t in tiles)
        out.append(Usage(space, total, limit, tiles, env))
    return out


def kb(n: float) -> str:
    if n < 1024:
        return f"{int(n)} B"
    return f"{int(n) // 1024} KB" if n % 1024 == 0 else f"{n / 1024:.1f} KB"


def num(v) -> str:
    return "?" if v is None else (str(int(v)) if float(v).is_integer() else f"{v:g}")
