"""Ops of the May 2026 library the interpreter needed to run it: the cast round modes,
`rsqrt(high_precision=)`, the `pl.spmd` scope, and (sort_ops) the top-k family. `col_expand`,
`arange` and `set_validshape` are reduce_ops' and movement_ops'.

Semantics from the docstrings of the 2026-05-26 and e2d0f78ae compilers (`pypto.language.op`)
and the round-mode table of e2d0f78ae's docs (dev/passes/12-lower_composite_ops.md).
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from . import sort_ops
from .values import KernelError

# tile.cast's modes, by name and by number (unary.cpp's registration order)
MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")
_TO_INT = {
    "none": np.rint, "rint": np.rint, "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
}


def cast_mode(mode) -> str:
    name = MODES[int(mode)] if isinstance(mode, int) and 0 <= mode < len(MODES) else mode
    if name not in MODES:
        raise KernelError(f"pl.cast mode={mode!r}: not one of {', '.join(MODES)}")
    return name


def convert(values: np.ndarray, source: D.DType, target: D.DType, mode) -> np.ndarray:
    """`values` of dtype `source` cast to `target` with the round mode the kernel asked for.
    To an integer, each mode is the rounding it names; to a narrower float, rint and round
    differ only on exact ties (taken to even here) and the directed modes are not modelled."""
    name = cast_mode(mode)
    if not target.is_float and source.is_float:
        if name == "odd":
            raise KernelError("pl.cast mode='odd' to an integer is not modelled by the interpreter")
        with np.errstate(all="ignore"):
            return _TO_INT[name](np.asarray(values, dtype=np.float64)).astype(target.np)
    narrowing = target.is_float and source.is_float and target.np.itemsize < source.np.itemsize
    if narrowing and name not in ("none", "rint", "round"):
        raise KernelError(f"pl.cast mode={name!r} to {target} is not modelled by the interpreter (only rint/round)")
    return D.cast(values, target)


class Spmd:
    """`pl.spmd(n)`: `for i in pl.spmd(n)` runs its body once per block, each its own kernel
    (the body is outlined into an InCore function); `with pl.spmd(n):` holds one call of an
    InCore function, a kernel of its own already."""

    def __init__(self, m, core_num, sync_start=False, name_hint="", optimizations=None) -> None:
        if isinstance(core_num, bool) or int(core_num) <= 0:
            raise KernelError(f"core_num must be a positive integer, got {core_num!r}")
        self.m, self.n = m, int(core_num)

    def __iter__(self):
        from .versions import loop_index

        outer = self.m.kernel
        try:
            for i in range(self.n):
                self.m.kernel = self.m.new_kernel()
                yield loop_index(self.m, i)
        finally:
            self.m.kernel = outer

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


def install(pl, m) -> None:
    if m.strict and not m.head:
        return  # c39 has neither spmd nor rsqrt's high_precision
    for ns in (pl, pl.tensor, pl.tile):
        if hasattr(ns, "rsqrt"):
            # the compiler's more exact rsqrt sequence; the interpreter's is exact in FP32 either way
            ns.rsqrt = (lambda rsqrt: lambda x, high_precision=False: rsqrt(x))(ns.rsqrt)
    pl.spmd = lambda core_num, **kw: Spmd(m, core_num, **kw)
    sort_ops.install(pl, m)
