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
from typing import TYPE_CHECKING

from ..check.results import SourceError

if TYPE_CHECKING:
    import libcst as cst


# The one text CPython's parser has just taken whole elsewhere (the choice of version steps
# parses the file with `ast.parse` first): not checked again. Held until it is parsed, then let go.
_accepted: list[str] = []


def accepted(text: str) -> None:
    """Say that `ast.parse` took this very text: `check_python` would then pass, so `parse` skips it."""
    _accepted[:] = [text]


def parse(text: str, what: str = "input") -> cst.Module:
    import libcst as cst  # here: the step chooser records `accepted` without loading LibCST

    from ..syntax.trusted import parse_module

    if _accepted and _accepted[0] is text:
        _accepted.clear()  # what check_python would say of it: `ast.parse` decides there too
    else:
        check_python(text, what)
    try:
        return parse_module(text)
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


def ast_children(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))`: the same nodes in the same order, read off the
    fields here, without its two generators per child (the walks over a big file's syntax
    tree, the step chooser's and the safety net's, go over a million nodes)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend([item for item in value if isinstance(item, ast.AST)])
    return out


def reason(exc: cst.ParserSyntaxError) -> str:
    # LibCST's message repeats the position we already print as path:line:col.
    return re.sub(r"^(parser error: )?error at \d+:\d+: ", "", exc.message)
