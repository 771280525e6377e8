"""The elementwise family for the interpreter: bitwise and shift ops, remainders, cos/sin,
tile-and-scalar ops, prelu, expands, and the compare/select pair, in every namespace
(`pl.X`, `pl.tile.X`, `pl.tensor.X`) the profile's API table offers.

Which names exist is the table's to say (`ApiTable.offers`): the old profile (code before
2026-03, which no compiler here judges) has them all. Operands are checked as the parser
checks them: kinds by the table's roles (`Machine._dispatch`), arity by its `params` and
`required` (c39's `rem(a, b, tmp)` is "got multiple values for argument 'span'", e2d0f78ae's
`rem(a, b)` "missing 1 required positional argument: 'tmp'"), and the dtype rules both
compilers enforce (measured): bitwise ops on integer data with an integer scalar, `not_` on
INT16/UINT16, `cos`/`sin` on FP32 at 2026-08, `prelu` on FP16/FP32 at 2026-08.

A compared Tile is a predicate mask whose encoding is the target's (FP32 at c39, packed UINT8
at e2d0f78ae): it is kept here as truth values, which only sel/sels read. A compared Tensor is
0/1 in its own dtype (help(pl.tensor.cmp)).
"""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .ops import Machine
from .values import KernelError, Tensor, Tile, array_of, kind, valid_of

INTS = ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64")
COMPARE = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)


def _spec_name(m: Machine, op: str, ns: str) -> str:
    """The table entry that types this call: `tile.adds` where the table has one, else `adds`."""
    qualified = f"{ns}.{op}" if ns else op
    spec = m.api.ops.get(qualified)
    return qualified if spec is not None and spec.params else op


def _arity(m: Machine, name: str, op: str, args: list) -> None:
    spec = m.api.ops.get(name)
    if not m.strict or spec is None or not spec.params:
        return
    params = spec.params
    if (m.forced == "Tensor" or (args and kind(args[0]) == "Tensor")) and spec.scratch:
        params = tuple(p for p in params if p != spec.scratch)  # the tensor form needs no scratch tile
    if len(args) > len(params):
        raise KernelError(f"pl operation '{op}': {op}() got multiple values for argument 'span'")
    operands = [p for p in params if spec.roles.get(p) in ("tile", "tensor", "value", "scalar", "value-or-scalar")]
    needed = spec.required or (len(operands) if spec.kind == "tile-only" or kind(args[0]) == "Tile" else 0)
    if len(args) < needed:
        missing = params[len(args)]
        raise KernelError(f"pl operation '{op}': {op}() missing 1 required positional argument: '{missing}'")


def _value_dtype(x) -> D.DType:
    return x.dtype if isinstance(x, (Tile, Tensor)) else D.DTYPES["FP32"]


def _check_dtypes(m: Machine, op: str, args: list, integer: bool) -> None:
    if not m.strict:
        return
    first = args[0]
    name = _value_dtype(first).name
    if integer:
        if name not in INTS:
            raise KernelError(f"The operator tile.{op.rstrip('_')} requires integer tile dtype, but got {name.lower()}")
        for a in args[1:2]:
            if isinstance(a, float) or (isinstance(a, (Tile, Tensor)) and a.dtype.name not in INTS):
                raise KernelError(f"The operator tile.{op.rstrip('_')} requires shift/bitwise scalar to be an integer type")
    if op == "not_" and name not in ("INT16", "UINT16"):
        raise KernelError(f"The operator tile.not requires int16 or uint16 tile dtype, but got {name.lower()}")
    if op in ("cos", "sin") and m.head and name != "FP32":
        raise KernelError(f"pl operation '{op}': tile.{op} is FP32-only, but got input with dtype {name.lower()}")
    if op == "prelu" and m.head and name not in ("FP16", "FP32"):
        raise KernelError(f"The operator tile.prelu requires src dtype in {{FP16, FP32}}, but got {name.lower()}")


def _result_dtype(m: Machine, name: str, first, args: list) -> D.DType:
    """The table's `promote`: a float scalar widens a half-precision operand to FP32."""
    dtype = _value_dtype(first)
    spec = m.api.ops.get(name)
    if spec is not None and spec.dtype == "promote" and dtype.name in ("BF16", "FP16"):
        if any(isinstance(a, float) for a in args[1:]):
            return D.DTYPES["FP32"]
    return dtype


