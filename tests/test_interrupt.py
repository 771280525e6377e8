"""Ctrl-C stops a run at once (issue 36.5): no file is written after it, none half-written, the
files written before it are listed, and the run exits 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codemods.cli import exits
from conftest import ROOT

# Every copy needs the 2026-03 step (pl.view is gone, store takes no shape): each file changes.
KERNEL = '''import pypto.language as pl


@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(4):
            part = pl.view(x, [16, 64], [i * 16, 0])
            doubled = pl.add(part, part)
            out = pl.store(doubled, [i * 16, 0], [16, 64], out)
        return out
'''
FILES = 300


def _changed(tree: Path) -> set[str]:
    return {p.name for p in tree.glob("*.py") if p.read_text(encoding="utf-8") != KERNEL}


def _default_sigint() -> None:
    # A run started from a shell's background job inherits SIGINT ignored; the test sends it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
@pytest.mark.parametrize("jobs", [2, 1])
@pytest.mark.parametrize("to_group", [False, True], ids=["kill", "ctrl-c"])
def test_sigint_stops_a_write_run_and_lists_what_it_wrote(tmp_path, jobs, to_group):
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(FILES):
        (tree / f"k{i:03}.py").write_text(KERNEL, encoding="utf-8")
    # `kill -INT` reaches the run alone; a terminal's Ctrl-C reaches its whole process group
    # (the workers too): a session of its own stands for the terminal's group.
    proc = subprocess.Popen([sys.executable, "-m", "codemods", "run", "--write", "--no-cache", "--target", "2026-03",
                             "--jobs", str(jobs), "."], cwd=tree, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                            preexec_fn=_default_sigint, start_new_session=to_group)
    try:
        deadline = time.monotonic() + 120
        while not _changed(tree) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before its first write was seen"
        assert _changed(tree), "no file written within two minutes"
        sent = time.monotonic()
        if to_group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == exits.INTERRUPTED == 130, err
    assert took < 3, f"the run took {took:.1f} s to stop"
    changed = _changed(tree)
    listed = {Path(line.split(": ", 1)[1]).name for line in err.splitlines() if line.startswith("written: ")}
    assert listed == changed, "the list names exactly the files changed on disk"
    assert 0 < len(changed) < FILES, "stopped part way"
    assert f"{len(changed)} file{'s' * (len(changed) != 1)} written, each whole; the other {FILES - len(changed)} " \
           f"file{'s' * (FILES - len(changed) != 1)} not written" in err
    assert "Traceback" not in err and "Aborted!" not in err, err
    for name in changed:  # each whole: the 2026-03 form throughout, nothing of the old left
        text = (tree / name).read_text(encoding="utf-8")
        assert "pl.view" not in text and "pl.load(x, [i * 16, 0], [16, 64]" in text
    assert sorted(p.name for p in tree.iterdir()) == sorted(f"k{i:03}.py" for i in range(FILES)), "no temporary file left"
    time.sleep(1.5)  # a worker still going would write again
    assert _changed(tree) == changed, "a file was written after the run had stopped"
