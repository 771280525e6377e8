"""The compile-time bound of a runtime extent.

A shape element that is a runtime value (`valid_len` with `valid_len = pl.min(SEQ_TILE, cnt)`)
cannot size a tile: its storage is allocated from the shape. Where the extent is `pl.min(C, x)`
with a constant C, itself or at every assignment of its name in the function, C is its bound:
the tile is allocated at C and the extent becomes its valid shape. Both version steps ask this
(the 2026-03 planner for a `pl.view`/`pl.slice` it loads, PTO121 at 2026-08 for a kernel's
slice), with their own ways of naming an op and evaluating a constant.
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from ..syntax.memo import cached
from ..syntax.nodes import code
from ..syntax.traversal import LEAVES, own_and_nested, walk


def constant_bound(element: cst.BaseExpression, function: cst.CSTNode,
                   op_of: Callable[[cst.Call], str | None],
                   number_of: Callable[[str], int | None]) -> cst.BaseExpression | None:
    """The constant operand C of `pl.min(C, x)` (either order): the element itself, or every
    assignment of its name in `function` (one C for all of them). None where a loop, an augmented
    or annotated assignment binds the name, or any assignment is something else."""
    if isinstance(element, cst.Name):
        values = []
        for node in binders(function):
            if isinstance(node, (cst.For, cst.AugAssign, cst.AnnAssign)) and element.value in {
                    n.value for n in walk(node.target) if isinstance(n, cst.Name)}:
                return None
            if isinstance(node, cst.Assign) and binds(node, element.value):
                values.append(node.value)
        bounds = [constant_bound(v, function, op_of, number_of) for v in values if not isinstance(v, cst.Name)]
        if not bounds or None in bounds or len({code(b) for b in bounds}) != 1 or len(bounds) != len(values):
            return None
        return bounds[0]
    if isinstance(element, cst.Call) and (op_of(element) or "") == "min":
        args = [a.value for a in element.args if a.keyword is None]
        consts = [a for a in args if number_of(code(a)) is not None]
        return consts[0] if len(args) == 2 and len(consts) == 1 else None
    return None


def runtime_names(function: cst.FunctionDef) -> frozenset[str]:
    """The names a kernel function binds at run time: its scalar parameters (`pl.Scalar[...]`),
    assignment and loop targets. A builder's parameter, a module constant or an imported size is a
    Python number when the program is built, never a runtime extent, whether or not its value is
    known here."""
    return cached("runtime-names", function, _runtime_names)


def _runtime_names(function: cst.FunctionDef) -> frozenset[str]:
    names = {p.name.value for p in function.params.params
             if p.annotation is not None and _names_scalar(p.annotation.annotation)}
    for node in binders(function.body):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        names.update(n.value for t in targets for n in walk(t) if isinstance(n, cst.Name))
    return frozenset(names)


def _names_scalar(annotation: cst.BaseExpression) -> bool:
    """Whether a name or a string of the annotation says `Scalar` (`pl.Scalar[pl.INT32]`): its
    words read off its leaves, not off a print of it, which cost a tenth of a big file's planning."""
    return any(type(n) in LEAVES and "Scalar" in n.value for n in walk(annotation))


def binds(statement: cst.Assign, name: str) -> bool:
    """Does the assignment bind `name` itself (a target that is the plain name)?"""
    return any(isinstance(t.target, cst.Name) and t.target.value == name for t in statement.targets)


def assignments(function: cst.CSTNode, name: str) -> list[cst.Assign]:
    """The plain assignments to `name` anywhere in `function`."""
    return [b for b in binders(function) if isinstance(b, cst.Assign) and binds(b, name)]


_BINDING = (cst.Assign, cst.AnnAssign, cst.AugAssign)


def binders(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The assignments (plain, annotated, augmented) and `for` loops anywhere in `node`: the
    statements that bind a name. Found by walking statements only (expressions hold none), once
    per node and file: the planner asks it of each kernel function, and of each name it bounds."""
    return cached("binders", node, _binders)


def _binders(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.SimpleStatementLine:
            found.extend(small for small in n.body if type(small) in _BINDING)
            continue
        if type(n) is cst.For:
            found.append(n)
        own, nested = own_and_nested(n)
        for suite in own:  # `if c: x = 1`: small statements on the header's line
            if type(suite) is cst.SimpleStatementSuite:
                found.extend(small for small in suite.body if type(small) in _BINDING)
        stack.extend(nested)
    return found
