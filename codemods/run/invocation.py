"""What `run` and `check` share before the report: configuration, files or stdin, outcomes."""

from __future__ import annotations

import sys
from pathlib import Path

from .config import Config, filter_excluded, find
from .discovery import discover
from .runner import Job, Outcome, display_path, process, run
from ..text.sources import FileProblem, decode

STDIN = Path("-")


def reads_stdin(paths) -> bool:
    return STDIN in paths


def config_for(paths, stdin_filename: str | None) -> Config:
    if reads_stdin(paths):
        return find([], Path(stdin_filename).absolute().parent if stdin_filename else Path.cwd())
    return find(list(paths))


def outcomes(paths, job: Job, jobs: int, config: Config, force_exclude: bool, ui, stdin_filename=None):
    """(files, outcomes); files is [] for stdin."""
    if reads_stdin(paths):
        return [], _stdin_outcomes(job, config, force_exclude, stdin_filename)
    skipped: list[str] = []
    refused: list[tuple[Path, str]] = []
    files = filter_excluded(discover(list(paths), skipped, refused), list(paths), config, force_exclude)
    refused = [(p, why) for p, why in refused if not (force_exclude and config.excluded(p))]
    for line in skipped:  # symlink loops, pipes, devices in a folder: named, never opened
        ui.problem(line)
    if not files and not refused:
        # Nothing to do is exit 0, as for Ruff; said, so that a CI job pointed at the wrong
        # folder does not pass in silence.
        ui.say(f"warning: no Python file to process in {', '.join(display_path(p) for p in paths)}: nothing to do")
    with ui.progress(files) as (tick, stage):
        done = run(files, job, jobs, tick, stage)
    # Named on the command line yet no file to read: an error of its own (exit 2); the rest ran.
    done += [Outcome(display_path(p), error=f"{display_path(p)}: {why}: named on the command line, but there is "
                     "no file to read; not processed") for p, why in refused]
    return files, done


def _stdin_outcomes(job: Job, config: Config, force_exclude: bool, name: str | None) -> list[Outcome]:
    data = sys.stdin.buffer.read()
    display = display_path(Path(name)) if name else "-"
    try:
        text = decode(data)
    except FileProblem as exc:
        return [Outcome(display, error=f"{display}:{exc.line}:{exc.column}: {exc.message}", output=data.decode("utf-8", "replace"))]
    if name and force_exclude and config.excluded(Path(name)):
        return [Outcome(display, output=text)]  # excluded: passed through untouched, as Ruff does
    return [process(Path(name) if name else STDIN, job, text=text, display=display)]
