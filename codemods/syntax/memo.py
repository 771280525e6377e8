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

_store: dict[tuple[str, int], tuple[object, object]] | None = None


@contextmanager
def per_file() -> Iterator[None]:
    """Remember answers while this block runs (nested blocks share the outer one's)."""
    global _store
    outer = _store
    if outer is None:
        _store = {}
    try:
        yield
    finally:
        _store = outer


def forget(keep: object = None) -> None:
    """Drop what was remembered so far in this file (its trees are about to be freed), but
    the answers about `keep` itself (a tree that lives on)."""
    if _store is not None:
        kept = {key: hit for key, hit in _store.items() if keep is not None and hit[0] is keep}
        _store.clear()
        _store.update(kept)


def cached(kind: str, node: N, make: Callable[[N], T]) -> T:
    """`make(node)`, computed once per node inside `per_file()`, every time outside it."""
    if _store is None:
        return make(node)
    key = (kind, id(node))
    hit = _store.get(key)
    if hit is not None and hit[0] is node:  # the entry holds the node: its id cannot be reused
        return hit[1]  # type: ignore[return-value]
    value = make(node)
    _store[key] = (node, value)
    return value
