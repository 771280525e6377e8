"""A run through two version steps hands the first step's output tree (and its print) to the
second, which then neither parses nor prints that text again (issue 29, item 5: a 2026-08 run
of a big file parsed it twice). The result must be what a second parse gives, byte for byte.
"""

from __future__ import annotations

import pytest

from codemods.migrate import engine
from codemods.rulebook.loading import load_rules
from codemods.run.runner import Job, migrate_text
from conftest import FIXTURES

SOURCES = sorted(FIXTURES.glob("2026-03/before/*.py"))


def _run(text: str):
    result = migrate_text(text, Job(tuple(r.id for r in load_rules()), target="2026-08"))
    return result.output, result.edits, result.findings, result.reviewed, result.kernels, result.over_budget


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_the_handed_tree_migrates_as_a_parse_of_the_text(monkeypatch, source):
    text = source.read_text(encoding="utf-8")
    handed = []
    original = engine._migrate

    def recording(*args):
        handed.append(args[6])  # `handed`: what the step before gave this one
        return original(*args)

    monkeypatch.setattr(engine, "_migrate", recording)
    with_handover = _run(text)
    assert len(handed) == 2 and handed[0] is None and handed[1] is not None  # the second step took the first's tree
    assert handed[1].printed is None or handed[1].printed.module is handed[1].tree

    def reparsing(*args):
        return original(*args[:6], None, args[7])  # nothing handed: the second step parses the text

    monkeypatch.setattr(engine, "_migrate", reparsing)
    assert _run(text) == with_handover
