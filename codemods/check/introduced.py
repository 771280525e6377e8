"""What the edits of a narrowed rule set broke: errors the output has and the input had not.

The rules are planned together: one rule's edit may read a name another rule's edit defines,
or hand a value over in the kind another rule gives it. `requires` in the rule files covers
the names it knows of; this check covers the rest. With `--select`/`--ignore` the output is
strict-checked like a full run's, and the input too; an output error that the input does not
have at the same (unchanged) line, and a name the output reads that nothing binds while the
input bound it, was introduced by the edits. Positions are given in the input, where the
user can find them (a changed line is placed at the start of its change).
"""

from __future__ import annotations

import difflib

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from ..text.diffs import lines_of
from .findings import Finding, strict_findings
from ..rulebook.loading import ApiTable


def introduced_errors(source: str, output: str, api: ApiTable) -> list[Finding]:
    before_module, after_module = _parse(source), _parse(output)
    if before_module is None or after_module is None:
        return []  # the engine has already re-parsed the output; an input LibCST cannot read never gets here
    to_input, changed = _line_map(source, output)
    before = {(f.line, f.message) for f in strict_findings(before_module, api)}
    found = []
    for f in strict_findings(after_module, api):
        line = to_input.get(f.line)
        if line is not None and (line, f.message) in before:
            continue
        found.append(_at_input(f, to_input, changed))
    unbound_before = {name for name, _, _ in _unbound(before_module)}
    for name, line, column in _unbound(after_module):
        if name not in unbound_before:
            message = f"{name} is read but nothing defines it: the rule that writes its definition is not selected"
            found.append(_at_input(Finding("API", line, column, message, "error"), to_input, changed))
    return sorted(set(found), key=lambda f: (f.line, f.column, f.message))


def _parse(text: str) -> cst.Module | None:
    try:
        return cst.parse_module(text.lstrip("\ufeff"))
    except (cst.ParserSyntaxError, RecursionError):
        return None


def _line_map(source: str, output: str) -> tuple[dict[int, int], dict[int, int]]:
    """Output line -> input line where unchanged; output line -> first input line of its change."""
    same, changed = {}, {}
    matcher = difflib.SequenceMatcher(None, lines_of(source), lines_of(output), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(j2 - j1):
            if tag == "equal":
                same[j1 + k + 1] = i1 + k + 1
            else:
                changed[j1 + k + 1] = i1 + 1
    return same, changed


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
