"""Index gathers and scatters of tensors, and the tensor markers that change no value.

Semantics from the compilers' docstrings (2026-05-26 and e2d0f78ae):
- `tensor.gather(input, dim=-1, index=...)`: out[b, k] = input[b, index[b, k]] (rank 2, last
  axis; the index INT32, its shape the input's but on the last axis);
- `tensor.scatter(input, dim=-1, index=..., src=...)`: a copy of input with
  out[b, index[b, k]] = src[b, k] (index shaped like src; a repeated index keeps the last write);
- `tensor.no_dep` / `tensor.dump_tag`: the tensor itself (dependency tracking and dump marks).
The mask and compare forms are not modelled: they raise, so `verify` says so.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import dtypes as D
from .ops import Machine
from .values import KernelError, Tensor, array_of


def _last_axis(op: str, dim) -> None:
    if dim is None or int(dim) not in (-1, 1):
        raise KernelError(f"tensor.{op}: only dim=-1 (the last axis of a rank-2 input) is supported")


def _index(op: str, index, rows: int, bound: int) -> np.ndarray:
    idx = array_of(index)
    if idx.dtype.kind not in "iu":
        raise KernelError(f"tensor.{op}: the index must be INT32, got {index.dtype}")
    if idx.ndim != 2 or idx.shape[0] != rows:
        raise KernelError(f"tensor.{op}: the index {list(idx.shape)} must have the input's {rows} rows")
    if idx.size and (idx.min() < 0 or idx.max() >= bound):
        raise KernelError(f"tensor.{op}: an index out of [0, {bound}) (the hardware reads garbage there)")
    return idx.astype(np.int64)


def _tensors(m: Machine, op: str, named: dict) -> None:
    m._kernel_local(op, list(named.values()))
    if m.strict:
        for name, value in named.items():
            if not isinstance(value, Tensor):
                raise KernelError(f"tensor.{op} conversion: {name} must be TensorType, got {type(value).__name__}Type")


def gather(m: Machine, input, dim=None, index=None, *, mask_pattern=None, **kw):
    if mask_pattern is not None or index is None or kw.get("kvalue") is not None:
        raise KernelError("pl.gather: only the index form (dim, index) is modelled by the interpreter")
    _last_axis("gather", dim)
    # the 2026-05 lowering takes both from global memory (measured: "input must be TensorType")
    _tensors(m, "gather", {"input": input, "index": index})
    src = array_of(input)
    idx = _index("gather", index, src.shape[0], src.shape[1])
    out = np.take_along_axis(src, idx, axis=1)
    return m._result(input, out.astype(src.dtype))


def scatter(m: Machine, input, dim=None, index=None, src=None, *, mask_pattern=None, dst=None):
    if mask_pattern is not None or index is None or src is None:
        raise KernelError("pl.scatter: only the index form (dim, index, src) is modelled by the interpreter")
    _last_axis("scatter", dim)
    m._kernel_local("scatter", [input, index, src])
    base, values = array_of(input), array_of(src)
    idx = _index("scatter", index, base.shape[0], base.shape[1])
    if idx.shape != values.shape:
        raise KernelError(f"tensor.scatter: the index {list(idx.shape)} must be shaped like src {list(values.shape)}")
    out = base.copy()
    for b in range(idx.shape[0]):  # in order, so that a repeated index keeps the last write
        for k in range(idx.shape[1]):
            out[b, idx[b, k]] = values[b, k]
    return m._result(input, D.cast(out, D.of(base)))


def marker(m: Machine, op: str, tensor):
    if m.strict and not isinstance(tensor, Tensor):
        raise KernelError(f"The operator tensor.{op} requires argument to be a TensorType")
    m._kernel_local(op, [tensor])
    return tensor


def install(pl, m: Machine) -> None:
    ops = {"gather": partial(gather, m), "scatter": partial(scatter, m),
           "no_dep": partial(marker, m, "no_dep"), "dump_tag": partial(marker, m, "dump_tag")}
    for name, fn in ops.items():
        setattr(pl.tensor, name, fn)
        setattr(pl, name, fn)
