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
    files = filter_excluded(discover(list(paths), skipped), list(paths), config, force_exclude)
    for line in skipped:  # symlink loops, pipes, devices: named, never opened
        ui.problem(line)
    with ui.progress(files) as (done, stage):
        return files, run(files, job, jobs, done, stage)


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
