"""The `pypto-migrate` command line: run, check (for CI), verify, report, rules."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import click

from .. import __version__
from . import exits
from ..run.config import ConfigError
from .console import COLORS, Ui, make_console as _console, write_stdout as _stdout
from ..run.discovery import discover
from .formats import FORMATS
from ..rulebook.loading import RuleFileError, Rule, choose_rules, load_rules
from ..run.runner import Job
from .versions import version_options, chosen_steps as _steps


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
        chosen = choose_rules(load_rules(), _split(select), _split(ignore))
    except RuleFileError as exc:
        raise Fatal(f"broken rule file: {exc}")
    except ValueError as exc:
        if config is not None and config.path is not None:
            raise Fatal(f"{config.path}: [tool.pypto-migrate]: {exc}")
        raise click.UsageError(str(exc))
    for note in chosen.notes:
        _console().print(f"note: {note}", markup=False)
    return chosen.rules


def _discover(paths) -> list[Path]:
    skipped: list[str] = []
    files = discover(list(paths), skipped)
    for line in skipped:
        _console().print(line, markup=False)
    return files


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
    from ..interp.execute import Settings, SetupError, parse_input

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


def _cache_dir(no_cache: bool):
    from ..run.cache import default_dir

    return None if no_cache else default_dir()


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


def _compile_stage(stage, paths) -> tuple[str | None, tuple[Path, ...]]:
    if isinstance(stage, tuple):
        stage, path = stage
        paths = (path, *paths)
    if not paths:
        raise click.UsageError("Missing argument 'PATHS...'.")
    return stage, paths


def _compiler(stage, target, python, config) -> str | None:
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
    from ..run.invocation import config_for, reads_stdin

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
@_with(compile_options)
@_with(size_options)
@_with(selection)
@_with(version_options)
@_with(output_options)
@_with(run_options)
def run_command(paths, write, diff_file, verify, interactive, stage, compiler_python, sets, inputs, select, ignore, jobs,
                target, start, fmt, exit_zero, quiet, verbose, color, stdin_filename, force_exclude, no_cache,
                max_file_size) -> None:
    """Migrate PATH... : print a unified diff (dry run) or, with --write, apply it. PATH `-` reads stdin.

    With --compile, a file the compiler rejects is not written, unless every rejection is on a
    statement a `# pypto-migrate: review` marker flags."""
    from .formats import finish
    from ..run.invocation import outcomes as migrate_all, reads_stdin

    stage, paths = _compile_stage(stage, paths)
    config, rules, narrowed, settings = _prepare(paths, select, ignore, sets, inputs, stdin_filename, verify)
    target, start = _steps(target, start, config)
    compiler_python = _compiler(stage, target, compiler_python, config)
    stdin = reads_stdin(paths)
    if stdin and (interactive or (write and fmt != "text")):
        raise click.UsageError("with `-`, --write prints the migrated source: use --format text; --interactive needs files")
    ui = Ui.make(quiet, verbose, color)
    job = Job(tuple(r.id for r in rules), write=write and not interactive, strict=not narrowed, verify=settings,
              compile=None if interactive else stage, compile_sets=_settings(sets, inputs).sets if stage or sets or inputs else {},
              compiler_python=compiler_python, size_defaults=config.sets,
              max_file_size=max_file_size, cache_dir=_cache_dir(no_cache), target=target, start=start)
    diff_out = _diff_file(diff_file, paths) if diff_file is not None else None  # before anything is written
    files, outcomes = migrate_all(paths, job, jobs, config, force_exclude, ui, stdin_filename)
    if diff_out is not None:
        with diff_out:
            diff_out.write("".join(o.diff for o in outcomes))
    if interactive:
        from .formats import text_report
        from .review import interactive as review

        text_report(ui, outcomes)
        sys.exit(review(files, outcomes, job))
    sys.exit(finish(ui, fmt, outcomes, rules, "run", write, exit_zero, stdin))


@main.command("check", epilog=exits.CHECK)
@optional_paths
@_with(compile_options)
@_with(selection)
@_with(version_options)
@_with(output_options)
@_with(run_options)
def check_command(paths, stage, compiler_python, select, ignore, jobs, target, start, fmt, exit_zero, quiet, verbose, color,
                  stdin_filename, force_exclude, no_cache, max_file_size) -> None:
    """Exit 1 if any file would change or needs a person (for CI); writes nothing. PATH `-` reads stdin."""
    from .formats import finish
    from ..run.invocation import outcomes as migrate_all, reads_stdin

    stage, paths = _compile_stage(stage, paths)
    config, rules, narrowed, _ = _prepare(paths, select, ignore, (), (), stdin_filename)
    target, start = _steps(target, start, config)
    compiler_python = _compiler(stage, target, compiler_python, config)
    ui = Ui.make(quiet, verbose, color)
    job = Job(tuple(r.id for r in rules), strict=not narrowed, compile=stage, compiler_python=compiler_python,
              size_defaults=config.sets, max_file_size=max_file_size, cache_dir=_cache_dir(no_cache), target=target,
              start=start)
    _, outcomes = migrate_all(paths, job, jobs, config, force_exclude, ui, stdin_filename)
    sys.exit(finish(ui, fmt, outcomes, rules, "check", exit_zero=exit_zero, stdin=reads_stdin(paths)))


@main.command("report", epilog=exits.REPORT)
@paths_argument
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def report_command(paths, fmt) -> None:
    """Each kernel's Vec/Mat/Left/Right/Acc needs against the 910B limits, and each file's scopes."""
    import json

    from ..migrate.report import report_paths
    from ..rulebook.loading import load_api

    reports, errors = report_paths(_discover(paths), load_api())
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
@click.option("--target", "verify_target", type=click.Choice(["2026-03", "2026-08"]), default="2026-03", show_default=True,
              help="The pypto version whose meaning MIGRATED is run with (subscripts, `not`, output parameters).")
def verify_command(original, migrated, sets, inputs, seed, poison, verify_target) -> None:
    """Run ORIGINAL (old API) and MIGRATED (the --target API) on the same inputs and compare.

    Exit 3 means: equivalent where the original's valid_shape masking still applies, different
    only in rows it never wrote. Sizes: --set/--input over the file's own `# pypto-migrate: verify`
    line over [tool.pypto-migrate] set/input."""
    from ..run.config import find
    from ..interp.verify import verify
    from ..rulebook.loading import load_api
    from ..text.sources import FileProblem, display_path, read_text

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
    verdict = verify(texts[0], texts[1], _settings(sets, inputs, seed, poison, defaults=config), load_api(), verify_target)
    _stdout(verdict.message + "\n")
    sys.exit(verdict.code)


@main.group("cache")
def cache_group() -> None:
    """The results kept between runs (.pypto-migrate-cache/ at the project root)."""


@cache_group.command("clean")
def cache_clean_command() -> None:
    """Remove the cache of the project around the current folder."""
    from ..run.cache import clean, default_dir

    folder = default_dir()
    try:
        removed = clean(folder)
    except OSError as exc:
        raise Fatal(f"{folder}: {exc}")
    click.echo(f"removed {folder}" if removed else f"no cache at {folder}", err=True)


@main.command("rules")
@click.argument("rule", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help="markdown: the rule table of docs/rules.md.")
def rules_command(rule: str | None, fmt: str) -> None:
    """List the rules, or show one rule's documentation (id or name, any case) and examples."""
    from .ruledocs import find, listing, markdown_table, render

    rules = _load()
    if rule is None:
        _stdout(markdown_table(rules) if fmt == "markdown" else listing(rules))
        return
    chosen = find(rules, rule)
    if chosen is None:
        _load((rule,))  # the usage error that lists the known rules
    _stdout(render(chosen))


