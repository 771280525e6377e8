"""Data movement, creation and indexing ops the interpreter did not have: concatenation,
tile assembly and extraction, index and mask generation (arange/ci, tri), valid-shape and
dtype re-views, flat-offset element writes of 2026-03, block indices, casts with a rounding
mode, rank-3 broadcasts (expand_clone).

Semantics are the compilers' docstrings (`help(pl.tile.X)` at e2d0f78ae, c39fe714a). Most of
these arrived after c39: the old profile (which runs the originals of every era) has them all,
the 2026-03 one refuses what c39's parser refuses ("Unknown tile operation"), read off the
2026-03 table's namespaces rather than listed here. `cast(mode=...)` is kept in this module,
apart from `ops.Machine.cast`, which another change is teaching `trunc` too.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from . import versions
from .ops import Machine
from .values import KernelError, Tensor, Tile, space_of, window

INDEX_DTYPES = ("INT16", "INT32", "UINT16", "UINT32")  # tile.ci's "dtype to be one of" (e2d0f78ae)


def _offered(m: Machine, op: str, space: str) -> None:
    """The strict profile of a version refuses a name its parser does not know."""
    if not m.strict:
        return
    name = f"{space}.{op}" if space else op
    if not m.api.offers(name):
        where = f"{space} " if space else ""
        raise KernelError(f"Unknown {where}operation: {op}" if space else f"Unknown operation 'pl.{op}'")


def _shape(shape) -> tuple[int, ...]:
    return tuple(int(s) for s in shape)


def _like(m: Machine, x, data: np.ndarray, valid=None, space=None):
    """A value of x's kind holding `data` (a Tile in x's memory space unless told)."""
    if isinstance(x, Tile):
        return m._tile(data, space or x.space, valid)
    return Tensor(data, np.zeros(data.shape, dtype=bool), getattr(x, "name", "result"), valid, m.kernel if m.strict and not m.head and m.kernel else None)


def _made(m: Machine, level: str, data: np.ndarray, valid=None, space: str = "Vec"):
    if level == "tile":
        m._in_kernel("tile op")
        return m._tile(data, space, valid)
    return Tensor(data, np.zeros(data.shape, dtype=bool), "result", valid)


# -- concatenation, assembly, extraction --------------------------------------------------
def concat(m: Machine, space: str, src0, src1):
    """Column-wise concatenation of two values of one kind, rows and dtype."""
    _offered(m, "concat", space)
    m._dispatch("concat", [src0, src1])
    if type(src0) is not type(src1) or not isinstance(src0, (Tile, Tensor)):
        raise KernelError("pl.concat: both operands must be Tiles or both Tensors")
    if src0.data.ndim != 2 or src1.data.ndim != 2 or src0.shape[0] != src1.shape[0]:
        raise KernelError(f"pl.concat of {list(src0.shape)} and {list(src1.shape)}: 2-D values with the same rows")
    if src0.dtype != src1.dtype:
        raise KernelError(f"pl.concat of {src0.dtype} and {src1.dtype}: one dtype")
    if isinstance(src0, Tile):
        m._enter_op("concat", "tile", [src0, src1])
    return _like(m, src0, np.concatenate([src0.data, src1.data], axis=1))


def tile_assemble(m: Machine, target, source, offset):
    """2026-08's tile.assemble: `source` written into a copy of `target` at `offset`."""
    _offered(m, "assemble", "tile")
    if not isinstance(target, Tile) or not isinstance(source, Tile):
        raise KernelError("The operator tile.assemble requires Tile operands")
    m._in_kernel("tile.assemble")
    m._same_kernel("tile.assemble", [target, source])
    index = window(target.shape, source.shape, offset, "pl.tile.assemble")
    data = target.data.copy()
    data[index] = D.cast(source.data.astype(np.float32) if source.dtype.is_float else source.data, target.dtype)
    return m._tile(data, target.space, target.valid)


