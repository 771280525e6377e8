"""The paths our prints take where LibCST's internals are not what `syntax/codegen.py`
checked them to be (a future LibCST): each guard forced off in turn, every fixture must
migrate to the same output, edits and findings as on the fast path."""

from __future__ import annotations

from functools import cache
from importlib.metadata import version

import libcst as cst
import pytest
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst._nodes.internal import CodegenState

from conftest import FIXTURES
from codemods.migrate.engine import migrate
from codemods.rulebook.loading import load_api, load_rules
from codemods.run.runner import LEFTOVER_ID
from codemods.syntax import codegen, positions

RULES = load_rules()
libcst_version = version("libcst")
KNOWN = frozenset(r.id for r in RULES) | {LEFTOVER_ID}
# Each fixture with the step that migrates it: the 2026-03 kernels and the 2026-08 ones.
CASES = [(p, False) for p in sorted((FIXTURES / "2026-03" / "before").glob("*.py"))] + [
    (p, True) for p in sorted((FIXTURES / "2026-08" / "before").glob("*.py"))[:8]]
GUARDS = {"add_token": ("_APPENDS",), "parenthesize": ("_KNOWN",), "both": ("_APPENDS", "_KNOWN")}


def _run(path, later: bool):
    rules = tuple(r for r in RULES if (r.path.parent.name == "2026-08") == later)
    api = load_api(None, "2026-08" if later else "2026-03")
    result = migrate(path.read_bytes().decode("utf-8"), rules, api, KNOWN)
    return result.output, result.edits, result.findings


@cache
def _fast(path, later: bool):
    if not (codegen._APPENDS and codegen._KNOWN):
        # A LibCST the fast path was not written for: comparing would compare the fallback
        # with itself (the engine's and the fixtures' tests still judge its output).
        pytest.skip(f"LibCST {libcst_version} takes the fallback already")
    return _run(path, later)


@pytest.mark.parametrize("guards", GUARDS)
@pytest.mark.parametrize(("path", "later"), CASES, ids=[f"{'2026-08' if later else '2026-03'}/{p.name}" for p, later in CASES])
def test_a_guard_off_migrates_the_same(path, later, guards, monkeypatch):
    fast = _fast(path, later)
    for name in GUARDS[guards]:
        monkeypatch.setattr(codegen, name, False)
    assert _run(path, later) == fast


def test_with_add_token_off_every_state_writes_through_libcsts_method(monkeypatch):
    # The slot `_Starts` declares for the fast path must not be left empty (issue 28).
    monkeypatch.setattr(codegen, "_APPENDS", False)
    text = "x = (a + b) * c\n"
    module = cst.parse_module(text)
    for kind in (positions._Starts, positions._Texts):
        state = kind(module, set())
        assert state.add_token.__func__ is CodegenState.add_token
    calls = []
    original = CodegenState.add_token
    monkeypatch.setattr(CodegenState, "add_token", lambda self, token: (calls.append(token), original(self, token)))
    code, found = positions.code_and_starts(module, [module.body[0]])
    assert code == text and found == {id(module.body[0]): (1, 1)}
    assert "".join(calls) == text


def test_with_parenthesize_off_libcsts_generator_runs_in_our_prints(monkeypatch):
    monkeypatch.setattr(codegen, "_KNOWN", False)
    module = cst.parse_module("y = f((1, 2))[(i)]\n")
    seen = []
    original = _BaseParenthesizedNode._parenthesize
    monkeypatch.setattr(_BaseParenthesizedNode, "_parenthesize", lambda node, state: (seen.append(node), original(node, state))[1])
    inner = module.body[0].body[0].value.slice[0].slice.value
    code, found = positions.code_and_starts(module, [inner])
    assert code == module.code and found[id(inner)] == (1, 16)
    assert positions.Printed(module).starts([inner]) == found
    assert codegen.code_for_node(inner, module) == "(i)"
    assert inner in seen
