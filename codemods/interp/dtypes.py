"""The pl dtypes as NumPy dtypes (ml_dtypes for BF16 and FP8), with comparison tolerances."""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    np: np.dtype
    rtol: float
    atol: float

    @property
    def is_float(self) -> bool:
        return self.np.kind == "f" or self.name in ("BF16", "FP8E4M3FN", "FP8E5M2", "FP8")

    def __repr__(self) -> str:
        return f"pl.{self.name}"


def _d(name, np_dtype, rtol, atol):
    return DType(name, np.dtype(np_dtype), rtol, atol)


# Tolerances: a few units in the last place of each format, since both runs round at the same
# points and differ only where an accumulation is ordered differently.
DTYPES = {
    "FP32": _d("FP32", np.float32, 1e-5, 1e-6),
    "FP16": _d("FP16", np.float16, 2e-3, 1e-3),
    "BF16": _d("BF16", ml_dtypes.bfloat16, 1.6e-2, 1e-2),
    "FP8E4M3FN": _d("FP8E4M3FN", ml_dtypes.float8_e4m3fn, 0.125, 0.0625),
    "FP8E5M2": _d("FP8E5M2", ml_dtypes.float8_e5m2, 0.25, 0.125),
    "INT8": _d("INT8", np.int8, 0, 0),
    "UINT8": _d("UINT8", np.uint8, 0, 0),
    "INT16": _d("INT16", np.int16, 0, 0),
    "UINT16": _d("UINT16", np.uint16, 0, 0),
    "UINT32": _d("UINT32", np.uint32, 0, 0),
    "INT32": _d("INT32", np.int32, 0, 0),
    "INT64": _d("INT64", np.int64, 0, 0),
    "BOOL": _d("BOOL", np.bool_, 0, 0),
}
DTYPES["FP8"] = DTYPES["FP8E4M3FN"]
DTYPES["INDEX"] = DTYPES["INT64"]


def wider(a: DType, b: DType) -> DType:
    """The dtype of a two-operand op whose operands differ only in float width (BF16 and FP32: FP32)."""
    if a == b or not (a.is_float and b.is_float):
        return a
    return b if b.np.itemsize > a.np.itemsize else a


def of(array: np.ndarray) -> DType:
    for d in DTYPES.values():
        if d.np == array.dtype:
            return d
    raise TypeError(f"no pl dtype for {array.dtype}")


def cast(values: np.ndarray, dtype: DType) -> np.ndarray:
    """Round to `dtype` the way the hardware does: to nearest, ties to even (ml_dtypes/NumPy)."""
    if dtype.is_float:
        return np.asarray(values, dtype=np.float32).astype(dtype.np)
    return np.asarray(np.rint(values) if np.asarray(values).dtype.kind == "f" else values).astype(dtype.np)
