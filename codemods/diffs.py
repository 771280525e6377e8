"""Unified diffs that `git apply` and `patch -p1` accept, CRLF and missing final newlines included."""

from __future__ import annotations

import difflib
import re

NO_EOL = "\\ No newline at end of file\n"
# Only "\n" ends a line for git and patch; str.splitlines would also split on \f, \x1c, U+2028...
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def lines_of(text: str) -> list[str]:
    return _LINE.findall(text)


def unified_diff(before: str, after: str, display_path: str, context: int = 3) -> str:
    if before == after:
        return ""
    out = [f"--- a/{display_path}\n", f"+++ b/{display_path}\n"]
    hunks = difflib.unified_diff(lines_of(before), lines_of(after), n=context, lineterm="\n")
    for i, line in enumerate(hunks):
        if i < 2:
            continue  # difflib's own ---/+++ header; ours above carries the paths
        out.append(line if line.endswith("\n") else line + "\n" + NO_EOL)
    return "".join(out)
