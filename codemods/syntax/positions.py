"""Where nodes start in the code of their tree, found by one code generation pass.

LibCST's PositionProvider answers for every node of the tree (a CodeRange each, and a
visitor pass before the code generation); a migration needs the starts of a few dozen:
the nodes a rule changed, the ones a finding is about. This records only those, with the
same rules as PositionProvider (a node's syntactic start, else where its code begins).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from functools import lru_cache

import libcst as cst
from libcst._nodes.internal import CodegenState

from .traversal import TRIVIA

_NEWLINE = re.compile(r"\r\n?|\n")


class _Starts(CodegenState):
    """Starts are kept as token indices, turned into lines and columns once at the end for the
    nodes asked for: no bookkeeping per token while the code is generated."""

    __slots__ = ("wanted", "found", "starting", "text_wanted", "texts", "open", "indents")

    def __init__(self, module: cst.Module, wanted: set[int], text_wanted: set[int] = frozenset()) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted, self.found = wanted, {}  # node id -> index of its first token
        self.starting: dict[int, int] = {}  # wanted node id -> its first token, while it is generated
        self.text_wanted, self.texts = text_wanted, {}
        self.open: list[tuple[int, int, int, int]] = []  # node id, first token, indent depth, first indent record
        self.indents: list[tuple[int, int]] = []  # (token index, count) of indentation written inside an open node

    def add_indent_tokens(self) -> None:
        if self.open:
            self.indents.append((len(self.tokens), len(self.indent_tokens)))
        self.tokens.extend(self.indent_tokens)

    # These two run for every node printed, and a few dozen nodes are asked for: only those
    # are written down (a start_node joins `wanted` before it is printed, see below).
    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted:
            self.starting[key] = len(self.tokens)
        if key in self.text_wanted:
            self.open.append((key, len(self.tokens), len(self.indent_tokens), len(self.indents)))

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.found:
            self.found[key] = self.starting[key]
        if self.open and self.open[-1][0] == key:
            self._close()

    def _close(self) -> None:
        """The node's code as `code_for_node` makes it: its tokens, less the indentation of
        the blocks around it (the module's trailing newline is not popped yet here)."""
        key, first, depth, mark = self.open.pop()
        pieces, at = [], first
        for where, count in self.indents[mark:]:
            pieces.extend(self.tokens[at:where])
            at = where + min(depth, count)
        pieces.extend(self.tokens[at:])
        self.texts.setdefault(key, "".join(pieces))
        if not self.open:
            self.indents.clear()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        if id(node) not in self.wanted:
            return _NOTHING
        if start_node is not None:
            self.wanted.add(id(start_node))  # generated inside this block: its start is this one's
        return _Syntactic(self, node, start_node)


def code_and_starts(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The module's code, and `id(node) -> (line, column)` (both 1-based) for each of `nodes`."""
    code, found, _ = code_starts_and_texts(module, nodes)
    return code, found


def code_starts_and_texts(module: cst.Module, nodes: Iterable[cst.CSTNode], texts_of: Iterable[cst.CSTNode] = ()):
    """`code_and_starts`, and also `id(node) -> module.code_for_node(node)` for each of
    `texts_of` (nodes `standalone` accepts), from the same one code generation."""
    state = _Starts(module, {id(n) for n in nodes}, {id(n) for n in texts_of})
    module._codegen(state)
    return "".join(state.tokens), _lines_and_columns(state.tokens, state.found), state.texts


class _Everything(CodegenState):
    """A code generation that keeps every node's start and token span: for the tree the next
    phase will edit, whose edited nodes are not known yet (see `Printed`)."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.found: dict[int, int] = {}  # node id -> start token, where a syntactic position says
        self.spans: dict[int, tuple[int, int, int, int, int]] = {}  # first, end token; depth; indent records
        self.stack: list[tuple[int, int, int]] = []
        self.indents: list[tuple[int, int]] = []  # (token index, count) of every indentation written
        self.dropped = False  # the module's last newline is not part of its code

    def add_indent_tokens(self) -> None:
        self.indents.append((len(self.tokens), len(self.indent_tokens)))
        self.tokens.extend(self.indent_tokens)

    def pop_trailing_newline(self) -> None:
        """Kept (the code leaves it out): the last statement's own text, alone, ends with it."""
        self.dropped = bool(self.tokens)

    # Trivia (whitespace, commas, operators) are never edited nor asked about: not kept.
    def before_codegen(self, node: cst.CSTNode) -> None:
        if type(node) not in TRIVIA:
            self.stack.append((len(self.tokens), len(self.indent_tokens), len(self.indents)))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if type(node) in TRIVIA:
            return
        first, depth, mark = self.stack.pop()
        key = id(node)
        if key not in self.spans:
            self.spans[key] = (first, len(self.tokens), depth, mark, len(self.indents))

    def start(self, key: int) -> int:
        """The node's start: its first token, or where its syntactic position says."""
        return self.found[key] if key in self.found else self.spans[key][0]

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _Syntactic(self, node, start_node)


class _Nothing:
    """The context of a position nobody asked for."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        return False


_NOTHING = _Nothing()


class _Syntactic:
    """Records a node's syntactic start when its block ends. A class, not a generator made a
    context manager by `contextlib`: LibCST opens one for most nodes it prints, and the
    generator's machinery cost more than the rest of the code generation together."""

    __slots__ = ("state", "node", "start_node", "start")

    def __init__(self, state, node, start_node) -> None:
        self.state, self.node, self.start_node = state, node, start_node

    def __enter__(self) -> None:
        self.start = len(self.state.tokens)

    def __exit__(self, *exc) -> bool:
        state, start_node = self.state, self.start_node
        if start_node is None:
            state.found[id(self.node)] = self.start
        elif isinstance(state, _Everything):
            state.found[id(self.node)] = state.start(id(start_node))
        else:
            state.found[id(self.node)] = state.found[id(start_node)]
        return False


class Printed:
    """A tree's code and, for any of its nodes asked later, what `code_starts_and_texts`
    gives: one code generation serves a phase's output and the next phase's input."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module  # the ids below are its nodes': it must live as long
        state = _Everything(module)
        module._codegen(state)
        self.code = "".join(state.tokens[:-1] if state.dropped else state.tokens)
        self._state = state

    def starts(self, nodes: Iterable[cst.CSTNode]) -> dict[int, tuple[int, int]]:
        state = self._state
        wanted = {id(n): state.start(id(n)) for n in nodes if id(n) in state.spans}
        return _lines_and_columns(state.tokens, wanted)

    def texts(self, nodes: Iterable[cst.CSTNode]) -> dict[int, str]:
        """`id(node) -> module.code_for_node(node)`, for nodes `standalone` accepts."""
        tokens, indents, out = self._state.tokens, self._state.indents, {}
        for node in nodes:
            span = self._state.spans.get(id(node))
            if span is None:
                continue
            first, end, depth, mark, mark_end = span
            pieces, at = [], first
            for where, count in indents[mark:mark_end]:
                pieces.extend(tokens[at:where])
                at = where + min(depth, count)
            pieces.extend(tokens[at:end])
            out[id(node)] = "".join(pieces)
        return out


def _lines_and_columns(tokens: list[str], found: dict[int, int]) -> dict[int, tuple[int, int]]:
    """`id -> first token index` as 1-based lines and columns: the line breaks counted token
    by token (a token's own `\r\n` is one break), up to the last token asked for."""
    out: dict[int, tuple[int, int]] = {}
    line, column, at = 1, 0, 0
    for index, keys in sorted(_by_index(found).items()):
        chunk = "".join(tokens[at:index])
        if "\r" in chunk:  # two tokens' \r and \n are two breaks: counted token by token
            for token in tokens[at:index]:
                line, column = _advance(token, line, column)
        elif "\n" in chunk:
            line, column = line + chunk.count("\n"), len(chunk) - chunk.rindex("\n") - 1
        else:
            column += len(chunk)
        at = index
        out.update((key, (line, column + 1)) for key in keys)
    return out


def _by_index(found: dict[int, int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for key, index in found.items():
        out.setdefault(index, []).append(key)
    return out


def _advance(token: str, line: int, column: int) -> tuple[int, int]:
    if "\n" not in token and "\r" not in token:
        return line, column + len(token)
    segments = _NEWLINE.split(token)
    return line + len(segments) - 1, len(segments[-1])


@lru_cache(maxsize=None)
def standalone(kind: type) -> bool:
    """Whether a node of this kind prints the same alone as inside its parent: its code
    generation takes no word from the parent (a default comma, semicolon or indicator)."""
    return len(inspect.signature(kind._codegen_impl).parameters) == 2


def starts(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, tuple[int, int]]:
    """`id(node) -> (line, column)`, 1-based, for each of `nodes` (all in `module`)."""
    return code_and_starts(module, nodes)[1]
