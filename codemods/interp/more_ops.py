"""More of the target's tile ops for the interpreter: three-operand arithmetic, tile-and-scalar
ops beyond the four the parser picks for pl.add/sub/mul/div, activations, expands.

Each checks its operands as the parser does (the API table's roles, through the Machine) and
computes in float32, rounded to the result's dtype: the dtype the compiler gives it (a scalar
operand widens a half-precision tile to FP32, as the table's `promote` says).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import dtypes as D
from .ops import Machine
from .values import KernelError, Tensor, Tile


def _f32(x):
    return x.data.astype(np.float32) if isinstance(x, (Tile, Tensor)) else np.float32(x)


def _widened(tile, scalar) -> D.DType:
    if isinstance(scalar, float) and tile.dtype.name in ("BF16", "FP16"):
        return D.DTYPES["FP32"]
    return tile.dtype


def _run(m: Machine, op: str, args: list, compute, dtype: D.DType, keep_valid: bool = True):
    """In the old profile these ops took Tensors too; the strict one holds them to Tiles."""
    m._dispatch(op, args)
    if m.strict and not isinstance(args[0], Tile):
        raise KernelError(f"The operator tile.{op} requires argument 1 to be a TileType")
    if isinstance(args[0], Tile):
        m._enter_op(op, "tile", [a for a in args if isinstance(a, Tile)])
    with np.errstate(all="ignore"):
        out = compute()
    return m._result(args[0], D.cast(out, dtype), args[0].valid if keep_valid else None)


def three(m: Machine, op: str, lhs, rhs, rhs2):
    """addc / subc: lhs + rhs + rhs2, lhs - rhs - rhs2; addsc / subsc with a scalar rhs."""
    sign = 1.0 if op.startswith("add") else -1.0
    dtype = _widened(lhs, rhs) if op.endswith("sc") else lhs.dtype
    return _run(m, op, [lhs, rhs, rhs2], lambda: _f32(lhs) + np.float32(sign) * (_f32(rhs) + _f32(rhs2)), dtype)


def with_scalar(m: Machine, op: str, lhs, rhs):
    compute = {
        "maxs": lambda: np.maximum(_f32(lhs), _f32(rhs)),
        "mins": lambda: np.minimum(_f32(lhs), _f32(rhs)),
        "rems": lambda: np.fmod(_f32(lhs), _f32(rhs)),
        "lrelu": lambda: np.where(_f32(lhs) >= 0, _f32(lhs), _f32(lhs) * _f32(rhs)),
    }[op]
    return _run(m, op, [lhs, rhs], compute, _widened(lhs, rhs))


def expands(m: Machine, target, scalar):
    return _run(m, "expands", [target, scalar], lambda: np.full(target.data.shape, np.float32(scalar)),
                _widened(target, scalar), keep_valid=False)


OPS = {
    **{op: partial(three, op=op) for op in ("addc", "subc", "addsc", "subsc")},
    **{op: partial(with_scalar, op=op) for op in ("maxs", "mins", "rems", "lrelu")},
    "expands": expands,
}


def install(pl, tile_ns, m: Machine) -> None:
    """Bind the ops as pl.<op> and pl.tile.<op>."""
    for name, fn in OPS.items():
        bound = _bind(fn, m)
        setattr(pl, name, bound)
        setattr(tile_ns, name, bound)


def _bind(fn, m: Machine):
    if isinstance(fn, partial):
        op = fn.keywords["op"]
        return lambda *args: fn.func(m, op, *args)
    return lambda *args: fn(m, *args)
