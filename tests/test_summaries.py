"""One source for every count (issue 29.2): the summary line on stderr, the JSON summary, SARIF's
and GitHub's annotations and `report` count the same things alike, before and after --write; at
every version step, the default (the newest) among them (issue 36.4)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from codemods.rulebook.loading import steps
from conftest import FIXTURES, PINNED, pypto
from needs import CORPUS, corpus_or_skip

STEPS = steps()

# Removed API that no rule rewrites: three findings of level error, nothing to edit.
LEFTOVERS = "from pypto.language import view\nview(t, [1], [0])\nview(t, [2], [0])\nview(t, [3], [0])\n"
# Code no rule edits but whose migration asks a person twice: the change is two markers.
MARKERS_ONLY = """\
import pypto.language as pl

x = pl.cast_tensor_to_tile(t)

y = pl.frobnicate(x)
"""
CAPACITY = re.compile(r"capacity: (\d+) kernel regions? checked against the 910B buffer limits, (\d+) buffers? over a limit")


def _capacity(stderr: str) -> tuple[int, int]:
    m = CAPACITY.search(stderr)
    assert m, stderr
    return int(m.group(1)), int(m.group(2))


# The DeepSeek corpus's kernel regions as each step's output has them: the 2026-08 step cuts
# some in pieces of their own (PTO181's column chunks, PTO183's core groups).
CORPUS_KERNELS = {"2026-03": 28, "2026-08": 37}


@pytest.mark.parametrize("step", STEPS)
def test_buffers_over_a_limit_are_counted_alike_before_and_after_write_and_by_report(tmp_path, step):
    corpus_or_skip()
    for path in sorted((CORPUS / "deepseek").glob("*.py")):
        shutil.copy2(path, tmp_path / path.name)
    at = ("--target", step)
    before = pypto("run", *at, "--no-cache", ".", cwd=tmp_path)
    kernels, over = _capacity(before.stderr)
    assert kernels == CORPUS_KERNELS[step] and over > 0
    written = pypto("run", *at, "--write", "--no-cache", ".", cwd=tmp_path)
    assert _capacity(written.stderr) == (kernels, over)
    after = pypto("run", *at, "--no-cache", ".", cwd=tmp_path)
    assert after.stdout == "", "nothing is left to migrate"
    # The regions over a limit were marked by the first run; they are no less over now.
    assert _capacity(after.stderr) == (kernels, over)
    report = pypto("report", *at, ".", cwd=tmp_path)
    assert report.stdout.count("  OVER") == over
    markers = sum(p.read_text().count("# pypto-migrate: review PTO014") for p in tmp_path.glob("*.py"))
    if step == PINNED:
        assert 0 < markers <= over  # one marker per region, naming its largest overflow
    else:  # PTO014's figures are c39's buffer model: its markers are that step's alone
        assert markers == 0
    machine = json.loads(pypto("run", *at, "--no-cache", "--format", "json", ".", cwd=tmp_path).stdout)
    assert (machine["summary"]["kernels"], machine["summary"]["over_limit"]) == (kernels, over)


@pytest.mark.parametrize("step", STEPS)
def test_the_capacity_line_is_reports_count_at_every_step(tmp_path, step):
    """Without the corpus: a kernel over the Right limit, counted alike by the summary before and
    after --write, by JSON's over_limit and by `report`'s OVER lines, at the default target too
    (its figures are those `report` gives the output: issue 36.4)."""
    shutil.copy2(FIXTURES / "2026-03" / "before" / "edge_capacity.py", tmp_path / "k.py")
    at = ("--target", step)
    before = _capacity(pypto("run", *at, "--no-cache", "k.py", cwd=tmp_path).stderr)
    assert before[0] >= 1 and before[1] >= 1
    machine = json.loads(pypto("run", *at, "--no-cache", "--format", "json", "k.py", cwd=tmp_path).stdout)
    assert (machine["summary"]["kernels"], machine["summary"]["over_limit"]) == before
    assert _capacity(pypto("run", *at, "--write", "--no-cache", "k.py", cwd=tmp_path).stderr) == before
    assert _capacity(pypto("run", *at, "--no-cache", "k.py", cwd=tmp_path).stderr) == before
    assert pypto("report", *at, "k.py", cwd=tmp_path).stdout.count("  OVER") == before[1]


def test_a_change_of_review_markers_alone_is_not_called_a_migration_of_0_edits(tmp_path):
    (tmp_path / "k.py").write_text(MARKERS_ONLY)
    done = pypto("check", "--no-cache", "k.py", cwd=tmp_path)
    assert done.returncode == 1
    assert "would be migrated (0 edits)" not in done.stderr
    assert "k.py: would gain 2 review markers (no edit)" in done.stderr
    assert done.stderr.rstrip().endswith("1 file would be migrated, 0 edits, 2 review markers added, 2 need review; target 2026-03")
    machine = json.loads(pypto("check", "--no-cache", "--format", "json", "k.py", cwd=tmp_path).stdout)
    assert machine["files"][0]["markers_added"] == 2 and machine["summary"]["markers_added"] == 2
    assert machine["summary"]["edits"] == 0 and machine["summary"]["review"] == 2


@pytest.mark.parametrize("step", STEPS)
def test_error_findings_are_errors_not_reviews_in_every_format(tmp_path, step):
    (tmp_path / "k.py").write_text(LEFTOVERS)
    at = ("--target", step)
    text = pypto("check", *at, "--no-cache", "k.py", cwd=tmp_path)
    assert text.returncode == 1  # check fails on them
    # Each step on the way that refuses the name says so (`at 2026-03: ...` past the first).
    errors = text.stderr.count(": error API: ")
    assert errors >= 3 and text.stderr.count("view was removed") == errors
    assert text.stderr.rstrip().endswith(f"0 files would be migrated, 0 edits, 0 need review, {errors} errors; target {step}")
    machine = json.loads(pypto("check", *at, "--no-cache", "--format", "json", "k.py", cwd=tmp_path).stdout)
    assert machine["summary"]["errors"] == errors and machine["summary"]["review"] == 0 and machine["summary"]["failed"] == 0
    assert machine["files"][0]["errors"] == errors
    sarif = json.loads(pypto("check", *at, "--no-cache", "--format", "sarif", "k.py", cwd=tmp_path).stdout)
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["error"] * errors
    github = pypto("check", *at, "--no-cache", "--format", "github", "k.py", cwd=tmp_path).stdout
    assert github.count("::error ") == errors and "::warning" not in github


@pytest.fixture
def mixed(tmp_path):
    """A migration with edits and markers, removed API, a change of markers alone, a file that
    cannot be processed, and one with nothing to do."""
    shutil.copy2(FIXTURES / "2026-03" / "before" / "deepseek_v3_2_decode_back.py", tmp_path / "back.py")
    (tmp_path / "leftovers.py").write_text(LEFTOVERS)
    (tmp_path / "markers.py").write_text(MARKERS_ONLY)
    (tmp_path / "broken.py").write_text("import pypto.language as pl\ndef f(:\n")
    (tmp_path / "plain.py").write_text("x = 1\n")
    return tmp_path


def _summary_line(stderr: str) -> str:
    return stderr.rstrip().splitlines()[-1]


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("command", ["check", "run"])
def test_every_format_reads_the_same_counts(mixed, command, step):
    at = ("--target", step)
    text = pypto(command, *at, "--no-cache", ".", cwd=mixed)
    line = _summary_line(text.stderr)
    m = re.match(r"(\d+) files? would be migrated, (\d+) edits, (\d+) review markers added, (\d+) need review, "
                 rf"(\d+) errors, (\d+) could not be processed; target {step}( \(dry run: --write applies it\))?$", line)
    assert m, line
    changed, edits, added, review, errors, failed = map(int, m.groups()[:6])
    if step == PINNED:
        assert (changed, failed) == (2, 1) and errors == 3 and added >= 2
    else:  # leftovers.py's views are refused at both steps on the way, each said; back.py gains markers
        assert changed >= 1 and failed == 1 and errors >= 3 and added >= 1
    # Each count is a count of lines the text output prints.
    assert len(re.findall(r"^\S+:\d+:\d+: review ", text.stderr, re.M)) == review
    assert len(re.findall(r"^\S+:\d+:\d+: error [A-Z]+:", text.stderr, re.M)) == errors
    assert len(re.findall(r"^\S+:\d+:\d+: error: ", text.stderr, re.M)) == failed
    assert sum(line.startswith("+") and "# pypto-migrate: review" in line
               for line in pypto("run", *at, "--no-cache", ".", cwd=mixed).stdout.splitlines()) == added
    assert text.returncode == 2

    runs = {fmt: pypto(command, *at, "--no-cache", "--format", fmt, ".", cwd=mixed) for fmt in ("json", "sarif", "github")}
    for fmt, done in runs.items():
        assert _summary_line(done.stderr) == line, fmt  # the same line for every format
        assert done.returncode == 2
    doc = json.loads(runs["json"].stdout)
    s = doc["summary"]
    assert (s["changed"], s["edits"], s["markers_added"], s["review"], s["errors"], s["failed"]) == (
        changed, edits, added, review, errors, failed)
    assert s["edits"] == len(doc["edits"]) and s["failed"] == len(doc["errors"])
    assert s["review"] == sum(f["level"] == "review" for f in doc["findings"])
    assert s["errors"] == sum(f["level"] == "error" for f in doc["findings"])
    assert s["changed"] == sum(f["status"] == "changed" for f in doc["files"]) and s["files"] == len(doc["files"]) == 5
    assert s["review"] == sum(f["review"] for f in doc["files"]) and s["errors"] == sum(f["errors"] for f in doc["files"])
    levels = [r["level"] for r in json.loads(runs["sarif"].stdout)["runs"][0]["results"]]
    assert levels.count("warning") == review and levels.count("error") == edits + errors + failed
    github = runs["github"].stdout
    assert github.count("::warning ") == review and github.count("::error ") == edits + errors + failed
