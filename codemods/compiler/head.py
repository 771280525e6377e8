"""The worker's side of the 2026-08 compiler (pypto e2d0f78ae), run in the child process.

What changed since 2026-03, and what the worker does about it:
- most kernels are `@pl.jit` functions: an entry one (orchestration or host) is specialized
  from its fully shaped annotations; a scalar parameter needs a keyword, its `--set` value
  or else `pl.RUNTIME` (left unspecialized, as a kernel that runs for any size);
- the backend is `Ascend910B` (CCE is gone);
- the text memory report is gone: per-kernel buffer use is read off the IR printed after
  `AllocateMemoryAddr` with `pypto.tools.memory_map`;
- an overflow stops the pipeline (AllocateMemoryAddr raises for the first space that does
  not fit), so only the first overflow of a program is ever seen.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ENTRY_TYPES = ("orchestration", "host")  # a jit function called from the host; the others are its callees
PLATFORM = "a2a3sim"  # lower()'s platform for Ascend910B
_NO_VALUE = re.compile(r"scalar parameter '(?P<name>\w+)' has no value")
_MISPLACED = re.compile(r"Misplaced tensor op '([\w.]+)'")
_AT = re.compile(r":(\d+):(\d+)\]$")  # the user's line and column, as the generator names them
_OVERFLOW = re.compile(r"buffer usage \(\d+ bytes\) exceeds platform limit")


def jit_functions(tree: ast.Module) -> list[str]:
    """Module-level functions under a `jit` decorator (`@pl.jit`, `@pl.jit(...)`, `@pl.jit.host`...)."""
    return [
        node.name for node in tree.body
        if isinstance(node, ast.FunctionDef) and any(_is_jit(d) for d in node.decorator_list)
    ]


def _is_jit(decorator: ast.expr) -> bool:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(node, ast.Attribute):
        if node.attr == "jit":
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id == "jit"


def entries(module_dict: dict, names: list[str]) -> list[tuple[str, object]]:
    """The entry @pl.jit functions among `names`, as the module defines them."""
    found = []
    for name in names:
        fn = module_dict.get(name)
        if type(fn).__name__ == "JITFunction" and getattr(fn, "_func_type", "orchestration") in ENTRY_TYPES:
            found.append((name, fn))
    return found


def set_backend() -> None:
    from pypto import backend

    backend.reset_for_testing()
    backend.set_backend_type(backend.BackendType.Ascend910B)


def lower(name: str, fn, sets: dict, stage: str, folder: Path, out: dict, where) -> object | None:
    """Specialize one entry jit function: its program before the passes (stage parse) or
    after them (stage passes, as `fn.lower()`), or None with the error recorded."""
    import pypto.language as pl
    from pypto.runtime import RunConfig

    params = parameters(fn)
    kwargs = {k: ast.literal_eval(v) for k, v in sets.items() if k in params}
    runtime: list[str] = []
    try:
        for _ in range(len(params) + 1):
            try:
                if stage == "parse" and hasattr(fn, "_resolve_specialization"):
                    return _parsed(fn, kwargs, pl)
                return fn.lower(**kwargs, config=RunConfig(platform=PLATFORM))
            except TypeError as exc:
                missing = _NO_VALUE.search(str(exc))
                if missing is None or missing.group("name") in kwargs:
                    record_failure(exc, name, out, where, first_line(fn))
                    return None
                kwargs[missing.group("name")] = pl.RUNTIME
                runtime.append(missing.group("name"))
            except BaseException as exc:
                record_failure(exc, name, out, where, first_line(fn))
                return None
        return None
    finally:
        if runtime:
            out["notes"].append(f"{name}: scalar {', '.join(runtime)} left as pl.RUNTIME (give a size with --set NAME=VALUE)")


def _parsed(fn, kwargs: dict, pl) -> object:
    """The program of one specialization before any pass: the parser and its type checks only."""
    specialization, _ = fn._resolve_specialization((), kwargs, allow_signature_mode=True)
    program, _ = fn._compile_to_program_with_rename_map(
        specialization.tensor_meta, specialization.scalar_values, specialization.scalar_dtypes,
        specialization.per_func_dyn, pl,
    )
    return program


def first_line(fn) -> int | None:
    """Where a jit function's definition starts (its first decorator), in the user's file."""
    code = getattr(getattr(fn, "_func", None), "__code__", None)
    return code.co_firstlineno if code is not None else None


def parameters(fn) -> set[str]:
    import inspect

    try:
        return set(inspect.signature(fn._func).parameters)
    except (AttributeError, TypeError, ValueError):
        return set()


def run_passes(name: str, program, folder: Path) -> tuple[Path, object]:
    """The Default pipeline on a built program, dumping the IR after each pass in `folder`:
    the dump after AllocateMemoryAddr, which the memory map reads, and the final program."""
    from pypto import passes
    from pypto.ir.pass_manager import OptimizationStrategy, PassDumpLevel, PassManager
    from pypto.tools import memory_map

    (folder / "report").mkdir(parents=True, exist_ok=True)
    with passes.PassContext([passes.ReportInstrument(str(folder / "report"))], passes.VerificationLevel.BASIC):
        manager = PassManager.get_strategy(OptimizationStrategy.Default)  # built inside the context it runs in
        final = manager.run_passes(program, dump_ir=PassDumpLevel.EXPLICIT, output_dir=str(folder / "passes_dump"))
    return memory_map.resolve_dump(folder / "passes_dump", "AllocateMemoryAddr"), final


def orchestration_problems(program) -> list[dict]:
    """What the orchestration code generator refuses in a program the passes accepted. It
    writes host code for a handful of tensor ops (create, read, slice, ...); a compute op left
    outside every kernel scope passes the pipeline and fails only here ("Misplaced tensor op
    'tensor.cast' in Orchestration function"), so `check_kernel.py` alone does not see it."""
    from pypto.pypto_core import codegen

    problems = []
    for var, fn in program.functions.items():
        if not str(fn.func_type).endswith(".Orchestration"):
            continue
        name = getattr(var, "name", None) or getattr(fn, "name", "?")
        try:
            codegen.generate_orchestration(program, fn)
        except Exception as exc:  # the generator's own verdict, whatever its exception type
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            op, at = _MISPLACED.search(message), _AT.search(message)
            problems.append({"function": str(name), "op": f"pl.{op.group(1)}" if op else "orchestration codegen",
                             "message": f"orchestration codegen of {name}: {message}",
                             "line": int(at.group(1)) if at else 1, "column": int(at.group(2)) if at else 1})
    return problems


def final_dump(program, folder: Path) -> Path:
    """A lowered program printed with its layouts: what the memory map and the audit read."""
    from pypto import ir

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "final.py"
    path.write_text(ir.python_print(program, explicit_layout=True), encoding="utf-8")
    return path


def last_dump(folder: Path) -> Path | None:
    dumps = sorted((folder / "passes_dump").glob("[0-9]*_after_*.py"), key=lambda p: int(p.name.split("_", 1)[0]))
    return dumps[-1] if dumps else None


def memory(dump: Path) -> list[dict]:
    """Each kernel's high-water mark per memory space, against the backend's capacity."""
    from pypto.tools import memory_map

    from .memory_report import MemoryRecord

    limits = memory_map.backend_limits("Ascend910B")
    records = []
    for fn in memory_map.parse_dump(dump):
        used: dict[str, int] = {}
        for box in fn.boxes:
            used[box.space] = max(used.get(box.space, 0), box.offset + box.size)
        records.extend(MemoryRecord(fn.name, space, n, limits.get(space, 0)).to_json() for space, n in used.items())
    return records


def record_failure(exc: BaseException, name: str, out: dict, where, line: int | None = None) -> None:
    """The error at the user's line; a C++ check of a pass names no line of the user's, so it
    is put on `line` (the function or builder that was being compiled) rather than line 1."""
    finding = where.finding(exc, f"compiling {name}")
    if line and (finding["line"], finding["column"]) == (1, 1):
        finding = dict(finding, line=line)
    out["errors"].append(finding)
    if _OVERFLOW.search(str(exc)):
        out["notes"].append(
            f"{name}: an overflow stops this compiler's pipeline at the first memory space that does "
            "not fit; shrink that kernel and compile again to see the next"
        )
