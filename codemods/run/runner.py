"""Apply the rules to many files: read, migrate, diff, write; one outcome per file.

A file that fails never stops the others, and a file is either left untouched or written
whole (see `sources.write_atomic`). Work is spread over processes; each outcome is plain
data so that it crosses process boundaries and the report is built in one place. Files are
written by the main process only, as their outcomes arrive: a run stopped by Ctrl-C then knows
every file it wrote, and no worker writes after the stop (`interrupt.py`, `parallel.py`).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ..text.diffs import diff_body, with_header
from ..migrate import stages
from ..check.results import Edit, Finding, SourceError
from ..rulebook.loading import default_rules_dir, load_api, load_rules, newest_step, oldest_step, rule_files
from ..text.sources import FileProblem, decode, display_path, read_bytes, write_atomic
from .interrupt import Interrupted, guarded
from .neighbours import keyed, neighbours

LEFTOVER_ID = "API"  # findings about removed API that no rule rewrote
# An open review marker on a line of a diff (`reviewed` is closed); the full pattern is
# check.findings.MARKER, not imported here: a warm run must not load LibCST.
_OPEN_MARKER = re.compile(r"#\s*pypto-migrate:\s*review\s")


@dataclass
class Outcome:
    """One file's result as the command line reports it: edits, findings, diff, or the error."""

    display: str
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    reviewed: int = 0
    diff: str = ""
    written: bool = False
    kernels: int = 0
    over_budget: int = 0
    notes: list[str] = field(default_factory=list)
    compiled: object | None = None  # compiler.CompileResult, with --compile
    capacity: list | None = None  # compile_report.KernelCapacity of what was compiled, with --compile=passes
    capacity_compared: bool = True  # the tool's figures model the target compiler's buffers: differences are said
    error: str | None = None  # "path:line:col: message" for files that could not be processed
    seconds: float = 0.0  # time spent on this file, for --verbose
    output: str | None = None  # the migrated text, only for a text given on stdin
    still_rejected: int = 0  # a staged (narrowed) run: errors left where the original was rejected too
    uses_pypto: bool = False  # the text names pypto: a file without the word has nothing to migrate
    to_write: str | None = None  # what the main process is to write (`process(defer_write=True)`); None once written

    @property
    def changed(self) -> bool:
        return bool(self.diff)

    @property
    def compile_problems(self) -> int:
        """Compiler rejections and structure problems: they count as errors."""
        c = self.compiled
        return 0 if c is None else len(c.errors) + len(c.structure)

    # Every count a format shows is one of these, summed by `summarize`: each is the number
    # of lines of one kind that the text format prints (`cli/problems.py` makes them).
    @property
    def to_review(self) -> int:
        """`review` problem lines: open review markers and the like, for a person to decide."""
        return sum(f.level != "error" for f in self.findings)

    @property
    def code_errors(self) -> int:
        """`error` problem lines: code the target rejects (`error API`), the compiler's refusals."""
        return sum(f.level == "error" for f in self.findings) + self.compile_problems

    @property
    def markers_added(self) -> int:
        """Open review markers the change writes (one that only moves is no new one)."""
        added: Counter = Counter()
        for line in self.diff.splitlines():
            if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")) and _OPEN_MARKER.search(line):
                added[line[1:].strip()] += 1 if line[0] == "+" else -1
        return sum(n for n in added.values() if n > 0)

    def change(self) -> str:
        """What the change is: its edits and the markers it adds ("0 edits" when it is none)."""
        markers = self.markers_added
        if not self.edits and markers:
            return f"no edit, {_count(markers, 'review marker')} added"
        return _count(len(self.edits), "edit") + (f", {_count(markers, 'review marker')} added" if markers else "")

    def would(self) -> str:
        """What `check` says of a changed file: a change of markers alone is not a migration.
        (`would be migrated (N edits)` stays as it was: the scoreboards read it.)"""
        if not self.edits and self.markers_added:
            return f"would gain {_count(self.markers_added, 'review marker')} (no edit)"
        return f"would be migrated ({_count(len(self.edits), 'edit')})"


