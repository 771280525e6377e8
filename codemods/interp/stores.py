"""Stores into global memory the interpreter did not have: `pl.write` of one element,
`pl.full` outside `pl.tile`, and the subscript store `x[a:b, :] = value` (tensor.assemble).

A store writes the array in place and marks what it wrote, as `pl.store`/`pl.assemble` do, so
that verify compares exactly the elements a kernel wrote.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .values import ACTIVE, KernelError, Tensor, Tile, _Array


def write(m, x, indices, value):
    """`pl.write(x, [i, j], v)`: one element of a Tensor or a Tile."""
    if not isinstance(x, (Tensor, Tile)):
        raise KernelError("pl.write needs a Tensor or a Tile")
    idx = tuple(int(i) for i in (indices if isinstance(indices, (list, tuple)) else [indices]))
    if len(idx) != len(x.shape) or any(not 0 <= i < n for i, n in zip(idx, x.shape)):
        raise KernelError(f"pl.write at {list(idx)} is out of bounds of {list(x.shape)}")
    x.data[idx] = D.cast(np.asarray(np.float32(value)), x.dtype)
    if isinstance(x, Tensor):
        x.written[idx] = True
    return x


def full(m, shape, dtype, value):
    """Bare `pl.full` is the unified op of after c39: a Tensor (tensor.full), in a kernel scope too."""
    data = D.cast(np.full([int(s) for s in shape], np.float32(value), dtype=np.float32), dtype)
    return Tensor(data, np.zeros(data.shape, dtype=bool), "full")


def store_subscript(m, x, key, value):
    """`x[r, :, :] = v`: the window the subscript names, an integer index dropping its axis."""
    key = key if isinstance(key, tuple) else (key,)
    if len(key) > len(x.shape):
        raise KernelError(f"subscript {key} of a rank-{len(x.shape)} value")
    index = []
    for k, n in zip(key + (slice(None),) * (len(x.shape) - len(key)), x.shape):
        if isinstance(k, slice):
            if k.step not in (None, 1):
                raise KernelError("a subscript slice with a step is not a store window")
            lo, hi = (0 if k.start is None else int(k.start)), (n if k.stop is None else int(k.stop))
            if not 0 <= lo <= hi <= n:
                raise KernelError(f"subscript store [{lo}:{hi}] out of bounds of {n}")
            index.append(slice(lo, hi))
        else:
            if not 0 <= int(k) < n:
                raise KernelError(f"subscript store at {int(k)} out of bounds of {n}")
            index.append(int(k))
    region = x.data[tuple(index)]
    source = value.data if isinstance(value, (Tensor, Tile)) else np.full(region.shape, np.float32(value))
    if int(np.prod(source.shape)) != int(np.prod(region.shape)):
        raise KernelError(f"subscript store of a {list(source.shape)} value into a {list(region.shape)} window")
    x.data[tuple(index)] = D.cast(source.astype(np.float32).reshape(region.shape), x.dtype)
    if isinstance(x, Tensor):
        x.written[tuple(index)] = True


def _setitem(self, key, value):
    if not ACTIVE:
        raise KernelError("subscript store outside a running kernel")
    store_subscript(ACTIVE[-1], self, key, value)


def install(pl, m) -> None:
    pl.write = lambda x, indices, value: write(m, x, indices, value)
    pl.tensor.write = pl.tile.write = pl.write
    if not hasattr(pl, "full"):
        pl.full = lambda shape, dtype, value=0: full(m, shape, dtype, value)
    _Array.__setitem__ = _setitem