def extract(m: Machine, src, index_row, index_col, shape, *, target_memory=None):
    """TEXTRACT: the [rows, cols] window of `src` at (index_row, index_col), in target_memory."""
    _offered(m, "extract", "tile")
    if target_memory is None:
        raise KernelError("pl.tile operation 'extract': extract() missing 1 required keyword-only argument: 'target_memory'")
    if not isinstance(src, Tile):
        raise KernelError("The operator tile.extract requires argument 1 to be a TileType")
    m._in_kernel("tile.extract")
    m._same_kernel("tile.extract", [src])
    index = window(src.shape, shape, [index_row, index_col], "pl.tile.extract")
    return m._tile(src.data[index].copy(), space_of(target_memory))


# -- generated values ---------------------------------------------------------------------
def arange(m: Machine, space: str, op: str, start, shape, dtype=None, descending=False):
    """tile.ci (pto.tci): dst[0, k] = start + k (start - k descending) along the first row."""
    _offered(m, op, space)
    dtype = dtype or D.DTYPES["INT32"]
    shape = _shape(shape)
    if m.strict and dtype.name not in INDEX_DTYPES:
        raise KernelError(f"The operator tile.ci requires dtype to be one of {{{', '.join(INDEX_DTYPES)}}}, but got {dtype.name}")
    if m.strict and (len(shape) < 1 or any(s != 1 for s in shape[:-1]) or shape[-1] == 1):
        raise KernelError("The operator tile.ci only populates the first row because pto.tci ignores valid rows; leading "
                          f"dimensions must be 1, but got {list(shape)}")
    k = np.arange(shape[-1], dtype=np.int64)
    row = int(start) - k if descending else int(start) + k
    data = np.broadcast_to(row, shape).astype(dtype.np)
    return _made(m, "tile" if space == "tile" else "tensor", data.copy())


def tri(m: Machine, space: str, diagonal, shape, valid_shape=None, dtype=None, upper=False):
    """A triangular mask: one where j <= i + diagonal (j >= i + diagonal upper), zero elsewhere
    in the valid region; outside it the fresh tile's garbage."""
    _offered(m, "tri", space)
    dtype = dtype or D.DTYPES["INT32"]
    shape = _shape(shape)
    if len(shape) != 2:
        raise KernelError(f"pl.tri needs a 2-D shape, got {list(shape)}")
    i, j = np.indices(shape)
    mask = (j >= i + int(diagonal)) if upper else (j <= i + int(diagonal))
    data = m.uninitialised(shape, dtype)
    rows, cols = _shape(valid_shape) if valid_shape is not None else shape
    data[:rows, :cols] = D.cast(mask[:rows, :cols].astype(np.float32), dtype)
    return _made(m, "tile", data, None if valid_shape is None else (rows, cols))


def block_index(m: Machine, space: str, op: str):
    """get_block_idx / get_subblock_idx: 0, get_block_num: 1 (a task of one block runs the kernel)."""
    _offered(m, op, space)
    return versions.loop_index(m, 1 if op == "get_block_num" else 0)


class Ptr:
    """What tile.alloc / tensor.alloc give: an allocation's identity, no value to compute with."""

    def __init__(self, space: str, size: int) -> None:
        self.space, self.size = space, size


def alloc(m: Machine, space: str, memory_space, size, **_):
    _offered(m, "alloc", space)
    return Ptr(str(memory_space), int(size))


def create_l1(m: Machine, space: str, shape, dtype, transpose=False):
    """An on-chip (Mat) accumulator typed as a Tensor: uninitialised, like create_tensor."""
    _offered(m, "create_l1", space)
    shape = _shape(shape)
    if transpose:
        shape = shape[::-1]
    return Tensor(m.uninitialised(shape, dtype), np.zeros(shape, dtype=bool), "create_l1", None,
                  m.kernel if m.strict and m.kernel else None)


