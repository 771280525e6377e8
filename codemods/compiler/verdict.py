"""The compiler's verdict beside the tool's own: findings, the review-marker exemption, and
the compiler's memory report matched with the tool's capacity figures kernel by kernel.

The tool numbers a file's kernel regions "kernel 1, 2, ..." in source order; the compiler
outlines each function's kernels as `<function>_incore_<n>`, and the newest (e2d0f78ae) splits
one that uses both cores into `<kernel>_aic` and `<kernel>_aiv`: the halves are one kernel of
the source, their spaces (cube buffers on one core, Vec on the other) put together. Within one
function they are matched by order; where the counts differ, the tool's model of the kernels
is not the compiler's: `mismatches` makes that a structure problem of the file.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import re

from ..model.capacity import kb
from ..check.findings import MARKER
from .ir_audit import Kernel, StructureProblem
from .memory_report import MemoryRecord, kernel_origin, split_kernel


@dataclass(frozen=True)
class KernelCapacity:
    """The tool's figures for one kernel region: space -> (bytes or None, limit)."""

    function: str
    label: str  # "kernel 2"
    line: int
    spaces: dict[str, tuple[int | None, int]] = field(default_factory=dict)
    name: str = ""  # the region's `name_hint=`: the compiler names its kernel so
    scopes: tuple[str, ...] = ()  # the classes and functions around it, outermost first: its program's among them


