"""The `pypto-migrate` command line: run, check (for CI), verify, report, rules."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from .. import __version__
from . import exits
from ..run.config import ConfigError
from .console import Ui, make_console as _console, write_stdout as _stdout
from .options import (
    Fatal, cache_dir, compile_options, compile_stage, compiler_for, discover_paths, load_selected, optional_paths,
    output_options, paths_argument, prepare, rules_through, run_options, selection, settings_from, size_options,
    with_options,
)
from ..run.runner import Job
from .versions import STEPS, version_options, chosen_steps as _steps


class _Group(click.Group):
    """Ctrl-C exits 130, as a shell reports a command SIGINT ended, and says so; click's own
    handling prints `Aborted!` and exits 1, which a script cannot tell from a finding.
    `run` and `check` catch it first, to list what was written (`formats.interrupted`)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _console().print("interrupted (Ctrl-C)", markup=False)
            sys.exit(exits.INTERRUPTED)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pypto-migrate")
def main() -> None:
    """Migrate pypto kernels to a newer pypto (the newest by default, --target pins one), reviewably."""


@main.command("run", epilog=exits.RUN)
@optional_paths
@click.option("--write", is_flag=True, help="Apply the changes in place (default: print the diff). With `-`, print "
              "the migrated source on stdout.")
@click.option("--diff-file", type=click.Path(dir_okay=False, writable=True, path_type=Path), help="Also write the diff to FILE.")
@click.option("--verify", is_flag=True, help="Run each migrated kernel against its original; never write one that fails.")
@click.option("--interactive", "-i", is_flag=True, help="Review the migration hunk by hunk and write the hunks you accept.")
@with_options(compile_options)
@with_options(size_options)
@with_options(selection)
@with_options(version_options)
@with_options(output_options)
@with_options(run_options)
def run_command(paths, write, diff_file, verify, interactive, stage, compiler_python, sets, inputs, select, ignore, jobs,
                target, start, fmt, exit_zero, quiet, verbose, color, stdin_filename, force_exclude, no_cache,
                max_file_size) -> None:
    """Migrate PATH... : print a unified diff (dry run) or, with --write, apply it. PATH `-` reads stdin.

    With --compile, a file the compiler rejects is not written, unless every rejection is on a
    statement a `# pypto-migrate: review` marker flags."""
    from .formats import finish, interrupted
    from ..run.interrupt import Interrupted
    from ..run.invocation import outcomes as migrate_all, reads_stdin

    stage, paths = compile_stage(stage, paths)
    config, rules, narrowed, settings = prepare(paths, select, ignore, sets, inputs, stdin_filename, verify)
    target, start = _steps(target, start, config)
    rules_through(target)
    compiler_python = compiler_for(stage, target, compiler_python, config)
    stdin = reads_stdin(paths)
    if stdin and (interactive or (write and fmt != "text")):
        raise click.UsageError("with `-`, --write prints the migrated source: use --format text; --interactive needs files")
    ui = Ui.make(quiet, verbose, color)
    job = Job(rules.ids, write=write and not interactive, strict=not narrowed, verify=settings,
              compile=None if interactive else stage, compile_sets=settings_from(sets, inputs).sets if stage or sets or inputs else {},
              compiler_python=compiler_python, size_defaults=config.sets,
              max_file_size=max_file_size, cache_dir=cache_dir(no_cache), target=target, start=start)
    diff_out = _diff_file(diff_file, paths) if diff_file is not None else None  # before anything is written
    try:
        files, outcomes = migrate_all(paths, job, jobs, config, force_exclude, ui, stdin_filename)
    except Interrupted as stop:
        sys.exit(interrupted(ui, stop))
    if diff_out is not None:
        with diff_out:
            diff_out.write("".join(o.diff for o in outcomes))
    if interactive:
        from .formats import text_report
        from .review import interactive as review

        text_report(ui, outcomes)
        sys.exit(review(files, outcomes, job))
    sys.exit(finish(ui, fmt, outcomes, rules, "run", write, exit_zero, stdin, target=target))


