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
        # Exact types: LibCST's node classes are final, and `isinstance` on them goes through
        # ABCMeta (this runs for every node of every statement).
        kind = type(n)
        if kind is cst.Name:
            names.append(n)
        elif kind is cst.Assign:
            for t in n.targets:
                targets.update(id(x) for x in _target_names(t.target))
        elif kind is cst.AnnAssign:
            targets.update(id(x) for x in _target_names(n.target))
            targets.update(id(x) for x in walk(n.annotation) if type(x) is cst.Name)  # types, not values
        elif kind is cst.Attribute:
            targets.add(id(n.attr))
        elif kind is cst.Arg and n.keyword is not None:
            targets.add(id(n.keyword))
    # What a target excludes is always in the same statement: inner statements answer alone.
    return frozenset(n.value for n in names if id(n) not in targets).union(*map(names_read, nested))


@memoized("names_written")
def names_written(node: cst.CSTNode) -> frozenset[str]:
    """Names a simple statement (or a for loop's target) binds."""
    own, nested = own_and_nested(node)
    out: set[str] = set()
    for n in own:
        kind = type(n)
        if kind is cst.Assign:
            for t in n.targets:
                out.update(x.value for x in _target_names(t.target))
        elif kind is cst.AnnAssign or kind is cst.AugAssign:
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

    Liveness is a gen/kill problem: what a statement does to the names live after it is
    `gen | (live - kill)`, and so is what a block of them does. A loop's head is then found
    in one step (`exit | test reads | (gen(body) - loop target)`: the least fixpoint, which
    iterating over the body reached only after revisiting it, twice per level of nesting),
    and each statement is visited once. The statements' gen/kill pairs are kept per node for
    the file: the trees of a file's phases share most statements. Sets are frozen and shared
    between statements: none is copied."""

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
        # them goes through ABCMeta).
        kind = type(s)
        if kind is cst.For or kind is cst.While:
            exit_live = self._orelse(s.orelse, out)
            gen, _ = _block_effect(statements(s))
            head = exit_live | _head_reads(s) | (gen - _loop_bound(s))
            self._block(statements(s), head)
            return head
        if kind is cst.If:
            then_in = self._block(statements(s), out)
            else_in = self._orelse(s.orelse, out)
            return then_in | else_in | names_read(s.test)
        if kind is cst.With:
            body_in = self._block(statements(s), out)
            return body_in.union(*(names_read(item.item) for item in s.items))
        if kind is cst.Try:
            live = self._block(statements(s), out)
            for h in s.handlers:
                live |= self._block(statements(h), out)
            return live
        return _apply(_effect(s), out)


# What a statement (or block) does to the names live after it: (gen, kill); a kill of None
# is every name (a `return`: nothing after it is read).
Effect = tuple[frozenset, "frozenset | None"]


def _apply(effect: Effect, live: frozenset[str]) -> frozenset[str]:
    gen, kill = effect
    if kill is None:
        return gen
    return gen | (live - kill) if kill else gen | live


def _then(first: Effect, second: Effect) -> Effect:
    """The effect of `first` followed by `second` (applied to what is live after both)."""
    (gen_a, kill_a), (gen_b, kill_b) = first, second
    gen = gen_a if kill_a is None else gen_a | (gen_b - kill_a)
    kill = None if kill_a is None or kill_b is None else kill_a | kill_b
    return gen, kill


def _either(a: Effect, b: Effect) -> Effect:
    """Two paths that join: read on either, killed only where both kill."""
    kill = b[1] if a[1] is None else a[1] if b[1] is None else a[1] & b[1]
    return a[0] | b[0], kill


_IDENTITY: Effect = (frozenset(), frozenset())


def _block_effect(stmts) -> Effect:
    effect = _IDENTITY
    for s in reversed(stmts):
        effect = _then(_effect(s), effect)
    return effect


def _orelse_effect(orelse) -> Effect:
    if orelse is None:
        return _IDENTITY
    return _block_effect([orelse] if isinstance(orelse, cst.If) else statements(orelse))


def _head_reads(loop) -> frozenset[str]:
    return names_read(loop.iter) if type(loop) is cst.For else names_read(loop.test)


def _loop_bound(loop) -> frozenset[str]:
    return frozenset(x.value for x in _target_names(loop.target)) if type(loop) is cst.For else _NONE


@memoized("liveness-effect")
def _effect(s) -> Effect:
    kind = type(s)
    if kind is cst.SimpleStatementLine:
        effect = _IDENTITY
        for small in reversed(s.body):
            if type(small) is cst.Return:
                effect = (_NONE, None)  # nothing after a return is read
            effect = _then((names_read(small), names_written(small)), effect)
        return effect
    if kind is cst.For or kind is cst.While:
        exit_effect = _orelse_effect(s.orelse)
        gen = _head_reads(s) | (_block_effect(statements(s))[0] - _loop_bound(s))
        return exit_effect[0] | gen, exit_effect[1]
    if kind is cst.If:
        both = _either(_block_effect(statements(s)), _orelse_effect(s.orelse))
        return both[0] | names_read(s.test), both[1]
    if kind is cst.With:
        gen, kill = _block_effect(statements(s))
        return gen.union(*(names_read(item.item) for item in s.items)), kill
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return _IDENTITY
    if kind is cst.Try:
        effect = _block_effect(statements(s))
        for h in s.handlers:
            effect = _either(effect, _block_effect(statements(h)))
        return effect
    return names_read(s), frozenset()


_NONE: frozenset[str] = frozenset()
