"""`run --interactive`: a reviewer accepts or rejects the migration hunk by hunk.

The diff is split with unidiff; the accepted hunks are applied to the original text line by
line (the hunks of one file never overlap), and the result is written like any migration:
atomically, keeping the file's mode. Each hunk names the rules whose edits it holds (the
engine's edits are placed by line) and their fix safety; `r` shows those rules' pages, `e`
opens the hunk in $EDITOR and takes the edit if the file still parses. `q` and the end of
input write what was accepted in the current file; Ctrl-C leaves it untouched. Hunks of one
migration depend on each other (a load and the store that pairs with it), so after a
partial review the file is re-checked and what still needs a person is said.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Callable

from ..text.diffs import unified_diff
from ..check.results import Edit, SourceError
from ..migrate.parsing import parse
from ..check.findings import MARKER
from ..text.hunks import Hunk, apply, edited, hunks_of
from ..text.sources import FileProblem, read_text, write_atomic

KEYS = (
    ("y", "apply this hunk"),
    ("n", "skip this hunk"),
    ("a", "apply this hunk and the rest of this file"),
    ("d", "skip this hunk and the rest of this file"),
    ("e", "edit this hunk in $EDITOR, then apply it"),
    ("r", "show the documentation of this hunk's rules"),
    ("q", "quit: write what was accepted in this file, review no more files"),
    ("?", "show these keys"),
)
PROMPT = f"Apply this hunk? [{','.join(k for k, _ in KEYS)}] "
HELP = "\n".join(f"  {key}  {what}" for key, what in KEYS) + "\n  (Ctrl-C: stop, leaving this file as it was)"
EDIT_NOTE = """\
# Edit the hunk above, then save and close the editor.
# '+' lines are what will be written. To keep a line the hunk removes, turn its '-' into
# a space; to leave out an added line, delete it. Keep ' ' and '-' lines as they are.
# Lines starting with '#' are dropped. Empty the file to keep the hunk as it was.
"""


@dataclass
class Terminal:
    """What the review loop needs of the terminal; the tests give their own."""

    ask: Callable[[str], str | None]  # the answer, None at the end of input
    show: Callable[[str], None]  # text as it is (a hunk keeps its CRLF)
    editor: Callable[[str], None] = field(default=lambda path: _run_editor(path))  # defined below


def rules_of(hunks: list[Hunk], edits: list[Edit]) -> list[list[str]]:
    """The rule ids of each hunk: its edits by line (the nearest hunk when none holds the line), and its markers."""
    found: list[set[str]] = [set() for _ in hunks]
    for edit in edits:
        if hunks:
            distance = [_distance(h, edit.line) for h in hunks]
            found[distance.index(min(distance))].add(edit.rule)
    for ids, hunk in zip(found, hunks):
        for line in hunk.text.splitlines():
            m = MARKER.search(line) if line.startswith("+") else None
            if m and m.group("state") == "review":
                ids.update(i.strip() for i in m.group("ids").split(","))
    return [sorted(ids) for ids in found]


def _distance(hunk: Hunk, line: int) -> int:
    first, last = hunk.source_start, hunk.source_start + max(hunk.source_length, 1) - 1
    return 0 if first <= line <= last else min(abs(line - first), abs(line - last))


def review_file(display: str, original: str, diff: str, edits: list[Edit], term: Terminal, rules=()) -> tuple[str, int, int, bool]:
    """Ask about each hunk; returns the text to write, hunks accepted, hunks in all, and whether to stop."""
    hunks = hunks_of(diff)
    ids = rules_of(hunks, edits)
    by_id = {r.id: r for r in rules}
    accepted: list[bool] = []
    rest: bool | None = None
    i = 0
    while i < len(hunks):
        if rest is not None:
            accepted.append(rest)
            i += 1
            continue
        names = ", ".join(_describe(by_id.get(r), r) for r in ids[i])
        term.show(f"\n{display}: hunk {i + 1} of {len(hunks)}" + (f" · {names}" if names else "") + "\n")
        term.show(hunks[i].text if hunks[i].text.endswith("\n") else hunks[i].text + "\n")
        answer = _answer(term)
        if answer in (None, "q"):
            return apply(original, hunks, accepted), sum(accepted), len(hunks), True
        if answer == "?":
            term.show(HELP + "\n")
        elif answer == "r":
            term.show(_docs(ids[i], by_id))
        elif answer == "e":
            new = _edit(display, original, hunks, accepted, i, term)
            if new is not None:
                hunks[i] = new
                accepted.append(True)
                i += 1
        else:
            if answer in ("a", "d"):
                rest = answer == "a"
            accepted.append(answer in ("y", "a"))
            i += 1
    return apply(original, hunks, accepted), sum(accepted), len(hunks), False


def _answer(term: Terminal) -> str | None:
    while True:
        answer = term.ask(PROMPT)
        if answer is None:
            return None
        answer = answer.strip().lower()
        if answer in {k for k, _ in KEYS}:
            return answer
        if answer:
            term.show(f"unknown key {answer!r}; ? shows the keys\n")


def _describe(rule, rule_id: str) -> str:
    if rule is None:
        return rule_id
    from .ruledocs import safety_class

    return f"{rule.id} {rule.name} ({safety_class(rule)})"


def _docs(ids: list[str], by_id) -> str:
    from .ruledocs import render

    pages = [render(by_id[r], examples=False) for r in ids if r in by_id]
    return "\n".join(pages) if pages else "no rule is known to have made this hunk\n"


def _edit(display: str, original: str, hunks: list[Hunk], accepted: list[bool], i: int, term: Terminal) -> Hunk | None:
    """The hunk as the reviewer edited it, if it still fits the file and the file still parses."""
    fd, path = tempfile.mkstemp(prefix="pypto-migrate-hunk-", suffix=".diff")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(hunks[i].text if hunks[i].text.endswith("\n") else hunks[i].text + "\n")
            fh.write(EDIT_NOTE)
        try:
            term.editor(path)
        except (OSError, subprocess.SubprocessError) as exc:
            term.show(f"cannot run the editor ({exc}); hunk offered again\n")
            return None
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    finally:
        os.unlink(path)
    try:
        new = edited(hunks[i], text)
    except ValueError as exc:
        term.show(f"{exc}; hunk offered again\n")
        return None
    if new is None:
        term.show("the edit was emptied; hunk offered again as it was\n")
        return None
    try:
        parse(apply(original, [*hunks[:i], new], [*accepted, True]), "the edited file")
    except SourceError as exc:
        term.show(f"{display}:{exc.line}:{exc.column}: {exc.message}; hunk offered again\n")
        return None
    term.show("edited hunk accepted\n")
    return new


def _run_editor(path: str) -> None:
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    subprocess.run([*shlex.split(command), path], check=True)


@dataclass
class Progress:
    """Where the review is, so that an interrupt can say it: files written, the one under review."""

    written: list[str] = field(default_factory=list)
    current: str | None = None


def review_paths(files, outcomes, job, term: Terminal, say, progress: Progress) -> bool:
    """The reviewer's loop over every changed file; returns whether any file failed."""
    from ..rulebook.loading import load_rules
    from ..run.neighbours import neighbours
    from ..run.runner import migrate_text  # the runner imports nothing of this module

    rules = load_rules(job.rules_dir)
    failed = False
    for path, outcome in zip(files, outcomes):
        if not outcome.diff:
            continue
        progress.current = outcome.display
        try:
            original = read_text(path)
            beside = neighbours(path, original.encode("utf-8"))  # as `run` read them
            result = migrate_text(original, job, strict=False, neighbours=beside)
            # One line of context: each change block is a hunk of its own to decide on.
            diff = unified_diff(original, result.output, outcome.display, context=1)
            new, taken, total, stop = review_file(outcome.display, original, diff, result.edits, term, rules)
            if taken:
                write_atomic(path, new)
                progress.written.append(outcome.display)
            progress.current = None
            if taken:
                left = migrate_text(new, job, neighbours=beside)
                say(f"{outcome.display}: {taken} of {total} hunks written; "
                    f"{len(left.edits)} edits left, {sum(f.level != 'error' for f in left.findings)} need review")
        except (FileProblem, SourceError) as exc:
            failed = True
            say(f"error: {outcome.display}: {exc.message}")
            stop = False
        if stop:
            break
    return failed


def interactive(files, outcomes, job) -> int:
    """The loop on a terminal: plain text on stdout, answers a line each from stdin; the exit code."""

    def ask(prompt: str) -> str | None:
        _out(prompt)
        line = sys.stdin.readline()
        if not line:
            _out("\n")
            return None
        return line

    def say(text: str) -> None:
        _out(text + "\n")

    from . import exits

    progress = Progress()
    try:
        failed = review_paths(files, outcomes, job, Terminal(ask, _out), say, progress)
    except KeyboardInterrupt:
        left = f"{progress.current} was left as it was; " if progress.current else ""
        written = f"written: {', '.join(progress.written)}" if progress.written else "no file was written"
        _out(f"\ninterrupted: {left}{written}\n")
        return exits.INTERRUPTED

    return exits.FAILED if failed or any(o.error for o in outcomes) else exits.CLEAN  # a file not processed: 2, as everywhere


def _out(text: str) -> None:
    from .console import write_stdout as _stdout  # bytes: CRLF and non-ASCII reach the terminal as they are in the files

    _stdout(text)
