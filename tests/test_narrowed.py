"""Narrowed rules (--select/--ignore) never write unchecked output (issue 8, hole 6)."""

from __future__ import annotations

import re
import shutil

from codemods.rulebook.loading import choose_rules, load_rules
from conftest import FIXTURES, ROOT, pypto


def _copy(tmp_path, name):
    shutil.copy(FIXTURES / "before" / name, tmp_path / name)
    return tmp_path / name


def test_requirements_come_along_or_their_dependents_stay_out():
    rules = load_rules()
    chosen = choose_rules(rules, ["pto011"], [])
    assert [r.id for r in chosen.rules] == ["PTO004", "PTO010", "PTO011"]
    assert "PTO004 handoff-buffer comes along: PTO011 unique-tile-names relies on it" in chosen.notes
    ignored = choose_rules(rules, [], ["PTO004"])
    ids = {r.id for r in ignored.rules}
    assert "PTO004" not in ids and "PTO011" not in ids and "PTO016" not in ids and "PTO002" in ids
    assert any(n.startswith("PTO011 unique-tile-names is left out too") for n in ignored.notes)


def test_every_requirement_names_a_rule_and_none_of_a_full_run_is_dropped():
    rules = load_rules()
    assert choose_rules(rules, [], []).rules == rules and not choose_rules(rules, [], []).notes


def test_ignore_handoff_refuses_what_it_would_break_and_says_why(tmp_path):
    broken = _copy(tmp_path, "deepseek_v3_2_decode_front.py")
    fine = _copy(tmp_path, "deepseek_v3_2_decode_back.py")  # no hand-off: migrates without PTO004
    result = pypto("run", "--write", "--ignore", "PTO004", broken.name, fine.name, cwd=tmp_path)
    assert result.returncode == 2  # a file could not be processed
    assert "note: PTO011 unique-tile-names is left out too: it relies on PTO004 handoff-buffer" in result.stderr
    assert re.search(r"deepseek_v3_2_decode_front\.py:1:1: error: not migrated: with the selected rules the result would have "
                     r"\d+ new errors against the target API", result.stderr)
    assert re.search(r"deepseek_v3_2_decode_front\.py:\d+:1: error API: .*\(in the migrated text\)", result.stderr)
    assert broken.read_bytes() == (FIXTURES / "before" / broken.name).read_bytes(), "never written"
    assert fine.read_bytes() != (FIXTURES / "before" / fine.name).read_bytes()
    checked = pypto("check", fine.name, cwd=tmp_path)
    assert "API" not in checked.stderr, "what was written passes the full strict check"
    dry = pypto("check", "--ignore", "PTO004", broken.name, cwd=tmp_path)
    assert dry.returncode == 2 and "not migrated" in dry.stderr


def test_without_requires_the_output_check_still_catches_undefined_names(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    for path in rules.glob("*/PTO*.toml"):
        path.write_text(re.sub(r"^requires = .*\n", "", path.read_text(), flags=re.M))
    kernel = _copy(tmp_path, "real_batch_loop.py")
    result = pypto("run", "--write", "--ignore", "PTO004", kernel.name, cwd=tmp_path, env={"PYPTO_MIGRATE_RULES": str(rules)})
    assert result.returncode == 2
    assert "note:" not in result.stderr
    assert re.search(r"real_batch_loop\.py:\d+:\d+: error API: inv is read but nothing defines it", result.stderr), result.stderr
    assert kernel.read_bytes() == (FIXTURES / "before" / kernel.name).read_bytes()


def test_select_brings_requirements_along(tmp_path):
    kernel = _copy(tmp_path, "deepseek_v3_2_decode_front.py")
    result = pypto("run", "--select", "unique-tile-names", kernel.name, cwd=tmp_path)
    assert "note: PTO004 handoff-buffer comes along: PTO011 unique-tile-names relies on it" in result.stderr
    assert "note: PTO010 hoist-tile-shape comes along: PTO004 handoff-buffer relies on it" in result.stderr
