"""The compilers of a fuzz run: one long-lived `kernelgen.server` process per Python.

Which Python has which compiler:
- the 2026-03 target (c39fe714a): the Python running the tool (`make install` puts it in .venv);
- the 2026-08 target (e2d0f78ae): $PYPTO_HEAD_PYTHON, else `.venv-head` beside `.venv`;
- the 2026-05-26 compiler, the oracle of spring sources: $PYPTO_ERA_2026_05_PYTHON, else
  `.venv-era-2026-05` (`make fuzz` builds it from ../shared/oracle-eras/2026-05-26).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CHECKER = SHARED / "oracle-eras" / "check_source.py"


def _venv_python(suffix: str, env_name: str) -> str | None:
    named = os.environ.get(env_name)
    if named:
        return named if Path(named).is_file() else None
    prefix = Path(sys.prefix)
    for base in (prefix.with_name(prefix.name + suffix), ROOT / (".venv" + suffix)):
        candidate = base / "bin" / "python"
        if candidate.is_file():
            return str(candidate)
    return None


def pythons() -> dict[str, str | None]:
    """compiler name -> the Python that has it (None: not installed here)."""
    try:
        import importlib.util

        ours = sys.executable if importlib.util.find_spec("pypto") is not None else None
    except (ImportError, ValueError):
        ours = None
    return {
        "2026-03": ours,
        "2026-08": _venv_python("-head", "PYPTO_HEAD_PYTHON"),
        "2026-05-26": _venv_python("-era-2026-05", "PYPTO_ERA_2026_05_PYTHON"),
    }


class CompilerGone(Exception):
    """The server could not be started or stopped answering."""


class Compiler:
    """One server process; `ask` sends a request and waits for its answer (restarting a dead server once)."""

    def __init__(self, name: str, python: str):
        self.name, self.python = name, python
        self.proc: subprocess.Popen | None = None
        self.lock = threading.Lock()

    def _start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), str(ROOT)) if p)
        self.proc = subprocess.Popen([self.python, "-m", "kernelgen.server"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                     cwd=str(ROOT))
        first = json.loads(self.proc.stdout.readline() or "{}")
        if not first.get("ready"):
            self.close()
            raise CompilerGone(f"{self.name}: {first.get('unavailable', 'the compiler server did not start')}")

    def ask(self, request: dict) -> dict:
        with self.lock:
            for attempt in (0, 1):
                if self.proc is None or self.proc.poll() is not None:
                    self._start()
                try:
                    self.proc.stdin.write(json.dumps(request) + "\n")
                    self.proc.stdin.flush()
                    line = self.proc.stdout.readline()
                except (BrokenPipeError, OSError):
                    line = ""
                if line:
                    return json.loads(line)
                self.close()
            raise CompilerGone(f"{self.name}: the compiler server stopped answering")

    def compile_target(self, text: str, target: str, stage: str = "passes", name: str = "kernel.py") -> dict:
        request = {"path": str(Path("/tmp/kernelgen") / name), "text": text, "stage": stage, "sets": {},
                   "target": target}
        return self.ask({"kind": "target", "request": request})

    def check_source(self, text: str) -> dict:
        return self.ask({"kind": "era", "text": text, "checker": str(CHECKER)})

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


class Compilers:
    """The servers of one run, started on first use."""

    def __init__(self):
        self.found = pythons()
        self.servers: dict[str, Compiler] = {}

    def have(self, name: str) -> bool:
        return bool(self.found.get(name))

    def get(self, name: str) -> Compiler:
        if name not in self.servers:
            python = self.found.get(name)
            if not python:
                raise CompilerGone(f"no Python with the {name} compiler")
            self.servers[name] = Compiler(name, python)
        return self.servers[name]

    def close(self) -> None:
        for server in self.servers.values():
            server.close()
