"""What a person sees on the terminal: messages on stderr, the diff on stdout, a progress bar.

Nothing a user wrote is ever read as rich markup: paths like `x[/]` and code like `[b, 0]`
are printed as they are (every Console here has markup off; table cells are `Text`).
Colour follows `--color auto|always|never`; auto means a terminal, unless NO_COLOR is set
(FORCE_COLOR turns it on off a terminal). An explicit --color beats both variables.

Off a terminal and without colour, lines are written as they are, without rich (whose import
and per-line rendering were most of a warm run): rich is imported only for colour, a
terminal, a table or a line it would print differently (control characters, tabs).
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..text.diffs import lines_of

COLORS = ("auto", "always", "never")
PROGRESS_MIN_FILES = 10  # fewer files finish before a bar would be worth drawing
LONG_FILE = 100_000  # bytes of one file whose migration takes a second or more: a bar is worth it
PLAIN_WIDTH = 200  # off a terminal: what rich's tables fit in (and lines are never wrapped)


def wants_color(choice: str, stream) -> bool:
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR"):  # no-color.org: set and not empty
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _isatty(stream)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def make_console(stream=None, color: bool = False):
    stream = stream or sys.stderr
    if color or _isatty(stream):
        return _rich_console(stream, color)
    return PlainConsole(stream)


def _rich_console(stream, color: bool):
    from rich.console import Console

    # Off a terminal rich would wrap at 80 columns and split the lines CI logs are grepped for.
    width = None if _isatty(stream) else PLAIN_WIDTH
    return Console(
        file=stream, markup=False, highlight=False, emoji=False, soft_wrap=True, width=width,
        force_terminal=color, no_color=not color, color_system="auto" if color else None,
    )


# What rich would not print as it is: it drops some control characters and expands tabs.
_NOT_PLAIN = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


class PlainConsole:
    """`print` as rich's Console prints a string without colour off a terminal, byte for byte,
    with rich itself kept for what it renders (tables) and strings it would alter."""

    def __init__(self, stream) -> None:
        self.file = stream
        self._rich = None

    def print(self, message="", markup: bool = False) -> None:
        if isinstance(message, str) and not _NOT_PLAIN.search(message):
            self.file.write(message + "\n")
            self.file.flush()
            return
        if self._rich is None:
            self._rich = _rich_console(self.file, False)
        self._rich.print(message)


LEVEL_STYLES = {"error": "bold red", "review": "yellow", "warning": "yellow"}
_LEVEL = re.compile(r"^(.*?:\d+:\d+: )(error|review)\b")


@dataclass
class Ui:
    """-q: only the `path:line:col:` problem lines; -v: also one line per file with its time."""

    quiet: bool = False
    verbose: bool = False
    color_out: bool = False
    err: object = field(default_factory=make_console)  # a rich Console or a PlainConsole

    @classmethod
    def make(cls, quiet: bool = False, verbose: bool = False, color: str = "auto") -> "Ui":
        color_err = wants_color(color, sys.stderr)
        return cls(quiet, verbose and not quiet, wants_color(color, sys.stdout), make_console(sys.stderr, color_err))

    def say(self, message) -> None:
        """Information: summaries, tables, notes; not with -q."""
        if not self.quiet:
            self.err.print(message)

    def detail(self, message: str) -> None:
        if self.verbose:
            self.err.print(message)

    def problem(self, line: str) -> None:
        """One `path:line:col: level ...` line; its level word coloured where colour is on."""
        m = _LEVEL.match(line)
        if m is None or isinstance(self.err, PlainConsole):
            self.err.print(line)
        else:
            from rich.text import Text

            self.err.print(Text.assemble(m.group(1), (m.group(2), LEVEL_STYLES[m.group(2)]), line[m.end():]))

    def diff(self, text: str) -> None:
        write_stdout(colored_diff(text) if self.color_out else text)

    @contextmanager
    def progress(self, files: list):
        """A bar on stderr while `files` are processed, for many files or for one long enough to
        take a while, then with the file and the stage it is at; only on a terminal, never in
        a log. Yields what to call as each file is done and as a stage starts (None: no bar)."""
        if self.quiet or not _isatty(sys.stderr) or (len(files) < PROGRESS_MIN_FILES and not _long(files)):
            yield (lambda outcome: None), None
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        bar_console = Console(file=sys.stderr, markup=False, highlight=False, emoji=False)
        columns = (TextColumn("pypto-migrate", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TextColumn("{task.fields[now]}", markup=False))
        with Progress(*columns, console=bar_console, transient=True) as bar:
            task = bar.add_task("files", total=len(files), now="")

            def on_stage(display: str, step: str, stage: str) -> None:
                bar.update(task, now=f"{display}: {step}: {stage}" if step else f"{display}: {stage}")

            yield (lambda outcome: bar.advance(task)), on_stage


def _long(files: list) -> bool:
    """Is one of the files long enough that its migration alone takes a while?"""
    for path in files:
        try:
            if os.stat(path).st_size >= LONG_FILE:
                return True
        except OSError:
            pass  # the run says why it cannot be read
    return False


# ANSI SGR codes written directly: the diff must stay byte-exact apart from them (CRLF included).
_RED, _GREEN, _CYAN, _BOLD, _DIM, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[2m", "\x1b[0m"
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def colored_diff(diff: str) -> str:
    """The unified diff with ANSI colours; a hunk's lines are counted, so that a removed line
    that itself starts with `-- ` is never taken for a file header."""
    out = []
    old = new = 0  # lines of the current hunk still to come
    for line in lines_of(diff):
        body = line.rstrip("\r\n")
        end = line[len(body):]
        m = _HUNK.match(body)
        if body.startswith("\\"):  # "\ No newline at end of file": not a line of either side
            style = _DIM
        elif old or new:
            style = {"-": _RED, "+": _GREEN}.get(body[:1], "")
            if body[:1] in ("-", " "):
                old -= 1
            if body[:1] in ("+", " "):
                new -= 1
        elif m:
            style = _CYAN
            old, new = int(m.group(1) or 1), int(m.group(2) or 1)
        else:
            style = _BOLD
        out.append(f"{style}{body}{_RESET}{end}" if style and body else line)
    return "".join(out)


def write_stdout(text: str) -> None:
    # Bytes, so that CRLF and non-ASCII reach a pipe exactly as they are in the files.
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        sys.stdout.flush()
        stream.write(text.encode("utf-8"))
        stream.flush()
    else:
        sys.stdout.write(text)
