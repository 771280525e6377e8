"""A file is either untouched or fully migrated; bad input never costs a byte."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from codemods.text import sources
from codemods.run.discovery import discover
from codemods.run.runner import Job, process
from codemods.text.sources import FileProblem, read_text, write_atomic


def test_atomic_write_keeps_mode_and_content(tmp_path):
    f = tmp_path / "k.py"
    f.write_text("old\n")
    f.chmod(0o750)
    write_atomic(f, "new\r\n")
    assert f.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o750
    assert os.listdir(tmp_path) == ["k.py"]


def test_failure_before_rename_leaves_the_original(tmp_path, monkeypatch):
    f = tmp_path / "k.py"
    f.write_text("original\n")

    def boom(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sources.os, "replace", boom)
    with pytest.raises(FileProblem, match="No space left"):
        write_atomic(f, "migrated\n")
    assert f.read_text() == "original\n"
    assert os.listdir(tmp_path) == ["k.py"]


def test_killed_midway_leaves_each_file_whole(tmp_path):
    """SIGKILL a writer that is slowed down between files: each file is old or new, never half."""
    kernel = "import pypto.language as pl\n" + "x = pl.view(t, [1], [0])\n" * 2000
    for i in range(30):
        (tmp_path / f"k{i:02}.py").write_text(kernel)
    script = textwrap.dedent(
        f"""
        import time, codemods.text.sources as s
        real = s.write_atomic
        def slow(path, text):
            real(path, text)
            time.sleep(0.05)
        s.write_atomic = slow
        import codemods.run.runner as r
        r.write_atomic = slow
        from codemods.cli.commands import main
        main(["run", "--write", "--jobs", "1", {str(tmp_path)!r}])
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = [tmp_path / f"k{i:02}.py" for i in range(30)]
    # Wait until the writer is midway, then kill it without warning. A file takes seconds on a
    # loaded 2-core machine, so the wait is bounded generously rather than tuned to one machine.
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if any("pl.slice" in f.read_text() for f in files):
            break
        time.sleep(0.025)
    proc.kill()
    proc.wait()
    migrated = kernel.replace("pl.view(", "pl.slice(")
    states = [f.read_text() for f in files]
    assert all(s in (kernel, migrated) for s in states)
    assert 0 < sum(s == migrated for s in states) < 30, "the kill landed midway"
    strays = [p for p in os.listdir(tmp_path) if not (p.startswith("k") and p.endswith(".py"))]
    assert all(p.startswith(".") and p.endswith(".pypto-migrate") for p in strays)  # hidden, never *.py


def test_read_text_reports_the_bad_byte_position(tmp_path):
    f = tmp_path / "x.py"
    f.write_bytes(b"a = 1\nb = '\xff'\n")
    with pytest.raises(FileProblem) as info:
        read_text(f)
    assert (info.value.line, info.value.column) == (2, 6)


def test_engine_errors_never_write(tmp_path, monkeypatch):
    f = tmp_path / "k.py"
    f.write_text("import pypto.language as pl\npl.view(a, [1], [0])\n")

    def broken(*_a, **_k):
        from codemods.check.results import EngineError

        raise EngineError("engine error: rule PTO001 produced code that does not parse", 2, 1)

    monkeypatch.setattr("codemods.run.runner.migrate", broken)
    outcome = process(f, Job(("PTO001",), write=True))
    assert outcome.error and "PTO001" in outcome.error and outcome.error.endswith("does not parse")
    assert not outcome.written and outcome.diff == ""
    assert "pl.view" in f.read_text()


def test_discovery_skips_hidden_venvs_caches_and_gitignored(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "k.py").write_text("")
    (tmp_path / "pkg" / "notes.txt").write_text("")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.py").write_text("")
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "pyvenv.cfg").write_text("")
    (tmp_path / "env" / "v.py").write_text("")
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "__pycache__" / "c.py").write_text("")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text("")
    found = {p.relative_to(tmp_path).as_posix() for p in discover([tmp_path])}
    assert found == {"pkg/k.py", "build/gen.py"}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    found = {p.relative_to(tmp_path).as_posix() for p in discover([tmp_path])}
    assert found == {"pkg/k.py"}
    named = tmp_path / "build" / "gen.py"
    assert discover([named]) == [named], "a file named on the command line is always taken"


@pytest.mark.parametrize("body,message", [
    ("(" * 3000 + "1" + ")" * 3000, "too many nested parentheses"),  # would crash LibCST's native parser
    ("+".join(["1"] * 2500), "nested too deeply to migrate"),  # parses, but is deeper than a tree walk goes
])
def test_a_file_too_deep_costs_only_itself(tmp_path, body, message):
    deep = tmp_path / "deep.py"
    deep.write_text("import pypto.language as pl\nx = " + body + "\n")
    ok = tmp_path / "ok.py"
    ok.write_text("import pypto.language as pl\ny = pl.view(t, [1], [0])\n")
    outcomes = [process(p, Job(("PTO001",))) for p in (deep, ok)]
    assert message in outcomes[0].error and outcomes[0].diff == ""
    assert outcomes[1].error is None and "pl.slice" in outcomes[1].diff


def test_an_internal_error_costs_only_its_file(tmp_path, monkeypatch):
    f = tmp_path / "k.py"
    f.write_text("import pypto.language as pl\npl.view(a, [1], [0])\n")

    def bug(*_a, **_k):
        raise KeyError("surprise")

    monkeypatch.setattr("codemods.run.runner.migrate", bug)
    outcome = process(f, Job(("PTO001",), write=True))
    assert outcome.error == f"{outcome.display}: internal error, left as it was (KeyError: 'surprise'); please report it"
    assert "pl.view" in f.read_text()