def _diff_file(diff_file: Path, paths):
    """Refuse a diff file that is an input; create it before anything is written."""
    from ..run.patches import clashing_input, open_diff_file

    clash = clashing_input(diff_file, list(paths))
    if clash:
        raise click.UsageError(f"--diff-file: {clash}; it would be overwritten by its own diff. Choose another path.")
    try:
        return open_diff_file(diff_file)
    except OSError as exc:
        raise click.UsageError(f"--diff-file: cannot create {diff_file}: {exc.strerror or exc}")


@main.command("apply")
@click.argument("patch", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--check", is_flag=True, help="Only say which files would be applied and which refused; write nothing.")
def apply_command(patch, check) -> None:
    """Apply PATCH, a diff as `run` prints it (possibly edited by hand), file by file, atomically.

    A file changed since the patch was made is refused with the first line that differs; the
    others are still applied. Exit 0 all applied, 1 some refused, 2 PATCH unreadable."""
    from ..run.patches import PatchError, apply_patch
    from ..text.sources import FileProblem, read_text

    try:
        results = apply_patch(read_text(patch), check=check)
    except (PatchError, FileProblem) as exc:
        _console().print(f"error: {patch}: {exc}", markup=False)
        sys.exit(2)
    for r in results:
        _console().print(f"{r.display}: {('would apply' if check else 'applied') if r.written else 'refused, ' + r.reason}", markup=False)
    refused = sum(not r.written for r in results)
    verb = "would be applied" if check else "applied"
    _console().print(f"{len(results) - refused} of {len(results)} file{'s' * (len(results) != 1)} {verb}, {refused} refused", markup=False)
    sys.exit(1 if refused else 0)

