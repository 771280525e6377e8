"""Scatters, row gathers from global memory, and the tensor markers that change no value
(the gathers of one tile or tensor are sort_ops').

Semantics from the compilers' docstrings (2026-05-26 and e2d0f78ae):
- `tensor.scatter(input, dim=-1, index=..., src=...)`: a copy of input with
  out[b, index[b, k]] = src[b, k] (index shaped like src; a repeated index keeps the last write);
- `tensor.no_dep` / `tensor.dump_tag`: the tensor itself (dependency tracking and dump marks).
- `tile.scatter(dst, src, indexes)`: a copy of dst with dst.flat[indexes[i, j]] = src[i, j];
- `scatter_update(input, -2, index, src)`: input[index[i, j], :] = src[i * s + j, :] for an index
  [b, s] and a src [b * s, d] (the 2-D form);
- `tile.mscatter(src, idx, tensor)`: tensor.flat[idx[i, j]] = src[i, j], the tensor written;
- `tile.mgather(mem, idx)` (row form, Vec): out[i, :] = mem[idx[i, 0], :];
- `gather_row(dst, src, dst_offset, src_offset, shapes)`: a copy of dst with the `shapes` window
  of src at src_offset written at dst_offset;
- `paged_gather(src, indices, block_table, block_size, size, max_indices)`: rows of a paged pool
  through its block table; `tile.gatherb(src, offset)`: 32-byte blocks of src by byte offset.
The mask form of scatter is merge_ops' scatter_mask.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import dtypes as D
from . import merge_ops
from .ops import Machine
from .values import KernelError, Tensor, Tile, array_of


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


def scatter(m: Machine, input, dim=None, index=None, src=None, *, mask_pattern=None, dst=None):
    if mask_pattern is not None:
        if dst is None:
            raise KernelError("pl.scatter: the mask form needs dst=")
        return merge_ops.scatter_mask(m, dst, input, mask_pattern)
    if index is None or src is None:
        raise KernelError("pl.scatter index form requires dim, index and src")
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


def _flat_index(op: str, index, size: int) -> np.ndarray:
    idx = array_of(index)
    if idx.dtype.kind not in "iu":
        raise KernelError(f"tile.{op}: the index must be an integer tile, got {index.dtype}")
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise KernelError(f"tile.{op}: an index out of [0, {size}) (the hardware reads garbage there)")
    return idx.astype(np.int64)


def tile_scatter(m: Machine, dst, src, indexes):
    merge_ops._enter(m, "scatter", [dst, src, indexes])
    base, values = array_of(dst), array_of(src)
    idx = _flat_index("scatter", indexes, base.size)
    if idx.shape != values.shape:
        raise KernelError(f"tile.scatter: the index {list(idx.shape)} must be shaped like src {list(values.shape)}")
    flat = base.reshape(-1).copy()
    for k, v in zip(idx.reshape(-1), values.reshape(-1)):  # in order: a repeated index keeps the last write
        flat[k] = v
    return m._result(dst, D.cast(flat.reshape(base.shape), D.of(base)))


def scatter_update(m: Machine, input, *args, **kw):
    """The 2-D form: (input, dim, index, src), (input, index, src, dim=-2) or keywords."""
    dim = kw.pop("dim", None)
    rest = list(args)
    if dim is None and rest and not isinstance(rest[0], (Tile, Tensor)):
        dim = rest.pop(0)
    index = kw.pop("index", rest.pop(0) if rest else None)
    src = kw.pop("src", rest.pop(0) if rest else None)
    if index is None or src is None or int(dim if dim is not None else -2) not in (-2, 0):
        raise KernelError("scatter_update(input, dim=-2, index, src): the 2-D form is the one modelled")
    merge_ops._enter(m, "scatter_update", [input, index, src])
    base, values = array_of(input), array_of(src)
    idx = _flat_index("scatter_update", index, base.shape[0])
    if base.ndim != 2 or idx.ndim != 2 or values.shape != (idx.size, base.shape[1]):
        raise KernelError(f"scatter_update: input {list(base.shape)}, index {list(idx.shape)} and src "
                          f"{list(values.shape)} are not [rows, d], [b, s], [b * s, d]")
    out = base.copy()
    for row, k in enumerate(idx.reshape(-1)):
        out[k, :] = values[row, :]
    return m._result(input, D.cast(out, D.of(base)))


def mscatter(m: Machine, src, idx, output_tensor):
    merge_ops._enter(m, "mscatter", [src, idx])
    if m.strict and not (isinstance(src, Tile) and isinstance(output_tensor, Tensor)):
        raise KernelError("tile.mscatter scatters a Tile into a Tensor")
    flat_idx = _flat_index("mscatter", idx, output_tensor.data.size)
    if flat_idx.shape != src.shape:
        raise KernelError(f"tile.mscatter: the index {list(flat_idx.shape)} must be shaped like src {list(src.shape)}")
    data, written = output_tensor.data.reshape(-1), output_tensor.written.reshape(-1)
    for k, v in zip(flat_idx.reshape(-1), src.data.reshape(-1)):
        data[k] = D.cast(np.asarray(v, dtype=np.float64), output_tensor.dtype)
        written[k] = True
    return output_tensor


def mgather(m: Machine, mem, idx, coalesce="row", *, gather_oob="undefined", target_memory="Vec", scratch=None,
            valid_shape=None):
    if coalesce not in ("row", 0) or gather_oob not in ("undefined", 0) or str(target_memory).rsplit(".", 1)[-1] != "Vec":
        raise KernelError("tile.mgather: only the row gather into Vec is modelled by the interpreter")
    merge_ops._enter(m, "mgather", [idx])
    m._in_kernel("mgather")
    rows = _flat_index("mgather", idx, mem.shape[0])
    if rows.ndim != 2 or rows.shape[1] != 1:
        raise KernelError(f"tile.mgather: the row index must be [n, 1], got {list(rows.shape)}")
    return m._tile(array_of(mem)[rows[:, 0], :].copy(), "Vec")


def gather_row(m: Machine, dst, src, dst_offset, src_offset, shapes, transpose=False, *, valid_shape=None):
    if transpose or valid_shape is not None:
        raise KernelError("gather_row with transpose or valid_shape is not modelled by the interpreter")
    m._kernel_local("gather_row", [v for v in (dst, src) if isinstance(v, Tensor)])
    if isinstance(dst, Tile):
        m._in_kernel("gather_row")
        m._same_kernel("gather_row", [dst])
    window = src.window(shapes, src_offset, "gather_row")
    base = array_of(dst)
    out = base.copy()
    r0, c0 = (int(o) for o in dst_offset)
    rows, cols = (int(s) for s in shapes)
    if r0 < 0 or c0 < 0 or r0 + rows > base.shape[0] or c0 + cols > base.shape[1]:
        raise KernelError(f"gather_row: a {[rows, cols]} window at {[r0, c0]} is outside dst {list(base.shape)}")
    out[r0:r0 + rows, c0:c0 + cols] = D.cast(src.data[window].astype(np.float64), D.of(base))
    if isinstance(dst, Tile):
        return m._tile(out, dst.space)
    return m._result(dst, out)


def paged_gather(m: Machine, src, indices, block_table, block_size, size, max_indices, *, space="Mat", col_off=0,
                 is_trans=False, is_b_matrix=False):
    """out[i, :] = src[block_table[idx // block_size] * block_size + idx % block_size,
    col_off:col_off + size] for the i-th logical index; rows past the indices are garbage."""
    if is_trans:
        raise KernelError("paged_gather with is_trans is not modelled by the interpreter")
    m._kernel_local("paged_gather", [src, indices, block_table])
    pool, idx, table = array_of(src), array_of(indices).reshape(-1), array_of(block_table).reshape(-1)
    bs, size, rows, c0 = int(block_size), int(size), int(max_indices), int(col_off)
    if idx.size > rows or c0 + size > pool.shape[1]:
        raise KernelError(f"paged_gather: {idx.size} indices for {rows} rows, or columns {c0}+{size} past {pool.shape[1]}")
    out = m.uninitialised((rows, size), D.of(pool))
    for i, logical in enumerate(idx.astype(np.int64)):
        block = int(logical) // bs
        if not 0 <= block < table.size:
            raise KernelError(f"paged_gather: logical row {logical} past the block table ({table.size} blocks)")
        phys = int(table[block]) * bs + int(logical) % bs
        if not 0 <= phys < pool.shape[0]:
            raise KernelError(f"paged_gather: physical row {phys} outside the pool's {pool.shape[0]} rows")
        out[i] = pool[phys, c0:c0 + size]
    return m._result(src, out)


def gatherb(m: Machine, src, offset, *, output_dtype=None):
    """Each UINT32 byte offset picks the 32-byte block of src's bytes there (a multiple of 32);
    one offset column gives 32 / sizeof(output_dtype) elements."""
    merge_ops._enter(m, "gatherb", [src, offset])
    data = np.ascontiguousarray(array_of(src))
    out_type = (output_dtype or D.of(data)).np
    raw = data.view(np.uint8).reshape(-1)
    offs = array_of(offset).astype(np.int64)
    if offs.size and (offs.min() < 0 or offs.max() + 32 > raw.size or (offs % 32).any()):
        raise KernelError("tile.gatherb: a byte offset that is not a 32-byte block of the source")
    blocks = raw[(offs[..., None] + np.arange(32)).reshape(offs.shape[0], -1)]
    return m._result(src, np.ascontiguousarray(blocks).view(out_type))


def marker(m: Machine, op: str, tensor):
    if m.strict and not isinstance(tensor, Tensor):
        raise KernelError(f"The operator tensor.{op} requires argument to be a TensorType")
    m._kernel_local(op, [tensor])
    return tensor


def install(pl, m: Machine) -> None:
    ops = {"scatter": partial(scatter, m),
           "no_dep": partial(marker, m, "no_dep"), "dump_tag": partial(marker, m, "dump_tag")}
    for name, fn in ops.items():
        setattr(pl.tensor, name, fn)
        setattr(pl, name, fn)
    tile = {"scatter": tile_scatter, "scatter_update": scatter_update, "mscatter": mscatter,
            "mgather": mgather, "gather_row": gather_row, "gatherb": gatherb}
    pl.tensor.paged_gather = pl.paged_gather = partial(paged_gather, m)
    pl.gatherb = partial(gatherb, m)
    for name, fn in tile.items():
        setattr(pl.tile, name, partial(fn, m))
    for name in ("scatter_update", "gather_row"):  # dispatched by the first operand's kind
        setattr(pl.tensor, name, partial(tile[name], m))
        setattr(pl, name, partial(tile[name], m))
    pl.mscatter, pl.mgather = pl.tile.mscatter, pl.tile.mgather
