"""`pypto-migrate report`: each kernel's buffer needs and each file's scope structure.

The numbers describe the code *after* migration (the planner types old code as it will
be), so a report on an unmigrated file answers "will this fit once migrated?".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import libcst as cst

from ..model.capacity import Usage, kb, region_usage
from ..syntax.memo import per_file
from ..syntax.positions import starts
from ..syntax.nodes import code
from ..syntax.traversal import walk
from .planner import Planner


@dataclass
class KernelReport:
    function: str
    label: str
    line: int
    header: str
    scope_line: int | None
    ops: Counter
    usage: list[Usage] = field(default_factory=list)


@dataclass
class FileReport:
    path: str
    kernels: list[KernelReport]
    scopes: list[tuple[str, int, str]]  # (function, line, "auto_incore" | "incore")

    def records(self) -> list[dict]:
        out = []
        for k in self.kernels:
            for u in k.usage:
                out.append({
                    "file": self.path, "line": k.line, "function": k.function, "region": k.label,
                    "space": u.space, "bytes": u.bytes, "limit": u.limit,
                    "tiles": [{"tile": t.label, "bytes": t.bytes} for t in u.tiles],
                })
        return out

    def text(self) -> str:
        lines = [self.path]
        functions = dict.fromkeys([k.function for k in self.kernels] + [f for f, _, _ in self.scopes])
        for function in functions:
            lines.append(f"  {function}")
            scopes = [s for s in self.scopes if s[0] == function]
            for _, line, kind in scopes:
                lines.append(f"    {kind} at line {line}")
                for k in (k for k in self.kernels if k.function == function and k.scope_line == line):
                    lines.extend(_kernel_lines(k, "      "))
            for k in (k for k in self.kernels if k.function == function and k.scope_line is None):
                lines.extend(_kernel_lines(k, "    "))
        return "\n".join(lines)


def _kernel_lines(k: KernelReport, indent: str) -> list[str]:
    ops = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in sorted(k.ops.items()))
    out = [f"{indent}{k.label} at line {k.line}: {k.header}", f"{indent}  ops: {ops or 'none'}"]
    for u in k.usage:
        mark = "  OVER" if u.over else ""
        used = "unknown" if u.bytes is None else kb(u.bytes)
        share = "" if u.bytes is None else f" ({100 * u.bytes / u.limit:.1f}%)"
        out.append(f"{indent}  {u.space:5} {used:>10} of {kb(u.limit):>6}{share}{mark}")
        if u.over:
            out.append(f"{indent}        {u.summary()}")
    return out


def report_paths(paths, api) -> tuple[list[FileReport], list[str]]:
    """Reports of every file, and `path:line:col: message` for each that could not be read."""
    from ..check.results import SourceError
    from .parsing import parse
    from ..text.sources import FileProblem, display_path, read_text

    reports, errors = [], []
    for path in paths:
        shown = display_path(path)
        try:
            module = parse(read_text(path).lstrip("\ufeff"))
        except (SourceError, FileProblem) as exc:
            where = f"{shown}:{exc.line}:{exc.column}" if exc.line else shown
            errors.append(f"{where}: {exc.message}")
            continue
        reports.append(report_module(module, shown, api))
    return reports, errors


def report_module(module: cst.Module, path: str, api) -> FileReport:
    with per_file():
        return _report_module(module, path, api)


def _report_module(module: cst.Module, path: str, api) -> FileReport:
    planner = Planner(module, api)
    plan = planner.run()
    lines = {key: line for key, (line, _) in starts(
        module, [n for rp in plan.region_plans for n in (rp.region.scope, rp.region.node) if n is not None]).items()}
    kernels = []
    scopes: list[tuple[str, int, str]] = []
    seen_scopes = set()
    for rp in plan.region_plans:
        r = rp.region
        scope_line = lines[id(r.scope)] if r.scope is not None else None
        if r.scope is not None and r.scope not in seen_scopes:
            seen_scopes.add(r.scope)
            scopes.append((rp.function, scope_line, "auto_incore"))
        if isinstance(r.node, cst.For):
            header = f"for {code(r.node.target)} in {code(r.node.iter)}"
        elif isinstance(r.node, cst.FunctionDef):
            header = f"def {r.node.name.value}(...), an InCore function"
        else:
            header = "with " + ", ".join(code(item.item) for item in r.node.items)
        inside = {id(n) for n in walk(r.node.body)}
        ops = Counter(op for node, op in planner.ops.items() if isinstance(node, cst.Call) and id(node) in inside)
        ops = Counter({op: n for op, n in ops.items() if op not in ("range", "parallel", "incore")})
        usage = region_usage(rp, api, rp.constants)
        kernels.append(KernelReport(rp.function, r.label, lines[id(r.node)], header, scope_line, ops, usage))
    scopes.sort(key=lambda s: s[1])
    return FileReport(path, kernels, scopes)



def figures(text: str, api) -> tuple[int, int]:
    """(kernel regions, buffer spaces over a limit) of a text, as `report` counts them with
    `api`: its OVER lines."""
    from .parsing import parse

    with per_file():
        module = parse(text.lstrip("\ufeff"))
        plan = Planner(module, api).run()
        over = sum(u.over for rp in plan.region_plans for u in region_usage(rp, api, rp.constants))
        return len(plan.region_plans), over
