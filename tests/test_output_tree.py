"""The engine reads the findings (and runs its re-check) off the tree its last phase built,
not off a second LibCST parse of the output: that tree must be the one the parse would give.

Rules build nodes with `with_changes` and from templates; printed and parsed again, the
only difference allowed is the kind of a whitespace node (a template's `SimpleWhitespace`
holding a line break is a `ParenthesizedWhitespace` once parsed), which no analysis reads.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from codemods.migrate import engine
from codemods.rulebook.loading import load_rules
from codemods.run.runner import Job, migrate_text
from conftest import FIXTURES

SOURCES = sorted({*FIXTURES.glob("before/*.py"), *FIXTURES.glob("upgrade/before/*.py"), *FIXTURES.glob("2026-08/before/*.py")})


def difference(built, parsed, path: str = "module") -> str | None:
    """Where two trees differ other than in a whitespace node's kind; None: nowhere."""
    if isinstance(built, cst.BaseParenthesizableWhitespace) and isinstance(parsed, cst.BaseParenthesizableWhitespace):
        return None  # the module's code, compared whole, holds what they print
    if isinstance(built, (list, tuple)) and isinstance(parsed, (list, tuple)):
        if len(built) != len(parsed):
            return f"{path}: {len(built)} vs {len(parsed)} items"
        return next((d for i, (a, b) in enumerate(zip(built, parsed)) if (d := difference(a, b, f"{path}[{i}]"))), None)
    if type(built) is not type(parsed):
        return f"{path}: {type(built).__name__} vs {type(parsed).__name__}"
    if isinstance(built, cst.CSTNode):
        fields = built.__dataclass_fields__
        return next((d for f in fields if (d := difference(getattr(built, f), getattr(parsed, f), f"{path}.{f}"))), None)
    return None if built == parsed else f"{path}: {built!r} vs {parsed!r}"


@pytest.mark.parametrize("target", ["2026-03", "2026-08"])
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_the_output_tree_is_the_parse_of_the_output(monkeypatch, source: Path, target: str):
    seen = []
    original = engine._output_tree

    def recording(done):
        tree = original(done)
        if tree is not None:
            seen.append((tree, done.output))
        return tree

    monkeypatch.setattr(engine, "_output_tree", recording)
    rules = load_rules()
    result = migrate_text(source.read_text(encoding="utf-8"), Job(tuple(r.id for r in rules), target=target))
    assert seen or not result.changed
    for tree, output in seen:
        assert tree.code == output
        assert difference(tree, cst.parse_module(output)) is None


def test_difference_sees_what_matters():
    parsed = cst.parse_module("x = f(a,\n      b)\n")
    call = parsed.body[0].body[0].value
    comma = call.args[0].comma
    layout = cst.ParenthesizedWhitespace(last_line=cst.SimpleWhitespace("      "))
    assert not layout.deep_equals(comma.whitespace_after)
    built = parsed.deep_replace(comma.whitespace_after, layout)
    assert built.code == parsed.code and not built.deep_equals(parsed)
    assert difference(built, parsed) is None  # the same text, whitespace built another way
    assert difference(parsed, cst.parse_module("x = f(a,\n      c)\n")) is not None
    assert difference(parsed, cst.parse_module("x = g(a,\n      b)\n")) is not None
