"""The command line's shared pieces: option groups, the exit-2 error, and what every command
does before it runs (configuration, rule choice, discovery, the compiler's Python)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import exits
from ..run.config import ConfigError
from .console import COLORS, make_console as _console
from ..run.discovery import discover
from ..text.sources import display_path
from .problems import FORMATS
from ..rulebook.loading import Chosen, RuleFileError, choose_rules, load_rules, rule_files


class Fatal(click.ClickException):
    """Exit 2 with the message alone, so that a `path:line:col:` message starts its line."""

    exit_code = exits.FAILED

    def show(self, file=None) -> None:
        click.echo(self.format_message(), err=True)


def _split(values: tuple[str, ...]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def load_selected(select: tuple[str, ...] = (), ignore: tuple[str, ...] = (), config=None) -> Chosen:
    """The rules chosen on the command line, else by the configuration; without a choice
    every rule, of which none is read yet (`rules_through` reads those a run needs)."""
    select_keys, ignore_keys = _split(select), _split(ignore)
    try:
        if not select_keys and not ignore_keys:
            return Chosen(tuple(f.id for f in rule_files()))
        chosen = choose_rules(load_rules(), select_keys, ignore_keys)
    except RuleFileError as exc:
        raise Fatal(f"broken rule file: {exc}")
    except ValueError as exc:
        if config is not None and config.path is not None:
            raise Fatal(f"{config.path}: [tool.pypto-migrate]: {exc}")
        raise click.UsageError(str(exc))
    for note in chosen.notes:
        _console().print(f"note: {note}", markup=False)
    return Chosen(tuple(r.id for r in chosen.rules))


def rules_through(target: str) -> None:
    """Read the rules of the steps up to the target before any file: a broken rule file is
    said once, as what stops the run, not as every file's internal error."""
    try:
        load_rules(through=target)
    except RuleFileError as exc:
        raise Fatal(f"broken rule file: {exc}")


def discover_paths(paths) -> tuple[list[Path], list[str]]:
    """The files to read, and `path: why` for each path named that is no file to read (an error)."""
    skipped: list[str] = []
    refused: list[tuple[Path, str]] = []
    files = discover(list(paths), skipped, refused)
    for line in skipped:
        _console().print(line, markup=False)
    if not files and not refused:
        _console().print(f"warning: no Python file to read in {', '.join(display_path(p) for p in paths)}: "
                         "nothing to report", markup=False)
    return files, [f"{display_path(p)}: {why}: named on the command line, but there is no file to read" for p, why in refused]


selection = [
    click.option("--select", multiple=True, metavar="RULE[,RULE...]", help="Only these rules (id or name)."),
    click.option("--ignore", multiple=True, metavar="RULE[,RULE...]", help="Not these rules (id or name)."),
    click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores", help="Worker processes."),
]


def with_options(options):
    def decorate(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn

    return decorate


def settings_from(sets, inputs, seed=0, poison="garbage", defaults=None):
    from ..interp.execute import Settings, parse_input
    from ..interp.sources import SetupError

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


def _size(ctx, param, value):
    from ..text.sources import parse_size

    try:
        return parse_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc))


def cache_dir(no_cache: bool):
    if no_cache:
        return None  # the cache's module (and its hashing) is not even loaded
    from ..run.cache import default_dir

    return default_dir()


# Speed and memory: results kept between runs, and a bound on what one file may cost.
run_options = [
    click.option("--no-cache", is_flag=True, help="Neither read nor keep results in .pypto-migrate-cache/."),
    click.option("--max-file-size", default="2MB", show_default=True, metavar="SIZE", callback=_size,
                 help="Report and skip bigger files (0: no limit); a migration takes about 1 GB of memory per MB."),
]


class _Existing(click.Path):
    """An existing path; a symlink loop or a broken link too, which discovery skips with the reason."""

    def convert(self, value, param, ctx):
        if os.path.islink(value) and not os.path.exists(value):
            return Path(value)
        return super().convert(value, param, ctx)


paths_argument = click.argument("paths", nargs=-1, required=True, type=_Existing(exists=True, path_type=Path))


class _Stage(click.ParamType):
    """parse | passes; a bare `--compile` followed by a path takes that path back as a PATH."""

    name = "stage"

    def convert(self, value, param, ctx):
        from ..compiler.bridge import STAGES

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
compile_options = [
    compile_option,
    click.option("--compiler-python", type=click.Path(dir_okay=False, path_type=str), default=None, metavar="PATH",
                 help="The Python whose pypto --compile runs (default: $PYPTO_PYTHON, else compiler-python in "
                      "[tool.pypto-migrate], else the tool's own): the two compilers cannot share an environment."),
]
# `--compile PATH` hands the path to the option; PATHS is therefore checked by hand.
optional_paths = click.argument("paths", nargs=-1, type=_Existing(exists=True, allow_dash=True, path_type=Path))


def compile_stage(stage, paths) -> tuple[str | None, tuple[Path, ...]]:
    if isinstance(stage, tuple):
        stage, path = stage
        paths = (path, *paths)
    if not paths:
        raise click.UsageError("Missing argument 'PATHS...'.")
    return stage, paths


def compiler_for(stage, target, python, config) -> str | None:
    """The Python of --compile (None: ours); exit 2 with one line unless that Python's pypto
    is the target's."""
    from ..compiler.installed import compiler_python

    python = compiler_python(python, config.compiler_python)
    python = None if python == sys.executable else python
    if stage is not None:
        from ..compiler.bridge import CompilerMismatch, CompilerUnavailable, probe, unavailable_message

        try:
            probe(target=target, python=python)
        except CompilerUnavailable as exc:
            _console().print(f"error: {unavailable_message(str(exc), python, target)}")
            sys.exit(2)
        except CompilerMismatch as exc:
            _console().print(f"error: {exc}")
            sys.exit(2)
    return python


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


def prepare(paths, select, ignore, sets, inputs, stdin_filename, verify=False):
    """The configuration, the rules, the sizes: the command line over [tool.pypto-migrate]."""
    from ..run.invocation import config_for, reads_stdin

    if reads_stdin(paths) and len(paths) > 1:
        raise click.UsageError("`-` (stdin) cannot be combined with other paths")
    try:
        config = config_for(paths, stdin_filename)
    except ConfigError as exc:
        raise Fatal(str(exc))
    from_config = (not select and config.select) or (not ignore and config.ignore)
    rules = load_selected(select or config.select, ignore or config.ignore, config if from_config else None)
    narrowed = bool(select or ignore or config.select or config.ignore)
    settings = settings_from(sets, inputs, defaults=config) if verify else None
    return config, rules, narrowed, settings
