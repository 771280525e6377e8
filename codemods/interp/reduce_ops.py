"""Reductions and broadcasts for the interpreter: the row/column reductions of 2026-08 (prod,
argmax, argmin, the col_* family), the expands with max/min/exp-diff, col_expand, the partial
ops (part_add & co.), fillpad_expand and fillpad_inplace, and the pl.tile./pl.tensor. forms of
the older reductions and expands that the parser's namespaces have.

What each computes is read off e2d0f78ae's docstrings and the IR types it infers (measured on
small kernels): a row reduction gives [M, 1], a column one [1, N], argmax/argmin INT32 indices;
a Tile operand takes a scratch tile where the compiler asks for one and a Tensor operand must
not have one; a partial op's result has its first operand's valid region. A name is bound only
where the profile's API table offers it (the old profile, a source of any earlier day, has all).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import dtypes as D
from . import versions
from .ops import Machine
from .values import KernelError, Tensor, Tile, array_of, dtype_of, valid_of

INT32 = D.DTYPES["INT32"]
ROW = {"row_sum": np.sum, "row_max": np.max, "row_min": np.min, "row_prod": np.prod,
       "row_argmax": np.argmax, "row_argmin": np.argmin}
COL = {"col_sum": np.sum, "col_max": np.max, "col_min": np.min, "col_prod": np.prod,
       "col_argmax": np.argmax, "col_argmin": np.argmin}
# col_sum takes a scratch or not (it picks the reduction's order); these take none at all
NO_SCRATCH = ("col_max", "col_min", "col_prod")
EXPAND = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum, "expdif": lambda a, v: np.exp(a - v),
}
PART = {"part_add": np.add, "part_max": np.maximum, "part_min": np.minimum, "part_mul": np.multiply}


def _region(x) -> np.ndarray:
    """Which elements of x are valid."""
    inside = np.zeros(x.data.shape, dtype=bool)
    valid = valid_of(x) or x.data.shape
    inside[tuple(slice(0, int(v)) for v in valid)] = True
    return inside


def _scratch(m: Machine, op: str, family: str, x, tmp, required: bool, exact: bool) -> None:
    if family != "tile":
        if m.head and tmp is not None:
            raise KernelError(f"pl.{op}: a Tensor operand takes no tmp_tile (the conversion to tiles allocates it)")
        return
    if not m.strict:
        return
    if tmp is None:
        if required:
            raise KernelError(f"tile.{op}() missing 1 required positional argument: 'tmp_tile'")
        return
    if not isinstance(tmp, Tile) or tmp.dtype != x.dtype or len(tmp.shape) != len(x.shape):
        raise KernelError(f"tile.{op}: tmp_tile must be a Tile of the input's dtype {x.dtype} and rank")
    if exact and tmp.shape != x.shape or any(t < s for t, s in zip(tmp.shape, x.shape)):
        want = "exactly" if exact else "at least"
        raise KernelError(f"tile.{op}: tmp_tile {list(tmp.shape)} must be {want} the input's shape {list(x.shape)}")


def _reduced(m: Machine, x, axis: int) -> np.ndarray:
    """The operand as the reduction reads it: a c39 or older Tile over its valid region only
    (Machine.reduce's reading); at 2026-08 the padding is read too (docs: reductions over a
    partially valid tile depend on the pad value)."""
    a = array_of(x).astype(np.float32)
    valid = valid_of(x)
    if valid is None or m.head:
        return a
    return a[: int(valid[0]), :] if axis == 0 else a[:, : int(valid[1])]


def row_reduce(m: Machine, op: str, x, tmp_tile=None):
    family = m._dispatch(op, [x] + ([tmp_tile] if tmp_tile is not None else []))
    m._enter_op(op, family, [x])
    _scratch(m, op, family, x, tmp_tile, required=True, exact="arg" in op)
    a = _reduced(m, x, 1)
    valid = valid_of(x)
    out = m.uninitialised((a.shape[0], 1), INT32 if "arg" in op else dtype_of(x)).astype(np.float64)
    if a.shape[1]:
        with np.errstate(all="ignore"):
            out[:] = ROW[op](a, axis=1, keepdims=True)
    dtype = INT32 if "arg" in op else dtype_of(x)
    return m._result(x, D.cast(out, dtype), (valid[0], 1) if valid else None)


def col_reduce(m: Machine, op: str, x, tmp_tile=None):
    if op in NO_SCRATCH and tmp_tile is not None:
        raise KernelError(f"{op}() takes 1 positional argument but 2 were given")
    family = m._dispatch(op, [x] + ([tmp_tile] if tmp_tile is not None else []))
    m._enter_op(op, family, [x])
    _scratch(m, op, family, x, tmp_tile, required="arg" in op, exact="arg" in op)
    a = _reduced(m, x, 0)
    valid = valid_of(x)
    dtype = INT32 if "arg" in op else dtype_of(x)
    out = m.uninitialised((1, a.shape[1]), dtype).astype(np.float64)
    if a.shape[0]:
        with np.errstate(all="ignore"):
            out[:] = COL[op](a, axis=0, keepdims=True)
    return m._result(x, D.cast(out, dtype), (1, valid[1]) if valid else None)


def expand(m: Machine, op: str, x, vec):
    """row_expand_<f>(x, [M, 1]) and col_expand_<f>(x, [1, N]); col_expand(x, v) broadcasts v."""
    family = m._dispatch(op, [x, vec])
    m._enter_op(op, family, [x, vec])
    a, v = array_of(x).astype(np.float32), array_of(vec).astype(np.float32)
    axis = "row" if op.startswith("row") else "col"
    want = (a.shape[0], 1) if axis == "row" else (1, a.shape[1])
    if v.shape != want:
        raise KernelError(f"pl.{op} needs a {list(want)} vector for a {list(a.shape)} value, got {list(v.shape)}")
    fn = EXPAND.get(op.rsplit("_", 1)[1]) if op.count("_") > 1 else None
    with np.errstate(all="ignore"):
        out = fn(a, v) if fn is not None else np.broadcast_to(v, a.shape)
    # BF16 with an FP32 vector (or the other way) is FP32 (measured at 2026-05-26 and e2d0f78ae)
    return m._result(x, D.cast(out, D.wider(dtype_of(x), dtype_of(vec))), valid_of(x))


def part(m: Machine, op: str, lhs, rhs):
    """TPARTADD & co.: the op where both operands are valid, the one valid operand elsewhere;
    the result has lhs's valid region (e2d0f78ae's inferred type)."""
    family = m._dispatch(op, [lhs, rhs])
    m._enter_op(op, family, [lhs, rhs])
    if lhs.shape != rhs.shape:
        raise KernelError(f"pl.{op} of {list(lhs.shape)} and {list(rhs.shape)}: the shapes must be equal")
    a, b = array_of(lhs).astype(np.float32), array_of(rhs).astype(np.float32)
    va, vb = _region(lhs), _region(rhs)
    with np.errstate(all="ignore"):
        out = np.where(va & vb, PART[op](a, b), np.where(vb & ~va, b, a))
    return m._result(lhs, D.cast(out, lhs.dtype), valid_of(lhs))


def fillpad(m: Machine, op: str, x, pad_value="zero"):
    """2026-08's padding (versions._fillpad). c39's fillpad took the tile only: its pad is taken
    to be zero, today's default (PTO164 asks a person to confirm that on migration)."""
    family = m._dispatch(op, [x])
    m._enter_op(op, family, [x])
    if m.strict and not m.head and pad_value != "zero":
        raise KernelError("fillpad() takes 1 positional argument but 2 were given")
    return versions._fillpad(m, x, pad_value)


