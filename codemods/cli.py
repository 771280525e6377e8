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
from .rulebook import RuleFileError, Rule, choose_rules, load_rules
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
        chosen = choose_rules(load_rules(), _split(select), _split(ignore))
    except RuleFileError as exc:
        raise click.ClickException(f"broken rule file: {exc}")
    except ValueError as exc:
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
optional_paths = click.argument("paths", nargs=-1, type=_Existing(exists=True, path_type=Path))


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
def run_command(paths, write, diff_file, verify, interactive, stage, sets, inputs, select, ignore, jobs) -> None:
    """Migrate PATH... : print a unified diff (dry run) or, with --write, apply it.

    With --compile, a file the compiler rejects is not written, unless every rejection is on a
    statement a `# pypto-migrate: review` marker flags."""
    stage, paths = _compile_stage(stage, paths)
    rules = _load(select, ignore)
    settings = _settings(sets, inputs) if verify else None
    job = Job(tuple(r.id for r in rules), write=write and not interactive, strict=not (select or ignore), verify=settings,
              compile=None if interactive else stage, compile_sets=_settings(sets, inputs).sets)
    diff_out = _diff_file(diff_file, paths) if diff_file is not None else None
    files = _discover(paths)
    outcomes = run(files, job, jobs)
    diff = "".join(o.diff for o in outcomes)
    if diff_out is not None:
        with diff_out:
            diff_out.write(diff)
    if interactive:
        from .review import interactive as review

        _report(outcomes)
        sys.exit(review(files, outcomes, job))
    if diff and not write:
        _stdout(diff)
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
def check_command(paths, stage, select, ignore, jobs) -> None:
    """Exit 1 if any file would change or needs a person (for CI); writes nothing."""
    stage, paths = _compile_stage(stage, paths)
    rules = _load(select, ignore)
    outcomes = run(_discover(paths), Job(tuple(r.id for r in rules), strict=not (select or ignore), compile=stage), jobs)
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

    reports, errors = report_paths(_discover(paths), load_api())
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
    from .sources import FileProblem, display_path, read_text

    try:
        texts = [(display_path(p), read_text(p)) for p in (original, migrated)]
    except FileProblem as exc:
        raise click.ClickException(exc.message)
    verdict = verify(texts[0], texts[1], _settings(sets, inputs, seed, poison), load_api())
    _stdout(verdict.message + "\n")
    sys.exit(verdict.code)


@main.command("rules")
@click.argument("rule", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help="markdown: the rule table of the README.")
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
    from .patches import clashing_input, open_diff_file

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
    from .patches import PatchError, apply_patch
    from .sources import FileProblem, read_text

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


def _stdout(text: str) -> None:
    # Bytes, so that CRLF and non-ASCII reach a pipe exactly as they are in the files.
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        sys.stdout.flush()
        stream.write(text.encode("utf-8"))
        stream.flush()
    else:
        sys.stdout.write(text)
