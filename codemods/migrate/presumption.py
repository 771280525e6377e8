"""Whether the version step running now runs on a file taken to be the target's own code.

Set by the chain (`chain.older_forms` found nothing older than the target in the file) and read
by the rules through `Context.presumed`: they then act only on old forms that date a file by
themselves, and never re-decide what its author wrote. A module of its own: the chain is
imported on a warm run, which must not load LibCST, and the rules' context does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_PRESUMED: ContextVar[bool] = ContextVar("presumed_current", default=False)


@contextmanager
def presumed_current(presumed: bool) -> Iterator[None]:
    token = _PRESUMED.set(presumed)
    try:
        yield
    finally:
        _PRESUMED.reset(token)


def presumed() -> bool:
    return _PRESUMED.get()
