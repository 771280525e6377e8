"""The interpreter's creation and data-movement ops: tensors and tiles made, sliced, loaded,
stored, moved, assembled and read. A mixin of `ops.Machine`, whose operand checks
(`_dispatch`, `_in_kernel`, `_same_kernel`) and profile it uses."""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .sources import SetupError
from .values import KernelError, Tensor, Tile, window, array_of, dtype_of, inherited_valid, space_of, squeeze_lead, valid_of


class NotModelled(KernelError, SetupError):
    """The original does something the interpreter cannot run faithfully (a store reaching past
    its tile's buffer): said at its line, and no verdict either way, never a mismatch."""


class MemoryOps:
    # -- creation and data movement ------------------------------------------------------
    def create_tensor(self, shape, dtype=None, valid_shape=None, **extra):
        if self.strict and valid_shape is not None:
            raise KernelError("create() got an unexpected keyword argument 'valid_shape'")
        data = self.uninitialised(shape, dtype)
        valid = tuple(int(v) for v in valid_shape) if valid_shape is not None else None
        local = self.kernel if self.strict else None
        return Tensor(data, np.zeros(data.shape, dtype=bool), "create_tensor", valid, local)

    def create_tile(self, shape, dtype=None, target_memory="Vec"):
        self._in_kernel("create_tile")
        return self._tile(self.uninitialised(shape, dtype), space_of(target_memory))

    def full(self, shape, dtype, value):
        self._in_kernel("tile.full")
        return self._tile(D.cast(np.full([int(s) for s in shape], value, dtype=np.float32), dtype))

    def expands(self, target, scalar):
        """A tile shaped (and, on the device, laid out) as `target`, every element `scalar`."""
        self._in_kernel("tile.expands")
        return self._tile(D.cast(np.full(target.data.shape, float(scalar), dtype=np.float32), dtype_of(target)), target.space)

    def view(self, x, shape, offset, valid_shape=None):
        self.removed("view")
        return self.slice(x, shape, offset, valid_shape)

    def removed(self, op: str) -> None:
        """Ops the API table marks removed exist in the old profile only."""
        spec = self._spec(op)
        if self.strict and spec is not None and spec.kind == "removed":
            raise KernelError(f"Unknown tensor operation: {op}")

    def slice(self, x, shape, offset, valid_shape=None, drop_dims=None):
        family = self._dispatch("slice", [x])
        if family == "tile":
            self._in_kernel("slice")
            self._same_kernel("slice", [x])
        if drop_dims and not self.head:
            raise KernelError("slice() got an unexpected keyword argument 'drop_dims'")
        if valid_shape is not None and not drop_dims and _past_the_end(x.shape, shape, offset):
            return self._padded_slice(x, shape, offset, valid_shape)
        index = window(x.shape, shape, offset, f"pl.slice of {getattr(x, 'name', 'a value')}")
        squeeze = len(offset) - len(shape)
        valid = tuple(int(v) for v in valid_shape) if valid_shape is not None else inherited_valid(x, index, squeeze)
        if valid is not None:
            self.masked = True
        data, written = x.data[index], x.written[index] if isinstance(x, Tensor) else None
        if drop_dims:  # 2026-08: the named unit axes of a full-rank window are erased
            axes = tuple(int(d) for d in drop_dims)
            if any(int(shape[a]) != 1 for a in axes):
                raise KernelError(f"pl.slice drop_dims {list(axes)}: each dropped axis must have size 1 in {list(shape)}")
            data = np.squeeze(data, axis=axes)
            written = np.squeeze(written, axis=axes) if written is not None else None
            valid = tuple(v for i, v in enumerate(valid) if i not in axes) if valid is not None else None
        if isinstance(x, Tile):
            return self._tile(squeeze_lead(data, squeeze).copy(), x.space, valid)
        return Tensor(squeeze_lead(data, squeeze), squeeze_lead(written, squeeze), x.name, valid, x.kernel)

    def _padded_slice(self, x, shape, offset, valid_shape):
        """A window that passes the end of its tensor where only its valid region is read (a
        weight of 24 rows sliced as 32 with valid_shape [24, K]): the rows past the end are
        padding, whatever memory holds there, and the result a copy, not a view."""
        valid = tuple(int(v) for v in valid_shape)
        index = window(x.shape, valid, offset, f"pl.slice of {getattr(x, 'name', 'a value')} (its valid region)")
        self.masked = True
        data = self.uninitialised(shape, dtype_of(x))
        data[tuple(slice(0, v) for v in valid)] = x.data[index]
        if isinstance(x, Tile):
            return self._tile(data, x.space, valid)
        return Tensor(data, np.zeros(data.shape, dtype=bool), x.name, valid, x.kernel)

    def load(self, tensor, offsets, shapes, valid=None, target_memory="Vec", valid_shapes=None, transpose=False,
             valid_shape=None):
        # The parser hands positional arguments to the IR op in its order, not in the stub's (the
        # API tables' `params`): the fourth is the valid region, the fifth the memory.
        if valid is not None:
            if self.head:
                valid_shape = valid
            else:
                valid_shapes = valid
        if self.head and (valid_shapes is not None or transpose):
            raise KernelError("pl operation 'load': load() got an unexpected keyword argument "
                              f"'{'valid_shapes' if valid_shapes is not None else 'transpose'}'")
        if self.strict and not self.head and valid_shape is not None:  # the old profile runs e2d0f78ae's originals too
            raise KernelError("load() got an unexpected keyword argument 'valid_shape' (the strict API says valid_shapes)")
        valid_shapes = valid_shape if valid_shape is not None else valid_shapes
        self._dispatch("load", [tensor])
        self._in_kernel("load")
        if self.strict and len(offsets) != len(shapes):
            raise KernelError(f"Error in tile operation 'load': offsets and shapes must have same number of dimensions, "
                              f"got {len(offsets)} offsets and {len(shapes)} shapes")
        valid = tuple(int(v) for v in valid_shapes) if valid_shapes is not None else None
        if valid is not None and _past_the_end(tensor.shape, shapes, offsets):
            # only the valid region is read (TLOAD's valid shape): the rest of the tile is padding
            inside = tensor.window(valid, offsets, "pl.load (its valid region)")
            data = self.uninitialised(shapes, tensor.dtype)
            data[tuple(slice(0, v) for v in valid)] = tensor.data[inside]
            return self._tile(data, space_of(target_memory), valid)
        index = tensor.window(shapes, offsets, "pl.load")
        data = tensor.data[index].copy()
        if valid is not None:  # the rows and columns outside the valid region hold whatever was there
            pad = np.ones(data.shape, dtype=bool)
            pad[tuple(slice(0, v) for v in valid)] = False
            data[pad] = self.uninitialised(data.shape, tensor.dtype)[pad]
        return self._tile(data, space_of(target_memory), valid)

    def store(self, tile, offsets, output_tensor, *old_form, shapes=None):
        if self.head and (shapes is not None or (len(old_form) == 1 and isinstance(old_form[0], (list, tuple)))):
            # 2026-08's store(tile, offsets, output_tensor, shapes): the ND partition the tile's
            # elements are written as, row-major (FlattenTileNdTo2D's own spelling of a 2-D tile)
            shapes = [int(s) for s in (shapes if shapes is not None else old_form[0])]
            if int(np.prod(shapes)) != tile.data.size:
                raise KernelError(f"pl.store of a {list(tile.shape)} tile as a {shapes} partition: the sizes differ")
            tile, old_form = Tile(tile.data.reshape(shapes), tile.space, tile.kernel, None, tile.name), ()
        if old_form:  # the old four-argument store(tile, offsets, shapes, output): a window of the tile
            if self.strict or len(old_form) != 1:
                raise KernelError(f"store() takes 3 positional arguments but {3 + len(old_form)} were given")
            shapes, output_tensor = [int(s) for s in output_tensor], old_form[0]
            if len(shapes) != len(tile.shape):
                raise NotModelled(f"pl.store of a {shapes} window of a {list(tile.shape)} tile: it reaches past the "
                                  "tile, whose buffer the interpreter does not model")
            if any(s > n for s, n in zip(shapes, tile.shape)):
                return self._store_past_the_tile(tile, offsets, shapes, output_tensor)
            tile = Tile(tile.data[tuple(slice(0, s) for s in shapes)], tile.space, tile.kernel, tile.valid, tile.name)
        self._dispatch("store", [tile, offsets, output_tensor])
        self._in_kernel("store")
        self._same_kernel("store", [tile])
        if self.strict and len(offsets) != tile.data.ndim:
            raise KernelError(f"pl.store of a rank-{tile.data.ndim} tile at rank-{len(offsets)} offsets: reshape the tile "
                              "to the target's rank first")
        data = tile.data
        if tile.valid is not None and len(tile.valid) == data.ndim:
            # TSTORE writes the tile's valid region: a [16, 8] tile of valid [16, 4] fits a [.., 4] tensor
            data = data[tuple(slice(0, max(0, int(v))) for v in tile.valid)]
            if 0 in data.shape:
                return output_tensor
        index = output_tensor.window(data.shape, offsets, "pl.store")
        region = output_tensor.data[index]
        region[...] = D.cast(data.reshape(region.shape), output_tensor.dtype)
        output_tensor.written[index] = True
        return output_tensor

    def _store_past_the_tile(self, tile, offsets, shapes, output_tensor):
        """The old store of a window larger than its tile (`store(row_max_t, [0, 0], [M, N], out)`
        of an [M, 1] result): past the tile it copies whatever the buffer holds there. Those
        elements are undefined, as a masked value's padding: written with garbage, left out of
        what the original is held to (verify's exit 3 where only they differ)."""
        self._dispatch("store", [tile, offsets, output_tensor])
        self._in_kernel("store")
        self._same_kernel("store", [tile])
        inside = tuple(slice(0, n) for n in tile.shape)
        data = self.uninitialised(shapes, dtype_of(tile))
        data[inside] = tile.data
        index = output_tensor.window(shapes, offsets, "pl.store")
        output_tensor.data[index] = D.cast(data, output_tensor.dtype)
        defined = np.zeros(shapes, dtype=bool)
        defined[inside] = True
        output_tensor.written[index] |= defined
        self.masked = True
        return output_tensor

    def move(self, tile, target_memory="Vec", transpose=False):
        self._dispatch("move", [tile])
        self._in_kernel("move")
        self._same_kernel("move", [tile])
        data = tile.data.T if transpose else tile.data
        return self._tile(data.copy(), space_of(target_memory))

    def assemble(self, target, source, offset):
        self._dispatch("assemble", [target, source, offset])
        src = array_of(source)
        valid = valid_of(source)
        shape = list(src.shape)
        if valid is not None:  # the old DSL writes only the valid region of a masked value
            self.masked = True
            src = src[tuple(slice(0, max(0, v)) for v in valid)]
            shape = list(src.shape)
        if 0 in shape:  # a value whose valid region is empty writes nothing
            return target
        index = target.window(shape, offset, "pl.assemble")
        region = target.data[index]
        region[...] = D.cast(src.reshape(region.shape), target.dtype)
        target.written[index] = True
        return target

    def read(self, x, indices, op: str = "read"):
        if op == "tensor.read":
            self._dispatch("tensor.read", [x])
        if op == "tile.read":
            self._dispatch("tile.read", [x])
            self._in_kernel("tile.read")
            self._same_kernel("tile.read", [x])
        a = array_of(x)
        idx = tuple(int(i) for i in indices)
        if len(idx) != a.ndim or any(not 0 <= i < n for i, n in zip(idx, a.shape)):
            raise KernelError(f"pl.{op} at {list(idx)} is out of bounds of {list(a.shape)}")
        value = a[idx]
        return float(value) if dtype_of(x).is_float else int(value)


def _past_the_end(full, shape, offset) -> bool:
    """Does a window of the tensor's rank reach past its end (and nothing else is wrong with it)?"""
    if len(shape) != len(offset) or len(offset) != len(full):
        return False
    return any(int(o) + int(s) > n for o, s, n in zip(offset, shape, full)) and all(
        int(o) >= 0 and int(s) > 0 for o, s in zip(offset, shape))
