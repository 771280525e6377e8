"""Rule files, one folder per version step: a run reads the rules of the steps it runs."""

from __future__ import annotations

import shutil

import pytest

from codemods.rulebook.loading import RuleFileError, load_rule, load_rules, rule_files
from conftest import ROOT, pypto

KERNEL = "k.py"


def _rules(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "codemods" / "rules", rules)
    return rules


def _kernel(tmp_path):
    (tmp_path / KERNEL).write_text("import pypto.language as pl\na = pl.view(t, [1], [0])\n")
    return tmp_path / KERNEL


def test_the_file_names_say_every_rule_and_its_step():
    files = rule_files()
    rules = load_rules()
    assert [(f.id, f.name, f.step, f.path) for f in files] == [(r.id, r.name, r.step, r.path) for r in rules]
    through = load_rules(through="2026-03")
    assert through and {r.step for r in through} == {"2026-03"} and set(through) < set(rules)


def test_a_run_to_a_step_reads_no_later_steps_rule(tmp_path):
    rules = _rules(tmp_path)
    later = sorted((rules / "2026-08").glob("PTO*.toml"))[0]
    later.write_text("this is [not toml\n")
    env = {"PYPTO_MIGRATE_RULES": str(rules)}
    earlier = pypto("run", "--no-cache", "--target", "2026-03", KERNEL, cwd=_kernel(tmp_path).parent, env=env)
    assert earlier.returncode == 0, earlier.stderr
    assert "pl.slice(" in earlier.stdout
    whole = pypto("run", "--no-cache", "--target", "2026-08", KERNEL, cwd=tmp_path, env=env)
    assert whole.returncode != 0
    assert "broken rule file" in whole.stderr and later.name in whole.stderr
    assert "internal error" not in whole.stderr  # said once, before any file


def test_a_marker_may_name_a_rule_of_a_step_the_run_does_not_read(tmp_path):
    later = next(f for f in rule_files() if f.step != "2026-03")
    kernel = tmp_path / "k.py"
    kernel.write_text("import pypto.language as pl\n"
                      f"# pypto-migrate: review {later.id}: checked by hand\n"
                      "x = 1\n")
    done = pypto("check", "--target", "2026-03", "k.py", cwd=tmp_path)
    assert f"review {later.id}: checked by hand" in done.stderr and "unknown rule id" not in done.stderr, done.stderr


@pytest.mark.parametrize("name", ["PTO001-another-name.toml", "PTO999-view-to-slice.toml"])
def test_a_rule_file_is_named_for_its_rule(tmp_path, name):
    source = next(f for f in rule_files() if f.id == "PTO001").path
    misnamed = tmp_path / name
    misnamed.write_text(source.read_text())
    with pytest.raises(RuleFileError, match="PTO001-view-to-slice.toml"):
        load_rule(misnamed)


def test_a_file_name_that_is_no_rule_is_refused(tmp_path):
    rules = _rules(tmp_path)
    (rules / "2026-03" / "PTO001-view-to-slice.toml").rename(rules / "2026-03" / "PTO001_view_to_slice.toml")
    with pytest.raises(RuleFileError, match="ID-NAME.toml"):
        rule_files(rules)
