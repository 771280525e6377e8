"""Parsing a source text into a LibCST module, with errors that say what is wrong and where.

Every failure is a `SourceError` (the user's input, not the tool), never a crash: CPython's
parser goes first, then LibCST's.
"""

from __future__ import annotations

import ast
import re
import symtable
import sys
import warnings

import libcst as cst

from ..check.results import SourceError


def parse(text: str, what: str = "input") -> cst.Module:
    check_python(text, what)
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise SourceError(f"{what} is valid Python, but LibCST cannot parse it: {reason(exc)}", exc.editor_line, exc.editor_column)
    except (RecursionError, MemoryError) as exc:
        raise SourceError(f"{what} could not be parsed: {type(exc).__name__}")


def check_python(text: str, what: str = "input") -> None:
    # CPython's parser goes first: it places syntax errors precisely, and it rejects nesting
    # (over 200 parentheses) on which LibCST's native parser would overflow its stack and
    # take the whole process down instead of raising.
    if _parses(text):
        return
    try:
        ast.parse(text)
    except SyntaxError as py:
        raise SourceError(f"{what} is not valid Python {sys.version_info[0]}.{sys.version_info[1]}: {py.msg}",
                          py.lineno or 1, py.offset or 1)
    except (RecursionError, MemoryError):
        raise SourceError(f"{what} is nested too deeply to parse")
    except ValueError as exc:  # a NUL byte
        raise SourceError(f"{what} cannot be parsed: {exc}")


def _parses(text: str) -> bool:
    """Whether CPython's parser and its symbol table take the text: the parser `ast.parse`
    runs, without a Python object per node (a third cheaper than `ast.parse`) and without
    code generation (a fifth cheaper than `compile`). The symbol table refuses more
    (`nonlocal` at module level): `ast.parse` then decides, and says why. The parser's
    warnings (an invalid escape) are the user's compiler's to give."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symtable.symtable(text, "<pypto-migrate>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def reason(exc: cst.ParserSyntaxError) -> str:
    # LibCST's message repeats the position we already print as path:line:col.
    return re.sub(r"^(parser error: )?error at \d+:\d+: ", "", exc.message)
