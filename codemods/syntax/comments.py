"""The comments of a Python source text, with their places, without its tokenizer.

Review markers are comments, and every migrated file is searched for them. Python 3.11's
`tokenize` is written in Python and cost a twentieth of a DeepSeek run to find a handful of
comments. Up to 3.11 where strings start and end is a regular language (an f-string cannot
nest its own quotes), so one regular expression that skips strings finds every comment
exactly; from 3.12 `tokenize` runs on CPython's own tokenizer (and f-strings may nest
quotes), so it is used there.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from collections.abc import Iterator

# A string literal (any prefix, triple or single quoted; a backslash escapes the next
# character, a newline included) or a comment. Code between them is skipped by finditer.
_STRING_OR_COMMENT = re.compile(
    r"""[rRuUfFbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^\\'\n])*'|"(?:\\.|[^\\"\n])*")"""
    r"|#[^\r\n]*",
    re.S,
)

_NESTED_FSTRINGS = sys.version_info >= (3, 12)


def comments(text: str, containing: str = "") -> Iterator[tuple[int, int, str]]:
    """(1-based line, 0-based column, comment text from its `#`) of each comment of a text
    Python accepts, those holding `containing` only; in source order."""
    if _NESTED_FSTRINGS:
        yield from _tokenized(text, containing)
        return
    line, line_start, counted = 1, 0, 0
    for m in _STRING_OR_COMMENT.finditer(text):
        found = m.group()
        if found[0] != "#" or containing not in found:
            continue
        start = m.start()
        newlines = text.count("\n", counted, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted, start) + 1
        counted = start
        yield line, start - line_start, found


def _tokenized(text: str, containing: str) -> Iterator[tuple[int, int, str]]:
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type == tokenize.COMMENT and containing in t.string:
                yield t.start[0], t.start[1], t.string
    except (tokenize.TokenError, SyntaxError):
        return
