"""Where nodes start in the code of their tree, found by one code generation pass.

LibCST's PositionProvider answers for every node of the tree (a CodeRange each, and a
visitor pass before the code generation); a migration needs the starts of a few dozen:
the nodes a rule changed, the ones a finding is about. This records only those, with the
same rules as PositionProvider (a node's syntactic start, else where its code begins).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINE = re.compile(r"\r\n?|\n")


class _Starts(CodegenState):
    __slots__ = ("wanted", "found", "line", "column", "stack")

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted, self.found = wanted, {}
        self.line, self.column = 1, 0
        self.stack: list[tuple[int, int]] = []

    def add_indent_tokens(self) -> None:
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

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.stack.pop()
        if id(node) in self.wanted and id(node) not in self.found:
            self.found[id(node)] = start

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
    state = _Starts(module, {id(n) for n in nodes})
    module._codegen(state)
    return "".join(state.tokens), {key: (line, column + 1) for key, (line, column) in state.found.items()}


def starts(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, tuple[int, int]]:
    """`id(node) -> (line, column)`, 1-based, for each of `nodes` (all in `module`)."""
    return code_and_starts(module, nodes)[1]