def _data(x, integer: bool):
    if isinstance(x, (Tile, Tensor)):
        return x.data.astype(np.int64) if integer else x.data.astype(np.float32)
    return np.int64(x) if integer else np.float32(x)


def _apply(m: Machine, op: str, ns: str, args: list, compute, integer: bool = False, keep_valid: bool = True):
    """Check a call as the parser does, compute it, and round it to the result's dtype."""
    forced = {"tile": "Tile", "tensor": "Tensor"}.get(ns)
    saved, m.forced = m.forced, forced or m.forced
    try:
        name = _spec_name(m, op, ns)
        _arity(m, name, op, args)
        family = m._dispatch(name, args)
        if m.strict and forced and kind(args[0]) != forced:
            raise KernelError(f"The operator {ns}.{op} requires first argument to be a {forced}Type, "
                              f"but got {kind(args[0])}Type")
        _check_dtypes(m, op, args, integer)
        m._enter_op(op, family, [a for a in args if isinstance(a, (Tile, Tensor))])
        first = args[0]
        with np.errstate(all="ignore"):
            out = compute(*[_data(a, integer) if isinstance(a, (Tile, Tensor, int, float)) else a for a in args])
        dtype = _result_dtype(m, name, first, args)
        return m._result(first, D.cast(out, dtype), valid_of(first) if keep_valid else None)
    finally:
        m.forced = saved


def _mask(m: Machine, op: str, ns: str, args: list, cmp_type):
    if int(cmp_type) not in range(len(COMPARE)):
        raise KernelError(f"pl.{op}: cmp_type {cmp_type} is not one of EQ=0, NE=1, LT=2, LE=3, GT=4, GE=5")
    if op == "cmps" and isinstance(args[1], (Tile, Tensor)):
        raise KernelError("The operator tile.cmps requires second argument to be a ScalarType")
    return _apply(m, op, ns, args, lambda a, b: COMPARE[int(cmp_type)](a, b).astype(np.float32))


def _select(m: Machine, op: str, ns: str, args: list):
    """sel(mask, lhs, rhs[, tmp]); sels(mask, src, tmp, scalar) at 2026-08. The 2026-03
    sels(lhs, rhs, select_mode) chooses by a target-defined mode: not modelled."""
    if op == "sels" and not m.head:
        if m.strict:
            raise KernelError("pl.sels(lhs, rhs, select_mode): the select mode's meaning is target-defined; "
                              "the interpreter does not model it")
    saved, m.forced = m.forced, "Tile" if ns == "tile" else m.forced
    try:
        name = _spec_name(m, op, ns)
        _arity(m, name, op, args)
        m._dispatch(name, args)
        m._enter_op(op, "tile", [a for a in args if isinstance(a, Tile)])
    finally:
        m.forced = saved
    mask = array_of(args[0]) != 0
    if op == "sel":
        lhs, rhs = args[1], args[2]
        if lhs.dtype != rhs.dtype:
            raise KernelError(f"pl.sel of {lhs.dtype} and {rhs.dtype}: both sources have one dtype")
        out = np.where(mask, lhs.data, rhs.data)
        return m._result(lhs, out, valid_of(lhs))
    src, scalar = args[1], args[3]
    out = np.where(mask, src.data.astype(np.float32), np.float32(scalar))
    return m._result(src, D.cast(out, src.dtype), valid_of(src))


def _expands(m: Machine, ns: str, target, scalar):
    return _apply(m, "expands", ns, [target, scalar],
                  lambda t, s: np.full(np.shape(t), s, dtype=np.float32), keep_valid=False)


def _shift_left(a, b):
    return np.left_shift(a, b)


def _shift_right(a, b):
    return np.right_shift(a, b)


