"""Small facts about LibCST trees that every analysis needs."""

from __future__ import annotations

import libcst as cst

from .codegen import code_for_node
from .memo import cached
from .traversal import LEAVES

_EMPTY = cst.Module([])


def code(node: cst.CSTNode) -> str:
    """The source text of a node, as written (kept for the file: the planner, the region
    pass and the strict check spell the same sizes and names of the same trees again)."""
    if type(node) in LEAVES and not node.lpar and not node.rpar:
        return node.value  # what its code generation would write: most sizes are names and numbers
    return cached("code", node, _alone)


def _alone(node: cst.CSTNode) -> str:
    return code_for_node(node, _EMPTY)


def statements(node) -> list:
    """The statements of a compound statement's (or a module's, or an else's) body."""
    body = getattr(node, "body", None)
    kind = type(body)  # exact types (LibCST's classes are final): no ABCMeta
    if kind is cst.IndentedBlock:
        return list(body.body)
    if isinstance(body, (list, tuple)):
        return list(body)
    if kind is cst.SimpleStatementSuite:  # `if x: y = 1` on one line
        return [cst.SimpleStatementLine(body=body.body)]
    return []


def codes(node) -> tuple[str, ...] | None:
    """The elements of a list or tuple literal as source text: `[B, K]` -> ("B", "K")."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return tuple(code(e.value) for e in node.elements)
    return None


def is_name(node, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def attr_name(node) -> str | None:
    """`FP32` of `pl.FP32`, `Vec` of `pl.MemorySpace.Vec`."""
    return node.attr.value if isinstance(node, cst.Attribute) else None


def is_window(node) -> bool:
    """A subscript with a slice in it (`x[b:b + 4, :]`): a window, as `pl.slice` is."""
    return type(node) is cst.Subscript and any(type(e.slice) is cst.Slice for e in node.slice)