@dataclass
class Job:
    """What a run asks of every file: the rules, the target, the checks, where results are kept."""

    rule_ids: tuple[str, ...]
    write: bool = False
    rules_dir: Path | None = None
    strict: bool = True  # re-check outputs against the target API (off when the rules were narrowed)
    verify: object | None = None  # interp Settings: run each changed kernel against its original
    compile: str | None = None  # "parse" | "passes": compile what run would write with pypto
    compile_sets: dict[str, str] = field(default_factory=dict)  # sizes for the compile, over the file's own
    compiler_python: str | None = None  # the Python that has that pypto (None: ours)
    size_defaults: dict[str, str] = field(default_factory=dict)  # [tool.pypto-migrate] set: under the file's own
    max_file_size: int = 0  # bytes; a bigger file is reported and skipped (0: no limit)
    cache_dir: Path | None = None  # where results are kept between runs (None: not kept)
    cache_key: str = ""  # the settings part of the cache key (`run` computes it once)
    target: str = field(default_factory=newest_step)  # the version step to migrate to (--target; the newest)
    start: str = ""  # the step to start at (--from); "": read off each file's code


def _where(display: str, line: int | None, column: int | None) -> str:
    if line is None:
        return display
    return f"{display}:{line}:{column or 1}"


def migrate(*args, **kwargs):
    """The engine's migrate, loaded on first use: a run whose results are all cached never
    loads LibCST."""
    from ..migrate.engine import migrate as engine_migrate

    return engine_migrate(*args, **kwargs)


def balanced_map(*args):
    """`parallel.balanced_map`, loaded only when a pool is worth starting."""
    from .parallel import balanced_map as spread

    return spread(*args)


def migrate_text(text: str, job: Job, strict: bool | None = None, neighbours: dict[str, str] | None = None):
    """The engine on one text, with the job's rules (every rule id is known to markers),
    through the version steps the text needs to reach the job's target. `neighbours`: the texts
    of the modules beside the file that it imports (`run.neighbours`), where it has a place."""
    from ..migrate.chain import migrate_steps, steps_for
    from ..migrate.context import neighbours_given

    # The rules of the steps up to the target (a later step's never run); a marker may name any.
    rules = tuple(r for r in load_rules(job.rules_dir, job.target or None) if r.id in job.rule_ids)
    known = frozenset(f.id for f in rule_files(job.rules_dir)) | {LEFTOVER_ID}
    steps = steps_for(text, rules, job.target, job.start, job.rules_dir, (neighbours or {}).values())
    with neighbours_given(neighbours or {}):
        result = migrate_steps(text, steps, known, job.strict if strict is None else strict, migrate,
                               staged=_narrowed(job))
    if "pypto" in result.output and not models_capacity(job):
        _target_capacity(result, job)
    return result


def models_capacity(job: Job) -> bool:
    """Does the target's own step model its compiler's buffers (a capacity rule of its own)?
    c39's model is PTO014's (2026-03); e2d0f78ae allocates otherwise and has none."""
    # the rules up to the target only: a run to a step never reads a later step's records
    return any(r.step == job.target and r.params.get("plan") == "capacity"
               for r in load_rules(job.rules_dir, job.target or None))


def _target_capacity(result, job: Job) -> None:
    """The capacity figures at a target whose step has no buffer model of its own (2026-08:
    PTO014 is c39's alone): those `report` gives the output, the oldest step's model held
    against the target's limits. Read off the output, they are the same before --write, after
    it and in `report` of the written file; a step's planner saw its input, with its limits."""
    from ..migrate.report import figures

    limits = load_api(job.rules_dir, job.target).memory_limits
    try:
        result.kernels, result.over_budget = figures(result.output, replace(load_api(job.rules_dir, oldest_step(job.rules_dir)),
                                                                              memory_limits=limits))
    except Exception:  # figures beside the migration: their failure must not cost the file
        result.kernels, result.over_budget = 0, 0


def _key(job: Job) -> str:
    from .cache import settings_key

    return settings_key(job.rule_ids, job.strict, job.rules_dir or default_rules_dir(), job.target, job.start)


def _cache(job: Job):
    """The job's result cache, or None (`--no-cache`): a run without it never loads the
    cache's module, nor the hashing and JSON it needs."""
    if job.cache_dir is None:
        return None
    from .cache import ResultCache

    key = job.cache_key or _key(job)
    return ResultCache(job.cache_dir, key)


def _migration(data: bytes, text: str, job: Job, entry: dict | None = None, key: str = "", path: Path | None = None):
    """The migration of a file's text and the body of its diff: from the cache when it holds
    them (`entry` under `key`, when the caller looked already), else computed and kept there."""
    cache = _cache(job)
    # the neighbours are read for the key only where the caller did not bring one (a warm run's
    # hit, looked up already, reads none), and for the migration only when it runs
    texts = None if key else neighbours(path, data)
    key = key or (cache.content_key(keyed(data, texts)) if cache is not None else "")
    if cache is not None:
        from .cache import error_entry, from_entry, result_entry

        entry = entry if entry is not None else cache.get(key)
        if entry is not None:
            try:
                body, result = from_entry(entry, text)
                return result, body
            except (KeyError, TypeError, ValueError):
                pass  # an entry of another shape (written by hand, or by a bug): done again
    try:
        result = migrate_text(text, job, neighbours=texts if texts is not None else neighbours(path, data))
    except SourceError as exc:  # the file's own problem, the same next time
        if cache is not None:
            cache.put(key, error_entry(exc))
        raise
    stages.stage("diff")
    body = diff_body(text, result.output)
    if cache is not None:
        cache.put(key, result_entry(result, body))
    return result, body


