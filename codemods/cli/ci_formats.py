"""The machine formats of `run` and `check`: JSON, SARIF 2.1.0 and GitHub annotations.

They annotate the file as it stands on disk after the command: after `--write` that is the
migrated text; in a dry run or `check` a finding's position is carried back through the diff
to the file as it is (a line the migration inserts, such as a review marker, lands on the
statement it is about). Edits are positioned in the original text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..run.runner import Outcome, Summary
from .problems import ERROR_ID, PSEUDO_RULES, SARIF_SCHEMA, error_parts, one_line, problems


# --- positions on disk ----------------------------------------------------------------------


def on_disk(o: Outcome):
    """(line, column) in the migrated text -> (line, column) in the file as it now stands."""
    if o.written or not o.diff:
        return lambda line, column: (line, column)
    from unidiff import PatchSet

    hunks = [h for patched in PatchSet(o.diff) for h in patched]

    def carry(line: int, column: int) -> tuple[int, int]:
        delta = 0
        for h in hunks:
            if line < h.target_start:
                break
            if line < h.target_start + h.target_length:
                return _in_hunk(h, line, column)
            delta = (h.source_start + h.source_length) - (h.target_start + h.target_length)
        return max(1, line + delta), column

    return carry


def _in_hunk(hunk, line: int, column: int) -> tuple[int, int]:
    lines = [x for x in hunk if x.line_type in ("+", "-", " ")]
    at = next(i for i, x in enumerate(lines) if x.target_line_no == line)
    if lines[at].is_context:
        return lines[at].source_line_no, column
    start = stop = at
    while start and not lines[start - 1].is_context:
        start -= 1
    while stop < len(lines) and not lines[stop].is_context:
        stop += 1
    block = lines[start:stop]
    removed = [x.source_line_no for x in block if x.is_removed]
    # Code lines pair with the removed lines in order; a comment line the migration wrote (a
    # review marker) is about the code line after it, so it takes that line's place.
    code = [x for x in block if x.is_added and not x.value.lstrip().startswith("#")]
    target = lines[at]
    if target.value.lstrip().startswith("#"):
        target = next((x for x in block[block.index(target):] if x in code), None)
    if target is not None and removed:
        return removed[min(code.index(target), len(removed) - 1)], 1
    following = next((x.source_line_no for x in lines[stop:] if x.source_line_no is not None), None)
    if removed:
        return removed[-1], 1
    return following or max(1, hunk.source_start + hunk.source_length - 1), 1


# --- JSON -----------------------------------------------------------------------------------


def json_report(outcomes: list[Outcome], rules, summary: Summary, command: str, exit_code: int) -> dict:
    by_id = {r.id: r for r in rules}
    files, edits, findings, errors = [], [], [], []
    for o in outcomes:
        carry = on_disk(o)
        state = "error" if o.error else "written" if o.written else "changed" if o.changed else "unchanged"
        files.append({"file": o.display, "status": state, "edits": len(o.edits), "markers_added": o.markers_added,
                      "findings": len(problems(o)), "review": o.to_review, "errors": o.code_errors,
                      "diff": o.diff, "notes": [one_line(n) for n in o.notes], "still_rejected_errors": o.still_rejected})
        for e in o.edits:
            rule = by_id.get(e.rule)
            edits.append({"file": o.display, "line": e.line, "column": e.column, "rule": e.rule,
                          "name": rule.name if rule else e.rule, "safety": e.safety or (rule.safety if rule else ""),
                          "before": e.before, "after": e.after})
        for p in problems(o):
            line, column = carry(p.line, p.column)
            findings.append({"file": o.display, "line": line, "column": column, "rule": p.rule, "level": p.level,
                             "message": one_line(p.message), "migrated_line": p.line, "migrated_column": p.column})
        if o.error:
            line, column, message = error_parts(o)
            errors.append({"file": o.display, "line": line, "column": column, "message": message})
    return {
        "tool": {"name": "pypto-migrate", "version": __version__},
        "command": command,
        "files": files,
        "edits": edits,
        "findings": findings,
        "errors": errors,
        # The counts of the summary line on stderr, from the same Summary: `review` and `errors`
        # count the findings of each level, `failed` the files of `errors` (not processed).
        "summary": {"files": summary.files, "changed": summary.files_changed, "written": summary.written,
                    "not_written": summary.not_written, "edits": summary.edits, "markers_added": summary.markers_added,
                    "review": summary.review, "errors": summary.errors, "failed": summary.failed,
                    "compile_problems": summary.compile_problems, "kernels": summary.kernels,
                    "over_limit": summary.over_budget, "still_rejected_files": summary.still_rejected},
        "exit_code": exit_code,
    }


# --- annotations shared by SARIF and GitHub -------------------------------------------------


@dataclass(frozen=True)
class Annotation:
    file: str
    line: int
    column: int
    level: str  # error | warning | note
    rule: str
    title: str
    message: str
    extra: dict


def annotations(outcomes: list[Outcome], rules, written: bool) -> list[Annotation]:
    """Every edit (error: it would change the file; note once written), every finding
    (review: warning) and every file that could not be processed (error)."""
    by_id = {r.id: r for r in rules}
    out = []
    for o in outcomes:
        carry = on_disk(o)
        for e in o.edits:
            rule = by_id.get(e.rule)
            name = rule.name if rule else e.rule
            verb = "migrated" if written and o.written else "would be migrated"
            out.append(Annotation(o.display, e.line, e.column, "note" if written and o.written else "error", e.rule,
                                  f"{e.rule} {name}", f"{verb} ({name}): {_change(e.before, e.after)}",
                                  {"safety": e.safety, "before": e.before, "after": e.after}))
        for p in problems(o):
            line, column = carry(p.line, p.column)
            level = "warning" if p.level == "review" else "error"
            name = by_id[p.rule].name if p.rule in by_id else PSEUDO_RULES.get(p.rule, (p.rule,))[0]
            out.append(Annotation(o.display, line, column, level, p.rule, f"{p.rule} {name}", one_line(p.message), {}))
        if o.error:
            line, column, message = error_parts(o)
            out.append(Annotation(o.display, line, column, "error", ERROR_ID, "pypto-migrate: could not process", message, {}))
    return out


def _change(before: str, after: str) -> str:
    if not before:
        return f"insert `{_short(after)}`"
    if not after:
        return f"remove `{_short(before)}`"
    return f"`{_short(before)}` -> `{_short(after)}`"


def _short(code: str, width: int = 100) -> str:
    text = " ".join(code.split())
    return text if len(text) <= width else text[: width - 3] + "..."


# --- SARIF 2.1.0 ----------------------------------------------------------------------------


def sarif_report(outcomes: list[Outcome], rules, written: bool, exit_code: int) -> dict:
    found = annotations(outcomes, rules, written)
    descriptors = [_rule_descriptor(r) for r in rules]
    known = {d["id"] for d in descriptors}
    for rule_id in dict.fromkeys(a.rule for a in found):
        if rule_id not in known:
            name, short, full = PSEUDO_RULES.get(rule_id, ("unknown-rule-id", f"A pypto-migrate marker names {rule_id}, "
                                                           "which is no rule", "Correct the marker's rule id."))
            descriptors.append({"id": rule_id, "name": name, "shortDescription": {"text": short},
                                "fullDescription": {"text": full}, "help": {"text": full},
                                "defaultConfiguration": {"level": "error"}, "properties": {"tags": ["pypto-migrate"]}})
            known.add(rule_id)
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    results = []
    for a in found:
        result = {
            "ruleId": a.rule,
            "ruleIndex": index[a.rule],
            "level": a.level,
            "message": {"text": a.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(a.file), "uriBaseId": "%SRCROOT%"} if not Path(a.file).is_absolute()
                else {"uri": Path(a.file).as_uri()},
                "region": {"startLine": a.line, "startColumn": a.column},
            }}],
        }
        if a.extra:
            result["properties"] = a.extra
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "pypto-migrate", "version": __version__, "semanticVersion": __version__,
                                "rules": descriptors}},
            # The run itself completed; files it could not process are results of their own.
            "invocations": [_invocation(outcomes, exit_code)],
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _invocation(outcomes: list[Outcome], exit_code: int) -> dict:
    """The run's invocation; a staged run's files left rejected as their originals were are a
    note of it (they are no result: nothing in them is the run's doing)."""
    from ..run.runner import summarize

    invocation = {"executionSuccessful": True, "exitCode": exit_code}
    line = summarize(outcomes).staged_line()
    if line:
        invocation["toolExecutionNotifications"] = [{"level": "note", "message": {"text": line}}]
    return invocation


def _uri(display: str) -> str:
    from urllib.parse import quote  # SARIF only: not on the path of every text run

    return quote(display, safe="/")


def _rule_descriptor(rule) -> dict:
    examples = "".join(
        f"\n\nExample {i}, before:\n{ex.before.strip()}\n\nafter:\n{ex.after.strip()}" for i, ex in enumerate(rule.examples, 1)
    )
    markdown = "".join(
        f"\n\nExample {i}:\n\n```python\n{ex.before.strip()}\n```\n\nbecomes\n\n```python\n{ex.after.strip()}\n```"
        for i, ex in enumerate(rule.examples, 1)
    )
    why = rule.why.strip()
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": why},
        "help": {"text": f"{rule.summary}\n\n{why}\n\nFix safety: {rule.safety}{examples}",
                 "markdown": f"**{rule.summary}**\n\n{why}\n\nFix safety: `{rule.safety}`{markdown}"},
        "defaultConfiguration": {"level": "error"},
        "properties": {"safety": rule.safety, "tags": ["pypto-migrate", "migration"],
                       "precision": "very-high" if rule.safety == "safe" else "high"},
    }


# --- GitHub workflow commands ---------------------------------------------------------------


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_lines(outcomes: list[Outcome], rules, written: bool) -> list[str]:
    """`::error file=F,line=L,col=C,title=T::message` per annotation (notice for a written edit)."""
    command = {"error": "error", "warning": "warning", "note": "notice"}
    return [
        f"::{command[a.level]} file={_escape_property(a.file)},line={a.line},col={a.column},"
        f"title={_escape_property(a.title)}::{_escape_data(a.message)}"
        for a in annotations(outcomes, rules, written)
    ]


def render(fmt: str, outcomes: list[Outcome], rules, summary: Summary, command: str, written: bool, exit_code: int) -> str:
    """The machine formats, for stdout."""
    if fmt == "json":
        return json.dumps(json_report(outcomes, rules, summary, command, exit_code), indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(sarif_report(outcomes, rules, written, exit_code), indent=2, ensure_ascii=False) + "\n"
    return "".join(line + "\n" for line in github_lines(outcomes, rules, written))
