"""What a partially valid value's padding must hold for the code after it to mean what it meant.

At 2026-03 `pl.slice(t, [1, n], ...)` with a runtime `n` made a value of exactly n columns. At
2026-08 the shape must be a constant: the value is allocated at the bound and `n` becomes its
valid shape. Operations then run over the whole allocation, and a reduction reads the padding
(pypto's docs: "a reduction over a padded tile reads the padding ... a plausible number, not
an error"). `padding_for` follows the value through the statements after it, in its block, and
says which fill (`None`: none needed, or a `pl.PadValue` name) keeps every result the same, or
that none is known (a person decides).

The abstract value of a name is the padded axis and what the padding holds: `min`/`max` (the
lowest/highest value: the identity of a max/min), `zero`, `any`. Only the ops below are
followed; any other reader of a padded value, a read in a nested statement, a value still
padded where it is read again later (a loop-carried use), makes the answer unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ...syntax.nodes import statements
from ...syntax.traversal import walk

FILLS = (None, "min", "zero", "max")
IDENTITY = {"max": "min", "min": "max", "sum": "zero"}
PASS_THROUGH = ("cast", "fillpad_inplace")


class Unknown(Exception):
    pass


@dataclass(frozen=True)
class Pad:
    axis: int  # the axis whose tail is padding (0 rows, 1 columns)
    holds: str  # min, max, zero, any


def padding_for(target: str, axis: int, following: list, function, info) -> tuple[bool, str | None]:
    """(known, fill): the fill of `target`'s padding that keeps the statements `following` (its
    binding, then the rest of its block) computing what they did, the first of FILLS that does."""
    for fill in FILLS:
        try:
            _follow(target, Pad(axis, fill or "any"), following, function, info)
            return True, fill
        except Unknown:
            continue
    return False, None


def _follow(target: str, pad: Pad, following: list, function, info) -> None:
    env: dict[str, Pad] = {target: pad}
    zeros: set[str] = set()  # names known to hold zeros everywhere
    scanned: set[int] = {id(n) for n in walk(following[0])} if following else set()
    for statement in following[1:]:
        scanned.update(id(n) for n in walk(statement))
        if not env:
            return
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
            if _reads(statement, env):
                raise Unknown  # a padded value read by a statement not followed
            continue
        name = small.targets[0].target.value
        value = _expr(small.value, env, zeros, info)
        env.pop(name, None)
        zeros.discard(name)
        if isinstance(value, Pad):
            env[name] = value
        elif value == "zeros":
            zeros.add(name)
    # a name still padded must not be read anywhere else (an earlier statement of a loop body)
    for node in walk(function):
        if isinstance(node, cst.Name) and node.value in env and id(node) not in scanned:
            raise Unknown


def _reads(statement, env) -> bool:
    return any(isinstance(n, cst.Name) and n.value in env for n in walk(statement))


def _expr(expr, env: dict[str, Pad], zeros: set[str], info):
    """The padding of the expression's value: a Pad, "zeros" (a value all zero), or None (clean)."""
    if isinstance(expr, cst.Name):
        return env.get(expr.value) or ("zeros" if expr.value in zeros else None)
    if not isinstance(expr, cst.Call):
        if any(isinstance(n, cst.Name) and n.value in env for n in walk(expr)):
            raise Unknown
        return None
    name = (info.op(expr) or "").rpartition(".")[2]
    args = [a.value for a in expr.args if a.keyword is None]
    padded = [(i, p) for i, p in enumerate(_expr(a, env, zeros, info) for a in args) if isinstance(p, Pad)]
    for a in expr.args:
        if a.keyword is not None and _reads(a.value, env):
            raise Unknown
    if not padded:
        if name == "mul" and len(args) == 2 and _zero(args[1]):
            return "zeros"
        return None
    (index, pad), rest = padded[0], padded[1:]
    if rest or index != (1 if name == "assemble" else 0):
        raise Unknown  # two padded operands, or a padded one in a place not followed
    return _op(name, pad, args, zeros, env, info)


def _op(name: str, pad: Pad, args: list, zeros: set, env, info):
    kind = name.partition("_")[2] if name.startswith(("row_", "col_")) else ""
    reduced = 1 if name.startswith("row_") else 0
    if kind in IDENTITY:  # a reduction
        if pad.axis != reduced:
            return Pad(pad.axis, "any")  # the padded lanes stay lanes of the result
        if pad.holds != IDENTITY[kind]:
            raise Unknown
        return None
    if name in PASS_THROUGH:
        return pad
    if name == "exp":
        return Pad(pad.axis, "zero" if pad.holds == "min" else "any")
    if name == "neg":
        return Pad(pad.axis, {"min": "max", "max": "min"}.get(pad.holds, pad.holds))
    if name in ("row_expand_sub", "row_expand_add", "col_expand_sub", "col_expand_add", "sub", "add"):
        # a finite clean operand leaves the lowest/highest value where it was
        return Pad(pad.axis, pad.holds if pad.holds in ("min", "max") else "any")
    if name in ("row_expand_mul", "col_expand_mul", "mul"):
        return Pad(pad.axis, "zero" if pad.holds == "zero" else "any")
    if name == "assemble":
        # the old value had no padding: what the new one writes past its valid region must be
        # what the target held there, zeros into zeros
        target = args[0]
        if pad.holds == "zero" and isinstance(target, cst.Name) and target.value in zeros:
            return None
        raise Unknown
    raise Unknown


def _zero(node) -> bool:
    return isinstance(node, (cst.Float, cst.Integer)) and float(node.value) == 0.0


def rest_of_block(site) -> list:
    """The site's statement and the statements after it in its own block."""
    parent = site.parents[-1] if site.parents else site.function
    body = statements(parent)
    for i, statement in enumerate(body):
        if statement is site.statement:
            return body[i:]
    return []
