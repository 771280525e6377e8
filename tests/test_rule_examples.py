"""Every rule's own examples, ast-grep style: the rule and its proof live side by side."""

from __future__ import annotations

import pytest

from codemods.migrate.engine import migrate
from codemods.rulebook.loading import load_api, load_rules, steps
from codemods.steps import KINDS
from codemods.run.runner import LEFTOVER_ID

RULES = load_rules()
KNOWN = frozenset(r.id for r in RULES) | {LEFTOVER_ID}


def run_rule(rule, text):
    """One rule on a text, against the API table of the rule's own step, as the runner applies it."""
    return migrate(text, (rule,), load_api(None, rule.step), KNOWN)
EXAMPLES = [pytest.param(r, ex, id=f"{r.id}-{r.name}-example-{i}") for r in RULES for i, ex in enumerate(r.examples, 1)]
UNCHANGED = [pytest.param(r, code, id=f"{r.id}-{r.name}-unchanged-{i}") for r in RULES for i, code in enumerate(r.unchanged, 1)]


@pytest.mark.parametrize("rule,example", EXAMPLES)
def test_example_rewrites_exactly(rule, example):
    first = run_rule(rule, example.before)
    assert first.output == example.after
    if rule.kind == "diagnostic" or getattr(KINDS[rule.kind], "flags_only", False):  # it only asks a person: a marker and a finding, no edit
        assert first.edits == []
        assert {f.rule for f in first.findings} == {rule.id}
    else:
        assert first.edits and {e.rule for e in first.edits} == {rule.id}
    if rule.safety == "review":
        assert any(f.rule == rule.id for f in first.findings), "a review rule flags what it did"
    second = run_rule(rule, first.output)
    assert second.output == first.output, "a second run must change nothing"
    assert second.edits == []


@pytest.mark.parametrize("rule,code", UNCHANGED)
def test_unchanged_stays_unchanged(rule, code):
    result = run_rule(rule, code)
    assert result.output == code
    assert result.edits == []


def test_every_step_has_rules_and_a_table():
    assert steps() == tuple(sorted({r.step for r in RULES}))
    for step in steps():
        assert load_api(None, step).step == step


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_is_documented(rule):
    assert rule.summary and len(rule.why) > 40
    assert rule.unchanged, "each rule shows at least one input it must leave alone"


# Every example that is a whole program must mean the same once fully migrated. The
# exceptions are the point: they are exactly the examples whose problem the tool flags.
NOT_EQUIVALENT = {
    ("PTO002", 2): 3,  # valid_shape masking lost: rows the original never wrote differ
    ("PTO012", 1): 1,  # the example returns a buffer nobody wrote: garbage either way
    ("PTO015", 1): 1,  # flagged: a vector op on a Mat tile, which the strict profile rejects
    ("PTO114", 1): 1,  # flagged: create_tensor's valid_shape masking lost, rows the original never wrote differ
    ("PTO153", 4): 1,  # the slice's valid region: at 2026-03 ops on it computed its rows only, rows past it differ
    ("PTO153", 5): 3,  # equal on the windows' valid regions; the rows past them were masked at 2026-03
}
PROGRAMS = [
    pytest.param(r, i, ex, id=f"{r.id}-example-{i}")
    for r in RULES for i, ex in enumerate(r.examples, 1) if "@pl.program" in ex.before
    and not (r.step != "2026-03" and getattr(KINDS[r.kind], "flags_only", False))  # a flag leaves the code as it was
]  # the interpreter knows each step's language (its profiles), so every step's examples are run


@pytest.mark.parametrize("rule,index,example", PROGRAMS)
def test_example_programs_mean_the_same_once_migrated(rule, index, example, run_rules, api):
    from codemods.interp.execute import Settings
    from codemods.interp.verify import verify

    if rule.step == "2026-03":
        migrated = run_rules(example.before).output
    else:  # the examples of a later step are written at the step before: its rules take them all the way
        migrated = migrate(example.before, tuple(r for r in RULES if r.step == rule.step), load_api(None, rule.step), KNOWN).output
    target = rule.step  # the migration means what its step's version means (the table's profile)
    verdict = verify((f"{rule.id}-example-{index}", example.before), (f"{rule.id}-example-{index}-migrated", migrated),
                     Settings(), api, target)
    assert verdict.code == NOT_EQUIVALENT.get((rule.id, index), 0), verdict.message
