"""The cycle collector, off while a file is migrated.

A migration allocates millions of objects, and LibCST trees hold no reference cycles: the
collector, started every few hundred allocations, spent a sixth of the time (more on big
files) finding nothing. It is off while one file is migrated, through all of its version
steps (a step's output tree lives on into the next: turned on between them, the collector
went once over all of it); what cycles that leaves are collected after, as usual. Whoever
turns it off frees the file's trees and answers first (`per_file`): the first collection
after it is back on goes over every object still alive that was made while it was off.
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
