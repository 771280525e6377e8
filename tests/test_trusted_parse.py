"""`syntax.trusted.parse_module`: LibCST's parse without LibCST's check of each node it makes
from the code it accepted. The same tree and the same errors as `libcst.parse_module`, and
LibCST's check back in place after, whether the parse succeeded or not."""

from __future__ import annotations

import threading

import libcst as cst
import pytest

from conftest import FIXTURES
from codemods.syntax import trusted

SOURCES = sorted(FIXTURES.rglob("*.py"))[::9]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_the_tree_is_libcsts(path):
    text = path.read_text(encoding="utf-8")
    try:
        expected = cst.parse_module(text)
    except cst.ParserSyntaxError:
        with pytest.raises(cst.ParserSyntaxError):
            trusted.parse_module(text)
        return
    tree = trusted.parse_module(text)
    assert tree.deep_equals(expected) and tree.code == text
    assert cst.CSTNode.__post_init__ is trusted._LIBCSTS


def test_nodes_made_after_a_parse_are_checked_again():
    trusted.parse_module("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("not whitespace")
    with pytest.raises(cst.ParserSyntaxError):
        trusted.parse_module("x = (\n")
    assert cst.CSTNode.__post_init__ is trusted._LIBCSTS
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("not whitespace")


def test_the_parser_checks_nothing_while_it_runs(monkeypatch):
    # What the parse skips: the check each node makes as it is built (counted here by a stand-in).
    made = []
    monkeypatch.setattr(cst.CSTNode, "__post_init__", lambda self: made.append(self) or self._validate())
    monkeypatch.setattr(trusted, "_LIBCSTS", cst.CSTNode.__dict__["__post_init__"])
    cst.parse_module("x = f(a, b)\n")
    checked = len(made)
    assert checked > 5
    trusted.parse_module("x = f(a, b)\n")
    assert len(made) == checked


def test_with_another_thread_alive_the_parse_is_libcsts_own(monkeypatch):
    made = []
    monkeypatch.setattr(cst.CSTNode, "__post_init__", lambda self: made.append(self) or self._validate())
    monkeypatch.setattr(trusted, "_LIBCSTS", cst.CSTNode.__dict__["__post_init__"])
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        trusted.parse_module("x = f(a, b)\n")
    finally:
        stop.set()
        other.join()
    assert len(made) > 5
