"""What the edits of a narrowed rule set broke: errors the output has and the input had not.

The rules are planned together: one rule's edit may read a name another rule's edit defines,
or hand a value over in the kind another rule gives it. `requires` in the rule files covers
the names it knows of; this check covers the rest. With `--select`/`--ignore` the output is
strict-checked like a full run's, and the input too.

A narrowed run is a step of a migration: what it leaves for the rules not selected is no
error of its own. `pl.view` → `pl.slice` inside a kernel turns "view was removed" into "a
Tensor slice inside a kernel" on the same line; the next step (load/store) removes both.
So an output error counts as introduced only where it is new: a name the output reads that
nothing binds while the input bound it, a call the target cannot even take (its arguments
do not fit the signature) that the input did not make, or any error on a line whose input
counterpart (the same line, or the lines its change replaced) had none. Positions are
given in the input, where the user can find them (a changed line is placed at the start of
its change).
"""

from __future__ import annotations

import re

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
    rules not selected (the input had an error on their lines)."""
    before_module, after_module = _parse(source), _parse(output)
    if before_module is None or after_module is None:
        return [], 0  # the engine has already re-parsed the output; an input LibCST cannot read never gets here
    same, changed, replaced = _line_map(source, output)
    had = _input_errors(before_module, source, api)
    found, left = [], 0
    for f in strict_findings(after_module, api):
        lines = [same[f.line]] if f.line in same else replaced.get(f.line, [])
        messages = {m for line in lines for m in had.get(line, ())}
        if f.message in messages or (messages and not MALFORMED.search(f.message)):
            left += 1
            continue
        found.append(_at_input(f, same, changed))
    unbound_before = {name for name, _, _ in _unbound(before_module)}
    for name, line, column in _unbound(after_module):
        if name not in unbound_before:
            message = f"{name} is read but nothing defines it: the rule that writes its definition is not selected"
            found.append(_at_input(Finding("API", line, column, message, "error"), same, changed))
    return sorted(set(found), key=lambda f: (f.line, f.column, f.message)), left


def _input_errors(module: cst.Module, text: str, api: ApiTable) -> dict[int, set[str]]:
    """Input line -> the target's errors there, removed ops included (the scan's and the kernels')."""
    pairs = [(v.node, v.message) for v in check_module(module, api)] + _removed_references(module, text, api)
    where = starts(module, [node for node, _ in pairs]) if pairs else {}
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


def _unbound(module: cst.Module) -> list[tuple[str, int, int]]:
    """Names read that no scope binds (builtins resolve): (name, line, column), 1-based."""
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
