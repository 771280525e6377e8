"""Version steps: which steps a file needs, --target/--from, the config key, the cache key."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.migrate.chain import SUBSCRIPT_STORE, first_step, forms, steps_for
from codemods.rulebook.loading import load_api, load_rules, steps
from codemods.run.cache import settings_key
from codemods.run.config import ConfigError, parse
from conftest import pypto

TABLES = [load_api(None, s) for s in steps()]
FEBRUARY = "import pypto.language as pl\n\nx = pl.view(t, [4, 4], [0, 0])\n"
# Written for a pypto between the two steps: tensor-level compute in a kernel, which c39
# refused (`tile.rsqrt requires ... TileType`) and later versions lower to tiles.
APRIL = """import pypto.language as pl

@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    with pl.incore():
        y = pl.rsqrt(x)
        out = pl.assemble(out, y, [0, 0])
    return out
"""
# pypto's own file of 2026-03-09 that still passes the four-argument pl.store: both c39 and
# 2026-08 reject it, so the 2026-03 step runs although c39 has pl.incore.
C39_INCORE = """import pypto.language as pl

@pl.function(type=pl.FunctionType.InCore)
def k(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    t = pl.load(x, [0, 0], [16, 64])
    out = pl.store(t, [0, 0], [16, 64], out)
    return out
"""


def test_forms_follow_the_module_however_it_is_imported():
    text = (
        "import pypto.language as lang\nfrom pypto import language as pl2\nfrom pypto.language import incore as inc\n"
        "import numpy as pl\n"
        "a = lang.view(t, s, o)\nb = pl2.tile.maxs(x, 0.0)\nfor i in lang.parallel(0, 8, chunk=4):\n    pass\n"
        "c = pl.view(1)\nwith inc():\n    pass\n"
    )
    found = forms(text)
    assert {"view", "tile.maxs", "parallel", "parallel(chunk=)", "incore"} <= found
    assert forms("this is ( not python") == set()


def test_a_store_by_subscript_into_a_tensor_parameter_is_a_form_of_its_own():
    # `out[0:4, :] = v` into an Out parameter of a pl function (2026-08 code): found, so that a run
    # to 2026-03 leaves the file as written (it was lost once when the walk was merged: fuzz seed 1357)
    store = ("import pypto.language as pl\n\n@pl.function\ndef k(x: pl.Tensor[[8, 8], pl.FP32], "
             "out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):\n    out[0:4, :] = x[0:4, :]\n    return out\n")
    assert SUBSCRIPT_STORE in forms(store)
    assert SUBSCRIPT_STORE not in forms(store.replace("out[0:4, :] = ", "y = "))
    assert [s.rules for s in steps_for(store, load_rules(), "2026-03")][0] == tuple(
        r for r in load_rules() if r.at_target and r.step == "2026-03")  # the target's checks only


@pytest.mark.parametrize("text,first", [
    (FEBRUARY, "2026-03"),  # pl.view: the 2026-03 table lists it removed
    (APRIL, "2026-08"),  # all c39 rejects, 2026-08 accepts: written after 2026-03
    (C39_INCORE, "2026-03"),  # pl.incore is c39's own name: no evidence; the store both reject
    ("import pypto.language as pl\nwith pl.incore():\n    y = pl.add(x, 1.0)\n", "2026-03"),  # nothing either way
    ("import pypto.language as pl\nfor i in pl.parallel(0, 8, 1, chunk=4):\n    pass\n", "2026-03"),  # c39 has chunk=
    ("import pypto.language as pl\nwith pl.at(level=pl.Level.CORE_GROUP):\n    pass\n", "2026-08"),  # a later name
    # came after 2026-03 and went before 2026-08: the later table lists it removed
    ("import pypto.language as pl\nwith pl.at(optimization=pl.chunked_loop_optimizer):\n    pass\n", "2026-08"),
    ("import pypto.language as pl\nz = pl.chunked_loop_optimizer\n", "2026-08"),
    ("import pypto.language as pl\nwith pl.at():\n    y = pl.view(x, [1], [0])\n", "2026-03"),  # removed here wins
    ("import pypto.language as pl\ny = pl.frobnicate(x)\n", "2026-03"),  # a name no table knows: no evidence
    ("import pypto.language as pl\ny = pl.add(x, 1.0)\n", "2026-03"),  # no evidence: every step, each silent where nothing is old
])
def test_the_first_step_is_read_off_the_code(text, first):
    assert steps()[first_step(text, TABLES)] == first


def test_steps_never_go_past_the_target_and_from_overrides():
    rules = load_rules()
    assert [s.name for s in steps_for(APRIL, rules, "2026-03")] == ["2026-03"]  # --target 2026-03: that step alone
    assert [s.name for s in steps_for(APRIL, rules, "2026-08")] == ["2026-08"]
    assert [s.name for s in steps_for(FEBRUARY, rules, "2026-08")] == ["2026-03", "2026-08"]
    assert [s.name for s in steps_for(APRIL, rules, "2026-08", start="2026-03")] == ["2026-03", "2026-08"]
    assert [s.name for s in steps_for(FEBRUARY, rules, "2026-08", start="2026-08")] == ["2026-08"]
    for step in steps_for(FEBRUARY, rules, "2026-08"):
        # A step runs its own rules, and the target's step the checks of the target (`at_target`).
        assert step.api.step == step.name
        assert all(r.step == step.name or (r.at_target and step.name == "2026-08") for r in step.rules)


def test_the_2026_08_table_inherits_what_it_does_not_change():
    old, new = load_api(None, "2026-03"), load_api(None, "2026-08")
    assert new.version == "2026-08-21" and old.version == "2026-03-09"
    assert new.ops["maxs"].kind == "removed" and ("maxs" not in old.ops or old.ops["maxs"].kind != "removed")
    assert old.exists("maxs") and not new.exists("maxs")
    assert new.ops["view"].kind == "removed"  # removed before: still removed
    # e2d0f78ae's AllocateMemoryAddr: "exceeds platform limit (188416 bytes)"; the rest is inherited
    assert new.memory_limits == {**old.memory_limits, "Vec": 188416}
    assert new.exists("at") and not old.exists("at") and not new.exists("incore")
    assert old.profile == "strict" and new.profile == "head"  # what `verify` runs each version's code with


def test_config_target_and_its_errors(tmp_path):
    assert parse({"target": "2026-08"}, tmp_path / "pyproject.toml").target == "2026-08"
    with pytest.raises(ConfigError, match="target"):
        parse({"target": 2026}, tmp_path / "pyproject.toml")


def test_the_cache_key_holds_target_and_start(tmp_path):
    keys = {settings_key(("PTO001",), True, tmp_path, t, s) for t, s in (("2026-03", ""), ("2026-08", ""), ("2026-08", "2026-03"))}
    assert len(keys) == 3


def test_cli_target_from_and_config(tmp_path):
    kernel = tmp_path / "k.py"
    kernel.write_text(APRIL, encoding="utf-8")
    bad = pypto("run", "--target", "2027-01", "k.py", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown target '2027-01'" in bad.stderr and "2026-08" in bad.stderr
    bad_from = pypto("check", "--from", "1999-01", "k.py", cwd=tmp_path)
    assert bad_from.returncode == 2 and "--from step" in bad_from.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.pypto-migrate]\ntarget = "2027-01"\n', encoding="utf-8")
    configured = pypto("run", "k.py", cwd=tmp_path, pin=False)
    assert configured.returncode == 2 and "pyproject.toml: [tool.pypto-migrate] target" in configured.stderr
    assert pypto("run", "--target", "2026-03", "k.py", cwd=tmp_path).returncode in (0, 1)  # the command line wins


def test_rule_pages_name_their_step(tmp_path):
    rule = load_rules()[0]
    assert f"Step: {rule.step}" in pypto("rules", rule.id, cwd=tmp_path).stdout


def test_every_rule_sits_in_a_step_folder():
    root = Path(__file__).resolve().parent.parent / "codemods" / "rules"
    for rule in load_rules():
        assert rule.path.parent == root / rule.step


VERSIONED = sorted((Path(__file__).resolve().parent.parent / "fixtures").glob("20*-*/before/*.py"))


# Fixtures of the 2026-08 step whose every change is one code written for 2026-08 may hold too:
# nothing in them dates them before the target (docs/versions.md), so a run leaves them, and
# `--from 2026-08` (the author saying the code is older) migrates them to their `after`.
PRESUMED = {
    "index_flags.py": "a name re-bound to another type (PTO153 misjudges code of 2026-08 too)",
    "silent_not.py": "`not` of an integer (a silent change)",
    "silent_subscripts.py": "scalar subscripts (a silent change)",
    "wide_kept.py": "a buffer larger than Vec (PTO181: pypto's own parser tests hold them)",
    "wide_rows.py": "a buffer larger than Vec",
}


@pytest.mark.parametrize("before", VERSIONED, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_versioned_fixture_migrates_to_expected(before):
    from codemods.run.runner import Job, migrate_text

    step = before.parent.parent.name
    job = Job(tuple(r.id for r in load_rules()), target=step)
    text = before.read_text(encoding="utf-8")
    result = migrate_text(text, job)
    if step == steps()[-1] and before.name in PRESUMED:
        assert result.output == text and not result.edits and not result.findings
        job = Job(job.rule_ids, target=step, start=step)
        result = migrate_text(text, job)
    assert result.output == (before.parent.parent / "after" / before.name).read_text(encoding="utf-8")
    assert migrate_text(result.output, job).output == result.output, "a second run must change nothing"
    lines = result.output.splitlines()

    def marked(line: int) -> bool:  # the statement carries a review marker: a person decides it
        above = line - 2
        # (a decorated function's marker stands above its decorators)
        while above >= 0 and lines[above].lstrip().startswith(("#", "@")):
            if "pypto-migrate: review" in lines[above]:
                return True
            above -= 1
        return False

    assert [f for f in result.findings if f.level == "error" and not marked(f.line)] == []
    assert {e.rule for e in result.edits} <= {r.id for r in load_rules() if r.step == step}  # no older step ran
    assert migrate_text(text, Job(job.rule_ids, target=steps()[0])).output != result.output or step == steps()[0]


def test_a_february_file_goes_through_both_steps():
    from codemods.run.runner import Job, migrate_text

    text = (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        "    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
        "        with pl.incore():\n"
        "            a = pl.view(x, [16, 64], [0, 0])\n"
        "            b = pl.tile.maxs(pl.load(a, [0, 0], [16, 64]), 0.0)\n"
        "            y = pl.store(b, [0, 0], y)\n"
        "        return y\n"
    )
    result = migrate_text(text, Job(tuple(r.id for r in load_rules()), target="2026-08"))
    rules = {e.rule for e in result.edits}
    assert "PTO102" in rules and "PTO103" in rules and any(r.startswith("PTO0") for r in rules)
    code = "".join(line for line in result.output.splitlines(keepends=True) if not line.lstrip().startswith("#"))
    assert "pl.view" not in code and "pl.incore" not in code and "maxs" not in code
    lines = text.splitlines()
    assert all(1 <= e.line <= len(lines) for e in result.edits)  # placed in the input


def test_a_step_s_own_diagnostic_runs_only_when_that_step_is_the_target():
    """PTO014's buffer figures are c39fe714a's: on to 2026-08 they would mark kernels the newer
    compiler accepts (it tiles matmul operands itself), so the step runs without it there."""
    from codemods.run.runner import Job, migrate_text

    text = (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function\n"
        "    def main(self, x: pl.Tensor[[16, 4096], pl.BF16], w: pl.Tensor[[4096, 512], pl.BF16],\n"
        "             y: pl.Out[pl.Tensor[[16, 512], pl.FP32]]) -> pl.Tensor[[16, 512], pl.FP32]:\n"
        "        with pl.auto_incore():\n"
        "            a = pl.view(x, [16, 4096], [0, 0])\n"
        "            b = pl.view(w, [4096, 512], [0, 0])\n"
        "            y = pl.assemble(y, pl.matmul(a, b), [0, 0])\n"
        "        return y\n"
    )
    ids = tuple(r.id for r in load_rules())
    assert any(r.id == "PTO014" and r.target_only for r in load_rules())
    at_03 = migrate_text(text, Job(ids, target="2026-03"))
    at_08 = migrate_text(text, Job(ids, target="2026-08"))
    assert any(f.rule == "PTO014" for f in at_03.findings), "the 2026-03 target keeps its capacity marker"
    assert not any(f.rule == "PTO014" for f in at_08.findings) and "PTO014" not in at_08.output
    assert [s.name for s in steps_for(text, load_rules(), "2026-08")] == ["2026-03", "2026-08"]


@pytest.mark.parametrize("op,known_at_08", [("col_expand_add", True), ("frobnicate", False)])
def test_a_name_is_unknown_by_the_target_s_table(op, known_at_08):
    """PTO020 asks the target's table, not the tables on the way: `pl.col_expand_add` (of pypto
    after c39fe714a) is flagged going to 2026-03 and not going on to 2026-08; a name no version
    has is flagged in both, with the target's version in the message."""
    from codemods.run.runner import Job, migrate_text

    text = (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function\n"
        "    def main(self, x: pl.Tensor[[8, 16], pl.FP32], b: pl.Tensor[[1, 16], pl.FP32],\n"
        "             out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:\n"
        "        with pl.auto_incore():\n"
        "            for i in pl.parallel(0, 4, 1, chunk=2):\n"
        "                t = pl.view(x, [8, 16], [0, 0])\n"
        f"                y = pl.{op}(t, pl.view(b, [1, 16], [0, 0]))\n"
        "                out = pl.assemble(out, y, [0, 0])\n"
        "        return out\n"
    )
    rules = load_rules()
    ids = tuple(r.id for r in rules)
    assert [s.name for s in steps_for(text, rules, "2026-08")] == ["2026-03", "2026-08"]
    assert "PTO020" not in [r.id for r in steps_for(text, rules, "2026-08")[0].rules]
    at_03 = migrate_text(text, Job(ids, target="2026-03"))
    at_08 = migrate_text(text, Job(ids, target="2026-08"))
    at_03_says = [f.message for f in at_03.findings if f.rule == "PTO020"]
    if known_at_08:  # a name of a later pypto: the user is told to target it, never to rewrite it
        assert at_03_says == [f"pl.{op} is newer than the target pypto 2026-03-09 (pypto 2026-08-21 has it): this code "
                              "was written for a later pypto; run with --target 2026-08, or without --target"]
    else:
        assert [m.split(" API")[0] for m in at_03_says] == [f"pl.{op} does not exist in the 2026-03-09"]
    flagged = [f.message.split(" API")[0] for f in at_08.findings if f.rule == "PTO020"]
    assert flagged == ([] if known_at_08 else [f"pl.{op} does not exist in the 2026-08-21"])