def process(path: Path, job: Job, known: tuple[bytes, dict, str] | None = None, text: str | None = None,
            display: str | None = None, defer_write: bool = False) -> Outcome:
    """One file, start to end. `known`: its bytes, cache entry and key, when the caller has them;
    `text` (stdin): that text stands for the file and is never written. `defer_write`: what
    --write would write is left in `to_write`, for `commit`."""
    started = time.perf_counter()
    outcome = Outcome(display or display_path(path))
    stdin = text is not None
    try:
        if stdin:
            data, entry, key = text.encode("utf-8"), None, ""
        else:
            data, entry, key = known if known is not None else (read_bytes(path, job.max_file_size), None, "")
            text = decode(data)
        outcome.uses_pypto = "pypto" in text
        result, body = _migration(data, text, job, entry, key, None if stdin else path)
        if stdin:
            outcome.output = result.output
        outcome.edits = sorted(result.edits, key=lambda e: (e.line, e.column))
        outcome.findings, outcome.reviewed = result.findings, result.reviewed
        outcome.kernels, outcome.over_budget = result.kernels, result.over_budget
        if result.changed and _narrowed(job):
            _refuse_introduced(outcome, result)
        outcome.diff = with_header(body, outcome.display)
        if job.verify is not None and result.changed:
            _verify(outcome, text, result.output, job)
        if job.compile is not None:
            held = _compile(path, outcome, result, job, stdin)
        else:
            held = False
        if stdin and held:
            outcome.output = text  # `run --write -` hands back what it would not write
        if job.write and result.changed and not held and not stdin:
            outcome.to_write = result.output
            if not defer_write:
                commit(path, outcome)
    except (SourceError, FileProblem) as exc:  # EngineError included: the rule is named in the message
        outcome.error = f"{_where(outcome.display, exc.line, exc.column)}: {exc.message}"
    except RecursionError:
        outcome.error = f"{outcome.display}: nested too deeply to migrate (Python's recursion limit); left as it was"
    except Exception as exc:  # a bug of ours must cost this file, never the others
        outcome.error = f"{outcome.display}: internal error, left as it was ({type(exc).__name__}: {exc}); please report it"
    if outcome.error:
        _unchanged(outcome, text if stdin else None)
    outcome.seconds = time.perf_counter() - started
    return outcome


def _unchanged(outcome: Outcome, output: str | None) -> None:
    """A file that failed: nothing of it was (or would be) changed."""
    outcome.edits, outcome.diff, outcome.notes, outcome.to_write = [], "", [], None
    # Review findings were about that change; errors that refused it are kept, as the reasons.
    outcome.findings = [f for f in outcome.findings if f.level == "error"]
    outcome.output = output


def commit(path: Path, outcome: Outcome) -> None:
    """Write what `process` left to write; a refused write makes the file an error, left as it was."""
    text, outcome.to_write = outcome.to_write, None
    if text is None:
        return
    try:
        write_atomic(path, text)
    except FileProblem as exc:
        outcome.error = f"{_where(outcome.display, exc.line, exc.column)}: {exc.message}"
        _unchanged(outcome, None)
        return
    outcome.written = True


def _narrowed(job: Job) -> bool:
    return set(job.rule_ids) != {f.id for f in rule_files(job.rules_dir)}


def _refuse_introduced(outcome: Outcome, result) -> None:
    """Narrowed rules never write unchecked output: errors their edits introduce where the
    target accepted the input refuse the file (the engine checked it: `check/introduced.py`).
    What is left where the target rejected the input is a stage's to leave: counted."""
    introduced, left = result.introduced, result.still_rejected
    if left and not introduced:
        outcome.still_rejected = left
        outcome.notes.append(f"still rejected by the target: {_count(left, 'error')}, each where the original was rejected "
                             "(on its line or in its kernel): left for the rules not selected")
    if introduced:
        outcome.findings = introduced
        raise FileProblem(
            f"not migrated: with the selected rules the result would have {_count(len(introduced), 'new error')} "
            "against the target API where the original was accepted (below); select the rules they need, or run all rules"
        )


