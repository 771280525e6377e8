"""Every 2026-08 fixture, held against the compiler of that day (pypto e2d0f78ae).

The `after` of each fixture is what the tool writes: the newest compiler parses it and runs
its pass pipeline, and where it still refuses a line, a review marker stands there (the fixture
shows a flag). The `before` is refused, or, for the silent changes, accepted and
computing something else (test_upgrade_2026_08 proves that part with verify): so each fixture
shows a change the compiler really made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.compiler.bridge import compile_source
from codemods.compiler.verdict import under_review_marker
from needs import head_python

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PAIRS = sorted(FIXTURES.glob("2026-08/before/*.py"))
# accepted as they were, computing something else (test_upgrade_2026_08 proves it with verify)
SILENT = {"silent_not.py", "silent_outputs.py", "silent_subscripts.py", "partial_outputs.py"}


def _id(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.name}"


@pytest.fixture(scope="module")
def head():
    return head_python()


@pytest.mark.parametrize("before", PAIRS, ids=_id)
def test_the_newest_compiler_accepts_the_after_or_a_marker_stands_at_its_error(before, head):
    after = before.parent.parent / "after" / before.name
    result = compile_source(after, None, "passes", target="2026-08", python=head)
    text = after.read_text(encoding="utf-8")
    unmarked = [e for e in result.errors if not under_review_marker(text, e.line)]
    assert not unmarked, f"{_id(after)}: rejected without a marker: {unmarked[0].line}: {unmarked[0].message[:300]}"
    assert not result.structure, result.structure


@pytest.mark.parametrize("before", [p for p in PAIRS if p.name not in SILENT], ids=_id)
def test_the_newest_compiler_refuses_the_before(before, head):
    result = compile_source(before, None, "passes", target="2026-08", python=head)
    assert result.errors or result.structure, f"{_id(before)} is accepted as it was: the fixture shows no change"
