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

Nor must a worker go on once the run is interrupted. `ProcessPoolExecutor`'s worker loop
catches every exception of a call, KeyboardInterrupt included, sends it back and takes the
next item, and the pool's exit waits for every item submitted: a Ctrl-C used to leave the
workers migrating for as long as the whole run. So a worker leaves SIGINT to the main
process (a terminal sends it to the whole process group), and the main process, on any
exception, stops them: SIGTERM, which ends a worker at once (a compile child it waits on is
killed first), SIGKILL for one that has not ended within a second. Workers never write a
file (the main process does, `runner.run`), so stopping one mid-item loses only its work.
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
STOP_GRACE = 1.0  # seconds a stopped worker has to end before it is killed
STOPPED = 143  # a worker's exit status when the run stopped it (128 + SIGTERM)


class _Stopped(BaseException):
    """Raised in a busy worker by SIGTERM: unwinds the call (a compile child is killed on the
    way out by `subprocess.run`) past `process`'s `except Exception`."""


_busy = False  # a worker is inside a call


def _on_sigterm(signum, frame) -> None:
    if _busy:
        raise _Stopped
    os._exit(STOPPED)


def _ignore(signum, frame) -> None:
    """A handler, not SIG_IGN: handlers are reset by exec, so a compile child a worker starts
    still ends on the terminal's Ctrl-C, while the worker waits for the main process's word."""


def _call(fn: Callable[[T], R], item: T) -> R:
    global _busy
    _busy = True
    try:
        return fn(item)
    except _Stopped:
        os._exit(STOPPED)
    finally:
        _busy = False


def start_worker(parent: int) -> None:
    """Pool initializer: the main process decides when a worker stops (SIGINT waits for its word,
    SIGTERM is that word), and the worker ends with it."""
    signal.signal(signal.SIGINT, _ignore)
    signal.signal(signal.SIGTERM, _on_sigterm)
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """End this process when `parent` (the main process) ends."""
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
                 on_done: Callable[[int, R], None] | None = None) -> list[R]:
    """`[fn(item) for item in items]`, on `jobs` worker processes, costliest item first;
    `on_done(index, result)` as each one arrives, in whatever order they finish. An exception
    here (KeyboardInterrupt, or one of `on_done`'s) stops the workers before it goes on."""
    results: list = [None] * len(items)
    order = sorted(range(len(items)), key=lambda i: -costs[i])  # stable: equal costs keep input order
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=start_worker, initargs=(os.getpid(),))
    try:
        futures = {pool.submit(_call, fn, items[i]): i for i in order}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if on_done is not None:
                on_done(futures[future], results[futures[future]])
    except BaseException:
        stop(pool)
        raise
    pool.shutdown()
    return results


def stop(pool: ProcessPoolExecutor) -> None:
    """End the pool now: nothing more handed out, every worker ended within STOP_GRACE."""
    # `_processes` is private, but the only handle on the workers before Python 3.14's
    # `terminate_workers`, and a pool's `shutdown` waits for the items already handed out.
    workers = list((getattr(pool, "_processes", None) or {}).values())
    for worker in workers:
        try:
            worker.terminate()
        except (OSError, ValueError):
            pass  # ended already
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + STOP_GRACE
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.kill()
            worker.join(STOP_GRACE)
