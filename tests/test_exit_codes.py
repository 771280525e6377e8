"""One exit-code table (issue 29.3): the README, docs/usage.md and each command's --help show
it word for word, and the commands exit as it says."""

from __future__ import annotations

import re

import pytest

from codemods.cli import exits
from conftest import ROOT, pypto

KERNEL = "import pypto.language as pl\n\n\ndef k(t):\n    return pl.view(t, [4, 4], [0, 0])\n"


@pytest.mark.parametrize("page", ["README.md", "docs/usage.md"])
def test_the_pages_hold_the_table_word_for_word(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert exits.markdown() in text
    # ... and no other table of exit codes beside it.
    assert len(re.findall(r"^\| code \| `check` \|", text, re.M)) == 1


@pytest.mark.parametrize("command", list(exits.TABLE))
def test_each_help_prints_its_column_of_the_table(tmp_path, command):
    helped = pypto(command, "--help", cwd=tmp_path).stdout
    section = helped[helped.index("Exit codes:"):].splitlines()[1:]
    said = {int(m.group(1)): m.group(2) for m in (re.match(r"^\s+(\d+)  (.*)$", line) for line in section) if m}
    assert said == exits.TABLE[command]
    # The table's column in the pages says the same: each cell is the help's line.
    row = {int(cells[0]): cells for cells in (
        [c.strip() for c in line.strip("|").split("|")] for line in exits.markdown().splitlines()[2:])}
    column = list(exits.TABLE).index(command) + 1
    assert {code: cells[column] for code, cells in row.items() if cells[column]} == said


def test_a_dry_run_with_pending_edits_exits_0_and_check_exits_1(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL)
    dry = pypto("run", "k.py", cwd=tmp_path)
    assert dry.returncode == 0 and "+++ b/k.py" in dry.stdout and "1 file would be migrated, 1 edit" in dry.stderr
    assert pypto("check", "k.py", cwd=tmp_path).returncode == 1
    assert pypto("run", "--write", "k.py", cwd=tmp_path).returncode == 0
    assert pypto("check", "k.py", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("command", ["check", "run", "report"])
def test_an_empty_folder_exits_0_and_says_so(tmp_path, command):
    (tmp_path / "models").mkdir()
    done = pypto(command, "models", cwd=tmp_path)
    assert done.returncode == 0
    assert re.search(r"^warning: no Python file to (process|read) in models: nothing to (do|report)$", done.stderr, re.M)


@pytest.mark.parametrize("command", ["check", "run", "report"])
def test_a_tree_without_kernels_exits_0_and_says_so(tmp_path, command):
    tree = tmp_path / "tools"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.py").write_text("x = 1\n")
    (tree / "sub" / "b.py").write_text("def f():\n    return 2\n")
    done = pypto(command, "tools", cwd=tmp_path)
    assert done.returncode == 0
    expected = ("note: no kernel in the 2 files read: nothing to report" if command == "report"
                else "note: none of the 2 files names pypto: nothing to migrate")
    assert expected in done.stderr
