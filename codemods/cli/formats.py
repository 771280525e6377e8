"""The outcomes of `run` and `check` for people: problem lines, the per-rule table and the
closing summary on stderr, the diff on stdout; or, with `--format`, a machine format
(`ci_formats`). Text keeps the positions of the migrated text (the `+` side of the diff it
comes with).
"""

from __future__ import annotations

from ..rulebook.loading import Chosen
from ..run.runner import Outcome, Summary, _count
from .console import PLAIN_WIDTH, PlainConsole
from .problems import error_line, one_line, problems


# --- text ---------------------------------------------------------------------------------


def text_report(ui, outcomes: list[Outcome], check: bool = False) -> None:
    """Problems and flagged lines on stderr, one `path:line:col: ...` line each."""
    if check:
        for o in outcomes:
            if o.changed:
                ui.say(f"{o.display}: {o.would()}")
    for o in outcomes:
        ui.detail(_file_line(o))
        if o.error:
            ui.problem(error_line(o))
        for note in o.notes:
            ui.say(f"{o.display}: {one_line(note)}")
        for p in problems(o):
            ui.problem(f"{o.display}:{p.line}:{p.column}: {p.level} {p.rule}: {one_line(p.message)}")
        if o.compiled is not None and not ui.quiet:
            _compile_report(ui, o)


def _file_line(o: Outcome) -> str:
    state = "error" if o.error else "written" if o.written else "would change" if o.changed else "unchanged"
    errors = f", {_count(o.code_errors, 'error')}" if o.code_errors else ""
    return f"{o.display}: {state}, {o.change()}, {o.to_review} to review{errors}, {o.seconds:.2f} s"


def _compile_report(ui, o: Outcome) -> None:
    from ..compiler.verdict import memory_lines, pair_kernels

    c = o.compiled
    for note in c.notes:
        ui.say(f"{o.display}: compile: {one_line(note)}")
    if c.skipped:
        ui.say(f"{o.display}: compile: skipped, {c.skipped}")
    if c.memory or o.capacity:
        sizes = f" (sizes: {' '.join(f'{k}={v}' for k, v in c.sets.items())})" if c.sets else ""
        # At a target whose step has no buffer model of its own, the tool's figures are c39's:
        # shown beside this compiler's for reading, not held against them.
        model = "" if o.capacity_compared else " (the tool's are c39's buffer model, not this compiler's: not compared)"
        ui.say(f"{o.display}: compiler memory report beside the tool's capacity figures{sizes}{model}:")
        pairs, notes = pair_kernels(o.capacity or [], c.memory, c.kernels)
        if c.memory or c.kernels:
            # A count where the tool sees regions is a structure problem, said above as one; the
            # kernels of functions where it sees none (inlined helpers') are its model's gap: one line.
            seen = {k.function for k in o.capacity or []}
            gap = list(dict.fromkeys(n.split(":", 1)[0] for n in notes if n.split(":", 1)[0] not in seen))
            notes = [f"outlined where the tool sees no kernel region (an inlined helper's, a name it cannot place): "
                     f"{', '.join(gap)}"] if gap else []
        for line in memory_lines(pairs, notes, compare=o.capacity_compared):
            ui.say(line)


RULE_COLUMNS = ("rule", "name", "safety", "edits", "files")
_RIGHT = {"edits", "files"}


def rule_table(ui, summary: Summary, rules: Chosen) -> None:
    if not summary.per_rule:
        return
    rows = [
        (rule.id, rule.name, rule.safety, str(summary.per_rule[rule.id]), str(summary.files_per_rule[rule.id]))
        for rule in (rules.rule(rule_id) for rule_id in rules.ids if summary.per_rule[rule_id])
    ]
    plain = plain_table(RULE_COLUMNS, rows, _RIGHT) if isinstance(ui.err, PlainConsole) else None
    if plain is not None:
        ui.say(plain)
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    for column in RULE_COLUMNS:
        table.add_column(column, justify="right" if column in _RIGHT else "left")
    for cells in rows:
        table.add_row(*(Text(c) for c in cells))
    ui.say(table)


def plain_table(header: tuple[str, ...], rows: list[tuple[str, ...]], right: set[str], width: int = PLAIN_WIDTH) -> str | None:
    """The lines rich draws for a borderless table off a terminal (columns two spaces apart,
    none at the edges), without rich; None where rich might lay it out otherwise (a cell
    not plain ASCII, a table wider than the line)."""
    table = [header, *rows]
    if header[-1] not in right or any(not (c.isascii() and c.isprintable()) or c != c.strip() for r in table for c in r):
        return None
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    if sum(widths) + 2 * (len(widths) - 1) > width:
        return None
    lines = []
    for r in table:
        cells = [c.rjust(w) if name in right else c.ljust(w) for c, w, name in zip(r, widths, header)]
        lines.append("  ".join(cells))
    return "\n".join(lines)


def finish(ui, fmt: str, outcomes: list[Outcome], rules: Chosen, command: str, write: bool = False,
           exit_zero: bool = False, stdin: bool = False, target: str = "") -> int:
    """Print what `run` or `check` found and return its exit code (see `codemods.cli.exits`).
    The summary line names the `target`: the default moves when a step is added, so a log must
    say which pypto it was judged against."""
    from . import exits
    from .console import write_stdout
    from ..run.runner import summarize

    summary = summarize(outcomes)
    code = exits.of(summary, check=command == "check", exit_zero=exit_zero)
    written = command == "run" and write
    if fmt != "text":
        from .ci_formats import render  # JSON, SARIF and GitHub only

        write_stdout(render(fmt, outcomes, rules.every(), summary, command, written, code))
    elif stdin and written:
        write_stdout("".join(o.output or "" for o in outcomes))  # `run --write -`: the migrated source
    elif command == "run":
        diff = "".join(o.diff for o in outcomes)
        if diff and not written:
            ui.diff(diff)
    if fmt == "text":
        text_report(ui, outcomes, check=command == "check")
    if outcomes and not any(o.uses_pypto or o.error for o in outcomes):
        # Not an error (a tree may hold no kernel yet), but said: a wrong folder passes no gate in silence.
        ui.say(f"note: none of the {_count(len(outcomes), 'file')} names pypto: nothing to migrate")
    aim = f"; target {target}" if target else ""
    if command == "check":
        ui.say(summary.line("would be migrated") + aim)
        _staged(ui, summary)
        return code
    if fmt == "text":
        rule_table(ui, summary, rules)
    if summary.kernels:
        ui.say(summary.capacity())
    tail = "" if written or not summary.files_changed or stdin else " (dry run: --write applies it)"
    ui.say(summary.line("migrated" if written else "would be migrated", written) + aim + tail)
    _staged(ui, summary)
    return code


def interrupted(ui, stop) -> int:
    """What a run stopped by Ctrl-C leaves on disk, whatever -q or --format say: the files it
    wrote, one `written:` line each, and that no other was. Exit 130."""
    from . import exits

    written = [o.display for o in stop.done if o.written]
    for display in written:
        ui.err.print(f"written: {display}", markup=False)
    said = (f"{_count(len(written), 'file')} written, each whole; the other {_count(stop.total - len(written), 'file')} "
            "not written") if written else "no file written"
    ui.err.print(f"interrupted (Ctrl-C): {said}", markup=False)
    return exits.INTERRUPTED


def _staged(ui, summary: Summary) -> None:
    line = summary.staged_line()
    if line:
        ui.say(line)