@main.command("check", epilog=exits.CHECK)
@optional_paths
@with_options(compile_options)
@with_options(selection)
@with_options(version_options)
@with_options(output_options)
@with_options(run_options)
def check_command(paths, stage, compiler_python, select, ignore, jobs, target, start, fmt, exit_zero, quiet, verbose, color,
                  stdin_filename, force_exclude, no_cache, max_file_size) -> None:
    """Exit 1 if any file would change or needs a person (for CI); writes nothing. PATH `-` reads stdin."""
    from .formats import finish, interrupted
    from ..run.interrupt import Interrupted
    from ..run.invocation import outcomes as migrate_all, reads_stdin

    stage, paths = compile_stage(stage, paths)
    config, rules, narrowed, _ = prepare(paths, select, ignore, (), (), stdin_filename)
    target, start = _steps(target, start, config)
    rules_through(target)
    compiler_python = compiler_for(stage, target, compiler_python, config)
    ui = Ui.make(quiet, verbose, color)
    job = Job(rules.ids, strict=not narrowed, compile=stage, compiler_python=compiler_python,
              size_defaults=config.sets, max_file_size=max_file_size, cache_dir=cache_dir(no_cache), target=target,
              start=start)
    try:
        _, outcomes = migrate_all(paths, job, jobs, config, force_exclude, ui, stdin_filename)
    except Interrupted as stop:
        sys.exit(interrupted(ui, stop))
    sys.exit(finish(ui, fmt, outcomes, rules, "check", exit_zero=exit_zero, stdin=reads_stdin(paths), target=target))


@main.command("report", epilog=exits.REPORT)
@paths_argument
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--target", "report_target", type=click.Choice(STEPS), default=None,
              help="The pypto version whose buffer limits the needs are held against (default: the newest).")
def report_command(paths, fmt, report_target) -> None:
    """Each kernel's Vec/Mat/Left/Right/Acc needs against the 910B limits, and each file's scopes."""
    import dataclasses
    import json

    from ..migrate.report import report_paths
    from ..rulebook.loading import load_api, newest_step, oldest_step

    # The buffer figures are the planner's, the model of the oldest step's compiler; the limits
    # are the target's (e2d0f78ae has 8 KB less Vec than c39).
    limits = load_api(None, report_target or newest_step()).memory_limits
    files, refused = discover_paths(paths)
    reports, errors = report_paths(files, dataclasses.replace(load_api(None, oldest_step()), memory_limits=limits))
    errors += refused
    for error in errors:
        _console().print(_error_line(error))
    if reports and not any(rep.kernels or rep.scopes for rep in reports):
        _console().print(f"note: no kernel in the {len(reports)} file{'s' * (len(reports) != 1)} read: nothing to report",
                         markup=False)
    if fmt == "json":
        _stdout(json.dumps([r for rep in reports for r in rep.records()], indent=2) + "\n")
    else:
        _stdout("\n\n".join(rep.text() for rep in reports if rep.kernels or rep.scopes) + "\n")
    sys.exit(exits.FAILED if errors else exits.CLEAN)


def _error_line(error: str) -> str:
    """`path:line:col: message` as `path:line:col: error: message` (1:1 for a whole file)."""
    from .problems import one_line

    m = re.match(r"(.*?):(\d+):(\d+): (.*)", error, re.S) or re.match(r"(.*?): ()()(.*)", error, re.S)
    return f"{m.group(1)}:{m.group(2) or 1}:{m.group(3) or 1}: error: {one_line(m.group(4))}" if m else error


@main.command("verify", epilog=exits.VERIFY)
@click.argument("original", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("migrated", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@with_options(size_options)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the inputs and of uninitialised memory.")
@click.option("--poison", type=click.Choice(["garbage", "nan", "zero"]), default="garbage", show_default=True,
              help="What uninitialised memory holds: finite garbage, NaN (shows fragile zero-inits), or zeros "
                   "(for kernels whose results depend on it).")
@click.option("--target", "verify_target", type=click.Choice(STEPS), default=None,
              help="The pypto version whose meaning MIGRATED is run with (subscripts, `not`, output parameters); "
                   "default: the newest version that has every pl name MIGRATED uses.")
def verify_command(original, migrated, sets, inputs, seed, poison, verify_target) -> None:
    """Run ORIGINAL (old API) and MIGRATED (the --target API) on the same inputs and compare.

    Exit 3 means: equivalent where the original's valid_shape masking still applies, different
    only in rows it never wrote. Sizes: --set/--input over the file's own `# pypto-migrate: verify`
    line over [tool.pypto-migrate] set/input."""
    from ..run.config import find
    from ..interp.verify import verify
    from ..rulebook.loading import load_api, oldest_step
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
    if verify_target is None:
        from ..migrate.chain import written_for

        verify_target = written_for(texts[1][1])
    verdict = verify(texts[0], texts[1], settings_from(sets, inputs, seed, poison, defaults=config), load_api(None, oldest_step()),
                     verify_target, progress=lambda line: print(line, file=sys.stderr, flush=True))
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

    rules = load_selected().every()
    if rule is None:
        _stdout(markdown_table(rules) if fmt == "markdown" else listing(rules))
        return
    chosen = find(rules, rule)
    if chosen is None:
        load_selected((rule,))  # the usage error that lists the known rules
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



# A maintainer's commands (`api measure`, `api diff`), defined beside the code they run.
from ..maintain.commands import api as _api  # noqa: E402

main.add_command(_api)
