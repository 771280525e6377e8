"""The `pypto-migrate` command line: run, check (for CI), verify, report, rules."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from . import __version__, exits
from .config import ConfigError
from .console import COLORS, Ui, make_console as _console, write_stdout as _stdout
from .discovery import discover
from .formats import FORMATS
from .rulebook import RuleFileError, Rule, load_rules, select_rules
from .runner import Job, run, summarize


class Fatal(click.ClickException):
    """Exit 2 with the message alone, so that a `path:line:col:` message starts its line."""

    exit_code = exits.FAILED

    def show(self, file=None) -> None:
        click.echo(self.format_message(), err=True)


def _split(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _load(select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), config=None) -> tuple[Rule, ...]:
    """The rules chosen on the command line, else by the configuration."""
    try:
        return select_rules(load_rules(), _split(select), _split(ignore))
    except RuleFileError as exc:
        raise Fatal(f"broken rule file: {exc}")
    except ValueError as exc:
        if config is not None and config.path is not None:
            raise Fatal(f"{config.path}: [tool.pypto-migrate]: {exc}")
        raise click.UsageError(str(exc))


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


def _settings(sets, inputs, seed=0, poison="garbage", defaults=None):
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
    extra = {} if defaults is None else {"defaults": (defaults.sets, defaults.inputs)}
    return Settings(pairs, bounds, seed, poison, **extra)


size_options = [
    click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Override a module constant or builder parameter (for --verify and --compile)."),
    click.option("--input", "inputs", multiple=True, metavar="NAME=LOW:HIGH", help="Bounds of an input's random values."),
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
optional_paths = click.argument("paths", nargs=-1, type=click.Path(exists=True, allow_dash=True, path_type=Path))


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


output_options = [
    click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", metavar="FORMAT",
                 help="text (default) for people (diff on stdout, problems on stderr), or on stdout: json, sarif (2.1.0, "
                      "for code scanning), github (workflow annotations)."),
    click.option("--exit-zero", is_flag=True, help="Exit 0 where the exit code would be 1 (report-only jobs); 2 stays 2."),
    click.option("--quiet", "-q", is_flag=True, help="Print only the path:line:col: problem lines on stderr."),
    click.option("--verbose", "-v", is_flag=True, help="Also one line per file with its state and time."),
    click.option("--color", type=click.Choice(COLORS), default="auto", metavar="WHEN",
                 help="auto (default), always or never: colour the diff and problems; auto means on a "
                      "terminal, unless NO_COLOR is set."),
    click.option("--stdin-filename", metavar="NAME", help="With PATH `-`: the name of the source read from stdin "
                 "(for messages and to find the configuration)."),
    click.option("--force-exclude", is_flag=True, help="Apply the configuration's exclude also to files named on "
                 "the command line (as pre-commit names them)."),
]


def _prepare(paths, select, ignore, sets, inputs, stdin_filename, verify=False):
    """The configuration, the rules, the sizes: the command line over [tool.pypto-migrate]."""
    from .invocation import config_for, reads_stdin

    if reads_stdin(paths) and len(paths) > 1:
        raise click.UsageError("`-` (stdin) cannot be combined with other paths")
    try:
        config = config_for(paths, stdin_filename)
    except ConfigError as exc:
        raise Fatal(str(exc))
    from_config = (not select and config.select) or (not ignore and config.ignore)
    rules = _load(select or config.select, ignore or config.ignore, config if from_config else None)
    narrowed = bool(select or ignore or config.select or config.ignore)
    settings = _settings(sets, inputs, defaults=config) if verify else None
    return config, rules, narrowed, settings


@main.command("run", epilog=exits.RUN)
@optional_paths
@click.option("--write", is_flag=True, help="Apply the changes in place (default: print the diff). With `-`, print "
              "the migrated source on stdout.")
@click.option("--diff-file", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Also write the diff to FILE.")
@click.option("--verify", is_flag=True, help="Run each migrated kernel against its original; never write one that fails.")
@click.option("--interactive", "-i", is_flag=True, help="Review the migration hunk by hunk and write the hunks you accept.")
@compile_option
@_with(size_options)
@_with(selection)
@_with(output_options)
def run_command(paths, write, diff_file, verify, interactive, stage, sets, inputs, select, ignore, jobs,
                fmt, exit_zero, quiet, verbose, color, stdin_filename, force_exclude) -> None:
    """Migrate PATH... : print a unified diff (dry run) or, with --write, apply it. PATH `-` reads stdin.

    With --compile, a file the compiler rejects is not written, unless every rejection is on a
    statement a `# pypto-migrate: review` marker flags."""
    from .formats import finish
    from .invocation import outcomes as migrate_all, reads_stdin

    stage, paths = _compile_stage(stage, paths)
    config, rules, narrowed, settings = _prepare(paths, select, ignore, sets, inputs, stdin_filename, verify)
    stdin = reads_stdin(paths)
    if stdin and (interactive or (write and fmt != "text")):
        raise click.UsageError("with `-`, --write prints the migrated source: use --format text; --interactive needs files")
    ui = Ui.make(quiet, verbose, color)
    job = Job(tuple(r.id for r in rules), write=write and not interactive, strict=not narrowed, verify=settings,
              compile=None if interactive else stage, compile_sets=_settings(sets, inputs).sets, size_defaults=config.sets)
    files, outcomes = migrate_all(paths, job, jobs, config, force_exclude, ui, stdin_filename)
    if interactive:
        from .formats import text_report

        text_report(ui, outcomes)
        sys.exit(_interactive(files, outcomes, job))
    if diff_file is not None:
        diff_file.write_text("".join(o.diff for o in outcomes), encoding="utf-8", newline="")
    sys.exit(finish(ui, fmt, outcomes, rules, "run", write, exit_zero, stdin))


@main.command("check", epilog=exits.CHECK)
@optional_paths
@compile_option
@_with(selection)
@_with(output_options)
def check_command(paths, stage, select, ignore, jobs, fmt, exit_zero, quiet, verbose, color, stdin_filename, force_exclude) -> None:
    """Exit 1 if any file would change or needs a person (for CI); writes nothing. PATH `-` reads stdin."""
    from .formats import finish
    from .invocation import outcomes as migrate_all, reads_stdin

    stage, paths = _compile_stage(stage, paths)
    config, rules, narrowed, _ = _prepare(paths, select, ignore, (), (), stdin_filename)
    ui = Ui.make(quiet, verbose, color)
    job = Job(tuple(r.id for r in rules), strict=not narrowed, compile=stage, size_defaults=config.sets)
    _, outcomes = migrate_all(paths, job, jobs, config, force_exclude, ui, stdin_filename)
    sys.exit(finish(ui, fmt, outcomes, rules, "check", exit_zero=exit_zero, stdin=reads_stdin(paths)))


@main.command("report", epilog=exits.REPORT)
@paths_argument
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def report_command(paths, fmt) -> None:
    """Each kernel's Vec/Mat/Left/Right/Acc needs against the 910B limits, and each file's scopes."""
    import json

    from .report import report_paths
    from .rulebook import load_api

    reports, errors = report_paths(discover(list(paths)), load_api())
    for error in errors:
        _console().print(_error_line(error))
    if fmt == "json":
        _stdout(json.dumps([r for rep in reports for r in rep.records()], indent=2) + "\n")
    else:
        _stdout("\n\n".join(rep.text() for rep in reports if rep.kernels or rep.scopes) + "\n")
    sys.exit(exits.FAILED if errors else exits.CLEAN)


def _error_line(error: str) -> str:
    """`path:line:col: message` as `path:line:col: error: message` (1:1 for a whole file)."""
    from .formats import one_line

    m = re.match(r"(.*?):(\d+):(\d+): (.*)", error, re.S) or re.match(r"(.*?): ()()(.*)", error, re.S)
    return f"{m.group(1)}:{m.group(2) or 1}:{m.group(3) or 1}: error: {one_line(m.group(4))}" if m else error


@main.command("verify", epilog=exits.VERIFY)
@click.argument("original", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("migrated", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_with(size_options)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the inputs and of uninitialised memory.")
@click.option("--poison", type=click.Choice(["garbage", "nan", "zero"]), default="garbage", show_default=True,
              help="What uninitialised memory holds: finite garbage, NaN (shows fragile zero-inits), or zeros "
                   "(for kernels whose results depend on it).")
def verify_command(original, migrated, sets, inputs, seed, poison) -> None:
    """Run ORIGINAL (old API) and MIGRATED (2026-03 API) on the same inputs and compare.

    Exit 3 means: equivalent where the original's valid_shape masking still applies, different
    only in rows it never wrote. Sizes: --set/--input over the file's own `# pypto-migrate: verify`
    line over [tool.pypto-migrate] set/input."""
    from .config import find
    from .interp.verify import verify
    from .rulebook import load_api
    from .runner import display_path
    from .sources import FileProblem, read_text

    texts = []
    for path in (original, migrated):
        try:
            texts.append((display_path(path), read_text(path)))
        except FileProblem as exc:
            raise Fatal(f"{display_path(path)}:{exc.line or 1}:{exc.column or 1}: error: {exc.message}")
    try:
        config = find([original, migrated])
    except ConfigError as exc:
        raise Fatal(str(exc))
    verdict = verify(texts[0], texts[1], _settings(sets, inputs, seed, poison, defaults=config), load_api())
    _stdout(verdict.message + "\n")
    sys.exit(verdict.code)


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
            table.add_row(*(Text(cell) for cell in (r.id, r.name, r.safety, r.summary)))
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

