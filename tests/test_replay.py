"""A print that copies the statements a tree shares with a tree printed before must answer
exactly as a print of the whole tree: its code, every node's start, every node's text."""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.syntax.positions import Printed, code_starts_and_texts, standalone
from codemods.syntax.traversal import TRIVIA
from test_traversal import _all, _modules


class _Reshape(cst.CSTTransformer):
    """What a phase does to a tree, in kind: statements rebuilt, moved deeper into a new
    block, moved up out of one, an elif made a statement of its own; the rest shared."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = self.lines = 0
        self.elifs: set[int] = set()  # an elif is no statement of a block: it cannot become two

    def on_visit(self, node):
        # A subtree the traversal does not enter is kept as the same objects, as in the engine.
        if type(node) is cst.SimpleStatementLine:
            self.lines += 1
            if self.lines % 3:
                return False
        return super().on_visit(node)

    def visit_If(self, node):
        if isinstance(node.orelse, cst.If):
            self.elifs.add(id(node.orelse))

    def leave_Name(self, original, updated):
        return updated.with_changes(value="this") if updated.value == "self" else updated

    def leave_IndentedBlock(self, original, updated):
        self.blocks += 1
        body = list(updated.body)
        if self.blocks % 3 == 0 and len(body) >= 2:  # deeper: the tail goes into a new block
            inner = cst.IndentedBlock(body=body[1:], indent="\t" if self.blocks % 2 else None)
            body = [body[0], cst.With(items=[cst.WithItem(cst.Name("wrapped"))], body=inner)]
            return updated.with_changes(body=body)
        return updated

    def leave_If(self, original, updated):
        if id(original) in self.elifs:
            return updated
        if isinstance(updated.orelse, cst.If):  # the elif stands alone, an `if` now
            return cst.FlattenSentinel([updated.with_changes(orelse=None), updated.orelse])
        if updated.orelse is None and isinstance(updated.body, cst.IndentedBlock) and len(updated.body.body) > 1:
            return cst.FlattenSentinel(updated.body.body)  # up: the body replaces the if
        return updated


def _pairs():
    for name, module in _modules():
        yield name, module, module.visit(_Reshape())


@pytest.mark.parametrize("name,old,new", list(_pairs()), ids=lambda v: v if isinstance(v, str) else "")
def test_a_print_that_copies_shared_statements_answers_as_a_whole_print(name, old, new):
    source = Printed(old)
    replayed = Printed(new, source)
    whole = Printed(new)
    assert replayed.code == whole.code == new.code
    assert replayed._state.segments, "nothing was shared: the test proves nothing"
    every = list(_all(new))
    nodes = [n for n in every if type(n) not in TRIVIA]
    assert replayed.starts(nodes) == whole.starts(nodes)
    assert replayed.starts([n for n in every if type(n) in TRIVIA]) == {}
    alone = [n for n in nodes if standalone(type(n)) and n is not new]
    assert replayed.texts(alone) == whole.texts(alone)
    # A third print, copying from the copy: the next phase's output.
    again = new.visit(_Reshape())
    assert Printed(again, replayed).code == again.code
    assert Printed(again, replayed).starts(list(_all(again))) == Printed(again).starts(list(_all(again)))
    code, _, texts = code_starts_and_texts(again, (), alone, replayed)
    assert code == again.code
    assert all(texts[key] == text for key, text in Printed(again).texts(alone).items() if key in texts)


def test_statements_moved_deeper_and_up_are_reindented():
    old = cst.parse_module("def f():\n    a = 1\n    if c:\n        b = 2\n        d = 3\n    e = 4\n")
    new = old.visit(_Reshape())
    printed = Printed(new, Printed(old))
    assert printed.code == new.code
    assert "        b = 2\n" not in printed.code and "    b = 2\n" in printed.code  # the if's body moved up


def test_an_elif_made_a_statement_is_printed_not_copied():
    old = cst.parse_module("if a:\n    x = 1\nelif b:\n    y = 2\n")
    first = old.body[0]
    new = old.with_changes(body=[first.with_changes(orelse=None), first.orelse])  # the same elif object
    printed = Printed(new, Printed(old))
    assert printed.code == new.code == "if a:\n    x = 1\nif b:\n    y = 2\n"
    assert len(printed._state.segments) == 2  # the two bodies, not the elif


def test_a_statement_held_twice_is_printed_not_copied():
    old = cst.parse_module("x = 1\ny = 2\n")
    new = old.with_changes(body=[*old.body, old.body[0]])
    printed = Printed(new, Printed(old))
    assert printed.code == new.code == "x = 1\ny = 2\nx = 1\n"
    assert not getattr(printed._state, "segments", None)
    assert printed.starts([old.body[0]]) == Printed(new).starts([old.body[0]])


def test_another_indentation_or_newline_is_printed_not_copied():
    old = cst.parse_module("def f():\n    x = 1\n")
    new = old.with_changes(default_indent="\t", default_newline="\r\n")
    printed = Printed(new, Printed(old))
    assert printed.code == new.code
    assert not getattr(printed._state, "segments", None)


@pytest.mark.parametrize("name,old,new", list(_pairs()), ids=lambda v: v if isinstance(v, str) else "")
def test_the_parents_of_a_tree_made_from_another_are_its_own(name, old, new):
    """`made_from`: the parent map of a phase's output is its input's with the new nodes
    walked; what it says of the output's nodes is what a walk of the output says."""
    from codemods.syntax.memo import per_file
    from codemods.syntax.traversal import _parents, ancestors, made_from, parents, walk

    every = [n for n in walk(new) if n is not new]
    wanted = {id(n) for n in every[::7]}
    fresh = _parents(new)
    with per_file():
        parents(old)
        made_from(new, old)
        derived = parents(new)
        found = ancestors(new, wanted)
    assert derived is not fresh and len(derived) > len(fresh)  # the old map was the start
    ids = {id(n) for n in walk(new)}
    assert {k for k in derived if k in ids} == fresh.keys()
    # Besides its parents in the output, a shared node keeps old ones, none of them in the output.
    assert all(set(fresh[k]) <= set(derived[k]) and (set(derived[k]) - set(fresh[k])).isdisjoint(ids) for k in fresh)
    assert found & ids == _ancestors_by_walk(new, wanted)


def _ancestors_by_walk(root, wanted):
    from codemods.syntax.traversal import content

    found, path = set(), []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        del path[depth:]
        if id(node) in wanted:
            found.update(path)
        path.append(id(node))
        stack.extend((child, depth + 1) for child in reversed(content(node)))
    return found
