"""The cycle collector, off while a file is migrated.

A migration allocates millions of objects, and LibCST trees hold no reference cycles: the
collector, started every few hundred allocations, spent a sixth of the time (more on big
files) finding nothing. It is off while one file is migrated, through all of its version
steps (a step's output tree lives on into the next: turned on between them, the collector
went once over all of it); what cycles that leaves are collected after, as usual. Whoever
turns it off frees the file's trees and answers first (`per_file`): the first collection
after it is back on goes over every object still alive that was made while it was off.

So a migration makes no reference cycles of its own: what a cycle reaches lives until that
collection, and it goes over all of it. A rule's state (decisions are callbacks that close
over the rule) is dropped after its phase (`engine._Dispatcher.release`); a closure that calls
itself is deleted after use (`del walk`). `tests/test_no_cycles.py` counts what is left.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cycle_collector_off() -> Iterator[None]:
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
