"""The scoreboard: the real corpus (../shared/corpus) through migrate, the compiler and verify.

  python benchmarks/real_corpus.py              # a table on stdout, one row per file
  python benchmarks/real_corpus.py --markdown   # the same table as markdown, to paste

The corpus is copied to a temporary folder (its files stay as they are), migrated there with
`pypto-migrate run --write` in a real subprocess, and each file is then looked at as it was
written: its open review markers and strict-check errors, the compiler's parse, its pass
pipeline and structure audit, buffer overflows as the tool and the compiler see them, for
every migrated kernel file of deepseek/ and library/ `verify` against the original, and
whether a second run changes anything. Below the table, pypto's own test suite judges the migration of its two trees
(benchmarks/pypto_suite.py): after/ must come out unchanged and keep every passing test,
before/ must lose none, and gains beside what pypto's authors reached by hand. Above the table,
the model's inference coverage per snapshot (benchmarks/inference_coverage.py), with the kernel
expressions it does not type fully listed in --unknown (inference-unknown.txt). Verify chooses
its sizes itself; tests/real_verify.toml gives the input bounds and poison some files need.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codemods.compiler.verdict import disagreements, over_limits, pair_kernels, tool_capacity  # noqa: E402
from codemods.compiler.bridge import CompilerUnavailable, compile_source, probe  # noqa: E402
from codemods.rulebook.loading import load_api  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
SIZES = ROOT / "tests" / "real_corpus_sizes.toml"
VERIFY_SETTINGS = ROOT / "tests" / "real_verify.toml"
DEEPSEEK = "deepseek"
VERIFIED = ("deepseek/", "library/")  # the handed-over kernels: every migrated one is verified
VERIFY_MEANING = {0: "equivalent", 1: "MISMATCH/error", 2: "usage error", 3: "equivalent but masked rows"}
VERIFY_TIMEOUT = 60.0  # a run past it is reported as such (the budget is 10 s)
_LINE = re.compile(r"^(?P<path>[^\s:][^:]*\.py):(?P<line>\d+):(?P<col>\d+): (?P<label>review|error) (?P<rule>\S+): ")
_FILE_ERROR = re.compile(r"^error: (?P<path>[^:]+\.py): (?P<message>.*)$")
_WOULD = re.compile(r"^(?P<path>[^:]+\.py): would be migrated \((?P<n>\d+) edits?\)")


def cli(*args: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    """The tool on the corpus, to the first step (this scoreboard's compiler is c39) unless the
    arguments name a target."""
    from codemods.rulebook.loading import steps

    if args and args[0] in ("run", "check") and "--target" not in args:
        args = (args[0], "--target", steps()[0], *args[1:])
    return subprocess.run([sys.executable, "-m", "codemods", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def writable_copy(source: Path, target: Path) -> Path:
    """A copy the tool may write: the shared corpus is read-only, and so would be a plain copy."""
    shutil.copytree(source, target)
    for folder, dirs, files in os.walk(target):
        for name in dirs + files:
            p = Path(folder) / name
            p.chmod(p.stat().st_mode | stat.S_IWUSR)
    return target


@dataclass
class Migration:
    """What `run --write` said, per corpus-relative path."""

    returncode: int
    errors: dict[str, str] = field(default_factory=dict)
    review: Counter = field(default_factory=Counter)
    strict: Counter = field(default_factory=Counter)
    edits: Counter = field(default_factory=Counter)
    stderr: str = ""


def parse_output(stderr: str, prefix: str) -> Migration:
    m = Migration(0, stderr=stderr)
    for line in stderr.splitlines():
        if (hit := _LINE.match(line)) and hit.group("path").startswith(prefix):
            path = hit.group("path")[len(prefix):]
            if hit.group("label") == "review":
                m.review[path] += 1
            elif hit.group("rule") == "API":
                m.strict[path] += 1
        elif (hit := _FILE_ERROR.match(line)) and hit.group("path").startswith(prefix):
            m.errors[hit.group("path")[len(prefix):]] = hit.group("message")
        elif (hit := _WOULD.match(line)) and hit.group("path").startswith(prefix):
            m.edits[hit.group("path")[len(prefix):]] = int(hit.group("n"))
    return m


def migrate_corpus(work: Path, jobs: int) -> tuple[Path, Migration, Migration]:
    """Copy, count the edits (check), write (run --write), then a second run's diff: the written tree and both runs."""
    tree = writable_copy(CORPUS, work / "corpus")
    before = cli("check", "--jobs", str(jobs), "corpus", cwd=work)
    written = cli("run", "--write", "--jobs", str(jobs), "corpus", cwd=work)
    first = parse_output(written.stderr, "corpus/")
    first.returncode = written.returncode
    first.edits = parse_output(before.stderr, "corpus/").edits
    second_run = cli("run", "--jobs", str(jobs), "--diff-file", str(work / "second.diff"), "corpus", cwd=work)
    second = parse_output(second_run.stderr, "corpus/")
    second.returncode = second_run.returncode
    second.edits = Counter({p[len("corpus/"):]: 1 for p in _diff_paths((work / "second.diff").read_text())})
    return tree, first, second


def _diff_paths(diff: str) -> list[str]:
    return [line[len("+++ b/"):].strip() for line in diff.splitlines() if line.startswith("+++ b/")]


def load_sizes(path: Path = SIZES) -> dict:
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    return data.get("files", data)


def sizes_for(sizes: dict, rel: str) -> dict | None:
    name = Path(rel).name
    for key in (rel, name, Path(rel).stem):
        if isinstance(sizes.get(key), dict):
            return sizes[key]
    return None


def verify_args(entry: dict) -> list[str]:
    args = []
    for text in entry.get("set", []):
        args += ["--set", text]
    for text in entry.get("input", []):
        args += ["--input", text]
    if "poison" in entry:
        args += ["--poison", entry["poison"]]
    return args


@dataclass
class Row:
    file: str
    status: str = ""
    edits: int = 0
    review: int = 0
    strict: int = 0
    parse: str = "-"
    passes: str = "-"
    structure: str = "-"
    overflows: str = "-"
    figures: str = "-"
    verify: str = "-"
    idempotent: str = "-"
    detail: list[str] = field(default_factory=list)


def compile_row(row: Row, path: Path, rel: str, api) -> None:
    result = compile_source(path, None, "passes")
    if result.skipped:
        row.parse = row.passes = "no program"
        return
    parse_errors = [e for e in result.errors if not e.message.startswith("pass pipeline")]
    if not result.programs:
        first = result.errors[0] if result.errors else None
        row.parse = f"{len(result.errors)} error{'s' * (len(result.errors) != 1)}"
        if first:
            row.detail.append(f"{rel}:{first.line}:{first.column}: {first.message}")
        return
    row.parse = "ok" if not parse_errors else f"{len(parse_errors)} errors"
    pass_errors = [e for e in result.errors if e.message.startswith("pass pipeline") or "Check failed" in e.message]
    row.passes = "ok" if not pass_errors and result.memory else ("error" if pass_errors else "no report")
    for e in result.errors:
        row.detail.append(f"{rel}:{e.line}:{e.column}: {e.message}")
    row.structure = "clean" if not result.structure else str(len(result.structure))
    row.detail.extend(f"{rel}: structure: {p.message}" for p in result.structure)
    try:
        capacity = tool_capacity(path.read_text(encoding="utf-8-sig"), rel, api)
    except Exception as exc:  # the tool's figures are beside the compiler's; their failure is shown, not fatal
        capacity = []
        row.detail.append(f"{rel}: the tool's capacity figures failed: {type(exc).__name__}: {exc}")
    pairs, notes = pair_kernels(capacity, result.memory)
    tool, compiler = over_limits(pairs)
    row.overflows = f"{tool} / {compiler}"
    figures = sum(1 for p in pairs if p.tool and p.compiler for s, (t, c, _) in p.spaces.items() if t or c is not None)
    differ = disagreements(pairs)
    row.figures = f"{figures - len(differ)}/{figures}"
    row.detail.extend(f"{rel}: capacity differs: {d}" for d in differ)
    row.detail.extend(f"{rel}: {n}" for n in notes)


def verify_settings(original: Path) -> dict:
    """The input bounds and poison tests/real_verify.toml gives a corpus file (by its path under the corpus)."""
    try:
        key = original.resolve().relative_to(CORPUS.resolve()).as_posix()
    except ValueError:
        return {}
    with VERIFY_SETTINGS.open("rb") as fh:
        return tomllib.load(fh).get(key, {})


def run_verify(original: Path, migrated: Path, work: Path, *target: str) -> tuple[str, str | None]:
    """`verify` of one migrated file at the sizes it chooses: the scoreboard's cell (exit code,
    meaning, seconds) and, unless equivalent, the line that says why."""
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "codemods", "verify", str(original), str(migrated), *target,
                               *verify_args(verify_settings(original))],
                              cwd=work, capture_output=True, text=True, timeout=VERIFY_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"1 timeout ({VERIFY_TIMEOUT:.1f} s)", f"verify ran over {VERIFY_TIMEOUT:.0f} s"
    seconds = time.perf_counter() - started
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()[-1:] or [""]
    if done.returncode == 2 and "not a kernel file" in said[0]:
        return "not a kernel", None
    if done.returncode == MISMATCH and said[0].endswith("(old profile)"):
        # The original itself failed: nothing to compare. Its own era's compiler says whether it
        # was ever valid code; where it refuses it too, that is the file's named reason.
        refused = refused_in_its_era(original)
        if refused is not None:
            return f"{NAMED} ({seconds:.1f} s)", f"the original is refused by its own era's compiler: {refused}"
    cell = f"{done.returncode} {VERIFY_MEANING.get(done.returncode, '?')} ({seconds:.1f} s)"
    return cell, None if done.returncode in (0, 3) else said[0]


