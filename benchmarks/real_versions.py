"""The scoreboard of the version upgrade: real code of other days migrated to --target 2026-08
and judged by that day's compiler (pypto e2d0f78ae of 2026-08-21).

  python benchmarks/real_versions.py               # one section per snapshot, then DeepSeek
  python benchmarks/real_versions.py --markdown --details

Sections: each pypto-lib snapshot (../shared/corpus/pypto-lib/<day>/, written for the pypto
of its day) and the four DeepSeek parts of February (../shared/corpus/deepseek). Each is
copied to a temporary folder, migrated there with `run --write --target 2026-08` in a real
subprocess and run a second time (idempotence); every file that builds a program (a
`build_*` function, a `@pl.program` class, an entry `@pl.jit` function) is then compiled by
the newest compiler: parse, the pass pipeline, the structure audit of its IR and the
orchestration code generator; where the compiler rejects a file, whether a review marker
stands at the line it names. Every migrated file is also verified against its original at the
sizes verify chooses itself (input bounds and poison from tests/real_verify.toml).

The newest compiler runs in its own Python: $PYPTO_HEAD_PYTHON (`make` sets it to
.venv-head/bin/python, which `make install` builds from ../shared/oracle-head/), or
--compiler-python.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from codemods.compiler.bridge import compile_source, probe  # noqa: E402
from codemods.compiler.verdict import under_review_marker  # noqa: E402
from real_corpus import (  # noqa: E402
    CORPUS, NAMED, _diff_paths, named_count, parse_output, run_verify, verify_counts, writable_copy,
)

TARGET = "2026-08"
SNAPSHOTS = CORPUS / "pypto-lib"
DEEPSEEK = CORPUS / "deepseek"
_ELSEWHERE = re.compile(r"\(in (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)\)$")
GOAL = 0.9  # the share of program-building files the newest compiler must parse and pass (issue 14)


def snapshots() -> list[Path]:
    """The dated snapshots of the model library (folders named by their day)."""
    if not SNAPSHOTS.is_dir():
        return []
    return sorted(p for p in SNAPSHOTS.iterdir() if p.is_dir() and p.name[:4].isdigit())


def head_python(explicit: str | None = None) -> str | None:
    return explicit or os.environ.get("PYPTO_HEAD_PYTHON") or os.environ.get("PYPTO_PYTHON") or None


def cli(*args: str, cwd: Path, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemods", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@dataclass
class Row:
    file: str
    status: str = ""
    edits: int = 0
    review: int = 0
    builds: bool = False  # the compiler found a program to build
    parse: str = "-"
    passes: str = "-"
    structure: str = "-"
    marked: str = "-"  # rejected: "yes" when every rejection stands under a review marker
    verify: str = "-"
    idempotent: str = "-"
    detail: list[str] = field(default_factory=list)


@dataclass
class Section:
    name: str
    rows: list[Row]
    seconds: float = 0.0

    @property
    def building(self) -> list[Row]:
        return [r for r in self.rows if r.builds]

    def counts(self) -> dict[str, int]:
        built = self.building
        rejected = [r for r in built if r.passes != "ok"]
        return {
            "files": len(self.rows),
            "migrated": sum(r.status == "migrated" for r in self.rows),
            "internal errors": sum(r.status == "internal error" for r in self.rows),
            "errors": sum(r.status == "error" for r in self.rows),
            "review markers": sum(r.review for r in self.rows),
            "edits": sum(r.edits for r in self.rows),
            "build a program": len(built),
            "parse": sum(r.parse == "ok" for r in built),
            "passes": sum(r.passes == "ok" for r in built),
            "structure clean": sum(r.structure == "clean" for r in built),
            "rejected": len(rejected),
            "rejected under a marker": sum(r.marked == "yes" for r in rejected),
            "verified": verify_counts([r.verify for r in self.rows])[0],
            "verify run": verify_counts([r.verify for r in self.rows])[1],
            "verify longest s": verify_counts([r.verify for r in self.rows])[2],
            "verify named": named_count([r.verify for r in self.rows]),
            "idempotent": sum(r.idempotent == "yes" for r in self.rows),
        }


def migrate(source: Path, work: Path, jobs: int):
    """Copy `source`, migrate the copy to the target (check, run --write), run again: the tree and both runs."""
    name = source.name
    tree = writable_copy(source, work / name)
    target = ("--target", TARGET)
    before = cli("check", *target, "--jobs", str(jobs), name, cwd=work)
    written = cli("run", "--write", *target, "--jobs", str(jobs), name, cwd=work)
    if written.returncode == 2 and f"{name}/" not in written.stderr:  # the tool refused the run as a whole
        raise RuntimeError(f"run --write {name} failed: {written.stderr.strip()[:500]}")
    first = parse_output(written.stderr, f"{name}/")
    first.returncode = written.returncode
    first.edits = parse_output(before.stderr, f"{name}/").edits
    second_diff = work / f"{name}.second.diff"
    again = cli("run", *target, "--jobs", str(jobs), "--diff-file", str(second_diff), name, cwd=work)
    second = parse_output(again.stderr, f"{name}/")
    diff = second_diff.read_text() if second_diff.exists() else ""
    second.edits = Counter({p[len(name) + 1:]: 1 for p in _diff_paths(diff) if p.startswith(f"{name}/")})
    return tree, first, second


def judge(row: Row, path: Path, python: str | None) -> None:
    """The newest compiler's verdict on one migrated file: parse, then the pass pipeline."""
    text = path.read_text(encoding="utf-8-sig")
    parsed = compile_source(path, None, "parse", target=TARGET, python=python)
    if parsed.skipped:
        return
    row.builds = True
    row.parse = "ok" if parsed.ok and parsed.programs else f"{len(parsed.errors)} errors"
    result = compile_source(path, None, "passes", target=TARGET, python=python) if parsed.ok else parsed
    row.passes = "ok" if result.ok and result.programs else ("-" if not parsed.ok else f"{len(result.errors)} errors")
    if result.ok and result.programs:
        row.structure = "clean" if not result.structure else str(len(result.structure))
        row.detail.extend(f"{row.file}: structure: {p.function}: {p.message}" for p in result.structure)
        return
    unmarked = [e for e in result.errors if not marked(text, e)]
    row.marked = "no" if unmarked or not result.errors else "yes"
    for e in result.errors[:3]:
        flag = "" if marked(text, e) else "  [no review marker]"
        row.detail.append(f"{row.file}:{e.line}:{e.column}: {e.message[:300]}{flag}")


