"""Compile a kernel file's source with the real pypto compiler, in a child process.

Stages: `parse` imports the module and builds each program (the DSL parser and its type
checks run there; this is where every Tile/Tensor error of the 2026-03 API comes from);
`passes` also runs the default pass pipeline on the CCE backend, reads its per-kernel
memory report and audits the IR it prints after the last pass (`codemods.compiler.ir_audit`).
With target 2026-08 the child works as `codemods.compiler.head` says (entry `@pl.jit`
functions lowered, Ascend910B, the memory map), in the Python `installed.compiler_python`
names, since that compiler cannot share an environment with the 2026-03 one.

The child (`codemods.compiler.worker`) imports the user's module, so module-level code runs;
a crash or a hang of pypto's C++ core costs that file only, and pypto's global state
starts fresh for each file.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..rulebook.loading import newest_step, oldest_step
from .installed import compilers, features, mismatch
from .ir_audit import Kernel, StructureProblem
from .memory_report import MemoryRecord

STAGES = ("parse", "passes")
DEFAULT_TIMEOUT = 300.0
INSTALL_HINT = "python -m pip install pypto-0.1.0-cp311-cp311-linux_x86_64.whl (the pinned compiler's wheel)"
# What pypto prints on stderr that says nothing about a crash: its log, nanobind's leak list at exit.
_NOISE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.\d]* [A-Z] \||nanobind:| - leaked | - \.\.\. skipped|See https://nanobind)")


@dataclass(frozen=True)
class CompileError:
    """Where the compiler rejected the file, in the user's file (1-based line and column)."""

    line: int
    column: int
    message: str


