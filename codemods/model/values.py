"""What the inference knows of a value: its kind, shape, dtype and memory space.

Shapes are kept as source expressions (`("BATCH_TILE", "K_CHUNK")`) so that generated
code can say what the source said; `constants.evaluate` turns them into numbers where the
constants are known.
"""

from __future__ import annotations

from typing import NamedTuple

TENSOR, TILE, SCALAR, UNKNOWN = "Tensor", "Tile", "Scalar", "unknown"
VEC, MAT, LEFT, RIGHT, ACC = "Vec", "Mat", "Left", "Right", "Acc"
MATMUL_ACC_DTYPE = "FP32"


class Val(NamedTuple):
    kind: str
    shape: tuple[str, ...] | None = None
    dtype: str | None = None
    space: str | None = None
    # a [1, 1] tile's block layout at 2026-08 ("row_major"/"col_major"), where the upgrade
    # inference knows it: part of the type the compiler compares on a re-binding
    layout: str | None = None
    # the valid region a view, slice or load was given (`valid_shape=`), as source expressions;
    # an op computing elementwise from this value keeps it (the interpreter's `_result` does the
    # same): what an assemble of the value writes. None: the whole shape is valid.
    valid: tuple[str, ...] | None = None

    def but(self, **changes) -> "Val":
        return self._replace(**changes)

    @property
    def is_tile(self) -> bool:
        return self.kind == TILE

    @property
    def is_tensor(self) -> bool:
        return self.kind == TENSOR

    def describe(self) -> str:
        shape = f"[{', '.join(self.shape)}]" if self.shape else "?"
        space = f" in {self.space}" if self.space else ""
        return f"{self.kind} {shape} {self.dtype or '?'}{space}"


SCALAR_VAL = Val(SCALAR)
UNKNOWN_VAL = Val(UNKNOWN)


def join(a: Val, b: Val) -> Val:
    """The value after an `if`/`else` that set it to `a` on one side and `b` on the other."""
    if a == b:
        return a
    if a.kind != b.kind:
        return UNKNOWN_VAL
    return Val(a.kind, a.shape if a.shape == b.shape else None, a.dtype if a.dtype == b.dtype else None,
               a.space if a.space == b.space else None, valid=a.valid if a.valid == b.valid else None)


def row_reduced(v: Val) -> tuple[str, ...] | None:
    return (v.shape[0], "1") if v.shape and len(v.shape) == 2 else None
