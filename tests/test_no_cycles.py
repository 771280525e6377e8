"""A migration leaves its trees to reference counting, not to the cycle collector
(`codemods/migrate/collector.py`): the collector is off while a file is migrated, and what
cycles remain hold everything they reach until its first collection after. A rule's
decisions that close over the rule, or a recursive closure over the planner, kept every tree
of the file alive to the end and made that collection go over millions of objects on a big
file (about a second of a 2026-08 run of 0.7 MB)."""

from __future__ import annotations

import gc

import pytest

from codemods.rulebook.loading import load_rules
from codemods.run.runner import Job, migrate_text
from conftest import FIXTURES


@pytest.mark.parametrize("target", ["2026-03", "2026-08"])
def test_a_migration_leaves_next_to_no_cyclic_garbage(target):
    text = (FIXTURES / "2026-03" / "before" / "deepseek_v3_2_decode_front.py").read_text(encoding="utf-8")
    job = Job(tuple(r.id for r in load_rules()), target=target)
    migrate_text(text, job)  # imports and the tables' caches, once
    was_on = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        result = migrate_text(text, job)
        left = gc.collect()
    finally:
        if was_on:
            gc.enable()
    assert result.output != text
    # Its trees alone are tens of thousands of objects (33,000 were left to the collector at
    # 2026-08); what is left is the standard library's own (ast.dump's recursive closure).
    assert left < 1000, left