def _verify(outcome: Outcome, text: str, output: str, job: Job) -> None:
    """Prove the migration on small inputs; a file that fails is not written (raised as an error)."""
    from ..interp.verify import EQUIVALENT, MASKED, verify

    if "@" not in text or "program" not in text:
        return  # no @pl.program to run
    verdict = verify((outcome.display, text), (f"{outcome.display} (migrated)", output), job.verify,
                     load_api(job.rules_dir, oldest_step(job.rules_dir)),
                     target=job.target)  # the migration means what the target version means
    if verdict.code == EQUIVALENT:
        outcome.notes.append(f"verified: {verdict.message}")
    elif verdict.code == MASKED:
        outcome.notes.append(f"verified, with lost masking: {verdict.message}")
    elif "no @pl.program" in verdict.message:
        return
    else:
        raise FileProblem(f"verify failed, not written: {verdict.message}")


def _compile(path: Path, outcome: Outcome, result, job: Job, stdin: bool = False) -> bool:
    """Compile what run would write; True when the compiler's rejection holds the write back.

    A rejection on a statement a review marker already flags does not: the person deciding
    that marker sees the compiler's message beside it."""
    from ..compiler.verdict import mismatches, tool_capacity, under_review_marker
    from ..compiler.bridge import CompilerUnavailable, WorkerError, compile_source, unavailable_message

    text = result.output if result.changed or stdin else None  # a stdin text has no file to import
    try:
        compiled = compile_source(path, text, job.compile, job.compile_sets, defaults=job.size_defaults,
                                  target=job.target, python=job.compiler_python)
    except CompilerUnavailable as exc:
        raise FileProblem(unavailable_message(str(exc), job.compiler_python, job.target)) from exc
    except WorkerError as exc:  # ours, not the compiler's verdict: the file is an error (exit 2), never written
        raise FileProblem(str(exc)) from exc
    outcome.compiled = compiled
    if job.compile == "passes" and compiled.programs:
        try:
            outcome.capacity = tool_capacity(result.output, outcome.display, load_api(job.rules_dir, job.target))
        except Exception as exc:  # the figures are a comparison; their failure must not cost the compile
            outcome.notes.append(f"compile: the tool's own capacity figures failed ({type(exc).__name__}: {exc})")
        if outcome.capacity is not None:
            compiled.structure.extend(mismatches(outcome.capacity, compiled.memory, compiled.kernels))
        outcome.capacity_compared = models_capacity(job)
    unexcused = [e for e in compiled.errors if not under_review_marker(result.output, e.line)]
    if job.write and result.changed and unexcused:
        outcome.notes.append(
            f"not written: the compiler rejects the migration ({_count(len(unexcused), 'error')} "
            "on lines no review marker flags)"
        )
        return True
    return False


# Expected seconds per byte of source: a file that names pypto is migrated (two traversals,
# a plan, a strict check), any other is only syntax-checked. What a file costs is only
# compared with what others cost, and with what a pool costs to start.
KERNEL_COST, PLAIN_COST = 1e-5, 2e-7
POOL_PAYS = 0.5  # seconds of expected work handed to workers before a pool is worth starting


def run(paths: list[Path], job: Job, jobs: int = 1, on_done=None, on_stage=None) -> list[Outcome]:
    """Process every file; the outcomes come back in the order of `paths`, for any `jobs`.
    `on_done(outcome)` is called as each one arrives (a progress bar); `on_stage(display, step,
    stage)` as each stage of a file migrated in this process starts (workers tell nothing).

    Ctrl-C raises `Interrupted` with the outcomes finished before it: each file is written here,
    as its outcome arrives, and SIGINT waits while one is written and recorded, so those
    outcomes' `written` are exactly the files written; no other file is written after."""
    on_done = on_done or (lambda outcome: None)
    if job.cache_dir is not None and not job.cache_key:
        job = replace(job, cache_key=_key(job))
    outcomes: list[Outcome | None] = [None] * len(paths)
    try:
        with guarded() as guard:
            def finish(i: int, outcome: Outcome) -> None:
                with guard.held():
                    commit(paths[i], outcome)
                    outcomes[i] = outcome
                on_done(outcome)

            _spread(paths, job, jobs, finish, on_stage)
        return outcomes  # type: ignore[return-value]
    except KeyboardInterrupt:
        raise Interrupted([o for o in outcomes if o is not None], len(paths)) from None


