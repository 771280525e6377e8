"""An annotation against the type of the value it annotates, as the target compiler checks it.

`x: pl.Tensor[[64, 128], pl.FP32] = pl.matmul(a, b)` on a [64, 64] result is rejected
(`Type annotation for 'x' has shape dimension 1 = 128 but expression has shape dimension 1 = 64`),
and so is a dtype that differs. Only what is certain is reported: a dimension is compared
where both sides evaluate to numbers (or are written the same), a dtype where both are known.
"""

from __future__ import annotations

from .constants import evaluate
from .values import TENSOR, TILE, Val

DTYPE_NAMES = {"BF16": "bfloat16", "FP16": "float16", "FP32": "fp32", "INT32": "int32", "INT64": "int64",
               "INT16": "int16", "INT8": "int8", "UINT8": "uint8", "BOOL": "bool", "INDEX": "index"}


def differences(name: str, declared: Val, value: Val, numbers: dict[str, float]) -> list[str]:
    """What the compiler says about `name: declared = value`, where it is certain to say it, in
    the order it checks: kind, dtype, rank, each static dimension."""
    if declared.kind not in (TENSOR, TILE) or value.kind not in (TENSOR, TILE):
        return []
    found = []
    if declared.kind != value.kind:
        found.append(f"Type annotation for '{name}' is {declared.kind} but expression has type {value.kind}")
    if declared.dtype and value.dtype and not compatible(declared.dtype, value.dtype):
        found.append(f"Type annotation for '{name}' has dtype {DTYPE_NAMES.get(declared.dtype, declared.dtype)} "
                     f"but expression has dtype {DTYPE_NAMES.get(value.dtype, value.dtype)}")
    if declared.shape is not None and value.shape is not None:
        if len(declared.shape) != len(value.shape):
            found.append(f"Type annotation for '{name}' has rank {len(declared.shape)} but expression has rank {len(value.shape)}")
        else:
            for i, (a, b) in enumerate(zip(declared.shape, value.shape)):
                x, y = evaluate(a, numbers), evaluate(b, numbers)
                if a.strip() != b.strip() and x is not None and y is not None and x != y:
                    found.append(f"Type annotation for '{name}' has shape dimension {i} = {_num(x)} but expression "
                                 f"has shape dimension {i} = {_num(y)}")
    return found


def compatible(annotated: str, inferred: str) -> bool:
    """The compiler's own rule (type_resolver._dtypes_compatible): equal, or INDEX against any
    integer type, either way round (users annotate loop-variable arithmetic as INT32/INT64)."""
    if annotated == inferred:
        return True
    ints = ("INT", "UINT")
    return (annotated == "INDEX" and inferred.startswith(ints)) or (inferred == "INDEX" and annotated.startswith(ints))


def fully_known(value: Val, numbers: dict[str, float]) -> bool:
    """Whether an annotation can be written from the value's type alone."""
    return value.kind in (TENSOR, TILE) and bool(value.shape) and bool(value.dtype)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
