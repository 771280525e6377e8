"""Compile many files at parse level in the compiler's own Python, importing pypto once.

Run by benchmarks/strict_agreement.py as `PYTHON benchmarks/compile_many.py` with one JSON request
of `codemods.compiler.worker` per stdin line; prints one JSON reply per line, in order. Each file
is compiled by `worker.compile_file` in a child forked after pypto is imported: the import is
most of a one-file compile's time, and the fork still gives every file pypto's global state
fresh, as the bridge's process per file does.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TIMEOUT = 300  # seconds a file may take, as the bridge's default


def main() -> int:
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the user's modules and pypto print goes to stderr
    sys.stdout = sys.stderr
    import pypto.language  # noqa: F401  (once, before the forks)

    from codemods.compiler import worker

    for line in sys.stdin:
        if line.strip():
            out.write(json.dumps(one(worker, json.loads(line))) + "\n")
            out.flush()
    return 0


def one(worker, request: dict) -> dict:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compile, answer, leave without running the parent's cleanup
        os.close(read)
        try:
            signal_alarm(TIMEOUT)
            reply = worker.compile_file(request)
        except BaseException as exc:  # noqa: BLE001 - a bug of ours, said as such
            reply = {"internal": f"{type(exc).__name__}: {exc}"}
        with os.fdopen(write, "w", encoding="utf-8") as pipe:
            pipe.write(json.dumps(reply))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, encoding="utf-8") as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not text:
        return {"errors": [{"line": 1, "column": 1, "message": f"the compiler stopped (status {status})"}]}
    return json.loads(text)


def signal_alarm(seconds: int) -> None:
    import signal

    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # a file that hangs is killed, not waited for
    signal.alarm(seconds)


if __name__ == "__main__":
    sys.exit(main())