MISMATCH = 1
NAMED = "original invalid"  # a cell covered by a named reason: the original is not valid code of its day
ERA_COMPILERS = {"pypto-lib": "2026-05-26"}  # corpus folder -> the compiler of its sources' era (../shared/oracle-eras)


def refused_in_its_era(original: Path) -> str | None:
    """The first line of what the compiler of `original`'s era says refusing it; None where it
    accepts it, where its era has no compiler here (February sources), or where it cannot run."""
    from kernelgen.compilers import CHECKER, pythons

    try:
        part = original.resolve().relative_to(CORPUS.resolve()).parts[0]
    except ValueError:
        return None
    python = pythons().get(ERA_COMPILERS.get(part, ""))
    if python is None or not CHECKER.is_file():
        return None
    try:
        done = subprocess.run([python, str(CHECKER), str(original)], capture_output=True, text=True,
                              timeout=VERIFY_TIMEOUT, cwd=original.parent)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 1:
        return None
    lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    said = next((line for line in lines if "error" in line.lower()), lines[0] if lines else "refused")[:300]
    at = next((line.rpartition(":")[0].rpartition(":")[2] for line in lines if line.startswith("-->")), "")
    return f"{said} (line {at})" if at.isdigit() else said


def verify_counts(cells: list[str]) -> tuple[int, int, float]:
    """(covered: equivalent, or not comparable for a named reason; kernel files verify ran on;
    the longest run in seconds) of a column of cells."""
    ran = [c for c in cells if c not in ("-", "not a kernel", "not migrated")]
    seconds = [float(m.group(1)) for c in ran if (m := re.search(r"\((\d+\.\d) s\)$", c))]
    return sum(c.startswith(("0 ", "3 ", NAMED)) for c in ran), len(ran), max(seconds, default=0.0)


