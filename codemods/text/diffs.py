"""Unified diffs that `git apply` and `patch -p1` accept, CRLF and missing final newlines included."""

from __future__ import annotations

import itertools
import re

NO_EOL = "\\ No newline at end of file\n"
# Lines of both texts above which the diff is anchored on unique lines (`long_diff`):
# difflib turns quadratic on long repetitive code; no real kernel comes near. Shorter code
# that repeats itself enough (`long_diff.PAIRS`) is anchored too.
LONG = 20_000
# Only "\n" ends a line for git and patch; str.splitlines would also split on \f, \x1c, U+2028...
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def lines_of(text: str) -> list[str]:
    return _LINE.findall(text)


def unified_diff(before: str, after: str, display_path: str, context: int = 3) -> str:
    return with_header(diff_body(before, after, context), display_path)


def with_header(body: str, display_path: str) -> str:
    return f"--- a/{display_path}\n+++ b/{display_path}\n{body}" if body else ""


def diff_body(before: str, after: str, context: int = 3) -> str:
    """The hunks of the diff, without the header that names the file."""
    if before == after:
        return ""
    import difflib  # only where a diff is computed: cached results carry theirs

    from .long_diff import PAIRS, AnchoredMatcher, equal_pairs, hunk_lines

    a, b = lines_of(before), lines_of(after)
    if len(a) + len(b) > LONG or equal_pairs(a, b, autojunk=True) > PAIRS:
        hunks = hunk_lines(AnchoredMatcher(a, b).get_grouped_opcodes(context), a, b)
    else:  # difflib's own ---/+++ header is dropped: `with_header` writes ours, with the paths
        hunks = itertools.islice(difflib.unified_diff(a, b, n=context, lineterm="\n"), 2, None)
    return "".join(line if line.endswith("\n") else line + "\n" + NO_EOL for line in hunks)


def restore_untouched(original: str, roundtrip: str, output: str) -> str:
    """Put back what the CST round trip lost, wherever no rule wrote.

    LibCST reproduces almost every file exactly; where it does not (LibCST 1.9 drops the
    space in `except (A, B) :`), `roundtrip` differs from `original`. The migration was
    computed from the round trip, so each line it left alone is restored from the original:
    a three-way merge with the round trip as base. Lines a rule rewrote keep the rewrite.
    """
    from .long_diff import line_opcodes

    o, r, u = lines_of(original), lines_of(roundtrip), lines_of(output)
    if len(o) == len(r):  # the usual loss is within a line: lines correspond by position
        lost = [("replace", i, i + 1, i, i + 1) for i in range(len(r)) if r[i] != o[i]]
    else:
        lost = [op for op in line_opcodes(r, o) if op[0] != "equal"]
    if not lost:
        return output
    kept = {}  # round-trip line -> output line, for lines the migration did not touch
    if len(r) == len(u):
        # Edits within lines only: lines correspond by position. A matcher could pair
        # repeated lines across an edit and leave a lost line unrestored.
        kept = {i: i for i in range(len(r)) if r[i] == u[i]}
    else:
        for tag, i1, i2, j1, _ in line_opcodes(r, u):
            if tag == "equal":
                kept.update({i1 + k: j1 + k for k in range(i2 - i1)})
    edits = []
    for _, i1, i2, j1, j2 in lost:
        span = range(i1, i2)
        if i2 > i1 and all(i in kept for i in span) and kept[i2 - 1] - kept[i1] == i2 - 1 - i1:
            edits.append((kept[i1], kept[i2 - 1] + 1, o[j1:j2]))
        elif i2 == i1 and (i1 - 1) in kept:  # lines the round trip dropped: back after their predecessor
            edits.append((kept[i1 - 1] + 1, kept[i1 - 1] + 1, o[j1:j2]))
    for start, stop, lines in sorted(edits, reverse=True):
        u[start:stop] = lines
    return "".join(u)
