"""The strict check against the real compiler on that compiler's own code: pypto's tree of
2026-08-21 (../shared/corpus/pypto/2026-08-21), written for e2d0f78ae by its authors.

  python benchmarks/strict_agreement.py            # the agreement, then each disagreement
  python benchmarks/strict_agreement.py --jobs 4

For every file that builds a program at module level (what `--compile` builds: a `@pl.program`
class, a function that defines one, an entry `@pl.jit` function), the strict check at the
target (`codemods.check.strict`, the 2026-08 table) says accept or reject, and so does the
compiler at parse level (the DSL parser and its type checks, through `codemods.compiler`).
The strict check is held to the same kernels the compiler builds: an error in a kernel
defined inside some other function (a test that expects it refused) is not counted.
A strict rejection the compiler does not raise is a false error of ours; a compiler rejection
the strict check does not foresee is one it misses. Files the compiler cannot import for want
of something other than pypto, or whose builders need arguments (a test's fixtures), are
counted apart: they say nothing either way.

The compiler runs in its own Python: $PYPTO_HEAD_PYTHON (`make` sets it), or --compiler-python.
The tree's own test modules import pytest and their harness at the top: the tool's pytest
(pure Python) is put on the compiler's path beside them, the tree's folders too.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from codemods.compiler import head  # noqa: E402
from codemods.compiler.bridge import probe  # noqa: E402
from codemods.interp.sources import builders, is_program  # noqa: E402
from real_corpus import CORPUS, writable_copy  # noqa: E402

TARGET = "2026-08"
TREE = CORPUS / "pypto" / "2026-08-21"
# What the tree's modules import that is not pypto: found in the tool's own environment.
PURE_PYTHON = ("pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments")
# A compile error that is not the compiler's verdict on a kernel: the module or its builder
# could not run at all here.
_NOT_BUILT = ("No module named", "cannot import name", "required positional argument", "required keyword-only argument",
              "cannot specialize from the signature",  # an entry @pl.jit of unshaped Tensors: built with samples only
              "external_source=")  # a C++ kernel file the stored tree does not hold


@dataclass
class Row:
    file: str
    strict: list[str] = field(default_factory=list)  # "line: message" of each rejection in a built kernel
    compiler: str = "-"  # accept | reject | nothing built | not built
    errors: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return "reject" if self.strict else "accept"


def built_ranges(tree: ast.Module) -> list[tuple[int, int]]:
    """The lines of the module-level definitions the compiler builds (decorators included)."""
    wanted = set(builders(tree)) | set(head.jit_functions(tree))
    ranges = []
    for node in tree.body:
        program = isinstance(node, ast.ClassDef) and any(is_program(d) for d in node.decorator_list)
        if program or (isinstance(node, ast.FunctionDef) and node.name in wanted):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            ranges.append((first, node.end_lineno or node.lineno))
    return ranges


def strict_rejections(text: str, ranges: list[tuple[int, int]]) -> list[str]:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from codemods.check.strict import check_module
    from codemods.rulebook.loading import load_api

    module = cst.parse_module(text)
    found = [v for v in check_module(module, load_api(None, TARGET)) if v.rejects]
    if not found:
        return []
    where = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = [(where[v.node].start.line, v.message) for v in found]
    return [f"{line}: {message}" for line, message in lines if any(a <= line <= b for a, b in ranges)]


def judge(row: Row, reply: dict) -> None:
    """The compiler's verdict, read off the worker's reply (`codemods.compiler.worker`)."""
    if reply.get("skipped"):
        row.compiler = "nothing built"
        return
    errors = reply.get("errors", [])
    if "internal" in reply:
        errors = [{"line": 1, "message": f"internal error of the compile worker: {reply['internal']}"}]
    # the compiler's own verdicts first: what a disagreement is about
    ordered = sorted(errors, key=lambda e: any(s in e["message"] for s in _NOT_BUILT))
    row.errors = [f"{e['line']}: {e['message'][:300]}" for e in ordered]
    if not errors and reply.get("programs"):
        row.compiler = "accept"
    elif errors and all(any(s in e["message"] for s in _NOT_BUILT) for e in errors):
        row.compiler = "not built"
    else:
        row.compiler = "reject" if errors else "nothing built"


def compile_all(paths: list[Path], python: str | None, jobs: int, env: dict, work: Path) -> list[dict]:
    """The worker's reply for each file, at parse level, from `jobs` processes that import pypto once."""
    requests = [json.dumps({"path": str(p), "text": None, "stage": "parse", "sets": {}, "target": TARGET,
                            "workdir": str(_fresh(work / "compile" / str(i)))}) for i, p in enumerate(paths)]
    shares = [list(range(len(paths)))[j::jobs] for j in range(max(1, jobs))]

    def run(share: list[int]) -> list[str]:
        done = subprocess.run([python or sys.executable, str(ROOT / "benchmarks" / "compile_many.py")],
                              input="".join(requests[i] + "\n" for i in share), capture_output=True, text=True,
                              env=env, timeout=300 * max(1, len(share)))
        replies = done.stdout.splitlines()
        if len(replies) != len(share):
            raise RuntimeError(f"compile_many answered {len(replies)} of {len(share)} files: {done.stderr.strip()[-500:]}")
        return replies

    replies: list[dict] = [{}] * len(paths)
    with ThreadPoolExecutor(max_workers=len(shares)) as pool:
        for share, answered in zip(shares, pool.map(run, shares)):
            for i, text in zip(share, answered):
                replies[i] = json.loads(text)
    return replies


