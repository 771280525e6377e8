"""Op families: the productions the era generators draw from, one module per family.

A production writes a few statements into a kernel body and binds `ctx.v` to a [TILE, COLS]
FP32 value of the era's kind (a Vec tile in `mar`/`aug` tile code, a tensor in `feb`/`spring`
tensor code), so that productions chain. It registers itself with the eras whose compiler
accepts what it writes:

    @production("bitwise", eras=("mar", "aug"))
    def bitwise(ctx: Ctx) -> None:
        ...

`for_era(era)` imports every module of this package once and returns that era's productions
in a stable order (name), so a seed draws the same kernels on every machine. What each op
means and how it is typed is not here: the interpreter (codemods/interp) and the API tables
(codemods/rules/api) are the references the generated kernels are judged against.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass, field
from typing import Callable

VEC = "pl.MemorySpace.Vec"
MAT = "pl.MemorySpace.Mat"

# The value kind of each era's bodies: what `a`, `b` and `v` hold.
LEVEL = {"feb": "tensor", "mar": "tile", "spring": "tensor", "aug": "tile", "aug_tensor": "tensor"}


@dataclass
class Ctx:
    """What a production sees of the kernel it writes into."""

    era: str
    draw: Callable  # hypothesis's draw
    add: Callable[..., None]  # add(line, extra_indent=0)
    a: str  # an operand: [TILE, COLS] FP32 of the era's kind
    b: str  # another (may be the same name)
    v: str  # the name to bind
    row0: str  # the row offset of this body's tile in the kernel's [ROWS, ...] inputs
    inputs: dict[str, str] = field(default_factory=dict)  # extra parameters: name -> annotation
    idioms: list[str] = field(default_factory=list)
    verify_inputs: dict[str, str] = field(default_factory=dict)  # name -> "lo:hi" for `verify --input`
    _n: list[int] = field(default_factory=lambda: [0])

    @property
    def level(self) -> str:
        return LEVEL[self.era]

    def fresh(self, stem: str) -> str:
        self._n[0] += 1
        return f"{stem}{self.v}_{self._n[0]}"

    def one_of(self, options):
        from hypothesis import strategies as st

        return self.draw(st.sampled_from(list(options)))

    def input(self, name: str, cols: str, dtype: str, rows: str = "ROWS") -> str:
        """Ask for an extra kernel parameter `name: pl.Tensor[[rows, cols], pl.dtype]`."""
        self.inputs[name] = f"pl.Tensor[[{rows}, {cols}], pl.{dtype}]"
        return name

    def read(self, tensor: str, rows: str = "TILE", cols: str = "COLS", col0: str = "0", row0: str | None = None) -> str:
        """An expression for a [rows, cols] window of an input at (row0, col0), of the era's kind."""
        r0 = self.row0 if row0 is None else row0
        if self.era == "feb":
            return f"pl.view({tensor}, [{rows}, {cols}], [{r0}, {col0}])"
        if self.level == "tensor":
            return f"pl.slice({tensor}, [{rows}, {cols}], [{r0}, {col0}])"
        return f"pl.load({tensor}, [{r0}, {col0}], [{rows}, {cols}], target_memory={VEC})"

    def scratch(self, rows: str = "TILE", cols: str = "COLS", dtype: str = "FP32") -> str:
        """A statement-bound scratch tile (tile eras) for ops that take one; returns its name."""
        name = self.fresh("t")
        self.add(f"{name} = pl.create_tile([{rows}, {cols}], dtype=pl.{dtype}, target_memory={VEC})")
        return name

    def positive(self, x: str) -> str:
        return f"pl.add(pl.mul({x}, {x}), 1.0)"


@dataclass(frozen=True)
class Production:
    name: str
    eras: tuple[str, ...]
    fn: Callable[[Ctx], None]
    family: str


_REGISTRY: dict[str, Production] = {}
_loaded = False


def production(name: str, eras: tuple[str, ...]):
    def register(fn: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
        if name in _REGISTRY:
            raise ValueError(f"production {name!r} registered twice")
        _REGISTRY[name] = Production(name, tuple(eras), fn, fn.__module__.rsplit(".", 1)[-1])
        return fn

    return register


def _load() -> None:
    global _loaded
    if not _loaded:
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
            importlib.import_module(f"{__name__}.{info.name}")
        _loaded = True


def focus() -> set[str]:
    """KERNELGEN_FOCUS=family,...: generate from those families' productions only (for the
    person widening a family: `KERNELGEN_FOCUS=bitwise make fuzz N=40`)."""
    return {f.strip() for f in os.environ.get("KERNELGEN_FOCUS", "").split(",") if f.strip()}


def for_era(era: str) -> list[Production]:
    _load()
    only = focus()
    return [p for _, p in sorted(_REGISTRY.items()) if era in p.eras and (not only or p.family in only)]


def registered() -> list[Production]:
    _load()
    return [p for _, p in sorted(_REGISTRY.items())]
