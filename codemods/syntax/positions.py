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

from .codegen import NOTHING, direct_tokens, light_parentheses
from .replay import Replaying, stand_in
from .traversal import TRIVIA

_NEWLINE = re.compile(r"\r\n?|\n")


class _Starts(CodegenState, Replaying):
    """Starts are kept as token indices, turned into lines and columns once at the end for the
    nodes asked for: no bookkeeping per token while the code is generated."""

    __slots__ = ("wanted", "found", "starting", "text_wanted", "texts", "open", "indents", "aliases", "source",
                 "segments", "segment_starts", "add_token")  # see `direct_tokens`

    def __init__(self, module: cst.Module, wanted: set[int], text_wanted: set[int] = frozenset()) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        direct_tokens(self)
        self.wanted, self.found = wanted, {}  # node id -> index of its first token
        self.starting: dict[int, int] = {}  # wanted node id -> its first token, while it is generated
        self.text_wanted, self.texts = text_wanted, {}
        self.open: list[tuple[int, int, int, int]] = []  # node id, first token, indent depth, first indent record
        self.indents: list[tuple[int, int]] = []  # (token index, count) of indentation written inside an open node
        self.aliases: dict[int, int] = {}  # id of a node of the stand-in tree -> id of the node it stands for

    def keeps_indents(self) -> bool:
        return bool(self.open)

    def replayed(self, key: int, segment, end: int, mark: int, mark_end: int) -> None:
        pass  # no start is asked (`code_starts_and_texts` replays only then), and texts inside are not given

    def add_indent_tokens(self) -> None:
        if self.open:
            self.indents.append((len(self.tokens), len(self.indent_tokens)))
        self.tokens.extend(self.indent_tokens)

    # These two run for every node printed, and a few dozen nodes are asked for: only those
    # are written down (a start_node joins `wanted` before it is printed, see below).
    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if self.aliases:
            key = self.aliases.get(key, key)
        if key in self.wanted:
            self.starting[key] = len(self.tokens)
        if key in self.text_wanted:
            self.open.append((key, len(self.tokens), len(self.indent_tokens), len(self.indents)))

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if self.aliases:
            key = self.aliases.get(key, key)
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
        if start_node is None:
            self.syntactic_start(node)  # LibCST enters the context as soon as it has it
            return NOTHING
        key = id(node)
        if self.aliases:
            key = self.aliases.get(key, key)
        if key not in self.wanted:
            return NOTHING
        start = self.aliases.get(id(start_node), id(start_node))
        self.wanted.add(start)  # generated inside this block: its start is this one's
        return _Syntactic(self, key, start)

    def syntactic_start(self, node) -> None:
        """`record_syntactic_position(node)` where the start is here (`codegen.py` calls it)."""
        key = id(node)
        if self.aliases:
            key = self.aliases.get(key, key)
        if key in self.wanted:
            self.found[key] = len(self.tokens)


class _Texts(_Starts):
    """`_Starts` when no start is asked, only texts: the hooks that run for every node printed
    check only for those (a phase's output, most of whose nodes are new)."""

    __slots__ = ()

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if self.aliases:
            key = self.aliases.get(key, key)
        if key in self.text_wanted:
            self.open.append((key, len(self.tokens), len(self.indent_tokens), len(self.indents)))

    def after_codegen(self, node: cst.CSTNode) -> None:
        if self.open:
            key = id(node)
            if self.aliases:
                key = self.aliases.get(key, key)
            if self.open[-1][0] == key:
                self._close()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return NOTHING

    def syntactic_start(self, node) -> None:
        pass