def _spread(paths: list[Path], job: Job, jobs: int, finish, on_stage) -> None:
    if jobs <= 1:
        for i, path in enumerate(paths):
            finish(i, _here(path, job, on_stage))
        return
    heavy: list[int] = []
    costs: list[float] = []
    for i, path in enumerate(paths):
        cost, known = _look(path, job)
        if cost:
            heavy.append(i)
            costs.append(cost)
        else:  # cached, or not to be read at all: done here at once
            finish(i, process(path, job, known, defer_write=True))
    if len(heavy) < 2 or sum(costs) < POOL_PAYS:
        for i in heavy:
            finish(i, _here(paths[i], job, on_stage))
    else:
        balanced_map(partial(process, job=job, defer_write=True), [paths[i] for i in heavy], costs,
                     min(jobs, len(heavy)), lambda k, outcome: finish(heavy[k], outcome))


def _here(path: Path, job: Job, on_stage) -> Outcome:
    """`process` in this process, its stages told to `on_stage` when there is one."""
    if on_stage is None:
        return process(path, job, defer_write=True)
    with stages.listening(partial(on_stage, display_path(path))):
        return process(path, job, defer_write=True)


def _look(path: Path, job: Job) -> tuple[float, tuple[bytes, dict, str] | None]:
    """A file's expected cost, or 0 and its bytes, cache entry and key when the cache holds its
    result (0 and nothing for a file that cannot be read: `process` says why)."""
    try:
        data = read_bytes(path, job.max_file_size)
    except FileProblem:
        return 0.0, None
    cache = _cache(job)
    if cache is not None and job.verify is None and job.compile is None:
        key = cache.content_key(keyed(data, neighbours(path, data)))
        entry = cache.get(key)
        if entry is not None:
            return 0.0, (data, entry, key)
    return len(data) * (KERNEL_COST if b"pypto" in data else PLAIN_COST) + 1e-9, None


@dataclass
class Summary:
    """Every count `run` and `check` report, in every format: the one place they are summed."""

    files_changed: int
    edits: int
    review: int  # review problem lines (Outcome.to_review)
    errors: int  # error problem lines: error API findings and compiler refusals (Outcome.code_errors)
    failed: int  # files that could not be processed
    per_rule: Counter
    files_per_rule: Counter
    files: int = 0
    written: int = 0
    markers_added: int = 0
    kernels: int = 0
    over_budget: int = 0  # buffer spaces over a limit: `report`'s OVER lines
    compile_problems: int = 0
    files_compiled: int | None = None  # None without --compile
    not_written: int = 0  # changed files a --write left as they were (the compiler refused them)
    still_rejected: int = 0  # files a staged (narrowed) run leaves rejected where their original was

    def line(self, verb: str, written: bool = False) -> str:
        held = self.not_written if written else 0
        text = f"{_count(self.files_changed - held, 'file')} {verb}"
        if held:
            text += f" ({held} not written, as said above)"
        text += f", {_count(self.edits, 'edit')}"
        if self.markers_added:
            text += f", {_count(self.markers_added, 'review marker')} added"
        text += f", {self.review} need review"
        if self.errors:
            text += f", {_count(self.errors, 'error')}"
        if self.failed:
            text += f", {self.failed} could not be processed"
        if self.files_compiled is not None:
            text += f"; {_count(self.files_compiled, 'file')} compiled, {_count(self.compile_problems, 'compile error')}"
        return text

    def staged_line(self) -> str:
        """A staged run's line for what it leaves to the rules not selected ("" when nothing)."""
        if not self.still_rejected:
            return ""
        return f"still rejected by the target: {_count(self.still_rejected, 'file')}; run without --select to finish"
    def capacity(self) -> str:
        return (f"capacity: {_count(self.kernels, 'kernel region')} checked against the 910B buffer limits, "
                f"{_count(self.over_budget, 'buffer')} over a limit (pypto-migrate report of the migrated files marks each OVER)")


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
        review=sum(o.to_review for o in outcomes),
        errors=sum(o.code_errors for o in outcomes),
        failed=sum(o.error is not None for o in outcomes),
        per_rule=per_rule,
        files_per_rule=files_per_rule,
        files=len(outcomes),
        written=sum(o.written for o in outcomes),
        markers_added=sum(o.markers_added for o in outcomes),
        kernels=sum(o.kernels for o in outcomes),
        over_budget=sum(o.over_budget for o in outcomes),
        compile_problems=sum(o.compile_problems for o in outcomes),
        files_compiled=(
            sum(o.compiled is not None and not o.compiled.skipped for o in outcomes)
            if any(o.compiled is not None for o in outcomes) else None
        ),
        # A text from stdin is handed back, never written to a file: it is not held back.
        not_written=sum(o.changed and not o.written and o.output is None for o in outcomes),
        still_rejected=sum(bool(o.still_rejected) and not o.error for o in outcomes),
    )
