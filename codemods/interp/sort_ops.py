"""Sorting and the hardware mask patterns: sort32, mrgsort (format1 and format2), gather_mask
and scatter_mask, at tile level and in their tensor spellings (2026-05-26, e2d0f78ae).

Semantics, from the compilers' docstrings and the result types e2d0f78ae gives (measured):
- `sort32(src, idx)`: each row's 32-column blocks sorted by value, largest first (the vector
  unit's VBS32), as value-index pairs: out[r, 2j] the value, out[r, 2j + 1] the index word's
  bits read in src's dtype, so the result is [R, 2C] of src's dtype. FP32 only here (an FP16
  pair packs its 32-bit index in two slots the docstrings do not pin down).
- `mrgsort`: format1 (`block_len=`) merges the sorted runs of each row's pairs; format2 merges
  the rows of two to four lists: at tensor level into their concatenation along the last axis,
  at tile level (with `tmp`) into src0's shape, keeping the first (largest) pairs (the result
  types both compilers give, measured). Merging sorted runs is a stable sort of the pairs by
  value, largest first; runs that are not sorted are merged as if they were.
- mask patterns 1-7 (P0101, P1010, P0001, P0010, P0100, P1000, P1111) select columns j with
  j % 2 == 0, j % 2 == 1, j % 4 == 0 .. 3, all: `gather_mask` keeps those columns (sort32's
  values with P0101, its index words with P1010 and `output_dtype=pl.UINT32`, as the
  docstring says), `scatter_mask` writes a compact src into them of a copy of dst.
- `gather_compare(src, kvalue, tmp, cmp_mode=, offset=, out_cols=)`: the column numbers of
  each row whose value compares true (eq, ne, lt, le, gt, ge), and their counts.
"""

from __future__ import annotations

import types
from functools import partial

import numpy as np

from . import dtypes as D
from .ops import Machine
from .values import KernelError, Tensor, Tile, array_of

# pattern -> (stride, first column)
PATTERNS = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}
MASK_NAMES = {"P0101": 1, "P1010": 2, "P0001": 3, "P0010": 4, "P0100": 5, "P1000": 6, "P1111": 7}


def _pattern(op: str, mask_pattern) -> tuple[int, int]:
    try:
        return PATTERNS[int(mask_pattern)]
    except (KeyError, TypeError, ValueError):
        raise KernelError(f"{op}: mask_pattern must be 1-7 (pl.tile.MaskPattern), got {mask_pattern!r}") from None


def _enter(m: Machine, op: str, values: list) -> None:
    m._kernel_local(op, [v for v in values if isinstance(v, Tensor)])
    tiles = [v for v in values if isinstance(v, Tile)]
    if tiles:
        m._in_kernel(op)
        m._same_kernel(op, tiles)
        if m.strict:
            for t in tiles:
                if t.space != "Vec":
                    raise KernelError(f"vector op pl.tile.{op} reads a tile in {t.space}: vector ops work on Vec tiles")


def _same_kind(m: Machine, op: str, values: list) -> None:
    kinds = {type(v).__name__ for v in values if isinstance(v, (Tile, Tensor))}
    if m.strict and len(kinds) > 1:
        raise KernelError(f"pl.{op} mixes Tiles and Tensors")


def gather_mask(m: Machine, src, mask_pattern, *, output_dtype=None):
    _enter(m, "gather_mask", [src])
    stride, first = _pattern("gather_mask", mask_pattern)
    data = array_of(src)
    if data.ndim != 2 or data.shape[1] % stride:
        raise KernelError(f"gather_mask: {list(data.shape)} columns are not a multiple of the pattern's {stride}")
    out = np.ascontiguousarray(data[:, first::stride])
    if output_dtype is not None:
        if output_dtype.np.itemsize != data.dtype.itemsize:
            raise KernelError("gather_mask: output_dtype must have the source's width (a bit reinterpretation)")
        out = out.view(output_dtype.np)
    return m._result(src, out)


