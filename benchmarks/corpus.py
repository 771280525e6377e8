"""The inputs of the benchmark, built in a temporary folder (nothing here is kept).

- a tree of about 500 files: the shipped fixtures copied several times, the real corpus
  (../shared/corpus) when it is there, and plain Python from the standard library;
- the four DeepSeek kernels: the real ones when ../shared/corpus is there, else the
  shipped fixtures of the same name;
- generated kernel files of a given size: the shipped DeepSeek fixtures one after another,
  each copy's functions and classes renamed, until the size is reached.
"""

from __future__ import annotations

import re
import shutil
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "2026-03" / "before"
CORPUS = ROOT.parent / "shared" / "corpus"
STDLIB_SKIP = {"test", "tests", "idlelib", "lib2to3", "site-packages", "dist-packages", "__pycache__", "turtledemo"}


def deepseek_files() -> list[Path]:
    real = sorted((CORPUS / "deepseek").glob("deepseek_v3_2_*.py")) if CORPUS.is_dir() else []
    return real or sorted(FIXTURES.glob("deepseek_v3_2_*.py"))


def build_tree(folder: Path, total: int = 500, fixture_copies: int = 10) -> dict[str, int]:
    """Fill `folder`; returns how many files of each kind it holds."""
    counts = {"fixtures": 0, "corpus": 0, "stdlib": 0}
    for i in range(fixture_copies):
        target = folder / "fixtures" / f"copy{i:02}"
        shutil.copytree(FIXTURES, target)
        counts["fixtures"] += sum(1 for _ in target.glob("*.py"))
    if CORPUS.is_dir():
        for path in sorted(CORPUS.rglob("*.py")):
            target = folder / "corpus" / path.relative_to(CORPUS)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)  # a copy: the corpus itself is read-only
            counts["corpus"] += 1
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.rglob("*.py")):
        if sum(counts.values()) >= total:
            break
        parts = path.relative_to(stdlib).parts
        if any(p in STDLIB_SKIP or p.startswith(".") for p in parts) or path.stat().st_size > 150_000:
            continue
        target = folder / "stdlib" / Path(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        counts["stdlib"] += 1
    return counts


def kernel_file(size: int) -> str:
    """A kernel module of about `size` bytes made of renamed copies of the DeepSeek fixtures."""
    sources = [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("deepseek_v3_2_*.py"))]
    parts, length, i = [], 0, 0
    while length < size:
        text = re.sub(r"^(def|class) (\w+)", rf"\1 \2_{i}", sources[i % len(sources)], flags=re.M)
        parts.append(text)
        length += len(text) + 2
        i += 1
    return "\n\n".join(parts)