# -- views --------------------------------------------------------------------------------
def set_validshape(m: Machine, space: str, x, valid_rows, valid_cols):
    """The same data with a new valid region (no data moves)."""
    _offered(m, "set_validshape", space)
    if not isinstance(x, (Tile, Tensor)) or x.data.ndim != 2:
        raise KernelError("set_validshape needs a 2-D Tensor or Tile")
    rows, cols = int(valid_rows), int(valid_cols)
    if not (0 <= rows <= x.shape[0] and 0 <= cols <= x.shape[1]):
        raise KernelError(f"set_validshape [{rows}, {cols}] outside {list(x.shape)}")
    if isinstance(x, Tile):
        return Tile(x.data, x.space, x.kernel, (rows, cols), x.name)
    return Tensor(x.data, x.written, x.name, (rows, cols), x.kernel)


def reinterpret_view(m: Machine, space: str, data, dtype, *, shape=None):
    """The same bytes read as another dtype; without `shape` the last axis scales by the byte ratio."""
    _offered(m, "reinterpret_view", space)
    if not isinstance(data, (Tile, Tensor)):
        raise KernelError("reinterpret_view needs a Tensor or a Tile")
    if data.dtype == dtype:
        raise KernelError(f"reinterpret_view: target dtype {dtype} must differ from the source dtype")
    raw = np.ascontiguousarray(data.data).view(dtype.np)
    new = _shape(shape) if shape is not None else raw.shape
    if int(np.prod(new)) != raw.size:
        raise KernelError(f"reinterpret_view to {list(new)}: not the same bytes as {list(data.shape)} {data.dtype}")
    out = raw.reshape(new).copy()
    if isinstance(data, Tile):
        return Tile(out, data.space, data.kernel, None, data.name)
    return Tensor(out, np.zeros(out.shape, dtype=bool), data.name, None, data.kernel)


def transpose_view(m: Machine, tile):
    """NZ <-> ZN over the same bytes: the tile's transpose."""
    _offered(m, "transpose_view", "tile")
    if not isinstance(tile, Tile) or tile.data.ndim < 2:
        raise KernelError("The operator tile.transpose_view requires a TileType of rank >= 2")
    return Tile(np.swapaxes(tile.data, -1, -2).copy(), tile.space, tile.kernel, None, tile.name)


def expand_clone(m: Machine, space: str, src, target):
    """tensor.expand_clone: `src` broadcast to the shape of `target` (rank 3), a new tensor."""
    _offered(m, "expand_clone", space)
    if not isinstance(src, Tensor) or not isinstance(target, Tensor):
        raise KernelError("tensor.expand_clone requires Tensor operands")
    if src.data.ndim != 3:
        raise KernelError(f"tensor.expand_clone requires input rank to be 3, but got {src.data.ndim}")
    try:
        data = np.broadcast_to(src.data, target.shape).copy()
    except ValueError:
        raise KernelError(f"tensor.expand_clone of {list(src.shape)} to {list(target.shape)}") from None
    return _like(m, src, data)


# -- elements -----------------------------------------------------------------------------
def setval(m: Machine, space: str, tile, offset, value):
    """2026-03's flat-offset element write (pypto #420 made it tile.write): in place, like pl.write."""
    _offered(m, "setval", space)
    if m.head:
        raise KernelError("Unknown operation: setval (pypto #420: pl.tile.write(tile, [i, j], value))")
    if m.strict and not isinstance(tile, Tile):
        raise KernelError("The operator tile.setval requires argument 1 to be a TileType")
    if isinstance(offset, (list, tuple)):
        raise KernelError("The operator tile.setval requires second argument (offset) to be a ScalarType, but got TupleType")
    idx = np.unravel_index(int(offset), tile.shape)
    tile.data[idx] = D.cast(np.asarray(np.float32(value)), tile.dtype)
    if isinstance(tile, Tensor):
        tile.written[idx] = True
    return tile


