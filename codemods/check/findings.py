"""What still needs a person, read off a (migrated) text.

Findings come from the output, not from the rules' memory, so that a dry run, a `--write`
and a later `check` of the written file report the same lines, and so that a person's
`# pypto-migrate: reviewed PTO0xx` marker is honoured wherever it stands: open review
markers, markers naming unknown rules, removed API that no rule rewrote, and (for full
runs) what the independent strict check of `codemods.check.strict` finds.
"""

from __future__ import annotations

import re
from functools import lru_cache

import libcst as cst

from ..model.kernels import OpIndex
from ..syntax.comments import comments
from ..syntax.positions import starts
from .results import Finding
from ..rulebook.loading import ApiTable
from ..syntax.nodes import code

MARKER = re.compile(
    r"#\s*pypto-migrate:\s*(?P<state>reviewed|review)\s+(?P<ids>[A-Za-z0-9]+(?:\s*,\s*[A-Za-z0-9]+)*)"
    r"(?::\s*(?P<text>.*))?$"
)




def scan(
    module: cst.Module, text: str, api: ApiTable, known_ids: frozenset[str], strict: bool = False
) -> tuple[list[Finding], int]:
    """Read what still needs a person off a (migrated) text: open markers, unknown ids, removed
    API, and with `strict` what the independent strict check finds (errors at their lines)."""
    findings, reviewed = _markers(text, known_ids)
    removed = _removed_references(module, text, api)
    violations = _strict_violations(module, api) if strict else []
    where = starts(module, [node for node, _ in removed + violations]) if removed or violations else {}
    findings.extend(Finding("API", *where[id(node)], message, "error") for node, message in removed)
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    if strict:
        found = [Finding("API", *where[id(node)], message, "error") for node, message in violations]
        findings = sorted(findings + found, key=lambda f: (f.line, f.column, f.rule))
    return findings, reviewed


def _markers(text: str, known_ids: frozenset[str]) -> tuple[list[Finding], int]:
    findings: list[Finding] = []
    reviewed = 0
    if "pypto-migrate" not in text:
        return findings, reviewed
    for line, start, comment in comments(text, "pypto-migrate"):
        m = MARKER.search(comment)
        if not m:
            continue
        column = start + 1
        for rule_id in (i.strip() for i in m.group("ids").split(",")):
            if rule_id not in known_ids:
                message = f"unknown rule id {rule_id!r} in a pypto-migrate marker"
                findings.append(Finding(rule_id, line, column, message, "error"))
            elif m.group("state") == "review":
                findings.append(Finding(rule_id, line, column, (m.group("text") or "needs review").strip()))
            else:
                reviewed += 1
    return findings, reviewed


def strict_findings(module: cst.Module, api: ApiTable) -> list[Finding]:
    """The strict check's errors as findings at their places (removed ops left to the scan)."""
    violations = _strict_violations(module, api)
    where = starts(module, [node for node, _ in violations]) if violations else {}
    return [Finding("API", *where[id(node)], message, "error") for node, message in violations]


def _strict_violations(module: cst.Module, api: ApiTable) -> list[tuple[cst.CSTNode, str]]:
    from .strict import check_module

    # Removed ops are the scan's to report, with their replacement. Only what the target compiler
    # rejects is an error: the idioms' advice on code it accepts is not said as one.
    return [(v.node, v.message) for v in check_module(module, api) if v.rejects and "removed; use" not in v.message]


@lru_cache(maxsize=None)
def _mentions(ops: tuple[str, ...]) -> re.Pattern:
    """Any of the ops' last names as a word (a pattern that matches nothing when there are none)."""
    words = sorted({re.escape(op.rsplit(".", 1)[-1]) for op in ops})
    return re.compile(rf"\b(?:{'|'.join(words)})\b" if words else r"(?!)")


def _removed_references(module: cst.Module, text: str, api: ApiTable) -> list[tuple[cst.CSTNode, str]]:
    removed = api.removed()
    if not _mentions(tuple(removed)).search(text):
        return []  # the common case after a migration: no need to walk the tree
    out = []
    for node, op in OpIndex(module, api.module).ops.items():
        if op in removed and isinstance(node, (cst.Attribute, cst.Name)):  # the callee, not the call too
            written = code(node)
            instead = written[: len(written) - len(op.split(".")[-1])] + removed[op].replacement
            out.append((node, f"{written} was removed in the {api.version} API (use {instead}); not rewritten here, change it by hand"))
    return out
