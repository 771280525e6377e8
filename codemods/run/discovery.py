"""Which files a run looks at.

Named files are taken as given; folders are walked for `*.py`, skipping hidden folders,
virtual environments and `__pycache__`, and, where the folder is inside a git work tree,
whatever git ignores (asked of git itself, so every .gitignore rule means what git says).
Each file is taken once however it is named (`a.py` and `/abs/a.py`, a folder and a file in
it), under the name it was first given. What is no regular file (a symlink loop, a broken
link, a named pipe, a device) is skipped with the reason: reading a pipe would wait forever.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ..text.sources import display_path, not_regular

_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}


def _is_venv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


def _walk(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS and not _is_venv(here / d)
        )
        found.extend(here / f for f in sorted(files) if f.endswith(".py") and not f.startswith("."))
    return found


def _git_ignored(root: Path, files: list[Path]) -> set[Path]:
    if not files:
        return set()
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "--stdin", "-z"],
            input=b"\0".join(str(f.resolve()).encode() for f in files),
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode not in (0, 1):  # 128: not a git work tree
        return set()
    return {Path(p.decode()) for p in proc.stdout.split(b"\0") if p}


def discover(paths: list[Path], skipped: list[str] | None = None) -> list[Path]:
    """Every file to process, each once, in a stable order; `skipped` gets `path: skipped: why` lines."""
    seen: dict[str, Path] = {}  # real path -> the path as first given

    def regular(path: Path) -> bool:
        why = not_regular(path)
        line = f"{display_path(path)}: skipped: {why}"
        if why is not None and skipped is not None and line not in skipped:
            skipped.append(line)
        return why is None

    for path in paths:
        if path.is_dir():
            files = [f for f in _walk(path) if regular(f)]
            ignored = _git_ignored(path, files)
            chosen = [f for f in files if f.resolve() not in ignored]
        else:
            chosen = [path] if regular(path) else []
        for f in chosen:
            seen.setdefault(os.path.realpath(f), f)
    return list(seen.values())
