"""The CLI contract, end to end: exit codes, stdout/stderr, dry run, --write, check, rules; at
every version step, the default (the newest) first among them (issue 36.4)."""

from __future__ import annotations

import os
import re
import stat
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from unidiff import PatchSet

from codemods.cli.commands import main
from codemods.rulebook.loading import steps
from conftest import FIXTURES, pinned

STEPS = steps()  # each migrates KERNEL alike: pl.view was removed in the first, and is gone since

KERNEL = "import pypto.language as pl\n\n\ndef k(t):\n    return pl.view(t, [4, 4], [0, 0])\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A small repository with a kernel, a bad file of each kind and a read-only kernel."""
    monkeypatch.chdir(tmp_path)
    models = tmp_path / "models"
    (models / "sub").mkdir(parents=True)
    (models / "a.py").write_text(KERNEL)
    (models / "sub" / "b.py").write_text(KERNEL.replace("[0, 0]", "[4, 0]"))
    (models / "clean.py").write_text("x = 1\n")
    (models / "syntax.py").write_text("def f(:\n    pass\n")
    (models / "latin1.py").write_bytes(b"s = '\xe9'\n")
    ro = models / "ro.py"
    ro.write_text(KERNEL)
    ro.chmod(0o444)
    return models


def invoke(*args, step=None):
    """The command in this process; at `step` (None: pinned to the first step, as `pinned` says)."""
    args = [str(a) for a in args]
    if step is not None and args and args[0] in ("run", "check"):
        args = [args[0], "--target", step, *args[1:]]
    result = CliRunner().invoke(main, pinned(args), catch_exceptions=False)
    return result


@pytest.fixture(params=STEPS)
def step(request):
    return request.param


def test_dry_run_prints_a_diff_git_apply_accepts(tree, tmp_path, step):
    result = invoke("run", "--jobs", "1", "models", step=step)
    assert result.exit_code == 2  # two files could not be processed
    patch = PatchSet(result.stdout)
    assert sorted(p.path for p in patch) == ["models/a.py", "models/ro.py", "models/sub/b.py"]
    assert all(p.added == 1 and p.removed == 1 for p in patch)
    assert (tree / "a.py").read_text() == KERNEL, "a dry run writes nothing"
    assert "models/syntax.py:1:7: error: " in result.stderr and "models/latin1.py:1:6: error: not UTF-8" in result.stderr
    assert "PTO001" in result.stderr and "view-to-slice" in result.stderr
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "fix.patch").write_text(result.stdout)
    subprocess.run(["git", "apply", "--check", "fix.patch"], cwd=tmp_path, check=True)


def test_write_migrates_good_files_and_reports_bad_ones(tree, step):
    mode = (tree / "a.py").stat().st_mode
    result = invoke("run", "--write", "models", step=step)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert (tree / "a.py").read_text() == KERNEL.replace("pl.view(", "pl.slice(")
    assert (tree / "sub" / "b.py").read_text().count("pl.slice(") == 1
    assert (tree / "a.py").stat().st_mode == mode
    if os.access(tree / "ro.py", os.W_OK):  # root: the OS lets us, so the tool writes it, mode kept
        assert (tree / "ro.py").read_text() == KERNEL.replace("pl.view(", "pl.slice(")
        assert stat.S_IMODE((tree / "ro.py").stat().st_mode) == 0o444
        assert "3 files migrated, 3 edits, 0 need review, 2 could not be processed" in result.stderr
    else:
        assert (tree / "ro.py").read_text() == KERNEL, "a file this user may not write is never written"
        assert "models/ro.py:1:1: error: file is read-only; not written" in result.stderr
        assert "2 files migrated, 2 edits, 0 need review, 3 could not be processed" in result.stderr
    assert not [p for p in tree.rglob("*") if "pypto-migrate" in p.name], "no temporary files left"


def test_check_before_and_after_write(tmp_path, monkeypatch, step):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(KERNEL)
    before = invoke("check", "k.py", step=step)
    assert before.exit_code == 1
    assert before.stderr.strip().endswith(f"1 file would be migrated, 1 edit, 0 need review; target {step}")
    assert invoke("run", "--write", "k.py", step=step).exit_code == 0
    after = invoke("check", "k.py", step=step)
    assert after.exit_code == 0, after.stderr
    assert "0 files would be migrated, 0 edits, 0 need review" in after.stderr
    assert invoke("run", "k.py", step=step).stdout == "", "a second run changes nothing"