def scatter_mask(m: Machine, dst, src, mask_pattern):
    _same_kind(m, "scatter_mask", [dst, src])
    _enter(m, "scatter_mask", [dst, src])
    stride, first = _pattern("scatter_mask", mask_pattern)
    base, values = array_of(dst), array_of(src)
    if base.ndim != 2 or values.shape != (base.shape[0], base.shape[1] // stride) or base.shape[1] % stride:
        raise KernelError(f"scatter_mask: a {list(values.shape)} src does not fill the pattern's columns of "
                          f"a {list(base.shape)} dst")
    out = base.copy()
    out[:, first::stride] = D.cast(values.astype(np.float64), D.of(base))
    return m._result(dst, out)


def sort32(m: Machine, src, idx):
    _same_kind(m, "sort32", [src, idx])
    _enter(m, "sort32", [src, idx])
    values, index = array_of(src), array_of(idx)
    if values.dtype != np.float32:
        raise KernelError("sort32 of a non-FP32 source is not modelled by the interpreter")
    if index.shape != values.shape or index.dtype.itemsize != 4:
        raise KernelError(f"sort32: the index must be a 32-bit tile of the source's shape {list(values.shape)}")
    words = np.ascontiguousarray(index).view(np.float32)
    out = np.empty((values.shape[0], 2 * values.shape[1]), dtype=np.float32)
    for c0 in range(0, values.shape[1], 32):
        block = values[:, c0:c0 + 32]
        order = np.argsort(-block.astype(np.float64), axis=1, kind="stable")
        out[:, 2 * c0:2 * (c0 + block.shape[1]):2] = np.take_along_axis(block, order, axis=1)
        out[:, 2 * c0 + 1:2 * (c0 + block.shape[1]):2] = np.take_along_axis(words[:, c0:c0 + 32], order, axis=1)
    return m._result(src, out)


def _merged(lists: list[np.ndarray], cols: int) -> np.ndarray:
    """Each row's pairs of all the lists, merged, the first `cols` // 2 pairs kept."""
    rows = {a.shape[:-1] for a in lists}
    if len(rows) != 1 or any(a.ndim != 2 or a.shape[-1] % 2 for a in lists):
        raise KernelError(f"mrgsort of lists {[list(a.shape) for a in lists]}: rank-2 lists of pairs with the same rows")
    pairs = np.concatenate(lists, axis=1)
    if pairs.dtype != np.float32:
        raise KernelError("mrgsort of a non-FP32 list is not modelled by the interpreter")
    pairs = pairs.reshape(pairs.shape[0], -1, 2)
    order = np.argsort(-pairs[:, :, 0].astype(np.float64), axis=1, kind="stable")
    merged = np.take_along_axis(pairs, order[:, :, None], axis=1)
    return merged.reshape(pairs.shape[0], -1)[:, :cols]


def mrgsort(m: Machine, src0, src1=None, src2=None, src3=None, tmp=None, exhausted=False, *, block_len=None):
    lists = [s for s in (src0, src1, src2, src3) if s is not None]
    _same_kind(m, "mrgsort", lists)
    _enter(m, "mrgsort", lists + ([tmp] if tmp is not None else []))
    arrays = [array_of(s) for s in lists]
    cols = arrays[0].shape[-1]
    if len(lists) == 1:
        if block_len is None:
            raise KernelError("mrgsort format1 needs block_len= (the run length)")
    elif isinstance(src0, Tile):
        if tmp is None and m.strict:
            raise KernelError("tile.mrgsort format2 requires tmp (a workspace tile of the output's shape)")
    else:
        if tmp is not None and m.strict:
            raise KernelError("tensor.mrgsort takes no tmp: the lowering makes the workspace")
        cols = sum(a.shape[-1] for a in arrays)
    return m._result(src0, _merged(arrays, cols))


CMP_MODES = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}


def gather_compare(m: Machine, src, kvalue, tmp=None, *, cmp_mode="eq", offset=0, out_cols, count_dtype=None):
    """(dst, cdst): each row's column numbers (plus offset) whose value compares true with
    kvalue, packed to the left of dst [rows, out_cols] INT32, and the per-row counts
    [1, rows]. What dst holds past a row's count is not specified: garbage here."""
    _enter(m, "gather_compare", [v for v in (src, tmp) if v is not None])
    mode = CMP_MODES.get(cmp_mode, cmp_mode) if isinstance(cmp_mode, str) else int(cmp_mode)
    if mode not in range(6):
        raise KernelError(f"gather_compare: cmp_mode {cmp_mode!r} is not one of eq/ne/lt/le/gt/ge (0-5)")
    data = array_of(src).astype(np.float64)
    if data.ndim != 2:
        raise KernelError("gather_compare of a rank-2 source only")
    k = float(kvalue)
    hit = [data == k, data != k, data < k, data <= k, data > k, data >= k][mode]
    cols = int(out_cols)
    dst = m.uninitialised((data.shape[0], cols), D.DTYPES["INT32"])
    counts = np.zeros((1, data.shape[0]), dtype=np.int64)
    for r in range(data.shape[0]):
        found = np.flatnonzero(hit[r])[:cols] + int(offset)
        dst[r, :len(found)] = found
        counts[0, r] = len(found)
    count_type = count_dtype or D.DTYPES["INT32"]
    return m._result(src, dst), m._result(src, D.cast(counts, count_type))


def _tensor_scatter_mask(m: Machine, input, dst, mask_pattern):
    """The tensor IR op's order: the compact input first, then the destination."""
    return scatter_mask(m, dst, input, mask_pattern)


def _format1(m: Machine, src, block_len):
    return mrgsort(m, src, block_len=block_len)


def _format2(m: Machine, *srcs, exhausted=False):
    """The IR op: (src0, src1, ..., tmp) on tiles; the tensor op has no tmp."""
    if srcs and isinstance(srcs[0], Tile):
        *lists, tmp = srcs
        return mrgsort(m, *lists, tmp=tmp, exhausted=exhausted)
    return mrgsort(m, *srcs, exhausted=exhausted)


def install(pl, m: Machine) -> None:
    ops = {"sort32": partial(sort32, m), "mrgsort": partial(mrgsort, m), "gather_mask": partial(gather_mask, m),
           "scatter_mask": partial(scatter_mask, m), "mrgsort_format1": partial(_format1, m),
           "mrgsort_format2": partial(_format2, m)}
    ops["gather_compare"] = partial(gather_compare, m)
    for name, fn in ops.items():
        setattr(pl.tile, name, fn)
        setattr(pl.tensor, name, fn)
    pl.tensor.scatter_mask = partial(_tensor_scatter_mask, m)
    pl.sort32, pl.mrgsort = ops["sort32"], ops["mrgsort"]
    pl.tile.MaskPattern = types.SimpleNamespace(**MASK_NAMES)
