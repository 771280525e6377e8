"""What kernels compute with: Tensors in global memory and Tiles on chip."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from . import dtypes as D


class KernelError(Exception):
    """What the target compiler (or the idioms file) would reject, raised at the kernel's line."""


# The machine running now: subscripts (`t[0:4, :]`, `t[i, j]`) are ops, and a value has no
# other way to reach the run it belongs to.
ACTIVE: list = []


@contextlib.contextmanager
def active(machine):
    ACTIVE.append(machine)
    try:
        yield machine
    finally:
        ACTIVE.pop()


def _operator(name: str):
    def refuse(self, *_):
        # The parser only lowers Python operators on scalars (checked with the target compiler).
        raise KernelError(f"Expression must be ScalarExpr or Var with ScalarType, got Var with type {type_name(self)} "
                          f"(Python `{name}` on a {kind(self)}: call the pl op)")
    return refuse


class _Array:
    data: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def dtype(self) -> D.DType:
        return D.of(self.data)

    def __getitem__(self, key):
        """`t[i, j]` reads a scalar, `t[0:16, :]` slices: the sugar the language guide documents."""
        if not ACTIVE:
            raise KernelError("subscript of a value outside a running kernel")
        return ACTIVE[-1].subscript(self, key)

    __add__ = __radd__ = _operator("+")
    __sub__ = __rsub__ = _operator("-")
    __mul__ = __rmul__ = _operator("*")
    __truediv__ = __rtruediv__ = _operator("/")
    __neg__ = _operator("unary -")
    __matmul__ = _operator("@")
    __bool__ = _operator("truth test")


@dataclass(eq=False)
class Tensor(_Array):
    """A view into a global-memory array. Views share memory (and the written-mask) with it."""

    data: np.ndarray
    written: np.ndarray  # which elements a store or assemble wrote, same shape as data
    name: str
    valid: tuple[int, ...] | None = None  # old profile: the valid region, None for all of it
    # 2026-03: the kernel instance a `create_tensor` ran in. The compiler lowers it to a Tile
    # there, so it cannot hand data to another region; None for global memory.
    kernel: object = None

    def window(self, shape, offsets, what: str) -> tuple[slice, ...]:
        return window(self.shape, shape, offsets, f"{what} of {self.name}")


@dataclass(eq=False)
class Tile(_Array):
    """An on-chip buffer: its own copy of the data, in one memory space, inside one kernel."""

    data: np.ndarray
    space: str
    kernel: object  # the kernel instance it was made in (None: made in orchestration)
    valid: tuple[int, ...] | None = None
    name: str = field(default="tile")


def window(full: tuple[int, ...], shape, offsets, what: str) -> tuple[slice, ...]:
    """The index of a region, or a KernelError if it leaves the array: never a silent clip."""
    shape, offsets = [int(s) for s in shape], [int(o) for o in offsets]
    lead = len(offsets) - len(shape)
    if lead < 0 or len(offsets) != len(full):
        raise KernelError(f"{what}: offsets {offsets} and shape {shape} do not fit a rank-{len(full)} array")
    shape = [1] * lead + shape
    for dim, (o, s, n) in enumerate(zip(offsets, shape, full)):
        if s <= 0:
            raise KernelError(f"{what}: shape {shape} is empty in dimension {dim} (offsets and shapes swapped?)")
        if o < 0 or o + s > n:
            raise KernelError(f"{what}: [{o}, {o + s}) is out of bounds in dimension {dim} (size {n})")
    return tuple(slice(o, o + s) for o, s in zip(offsets, shape))


def kind(value) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, Tile):
        return "Tile"
    return "Scalar"


def type_name(value) -> str:
    return {"Tensor": "TensorType", "Tile": "TileType"}.get(kind(value), "ScalarType")


# -- what the ops read off an operand, a Tensor, a Tile or a plain number -----------------

SPACES = ("DDR", "Vec", "Mat", "Left", "Right", "Acc")


def array_of(value):
    return value.data if isinstance(value, (Tensor, Tile)) else value


def as_f32(value):
    return value.astype(np.float32) if isinstance(value, np.ndarray) else np.float32(value)


def dtype_of(value) -> D.DType:
    if isinstance(value, (Tensor, Tile)):
        return value.dtype
    return D.DTYPES["FP32"] if isinstance(value, float) else D.DTYPES["INT64"]


def valid_of(value):
    return value.valid if isinstance(value, (Tensor, Tile)) else None


def space_of(value) -> str:
    space = str(value)
    if space not in SPACES:
        raise KernelError(f"unknown memory space {value!r}")
    return space


def inherited_valid(x, index: tuple[slice, ...], squeeze: int):
    """A slice of a masked value is masked where the window leaves the parent's valid region."""
    parent = valid_of(x)
    if parent is None:
        return None
    valid = tuple(max(0, min(s.stop, v) - s.start) for s, v in zip(index, parent))
    return valid[squeeze:]


def squeeze_lead(a: np.ndarray, lead: int) -> np.ndarray:
    return a.reshape(a.shape[lead:]) if lead > 0 else a