def test_check_fails_on_leftovers_that_need_a_person(tmp_path, monkeypatch, step):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text("from pypto.language import view\nview(t, [1], [0])\n")
    result = invoke("check", ".", step=step)
    assert result.exit_code == 1
    # An error is counted as an error, not as something to review (issue 29.2): one per line said.
    errors = len(re.findall(r"^k\.py:2:1: error API:", result.stderr, re.M))
    assert errors >= 1 and f"0 need review, {errors} error{'s' * (errors != 1)}; target {step}" in result.stderr


def test_select_ignore_and_usage_errors(tmp_path, monkeypatch, step):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(KERNEL)
    assert "pl.slice(" in invoke("run", "--select", "view-to-slice", "k.py", step=step).stdout
    assert "pl.slice(" in invoke("run", "--select", "PTO001", "k.py", step=step).stdout
    assert invoke("run", "--ignore", "PTO001", "k.py", step=step).stdout == ""
    unknown = invoke("run", "--select", "PTO999", "k.py", step=step)
    assert unknown.exit_code == 2 and "unknown rule PTO999" in unknown.stderr
    assert invoke("run", "missing.py").exit_code == 2
    assert invoke("check").exit_code == 2
    assert invoke("run", "--jobs", "0", "k.py").exit_code == 2


def test_diff_file(tmp_path, monkeypatch, step):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(KERNEL)
    result = invoke("run", "--diff-file", "out.diff", "k.py", step=step)
    assert (tmp_path / "out.diff").read_text() == result.stdout
    assert result.stdout.startswith("--- a/k.py\n+++ b/k.py\n")


def test_rules_listing_and_documentation():
    listing = invoke("rules")
    assert listing.exit_code == 0
    assert "PTO001" in listing.stdout and "view-to-slice" in listing.stdout and "safe" in listing.stdout
    doc = invoke("rules", "PTO001")
    assert "## Why" in doc.stdout and "pl.slice(hidden_states" in doc.stdout
    assert invoke("rules", "view-to-slice").stdout == doc.stdout
    assert invoke("rules", "PTO404").exit_code == 2


def test_parallel_jobs_give_the_same_diff(tmp_path, monkeypatch, step):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURES / "2026-03" / "before", tmp_path / "k")
    for i in range(6):
        (tmp_path / "k" / f"extra{i}.py").write_text(KERNEL)
    one = invoke("run", "--jobs", "1", "k", step=step)
    two = invoke("run", "--jobs", "2", "k", step=step)
    files = len(list((FIXTURES / "2026-03" / "before").glob("*.py"))) + 6
    assert one.stdout == two.stdout and one.stdout.count("--- a/") == files


def test_real_subprocess_module_and_console_script(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    mod = subprocess.run([sys.executable, "-m", "codemods", "run", "k.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert mod.returncode == 0 and "+    return pl.slice(t, [4, 4], [0, 0])" in mod.stdout
    script = shutil.which("pypto-migrate", path=str(Path(sys.executable).parent))
    assert script, "the console script is installed beside the interpreter"
    check = subprocess.run([script, "check", "k.py"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 1 and "1 file would be migrated" in check.stderr
    version = subprocess.run([script, "--version"], capture_output=True, text=True)
    assert version.stdout.startswith("pypto-migrate, version")


def test_crlf_diff_applies_byte_for_byte(tmp_path, monkeypatch, step):
    monkeypatch.chdir(tmp_path)
    raw = (FIXTURES / "2026-03" / "before" / "edge_crlf_bom.py").read_bytes()
    (tmp_path / "w.py").write_bytes(raw)
    (tmp_path / "n.py").write_bytes((FIXTURES / "2026-03" / "before" / "edge_no_final_newline.py").read_bytes())
    diff = invoke("run", ".", step=step).stdout_bytes  # .stdout would fold CRLF to LF
    assert b"\r\n" in diff
    subprocess.run(["git", "init", "-q"], check=True)
    (tmp_path / "p.diff").write_bytes(diff)
    subprocess.run(["git", "apply", "p.diff"], check=True)
    assert (tmp_path / "w.py").read_bytes() == raw.replace(b"pl.view(", b"pl.slice(")
    assert (tmp_path / "n.py").read_bytes() == (FIXTURES / "2026-03" / "after" / "edge_no_final_newline.py").read_bytes()


def test_a_write_counts_as_migrated_only_the_files_it_wrote():
    """A changed file that `--write` held back (the compiler refused it) is said apart; a dry
    run and a text given on stdin count every change."""
    from codemods.run.runner import Outcome, summarize

    outcomes = [Outcome("a.py", diff="@@ a", written=True), Outcome("b.py", diff="@@ b"),
                Outcome("-", diff="@@ c", output="migrated"), Outcome("d.py")]
    summary = summarize(outcomes)
    assert summary.line("migrated", written=True).startswith("2 files migrated (1 not written, as said above), ")
    assert summary.line("would be migrated").startswith("3 files would be migrated, ")
