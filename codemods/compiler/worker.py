"""The child process of `codemods.compiler.bridge`: import one kernel module under pypto, build its
programs, optionally run the pass pipeline, and print one JSON object on stdout.

It runs apart from the tool because it executes the user's module-level code, because
pypto's C++ core can abort the process, and because pypto keeps global state (the backend
type, registries) that must not leak from one file into the next. Everything the user's
code or pypto prints goes to stderr; the JSON is written to the original stdout alone.

Input (JSON on stdin): {"path": the user's file, "text": source to compile or null for the
file as it is, "stage": "parse" | "passes", "sets": {NAME: VALUE}, "workdir": a scratch dir}.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import sys
import traceback
import types
from pathlib import Path

from . import head

MODULE_NAME = "pypto_migrate_compiled_kernel"
# Where 2026-08's C++ checks name the user's line: "... at FILE:LINE:COL" or "... [FILE:LINE:COL]".
_SOURCE_AT = re.compile(r"(?:\bat |\[)(?P<file>/[^\s\]]+?\.py):(?P<line>\d+):(?P<col>\d+)")
_TRACEBACK_LINE = re.compile(r"^\s*(C\+\+ Traceback|File \".*\", line \d+|Traceback \(most recent call last\))")


def main() -> int:
    result_stream = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the user's prints and the C++ core's output land on stderr
    sys.stdout = sys.stderr
    request = json.load(sys.stdin)
    try:
        import pypto.language  # noqa: F401
    except Exception as exc:  # ImportError, or a wheel that does not load on this machine
        json.dump({"unavailable": f"{type(exc).__name__}: {exc}"}, result_stream)
        return 0
    if request.get("probe"):
        json.dump({"ok": True, "features": features(request.get("features") or [])}, result_stream)
        return 0
    try:
        result = compile_file(request)
    except Exception as exc:  # a bug of ours: said as such, never mistaken for the compiler's verdict
        traceback.print_exc()
        result = {"internal": f"{type(exc).__name__}: {exc}"}
    json.dump(result, result_stream)
    result_stream.flush()
    return 0


def features(names: list[str]) -> dict[str, bool]:
    """Which of `names` (`pl.X`, `BackendType.X`) this pypto has: how its version is told."""
    import pypto.language as pl
    from pypto import backend

    owners = {"pl": pl, "BackendType": backend.BackendType}
    found = {}
    for name in names:
        owner, _, attr = name.partition(".")
        found[name] = owner in owners and hasattr(owners[owner], attr)
    return found


def compile_file(request: dict) -> dict:
    from ..interp.sources import SetupError, builders, is_program, module_names, override_constants

    user_path = Path(request["path"]).resolve()
    text = request["text"]
    workdir = Path(request["workdir"])
    out = {"programs": [], "errors": [], "notes": [], "memory": [], "structure": [], "kernels": []}
    if text is None:
        module_file = user_path
        text = user_path.read_text(encoding="utf-8-sig")
    else:
        module_file = workdir / "source" / user_path.name
        module_file.parent.mkdir(parents=True, exist_ok=True)
        module_file.write_text(text, encoding="utf-8")
    source = text.lstrip("\ufeff")
    tree = ast.parse(source, str(module_file))
    builder_names = builders(tree)
    program_classes = [
        node.name for node in tree.body
        if isinstance(node, ast.ClassDef) and any(is_program(d) for d in node.decorator_list)
    ]
    import pypto.language as pl

    # The compiler of the newest step is told by what it has (entry @pl.jit functions), not by
    # the target's name: its child builds and lowers programs its own way (`head`).
    newest = hasattr(pl, "jit")
    target = request.get("target")
    jit_names = head.jit_functions(tree) if newest else []
    if not builder_names and not program_classes and not jit_names:
        out["skipped"] = "no @pl.program (nor a function that builds one)" + (", no @pl.jit function" if newest else "")
        return out
    sets = dict(request.get("sets") or {})
    try:
        tree = override_constants(tree, sets, str(module_file))
    except SetupError as exc:
        out["errors"].append(_finding(1, 1, str(exc)))
        return out

    where = _Locator(module_file, user_path, named_lines=newest)
    if newest:
        head.set_backend()  # before the module runs: a module-level @pl.program is parsed on import
    # Sibling modules of the user's file import as they would when it runs as a script.
    sys.path.insert(0, str(user_path.parent))
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = str(module_file)
    sys.modules[MODULE_NAME] = module
    try:
        exec(compile(tree, str(module_file), "exec", dont_inherit=True), module.__dict__)
    except BaseException as exc:  # SystemExit of a script included: it must cost only this file
        out["errors"].append(where.finding(exc, "importing the module failed"))
        return out

    from pypto.pypto_core import ir

    programs = []
    for name in program_classes:
        value = module.__dict__.get(name)
        if isinstance(value, ir.Program):
            programs.append((name, value))
    used = set(module_names(tree))
    for name in builder_names:
        fn = module.__dict__.get(name)
        params = inspect.signature(fn).parameters
        used |= set(params)
        kwargs = {k: ast.literal_eval(v) for k, v in sets.items() if k in params}
        try:
            value = fn(**kwargs)
        except BaseException as exc:
            out["errors"].append(where.finding(exc, f"{name}() failed"))
            continue
        if isinstance(value, ir.Program):
            programs.append((name, value))
        else:
            out["notes"].append(f"{name}() returned {type(value).__name__}, not a pypto Program")
    if newest:
        for name, fn in head.entries(module.__dict__, jit_names):
            used |= head.parameters(fn)
    unknown = sorted(set(sets) - used)
    if unknown:
        out["notes"].append(f"--set {', '.join(unknown)}: no module constant or builder parameter of that name")
    if newest:
        lines = {n.name: n.lineno for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        return _compile_newest(programs, module.__dict__, jit_names, sets, request["stage"], workdir, out, where, lines, target)
    out["programs"] = [name for name, _ in programs]
    if request["stage"] == "passes":
        for i, (name, program) in enumerate(programs):
            _run_passes(name, program, workdir / "passes" / f"{i}_{name}", out, where, target)
    return out


def _compile_newest(programs, module_dict, jit_names, sets, stage, workdir: Path, out: dict, where, lines, target) -> dict:
    """The 2026-08 compiler: built programs through the pass pipeline, entry @pl.jit functions
    through `.lower()`; memory from the memory map's reading of the IR, structure audited."""
    compiled = []
    for i, (name, program) in enumerate(programs):
        folder = workdir / "passes" / f"{i}_{name}"
        if stage == "parse":
            compiled.append(name)
            continue
        try:
            dump, final = head.run_passes(name, program, folder)
        except BaseException as exc:
            compiled.append(name)
            head.record_failure(exc, name, out, where, lines.get(name))
            continue
        compiled.append(name)
        _read_dump(name, dump, head.last_dump(folder), out, target)
        out["structure"].extend(head.orchestration_problems(final))
    for i, (name, fn) in enumerate(head.entries(module_dict, jit_names)):
        lowered = head.lower(name, fn, sets, stage, workdir / "jit" / f"{i}_{name}", out, where)
        compiled.append(name)
        if lowered is not None and stage == "passes":
            dump = head.final_dump(lowered, workdir / "jit" / f"{i}_{name}")
            _read_dump(name, dump, dump, out, target)
            out["structure"].extend(head.orchestration_problems(lowered))
    out["programs"] = compiled
    return out


