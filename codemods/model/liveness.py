"""Which names are read later: liveness over a function's statements.

Kernel regions may only hand Tensors to the code after them, so the region pass and the
planner both need to know which values a block defines that are still read once it ends.
This is the classic backward analysis over structured Python: a name is live after a
statement when some path from there reads it before writing it; a loop body's end flows
back to its head. Reads are over-approximated (any Name that is not an assignment target
counts), which can only keep a value alive, never lose one.
"""

from __future__ import annotations

import libcst as cst

from ..syntax.memo import memoized
from ..syntax.nodes import statements
from ..syntax.traversal import own_and_nested, walk


@memoized("names_read")
def names_read(node: cst.CSTNode) -> frozenset[str]:
    """Every name an expression or simple statement reads (targets of plain assignment excluded)."""
    own, nested = own_and_nested(node)
    targets: set[int] = set()
    names: list[cst.Name] = []
    for n in own:
        if isinstance(n, cst.Name):
            names.append(n)
        elif isinstance(n, cst.Assign):
            for t in n.targets:
                targets.update(id(x) for x in _target_names(t.target))
        elif isinstance(n, cst.AnnAssign):
            targets.update(id(x) for x in _target_names(n.target))
            targets.update(id(x) for x in walk(n.annotation) if isinstance(x, cst.Name))  # types, not values
        elif isinstance(n, (cst.Attribute,)):
            targets.add(id(n.attr))
        elif isinstance(n, cst.Arg) and n.keyword is not None:
            targets.add(id(n.keyword))
    # What a target excludes is always in the same statement: inner statements answer alone.
    return frozenset(n.value for n in names if id(n) not in targets).union(*map(names_read, nested))


@memoized("names_written")
def names_written(node: cst.CSTNode) -> frozenset[str]:
    """Names a simple statement (or a for loop's target) binds."""
    own, nested = own_and_nested(node)
    out: set[str] = set()
    for n in own:
        if isinstance(n, cst.Assign):
            for t in n.targets:
                out.update(x.value for x in _target_names(t.target))
        elif isinstance(n, (cst.AnnAssign, cst.AugAssign)):
            out.update(x.value for x in _target_names(n.target))
    return frozenset(out).union(*map(names_written, nested))


def _target_names(target) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [x for e in target.elements for x in _target_names(e.value)]
    return []


class Liveness:
    """`after[stmt]`: the names live right after each statement of one function body.

    Sets of names are frozen and shared between statements (a loop's fixpoint revisits its
    body a few times, nested loops more): no statement's set is copied."""

    def __init__(self, body: list, live_out: set[str] | None = None) -> None:
        self.after: dict[cst.CSTNode, frozenset[str]] = {}
        self.before: dict[cst.CSTNode, frozenset[str]] = {}
        self._block(body, frozenset(live_out or ()))

    def live_after(self, statement: cst.CSTNode) -> frozenset[str]:
        return self.after.get(statement, _NONE)

    def live_before(self, statement: cst.CSTNode) -> frozenset[str]:
        return self.before.get(statement, _NONE)

    def _block(self, stmts: list, live: frozenset[str]) -> frozenset[str]:
        for s in reversed(stmts):
            self.after[s] = live
            live = self._statement(s, live)
            self.before[s] = live
        return live

    def _orelse(self, orelse, out: frozenset[str]) -> frozenset[str]:
        if orelse is None:
            return out
        if isinstance(orelse, cst.If):  # elif
            return self._block([orelse], out)
        return self._block(statements(orelse), out)

    def _statement(self, s, out: frozenset[str]) -> frozenset[str]:
        # Dispatched on the exact type (LibCST's node classes are final; `isinstance` on
        # them goes through ABCMeta, and a loop's fixpoint asks this of every statement often).
        kind = type(s)
        if kind is cst.SimpleStatementLine:
            live = out
            for small in reversed(s.body):
                if type(small) is cst.Return:
                    live = _NONE
                live = (live - names_written(small)) | names_read(small)
            return live
        if kind is cst.For or kind is cst.While:
            head_reads = names_read(s.iter) if kind is cst.For else names_read(s.test)
            bound = frozenset(x.value for x in _target_names(s.target)) if kind is cst.For else _NONE
            exit_live = self._orelse(s.orelse, out)
            head = exit_live | head_reads
            for _ in range(8):  # the fixpoint of structured code is reached in a few rounds
                body_in = self._block(statements(s), head)
                new_head = exit_live | head_reads | (body_in - bound)
                if new_head == head:
                    break
                head = new_head
            return head
        if kind is cst.If:
            then_in = self._block(statements(s), out)
            else_in = self._orelse(s.orelse, out)
            return then_in | else_in | names_read(s.test)
        if kind is cst.With:
            body_in = self._block(statements(s), out)
            return body_in.union(*(names_read(item.item) for item in s.items))
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            return out
        if kind is cst.Try:
            live = self._block(statements(s), out)
            for h in s.handlers:
                live |= self._block(statements(h), out)
            return live
        return out | names_read(s)


_NONE: frozenset[str] = frozenset()