def _fresh(folder: Path) -> Path:
    folder.mkdir(parents=True)
    return folder


def compiler_path(tree: Path, python: str | None, work: Path) -> str:
    """PYTHONPATH for the compiler's child: the tree's roots, and the pure-Python packages its
    modules import that the compiler's Python lacks, linked from ours."""
    links = work / "site"
    links.mkdir()
    asked = subprocess.run([python or sys.executable, "-c", "import importlib.util, sys; print(' '.join("
                            "n for n in sys.argv[1:] if importlib.util.find_spec(n) is None))", *PURE_PYTHON],
                           capture_output=True, text=True, timeout=120)
    for name in asked.stdout.split():
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            origin = Path(spec.origin)
            source = origin.parent if origin.name == "__init__.py" else origin
            (links / source.name).symlink_to(source)
    return os.pathsep.join(str(p) for p in (tree, tree / "tests" / "st", links))


def agreement(jobs: int, python: str | None) -> tuple[list[Row], float]:
    probe(target=TARGET, python=python)  # one clear error when the compiler is not there
    started = time.perf_counter()
    rows: list[tuple[Row, Path]] = []
    with tempfile.TemporaryDirectory(prefix="pypto-strict-agreement-") as tmp:
        work = Path(tmp)
        tree = writable_copy(TREE, work / TREE.name)
        for path in sorted(tree.rglob("*.py")):
            text = path.read_text(encoding="utf-8-sig")
            if "pypto" not in text:
                continue
            try:
                ranges = built_ranges(ast.parse(text))
            except SyntaxError:
                continue
            if not ranges:
                continue
            row = Row(path.relative_to(tree).as_posix())
            row.strict = strict_rejections(text, ranges)
            rows.append((row, path))
        paths = [compiler_path(tree, python, work), str(ROOT), os.environ.get("PYTHONPATH", "")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        for (row, _), reply in zip(rows, compile_all([p for _, p in rows], python, jobs, env, work)):
            judge(row, reply)
    return [r for r, _ in rows], time.perf_counter() - started


def report(rows: list[Row], details: bool) -> str:
    judged = [r for r in rows if r.compiler in ("accept", "reject")]
    agree = [r for r in judged if r.verdict == r.compiler]
    false_errors = [r for r in judged if r.verdict == "reject" and r.compiler == "accept"]
    missed = [r for r in judged if r.verdict == "accept" and r.compiler == "reject"]
    both = sum(r.compiler == "accept" for r in agree), sum(r.compiler == "reject" for r in agree)
    apart = {k: sum(r.compiler == k for r in rows) for k in ("nothing built", "not built")}
    lines = [
        f"strict check ({TARGET}) vs the compiler e2d0f78ae on {TREE.relative_to(CORPUS)}: {len(rows)} files build a "
        f"program at module level, {len(judged)} judged by the compiler; agreement {len(agree)}/{len(judged)} "
        f"(both accept {both[0]}, both reject {both[1]}); false errors (strict rejects, compiler accepts) "
        f"{len(false_errors)}; missed (compiler rejects, strict accepts) {len(missed)}; apart: "
        f"{apart['not built']} not built here (an import or a builder's arguments), {apart['nothing built']} built nothing",
    ]
    for title, group, what in (("false error", false_errors, "strict"), ("missed", missed, "errors")):
        for r in group:
            first = getattr(r, what)
            lines.append(f"- {title}: {r.file}:{first[0] if first else ''}")
            if details:
                lines.extend(f"    {more}" for more in first[1:])
    if details:
        for r in rows:
            if r.compiler == "not built":
                lines.append(f"- not built: {r.file}:{r.errors[0] if r.errors else ''}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--details", action="store_true", help="every message of each disagreement, and the files not built")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--compiler-python", help="the Python with the newest pypto (default: $PYPTO_HEAD_PYTHON)")
    args, _ = parser.parse_known_args()  # `make real ARGS=...` passes the other scoreboards' options too
    if not TREE.is_dir():
        print(f"no tree at {TREE}: the agreement needs ../shared/corpus beside this checkout", file=sys.stderr)
        return 2
    python = args.compiler_python or os.environ.get("PYPTO_HEAD_PYTHON") or None
    try:
        rows, seconds = agreement(args.jobs, python)
    except Exception as exc:  # no newest compiler: said once
        print(f"strict agreement failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    print(report(rows, args.details) + f"\n({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
