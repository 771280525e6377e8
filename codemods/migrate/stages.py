"""Where the migration of one text is, for a progress line: a big file takes minutes, and a
person watching a terminal should see that it moves. The engine and the steps name each
stage as it starts; whoever listens (the command line, only for files it migrates in its
own process) is told the step and the stage. Without a listener a stage costs one test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

Listener = Callable[[str, str], None]  # (step, stage)

_listener: Listener | None = None
_step = ""


def step(name: str) -> None:
    global _step
    _step = name


def stage(name: str) -> None:
    if _listener is not None:
        _listener(_step, name)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    global _listener, _step
    before, _listener, _step = _listener, listener, ""
    try:
        yield
    finally:
        _listener = before