@dataclass
class CompileResult:
    stage: str
    programs: list[str] = field(default_factory=list)  # the builders / program classes compiled
    errors: list[CompileError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    memory: list[MemoryRecord] = field(default_factory=list)
    structure: list[StructureProblem] = field(default_factory=list)
    kernels: list[Kernel] = field(default_factory=list)  # every kernel function the passes outlined
    skipped: str | None = None  # why nothing was compiled (no program in the file)
    sets: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors


class CompilerUnavailable(Exception):
    """pypto cannot be imported by this Python."""


class CompilerMismatch(Exception):
    """The pypto a Python imports is not the target's; the message says which it is and what to do."""


class WorkerError(Exception):
    """pypto-migrate's own compile worker failed (a bug of ours, or data of ours it could not
    read): the file could not be processed. Never the compiler's verdict, so never exit 1."""


def unavailable_message(reason: str, python: str | None = None, target: str | None = None) -> str:
    """Both ways out: install the compiler where it was looked for, or name the Python that has
    it. The second is the usual one, since the two compilers cannot share an environment."""
    from .installed import ENV

    python = python or sys.executable
    hint = INSTALL_HINT
    if (target or newest_step()) != oldest_step():  # the newer wheel has the same name: say which one, and what it needs beside it
        wanted = compilers()[target or newest_step()]
        hint = f"python -m pip install {wanted.wheel} ({wanted.title})"
    if python != sys.executable:
        hint = hint.replace("python -m pip", f"{python} -m pip", 1)
    where = "this environment" if python == sys.executable else "that environment"
    return (f"--compile needs the pypto compiler, which {python} cannot import ({reason}). Point --compiler-python "
            f"(or {ENV}, or compiler-python in [tool.pypto-migrate]) at a Python that has it, or install it into "
            f"{where}: {hint}")


def probe(timeout: float = 120.0, target: str | None = None, python: str | None = None) -> dict[str, bool]:
    """Raise CompilerUnavailable unless a child process can import pypto.language, and
    CompilerMismatch unless that pypto is the target's; the API names it was told by."""
    try:
        found = _ask({"probe": True, "features": features()}, timeout, python).get("features", {})
    except _Failed as exc:  # that Python runs but cannot answer: no compiler to use there either
        raise CompilerUnavailable(str(exc)) from None
    problem = mismatch(target or newest_step(), found, python or sys.executable)
    if problem:
        raise CompilerMismatch(problem)
    return found


def compile_source(path: Path, text: str | None, stage: str = "parse", sets: dict[str, str] | None = None,
                   timeout: float = DEFAULT_TIMEOUT, defaults: dict[str, str] | None = None,
                   target: str | None = None, python: str | None = None) -> CompileResult:
    """Compile `text` as if it were the file at `path` (None: the file as it is on disk).

    Sizes: `sets` (NAME -> VALUE, as `verify --set`) over the file's own
    `# pypto-migrate: verify --set ...` line; module constants are replaced, builder
    parameters passed. `defaults` ([tool.pypto-migrate] set) apply where the file has the name,
    under its own line. `target` names the compiler's version (its API, its backend), `python`
    the interpreter that has it (default: ours).
    """
    if stage not in STAGES:
        raise ValueError(f"unknown compile stage {stage!r}; one of {', '.join(STAGES)}")
    source = text if text is not None else path.read_text(encoding="utf-8-sig")
    merged = file_sets(source, defaults or {}) | dict(sets or {})
    with tempfile.TemporaryDirectory(prefix="pypto-migrate-compile-") as workdir:
        request = {"path": str(Path(path).resolve()), "text": text, "stage": stage, "sets": merged, "workdir": workdir,
                   "target": target or newest_step()}
        try:
            reply = _ask(request, timeout, python)
        except _Failed as exc:
            return CompileResult(stage, errors=[CompileError(1, 1, str(exc))], sets=merged)
    return CompileResult(
        stage,
        programs=reply.get("programs", []),
        errors=[CompileError(e["line"], e["column"], e["message"]) for e in reply.get("errors", [])],
        notes=reply.get("notes", []),
        memory=[MemoryRecord(**m) for m in reply.get("memory", [])],
        structure=[StructureProblem(**s) for s in reply.get("structure", [])],
        kernels=[Kernel(**k) for k in reply.get("kernels", [])],
        skipped=reply.get("skipped"),
        sets=merged,
    )


def file_sets(text: str, defaults: dict[str, str] | None = None) -> dict[str, str]:
    """The sizes of the file's own `# pypto-migrate: verify --set ...` line (over `defaults`)."""
    from ..interp.execute import Settings
    from ..interp.sources import SetupError

    try:
        return Settings(defaults=(defaults or {}, {})).merged_over(text).sets
    except SetupError:  # a malformed --input on that line is verify's business, not ours
        return {}


class _Failed(Exception):
    """The child did not answer: it crashed, hung or printed no result."""


def _ask(request: dict, timeout: float, python: str | None = None) -> dict:
    env = dict(os.environ)
    # The child must import this very package even when it is not installed (a checkout on
    # PYTHONPATH); appended, so that nothing of ours shadows what the user's code imports.
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), package_root) if p)
    with tempfile.TemporaryDirectory(prefix="pypto-migrate-cwd-") as cwd:  # no module of the caller's cwd shadows pypto
        try:
            done = subprocess.run(
                [python or sys.executable, "-m", "codemods.compiler.worker"],
                input=json.dumps(request), capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env,
            )
        except subprocess.TimeoutExpired:
            raise _Failed(f"the compiler did not finish within {timeout:g} s; stopped") from None
        except OSError as exc:  # a --compiler-python that is not there or cannot run
            raise CompilerUnavailable(f"{python} cannot be run: {exc.strerror or exc}") from None
    try:
        reply = json.loads(done.stdout) if done.stdout.strip() else None
    except json.JSONDecodeError:
        reply = None
    if reply is None:
        raise _Failed(_crash_message(done))
    if "unavailable" in reply:
        raise CompilerUnavailable(reply["unavailable"])
    if "internal" in reply:
        raise WorkerError(f"internal error of pypto-migrate's compile worker ({reply['internal']}); please report it")
    return reply


def _crash_message(done: subprocess.CompletedProcess) -> str:
    if done.returncode < 0:
        try:
            how = f"was killed by {signal.Signals(-done.returncode).name}"
        except ValueError:
            how = f"was killed by signal {-done.returncode}"
    else:
        how = f"exited with status {done.returncode} without a result"
    tail = [line for line in done.stderr.splitlines() if line.strip() and not _NOISE.match(line)][-3:]
    return f"the compiler {how}" + (": " + " | ".join(s.strip() for s in tail) if tail else "")
