"""Liveness: the gen/kill closed form of a loop's head against plain iteration to a fixpoint.

The region pass and the planner decide what a kernel hands over from what is live after its
statements; `Liveness` finds a loop's head in one step instead of revisiting the body. The
oracle below is the textbook iteration, run on hand-made cases and on every function of the
shipped fixtures: both must give every statement the same sets."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import libcst as cst
import pytest

from codemods.model.liveness import Liveness, _target_names, names_read, names_written
from codemods.syntax.memo import per_file
from codemods.syntax.nodes import statements

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


class Iterated:
    """Liveness by iteration: a loop's body is revisited until its head stops growing."""

    def __init__(self, body) -> None:
        self.after, self.before = {}, {}
        self._block(body, frozenset())

    def _block(self, stmts, live):
        for s in reversed(stmts):
            self.after[s] = live
            live = self._statement(s, live)
            self.before[s] = live
        return live

    def _orelse(self, orelse, out):
        if orelse is None:
            return out
        return self._block([orelse] if isinstance(orelse, cst.If) else statements(orelse), out)

    def _statement(self, s, out):
        if isinstance(s, cst.SimpleStatementLine):
            live = out
            for small in reversed(s.body):
                if isinstance(small, cst.Return):
                    live = frozenset()
                live = (live - names_written(small)) | names_read(small)
            return live
        if isinstance(s, (cst.For, cst.While)):
            reads = names_read(s.iter) if isinstance(s, cst.For) else names_read(s.test)
            bound = frozenset(x.value for x in _target_names(s.target)) if isinstance(s, cst.For) else frozenset()
            exit_live = self._orelse(s.orelse, out)
            head = exit_live | reads
            while True:
                new_head = exit_live | reads | (self._block(statements(s), head) - bound)
                if new_head == head:
                    return head
                head = new_head
        if isinstance(s, cst.If):
            return self._block(statements(s), out) | self._orelse(s.orelse, out) | names_read(s.test)
        if isinstance(s, cst.With):
            return self._block(statements(s), out).union(*(names_read(i.item) for i in s.items))
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            return out
        if isinstance(s, cst.Try):
            live = self._block(statements(s), out)
            for h in s.handlers:
                live |= self._block(statements(h), out)
            return live
        return out | names_read(s)


def _functions(module: cst.Module) -> list[cst.FunctionDef]:
    found, stack = [], list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.FunctionDef):
            found.append(node)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.With, cst.Try)):
            stack.extend(statements(node))
    return found


def _same(function: cst.FunctionDef) -> None:
    with per_file():
        fast, slow = Liveness(statements(function)), Iterated(statements(function))
        assert fast.after == slow.after
        assert fast.before == slow.before


def _only(source: str) -> cst.FunctionDef:
    return _functions(cst.parse_module(dedent(source)))[0]


def test_a_value_carried_round_a_loop_is_live_at_its_head():
    f = _only("""
        def k(n, x):
            acc = 0
            for i in range(n):
                y = acc + x
                acc = y
            return acc
    """)
    live = Liveness(statements(f))
    loop = statements(f)[1]
    assert {"acc", "x", "n"} <= live.live_before(loop)
    assert "y" not in live.live_before(loop)  # written before it is read on every turn
    _same(f)


def test_nested_loops_a_return_and_a_join():
    f = _only("""
        def k(a, b, c, n):
            t = a
            for i in range(n):
                for j in range(n):
                    while c:
                        if b:
                            t = t + j
                            continue
                        else:
                            return t
                    c = c - 1
            return c
    """)
    inner = statements(statements(statements(f)[1])[0])[0]
    live = Liveness(statements(f))
    assert {"t", "b", "c", "j"} <= live.live_before(inner)
    _same(f)


def test_a_return_kills_what_follows():
    f = _only("""
        def k(a, b, n):
            for i in range(n):
                x = a
                return b
                y = x
            return a
    """)
    live = Liveness(statements(f))
    first, ret, _ = statements(statements(f)[0])
    assert live.live_before(ret) == frozenset({"b"})  # `y = x` after it is never reached
    assert live.live_before(first) == frozenset({"a", "b"})
    assert live.live_before(statements(f)[0]) == frozenset({"a", "b", "n", "range"})
    _same(f)


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.py")), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_function(path):
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    for function in _functions(module):
        _same(function)