_NAME_HINT = re.compile(r"""\bname_hint\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def tool_capacity(text: str, display: str, api) -> list[KernelCapacity]:
    from ..migrate.parsing import parse
    from ..migrate.report import report_module

    text = text.lstrip("\ufeff")
    report = report_module(parse(text), display, api)
    try:
        defs = [n for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    except SyntaxError:
        defs = []
    out = []
    for k in report.kernels:
        hint = _NAME_HINT.search(k.header) if k.header.startswith("with ") else None
        around = sorted((n for n in defs if n.lineno <= k.line <= (n.end_lineno or n.lineno)), key=lambda n: n.lineno)
        out.append(KernelCapacity(k.function, k.label, k.line, {u.space: (u.bytes, u.limit) for u in k.usage},
                                  (hint.group(1) or hint.group(2) or "") if hint else "", tuple(n.name for n in around)))
    return out


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


@dataclass(frozen=True)
class Count:
    """A function whose kernels the tool counts otherwise than the compiler outlined them."""

    function: str
    tool: int
    compiler: int
    line: int  # of the tool's first region there; 1 where it sees none

    def note(self) -> str:
        return (f"{self.function}: the tool sees {self.tool} kernel region{'s' * (self.tool != 1)}, "
                f"the compiler outlined {self.compiler}")


def pair_kernels(capacity: list[KernelCapacity], memory: list[MemoryRecord],
                 outlined: list[Kernel] | tuple = ()) -> tuple[list[KernelPair], list[str]]:
    """The tool's kernels and the compiler's, matched by order within each function; notes on
    mismatched counts. `outlined`: every kernel function of the compiler's IR, those the memory
    report leaves out (no buffer) among them; without it, the report's are all there are."""
    pairs, counts = _matched(capacity, memory, outlined)
    return pairs, [f"{c.note()}; matched by order, the rest stand alone" for c in counts]


def _matched(capacity: list[KernelCapacity], memory: list[MemoryRecord], outlined) -> tuple[list[KernelPair], list[Count]]:
    """Program by program where the records say which (a file's programs may share function
    names: two builders of one `gemm` each outline `gemm_incore_0`); the tool's regions of a
    program that left no record (it did not compile) are matched with nothing."""
    programs = list(dict.fromkeys([r.program for r in memory if r.program] + [k.program for k in outlined if k.program]))
    if not programs:
        return _matched_in(capacity, memory, [k.function for k in outlined])
    pairs, counts = [], []
    for program in programs:
        done = _matched_in([k for k in capacity if program in k.scopes], [r for r in memory if r.program == program],
                           [k.function for k in outlined if k.program == program])
        pairs += done[0]
        counts += done[1]
    return pairs, counts


def _matched_in(capacity: list[KernelCapacity], memory: list[MemoryRecord],
                outlined: list[str]) -> tuple[list[KernelPair], list[Count]]:
    own = {k.function for k in capacity}  # a kernel function the author named `..._aiv` is no half
    functions_of = [r.function for r in memory] + outlined
    kernels = list(dict.fromkeys(f if f in own else split_kernel(f)[0] for f in functions_of))
    # A region with a name_hint is outlined under that name (`q_rope`), or `q_rope_0`, `q_rope_1`
    # when the name repeats in the function, `<function>_q_rope` when another function took it
    # (src/ir/transforms/utils/scope_outline_utils.cpp): the k-th such region, the k-th such name.
    # Its place among the function's kernels is the region's: the outliner counts named scopes too.
    placed: dict[str, tuple[str, int]] = {}
    for function in dict.fromkeys(k.function for k in capacity):
        ours = [k for k in capacity if k.function == function]
        for position, k in enumerate(ours):
            if not k.name:
                continue
            named = re.compile(rf"(?:{re.escape(function)}_)?{re.escape(k.name)}(?:_\d+)?")
            kernel = next((n for n in kernels if n not in placed and named.fullmatch(n)), None)
            if kernel is not None:
                placed[kernel] = (function, position)
    compiled: dict[str, dict[str, list[MemoryRecord]]] = {}
    names: dict[str, list[str]] = {}  # kernel -> the compiler's functions that make it up
    order: dict[str, int] = {}
    for name in functions_of:
        kernel = name if name in own else split_kernel(name)[0]
        function, order[kernel] = placed.get(kernel) or kernel_origin(kernel) or (kernel, 0)
        compiled.setdefault(function, {}).setdefault(kernel, [])
        names.setdefault(kernel, [])
        if name not in names[kernel]:
            names[kernel].append(name)
    for record in memory:
        kernel = record.function if record.function in own else split_kernel(record.function)[0]
        function = (placed.get(kernel) or kernel_origin(kernel) or (kernel, 0))[0]
        compiled[function][kernel].append(record)
    for function, found in compiled.items():  # by the index the compiler gave, not the report's order
        compiled[function] = dict(sorted(found.items(), key=lambda kv: order[kv[0]]))
    functions = list(dict.fromkeys([k.function for k in capacity] + list(compiled)))
    pairs, counts = [], []
    for function in functions:
        ours = [k for k in capacity if k.function == function]
        theirs = list(compiled.get(function, {}).items())
        if len(ours) != len(theirs):
            counts.append(Count(function, len(ours), len(theirs), min((k.line for k in ours), default=1)))
        for i in range(max(len(ours), len(theirs))):
            tool = ours[i] if i < len(ours) else None
            kernel, records = theirs[i] if i < len(theirs) else (None, [])
            spaces: dict[str, tuple[int | None, int | None, int]] = {}
            for space, (used, limit) in (tool.spaces.items() if tool else ()):
                spaces[space] = (used, None, limit)
            precision: dict[str, int] = {}
            for r in records:
                old = spaces.get(r.space, (None, None, r.limit))
                # Each half has the space on its own core: the kernel needs the larger.
                spaces[r.space] = (old[0], r.used if old[1] is None else max(old[1], r.used), r.limit)
                precision[r.space] = max(precision.get(r.space, 0), r.precision)
            shown = None if kernel is None else " + ".join(names[kernel])
            pairs.append(KernelPair(function, tool, shown, spaces, precision))
    return pairs, counts


def mismatches(capacity: list[KernelCapacity], memory: list[MemoryRecord],
               outlined: list[Kernel] | tuple = ()) -> list[StructureProblem]:
    """A function in which the tool sees kernel regions, and counts them otherwise than the
    compiler outlined them: one problem each, at its first region. Its regions are the unit of
    every decision the migration made (loads, scratch tiles, what crosses a kernel boundary),
    so a count the compiler does not share is a finding, not a note. A kernel of a function in
    which the tool sees none (an inlined helper's) is its model's gap, said beside the figures."""
    if not memory and not outlined:  # nothing read of the compiler's kernels: nothing to hold the regions against
        return []
    return [StructureProblem(c.function, "", c.note(), c.line) for c in _matched(capacity, memory, outlined)[1] if c.tool]


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


def memory_lines(pairs: list[KernelPair], notes: list[str], indent: str = "  ", compare: bool = True) -> list[str]:
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
            if compare and p.tool is not None and p.compiler is not None and p.differs(space):
                mark += "  DIFFERS"
            shown = _size(tool) if tool is not None or p.tool is None else "unknown"
            out.append(f"{indent}  {space:5} tool {shown:>9}  compiler {_size(compiler):>9}  of {kb(limit)}{mark}")
    out.extend(f"{indent}{note}" for note in notes)
    return out


def _size(n: int | None) -> str:
    return "-" if n is None else kb(n)
