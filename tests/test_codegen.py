"""Our prints open LibCST's parentheses with a class: only while they run, and with LibCST's
own results for every state (ours record starts directly; any other gets its context)."""

from __future__ import annotations

import threading

import libcst as cst
import pytest
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.syntax import codegen
from codemods.syntax.codegen import CodegenError, code_for_node, light_parentheses
from codemods.syntax.positions import Printed, code_and_starts
from test_traversal import EXTRA, _all as _walk

SOURCE = """\
x = ((a + b)) * (c)
y = f((1, 2), [(k)], {(v): (w)})[(i)]
if (n := len(x)) > (0):
    z = (lambda q: (q))(  # comment
        (y)
    )
"""


def _current():
    return _BaseParenthesizedNode.__dict__["_parenthesize"]


def test_the_class_stands_in_only_inside_the_block():
    libcsts = _current()
    with light_parentheses():
        assert _current() is not libcsts
    assert _current() is libcsts


def test_an_inner_block_leaves_the_outer_ones_class_in_place():
    with light_parentheses():
        ours = _current()
        with light_parentheses():
            pass
        assert _current() is ours
    assert _current() is codegen._LIBCSTS


def test_an_error_inside_puts_libcsts_back():
    with pytest.raises(ZeroDivisionError), light_parentheses():
        1 / 0
    assert _current() is codegen._LIBCSTS


def test_a_parenthesize_it_does_not_know_is_left_alone(monkeypatch):
    monkeypatch.setattr(codegen, "_KNOWN", False)
    with light_parentheses():
        assert _current() is codegen._LIBCSTS


def test_libcsts_own_states_get_the_same_code_and_positions_inside():
    module = cst.parse_module(SOURCE)
    outside = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    with light_parentheses():
        assert module.code == SOURCE
        inside = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        assert module.code_for_node(module.body[1]) == "y = f((1, 2), [(k)], {(v): (w)})[(i)]\n"
    assert dict(inside) == dict(outside)


def test_our_prints_place_a_parenthesized_node_inside_its_parentheses():
    module = cst.parse_module(SOURCE)
    nodes = [n for n in _walk(module) if isinstance(n, _BaseParenthesizedNode) and n.lpar]
    assert len(nodes) >= 10
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    text, found = code_and_starts(module, nodes)
    printed = Printed(module).starts(nodes)
    assert text == SOURCE
    for node in nodes:
        start = theirs[node].start
        assert found[id(node)] == printed[id(node)] == (start.line, start.column + 1), cst.Module([]).code_for_node(node)


def test_a_print_in_another_thread_is_served_while_one_runs():
    module = cst.parse_module(SOURCE * 50)
    texts = []
    worker = threading.Thread(target=lambda: texts.extend(module.code for _ in range(20)))
    with light_parentheses():
        worker.start()
        for _ in range(20):
            texts.append(Printed(module).code)
    worker.join()
    assert set(texts) == {SOURCE * 50} and len(texts) == 40
    assert _current() is codegen._LIBCSTS


@pytest.mark.parametrize("source", [SOURCE, EXTRA, "if x:\r\n\tdef f(a = (1)):\r\n\t\treturn (a)\r\n"])
def test_a_node_alone_is_printed_as_code_for_node_prints_it(source):
    module = cst.parse_module(source)
    nodes = list(_walk(module))
    assert len(nodes) > 40
    for node in nodes:
        try:
            theirs = module.code_for_node(node)
        except CodegenError:  # a node that prints only inside its parent
            with pytest.raises(CodegenError):
                code_for_node(node, module)
            continue
        assert code_for_node(node, module) == theirs, type(node).__name__
    assert _current() is codegen._LIBCSTS



def test_tokens_go_straight_to_the_list_while_add_token_only_appends(monkeypatch):
    module = cst.parse_module(EXTRA)
    code, _ = code_and_starts(module, [])
    assert code == module.code
    assert codegen._APPENDS  # the installed LibCST's add_token: a changed one turns the shortcut off
    state = codegen._Plain(default_indent="    ", default_newline="\n")
    codegen.direct_tokens(state)
    assert state.add_token == state.tokens.append
    monkeypatch.setattr(codegen, "_APPENDS", False)
    other = codegen._Plain(default_indent="    ", default_newline="\n")
    codegen.direct_tokens(other)
    assert other.add_token != other.tokens.append
    assert code_for_node(module.body[0], module) == module.code_for_node(module.body[0])