def _read_dump(name: str, memory_dump: Path, final: Path | None, out: dict, target: str) -> None:
    from .ir_audit import audit_dump, kernels_in
    from ..rulebook.loading import load_api

    try:
        out["memory"].extend(dict(record, program=name) for record in head.memory(memory_dump))
    except Exception as exc:  # the memory map is a reading aid; its failure must not cost the verdict
        out["notes"].append(f"{name}: the memory map could not read {memory_dump.name} ({type(exc).__name__}: {exc})")
    if final is None:
        out["notes"].append(f"{name}: the pass pipeline dumped no IR to audit")
        return
    try:
        dumped = final.read_text(encoding="utf-8")
        problems = audit_dump(dumped, load_api(None, target))
        out["kernels"].extend(k.to_json() for k in kernels_in(dumped, name))
    except SyntaxError as exc:
        out["notes"].append(f"{name}: the IR dump {final.name} could not be read ({exc.msg} at line {exc.lineno}); structure not audited")
        return
    out["structure"].extend(p.to_json() for p in problems)


def _run_passes(name, program, folder: Path, out: dict, where: "_Locator", target: str) -> None:
    import pypto
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager
    from pypto.pypto_core import passes

    from .ir_audit import audit_dump, kernels_in
    from .memory_report import parse_memory_report
    from ..rulebook.loading import load_api

    folder.mkdir(parents=True, exist_ok=True)
    pypto.backend.set_backend_type(pypto.backend.BackendType.CCE)
    report = passes.ReportInstrument(str(folder))
    report.enable_report(passes.ReportType.Memory, "AllocateMemoryAddr")
    try:
        with passes.PassContext([report], passes.VerificationLevel.NONE):
            PassManager.get_strategy(OptimizationStrategy.Default).run_passes(program, dump_ir=True, output_dir=str(folder))
    except BaseException as exc:
        out["errors"].append(where.finding(exc, f"pass pipeline on {name}"))
        return
    memory = folder / "memory_after_AllocateMemoryAddr.txt"
    if memory.exists():
        out["memory"].extend(dict(r.to_json(), program=name) for r in parse_memory_report(memory.read_text(encoding="utf-8")))
    else:
        out["notes"].append(f"{name}: the pass pipeline wrote no memory report")
    dumps = sorted(folder.glob("[0-9]*_after_*.py"), key=lambda p: int(p.name.split("_", 1)[0]))
    if not dumps:
        out["notes"].append(f"{name}: the pass pipeline dumped no IR to audit")
        return
    try:
        dumped = dumps[-1].read_text(encoding="utf-8")
        problems = audit_dump(dumped, load_api(None, target))
        out["kernels"].extend(k.to_json() for k in kernels_in(dumped, name))
    except SyntaxError as exc:
        out["notes"].append(f"{name}: the IR dump {dumps[-1].name} could not be read ({exc.msg} at line {exc.lineno}); structure not audited")
        return
    out["structure"].extend(p.to_json() for p in problems)


