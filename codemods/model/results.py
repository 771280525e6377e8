"""The type of an op's result, read off the API table's `like`, `shape` and `dtype` fields.

One place answers "what does pl.X give" for the planner, the strict check and the table's
own check against the compiler (benchmarks/check_api_table.py), so that an op the target
documents never leaves a value of unknown type behind it.
"""

from __future__ import annotations

import re
from typing import Callable

import libcst as cst

from ..rulebook.loading import Op
from ..syntax.nodes import attr_name, codes
from .values import SCALAR, TENSOR, TILE, UNKNOWN, UNKNOWN_VAL, Val

HALF_FLOATS = frozenset({"BF16", "FP16"})
NARROW_INTS = frozenset({"INT8", "INT16", "INT32", "UINT8", "UINT16", "UINT32"})
OPERAND_ROLES = ("tile", "tensor", "value", "value-or-scalar")


def promote(tile: str | None, scalar: str | None) -> str | None:
    """The result type of a tile op with a scalar operand, as the compiler types it (measured):
    a half-precision tile with an FP32 scalar gives FP32; a narrow integer tile with an INDEX
    scalar gives INDEX (and with an FP32 one, FP32); otherwise the tile's own type."""
    if scalar == "FP32" and (tile in HALF_FLOATS or tile in NARROW_INTS):
        return "FP32"
    if scalar == "INDEX" and tile in NARROW_INTS:
        return "INDEX"
    return tile


def argument(spec: Op, name: str, pos: list, kw: dict):
    """The node given for parameter `name`, by position or keyword; None when absent."""
    if name in kw:
        return kw[name]
    if name in spec.params:
        i = spec.params.index(name)
        return pos[i] if i < len(pos) else None
    return None


def like_index(spec: Op) -> int:
    """Which operand the result follows: the table's `like`, else the first operand."""
    if spec.like and spec.like in spec.params:
        return spec.params.index(spec.like)
    for i, p in enumerate(spec.params):
        if spec.roles.get(p, "value") in OPERAND_ROLES:
            return i
    return 0


def result_val(spec: Op, vals: list[Val], pos: list, kw: dict,
               scalar_dtype: Callable[[object], str | None] = lambda _: None) -> Val:
    """The result of `spec` applied to operands `vals` (written as `pos`/`kw`): kind, shape, dtype.

    The kind follows the table's `result`; shape and dtype follow `like`, `shape` and `dtype`.
    Parts that cannot be read off the code stay None; the kind is always given where the
    table knows it, which is what keeps the inference going after the op."""
    i = like_index(spec)
    like = vals[i] if i < len(vals) else UNKNOWN_VAL
    if spec.result == "scalar":
        return Val(SCALAR, None, _dtype(spec, vals, pos, kw, like, scalar_dtype, SCALAR))
    kind = {"tile": TILE, "tensor": TENSOR}.get(spec.result, like.kind)
    if kind == SCALAR or kind == UNKNOWN:
        return Val(kind)
    shape = _shape(spec, vals, pos, kw, like)
    # elementwise from `like`: its valid region goes with it (a reduction or reshape makes a new one)
    valid = like.valid if not spec.shape and shape == like.shape else None
    return Val(kind, shape, _dtype(spec, vals, pos, kw, like, scalar_dtype, kind), valid=valid)


# The columns a gather's mask pattern keeps, of each group of four (pl.tile.MaskPattern, or the
# int the IR prints for it; measured on e2d0f78ae: P0101/P1010 halve the last axis, P0001..P1000
# quarter it, P1111 keeps it).
MASK_KEEPS = {"P0101": 2, "P1010": 2, "P0001": 1, "P0010": 1, "P0100": 1, "P1000": 1, "P1111": 4,
              "1": 2, "2": 2, "3": 1, "4": 1, "5": 1, "6": 1, "7": 4}


def _shape(spec: Op, vals, pos, kw, like: Val):
    # `a|b`: the op has several forms (a gather by index or by mask): the first rule that applies
    for rule in spec.shape.split("|"):
        shape = _shape_by(rule, spec, vals, pos, kw, like)
        if shape is not None:
            return shape
    return None