def named_count(cells: list[str]) -> int:
    """The cells of `verify_counts`'s covered that are a named reason, not an equivalence."""
    return sum(c.startswith(NAMED) for c in cells)


def verify_row(row: Row, original: Path, migrated: Path, work: Path) -> None:
    if row.status != "migrated":
        row.verify = "not migrated"
        return
    row.verify, why = run_verify(original, migrated, work)
    if why:
        row.detail.append(f"{row.file}: verify: {why}")


def scoreboard(jobs: int) -> tuple[list[Row], dict]:
    api = load_api(None, "2026-03")
    with tempfile.TemporaryDirectory(prefix="pypto-real-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        tree, first, second = migrate_corpus(work, jobs)
        timings = {"migrate": time.perf_counter() - started}
        files = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py"))
        rows = []
        for rel in files:
            row = Row(rel)
            if rel in first.errors:
                row.status = "internal error" if "internal error" in first.errors[rel] else "error"
                row.detail.append(f"{rel}: {first.errors[rel].splitlines()[0]}")
            else:
                row.status = "migrated" if first.edits[rel] else "unchanged"
            row.edits, row.review, row.strict = first.edits[rel], first.review[rel], first.strict[rel]
            row.idempotent = "no" if second.edits[rel] else ("yes" if rel not in second.errors else "error")
            rows.append(row)
        started = time.perf_counter()
        try:
            probe()
            compiling = True
        except CompilerUnavailable as exc:
            compiling = False
            timings["compiler"] = f"unavailable ({exc})"
        if compiling:
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                list(pool.map(lambda r: compile_row(r, tree / r.file, r.file, api), rows))
            timings["compile"] = time.perf_counter() - started
        started = time.perf_counter()
        for row in rows:
            if row.file.startswith(VERIFIED) and row.status == "migrated":
                verify_row(row, CORPUS / row.file, tree / row.file, work)
        timings["verify"] = time.perf_counter() - started
        return rows, timings


COLUMNS = [
    ("file", "file"), ("status", "migrate"), ("edits", "edits"), ("review", "review"), ("strict", "strict errors"),
    ("parse", "compiler parse"), ("passes", "passes"), ("structure", "structure"), ("overflows", "overflows tool / compiler"),
    ("figures", "capacity = compiler"),
    ("verify", "verify"), ("idempotent", "idempotent"),
]


def render(rows: list[Row], markdown: bool) -> str:
    header = [title for _, title in COLUMNS]
    body = [[str(getattr(r, key)) for key, _ in COLUMNS] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n".join(lines)
    widths = [max(len(c) for c in column) for column in zip(header, *body)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in [header, *body])


def summary(rows: list[Row]) -> str:
    status = Counter(r.status for r in rows)
    compiled = [r for r in rows if r.parse not in ("-", "no program")]
    equivalent, ran, slowest = verify_counts([r.verify for r in rows])
    named = named_count([r.verify for r in rows])
    return (
        f"{len(rows)} files: {status['migrated']} migrated, {status['unchanged']} unchanged, "
        f"{status['error']} errors, {status['internal error']} internal errors; "
        f"{sum(r.review for r in rows)} review markers, {sum(r.strict for r in rows)} strict errors; "
        f"compiler: {sum(r.parse == 'ok' for r in rows)}/{len(compiled)} parse, "
        f"{sum(r.passes == 'ok' for r in rows)}/{len(compiled)} passes, "
        f"{sum(r.structure == 'clean' for r in rows)}/{sum(r.structure != '-' for r in rows)} structure clean; "
        f"verify: {equivalent}/{ran} migrated kernel files equivalent or with a named reason ({named} named; "
        f"longest {slowest:.1f} s); "
        f"idempotent: {sum(r.idempotent == 'yes' for r in rows)}/{len(rows)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    parser.add_argument("--details", action="store_true", help="also list each file's first errors")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--unknown", default="inference-unknown.txt",
                        help="where the kernel expressions the model does not type fully are listed")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}: the scoreboard needs ../shared/corpus beside this checkout", file=sys.stderr)
        return 2
    started = time.perf_counter()
    import inference_coverage  # what the model types of the corpus's kernel code, before any run

    inference_coverage.report(unknown=Path(args.unknown))
    print()
    rows, timings = scoreboard(args.jobs)
    print(render(rows, args.markdown))
    print()
    print(summary(rows))
    if (CORPUS / "pypto").is_dir():
        import pypto_suite

        tested = time.perf_counter()
        after, before = pypto_suite.score(args.jobs)
        timings["pypto tests"] = time.perf_counter() - tested
        print()
        print("pypto's own tests (../shared/corpus/pypto: after/ = the hand migration, before/ = the old tree):")
        print(pypto_suite.render(after, before, args.details))
    if args.details:
        print()
        for row in rows:
            for line in row.detail:
                print(("- " if args.markdown else "") + line)
    shown = ", ".join(f"{k} {v:.1f} s" if isinstance(v, float) else f"{k} {v}" for k, v in timings.items())
    print(f"\n({shown}; total {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
