"""A transformer pass that rebuilds only the nodes on the path to a change.

`tree.visit(transformer)` makes a new copy of every node whose children it enters, changed or
not, and calls two attribute hooks per field. The copies cost a constructor and LibCST's
validation each, and a subtree it entered that no hook changed comes out as new objects,
which the output's print, parent map and op index then take for new. `rewrite` calls the transformer's `on_visit` and `on_leave` for the same
nodes in the same order as LibCST's `visit` does, with the same results for every hook; only a
node whose children changed is built again, and a node nobody changed is handed to `on_leave`
as itself.

Field order is LibCST's own (`traversal.layout`). A node type that visits a field only
sometimes is handed to LibCST's `visit` whenever that field is set.
"""

from __future__ import annotations

import typing
from functools import lru_cache

import libcst as cst
from libcst import FlattenSentinel, MaybeSentinel, RemovalSentinel

from .traversal import NODE_TYPES, holds_nodes_in, layout

# The fields LibCST visits as a block's statements (`visit_body_sequence`): a statement that
# held something and now holds nothing is dropped, as there.
_BODIES = frozenset({(cst.Module, "body"), (cst.IndentedBlock, "body")})


def rewrite(tree: cst.Module, transformer: cst.CSTTransformer) -> cst.Module:
    """`tree.visit(transformer)`, sharing every subtree no hook changed with `tree`. The
    transformer's own hooks are `on_visit` and `on_leave` (no per-attribute hooks)."""
    result = _visit(tree, transformer)
    if isinstance(result, RemovalSentinel):
        return tree.with_changes(body=(), header=(), footer=())
    return result


def _visit(node, transformer):
    fields = layout(node)
    if fields.maybe and holds_nodes_in(node, fields.maybe):
        return node.visit(transformer)  # a field visited only when set: LibCST knows its order
    updated = node
    if transformer.on_visit(node):
        changes = None
        for name in fields.fields:
            value = getattr(node, name)
            if value is None or value is MaybeSentinel.DEFAULT:
                continue
            kind = type(value)
            if kind is tuple or kind is list:
                new = _sequence(node, name, value, transformer)
            else:
                new = _visit(value, transformer)
                if new is not value and not isinstance(new, cst.CSTNode):
                    new = _single_removed(type(node), name, new)
            if new is not value:
                if changes is None:
                    changes = {}
                changes[name] = new
        if changes:
            updated = node.with_changes(**changes)
    result = transformer.on_leave(node, updated)
    # Exact types first: `isinstance` against LibCST's CSTNode, for a sentinel, makes ABCMeta ask
    # each of its few hundred classes.
    if result is not updated and type(result) not in NODE_TYPES and not isinstance(result, (RemovalSentinel, FlattenSentinel)):
        raise cst.CSTValidationError(
            f"Expected a node of type CSTNode or a RemovalSentinel, but got a return value of {type(result).__name__}"
        )
    return result


def _sequence(parent, name: str, children, transformer):
    """The children again, the same object when none changed; else a tuple, sentinels
    applied as LibCST's `visit_sequence` and `visit_body_sequence` apply them."""
    out = None
    body = (type(parent), name) in _BODIES
    for at, child in enumerate(children):
        new = _visit(child, transformer)
        if new is child and out is None:
            continue
        if out is None:
            out = list(children[:at])
        if isinstance(new, RemovalSentinel):
            continue
        if isinstance(new, FlattenSentinel):
            for part in new:
                if not (body and not child._is_removable() and part._is_removable()):
                    out.append(part)
        elif not (body and not child._is_removable() and new._is_removable()):
            out.append(new)
    return children if out is None else tuple(out)


def _single_removed(kind: type, name: str, result):
    """What LibCST's visit puts in a field of one node whose hook removed or flattened it."""
    allowed = _field_kinds(kind).get(name, ())
    if isinstance(result, RemovalSentinel):
        if MaybeSentinel in allowed:
            return MaybeSentinel.DEFAULT
        if type(None) in allowed:
            return None
    raise TypeError(f"We got a {type(result).__name__} while visiting {kind.__name__}.{name}, which does not allow it.")


@lru_cache(maxsize=None)
def _field_kinds(kind: type) -> dict[str, tuple]:
    return {name: typing.get_args(hint) for name, hint in typing.get_type_hints(kind).items()}
