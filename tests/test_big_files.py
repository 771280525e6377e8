"""A file of many similar kernels costs in proportion to its size (issue 29, item 5), and a
person migrating one on a terminal sees where its migration is.

Work is counted, not timed: the function calls a migration makes, as cProfile counts them
(every call, the standard library's and the C builtins' included). The same count for a file
of twice the copies must be about twice as large. difflib's search, which the runner used to
map lines between steps and to write the diff, looks at every pair of equal lines: on a
file that repeats a kernel it made the count grow with the square of the copies.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import pty
import re
import subprocess
import sys
import threading

from codemods.cli.console import LONG_FILE
from codemods.rulebook.loading import load_rules
from codemods.run.runner import Job, process

# Written for this test: one kernel both version steps rewrite (a view, an assemble, a
# chunked loop under auto_incore, an output parameter). Its docstring's lines cost the
# migration next to nothing but are lines that the diff and the line maps match, as a
# generated file's repeated comments are.
KERNEL = '''

@pl.function
def scale_{i}(x: pl.Tensor[[8, 64], pl.FP32], out: pl.Tensor[[8, 64], pl.FP32]) -> pl.Tensor[[8, 64], pl.FP32]:
    """Doubles x into out, four rows at a time.

    Generated: one of many kernels of the same shape.

    Args:
        x: the input, 8 rows of 64.
        out: the output, the same shape.

    Returns:
        out, written whole.
    """
    with pl.auto_incore():
        for r0 in pl.parallel(0, 8, 4, chunk=1):
            part = pl.view(x, [4, 64], [r0, 0])
            out = pl.assemble(out, pl.add(part, part), [r0, 0])
    return out
'''


def kernels(copies: int) -> str:
    return "import pypto.language as pl\n" + "".join(KERNEL.format(i=i) for i in range(copies))


def calls_to_migrate(tmp_path, copies: int) -> int:
    path = tmp_path / f"kernels_{copies}.py"
    path.write_text(kernels(copies), encoding="utf-8")
    job = Job(tuple(r.id for r in load_rules(None, None)), target="2026-08")
    profile = cProfile.Profile()
    profile.enable()
    outcome = process(path, job)
    profile.disable()
    assert outcome.error is None
    assert len(outcome.edits) == 6 * copies  # every copy migrated, by both steps
    return pstats.Stats(profile).total_calls


def test_twice_the_copies_is_twice_the_work(tmp_path):
    calls_to_migrate(tmp_path, 1)  # what a process does once (imports, rules) is not counted below
    once = calls_to_migrate(tmp_path, 30)
    twice = calls_to_migrate(tmp_path, 60)
    assert twice < 2.1 * once, (once, twice)


def _on_a_terminal(args, cwd) -> tuple[int, bytes, bytes]:
    """Run the tool with stderr on a pseudo-terminal and stdout on a pipe: (exit code, stdout, stderr)."""
    master, slave = pty.openpty()
    seen: list[bytes] = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            seen.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CI")}
    done = subprocess.run([sys.executable, "-m", "codemods", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=slave,
                          env={**env, "TERM": "xterm", "COLUMNS": "160"}, timeout=600)
    os.close(slave)
    reader.join(timeout=30)
    os.close(master)
    return done.returncode, done.stdout, b"".join(seen)


def test_one_long_file_shows_where_its_migration_is_on_a_terminal_only(tmp_path):
    copies = LONG_FILE // len(KERNEL) + 1
    (tmp_path / "generated.py").write_text(kernels(copies), encoding="utf-8")
    args = ["run", "--target", "2026-03", "--no-cache", "--format", "json", "generated.py"]
    code, out, err = _on_a_terminal(args, tmp_path)
    assert code == 0
    assert b"pypto-migrate" in err and b"0/1" in err, err[-500:]
    assert re.search(rb"generated\.py: 2026-03: (parsing|rewriting|printing|checking|diff)", err), err[-500:]
    assert json.loads(out)["files"][0]["edits"] == 3 * copies  # stdout holds the report alone
    piped = subprocess.run([sys.executable, "-m", "codemods", *args], cwd=tmp_path, capture_output=True, timeout=600)
    assert piped.stdout == out
    assert b"0/1" not in piped.stderr and b"generated.py: " not in piped.stderr
    assert b"\r" not in piped.stderr and b"\x1b[" not in piped.stderr