# op -> (compute on float32 / int64 data, integer op)
COMPUTE = {
    "and_": (np.bitwise_and, True), "ands": (np.bitwise_and, True),
    "or_": (np.bitwise_or, True), "ors": (np.bitwise_or, True),
    "xor": (lambda a, b, tmp=None: np.bitwise_xor(a, b), True),
    "xors": (lambda a, b, tmp=None: np.bitwise_xor(a, b), True),
    "shl": (_shift_left, True), "shls": (_shift_left, True),
    "shr": (_shift_right, True), "shrs": (_shift_right, True),
    "not_": (np.invert, True),
    "cos": (np.cos, False), "sin": (np.sin, False),
    "fmod": (np.fmod, False), "fmods": (np.fmod, False),
    # "lhs % rhs" (help(pl.tile.rem)); the sign rule for negative operands is the target's: C's fmod
    "rem": (lambda a, b, tmp=None: np.fmod(a, b), None), "rems": (lambda a, b, tmp=None: np.fmod(a, b), None),
    "maximums": (np.maximum, False), "minimums": (np.minimum, False),
    "maxs": (np.maximum, False), "mins": (np.minimum, False),
    "adds": (np.add, False), "subs": (np.subtract, False), "muls": (np.multiply, False), "divs": (np.divide, False),
    "add_scalar": (np.add, False), "sub_scalar": (np.subtract, False),
    "mul_scalar": (np.multiply, False), "div_scalar": (np.divide, False),
    "lrelu": (lambda x, s: np.where(x >= 0, x, x * s), False),
    "prelu": (lambda x, s, tmp=None: np.where(x >= 0, x, x * s), False),
    # the unary ops the Machine computes for pl.X, for the tensor namespace of 2026-08
    "abs": (np.abs, False), "neg": (np.negative, False), "log": (np.log, False), "sqrt": (np.sqrt, False),
    "recip": (lambda v: np.float32(1) / v, False), "rsqrt": (lambda v: np.float32(1) / np.sqrt(v), False),
    "exp": (np.exp, False), "relu": (lambda v: np.maximum(v, np.float32(0)), False),
    "minimum": (np.minimum, False), "maximum": (np.maximum, False),
    "add": (np.add, False), "sub": (np.subtract, False), "mul": (np.multiply, False), "div": (np.divide, False),
}
SCALAR_RHS = {"ands", "ors", "xors", "shls", "shrs", "fmods", "rems", "maximums", "minimums", "maxs", "mins",
              "adds", "subs", "muls", "divs", "add_scalar", "sub_scalar", "mul_scalar", "div_scalar", "lrelu"}
# Names the Machine's own ops (language.py, more_ops.py) bind: installed here only in the
# namespaces that lack them (pl.tensor.abs at 2026-08).
ELSEWHERE = {"abs", "neg", "log", "sqrt", "recip", "rsqrt", "exp", "relu", "minimum", "maximum",
             "add", "sub", "mul", "div", "adds", "subs", "muls", "divs", "maxs", "mins", "lrelu"}


def _op(m: Machine, op: str, ns: str):
    fn, integer = COMPUTE[op]

    def call(*args, **kwargs):
        args = list(args) + [kwargs[k] for k in ("tmp",) if k in kwargs]
        if op in SCALAR_RHS and len(args) > 1 and isinstance(args[1], (Tile, Tensor)):
            raise KernelError(f"The operator {ns or 'tile'}.{op} requires second argument to be a ScalarType, "
                              f"but got {kind(args[1])}Type")
        is_int = integer if integer is not None else _value_dtype(args[0]).name in INTS
        return _apply(m, op, ns, args, fn, integer=is_int)
    return call


def _offered(m: Machine, qualified: str) -> bool:
    return not m.strict or m.api.offers(qualified)


def install(pl, m: Machine) -> None:
    """Bind each op in the namespaces the profile's table offers (after the version layer, so
    that the table, not the order of installation, decides what exists)."""
    spaces = {"": pl, "tile": pl.tile, "tensor": pl.tensor}
    for op in COMPUTE:
        for ns, module in spaces.items():
            qualified = f"{ns}.{op}" if ns else op
            if op in ELSEWHERE and hasattr(module, op):
                continue
            if _offered(m, qualified):
                setattr(module, op, _op(m, op, ns))
    for ns, module in spaces.items():
        prefix = f"{ns}." if ns else ""
        if _offered(m, prefix + "expands"):
            setattr(module, "expands", lambda target, scalar, ns=ns: _expands(m, ns, target, scalar))
        for op in ("cmp", "cmps"):
            if _offered(m, prefix + op):
                setattr(module, op, lambda a, b, cmp_type=0, op=op, ns=ns: _mask(m, op, ns, [a, b], cmp_type))
        for op in ("sel", "sels"):
            if ns != "tensor" and _offered(m, prefix + op):
                setattr(module, op, lambda *args, op=op, ns=ns, **kw: _select(m, op, ns, list(args) + list(kw.values())))
