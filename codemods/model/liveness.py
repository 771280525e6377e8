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

from ..syntax.memo import cached
from ..syntax.nodes import statements
from ..syntax.traversal import own_and_nested, walk


def _names_read(node: cst.CSTNode) -> frozenset[str]:
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


def _names_written(node: cst.CSTNode) -> frozenset[str]:
    own, nested = own_and_nested(node)
    out: set[str] = set()
    for n in own:
        if isinstance(n, cst.Assign):
            for t in n.targets:
                out.update(x.value for x in _target_names(t.target))
        elif isinstance(n, (cst.AnnAssign, cst.AugAssign)):
            out.update(x.value for x in _target_names(n.target))
    return frozenset(out).union(*map(names_written, nested))


def names_read(node: cst.CSTNode) -> frozenset[str]:
    """Every name an expression or simple statement reads (targets of plain assignment excluded)."""
    return cached("names_read", node, _names_read)


def names_written(node: cst.CSTNode) -> frozenset[str]:
    """Names a simple statement (or a for loop's target) binds."""
    return cached("names_written", node, _names_written)


def _target_names(target) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [x for e in target.elements for x in _target_names(e.value)]
    return []


class Liveness:
    """`after[stmt]`: the names live right after each statement of one function body."""

    def __init__(self, body: list, live_out: set[str] | None = None) -> None:
        self.after: dict[cst.CSTNode, set[str]] = {}
        self.before: dict[cst.CSTNode, set[str]] = {}
        self._block(body, set(live_out or ()))

    def live_after(self, statement: cst.CSTNode) -> set[str]:
        return self.after.get(statement, set())

    def live_before(self, statement: cst.CSTNode) -> set[str]:
        return self.before.get(statement, set())

    def _block(self, stmts: list, live: set[str]) -> set[str]:
        for s in reversed(stmts):
            self.after[s] = set(live)
            live = self._statement(s, live)
            self.before[s] = set(live)
        return live

    def _orelse(self, orelse, out: set[str]) -> set[str]:
        if orelse is None:
            return set(out)
        if isinstance(orelse, cst.If):  # elif
            return self._block([orelse], set(out))
        return self._block(statements(orelse), set(out))

    def _statement(self, s, out: set[str]) -> set[str]:
        if isinstance(s, cst.SimpleStatementLine):
            live = set(out)
            for small in reversed(s.body):
                if isinstance(small, cst.Return):
                    live = set()
                live = (live - names_written(small)) | names_read(small)
            return live
        if isinstance(s, (cst.For, cst.While)):
            head_reads = names_read(s.iter) if isinstance(s, cst.For) else names_read(s.test)
            bound = {x.value for x in _target_names(s.target)} if isinstance(s, cst.For) else set()
            exit_live = self._orelse(s.orelse, out)
            head = exit_live | head_reads
            for _ in range(8):  # the fixpoint of structured code is reached in a few rounds
                body_in = self._block(statements(s), head)
                new_head = exit_live | head_reads | (body_in - bound)
                if new_head == head:
                    break
                head = new_head
            return head
        if isinstance(s, cst.If):
            then_in = self._block(statements(s), set(out))
            else_in = self._orelse(s.orelse, out)
            return then_in | else_in | names_read(s.test)
        if isinstance(s, cst.With):
            body_in = self._block(statements(s), set(out))
            return body_in | {n for item in s.items for n in names_read(item.item)}
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            return set(out)
        if isinstance(s, cst.Try):
            live = self._block(statements(s), set(out))
            for h in s.handlers:
                live |= self._block(statements(h), set(out))
            return live
        return set(out) | names_read(s)
