"""`rules` and `rules ID`: Ruff's shape, plain text, any case; the table of docs/rules.md generated from the rules."""

from __future__ import annotations

import pytest

from codemods.rulebook.loading import load_rules
from codemods.cli.ruledocs import markdown_table, render, with_table
from conftest import ROOT, pypto

RULES = load_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_each_rule_page_prints_its_code_exactly(rule, tmp_path):
    result = pypto("rules", rule.id, cwd=tmp_path)
    assert result.returncode == 0
    page = result.stdout
    assert page == render(rule)
    for section in ("## What it does", "## Why", "## Example", "Before:", "After:", "## Fix safety"):
        assert section in page, section
    for ex in rule.examples:  # `[b, 0]` and every other bracket survive: nothing reads them as markup
        assert ex.before.strip("\n") in page and ex.after.strip("\n") in page
    assert "[b, 0]" in page or "[b, 0]" not in "".join(e.before + e.after for e in rule.examples)


def test_lower_case_ids_and_names(tmp_path):
    upper = pypto("rules", "PTO006", cwd=tmp_path).stdout
    assert pypto("rules", "pto006", cwd=tmp_path).stdout == upper
    assert pypto("rules", "matmul-operands", cwd=tmp_path).stdout == upper
    assert pypto("rules", "Matmul-Operands", cwd=tmp_path).stdout == upper
    unknown = pypto("rules", "pto404", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown rule pto404" in unknown.stderr
    selected = pypto("run", "--select", "pto001,Slice-To-Load", "--diff-file", "d.patch", ".", cwd=tmp_path)
    assert selected.returncode == 0, selected.stderr


def test_fix_safety_explains_each_class():
    by_id = {r.id: r for r in RULES}
    assert "Safe: the rewrite keeps what the kernel computes" in render(by_id["PTO001"])
    assert "a `# pypto-migrate: review PTO012: ...` marker" in render(by_id["PTO012"])
    assert "Fix: flag" in render(by_id["PTO013"]) and "the rule never changes code" in render(by_id["PTO013"])
    assert "It relies on PTO010, PTO011" in render(by_id["PTO004"])


def test_the_listing_is_plain_text(tmp_path):
    result = pypto("rules", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["id", "step", "name", "safety", "summary"] and len(lines) == len(RULES) + 1
    assert all(line.split()[1] == rule.step for line, rule in zip(lines[1:], RULES))
    assert pypto("rules", "--format", "markdown", cwd=tmp_path).stdout == markdown_table(RULES)


def test_the_rules_page_table_is_generated_from_the_rule_files():
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert with_table(page, RULES) == page, "docs/rules.md's rule table is stale: run `python -m codemods.cli.ruledocs docs/rules.md`"
