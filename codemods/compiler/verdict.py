"""The compiler's verdict beside the tool's own: findings, the review-marker exemption, and
the compiler's memory report matched with the tool's capacity figures kernel by kernel.

The tool numbers a file's kernel regions "kernel 1, 2, ..." in source order; the compiler
outlines each function's kernels as `<function>_incore_<n>`. Within one function they are
matched by order; where the counts differ, that is said rather than guessed around.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..model.capacity import kb
from ..check.findings import MARKER
from .memory_report import MemoryRecord, kernel_origin


@dataclass(frozen=True)
class KernelCapacity:
    """The tool's figures for one kernel region: space -> (bytes or None, limit)."""

    function: str
    label: str  # "kernel 2"
    line: int
    spaces: dict[str, tuple[int | None, int]] = field(default_factory=dict)


def tool_capacity(text: str, display: str, api) -> list[KernelCapacity]:
    from ..migrate.parsing import parse
    from ..migrate.report import report_module

    report = report_module(parse(text.lstrip("\ufeff")), display, api)
    return [
        KernelCapacity(k.function, k.label, k.line, {u.space: (u.bytes, u.limit) for u in k.usage})
        for k in report.kernels
    ]


def under_review_marker(text: str, line: int) -> bool:
    """Whether the statement holding `line` carries an open `# pypto-migrate: review` marker
    (on that line, at the statement's start, or in the comments right above it)."""
    lines = text.lstrip("\ufeff").splitlines()
    starts = {line}
    try:
        tree = ast.parse(text.lstrip("\ufeff"))
    except SyntaxError:
        tree = None
    if tree is not None:
        holding = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and _first_line(n) <= line <= (n.end_lineno or n.lineno)]
        if holding:
            innermost = max(holding, key=lambda n: n.lineno)
            starts.update({innermost.lineno, _first_line(innermost)})
    for start in starts:
        if 1 <= start <= len(lines) and _open_marker(lines[start - 1]):
            return True
        above = start - 1
        while 1 <= above <= len(lines) and lines[above - 1].lstrip().startswith("#"):
            if _open_marker(lines[above - 1]):
                return True
            above -= 1
    return False


def _first_line(node: ast.stmt) -> int:
    """A decorated def starts at its first decorator: a marker above the decorators is the def's."""
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])


def _open_marker(line: str) -> bool:
    hash_at = line.find("#")
    m = MARKER.search(line[hash_at:]) if hash_at >= 0 else None
    return bool(m and m.group("state") == "review")


@dataclass
class KernelPair:
    function: str
    tool: KernelCapacity | None
    compiler: str | None  # the compiler's kernel function
    spaces: dict[str, tuple[int | None, int | None, int]]  # space -> (tool bytes, compiler bytes, limit)
    precision: dict[str, int] = field(default_factory=dict)  # space -> bytes the compiler's figure may be off by

    def differs(self, space: str) -> bool:
        """Whether the tool's figure and the compiler's disagree beyond the report's rounding."""
        tool, compiler, _ = self.spaces[space]
        if compiler is None:
            return bool(tool) and self.compiler is not None
        return tool is None or abs(tool - compiler) > self.precision.get(space, 0)


def pair_kernels(capacity: list[KernelCapacity], memory: list[MemoryRecord]) -> tuple[list[KernelPair], list[str]]:
    """The tool's kernels and the compiler's, matched by order within each function; notes on mismatched counts."""
    compiled: dict[str, dict[str, list[MemoryRecord]]] = {}
    for record in memory:
        origin = kernel_origin(record.function)
        function = origin[0] if origin else record.function
        compiled.setdefault(function, {}).setdefault(record.function, []).append(record)
    for function, kernels in compiled.items():  # by the index the compiler gave, not the report's order
        compiled[function] = dict(sorted(kernels.items(), key=lambda kv: (kernel_origin(kv[0]) or ("", 0))[1]))
    functions = list(dict.fromkeys([k.function for k in capacity] + list(compiled)))
    pairs, notes = [], []
    for function in functions:
        ours = [k for k in capacity if k.function == function]
        theirs = list(compiled.get(function, {}).items())
        if len(ours) != len(theirs):
            notes.append(
                f"{function}: the tool sees {len(ours)} kernel region{'s' * (len(ours) != 1)}, "
                f"the compiler outlined {len(theirs)}; matched by order, the rest stand alone"
            )
        for i in range(max(len(ours), len(theirs))):
            tool = ours[i] if i < len(ours) else None
            name, records = theirs[i] if i < len(theirs) else (None, [])
            spaces: dict[str, tuple[int | None, int | None, int]] = {}
            for space, (used, limit) in (tool.spaces.items() if tool else ()):
                spaces[space] = (used, None, limit)
            for r in records:
                old = spaces.get(r.space, (None, None, r.limit))
                spaces[r.space] = (old[0], r.used, r.limit)
            pairs.append(KernelPair(function, tool, name, spaces, {r.space: r.precision for r in records}))
    return pairs, notes


def over_limits(pairs: list[KernelPair]) -> tuple[int, int]:
    """(tool, compiler): how many (kernel, space) pairs each sees over the limit."""
    tool = sum(1 for p in pairs for used, _, limit in p.spaces.values() if used is not None and used > limit)
    compiler = sum(1 for p in pairs for _, used, limit in p.spaces.values() if used is not None and used > limit)
    return tool, compiler


def disagreements(pairs: list[KernelPair]) -> list[str]:
    """Each (kernel, space) whose figures differ beyond the report's rounding, said plainly."""
    return [
        f"{p.compiler or p.function} {space}: tool {_size(tool)}, compiler {_size(compiler)}"
        for p in pairs if p.tool is not None and p.compiler is not None
        for space, (tool, compiler, _) in p.spaces.items() if (tool or compiler is not None) and p.differs(space)
    ]


def memory_lines(pairs: list[KernelPair], notes: list[str], indent: str = "  ") -> list[str]:
    out = []
    for p in pairs:
        ours = f"{p.tool.label} (line {p.tool.line})" if p.tool else "no kernel of the tool"
        theirs = p.compiler or "no kernel of the compiler"
        out.append(f"{indent}{p.function}: {ours} = {theirs}")
        for space, (tool, compiler, limit) in p.spaces.items():
            if not tool and compiler is None:
                continue  # a space neither side uses
            over = [who for who, used in (("tool", tool), ("compiler", compiler)) if used is not None and used > limit]
            mark = f"  OVER ({', '.join(over)})" if over else ""
            if p.tool is not None and p.compiler is not None and p.differs(space):
                mark += "  DIFFERS"
            shown = _size(tool) if tool is not None or p.tool is None else "unknown"
            out.append(f"{indent}  {space:5} tool {shown:>9}  compiler {_size(compiler):>9}  of {kb(limit)}{mark}")
    out.extend(f"{indent}{note}" for note in notes)
    return out


def _size(n: int | None) -> str:
    return "-" if n is None else kb(n)
