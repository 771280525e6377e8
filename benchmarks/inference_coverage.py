"""Inference coverage on the real corpus: the share of kernel expressions the model types fully.

  python benchmarks/inference_coverage.py                  # one line per snapshot
  python benchmarks/inference_coverage.py --unknown FILE   # and the unknown ones, one a line

What counts, and what "known" means, is `codemods/migrate/coverage.py`'s docstring. A
snapshot is a folder of the corpus written on one day: deepseek/, library/, pypto/before/,
pypto/after/ and each pypto-lib/<day>/. Each file is measured at the first step its
migration needs, with that step's inference.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codemods.migrate.coverage import Entry, measure  # noqa: E402
from codemods.rulebook.loading import load_api, steps  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"


def snapshots(corpus: Path = CORPUS) -> list[tuple[str, Path]]:
    found = [(name, corpus / name) for name in ("deepseek", "library", "pypto/before", "pypto/after")]
    lib = corpus / "pypto-lib"
    if lib.is_dir():
        found += [(f"pypto-lib/{p.name}", p) for p in sorted(lib.iterdir()) if p.is_dir() and p.name[:4].isdigit()]
    return [(name, path) for name, path in found if path.is_dir()]


def measure_tree(folder: Path, tables) -> tuple[list[tuple[str, str, Entry]], Counter]:
    """(file, step, entry) for each kernel expression of the folder's Python files; the steps' file counts."""
    rows, by_step = [], Counter()
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "pypto" not in text:
            continue
        try:
            step, entries = measure(text, tables)
        except Exception as exc:  # a file the tool cannot parse is the engine's to report
            print(f"{path}: not measured ({type(exc).__name__}: {exc})", file=sys.stderr)
            by_step["not measured"] += 1
            continue
        if entries:
            by_step[step] += 1
        rel = str(path.relative_to(folder))
        rows += [(rel, step, e) for e in entries]
    return rows, by_step


def line(name: str, rows, by_step: Counter) -> str:
    total = len(rows)
    known = sum(1 for _, _, e in rows if not e.missing)
    share = 100.0 * known / total if total else 100.0
    steps_text = ", ".join(f"{n} file{'s' * (n != 1)} at {s}" for s, n in sorted(by_step.items()))
    return f"inference coverage {name}: {share:.1f}% ({known} of {total} kernel expressions known; {steps_text})"


def classes(rows) -> Counter:
    """The unknown ones by what is missing and the expression's head (`pl.cast`, a name, a subscript)."""
    found = Counter()
    for _, _, e in rows:
        if e.missing:
            head = e.text.split("(")[0] if "(" in e.text else ("subscript" if "[" in e.text else "name")
            found[(e.missing, head)] += 1
    return found


def report(out=sys.stdout, unknown: Path | None = None, corpus: Path = CORPUS, top: int = 0) -> dict[str, tuple[int, int]]:
    """One line per snapshot (and the `top` largest classes of unknown ones); the unknown ones
    listed in `unknown`. Returns each snapshot's (known, counted)."""
    tables = [load_api(None, s) for s in steps()]
    figures, listed, everything = {}, [], []
    for name, folder in snapshots(corpus):
        rows, by_step = measure_tree(folder, tables)
        everything += rows
        print(line(name, rows, by_step), file=out)
        figures[name] = (sum(1 for *_, e in rows if not e.missing), len(rows))
        listed += [f"{name}/{rel}:{e.line}: {e.text}: unknown {e.missing}" + (f" ({e.described})" if e.described else "")
                   for rel, _, e in rows if e.missing]
    if unknown is not None:
        unknown.write_text("\n".join(listed) + ("\n" if listed else ""), encoding="utf-8")
        print(f"inference coverage: {len(listed)} unknown kernel expressions listed in {unknown}", file=out)
    for (what, head), n in classes(everything).most_common(top):
        print(f"  {n:5d}  {what:12s} {head}", file=out)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unknown", type=Path, help="write the unknown kernel expressions there, one a line")
    parser.add_argument("--classes", type=int, default=0, help="print the N largest classes of unknown ones")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    report(unknown=args.unknown, top=args.classes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
