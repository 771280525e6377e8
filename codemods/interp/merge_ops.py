"""The rest of the sort and mask family beside sort_ops (sort32, mrgsort format1, the gather
forms): mrgsort's format2, the IR op names both parsers accept (mrgsort_format1/2,
tensor.gather_mask / scatter_mask), scatter_mask, and gather_compare (2026-05-26, e2d0f78ae).

Semantics, from the compilers' docstrings and the result types they give (measured 2026-11-28):
- format2 merges the rows of two to four sorted lists of value-index pairs: at tensor level into
  their concatenation along the last axis, at tile level (with `tmp`) into src0's shape, keeping
  the first (largest) pairs. Merging sorted lists is a stable sort of their pairs by value,
  largest first.
- `scatter_mask` writes a compact src into the columns of a copy of dst that the mask pattern
  selects (sort_ops.PATTERNS); the tile op takes (dst, src, pattern), the tensor IR op
  (input, dst, pattern), the compact one first.
- `gather_compare(src, kvalue, tmp, cmp_mode=, offset=, out_cols=)` gives (dst, cdst): each row's
  column numbers (plus offset) whose value compares true with kvalue (eq, ne, lt, le, gt, ge),
  packed to the left of dst [rows, out_cols] INT32, and the per-row counts [1, rows]. What dst
  holds past a row's count is not specified: garbage here.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .ops import Machine
from .sort_ops import PATTERNS
from .values import KernelError, Tensor, Tile, array_of

CMP_MODES = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}


def _enter(m: Machine, op: str, values: list) -> None:
    m._kernel_local(op, [v for v in values if isinstance(v, Tensor)])
    tiles = [v for v in values if isinstance(v, Tile)]
    if tiles:
        m._in_kernel(op)
        m._same_kernel(op, tiles)
        if m.strict and any(t.space != "Vec" for t in tiles):
            raise KernelError(f"vector op pl.tile.{op} reads a tile outside Vec: vector ops work on Vec tiles")
    if m.strict and len({type(v) for v in values if isinstance(v, (Tile, Tensor))}) > 1:
        raise KernelError(f"pl.{op} mixes Tiles and Tensors")


def merge(m: Machine, lists: list, tmp=None):
    """mrgsort format2 of two to four lists."""
    _enter(m, "mrgsort", lists + ([tmp] if tmp is not None else []))
    arrays = [array_of(s) for s in lists]
    if len({a.shape[:-1] for a in arrays}) != 1 or any(a.ndim != 2 or a.shape[-1] % 2 for a in arrays):
        raise KernelError(f"mrgsort of lists {[list(a.shape) for a in arrays]}: rank-2 lists of pairs with the same rows")
    if isinstance(lists[0], Tile):
        if tmp is None and m.strict:
            raise KernelError("tile.mrgsort format2 requires tmp (a workspace tile of the output's shape)")
        cols = arrays[0].shape[-1]
    else:
        if tmp is not None and m.strict:
            raise KernelError("tensor.mrgsort takes no tmp: the lowering makes the workspace")
        cols = sum(a.shape[-1] for a in arrays)
    pairs = np.concatenate(arrays, axis=1)
    if pairs.dtype != np.float32:
        raise KernelError("mrgsort of a non-FP32 list is not modelled by the interpreter")
    pairs = pairs.reshape(pairs.shape[0], -1, 2)
    order = np.argsort(-pairs[:, :, 0].astype(np.float64), axis=1, kind="stable")
    merged = np.take_along_axis(pairs, order[:, :, None], axis=1).reshape(pairs.shape[0], -1)
    return m._result(lists[0], merged[:, :cols])


def scatter_mask(m: Machine, dst, src, mask_pattern):
    _enter(m, "scatter_mask", [dst, src])
    first, stride = PATTERNS.get(int(mask_pattern), (None, None))
    if first is None:
        raise KernelError(f"scatter_mask: mask_pattern {mask_pattern!r} is not one of 1..7")
    base, values = array_of(dst), array_of(src)
    if base.ndim != 2 or base.shape[1] % stride or values.shape != (base.shape[0], base.shape[1] // stride):
        raise KernelError(f"scatter_mask: a {list(values.shape)} src does not fill the pattern's columns of "
                          f"a {list(base.shape)} dst")
    out = base.copy()
    out[:, first::stride] = D.cast(values.astype(np.float64), D.of(base))
    return m._result(dst, out)


def gather_compare(m: Machine, src, kvalue, tmp=None, *, cmp_mode="eq", offset=0, out_cols, count_dtype=None):
    _enter(m, "gather_compare", [v for v in (src, tmp) if v is not None])
    mode = CMP_MODES.get(cmp_mode, -1) if isinstance(cmp_mode, str) else int(cmp_mode)
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
    return m._result(src, dst), m._result(src, D.cast(counts, count_dtype or D.DTYPES["INT32"]))


def install(pl, m: Machine) -> None:
    if m.strict and not m.head:
        return  # c39 had none of them
    for ns in (pl, pl.tile, pl.tensor):
        ns.mrgsort = (lambda base: lambda src0, *others, tmp=None, exhausted=False, block_len=None:
                      merge(m, [src0, *[o for o in others if o is not None]], tmp)
                      if others or tmp is not None else base(src0, block_len=block_len))(ns.mrgsort)
        ns.gather = (lambda base: lambda *a, kvalue=None, cmp_mode="eq", offset=0, out_cols=None, count_dtype=None, **k:
                     gather_compare(m, a[0], kvalue, cmp_mode=cmp_mode, offset=offset, out_cols=out_cols,
                                    count_dtype=count_dtype) if kvalue is not None else base(*a, **k))(ns.gather)
        ns.mrgsort_format1 = (lambda ns: lambda src, block_len: ns.mrgsort(src, block_len=block_len))(ns)
    pl.tile.mrgsort_format2 = lambda *srcs, exhausted=False: merge(m, list(srcs[:-1]), srcs[-1])
    pl.tensor.mrgsort_format2 = lambda *srcs, exhausted=False: merge(m, list(srcs))
    pl.tile.scatter_mask = lambda dst, src, mask_pattern: scatter_mask(m, dst, src, mask_pattern)
    pl.tensor.scatter_mask = lambda input, dst, mask_pattern: scatter_mask(m, dst, input, mask_pattern)
    pl.tensor.gather_mask = lambda src, mask_pattern, output_dtype=None: pl.tensor.gather(
        src, mask_pattern=mask_pattern, output_dtype=output_dtype)
    for ns in (pl.tile, pl.tensor):
        ns.gather_compare = lambda src, kvalue, tmp=None, **kw: gather_compare(m, src, kvalue, tmp, **kw)