def _shape_by(rule: str, spec: Op, vals, pos, kw, like: Val):
    if rule.startswith("param:"):
        node = argument(spec, rule[len("param:"):], pos, kw)
        return codes(node) if isinstance(node, (cst.List, cst.Tuple)) else None
    if rule.startswith("of:"):  # the shape of another operand (a gather's index)
        name = rule[len("of:"):]
        i = spec.params.index(name) if name in spec.params else len(vals)
        return vals[i].shape if i < len(vals) else None
    if rule.startswith("with:"):  # this form when the keyword is given (mrgsort's block_len): shaped like
        return like.shape if argument(spec, rule[len("with:"):], pos, kw) is not None else None
    if rule.startswith("concat:"):  # the named operands given, side by side (mrgsort of 2..4 lists)
        shapes = [v.shape for p, v in zip(spec.params, vals) if p in rule[len("concat:"):].split(",")]
        if len(shapes) < 2 or any(s is None or len(s) != len(shapes[0]) for s in shapes):
            return None
        return (*shapes[0][:-1], " + ".join(s[-1] for s in shapes))
    shape = like.shape
    if rule == "mask" and shape:  # a gather by mask pattern keeps 1, 2 or 4 columns of each 4
        node = argument(spec, "mask_pattern", pos, kw)
        keeps = MASK_KEEPS.get(attr_name(node) or (node.value if isinstance(node, cst.Integer) else ""))
        if keeps is None:
            return None
        if keeps == 4:
            return shape
        last = _operand(shape[-1])
        return (*shape[:-1], str(int(last) * keeps // 4) if last.isdigit() else f"{last} // {4 // keeps}")
    if rule == "pairs" and shape:  # sort32: value-index pairs, the last axis doubled
        return (*shape[:-1], f"{_operand(shape[-1])} * 2")
    if rule == "predicate" and shape:
        return (*shape[:-1], _packed_bytes(shape[-1])) if like.kind == TILE else shape
    if not rule or shape is None:
        return shape
    if rule == "rows":
        return (shape[0], "1") if len(shape) == 2 else None
    if rule == "cols":
        return ("1", shape[1]) if len(shape) == 2 else None
    if rule == "swap":
        axes = [_int(argument(spec, p, pos, kw)) for p in spec.params[1:3]]
        if None in axes or len(axes) != 2 or max(axes) >= len(shape):
            return shape[::-1] if len(shape) == 2 else None
        out = list(shape)
        out[axes[0]], out[axes[1]] = out[axes[1]], out[axes[0]]
        return tuple(out)
    if rule == "axis":
        axis = _int(argument(spec, "axis", pos, kw))
        if axis is None:
            axis = 0  # the compiler's default for tile.max/min
        if axis < 0:
            axis += len(shape)
        if not 0 <= axis < len(shape):
            return None
        keep = argument(spec, "keepdim", pos, kw)
        if isinstance(keep, cst.Name) and keep.value == "True":
            return tuple("1" if j == axis else s for j, s in enumerate(shape))
        return tuple(s for j, s in enumerate(shape) if j != axis)
    if rule == "batch_matmul":  # [B, M, K] x [B, K, N] -> [B, M, N]
        operands = [v for p, v in zip(spec.params, vals) if spec.roles.get(p) in OPERAND_ROLES]
        lhs, rhs = (operands + [UNKNOWN_VAL] * 2)[:2]
        if lhs.shape and rhs.shape and len(lhs.shape) == len(rhs.shape) == 3:
            return (*lhs.shape[:2], rhs.shape[2])
    if rule == "concat":  # side by side: the rows of the first, the columns of both
        other = vals[1].shape if len(vals) > 1 else None
        if other is not None and len(shape) == len(other) == 2:
            return (shape[0], f"{shape[1]} + {other[1]}")
        return None
    if rule == "matmul":
        operands = [v for p, v in zip(spec.params, vals) if spec.roles.get(p) in OPERAND_ROLES]
        lhs, rhs = (operands + [UNKNOWN_VAL] * 2)[:2]
        if lhs.shape and rhs.shape and len(lhs.shape) == 2 and len(rhs.shape) == 2:
            return (lhs.shape[0], rhs.shape[1])
        return None
    return None


PREDICATE_BITS = 8  # a tile comparison's mask packs one bit per element into UINT8 bytes
PREDICATE_ALIGN = 32  # ... its rows padded to 32 bytes on 910B (tile elementwise.cpp of e2d0f78ae)


def _packed_bytes(extent: str) -> str:
    """A mask row's bytes for `extent` compared elements: ceil(extent / 8) rounded up to 32."""
    bits, align = PREDICATE_BITS, PREDICATE_ALIGN
    if extent.isdigit():
        return str(((int(extent) + bits - 1) // bits + align - 1) // align * align)
    return f"(({_operand(extent)} + {bits - 1}) // {bits} + {align - 1}) // {align} * {align}"


def _operand(extent: str) -> str:
    """An extent's text as the operand of an arithmetic operator: a name or number as it is, an
    expression in parentheses."""
    return extent if re.fullmatch(r"\w+", extent) else f"({extent})"


def _dtype(spec: Op, vals, pos, kw, like: Val, scalar_dtype, kind: str) -> str | None:
    rule = spec.dtype
    if rule.startswith("param:"):
        # `param:output_dtype|like`: the keyword's type where it is given, else the operand's
        name, _, otherwise = rule[len("param:"):].partition("|")
        given = attr_name(argument(spec, name, pos, kw))
        return given or (like.dtype if otherwise == "like" else otherwise or None)
    if rule == "matmul":  # a tile matmul accumulates in FP32, of integers in INT32 (measured: INT8
        # operands); a tensor one keeps its type unless told
        if kind == TILE:
            return "INT32" if like.dtype in NARROW_INTS else "FP32"
        return attr_name(argument(spec, "out_dtype", pos, kw)) or like.dtype
    if rule == "predicate":  # the tile forms give a packed UINT8 mask; the tensor form 0/1 values in its own type
        return "UINT8" if kind == TILE else like.dtype
    if rule and rule != "promote":
        return rule
    dtype = like.dtype
    if rule == "promote":
        for p, v, node in zip(spec.params, vals, pos):
            if spec.roles.get(p) in ("scalar", "value-or-scalar") and v.kind == SCALAR:
                dtype = promote(dtype, scalar_dtype(node))
    return dtype


def _int(node) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value)
    return None