def fillpad_expand(m: Machine, op: str, x, shape, pad_value="zero"):
    """x's valid region at the top-left of a value of `shape`, the rest padded."""
    family = m._dispatch(op, [x])
    m._enter_op(op, family, [x])
    shape = tuple(int(s) for s in shape)
    if len(shape) != len(x.shape) or any(s < n for s, n in zip(shape, x.shape)):
        raise KernelError(f"pl.{op}: the shape {list(shape)} must be at least the source's {list(x.shape)}")
    data = np.zeros(shape, dtype=x.data.dtype)
    data[tuple(slice(0, n) for n in x.shape)] = x.data
    valid = valid_of(x) or x.shape
    bigger = Tile(data, x.space, x.kernel, tuple(valid)) if isinstance(x, Tile) else \
        Tensor(data, np.zeros(shape, dtype=bool), x.name, tuple(valid), x.kernel)
    padded = versions._fillpad(m, bigger, pad_value)
    return m._result(x, padded.data, None)


def _ops(m: Machine) -> dict:
    ops = {op: partial(row_reduce, m, op) for op in ROW if op not in ("row_sum", "row_max", "row_min")}
    ops.update({op: partial(col_reduce, m, op) for op in COL})
    for f in EXPAND:
        ops[f"row_expand_{f}"] = partial(expand, m, f"row_expand_{f}")
        ops[f"col_expand_{f}"] = partial(expand, m, f"col_expand_{f}")
    for old in ("row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div", "col_expand_mul",
                "col_expand_div", "col_expand_sub"):
        ops[old] = partial(m.expand, old)  # the older expands keep the Machine's reading
    ops["col_expand"] = partial(expand, m, "col_expand")
    ops.update({op: partial(part, m, op) for op in PART})
    ops["fillpad"] = partial(fillpad, m, "fillpad")
    ops["fillpad_inplace"] = partial(fillpad, m, "fillpad_inplace")
    ops["fillpad_expand"] = partial(fillpad_expand, m, "fillpad_expand")
    return ops


def _forced(m: Machine, kind: str | None, fn):
    if kind is None:
        return fn

    def call(*args, **kwargs):
        saved, m.forced = m.forced, kind
        try:
            return fn(*args, **kwargs)
        finally:
            m.forced = saved

    return call


def install(pl, m: Machine) -> None:
    """Bind the family as pl.X, pl.tile.X and pl.tensor.X where the profile's table offers it.
    What another module already binds under a name stays (pl.row_expand, the c39 axis
    reductions); the namespaced forms it lacks are added."""
    ops = _ops(m)
    ops["row_min"] = partial(m.reduce, "row_min")
    ops["row_expand"] = lambda target, row_vec=None: versions._row_expand(m, target, row_vec)
    kept = {"row_min", "row_expand", "row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div",
            "col_expand_mul", "col_expand_div", "col_expand_sub"}
    for space, ns, kind in (("", pl, None), ("tile", pl.tile, "Tile"), ("tensor", pl.tensor, "Tensor")):
        for name, fn in ops.items():
            qualified = f"{space}.{name}" if space else name
            if m.strict and not m.api.offers(qualified):
                continue
            if name in kept and hasattr(ns, name):
                continue
            if name == "row_expand":
                fn = _checked_row_expand(m, fn)
            setattr(ns, name, _forced(m, kind, fn))
    if not m.head:  # c39's tile.max/min: the axis reductions of pl.max/pl.min
        pl.tile.max, pl.tile.min = pl.max, pl.min


def _checked_row_expand(m: Machine, fn):
    def call(target, row_vec=None):
        family = m._dispatch("row_expand", [target] + ([row_vec] if row_vec is not None else []))
        m._enter_op("row_expand", family, [target])
        return fn(target, row_vec)

    return call
