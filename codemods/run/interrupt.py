"""Ctrl-C during a run: it stops at once, except while a file is being written and recorded.

The run must be able to say which files it wrote. A KeyboardInterrupt raised between the
rename that replaces a file and the line that records it would lose that file from the list,
so SIGINT inside `held()` is put off to the end of the block; anywhere else it raises at once.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class Interrupted(KeyboardInterrupt):
    """The run was stopped by SIGINT: `done` holds the outcomes of the files finished before
    the stop (those written among them), `total` the number of files the run had."""

    def __init__(self, done: list, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total


class Guard:
    def __init__(self) -> None:
        self._depth = 0
        self._pending = False

    def _on_sigint(self, signum, frame) -> None:
        if self._depth:
            self._pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def held(self):
        """A block SIGINT does not cut: it raises at the block's end instead."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth and self._pending:
                self._pending = False
                raise KeyboardInterrupt


@contextmanager
def guarded():
    """A `Guard` whose `held()` defers SIGINT while the block runs. Installed only where Python's
    own KeyboardInterrupt handler is (the main thread, SIGINT not ignored nor taken by the
    caller); elsewhere `held()` defers nothing, as before."""
    guard = Guard()
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield guard
        return
    signal.signal(signal.SIGINT, guard._on_sigint)
    try:
        yield guard
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