def cast(m: Machine, space: str, x, target_type, mode="round"):
    """Float to integer with a rounding mode: floor, ceil, trunc; every other cast goes to
    Machine.cast, which has every mode (rint ties to even, round half away from zero)."""
    code = {0: "none", 1: "rint", 2: "round", 3: "floor", 4: "ceil", 5: "trunc", 6: "odd"}.get(mode, mode) \
        if isinstance(mode, int) else mode
    fn = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}.get(code)
    if fn is None or not isinstance(x, (Tile, Tensor)) or not x.dtype.is_float or target_type.is_float:
        saved, m.forced = m.forced, ({"tile": "Tile", "tensor": "Tensor"}.get(space) or m.forced)
        try:
            return m.cast(x, target_type, code)  # Machine.cast knows every mode (coverage_ops.convert)
        finally:
            m.forced = saved
    family = m._dispatch("cast", [x], {"tile": "Tile", "tensor": "Tensor"}.get(space))
    m._enter_op("cast", family, [x])
    with np.errstate(all="ignore"):
        out = fn(x.data.astype(np.float32))
    return m._result(x, D.cast(out, target_type), x.valid)


def install(pl, m: Machine) -> None:
    """Bind the ops as pl.<op>, pl.tile.<op> and pl.tensor.<op>, as each version names them."""
    tile, tensor = pl.tile, pl.tensor
    for space, ns in (("", pl), ("tile", tile), ("tensor", tensor)):
        ns.concat = lambda a, b, _s=space: concat(m, _s, a, b)
        ns.set_validshape = lambda x, r, c, _s=space: set_validshape(m, _s, x, r, c)
        ns.reinterpret_view = lambda x, dtype, shape=None, _s=space: reinterpret_view(m, _s, x, dtype, shape=shape)
        ns.alloc = lambda sp, size, _s=space, **k: alloc(m, _s, sp, size, **k)
        for op in ("get_block_idx", "get_block_num", "get_subblock_idx"):
            setattr(ns, op, lambda _s=space, _op=op: block_index(m, _s, _op))
        for op in ("arange", "ci"):
            setattr(ns, op, lambda start, shape, dtype=None, descending=False, _s=space, _op=op:
                    arange(m, _s, _op, start, shape, dtype, descending))
        ns.cast = lambda x, target_type=None, mode="round", _s=space, **k: cast(
            m, _s, x, target_type if target_type is not None else k.get("dtype"), mode)
    for space, ns in (("", pl), ("tile", tile)):
        ns.tri = lambda diagonal, shape, valid_shape=None, dtype=None, upper=False, _s=space: tri(
            m, _s, diagonal, shape, valid_shape, dtype, upper)
        ns.setval = lambda t, off, value, _s=space: setval(m, _s, t, off, value)
    tile.transpose_view = lambda t: transpose_view(m, t)
    tile.extract = lambda src, r, c, shape, **k: extract(m, src, r, c, shape, **k)
    tile.assemble = lambda target, source, offset: tile_assemble(m, target, source, offset)
    tensor_assemble = pl.assemble
    pl.assemble = lambda target, source, offset: (tile_assemble(m, target, source, offset) if isinstance(target, Tile)
                                                  else tensor_assemble(target, source, offset))
    for space, ns in (("", pl), ("tensor", tensor)):
        ns.expand_clone = lambda src, target, _s=space: expand_clone(m, _s, src, target)
        ns.create_l1 = lambda shape, dtype, transpose=False, _s=space: create_l1(m, _s, shape, dtype, transpose)
    tensor.full = lambda shape, dtype, value=0: _tensor_full(m, shape, dtype, value)


def _tensor_full(m: Machine, shape, dtype, value):
    data = D.cast(np.full(_shape(shape), np.float32(value), dtype=np.float32), dtype)
    return Tensor(data, np.zeros(data.shape, dtype=bool), "full")
