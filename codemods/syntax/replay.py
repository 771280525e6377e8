"""Printing a tree by copying the text of the statements it shares with a tree printed before.

A phase's output shares most of its statements, as the very same objects, with the phase's
input, which was printed already; a statement's text depends only on the statement and on
the indentation it is printed at (its code generation takes nothing else from its parent).
So each statement found in the earlier print is replayed: its tokens are copied, with the
indentation of its lines' starts taken from where it now stands. Only the statements a
phase built or changed, and the blocks around them, run LibCST's code generation.

The splice runs on a stand-in of the tree whose blocks hold `_Replay`s in place of the
shared statements; its rebuilt nodes are known by the ids of the nodes they stand for, so
what the print records is about the caller's tree.
"""

from __future__ import annotations

from bisect import bisect_left
from operator import itemgetter

import libcst as cst

from .traversal import NODE_TYPES, STATEMENT_TYPES

# Where a compound statement keeps what holds its statements (an `If`'s `orelse` is its elif or else).
_HOLDERS = ("body", "orelse", "handlers", "finalbody", "cases")
_BLOCKS = (cst.Module, cst.IndentedBlock)
_WHERE = itemgetter(0)


class _Replay:
    """Stands for a shared statement in a block of the stand-in tree: printing it copies."""

    __slots__ = ("node",)

    def __init__(self, node: cst.CSTNode) -> None:
        self.node = node

    def _codegen(self, state, **kwargs) -> None:
        state.replay(self.node)


def stand_in(module: cst.Module, source) -> tuple[cst.Module, dict[int, int]] | None:
    """`module` with each statement `source` printed (at a block's level) replaced by a
    `_Replay`, and the ids of the rebuilt nodes mapped to those of the nodes they stand for.
    None: there is nothing to replay, or the tree holds a statement twice (its text would be
    recorded at two places, and a plain print keeps the first)."""
    if module.default_indent != source.default_indent or module.default_newline != source.default_newline:
        return None
    aliases: dict[int, int] = {}
    seen: set[int] = set()
    try:
        new = _spliced(module, source, aliases, seen)
    except _Twice:
        return None
    return (new, aliases) if new is not None else None


class _Twice(Exception):
    pass


def _spliced(node, source, aliases: dict[int, int], seen: set[int]):
    changes = {}
    if type(node) in _BLOCKS:
        body, changed = [], False
        for statement in node.body:
            key = id(statement)
            if key in seen:
                raise _Twice
            seen.add(key)
            if replayable(source, statement):
                replay = _Replay(statement)
                aliases[id(replay)] = key
                body.append(replay)
                changed = True
                continue
            inner = _spliced(statement, source, aliases, seen) if type(statement) is not cst.SimpleStatementLine else None
            changed |= inner is not None
            body.append(statement if inner is None else inner)
        if changed:
            changes["body"] = body
    else:
        for field in _HOLDERS:
            value = getattr(node, field, None)
            if isinstance(value, (list, tuple)):
                parts = [_spliced(part, source, aliases, seen) for part in value]
                if any(part is not None for part in parts):
                    changes[field] = [old if new is None else new for old, new in zip(value, parts)]
            elif type(value) in NODE_TYPES and type(value) is not cst.SimpleStatementSuite:  # no ABCMeta
                inner = _spliced(value, source, aliases, seen)
                if inner is not None:
                    changes[field] = inner
    if not changes:
        return None
    new = node.with_changes(**changes)
    aliases[id(new)] = aliases.get(id(node), id(node))
    return new


class Replaying:
    """What a code generation state needs to replay statements of `source` (a `Printed`'s
    state): the copy itself, and where each copy went, to find the nodes inside it."""

    __slots__ = ()

    def start_replays(self, source, aliases: dict[int, int]) -> None:
        self.source, self.aliases = source, aliases
        self.segments: list[tuple[int, int, int, int, int, int, int]] = []  # old first, end; new first; depths; records
        self.segment_starts: list[int] | None = None  # the old firsts, sorted, once asked

    def replay(self, node: cst.CSTNode) -> None:
        source = self.source
        key = id(node)
        first, end, depth, mark, mark_end = source.spans[key]
        records = source.indents[mark:mark_end]
        if any(count < depth for _, count in records):
            node._codegen(self)  # not the indentation of a statement's own lines: printed as usual
            return
        tokens, out, context = source.tokens, self.tokens, self.indent_tokens
        width, start = len(context), len(out)
        kept = self.indents if self.keeps_indents() else None
        new_mark = len(kept) if kept is not None else 0
        at = first
        for where, count in records:
            out.extend(tokens[at:where])
            if kept is not None:
                kept.append((len(out), width + count - depth))
            out.extend(context)
            at = where + depth
        out.extend(tokens[at:end])
        segment = (first, end, start, depth, width, mark, mark_end)
        self.segments.append(segment)
        self.segment_starts = None
        self.replayed(key, segment, len(out), new_mark, len(kept) if kept is not None else 0)

    def mapped(self, old: int) -> int | None:
        """Where the token at `old` in the source's print went, or None: not replayed."""
        if self.segment_starts is None:  # statements may have moved: their copies are sorted by where they were
            self.segments.sort()
            self.segment_starts = [segment[0] for segment in self.segments]
        at = bisect_left(self.segment_starts, old + 1) - 1
        if at < 0 or old >= self.segments[at][1]:
            return None
        return self._shifted(self.segments[at], old)

    def _shifted(self, segment, old: int) -> int:
        first, _, start, depth, width, mark, mark_end = segment
        new = start + old - first
        if width != depth:  # each line start before `old` took the new indentation
            lines = bisect_left(self.source.indents, old, lo=mark, hi=mark_end, key=_WHERE) - mark
            new += (width - depth) * lines
        return new


def replayable(source, statement: cst.CSTNode) -> bool:
    """A statement printed at a block's level in the source, whose text its place cannot
    change: every statement prints alone as in its block, but an `If` printed as an elif."""
    key = id(statement)
    if key not in source.spans or type(statement) not in STATEMENT_TYPES:
        return False
    if type(statement) is cst.If:
        return source.tokens[source.start(key)] == "if"
    return True