def code_and_starts(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The module's code, and `id(node) -> (line, column)` (both 1-based) for each of `nodes`."""
    code, found, _ = code_starts_and_texts(module, nodes)
    return code, found


def code_starts_and_texts(module: cst.Module, nodes: Iterable[cst.CSTNode], texts_of: Iterable[cst.CSTNode] = (),
                          source: Printed | None = None):
    """`code_and_starts`, and also `id(node) -> module.code_for_node(node)` for each of
    `texts_of` (nodes `standalone` accepts), from the same one code generation. With
    `source`, a print of a tree that shares statements with this one, and no starts asked,
    those statements' text is copied (`replay`); a text asked of a node inside one is not
    given (the caller prints that node alone)."""
    wanted = {id(n) for n in nodes}
    state = (_Starts if wanted else _Texts)(module, wanted, {id(n) for n in texts_of})
    _generate(module, state, source if not wanted else None)
    return "".join(state.tokens), _lines_and_columns(state.tokens, state.found), state.texts


class _Everything(CodegenState, Replaying):
    """A code generation that keeps every node's start and token span: for the tree the next
    phase will edit, whose edited nodes are not known yet (see `Printed`)."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        direct_tokens(self)
        self.found: dict[int, int] = {}  # node id -> start token, where a syntactic position says
        self.spans: dict[int, tuple[int, int, int, int, int]] = {}  # first, end token; depth; indent records
        self.stack: list[tuple[int, int, int]] = []
        self.indents: list[tuple[int, int]] = []  # (token index, count) of every indentation written
        self.dropped = False  # the module's last newline is not part of its code
        self.source: _Everything | None = None  # the print whose statements are replayed
        self.aliases: dict[int, int] = {}  # id of a node of the stand-in tree -> id of the node it stands for

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
        if self.aliases:
            key = self.aliases.get(key, key)
        if key not in self.spans:
            self.spans[key] = (first, len(self.tokens), depth, mark, len(self.indents))

    def keeps_indents(self) -> bool:
        return True

    def replayed(self, key: int, segment, end: int, mark: int, mark_end: int) -> None:
        if key not in self.spans:
            self.spans[key] = (segment[2], end, segment[4], mark, mark_end)
        if key in self.source.found:
            self.found[key] = self._shifted(segment, self.source.found[key])

    def start(self, key: int) -> int:
        """The node's start: its first token, or where its syntactic position says."""
        return self.found[key] if key in self.found else self.spans[key][0]

    def occurrence(self, key: int) -> tuple[int | None, int | None]:
        """Where a syntactic position last put the node, and the first token of its first
        occurrence (a node may stand at two places): as one code generation of the whole
        tree would have them, the statements copied from the source included."""
        found, span = self.found.get(key), self.spans.get(key)
        first = span[0] if span is not None else None
        if self.source is not None and self.segments:
            old_found, old_first = self.source.occurrence(key)
            if old_found is not None and (new := self.mapped(old_found)) is not None and (found is None or new > found):
                found = new
            if old_first is not None and (new := self.mapped(old_first)) is not None and (first is None or new < first):
                first = new
        return found, first

    def text(self, key: int) -> str | None:
        """`module.code_for_node` of a node (one `standalone` accepts), or None: not printed."""
        span = self.spans.get(key)
        if span is None:
            if self.source is None or not self.segments:
                return None
            _, old_first = self.source.occurrence(key)
            if old_first is None or self.mapped(old_first) is None:
                return None
            return self.source.text(key)  # a node's own text does not depend on where it stands
        tokens, indents = self.tokens, self.indents
        first, end, depth, mark, mark_end = span
        pieces, at = [], first
        for where, count in indents[mark:mark_end]:
            pieces.extend(tokens[at:where])
            at = where + min(depth, count)
        pieces.extend(tokens[at:end])
        return "".join(pieces)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        if start_node is None:
            self.syntactic_start(node)  # LibCST enters the context as soon as it has it
            return NOTHING
        key, start = id(node), id(start_node)
        if self.aliases:
            key, start = self.aliases.get(key, key), self.aliases.get(start, start)
        return _Syntactic(self, key, start)

    def syntactic_start(self, node) -> None:
        key = id(node)
        if self.aliases:
            key = self.aliases.get(key, key)
        self.found[key] = len(self.tokens)


class _Syntactic:
    """Records, when its block ends, a node's syntactic start that is another node's inside it
    (LibCST's `start_node`: where a decorated function's start is). A class, not a generator
    made a context manager by `contextlib`, whose machinery costs more than the code it wraps.
    A start that is where the block opens is recorded at once, with no context."""

    __slots__ = ("state", "key", "start_key")

    def __init__(self, state, key: int, start_key: int) -> None:
        self.state, self.key, self.start_key = state, key, start_key

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> bool:
        state, start_key = self.state, self.start_key
        if isinstance(state, _Everything):
            state.found[self.key] = state.start(start_key)
        else:
            state.found[self.key] = state.found[start_key]
        return False


class Printed:
    """A tree's code and, for any of its nodes asked later, what `code_starts_and_texts`
    gives: one code generation serves a phase's output and the next phase's input. With
    `source`, the print of a tree that shares statements with this one, their text is
    copied from it (`replay`)."""

    def __init__(self, module: cst.Module, source: Printed | None = None) -> None:
        self.module = module  # the ids below are its nodes': it must live as long
        self.source = source  # and so must the print whose statements were copied
        state = _Everything(module)
        _generate(module, state, source)
        self.code = "".join(state.tokens[:-1] if state.dropped else state.tokens)
        self._state = state

    def starts(self, nodes: Iterable[cst.CSTNode]) -> dict[int, tuple[int, int]]:
        wanted = {}
        for node in nodes:
            found, first = self._state.occurrence(id(node))
            if first is not None:
                wanted[id(node)] = found if found is not None else first
        return _lines_and_columns(self._state.tokens, wanted)

    def texts(self, nodes: Iterable[cst.CSTNode]) -> dict[int, str]:
        """`id(node) -> module.code_for_node(node)`, for nodes `standalone` accepts."""
        out = {}
        for node in nodes:
            text = self._state.text(id(node))
            if text is not None:
                out[id(node)] = text
        return out


def _generate(module: cst.Module, state, source: Printed | None) -> None:
    if source is not None:
        spliced = stand_in(module, source._state)
        if spliced is not None:
            module, aliases = spliced
            state.start_replays(source._state, aliases)
    with light_parentheses():
        module._codegen(state)


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
