"""Patch files: `run --diff-file` saves one safely, `apply` applies a reviewed one.

The diff file is opened before any kernel is written (a path that cannot be created fails
the run up front) and may not be one of the inputs, which it would overwrite with their own
diff. `apply PATCH` takes a diff as `run` prints it, possibly edited by hand (hunk line
counts are recounted, as `git apply --recount` does), and applies it file by file with the
same atomic write as `--write`. A file whose text no longer reads what the patch's source
side says (changed since the patch was made) is refused with the first line that differs;
the other files are still applied.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from ..text.hunks import apply, hunks_of_file, mismatch
from ..text.sources import FileProblem, read_text, write_atomic


class PatchError(Exception):
    """The patch file itself cannot be used; nothing was applied."""


def clashing_input(diff_file: Path, inputs: list[Path]) -> str | None:
    """Why `--diff-file` would overwrite an input (None when it would not)."""
    target = os.path.realpath(diff_file)
    for path in inputs:
        real = os.path.realpath(path)
        if target == real:
            return f"{diff_file} is one of the files to migrate"
        # A .py under an input folder is an input of this run or the next; another name is never read.
        if os.path.isdir(real) and target.startswith(real.rstrip(os.sep) + os.sep) and target.endswith(".py"):
            return f"{diff_file} is inside {path}, which is being migrated"
    return None


def open_diff_file(diff_file: Path) -> IO[str]:
    """Create (truncate) the diff file now, before any file is written; OSError when it cannot be."""
    return open(diff_file, "w", encoding="utf-8", newline="")


_HEADER = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$", re.DOTALL)


def recount(diff: str) -> str:
    """The diff with each hunk header's line counts taken from the lines that follow it."""
    lines = re.findall(r"[^\n]*\n|[^\n]+", diff)
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _HEADER.match(lines[i])
        if not m and lines[i].startswith("@@"):
            raise PatchError(f"line {i + 1} is no hunk header: {lines[i].rstrip()!r}")
        if not m:
            out.append(lines[i])
            i += 1
            continue
        body, i = [], i + 1
        while i < len(lines) and not _ends_hunk(lines, i):
            body.append(lines[i])
            i += 1
        while body and body[-1] in ("\n", "\r\n"):
            body.pop()  # blank lines between hunks or files
        # Within a hunk, an empty line is a blank context line whose space an editor stripped.
        body = [" " + b if b in ("\n", "\r\n") else b for b in body]
        old = sum(1 for b in body if b[0] in " -")
        new = sum(1 for b in body if b[0] in " +")
        start_old, start_new = int(m.group(1)), int(m.group(2))
        if old and not start_old:
            start_old = 1
        out.append(f"@@ -{start_old},{old} +{start_new},{new} @@{m.group(3)}")
        out.extend(body)
    return "".join(out)


def _ends_hunk(lines: list[str], i: int) -> bool:
    line = lines[i]
    if line.startswith("@@") or line.startswith("diff "):
        return True
    if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
        return True
    return line[0] not in " +-\\\r\n"


@dataclass
class Applied:
    display: str
    written: bool
    reason: str = ""  # why it was refused


def apply_patch(text: str, check: bool = False, root: Path = Path(".")) -> list[Applied]:
    """Apply every file of the patch that still matches; `check`: only say which would apply."""
    try:
        patch = PatchSet(recount(text))  # PatchError from recount: a broken hunk header
    except UnidiffParseError as exc:
        raise PatchError(f"not a unified diff: {exc}") from exc
    if not patch:
        raise PatchError("no file in it (not a unified diff?)")
    empty = [p.path for p in patch if not len(p) and not (p.is_added_file or p.is_removed_file)]
    if empty:  # unidiff skips what it cannot read: a broken hunk header leaves its file without hunks
        raise PatchError(f"no hunk that can be read for {', '.join(empty)}; nothing was applied")
    results = []
    for patched in patch:
        display = patched.path
        if patched.is_added_file or patched.is_removed_file or patched.is_rename:
            results.append(Applied(display, False, "creates, deletes or renames a file; only changes within a file are applied"))
            continue
        results.append(_apply_file(root / display, display, hunks_of_file(patched), check))
    return results


def _apply_file(path: Path, display: str, hunks, check: bool) -> Applied:
    try:
        original = read_text(path)
        why = mismatch(original, hunks)
        if why is not None:
            return Applied(display, False, f"changed since the patch was made: {why}")
        if not check:
            write_atomic(path, apply(original, hunks, [True] * len(hunks)))
    except FileProblem as exc:
        return Applied(display, False, exc.message)
    return Applied(display, True)
