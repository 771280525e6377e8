"""Ops of the May 2026 library the interpreter needed to run it: `col_expand`, `arange` (`ci`),
the cast round modes, `rsqrt(high_precision=)`, `set_validshape` and the `pl.spmd` scope.

Semantics from the docstrings of the 2026-05-26 and e2d0f78ae compilers (`pypto.language.op`)
and the round-mode table of e2d0f78ae's docs (dev/passes/12-lower_composite_ops.md).
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from . import sort_ops
from .values import KernelError, Tensor, Tile, array_of, dtype_of

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


def col_expand(m, target, col_vec):
    """`col_expand(target, col_vec)`: the [1, N] row repeated over target's [M, N]; of col_vec's dtype."""
    family = m._dispatch("col_expand", [target, col_vec])
    m._enter_op("col_expand", family, [target, col_vec])
    v = array_of(col_vec)
    if v.ndim != 2 or v.shape[0] != 1 or len(target.shape) != 2 or v.shape[1] != target.shape[1]:
        raise KernelError(f"pl.col_expand needs a [1, {target.shape[-1]}] row for a {list(target.shape)} target, "
                          f"got {list(v.shape)}")
    return m._result(target, np.broadcast_to(v, target.shape).copy())


def arange(m, forced: str | None, start, shape, dtype=None, descending=False):
    """`pl.arange` / `tile.ci`: consecutive integers along the innermost axis, from `start`
    (down from it when descending). A generator: it reads nothing."""
    dtype = dtype or D.DTYPES["INT32"]
    shape = [int(s) for s in shape]
    if shape[-1] == 1:
        raise KernelError("pl.arange: the innermost dimension must not be 1")
    if len(shape) != 2 or shape[0] != 1:
        raise KernelError(f"pl.arange of shape {shape}: only a [1, N] row is modelled by the interpreter")
    step = -1 if descending else 1
    data = (int(start) + step * np.arange(shape[-1], dtype=np.int64)).reshape(shape).astype(dtype.np)
    if forced == "Tile" or m.kernel is not None and m.strict and forced != "Tensor":
        m._in_kernel("tile.ci")
        return m._tile(data)
    return Tensor(data, np.zeros(data.shape, dtype=bool), "arange", None, m.kernel if m.strict and not m.head else None)


def set_validshape(m, x, valid_rows, valid_cols):
    """The same elements, now valid in [valid_rows, valid_cols] only (metadata, no data moves)."""
    if len(x.shape) != 2:
        raise KernelError(f"pl.set_validshape of a rank-{len(x.shape)} value (it must be 2D)")
    valid = (int(valid_rows), int(valid_cols))
    if isinstance(x, Tile):
        return Tile(x.data, x.space, x.kernel, valid, x.name)
    return Tensor(x.data, x.written, x.name, valid, x.kernel)


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
    pl.col_expand = pl.tile.col_expand = pl.tensor.col_expand = lambda target, col_vec: col_expand(m, target, col_vec)
    if m.strict and not m.head:
        return  # c39 has neither arange nor spmd, nor rsqrt's high_precision
    pl.set_validshape = pl.tile.set_validshape = pl.tensor.set_validshape = (
        lambda x, valid_rows, valid_cols: set_validshape(m, x, valid_rows, valid_cols))
    for ns in (pl, pl.tensor, pl.tile):
        if hasattr(ns, "rsqrt"):
            # the compiler's more exact rsqrt sequence; the interpreter's is exact in FP32 either way
            ns.rsqrt = (lambda rsqrt: lambda x, high_precision=False: rsqrt(x))(ns.rsqrt)
    for ns, forced in ((pl, None), (pl.tile, "Tile"), (pl.tensor, "Tensor")):
        ns.arange = ns.ci = (lambda f: lambda start, shape, dtype=None, descending=False:
                             arange(m, f, start, shape, dtype, descending))(forced)
    pl.spmd = lambda core_num, **kw: Spmd(m, core_num, **kw)
    sort_ops.install(pl, m)
