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
from pathlib import Path

from ..text.sources import display_path, not_regular

_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}


def _is_venv(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()


def _walk(root: Path) -> list[tuple[Path, str | None]]:
    """The `*.py` files under `root`, each with its real path where the walk knows it (no
    symlink on the way), else None; os.walk's order: a folder's files, then its subfolders."""
    found: list[tuple[Path, str | None]] = []
    real_root = os.path.realpath(root)

    def visit(folder: str, real: str | None) -> None:
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            return  # os.walk's default: an unreadable folder is left out
        dirs, files = [], []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                dirs.append(entry)
            else:
                files.append(entry)
        here = Path(folder)
        for entry in sorted(files, key=lambda e: e.name):
            if entry.name.endswith(".py") and not entry.name.startswith("."):
                plain = real is not None and not entry.is_symlink() and _is_regular(entry)
                found.append((here / entry.name, os.path.join(real, entry.name) if plain else None))
        for entry in sorted(dirs, key=lambda e: e.name):
            d = entry.name
            if d.startswith(".") or d in _SKIP_DIRS or _is_venv(here / d) or entry.is_symlink():
                continue  # os.walk does not follow links to folders either
            visit(os.path.join(folder, d), None if real is None else os.path.join(real, d))

    visit(str(root), real_root)
    return found


def _is_regular(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _in_git_tree(root: Path) -> bool:
    """Whether git could see `root` as part of a work tree: a .git above it, or git told
    where to look by the environment."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return True
    here = Path(os.path.realpath(root))
    return any((folder / ".git").exists() for folder in (here, *here.parents))


def _git_ignored(root: Path, files: list[str]) -> set[str]:
    if not files or not _in_git_tree(root):
        return set()
    import subprocess  # only inside a work tree

    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "check-ignore", "--stdin", "-z"],
            input=b"\0".join(os.fsencode(f) for f in files),
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode not in (0, 1):  # 128: not a git work tree
        return set()
    return {os.fsdecode(p) for p in proc.stdout.split(b"\0") if p}


def discover(paths: list[Path], skipped: list[str] | None = None,
             refused: list[tuple[Path, str]] | None = None) -> list[Path]:
    """Every file to process, each once, in a stable order; `skipped` gets `path: skipped: why`
    lines. With `refused`, a path named as such that is no regular file (a broken link) goes
    there with the reason instead: the user asked for that file, so it is an error, where in a
    folder it is only left out."""
    seen: dict[str, Path] = {}  # real path -> the path as first given

    def regular(path: Path) -> bool:
        why = not_regular(path)
        if why is not None and skipped is not None:
            line = f"{display_path(path)}: skipped: {why}"
            if line not in skipped:
                skipped.append(line)
        return why is None

    for path in paths:
        if path.is_dir():
            files = [(f, real or os.path.realpath(f)) for f, real in _walk(path) if real is not None or regular(f)]
            ignored = _git_ignored(path, [real for _, real in files])
            chosen = [(f, real) for f, real in files if real not in ignored]
        elif refused is not None and (why := not_regular(path)) is not None:
            if all(path != p for p, _ in refused):
                refused.append((path, why))
            chosen = []
        else:
            chosen = [(path, os.path.realpath(path))] if regular(path) else []
        for f, real in chosen:
            seen.setdefault(real, f)
    return list(seen.values())
