"""Apply the rules to many files: read, migrate, diff, write; one outcome per file.

A file that fails never stops the others, and a file is either left untouched or written
whole (see `sources.write_atomic`). Work is spread over processes; each outcome is plain
data so that it crosses process boundaries and the report is built in one place.
"""

from __future__ import annotations

import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .diffs import unified_diff
from .engine import Edit, SourceError, migrate
from .findings import Finding
from .rulebook import load_api, load_rules
from .sources import FileProblem, read_text, write_atomic

LEFTOVER_ID = "API"  # findings about removed API that no rule rewrote


@dataclass
class Outcome:
    display: str
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    reviewed: int = 0
    diff: str = ""
    written: bool = False
    kernels: int = 0
    over_budget: int = 0
    notes: list[str] = field(default_factory=list)
    error: str | None = None  # "path:line:col: message" for files that could not be processed

    @property
    def changed(self) -> bool:
        return bool(self.diff)


@dataclass
class Job:
    rule_ids: tuple[str, ...]
    write: bool = False
    rules_dir: Path | None = None
    strict: bool = True  # re-check outputs against the target API (off when the rules were narrowed)
    verify: object | None = None  # interp Settings: run each changed kernel against its original


def display_path(path: Path) -> str:
    rel = os.path.relpath(path)
    return Path(rel).as_posix() if not rel.startswith("..") else path.resolve().as_posix()


def _where(display: str, line: int | None, column: int | None) -> str:
    if line is None:
        return display
    return f"{display}:{line}:{column or 1}"


def migrate_text(text: str, job: Job, strict: bool | None = None):
    """The engine on one text, with the job's rules (every rule id is known to markers)."""
    all_rules = load_rules(job.rules_dir)
    rules = tuple(r for r in all_rules if r.id in job.rule_ids)
    known = frozenset(r.id for r in all_rules) | {LEFTOVER_ID}
    return migrate(text, rules, load_api(job.rules_dir), known, strict=job.strict if strict is None else strict)


def process(path: Path, job: Job) -> Outcome:
    outcome = Outcome(display_path(path))
    try:
        text = read_text(path)
        result = migrate_text(text, job)
        outcome.edits = sorted(result.edits, key=lambda e: (e.line, e.column))
        outcome.findings, outcome.reviewed = result.findings, result.reviewed
        outcome.kernels, outcome.over_budget = result.kernels, result.over_budget
        outcome.diff = unified_diff(text, result.output, outcome.display)
        if job.verify is not None and result.changed:
            _verify(outcome, text, result.output, job)
        if job.write and result.changed:
            write_atomic(path, result.output)
            outcome.written = True
    except (SourceError, FileProblem) as exc:  # EngineError included: the rule is named in the message
        outcome.error = f"{_where(outcome.display, exc.line, exc.column)}: {exc.message}"
    except RecursionError:
        outcome.error = f"{outcome.display}: nested too deeply to migrate (Python's recursion limit); left as it was"
    except Exception as exc:  # a bug of ours must cost this file, never the others
        outcome.error = f"{outcome.display}: internal error, left as it was ({type(exc).__name__}: {exc}); please report it"
    if outcome.error:
        outcome.edits, outcome.diff, outcome.notes = [], "", []  # nothing of this file was (or would be) changed
    return outcome


def _verify(outcome: Outcome, text: str, output: str, job: Job) -> None:
    """Prove the migration on small inputs; a file that fails is not written (raised as an error)."""
    from .interp.verify import EQUIVALENT, MASKED, verify

    if "@" not in text or "program" not in text:
        return  # no @pl.program to run
    verdict = verify((outcome.display, text), (f"{outcome.display} (migrated)", output), job.verify, load_api(job.rules_dir))
    if verdict.code == EQUIVALENT:
        outcome.notes.append(f"verified: {verdict.message}")
    elif verdict.code == MASKED:
        outcome.notes.append(f"verified, with lost masking: {verdict.message}")
    elif "no @pl.program" in verdict.message:
        return
    else:
        raise FileProblem(f"verify failed, not written: {verdict.message}")


def run(paths: list[Path], job: Job, jobs: int = 1) -> list[Outcome]:
    """Process every file; the outcomes come back in the order of `paths`."""
    if jobs <= 1 or len(paths) < 2 * jobs:  # a pool costs more than it saves on a few files
        return [process(p, job) for p in paths]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(process, paths, [job] * len(paths), chunksize=max(1, len(paths) // (4 * jobs))))


@dataclass
class Summary:
    files_changed: int
    edits: int
    review: int
    errors: int
    per_rule: Counter
    files_per_rule: Counter
    kernels: int = 0
    over_budget: int = 0

    def line(self, verb: str) -> str:
        text = f"{_count(self.files_changed, 'file')} {verb}, {_count(self.edits, 'edit')}, {self.review} need review"
        if self.errors:
            text += f", {self.errors} could not be processed"
        return text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def summarize(outcomes: list[Outcome]) -> Summary:
    per_rule: Counter = Counter()
    files_per_rule: Counter = Counter()
    for o in outcomes:
        per_rule.update(e.rule for e in o.edits)
        files_per_rule.update({e.rule for e in o.edits})
    return Summary(
        files_changed=sum(o.changed for o in outcomes),
        edits=sum(len(o.edits) for o in outcomes),
        review=sum(len(o.findings) for o in outcomes),
        errors=sum(o.error is not None for o in outcomes),
        per_rule=per_rule,
        files_per_rule=files_per_rule,
        kernels=sum(o.kernels for o in outcomes),
        over_budget=sum(o.over_budget for o in outcomes),
    )
