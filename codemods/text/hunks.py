"""The hunks of a unified diff: split with unidiff, checked against a text, applied to it.

A hunk is applied at its own line numbers in the original text (the hunks of one file
never overlap), so any subset of them applies, which `run --interactive` relies on; `apply`
checks first that the text still reads what the hunk's source side says.
"""

from __future__ import annotations

from dataclasses import dataclass

from unidiff import PatchSet
from unidiff.patch import PatchedFile

from .diffs import lines_of


@dataclass
class Hunk:
    text: str  # the hunk as printed, header included
    source_start: int  # 1-based first line in the original
    source_length: int
    target_lines: list[str]  # the lines that replace that range, with their line endings
    source_lines: list[str]  # the lines of that range as the diff was made from them

    @property
    def start(self) -> int:
        """0-based index of the first original line the hunk replaces (an insertion's: after its line)."""
        return self.source_start - 1 if self.source_length else self.source_start


def hunks_of(diff: str) -> list[Hunk]:
    return [h for patched in PatchSet(diff) for h in hunks_of_file(patched)]


def hunks_of_file(patched: PatchedFile) -> list[Hunk]:
    out = []
    for h in patched:
        lines = list(h)
        source, target = [], []
        for i, line in enumerate(lines):
            value = line.value
            # unidiff adds the newline a "\ No newline at end of file" line takes away
            if i + 1 < len(lines) and lines[i + 1].line_type == "\\" and value.endswith("\n"):
                value = value[:-1]
            if line.is_added or line.is_context:
                target.append(value)
            if line.is_removed or line.is_context:
                source.append(value)
        out.append(Hunk(str(h), h.source_start, h.source_length, target, source))
    return out


def apply(original: str, hunks: list[Hunk], accepted: list[bool]) -> str:
    lines = lines_of(original)
    out: list[str] = []
    at = 0  # 0-based index of the next original line to copy
    for hunk, take in zip(hunks, accepted):
        start = hunk.start
        out.extend(lines[at:start])
        out.extend(hunk.target_lines if take else lines[start:start + hunk.source_length])
        at = start + hunk.source_length
    out.extend(lines[at:])
    return "".join(out)


def mismatch(original: str, hunks: list[Hunk]) -> str | None:
    """Why the hunks do not apply to `original` as they are (None: they do)."""
    lines = lines_of(original)
    at = 0
    for hunk in hunks:
        if hunk.start < at:
            return f"hunk at line {hunk.source_start} overlaps the one before it"
        have = lines[hunk.start:hunk.start + hunk.source_length]
        for k, (want, got) in enumerate(zip(hunk.source_lines, have)):
            if want != got:
                return f"line {hunk.start + k + 1} reads {_show(got)}, the patch expects {_show(want)}"
        if len(have) < len(hunk.source_lines):
            return f"the file ends at line {len(lines)}, the patch expects {len(hunk.source_lines) - len(have)} more line(s)"
        at = hunk.start + hunk.source_length
    return None


def _show(line: str) -> str:
    text = line.rstrip("\r\n")
    return repr(text if len(text) <= 60 else text[:57] + "...")


def edited(hunk: Hunk, text: str) -> Hunk | None:
    """`hunk` as a person edited it: None when emptied; ValueError when it no longer fits the file.

    The header is optional and its counts are ignored; ' ' and '-' lines must be the hunk's own
    source lines, '+' lines are free, and an empty line is a blank context line."""
    lines = [line for line in lines_of(text) if not line.startswith("#")]
    if lines and lines[0].startswith("@@"):
        lines = lines[1:]
    if not any(line.strip() for line in lines):
        return None
    source, target = _sides(lines)
    while source != hunk.source_lines and lines and lines[-1] in ("\n", "\r\n"):
        lines.pop()  # a blank line an editor left at the end, not a context line of the hunk
        source, target = _sides(lines)
    if source != hunk.source_lines:
        raise ValueError("the edited hunk no longer matches the file: ' ' and '-' lines must stay as they were")
    header = f"@@ -{hunk.source_start},{len(source)} +{hunk.source_start},{len(target)} @@\n"
    return Hunk(header + "".join(lines), hunk.source_start, hunk.source_length, target, source)


def _sides(lines: list[str]) -> tuple[list[str], list[str]]:
    source: list[str] = []
    target: list[str] = []
    previous = ""
    for n, line in enumerate(lines):
        mark, value = (" ", line) if line in ("\n", "\r\n") else (line[:1], line[1:])
        if mark == "\\":  # "\ No newline at end of file": the line before it has none
            for side, marks in ((source, " -"), (target, " +")):
                if previous and previous in marks and side:
                    side[-1] = side[-1].rstrip("\r\n")
            continue
        if mark not in (" ", "-", "+"):
            raise ValueError(f"line {n + 1} of the edit starts with {mark!r}, not ' ', '-' or '+'")
        if mark in (" ", "-"):
            source.append(value)
        if mark in (" ", "+"):
            target.append(value)
        previous = mark
    return source, target
