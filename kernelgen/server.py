"""A compiler kept alive for a whole fuzz run: run by the Python that has one pypto.

The tool's own bridge (`codemods.compiler.bridge`) starts a child process per file, which
costs pypto's import each time (about 10 s for the 2026-08 compiler, which imports torch).
Here pypto is imported once and each request runs in a fork of this process, so that a crash
of pypto's C++ core, or the global state a program leaves behind, costs that request only.

Requests are JSON lines on stdin, answers JSON lines on stdout:
- {"kind": "target", ...}: the tool's compile worker (`codemods.compiler.worker.compile_file`)
  on the request the bridge would send (path, text, stage, sets, target); the answer is its reply.
- {"kind": "era", "text": ..., "checker": PATH}: `check_source.py` of ../shared/oracle-eras on
  the text (the checker that works on every day's compiler); {"rc": 0|1|2, "message": ...}.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import select
import signal
import sys
import tempfile
import traceback


def _child(request: dict, workdir: str) -> dict:
    if request["kind"] == "target":
        from codemods.compiler.worker import compile_file

        return compile_file(dict(request["request"], workdir=workdir))
    path = os.path.join(workdir, "kernel.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(request["text"])
    checker = runpy.run_path(request["checker"], run_name="kernelgen_checker")
    sys.argv = ["check_source.py", path, *request.get("args", [])]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            rc = checker["main"]()
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
    return {"rc": rc, "message": printed.getvalue().strip()}


def _serve_one(request: dict, timeout: float) -> dict:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, then leave without running any exit handler of the parent's
        os.close(read_end)
        os.dup2(2, 1)  # what pypto or the kernel prints goes to stderr
        try:
            with tempfile.TemporaryDirectory(prefix="kernelgen-compile-") as workdir:
                reply = _child(request, workdir)
        except BaseException as exc:  # noqa: BLE001 - said as ours, never as the compiler's verdict
            traceback.print_exc()
            reply = {"internal": f"{type(exc).__name__}: {exc}"}
        data = json.dumps(reply).encode()
        with os.fdopen(write_end, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write_end)
    chunks = []
    deadline = timeout
    with os.fdopen(read_end, "rb") as inp:
        while True:
            ready, _, _ = select.select([inp], [], [], deadline)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"crash": f"no answer within {timeout:g} s"}
            chunk = inp.read1(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        how = f"signal {-os.waitstatus_to_exitcode(status)}" if os.WIFSIGNALED(status) else f"status {os.waitstatus_to_exitcode(status)}"
        return {"crash": f"the compiler died ({how}) without an answer"}
    return json.loads(b"".join(chunks))


def main() -> int:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        import pypto.language  # noqa: F401  imported once, inherited by every fork
        import codemods.compiler.worker  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        answers.write(json.dumps({"unavailable": f"{type(exc).__name__}: {exc}"}) + "\n")
        answers.flush()
        return 0
    answers.write(json.dumps({"ready": True}) + "\n")
    answers.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        reply = _serve_one(request, float(request.get("timeout", 120)))
        answers.write(json.dumps(reply) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
