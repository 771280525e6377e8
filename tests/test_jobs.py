"""Work over processes: the same bytes for any --jobs, the costliest files first, a pool only
where it pays, and no worker left behind when the run is killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codemods.run import runner
from codemods.run.parallel import balanced_map
from codemods.rulebook.loading import load_rules
from conftest import FIXTURES, pinned


def _tree(root: Path, copies: int) -> Path:
    for i in range(copies):
        shutil.copytree(FIXTURES / "2026-03" / "before", root / f"m{i}")
    (root / "plain.py").write_text("x = 1\n")
    (root / "syntax.py").write_text("def f(:\n    pass\n")
    return root


def cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemods", *pinned(args)], cwd=cwd, capture_output=True,
                          text=True, encoding="utf-8")


def test_the_output_is_the_same_bytes_for_any_number_of_jobs(tmp_path):
    tree = _tree(tmp_path / "tree", copies=3)
    runs = {jobs: cli("run", "--no-cache", "--jobs", jobs, ".", cwd=tree) for jobs in (1, 2, 3)}
    checks = {jobs: cli("check", "--no-cache", "--jobs", jobs, ".", cwd=tree) for jobs in (1, 3)}
    assert runs[1].stdout.count("+++ b/") == 3 * len(list((FIXTURES / "2026-03" / "before").glob("*.py")))  # each kernel changes
    for done in (runs, checks):
        first = done[1]
        for other in done.values():
            assert (other.returncode, other.stdout, other.stderr) == (first.returncode, first.stdout, first.stderr)


def test_a_pool_is_started_only_where_it_pays(tmp_path, monkeypatch):
    pools = []

    def recording(fn, items, costs, jobs, on_done=None):
        pools.append((len(items), jobs))
        return balanced_map(fn, items, costs, jobs, on_done)

    monkeypatch.setattr(runner, "balanced_map", recording)
    job = runner.Job(tuple(r.id for r in load_rules()))
    light = tmp_path / "light"
    light.mkdir()
    for i in range(40):
        (light / f"p{i}.py").write_text("x = 1\n" * 50)
    (light / "k.py").write_text((FIXTURES / "2026-03" / "before" / "edge_regions.py").read_text())
    runner.run(sorted(light.iterdir()), job, jobs=2)
    assert pools == [], "forty plain files and one small kernel: cheaper in one process"
    heavy = sorted(_tree(tmp_path / "heavy", copies=3).rglob("*.py"))
    outcomes = runner.run(heavy, job, jobs=2)
    assert pools == [(len(heavy), 2)]
    assert [o.display for o in outcomes] == [runner.display_path(p) for p in heavy]


def _stamp(item: str) -> tuple[str, float]:
    time.sleep(0.01)
    return item, time.monotonic()


def test_balanced_map_starts_the_costliest_first_and_keeps_the_input_order():
    items = ["a", "b", "c", "d", "e"]
    costs = [1.0, 5.0, 2.0, 5.0, 0.5]
    results = balanced_map(_stamp, items, costs, jobs=1)  # one worker: it runs them in the order handed out
    assert [item for item, _ in results] == items
    started = [item for item, _ in sorted(results, key=lambda r: r[1])]
    assert started == ["b", "d", "c", "a", "e"]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.add(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended, only not been reaped
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_run_killed_by_sigkill(tmp_path):
    tree = _tree(tmp_path / "tree", copies=12)
    proc = subprocess.Popen([sys.executable, "-m", "codemods", "check", "--no-cache", "--jobs", "2", "."], cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: set[int] = set()
        deadline = time.monotonic() + 60
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            workers |= {pid for pid in _children(proc.pid) if _alive(pid)}
            time.sleep(0.05)
        assert len(workers) == 2, "the run started its two workers"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "a worker outlived its run"
    finally:
        if proc.poll() is None:
            proc.kill()
