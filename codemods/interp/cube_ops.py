"""The cube unit's tile ops beyond matmul / matmul_acc: matmul_bias, the GEMV forms and the
batched matmul (2026-08), and the tensor form of matmul_acc.

Semantics from the compilers' docstrings: `matmul_bias` is lhs @ rhs + bias ([1, N] broadcast
over the rows); `gemv` is a [1, K] @ [K, N] product (e2d0f78ae requires exactly one lhs row,
c39fe714a took any); `gemv_acc` adds the product into `acc`, `gemv_bias` adds a bias row;
`batch_matmul` multiplies rank-3 operands batch by batch. The result lives in Acc and is FP32
(INT32 for integer operands), as the table's `dtype` says; the operands' spaces are the
table's `space`.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import dtypes as D
from .ops import Machine
from .values import KernelError, Tensor, Tile, array_of


def _acc_dtype(lhs) -> D.DType:
    return D.DTYPES["FP32" if lhs.dtype.is_float else "INT32"]


def _check(m: Machine, op: str, args: list, names: tuple[str, ...]) -> None:
    """Operand kinds as the parser checks them, then the spaces the table fixes."""
    m._dispatch(op, args)
    if m.strict and not all(isinstance(a, Tile) for a in args):
        raise KernelError(f"The operator tile.{op} requires its operands to be TileType")
    m._in_kernel(op)
    m._same_kernel(op, args)
    spec = m._spec(op)
    if not m.strict or spec is None:
        return
    for name, value in zip(names, args):
        want = spec.space.get(name)
        if want and isinstance(value, Tile) and value.space != want:
            raise KernelError(f"tile.{op} reads its {name} operand from {want}, but it is in {value.space}: "
                              f"pl.move it there")


def _product(lhs, rhs) -> np.ndarray:
    a, b = array_of(lhs).astype(np.float64), array_of(rhs).astype(np.float64)
    if a.ndim != b.ndim or a.ndim not in (2, 3) or a.shape[-1] != b.shape[-2] or a.shape[:-2] != b.shape[:-2]:
        raise KernelError(f"a matmul of {list(a.shape)} by {list(b.shape)}")
    return a @ b


def _row(m: Machine, op: str, vec, n: int) -> np.ndarray:
    b = array_of(vec).astype(np.float64)
    if b.shape != (1, n):
        raise KernelError(f"tile.{op}: the bias must be [1, {n}], got {list(b.shape)}")
    return b


def _gemv_lhs(m: Machine, op: str, lhs) -> None:
    if m.head and lhs.shape[0] != 1:
        raise KernelError(f"pl operation '{op}': GEMV requires lhs physical row extent to be exactly 1, "
                          f"but got shape {list(lhs.shape)}")


def _acc(m: Machine, out: np.ndarray, dtype: D.DType) -> Tile:
    return m._tile(D.cast(out, dtype), "Acc")


def matmul_bias(m: Machine, op: str, lhs, rhs, bias, acc_phase=None):
    _check(m, op, [lhs, rhs, bias], ("lhs", "rhs", "bias"))
    if op.startswith("gemv"):
        _gemv_lhs(m, op, lhs)
    out = _product(lhs, rhs)
    return _acc(m, out + _row(m, op, bias, out.shape[-1]), _acc_dtype(lhs))


def gemv(m: Machine, lhs, rhs, acc_phase=None):
    _check(m, "gemv", [lhs, rhs], ("lhs", "rhs"))
    _gemv_lhs(m, "gemv", lhs)
    return _acc(m, _product(lhs, rhs), _acc_dtype(lhs))


def accumulate(m: Machine, op: str, acc, lhs, rhs, acc_phase=None):
    """gemv_acc / batch_matmul_acc: acc + lhs @ rhs, in acc's dtype."""
    _check(m, op, [acc, lhs, rhs], ("acc", "lhs", "rhs"))
    if op.startswith("gemv"):
        _gemv_lhs(m, op, lhs)
    product = _product(lhs, rhs)
    if product.shape != acc.shape:
        raise KernelError(f"tile.{op}: the accumulator is {list(acc.shape)}, the product {list(product.shape)}")
    return _acc(m, array_of(acc).astype(np.float64) + product, acc.dtype)


def batch_matmul(m: Machine, lhs, rhs):
    _check(m, "batch_matmul", [lhs, rhs], ("lhs", "rhs"))
    return _acc(m, _product(lhs, rhs), _acc_dtype(lhs))


TILE_OPS = {
    "matmul_bias": partial(matmul_bias, op="matmul_bias"),
    "gemv_bias": partial(matmul_bias, op="gemv_bias"),
    "gemv": gemv,
    "gemv_acc": partial(accumulate, op="gemv_acc"),
    "batch_matmul": batch_matmul,
    "batch_matmul_acc": partial(accumulate, op="batch_matmul_acc"),
}


def install(pl, m: Machine) -> None:
    """pl.<op> and pl.tile.<op> for the cube ops; pl.tensor.matmul_acc (2026-08)."""
    for name, fn in TILE_OPS.items():
        bound = _bind(fn, m)
        setattr(pl, name, bound)
        setattr(pl.tile, name, bound)
    pl.tensor.matmul_acc = partial(_tensor_acc, m)


def _tensor_acc(m: Machine, acc, lhs, rhs, a_trans=False, b_trans=False):
    if m.strict and not isinstance(acc, Tensor):
        raise KernelError(f"The operator tensor.matmul_acc requires argument 1 to be a TensorType")
    saved, m.forced = m.forced, "Tensor"
    try:
        return m.matmul_acc(acc, lhs, rhs, a_trans=a_trans, b_trans=b_trans)
    finally:
        m.forced = saved


def _bind(fn, m: Machine):
    if isinstance(fn, partial):
        op = fn.keywords["op"]
        return lambda *args, **kw: fn.func(m, op, *args, **kw)
    return lambda *args, **kw: fn(m, *args, **kw)
