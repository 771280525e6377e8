"""Speed and memory of a migration, printed as figures (never asserted in a test).

  python benchmarks/bench_migrate.py            # each DeepSeek fixture, then a tree of copies
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codemods.engine import migrate  # noqa: E402
from codemods.rulebook import load_api, load_rules  # noqa: E402
from codemods.runner import LEFTOVER_ID, Job, run  # noqa: E402


def per_file() -> None:
    rules, api = load_rules(), load_api()
    known = frozenset(r.id for r in rules) | {LEFTOVER_ID}
    print("per fixture (all rules and the strict re-check, median of 7 runs):")
    for path in sorted((ROOT / "fixtures" / "before").glob("deepseek_v3_2_*.py")):
        text = path.read_text()
        times = []
        for _ in range(7):
            start = time.perf_counter()
            result = migrate(text, rules, api, known, strict=True)
            times.append(time.perf_counter() - start)
        lines = text.count("\n")
        print(f"  {path.name:36} {lines:4} lines  {len(result.edits):4} edits  {statistics.median(times) * 1000:7.1f} ms")


def tree(copies: int = 12) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(copies):
            shutil.copytree(ROOT / "fixtures" / "before", Path(tmp) / f"m{i:03}")
        files = sorted(Path(tmp).rglob("*.py"))
        ids = tuple(r.id for r in load_rules())
        for jobs in (1, os.cpu_count() or 1):
            start = time.perf_counter()
            outcomes = run(files, Job(ids), jobs)
            took = time.perf_counter() - start
            lines = sum(f.read_text().count("\n") for f in files)
            print(f"tree of {len(files)} files, {lines} lines, --jobs {jobs}: {took:.2f} s "
                  f"({lines / took:,.0f} lines/s), {sum(len(o.edits) for o in outcomes)} edits")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process: {peak:.0f} MiB")


if __name__ == "__main__":
    per_file()
    tree()