def marked(text: str, error) -> bool:
    """Whether a review marker stands at the line the compiler names: in this file, or in the
    module it imports where the error is (the worker says `(in FILE:LINE:COL)` then)."""
    elsewhere = _ELSEWHERE.search(error.message)
    if elsewhere is None:
        return under_review_marker(text, error.line)
    try:
        other = Path(elsewhere.group("file")).read_text(encoding="utf-8-sig")
    except OSError:
        return False
    return under_review_marker(other, int(elsewhere.group("line")))


def section(source: Path, title: str, work: Path, jobs: int, python: str | None, verify: bool = True) -> Section:
    started = time.perf_counter()
    tree, first, second = migrate(source, work, jobs)
    rows = []
    for rel in sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py")):
        row = Row(rel)
        if rel in first.errors:
            row.status = "internal error" if "internal error" in first.errors[rel] else "error"
            row.detail.append(f"{rel}: {first.errors[rel].splitlines()[0]}")
        else:
            row.status = "migrated" if first.edits[rel] else "unchanged"
        row.edits, row.review = first.edits[rel], first.review[rel]
        row.idempotent = "no" if second.edits[rel] else ("error" if rel in second.errors else "yes")
        rows.append(row)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(lambda r: judge(r, tree / r.file, python), rows))
    for row in rows if verify else ():
        if row.status == "migrated":
            row.verify, why = run_verify(source / row.file, tree / row.file, work, "--target", TARGET)
            if why:
                row.detail.append(f"{row.file}: verify: {why}")
    return Section(title, rows, time.perf_counter() - started)


def scoreboard(jobs: int, python: str | None) -> list[Section]:
    probe(target=TARGET, python=python)  # one clear error when the newest compiler is not there
    sections = []
    with tempfile.TemporaryDirectory(prefix="pypto-versions-") as tmp:
        work = Path(tmp)
        for snapshot in snapshots():
            sections.append(section(snapshot, f"pypto-lib {snapshot.name} -> {TARGET}", work, jobs, python))
        if DEEPSEEK.is_dir():
            sections.append(section(DEEPSEEK, f"DeepSeek v3.2 (February) -> {TARGET}", work, jobs, python))
    return sections


COLUMNS = [
    ("file", "file"), ("status", "migrate"), ("edits", "edits"), ("review", "review"), ("parse", "parse"),
    ("passes", "passes"), ("structure", "structure"), ("marked", "rejection under marker"), ("verify", "verify"),
    ("idempotent", "idempotent"),
]


def render(sec: Section, markdown: bool) -> str:
    header = [title for _, title in COLUMNS]
    body = [[str(getattr(r, key)) for key, _ in COLUMNS] for r in sec.rows]
    if markdown:
        lines = [f"### {sec.name}", "", "| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
        return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in body])
    widths = [max(len(c) for c in column) for column in zip(header, *body)]
    lines = [f"== {sec.name} =="]
    return "\n".join(lines + ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in [header, *body]])


def summary(sec: Section) -> str:
    c = sec.counts()
    built = c["build a program"]
    share = f" ({c['passes'] / built:.0%}, goal {GOAL:.0%})" if built else ""
    verify = (f"; verify {c['verified']}/{c['verify run']} migrated kernel files equivalent or with a named reason "
              f"({c['verify named']} named; longest {c['verify longest s']:.1f} s)" if c["verify run"] else "")
    return (
        f"{sec.name}: {c['files']} files, {c['migrated']} migrated ({c['edits']} edits), {c['errors']} errors, "
        f"{c['internal errors']} internal errors, {c['review markers']} review markers; newest compiler on the "
        f"{built} that build a program: parse {c['parse']}/{built}, passes {c['passes']}/{built}{share}, structure "
        f"clean {c['structure clean']}/{c['passes']}; rejected {c['rejected']}, under a review marker "
        f"{c['rejected under a marker']}/{c['rejected']}{verify}; idempotent {c['idempotent']}/{c['files']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    parser.add_argument("--details", action="store_true", help="also list the compiler's first errors per file")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--compiler-python", help="the Python with the newest pypto (default: $PYPTO_HEAD_PYTHON)")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}: the scoreboard needs ../shared/corpus beside this checkout", file=sys.stderr)
        return 2
    python = head_python(args.compiler_python)
    try:
        sections = scoreboard(args.jobs, python)
    except Exception as exc:  # no newest compiler, or a tool that refuses to run: said once
        print(f"version scoreboard failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    for sec in sections:
        print(render(sec, args.markdown))
        print()
        print(summary(sec) + f" ({sec.seconds:.0f} s)")
        if args.details:
            print()
            for row in sec.rows:
                for line in row.detail:
                    print(("- " if args.markdown else "") + line)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
