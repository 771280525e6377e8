"""Answers about one file's trees, kept while that file is processed and dropped after.

Trees are immutable, and the region pass, the planner, the strict check and the findings
ask the same questions of the same nodes (which names does this statement read, which
pypto calls does this module make, what does this function bind). The answers are kept,
keyed by the node itself, only inside `per_file()`: a cache that outlived the file would
keep its trees alive, and a tree costs hundreds of bytes per byte of source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
N = TypeVar("N")


class _Answers(dict):
    """kind of question -> {id(node): (node, answer)}: one table per kind, so that a lookup
    builds no key (the hottest, `content`, is asked about every node several times)."""

    def __missing__(self, kind: str) -> dict:
        table = self[kind] = {}
        return table


_store: _Answers | None = None


@contextmanager
def per_file() -> Iterator[None]:
    """Remember answers while this block runs (nested blocks share the outer one's)."""
    global _store
    outer = _store
    if outer is None:
        _store = _Answers()
    try:
        yield
    finally:
        _store = outer


def forget(keep: object = None) -> None:
    """Drop what was remembered so far in this file (its trees are about to be freed), but
    the answers about `keep` itself (a tree that lives on)."""
    if _store is not None:
        for table in _store.values():
            # Every table is keyed by the id of the node its answer is about: `keep`'s is the one entry kept.
            hit = table.get(id(keep)) if keep is not None else None
            table.clear()
            if hit is not None and hit[0] is keep:
                table[id(keep)] = hit


def cached(kind: str, node: N, make: Callable[[N], T]) -> T:
    """`make(node)`, computed once per node inside `per_file()`, every time outside it."""
    if _store is None:
        return make(node)
    table = _store[kind]
    hit = table.get(id(node))
    if hit is not None and hit[0] is node:  # the entry holds the node: its id cannot be reused
        return hit[1]  # type: ignore[return-value]
    value = make(node)
    table[id(node)] = (node, value)
    return value


def table(kind: str) -> dict | None:
    """The current file's answers of one kind, `{id(node): (node, answer, ...)}`, for a
    question whose answer is checked before it is reused (None outside `per_file()`)."""
    return None if _store is None else _store[kind]


def memoized(kind: str) -> Callable[[Callable[[N], T]], Callable[[N], T]]:
    """`cached(kind, node, make)` as a decorator of `make`: one call per question instead of
    two, for the questions asked of every node."""

    def decorate(make: Callable[[N], T]) -> Callable[[N], T]:
        def answer(node: N) -> T:
            if _store is None:
                return make(node)
            table = _store[kind]
            hit = table.get(id(node))
            if hit is not None and hit[0] is node:
                return hit[1]  # type: ignore[return-value]
            value = make(node)
            table[id(node)] = (node, value)
            return value

        answer.__doc__ = make.__doc__
        answer.__name__ = make.__name__
        return answer

    return decorate
