"""The top-k family of 2026-05 and after: `sort32`, `mrgsort` (format 1) and the mask and index
forms of `gather`, tile and tensor alike (docstrings of the 2026-05-26 and e2d0f78ae compilers).

`sort32` sorts each 32-element block of a row in descending order and writes (value, index)
pairs, the last axis doubled: an FP32 value, then its index's 32 bits read as FP32; `mrgsort`
with `block_len=L` merges each four neighbouring sorted runs of L elements (L/2 pairs) into
one; `gather(x, mask_pattern=P1010, output_dtype=INT32)` takes every second element from the
second on and reads its bits as INT32: the indices again.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .values import KernelError, Tensor, Tile, array_of, dtype_of

# mask_pattern: (first position, stride); 7 = P1111 takes every element
PATTERNS = {1: (0, 2), 2: (1, 2), 3: (0, 4), 4: (1, 4), 5: (2, 4), 6: (3, 4), 7: (0, 1)}
BLOCK = 32


def _operand(m, op: str, forced, args):
    family = m._dispatch(op, list(args), forced)
    m._enter_op(op, family, list(args))
    return family


def _pairs_dtype(x):
    if dtype_of(x).name != "FP32":
        raise KernelError(f"pl.sort32 of {dtype_of(x)}: only FP32 values are modelled by the interpreter")


def sort32(m, forced, src, idx):
    _operand(m, "sort32", forced, [src, idx])
    _pairs_dtype(src)
    values, index = array_of(src), array_of(idx)
    if values.shape != index.shape or values.shape[-1] % BLOCK:
        raise KernelError(f"pl.sort32 needs src and idx of one shape whose last axis is a multiple of {BLOCK}, got "
                          f"{list(values.shape)} and {list(index.shape)}")
    bits = index.astype(np.uint32).view(np.float32)
    blocks = values.reshape(*values.shape[:-1], -1, BLOCK)
    order = np.argsort(-blocks.astype(np.float64), axis=-1, kind="stable")
    sorted_values = np.take_along_axis(blocks, order, axis=-1).reshape(values.shape)
    sorted_bits = np.take_along_axis(bits.reshape(blocks.shape), order, axis=-1).reshape(values.shape)
    out = np.stack([sorted_values.astype(np.float32), sorted_bits], axis=-1).reshape(*values.shape[:-1], -1)
    return m._result(src, out)


def mrgsort(m, forced, src0, *others, block_len=None, exhausted=False):
    if others or block_len is None:
        raise KernelError("pl.mrgsort: only format 1 (one source, block_len=) is modelled by the interpreter")
    _operand(m, "mrgsort", forced, [src0])
    _pairs_dtype(src0)
    block_len = int(block_len)
    data = array_of(src0)
    if block_len <= 0 or block_len % 64 or data.shape[-1] % 2:
        raise KernelError(f"pl.mrgsort: block_len {block_len} must be a positive multiple of 64, over pairs")
    pairs = data.reshape(*data.shape[:-1], -1, 2)
    run = 4 * block_len // 2  # pairs in each merged run
    out = pairs.copy()
    for start in range(0, pairs.shape[-2], run):
        group = pairs[..., start:start + run, :]
        order = np.argsort(-group[..., 0].astype(np.float64), axis=-1, kind="stable")
        out[..., start:start + run, :] = np.take_along_axis(group, order[..., None], axis=-2)
    return m._result(src0, out.reshape(data.shape))


def gather(m, forced, src, dim=None, index=None, *, mask_pattern=None, output_dtype=None, tmp=None, **compare):
    if compare:
        raise KernelError("pl.gather's compare form is not modelled by the interpreter")
    if mask_pattern is not None:
        _operand(m, "gather", forced, [src])
        first, stride = PATTERNS.get(int(mask_pattern), (None, None))
        if first is None:
            raise KernelError(f"pl.gather mask_pattern {mask_pattern!r}: not one of 1..7")
        data = np.ascontiguousarray(array_of(src)[..., first::stride])
        if output_dtype is not None and output_dtype != dtype_of(src):
            if output_dtype.np.itemsize != data.dtype.itemsize:
                raise KernelError(f"pl.gather output_dtype {output_dtype} must have the bit width of {dtype_of(src)}")
            data = data.view(output_dtype.np)  # the same bits, read as the other dtype
        return _like(m, src, data)
    if isinstance(dim, (Tensor, Tile)):  # pl.tile.gather(src, indices, tmp): the third is the workspace
        dim, index = -1, dim
    if index is None or int(dim) not in (-1, array_of(src).ndim - 1):
        raise KernelError("pl.gather: the index form gathers along the last axis only")
    _operand(m, "gather", forced, [src, index])
    positions = array_of(index).astype(np.int64)
    data = array_of(src)
    if positions.min(initial=0) < 0 or positions.max(initial=0) >= data.shape[-1]:
        raise KernelError(f"pl.gather: an index is out of bounds of the last axis ({data.shape[-1]})")
    return _like(m, src, np.take_along_axis(data, positions, axis=-1))


def _like(m, src, data):
    if isinstance(src, Tile):
        return m._tile(data, src.space)
    return m._result(src, data)


def install(pl, m) -> None:
    if m.strict and not m.head:
        return  # c39 had none of them
    for ns, forced in ((pl, None), (pl.tile, "Tile"), (pl.tensor, "Tensor")):
        ns.sort32 = (lambda f: lambda src, idx: sort32(m, f, src, idx))(forced)
        ns.mrgsort = (lambda f: lambda *a, **k: mrgsort(m, f, *a, **k))(forced)
        ns.gather = (lambda f: lambda *a, **k: gather(m, f, *a, **k))(forced)
    pl.tile.gather_mask = lambda src, mask_pattern, output_dtype=None: gather(
        m, "Tile", src, mask_pattern=mask_pattern, output_dtype=output_dtype)
    pl.tile.MaskPattern = type("MaskPattern", (), {n: v for v, n in enumerate(
        ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"), start=1)})