def _finding(line: int, column: int, message: str) -> dict:
    return {"line": line, "column": column, "message": message}


class _Locator:
    """Turns an exception raised while compiling into a finding in the user's file."""

    def __init__(self, module_file: Path, user_path: Path, named_lines: bool = False) -> None:
        self.module_file = str(module_file)
        self.user_path = str(user_path)
        self.named_lines = named_lines  # 2026-08's C++ checks name the user's line in their text

    def finding(self, exc: BaseException, context: str) -> dict:
        from pypto.language.parser.diagnostics import ParserError

        if isinstance(exc, ParserError):
            return self._parser_error(exc)
        message = clean_message(str(exc)) or type(exc).__name__
        if "Check failed" not in str(exc) and not isinstance(exc, (ValueError, RuntimeError)):
            message = f"{context}: {type(exc).__name__}: {message}"
        named = self._named_line(str(exc)) if self.named_lines else None
        if named is not None:  # a C++ check that names the user's own line: that line, not the caller's
            return _finding(*named, message)
        elsewhere = self._other_file(str(exc)) if self.named_lines else None
        if elsewhere is not None:  # in a module the kernel imports (an inlined helper): say where
            return _finding(1, 1, f"{message} (in {elsewhere})")
        line = self._innermost_line(exc)
        return _finding(line or 1, 1, message)

    def _named_line(self, text: str) -> tuple[int, int] | None:
        for m in _SOURCE_AT.finditer(text):
            if self._same(m.group("file")):
                return int(m.group("line")), int(m.group("col")) + 1  # pypto counts columns from 0
        return None

    def _other_file(self, text: str) -> str | None:
        for m in _SOURCE_AT.finditer(text):
            if not self._same(m.group("file")) and os.path.isfile(m.group("file")):
                return f"{m.group('file')}:{m.group('line')}:{int(m.group('col')) + 1}"
        return None

    def _parser_error(self, exc) -> dict:
        from pypto.language.parser.diagnostics.renderer import ErrorRenderer

        rendered = ErrorRenderer(use_color=False).render(exc)
        message = ""
        for text in rendered.splitlines():
            if text.startswith("Error:"):
                message = text[len("Error:"):].strip()
                break
        message = message or clean_message(str(getattr(exc, "message", exc)))
        m = re.search(r"-->\s*(?P<file>.+?):(?P<line>\d+):(?P<col>\d+)\s*$", rendered, re.M)
        if m is None:
            return _finding(1, 1, message)
        file, line, col = m.group("file"), int(m.group("line")), int(m.group("col")) + 1  # pypto counts columns from 0
        if self._same(file):
            return _finding(line, col, message)
        # An error inside another module (a helper the kernel imports): say where, at line 1 here.
        return _finding(1, 1, f"{message} (in {file}:{line}:{col})")

    def _same(self, file: str) -> bool:
        return os.path.realpath(file) in (os.path.realpath(self.module_file), os.path.realpath(self.user_path))

    def _innermost_line(self, exc: BaseException) -> int | None:
        line = None
        for frame in traceback.extract_tb(exc.__traceback__):
            if self._same(frame.filename):
                line = frame.lineno
        if isinstance(exc, SyntaxError) and exc.filename and self._same(exc.filename):
            line = exc.lineno
        return line


def clean_message(text: str) -> str:
    """The compiler's message without the C++ traceback and source excerpt it embeds."""
    kept = []
    for line in text.splitlines():
        if _TRACEBACK_LINE.match(line):
            break
        if line.strip():
            kept.append(line.strip())
    return " ".join(kept)


if __name__ == "__main__":
    sys.exit(main())
