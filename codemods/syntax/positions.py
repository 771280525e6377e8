"""Where nodes start in the code of their tree, found by one code generation pass.

LibCST's PositionProvider answers for every node of the tree (a CodeRange each, and a
visitor pass before the code generation); a migration needs the starts of a few dozen:
the nodes a rule changed, the ones a finding is about. This records only those, with the
same rules as PositionProvider (a node's syntactic start, else where its code begins).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n?|\n")


class _Starts(CodegenState):
    __slots__ = ("wanted", "found", "line", "column", "stack", "text_wanted", "texts", "open", "indents")

    def __init__(self, module: cst.Module, wanted: set[int], text_wanted: set[int] = frozenset()) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted, self.found = wanted, {}
        self.line, self.column = 1, 0
        self.stack: list[tuple[int, int]] = []
        self.text_wanted, self.texts = text_wanted, {}
        self.open: list[tuple[int, int, int, int]] = []  # node id, first token, indent depth, first indent record
        self.indents: list[tuple[int, int]] = []  # (token index, count) of indentation written inside an open node

    def add_indent_tokens(self) -> None:
        if self.open:
            self.indents.append((len(self.tokens), len(self.indent_tokens)))
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self._advance(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._advance(value)

    def _advance(self, value: str) -> None:
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
            return
        segments = _NEWLINE.split(value)
        self.line += len(segments) - 1
        self.column = len(segments[-1])

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.stack.append((self.line, self.column))
        if id(node) in self.text_wanted:
            self.open.append((id(node), len(self.tokens), len(self.indent_tokens), len(self.indents)))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.stack.pop()
        if id(node) in self.wanted and id(node) not in self.found:
            self.found[id(node)] = start
        if self.open and self.open[-1][0] == id(node):
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

    @contextmanager
    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> Iterator[None]:
        wanted = id(node) in self.wanted
        if wanted and start_node is not None:
            self.wanted.add(id(start_node))  # generated inside this block: its start is this one's
        start = (self.line, self.column)
        try:
            yield
        finally:
            if wanted:
                self.found[id(node)] = self.found[id(start_node)] if start_node is not None else start


def code_and_starts(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The module's code, and `id(node) -> (line, column)` (both 1-based) for each of `nodes`."""
    code, found, _ = code_starts_and_texts(module, nodes)
    return code, found


def code_starts_and_texts(module: cst.Module, nodes: Iterable[cst.CSTNode], texts_of: Iterable[cst.CSTNode] = ()):
    """`code_and_starts`, and also `id(node) -> module.code_for_node(node)` for each of
    `texts_of` (nodes `standalone` accepts), from the same one code generation."""
    state = _Starts(module, {id(n) for n in nodes}, {id(n) for n in texts_of})
    module._codegen(state)
    starts_ = {key: (line, column + 1) for key, (line, column) in state.found.items()}
    return "".join(state.tokens), starts_, state.texts


@lru_cache(maxsize=None)
def standalone(kind: type) -> bool:
    """Whether a node of this kind prints the same alone as inside its parent: its code
    generation takes no word from the parent (a default comma, semicolon or indicator)."""
    return len(inspect.signature(kind._codegen_impl).parameters) == 2


def starts(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, tuple[int, int]]:
    """`id(node) -> (line, column)`, 1-based, for each of `nodes` (all in `module`)."""
    return code_and_starts(module, nodes)[1]
