"""pypto's own tests as the judge of a migration (../shared/corpus/pypto, issue 13).

`after/` is pypto's tree as its authors migrated it by hand to the target version: code the
target accepts, with a test suite that passes. Migrating it must change no file and break
no test. `before/` is the same tree before that hand migration: migrated by the tool, it
must lose no test that passed unmigrated under the target compiler; the tests it gains are
shown beside those the hand migration gained (`after/`'s suite is that reference).

Every run works on fresh copies in a temporary folder (the shared corpus is read-only, and
nothing is kept from one run to the next) and compares outcomes test by test (pytest's
junit XML), not counts. The suite runs under the python given (by default the one running
this, which `make install` gives pytest and the target's pypto wheel).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPTO = ROOT.parent / "shared" / "corpus" / "pypto"
PASSED = "passed"


def suite(tree: Path, python: str = sys.executable, timeout: float = 900) -> dict[str, str]:
    """Each test of `tree/tests` with its outcome (passed, failed, error, skipped); a module that
    cannot be collected is one `error` entry, so a migration that breaks an import shows."""
    report = tree.parent / f"{tree.name}-junit.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYPTO_MIGRATE"))}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONPATH="")
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors",
         f"--junitxml={report}", "tests"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=timeout,
    )
    if not report.exists():
        raise RuntimeError(f"pytest wrote no report in {tree} (exit {done.returncode}): {done.stderr[-2000:] or done.stdout[-2000:]}")
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        kinds = {child.tag for child in case}
        outcomes[name] = ("error" if "error" in kinds else "failed" if "failure" in kinds
                          else "skipped" if "skipped" in kinds else PASSED)
    return outcomes


def passing(outcomes: dict[str, str]) -> set[str]:
    return {name for name, outcome in outcomes.items() if outcome == PASSED}


@dataclass
class Side:
    """One tree of the corpus (after/ or before/), unmigrated and migrated by the tool."""

    name: str
    files: int = 0
    edits: int = 0
    changed: list[str] = field(default_factory=list)  # files whose bytes the tool changed
    errors: list[str] = field(default_factory=list)  # files the tool could not process
    original: dict[str, str] = field(default_factory=dict, repr=False)  # test -> outcome, unmigrated
    migrated: dict[str, str] = field(default_factory=dict, repr=False)  # test -> outcome, after `run --write`

    @property
    def broken(self) -> list[str]:
        return sorted(passing(self.original) - passing(self.migrated))

    @property
    def gained(self) -> list[str]:
        return sorted(passing(self.migrated) - passing(self.original))


def migrate_tree(source: Path, work: Path, jobs: int) -> tuple[Path, Path, Side]:
    """Two copies of `source`: one left as it is, one through `pypto-migrate run --write`."""
    original, migrated = work / f"{source.name}-original", work / f"{source.name}-migrated"
    for target in (original, migrated):
        _copy(source, target)
    side = Side(source.name)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    from codemods.rulebook.loading import steps

    # pypto's own tests are judged by c39, the first step's compiler: migrate to that step.
    done = subprocess.run([sys.executable, "-m", "codemods", "run", "--target", steps()[0], "--write", "--format", "json",
                           "--jobs", str(jobs), "."],
                          cwd=migrated, env=env, capture_output=True, text=True, timeout=1800)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"pypto-migrate run gave no JSON (exit {done.returncode}): {done.stderr[-2000:]}") from None
    for entry in report.get("files", []):
        side.edits += entry.get("edits", 0)
        if entry.get("status") == "error":
            side.errors.append(entry["file"])
    files = sorted(p.relative_to(original).as_posix() for p in original.rglob("*.py"))
    side.files = len(files)
    side.changed = [rel for rel in files if (original / rel).read_bytes() != (migrated / rel).read_bytes()]
    return original, migrated, side


def _copy(source: Path, target: Path) -> None:
    """A writable copy, without the shared tree's read-only modes and without the tool's cache."""
    import shutil

    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".pypto-migrate-cache", "__pycache__"))
    for folder, dirs, files in os.walk(target):
        for name in dirs + files:
            p = Path(folder) / name
            p.chmod(p.stat().st_mode | 0o200)


def score(jobs: int = 2, python: str = sys.executable, corpus: Path = PYPTO) -> tuple[Side, Side]:
    """after/ and before/, each migrated and tested; before/ also tested as pypto's authors
    migrated it (the `after/` tree's outcomes are in `after.original`)."""
    with tempfile.TemporaryDirectory(prefix="pypto-suite-") as tmp:
        work = Path(tmp)
        sides = []
        for name in ("after", "before"):
            original, migrated, side = migrate_tree(corpus / name, work / name, jobs)
            side.original, side.migrated = suite(original, python), suite(migrated, python)
            sides.append(side)
        return sides[0], sides[1]


def rows(after: Side, before: Side) -> list[tuple[str, str, str]]:
    """(measure, value, goal) for the scoreboard."""
    hand = sorted(passing(after.original) - passing(before.original))
    kept = len(passing(before.original) & passing(after.original))
    return [
        ("pypto after/: files changed by the tool", f"{len(after.changed)} of {after.files} ({after.edits} edits)", "0"),
        ("pypto after/: passing tests broken", f"{len(after.broken)} of {len(passing(after.original))}", "0"),
        ("pypto before/: passing tests broken", f"{len(before.broken)} of {len(passing(before.original))}", "0"),
        ("pypto before/: tests gained", f"{len(before.gained)} (now {len(passing(before.migrated))} pass)",
         f"by hand: {len(hand)} gained, {len(passing(after.original))} pass ({kept} of before's kept)"),
    ]


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--python", default=sys.executable, help="the python that runs pypto's tests (pypto and pytest)")
    parser.add_argument("--details", action="store_true", help="also name each broken and gained test")
    args = parser.parse_args()
    if not PYPTO.is_dir():
        print(f"no corpus at {PYPTO}", file=sys.stderr)
        return 2
    after, before = score(args.jobs, args.python)
    print(render(after, before, args.details))
    return 0


def render(after: Side, before: Side, details: bool = False) -> str:
    table = rows(after, before)
    widths = [max(len(r[i]) for r in [("measure", "value", "goal"), *table]) for i in range(3)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [("measure", "value", "goal"), *table]]
    if details:
        lines += [f"- after/ changed: {rel}" for rel in after.changed]
        lines += [f"- after/ broken: {t} ({after.migrated.get(t, 'gone')})" for t in after.broken]
        lines += [f"- before/ broken: {t} ({before.migrated.get(t, 'gone')})" for t in before.broken]
        lines += [f"- before/ gained: {t}" for t in before.gained]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
