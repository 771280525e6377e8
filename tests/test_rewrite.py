"""`rewrite` stands in for LibCST's `tree.visit(transformer)`: the same hooks, called for the
same nodes in the same order with the same results, and a tree that prints the same; but a
subtree no hook changed is kept as the very same objects."""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.syntax.rewrite import rewrite
from codemods.syntax.traversal import STATEMENT_TYPES
from test_traversal import _modules


class _Edits(cst.CSTTransformer):
    """A transformer of every kind of change a rule makes: a node replaced, a call's argument
    dropped, an optional part (a return's value, a comma) removed, statements removed and inserted (the
    inserted ones fresh nodes, as the engine's are), and a traversal that skips subtrees. It
    logs each hook call, by the identity of the original node and the code of the updated one."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, str, str]] = []
        self.order: dict[int, int] = {}  # id of an original node -> when it was visited
        self.seen = 0
        self.open: list[type] = []  # the types of the nodes being visited, outermost first

    def _key(self, node) -> str:
        return f"{type(node).__name__}#{self.order.setdefault(id(node), len(self.order))}"

    def on_visit(self, node):
        self.log.append(("visit", self._key(node), ""))
        self.open.append(type(node))
        self.seen += 1
        return not (type(node) is cst.SimpleStatementLine and self.seen % 5 == 0)

    def on_leave(self, original, updated):
        self.log.append(("leave", self._key(original), cst.Module([]).code_for_node(updated)
                         if isinstance(updated, cst.BaseStatement) else ""))
        result = super().on_leave(original, updated)
        self.open.pop()
        return result

    def leave_Name(self, original, updated):
        return updated.with_changes(value="renamed") if updated.value in ("self", "x", "pl") else updated

    def leave_Call(self, original, updated):
        if len(updated.args) > 1 and updated.args[-1].keyword is not None:
            return updated.with_changes(args=updated.args[:-1])  # a keyword dropped
        return updated

    def leave_Arg(self, original, updated):
        if updated.keyword is not None and updated.keyword.value == "dtype":
            return cst.RemovalSentinel.REMOVE
        return updated

    def leave_Return(self, original, updated):
        return updated.with_changes(value=None) if updated.value is not None and self.seen % 2 else updated

    def leave_SimpleStatementLine(self, original, updated):
        self.seen += 1
        if self.seen % 7 == 0:
            return cst.RemovalSentinel.REMOVE
        if self.seen % 11 == 0:
            return cst.FlattenSentinel([cst.parse_statement("inserted = 1\n"), updated])
        return updated

    def leave_Comma(self, original, updated):
        # An optional part gone: LibCST's default comma is printed in its place.
        self.seen += 1
        optional = self.open[-2] in (cst.Arg, cst.Element)
        return cst.RemovalSentinel.REMOVE if optional and self.seen % 3 == 0 else updated

    def leave_Pass(self, original, updated):
        return cst.RemovalSentinel.REMOVE  # its line, now empty, is dropped from the block


KERNEL = '''
import pypto.language as pl

@pl.function
def k(x: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
    t = pl.load(x, [0, 0], [8, 16], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
    for i in pl.range(4):
        t = pl.add(t, t)
        pass
    return pl.store(t, [0, 0], out)
'''


def _trees():
    yield "kernel", cst.parse_module(KERNEL)
    yield from _modules()


@pytest.mark.parametrize("name,module", list(_trees()), ids=lambda v: v if isinstance(v, str) else "")
def test_same_hooks_same_tree(name, module):
    theirs, ours = _Edits(), _Edits()
    expected = module.visit(theirs)
    got = rewrite(module, ours)
    assert ours.log == theirs.log  # every hook, in order, for the same nodes, with the same results
    assert got.code == expected.code
    assert got.deep_equals(expected)


def _nodes(tree) -> list:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


def test_unchanged_subtrees_are_shared():
    module = cst.parse_module(KERNEL)
    got = rewrite(module, _Edits())
    before = {id(n) for n in _nodes(module)}
    kept = [n for n in _nodes(got) if id(n) in before]
    # The import is untouched: the statement is the input's own object, with all below it.
    assert got.body[0] is module.body[0]
    # The loop's header (`pl.range(4)` is renamed, `i` kept) shares what did not change.
    loop = next(s for s in _nodes(got) if type(s) is cst.For)
    old_loop = next(s for s in _nodes(module) if type(s) is cst.For)
    assert loop is not old_loop and loop.target is old_loop.target
    assert any(type(n) in STATEMENT_TYPES for n in kept)


def test_no_change_is_the_same_tree():
    module = cst.parse_module(KERNEL)
    assert rewrite(module, cst.CSTTransformer()) is module


def test_a_removed_module_is_empty():
    class Gone(cst.CSTTransformer):
        def leave_Module(self, original, updated):
            return cst.RemovalSentinel.REMOVE

    module = cst.parse_module("x = 1\n")
    assert rewrite(module, Gone()).deep_equals(module.visit(Gone()))


def test_removing_a_required_child_fails_as_in_libcst():
    class Bad(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return cst.RemovalSentinel.REMOVE

    module = cst.parse_module("x.y = 1\n")
    with pytest.raises(TypeError):
        module.visit(Bad())
    with pytest.raises(TypeError):
        rewrite(module, Bad())


def test_the_engine_has_no_attribute_hooks():
    # `rewrite` calls no `on_visit_attribute`: the engine's transformer must need none (LibCST's
    # base class defines every attribute hook, doing nothing).
    import re

    from codemods.migrate.engine import _Dispatcher

    hooks = [name for name in dir(_Dispatcher) if re.match(r"^(visit|leave)_[A-Z]\w*_\w+$", name)]
    assert hooks and all(getattr(_Dispatcher, name) is getattr(cst.CSTTransformer, name) for name in hooks)
    assert _Dispatcher.on_visit_attribute is cst.CSTTransformer.on_visit_attribute
    assert _Dispatcher.on_leave_attribute is cst.CSTTransformer.on_leave_attribute
