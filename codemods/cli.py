"""The `pypto-migrate` command line: run, check (for CI), verify, report, rules."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from . import __version__
from .discovery import discover
from .rulebook import RuleFileError, Rule, load_rules, select_rules
from .runner import Job, Outcome, Summary, run, summarize


def _console(stream=None) -> Console:
    stream = stream or sys.stderr
    # Off a terminal rich would wrap at 80 columns and split the lines CI logs are grepped for.
    width = None if stream.isatty() else 200
    return Console(file=stream, highlight=False, soft_wrap=True, width=width, emoji=False)


def _split(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _load(select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> tuple[Rule, ...]:
    try:
        return select_rules(load_rules(), _split(select), _split(ignore))
    except RuleFileError as exc:
        raise click.ClickException(f"broken rule file: {exc}")
    except ValueError as exc:
        raise click.UsageError(str(exc))


def _report(outcomes: list[Outcome]) -> None:
    """Problems and flagged lines on stderr, one `path:line:col: ...` line each."""
    err = _console()
    for o in outcomes:
        if o.error:
            err.print(f"error: {o.error}")
        for note in o.notes:
            err.print(f"{o.display}: {note}")
        findings = [(f.line, f.column, "error" if f.level == "error" else "review", f.rule, f.message) for f in o.findings]
        if o.compiled is not None:
            findings += [(e.line, e.column, "error", "COMPILE", e.message) for e in o.compiled.errors]
        for line, column, label, rule, message in sorted(findings, key=lambda f: (f[0], f[1])):
            err.print(f"{o.display}:{line}:{column}: {label} {rule}: {message}")
        if o.compiled is not None:
            _compile_report(err, o)


def _compile_report(err: Console, o: Outcome) -> None:
    from .compile_report import memory_lines, pair_kernels

    c = o.compiled
    for p in c.structure:
        err.print(f"{o.display}: error COMPILE: structure: {p.message}")
    for note in c.notes:
        err.print(f"{o.display}: compile: {note}")
    if c.skipped:
        err.print(f"{o.display}: compile: skipped, {c.skipped}")
    if c.memory or o.capacity:
        sizes = f" (sizes: {' '.join(f'{k}={v}' for k, v in c.sets.items())})" if c.sets else ""
        err.print(f"{o.display}: compiler memory report beside the tool's capacity figures{sizes}:")
        for line in memory_lines(*pair_kernels(o.capacity or [], c.memory)):
            err.print(line)


def _rule_table(summary: Summary, rules: tuple[Rule, ...]) -> None:
    if not summary.per_rule:
        return
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    for column in ("rule", "name", "safety", "edits", "files"):
        table.add_column(column, justify="right" if column in ("edits", "files") else "left")
    for rule in rules:
        if summary.per_rule[rule.id]:
            table.add_row(rule.id, rule.name, rule.safety, str(summary.per_rule[rule.id]), str(summary.files_per_rule[rule.id]))
    _console().print(table)


selection = [
    click.option("--select", multiple=True, metavar="RULE[,RULE...]", help="Only these rules (id or name)."),
    click.option("--ignore", multiple=True, metavar="RULE[,RULE...]", help="Not these rules (id or name)."),
    click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores", help="Worker processes."),
]


def _with(options):
    def decorate(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def _settings(sets, inputs, seed=0, poison="garbage"):
    from .interp.execute import Settings, SetupError, parse_input

    bounds = {}
    for text in inputs:
        try:
            name, b = parse_input(text)
        except SetupError as exc:
            raise click.UsageError(str(exc))
        bounds[name] = b
    pairs = {}
    for text in sets:
        name, eq, value = text.partition("=")
        if not eq or not name:
            raise click.UsageError(f"--set {text!r}: expected NAME=VALUE")
        pairs[name] = value
    return Settings(pairs, bounds, seed, poison)


size_options = [
    click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Override a module constant or builder parameter (for --verify and --compile)."),
    click.option("--input", "inputs", multiple=True, metavar="NAME=LOW:HIGH", help="Bounds of an input's random values."),
]


def _size(ctx, param, value):
    from .sources import parse_size

    try:
        return parse_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc))


def _cache_dir(no_cache: bool):
    from .cache import default_dir

    return None if no_cache else default_dir()


# Speed and memory: results kept between runs, and a bound on what one file may cost.
run_options = [
    click.option("--no-cache", is_flag=True, help="Neither read nor keep results in .pypto-migrate-cache/."),
    click.option("--max-file-size", default="2MB", show_default=True, metavar="SIZE", callback=_size,
                 help="Report and skip bigger files (0: no limit); a migration takes about 1 GB of memory per MB."),
]


paths_argument = click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path)
)


class _Stage(click.ParamType):
    """parse | passes; a bare `--compile` followed by a path takes that path back as a PATH."""

    name = "stage"

    def convert(self, value, param, ctx):
        from .compiler import STAGES

        if isinstance(value, (str, Path)) and str(value) in STAGES:
            return str(value)
        if Path(value).exists():
            return ("parse", Path(value))  # `--compile models/`: click read the path as the option's value
        self.fail(f"{value!r} is not one of {', '.join(STAGES)} (write --compile=STAGE)", param, ctx)


compile_option = click.option(
    "--compile", "stage", type=_Stage(), is_flag=False, flag_value="parse", default=None, metavar="[=parse|passes]",
    help="Also compile what run would write with the real pypto compiler (parse: build each program; passes: "
         "also the pass pipeline, its memory report and a structure audit). This IMPORTS each kernel module, so "
         "its module-level code runs (in a child process).",
)
# `--compile PATH` hands the path to the option; PATHS is therefore checked by hand.
optional_paths = click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))


def _compile_stage(stage, paths) -> tuple[str | None, tuple[Path, ...]]:
    if isinstance(stage, tuple):
        stage, path = stage
        paths = (path, *paths)
    if not paths:
        raise click.UsageError("Missing argument 'PATHS...'.")
    if stage is not None:
        from .compiler import CompilerUnavailable, probe, unavailable_message

        try:
            probe()
        except CompilerUnavailable as exc:
            _console().print(f"error: {unavailable_message(str(exc))}")
            sys.exit(2)
    return stage, paths


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pypto-migrate")
def main() -> None:
    """Migrate pypto kernels to the strict Tile/Tensor API of 2026-03, reviewably."""


@main.command("run")
@optional_paths
@click.option("--write", is_flag=True, help="Apply the changes in place (default: print the diff).")
@click.option("--diff-file", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Also write the diff to FILE.")
@click.option("--verify", is_flag=True, help="Run each migrated kernel against its original; never write one that fails.")
@click.option("--interactive", "-i", is_flag=True, help="Review the migration hunk by hunk and write the hunks you accept.")
@compile_option
@_with(size_options)
@_with(selection)
@_with(run_options)
def run_command(paths, write, diff_file, verify, interactive, stage, sets, inputs, select, ignore, jobs, no_cache,
                max_file_size) -> None:
    """Migrate PATH... : print a unified diff (dry run) or, with --write, apply it.

    With --compile, a file the compiler rejects is not written, unless every rejection is on a
    statement a `# pypto-migrate: review` marker flags."""
    stage, paths = _compile_stage(stage, paths)
    rules = _load(select, ignore)
    settings = _settings(sets, inputs) if verify else None
    job = Job(tuple(r.id for r in rules), write=write and not interactive, strict=not (select or ignore), verify=settings,
              compile=None if interactive else stage, compile_sets=_settings(sets, inputs).sets if stage or sets or inputs else {},
              max_file_size=max_file_size, cache_dir=_cache_dir(no_cache))
    files = discover(list(paths))
    outcomes = run(files, job, jobs)
    if interactive:
        _report(outcomes)
        sys.exit(_interactive(files, outcomes, job))
    diff = "".join(o.diff for o in outcomes)
    if diff and not write:
        _stdout(diff)
    if diff_file is not None:
        diff_file.write_text(diff, encoding="utf-8", newline="")
    _report(outcomes)
    summary = summarize(outcomes)
    _rule_table(summary, rules)
    if summary.kernels:
        _console().print(
            f"capacity: {summary.kernels} kernel region{'s' * (summary.kernels != 1)} checked against the 910B buffer limits, "
            f"{summary.over_budget} over a limit (pypto-migrate report shows the numbers)"
        )
    verb = "migrated" if write else "would be migrated"
    tail = "" if write or not summary.files_changed else " (dry run: --write applies it)"
    _console().print(summary.line(verb) + tail)
    sys.exit(1 if summary.errors or summary.compile_problems else 0)


@main.command("check")
@optional_paths
@compile_option
@_with(selection)
@_with(run_options)
def check_command(paths, stage, select, ignore, jobs, no_cache, max_file_size) -> None:
    """Exit 1 if any file would change or needs a person (for CI); writes nothing."""
    stage, paths = _compile_stage(stage, paths)
    rules = _load(select, ignore)
    job = Job(tuple(r.id for r in rules), strict=not (select or ignore), compile=stage, max_file_size=max_file_size,
              cache_dir=_cache_dir(no_cache))
    outcomes = run(discover(list(paths)), job, jobs)
    err = _console()
    for o in outcomes:
        if o.changed:
            err.print(f"{o.display}: would be migrated ({len(o.edits)} edit{'s' * (len(o.edits) != 1)})")
    _report(outcomes)
    summary = summarize(outcomes)
    err.print(summary.line("would be migrated"))
    sys.exit(1 if summary.files_changed or summary.review or summary.errors or summary.compile_problems else 0)


@main.command("report")
@paths_argument
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def report_command(paths, fmt) -> None:
    """Each kernel's Vec/Mat/Left/Right/Acc needs against the 910B limits, and each file's scopes."""
    import json

    from .report import report_paths
    from .rulebook import load_api

    reports, errors = report_paths(discover(list(paths)), load_api())
    for error in errors:
        _console().print(f"error: {error}")
    if fmt == "json":
        _stdout(json.dumps([r for rep in reports for r in rep.records()], indent=2) + "\n")
    else:
        _stdout("\n\n".join(rep.text() for rep in reports if rep.kernels or rep.scopes) + "\n")
    sys.exit(1 if errors else 0)


@main.command("verify")
@click.argument("original", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("migrated", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_with(size_options)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the inputs and of uninitialised memory.")
@click.option("--poison", type=click.Choice(["garbage", "nan", "zero"]), default="garbage", show_default=True,
              help="What uninitialised memory holds: finite garbage, NaN (shows fragile zero-inits), or zeros "
                   "(for kernels whose results depend on it).")
def verify_command(original, migrated, sets, inputs, seed, poison) -> None:
    """Run ORIGINAL (old API) and MIGRATED (2026-03 API) on the same inputs and compare.

    Exit 0 equivalent, 1 a mismatch or an execution error, 3 equivalent where the original's
    valid_shape masking still applies, different only in rows it never wrote."""
    from .interp.verify import verify
    from .rulebook import load_api
    from .runner import display_path
    from .sources import FileProblem, read_text

    try:
        texts = [(display_path(p), read_text(p)) for p in (original, migrated)]
    except FileProblem as exc:
        raise click.ClickException(exc.message)
    verdict = verify(texts[0], texts[1], _settings(sets, inputs, seed, poison), load_api())
    _stdout(verdict.message + "\n")
    sys.exit(verdict.code)


@main.group("cache")
def cache_group() -> None:
    """The results kept between runs (.pypto-migrate-cache/ at the project root)."""


@cache_group.command("clean")
def cache_clean_command() -> None:
    """Remove the cache of the project around the current folder."""
    from .cache import clean, default_dir

    folder = default_dir()
    try:
        removed = clean(folder)
    except OSError as exc:
        raise click.ClickException(str(exc))
    click.echo(f"removed {folder}" if removed else f"no cache at {folder}", err=True)


@main.command("rules")
@click.argument("rule", required=False)
def rules_command(rule: str | None) -> None:
    """List the rules, or show one rule's documentation and examples."""
    rules = _load()
    out = _console(sys.stdout)
    if rule is None:
        table = Table(box=None, pad_edge=False, header_style="bold")
        for column in ("id", "name", "safety", "summary"):
            table.add_column(column)
        for r in rules:
            table.add_row(r.id, r.name, r.safety, r.summary)
        out.print(table)
        return
    chosen = _load((rule,))[0]
    out.print(f"{chosen.id} {chosen.name} ({chosen.safety})")
    out.print(f"\n{chosen.summary}\n\nWhy:\n{chosen.why}\n")
    for i, ex in enumerate(chosen.examples, 1):
        out.print(f"Example {i}, before:\n{ex.before.strip()}\n\nafter:\n{ex.after.strip()}\n")
    for i, code in enumerate(chosen.unchanged, 1):
        out.print(f"Left unchanged {i}:\n{code.strip()}\n")


def _interactive(files, outcomes, job) -> int:
    """The reviewer's loop on a terminal: prompts with click, hunks printed as they are."""
    from .review import CHOICES, HELP, review_paths

    out = _console(sys.stdout)

    def ask():
        while (answer := click.prompt("apply? [y,n,a,d,q,?]", type=click.Choice(CHOICES + "?"), show_choices=False)) == "?":
            out.print(HELP)
        return answer

    def show(title, text):
        out.print(f"\n{title}")
        _stdout(text if text.endswith("\n") else text + "\n")

    failed = review_paths(files, outcomes, job, ask, show, out.print)
    return 1 if failed or any(o.error for o in outcomes) else 0


def _stdout(text: str) -> None:
    # Bytes, so that CRLF and non-ASCII reach a pipe exactly as they are in the files.
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        sys.stdout.flush()
        stream.write(text.encode("utf-8"))
        stream.flush()
    else:
        sys.stdout.write(text)
