"""What the edits of a narrowed rule set broke: errors the output has and the input had not.

The rules are planned together: one rule's edit may read a name another rule's edit defines,
or hand a value over in the kind another rule gives it. `requires` in the rule files covers
the names it knows of; this check covers the rest. With `--select`/`--ignore` the output is
strict-checked like a full run's, and the input too.

A narrowed run is a stage of a migration, as pypto's authors made `pl.view` → `pl.slice`
alone, reviewed, then the rest: what it leaves for the rules not selected is no error of its
own wherever the target rejected the original. `pl.view` → `pl.slice` inside a kernel turns
"view was removed" into "a Tensor slice inside a kernel" on the same line, and the slice's
value, a Tensor now where the old view's was nothing the target knew, reaches tile ops on
later lines of the same kernel; the next stage (load/store) removes all of it. So an output
error counts as introduced only where the target accepted the original: a name the output
reads that nothing binds while the input bound it, a call the target cannot even take (its
arguments do not fit the signature) that the input did not make, any error on a line the
stage wrote whose input counterpart (the lines its change replaced) had none, and any error
on a line it left as it was in a kernel (the innermost function around it) in which the
input had none, or outside every function. An edit that breaks a line the target accepted
is the stage's own doing even in a rejected kernel: the next stage, which fires only where
the target rejects, would build on it (measured: `--select matmul-operands` wrapped Tensor
operands in `pl.move`, which no later rule takes back). Positions are given in the input,
where the user can find them (a changed line is placed at the start of its change).
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from ..syntax.positions import starts
from ..text.diffs import lines_of
from ..text.long_diff import line_opcodes
from .findings import Finding, _removed_references, strict_findings
from .strict import check_module
from ..rulebook.loading import ApiTable

# A call whose arguments do not fit the target's signature: the compiler stops at it before
# any type is looked at, so it is never the "same error, another step" of a narrowed run.
MALFORMED = re.compile(r"\(\) (takes \d+ positional|missing \d+ required|got an unexpected keyword)")


def introduced_errors(source: str, output: str, api: ApiTable) -> list[Finding]:
    return narrowed_check(source, output, api)[0]


def narrowed_check(source: str, output: str, api: ApiTable) -> tuple[list[Finding], int]:
    """The errors the edits introduced, and how many of the output's errors are left for the
    rules not selected (the target rejected the original there: on their line, or in their
    kernel). From the two texts; the engine, which holds both trees, calls `staged_check`."""
    before_module, after_module = _parse(source), _parse(output)
    if before_module is None or after_module is None:
        return [], 0  # the engine has already re-parsed the output; an input LibCST cannot read never gets here
    return staged_check(source, input_errors(before_module, source, api), output, after_module, api)


def staged_check(source: str, had: dict[int, set[str]], output: str, after_module: cst.Module,
                 api: ApiTable) -> tuple[list[Finding], int]:
    """`narrowed_check` given the input's errors (`input_errors`) and the output's tree."""
    same, changed, replaced = _line_map(source, output)
    found, left = [], 0
    rejected: set[str] | None = None  # the kernels the target rejected in the input, read when first needed
    kernel_after: list[str | None] = []
    for f in strict_findings(after_module, api):
        lines = [same[f.line]] if f.line in same else replaced.get(f.line, [])
        messages = {m for line in lines for m in had.get(line, ())}
        if f.message in messages or (messages and not MALFORMED.search(f.message)):
            left += 1
            continue
        if f.line in same and not MALFORMED.search(f.message):
            # A line the stage left as it was, in a kernel the target rejected: the rest of the
            # migration reaches it (a slice's Tensor read by a tile op). A line the stage wrote
            # answers for itself: above, by what its input counterpart had.
            if rejected is None:
                kernel_before = _kernel_lines(source)
                rejected = {k for line in had if (k := _at(kernel_before, line)) is not None}
                kernel_after = _kernel_lines(output)
            kernel = _at(kernel_after, f.line)
            if kernel is not None and kernel in rejected:
                left += 1  # a kernel the target rejected before: still rejected, for the next stage
                continue
        found.append(_at_input(f, same, changed))
    new_names = unbound_names(output) - unbound_names(source)
    if new_names:
        for name, line, column in _unbound(after_module):
            if name in new_names:
                message = f"{name} is read but nothing defines it: the rule that writes its definition is not selected"
                found.append(_at_input(Finding("API", line, column, message, "error"), same, changed))
    return sorted(set(found), key=lambda f: (f.line, f.column, f.message)), left


def _kernel_lines(text: str) -> list[str | None]:
    """Line (1-based index) -> the innermost function around it, by its place among the
    module's definitions (`build.Program.kernel`, with `#2` for a second of that path); None
    outside every function. Decorator lines belong to their function."""
    tree = ast.parse(text.lstrip("\ufeff"))
    owner: list[str | None] = [None] * (text.count("\n") + 2)
    seen: dict[str, int] = {}

    def visit(node: ast.AST, path: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = f"{path}.{child.name}" if path else child.name
                seen[inner] = seen.get(inner, 0) + 1
                if seen[inner] > 1:
                    inner = f"{inner}#{seen[inner]}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    owner[first:child.end_lineno + 1] = [inner] * (child.end_lineno + 1 - first)
                visit(child, inner)
            else:
                visit(child, path)

    visit(tree, "")
    del visit  # a closure that calls itself is a reference cycle (see migrate/collector.py)
    return owner


def _at(owner: list[str | None], line: int) -> str | None:
    return owner[line] if 0 <= line < len(owner) else None


def input_errors(module: cst.Module, text: str, api: ApiTable, printed=None) -> dict[int, set[str]]:
    """Input line -> the target's errors there, removed ops included (the scan's and the
    kernels'); not the idioms' advice on code the target accepts. `printed`: a
    `syntax.positions.Printed` of `module` that places them, where the caller has one."""
    pairs = [(v.node, v.message) for v in check_module(module, api) if v.rejects] + _removed_references(module, text, api)
    nodes = [node for node, _ in pairs]
    where = printed.starts(nodes) if printed is not None and nodes else {}
    unplaced = [node for node in nodes if id(node) not in where]
    if unplaced:  # no print at hand, or a node it does not answer for
        where.update(starts(module, unplaced))
    had: dict[int, set[str]] = {}
    for node, message in pairs:
        had.setdefault(where[id(node)][0], set()).add(message)
    return had


def _parse(text: str) -> cst.Module | None:
    try:
        return cst.parse_module(text.lstrip("\ufeff"))
    except (cst.ParserSyntaxError, RecursionError):
        return None


def _line_map(source: str, output: str) -> tuple[dict[int, int], dict[int, int], dict[int, list[int]]]:
    """Output line -> input line where unchanged; output line -> first input line of its change;
    output line -> the input lines its change replaced (none for an insertion)."""
    same, changed, replaced = {}, {}, {}
    for tag, i1, i2, j1, j2 in line_opcodes(lines_of(source), lines_of(output)):
        for k in range(j2 - j1):
            if tag == "equal":
                same[j1 + k + 1] = i1 + k + 1
            else:
                changed[j1 + k + 1] = i1 + 1
                # rewritten in place (a rename): line for line; else the whole block it replaced
                replaced[j1 + k + 1] = [i1 + k + 1] if i2 - i1 == j2 - j1 else list(range(i1 + 1, i2 + 1))
    return same, changed, replaced


def _at_input(f: Finding, same: dict[int, int], changed: dict[int, int]) -> Finding:
    if f.line in same:
        return Finding(f.rule, same[f.line], f.column, f.message, f.level)
    return Finding(f.rule, changed.get(f.line, f.line), 1, f"{f.message} (in the migrated text)", f.level)


_BUILTINS = frozenset(dir(builtins))


def unbound_names(text: str) -> set[str]:
    """The names a text reads that no scope binds (builtins resolve), by CPython's own symbol
    table (`symtable`, written in C: a hundredth of LibCST's scope analysis, which a narrowed
    run spent four fifths of its time in). Annotations count, as they do for pypto, which
    reads them: a `from __future__ import annotations` that would have the table skip them
    is read as `pass`."""
    text = text.lstrip("\ufeff")
    future = [n for n in ast.parse(text).body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    if future:
        data = text.encode("utf-8")
        begins = [0]
        for line in data.splitlines(keepends=True):
            begins.append(begins[-1] + len(line))
        for n in reversed(future):
            a, b = begins[n.lineno - 1] + n.col_offset, begins[n.end_lineno - 1] + n.end_col_offset
            data = data[:a] + b"pass" + data[b:]
        text = data.decode("utf-8")
    top = symtable.symtable(text, "<kernel>", "exec")
    tables, bound, read = [top], set(_BUILTINS), set()
    while tables:
        t = tables.pop()
        tables.extend(t.get_children())
        for s in t.get_symbols():
            binds = s.is_assigned() or s.is_imported() or s.is_namespace()
            if binds and ((t is top and s.is_local()) or s.is_declared_global()):
                bound.add(s.get_name())
            elif s.is_referenced() and s.is_global():
                read.add(s.get_name())
    return read - bound


def _unbound(module: cst.Module) -> list[tuple[str, int, int]]:
    """Names read that no scope binds (builtins resolve): (name, line, column), 1-based. The
    places of what `unbound_names` found, asked only when it found a name the input bound."""
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = wrapper.resolve(ScopeProvider)
    positions = wrapper.resolve(PositionProvider)
    found = []
    for scope in {s for s in scopes.values() if s is not None}:
        for access in scope.accesses:
            if access.referents or not isinstance(access.node, cst.Name):
                continue
            start = positions[access.node].start
            found.append((access.node.value, start.line, start.column + 1))
    return found
