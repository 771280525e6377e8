"""What a kernel hands back to the code that runs it.

c39fe714a outlines each kernel into an InCore function and looks for that function's return
statement (ConvertTensorToTileOps: "InCore function has no return statement", an internal
error with no line). Measured there:
- a function of type InCore without a `return` is refused, whatever it stores (pypto of
  2026-08 accepts one; AIC and AIV functions, the halves of a cross-core kernel, may end
  without one at c39 too);
- a `pl.incore()` block is refused when it hands nothing back: it stores into no Tensor, binds
  no name the code around it had bound, and binds no name read after it. A block that stores
  into a Tensor (its result assigned or not) or assigns a value read later is accepted,
  even when the function never returns that Tensor.

Both answers are cautious: where a block does something they cannot see through (calls a
helper, binds through an attribute, defines a function), it is taken to hand something back.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..syntax.nodes import statements
from ..syntax.traversal import content, walk

# What the strict check's findings about it say (the compiler's own words), so that a later
# step whose compiler takes such a kernel can drop them.
NO_RETURN = "no return statement"

# Ops that write memory: a block that calls one hands its Tensor back.
_WRITES = frozenset({"store", "assemble", "setval", "store_scalar", "write"})
# Statements whose bindings the check does not follow: a block holding one is left alone.
_OPAQUE = frozenset({
    cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.Try, cst.TryStar,
    cst.Match, cst.Del, cst.Return, cst.Raise, cst.NamedExpr, cst.Lambda, cst.Yield, cst.Await, cst.ListComp,
    cst.SetComp, cst.DictComp, cst.GeneratorExp,
})


def lacks_return(func: cst.FunctionDef) -> bool:
    """No `return` anywhere in the function's own body (nested functions not counted)."""
    stack: list[cst.CSTNode] = list(statements(func))
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Return:
            return False
        if kind in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        stack.extend(content(node))
    return True


def hands_nothing_back(func: cst.FunctionDef, block: cst.With, ops: dict[cst.CSTNode, str],
                       known: Callable[[str], bool]) -> bool:
    """Whether a `pl.incore()` block of `func` gives its outlined kernel nothing to return
    (`known`: whether the target has an op; one it does not have may write memory)."""
    bound = _bound(block, ops, known)
    if bound is None:
        return False
    if not bound:
        return True
    return not _mentioned_outside(func, block, bound)


def _bound(block: cst.With, ops: dict[cst.CSTNode, str], known: Callable[[str], bool]) -> set[str] | None:
    """The names the block binds; None: it writes memory, or does what is not followed."""
    names: set[str] = set()
    for node in walk(block):
        if node is block:
            continue
        kind = type(node)  # exact types: LibCST's node classes are final (no ABCMeta)
        if kind in _OPAQUE:
            return None
        if kind is cst.Call:
            op = ops.get(node)
            if op is None or not known(op) or op.rpartition(".")[2] in _WRITES:
                return None  # a helper's call, an op the table does not know, a store: it may hand a Tensor back
        elif kind is cst.Assign:
            for target in node.targets:
                if not _names(target.target, names):
                    return None
        elif kind in (cst.AnnAssign, cst.AugAssign, cst.For):
            if not _names(node.target, names):
                return None
        elif kind is cst.With and node is not block:
            if any(item.asname is not None for item in node.items):
                return None
    return names


def _names(target, into: set[str]) -> bool:
    """Add a target's names; False where it binds through an attribute or a subscript."""
    kind = type(target)
    if kind is cst.Name:
        into.add(target.value)
        return True
    if kind in (cst.Tuple, cst.List):
        return all(_names(e.value, into) for e in target.elements if type(e) is cst.Element)
    return False


def _mentioned_outside(func: cst.FunctionDef, block: cst.With, names: set[str]) -> bool:
    """Whether the function mentions one of `names` outside the block: as a parameter, or bound
    or read anywhere else (before the block, after it, in a loop around it)."""
    stack: list[cst.CSTNode] = [func]
    while stack:
        node = stack.pop()
        if node is block:
            continue
        if type(node) is cst.Name and node.value in names:
            return True
        stack.extend(content(node))
    return False
