"""The warm path stays light: a run whose results are all cached imports neither LibCST nor
rich (nor NumPy), and the plain lines it writes off a terminal are the bytes rich wrote."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.cli.console import PlainConsole, _rich_console, make_console
from codemods.cli.formats import plain_table
from codemods.run.discovery import discover
from conftest import FIXTURES

HEAVY = ("libcst", "rich", "numpy")


def _check(folder: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYPTO_MIGRATE_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "codemods", "check", "--jobs", "2", *extra, "."],
                          cwd=folder, capture_output=True, env=env, timeout=600)


def _imported(done: subprocess.CompletedProcess) -> set[str]:
    """Top-level packages named by -X importtime's lines on stderr."""
    names = set()
    for line in done.stderr.decode("utf-8").splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


def _problems(done: subprocess.CompletedProcess) -> str:
    return "".join(line + "\n" for line in done.stderr.decode("utf-8").splitlines() if not line.startswith("import time:"))


def test_a_warm_check_imports_neither_libcst_nor_rich(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    for name in ("deepseek_v3_2_decode_back.py", "edge_capacity.py", "edge_crlf_bom.py"):
        shutil.copy(FIXTURES / "2026-03" / "before" / name, folder / name)
    (folder / "plain.py").write_text("x = 1\n", encoding="utf-8")
    cache = tmp_path / "cache"

    cold = _check(folder, cache)
    assert cold.returncode == 1, cold.stderr.decode()
    assert "libcst" in _imported(cold)  # the probe sees imports at all: migrating needs LibCST
    assert "review PTO013" in _problems(cold)

    for extra in ((), ("--format", "json"), ("--format", "github")):
        first, warm = _check(folder, cache, *extra), _check(folder, cache, *extra)
        assert warm.returncode == first.returncode == 1
        assert warm.stdout == first.stdout and _problems(warm) == _problems(first)
        heavy = sorted(_imported(warm) & set(HEAVY))
        assert heavy == [], f"a warm check {' '.join(extra)} imported {heavy}"


def test_a_warm_check_writes_the_lines_a_cold_one_wrote(tmp_path):
    folder = tmp_path / "project"
    shutil.copytree(FIXTURES / "2026-03" / "before", folder)
    cache = tmp_path / "cache"
    cold, warm = _check(folder, cache), _check(folder, cache)
    assert _problems(cold) == _problems(warm) and "would be migrated" in _problems(warm)


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(TEXT, st.sampled_from(["a\tb", "x[/]", "[bold]y[/bold]", "a\rb", "é  ", "", "\x1b[31m", "a\nb"])),
                max_size=4))
def test_plain_lines_are_the_bytes_rich_printed(lines):
    plain, rich = io.StringIO(), io.StringIO()
    ours, theirs = PlainConsole(plain), _rich_console(rich, False)
    for line in lines:
        ours.print(line)
        theirs.print(line)
    assert plain.getvalue() == rich.getvalue()


def test_off_a_terminal_without_colour_the_console_is_plain():
    assert isinstance(make_console(io.StringIO(), color=False), PlainConsole)
    assert not isinstance(make_console(io.StringIO(), color=True), PlainConsole)


def test_discovery_takes_links_and_skips_what_it_did(tmp_path):
    root = tmp_path / "tree"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("a = 1\n")
    (root / "pkg" / "sub" / "b.py").write_text("b = 1\n")
    (root / "outside").mkdir()
    (root / "outside" / "c.py").write_text("c = 1\n")
    (root / "pkg" / "link.py").symlink_to(root / "outside" / "c.py")
    (root / "pkg" / "again.py").symlink_to(root / "pkg" / "a.py")  # the same file twice: taken once
    (root / "pkg" / "dirlink").symlink_to(root / "outside", target_is_directory=True)  # not walked, as os.walk
    (root / "pkg" / "broken.py").symlink_to(root / "nowhere.py")
    os.mkfifo(root / "pkg" / "pipe.py")
    (root / "pkg" / ".hidden").mkdir()
    (root / "pkg" / ".hidden" / "h.py").write_text("h = 1\n")
    skipped: list[str] = []
    found = discover([root / "pkg"], skipped)
    assert [p.relative_to(root).as_posix() for p in found] == ["pkg/a.py", "pkg/link.py", "pkg/sub/b.py"]
    assert sorted(line.rsplit(": skipped: ", 1)[1] for line in skipped) == ["broken symlink", "not a regular file (a named pipe)"]


CELL = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=12).map(str.strip).filter(bool)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(
    st.lists(CELL, min_size=n + 1, max_size=n + 1, unique=True),
    st.lists(st.lists(CELL, min_size=n + 1, max_size=n + 1).map(tuple), min_size=1, max_size=5),
    st.sets(st.integers(0, n - 1)),
)))
def test_the_plain_rule_table_is_the_one_rich_drew(case):
    from rich.table import Table
    from rich.text import Text

    header, rows, right_at = case
    right = {header[i] for i in right_at} | {header[-1]}
    plain = plain_table(tuple(header), rows, right)
    drawn = io.StringIO()
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    for column in header:
        table.add_column(column, justify="right" if column in right else "left")
    for cells in rows:
        table.add_row(*(Text(c) for c in cells))
    _rich_console(drawn, False).print(table)
    assert plain is not None and plain + "\n" == drawn.getvalue()
