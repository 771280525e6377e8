"""`run --interactive`: a reviewer accepts or rejects the migration hunk by hunk.

The diff is split with unidiff; the accepted hunks are applied to the original text line by
line (the hunks of one file never overlap), and the result is written like any migration:
atomically, keeping the file's mode. Hunks of one migration depend on each other (a load
and the store that pairs with it), so after a partial review the file is re-checked and
what still needs a person is said.
"""

from __future__ import annotations

from dataclasses import dataclass

from unidiff import PatchSet

from .diffs import lines_of, unified_diff
from .sources import FileProblem, read_text, write_atomic


@dataclass
class Hunk:
    text: str  # the hunk as printed, header included
    source_start: int  # 1-based first line in the original
    source_length: int
    target_lines: list[str]  # the lines that replace that range, with their line endings


def hunks_of(diff: str) -> list[Hunk]:
    out = []
    for patched in PatchSet(diff):
        for h in patched:
            lines = list(h)
            target = []
            for i, line in enumerate(lines):
                if not (line.is_added or line.is_context):
                    continue
                value = line.value
                # unidiff adds the newline a "\ No newline at end of file" line takes away
                if i + 1 < len(lines) and lines[i + 1].line_type == "\\" and value.endswith("\n"):
                    value = value[:-1]
                target.append(value)
            out.append(Hunk(str(h), h.source_start, h.source_length, target))
    return out


def apply(original: str, hunks: list[Hunk], accepted: list[bool]) -> str:
    lines = lines_of(original)
    out: list[str] = []
    at = 0  # 0-based index of the next original line to copy
    for hunk, take in zip(hunks, accepted):
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        out.extend(lines[at:start])
        out.extend(hunk.target_lines if take else lines[start:start + hunk.source_length])
        at = start + hunk.source_length
    out.extend(lines[at:])
    return "".join(out)


CHOICES = "ynadq"
HELP = "y apply this hunk, n skip it, a apply it and the rest of this file, d skip the rest of this file, q quit"


def review_file(display: str, diff: str, ask, show) -> tuple[list[bool], bool]:
    """Ask about each hunk; returns which were accepted, and whether the reviewer quit."""
    hunks = hunks_of(diff)
    accepted: list[bool] = []
    rest: bool | None = None
    for i, hunk in enumerate(hunks, 1):
        if rest is not None:
            accepted.append(rest)
            continue
        show(f"{display}: hunk {i} of {len(hunks)}", hunk.text)
        answer = ask()
        if answer == "q":
            return accepted + [False] * (len(hunks) - len(accepted)), True
        if answer in ("a", "d"):
            rest = answer == "a"
            accepted.append(rest)
        else:
            accepted.append(answer == "y")
    return accepted, False


def review_paths(files, outcomes, job, ask, show, say) -> bool:
    """The reviewer's loop over every changed file; returns whether any file failed."""
    from .runner import migrate_text  # the runner imports nothing of this module

    failed = False
    for path, outcome in zip(files, outcomes):
        if not outcome.diff:
            continue
        try:
            original = read_text(path)
            # One line of context: each change block is a hunk of its own to decide on.
            diff = unified_diff(original, migrate_text(original, job, strict=False).output, outcome.display, context=1)
            accepted, quit_ = review_file(outcome.display, diff, ask, show)
            if any(accepted):
                new = apply(original, hunks_of(diff), accepted)
                write_atomic(path, new)
                left = migrate_text(new, job)
                say(f"{outcome.display}: {sum(accepted)} of {len(accepted)} hunks written; "
                    f"{len(left.edits)} edits left, {len(left.findings)} need review")
        except FileProblem as exc:
            failed = True
            say(f"error: {outcome.display}: {exc.message}")
            quit_ = False
        if quit_:
            break
    return failed
