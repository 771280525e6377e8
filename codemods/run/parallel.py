"""Work spread over processes: the costliest first, handed out as workers free up, results
in the order of the input whatever the number of workers; workers that die with the run.

A kernel file costs a hundred times a plain Python file of its size, so fixed chunks in
path order gave one worker all the kernels. Here each item is submitted on its own, in
decreasing order of expected cost, and an idle worker takes the next: the longest jobs start
first and the short ones fill the gaps. Results are put back in input order, so the output
is byte for byte the same for any --jobs.

A worker must not outlive the run: killed with `kill -9`, the main process cannot stop its
pool, and a worker waiting on the pool's queue (which its siblings keep open) would wait
forever. Each worker therefore asks Linux to kill it when its parent dies
(PR_SET_PDEATHSIG), and, everywhere, watches its parent from a thread and exits when it is
gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_PR_SET_PDEATHSIG = 1
WATCH_INTERVAL = 0.5  # seconds between two looks at the parent


def die_with_parent(parent: int) -> None:
    """Pool initializer: end this process when `parent` (the main process) ends."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watcher below still does it
    if os.getppid() != parent:  # the parent died before the request was in place
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="pypto-migrate-parent-watch", daemon=True).start()


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL)
        if os.getppid() != parent:  # reparented: the run is gone, so is any use of our work
            os._exit(1)


def balanced_map(fn: Callable[[T], R], items: Sequence[T], costs: Sequence[float], jobs: int,
                 on_done: Callable[[R], None] | None = None) -> list[R]:
    """`[fn(item) for item in items]`, on `jobs` worker processes, costliest item first;
    `on_done(result)` as each one arrives (a progress bar), in whatever order they finish."""
    results: list = [None] * len(items)
    order = sorted(range(len(items)), key=lambda i: -costs[i])  # stable: equal costs keep input order
    with ProcessPoolExecutor(max_workers=jobs, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
        futures = {pool.submit(fn, items[i]): i for i in order}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if on_done is not None:
                on_done(results[futures[future]])
    return results
