"""`pypto-migrate api measure|diff` (also `python -m codemods.maintain`): a maintainer's
commands for the next pypto version. Exit codes: 0 done, 2 a table or the compiler's Python
could not be read (as every command of the tool)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..rulebook.loading import RuleFileError, default_rules_dir


@click.group("api", context_settings={"help_option_names": ["-h", "--help"]})
def api() -> None:
    """Measure an installed pypto's API table, and diff two tables (for adding a version step)."""


@api.command("measure")
@click.option("--python", "python", metavar="PATH",
              help="The Python of the compiler to measure (its environment imports pypto); default: this one.")
@click.option("--version", "version", default="", help="The `version` the table says (e.g. its commit's date).")
@click.option("--json", "as_json", is_flag=True, help="Print what the compiler's Python said, as JSON, not TOML.")
def measure_command(python: str | None, version: str, as_json: bool) -> None:
    """Print the API table of the pypto that PYTHON imports, as TOML (codemods/rules/api/'s format)."""
    import json

    from .measure import MeasureError, probe, to_toml

    try:
        measured = probe(python)
    except MeasureError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps(measured, indent=1, sort_keys=True) if as_json else to_toml(measured, version), nl=not as_json)


def _table(spec: str) -> Path:
    """A table named by its path, or by its step (`2026-08`: the shipped codemods/rules/api/pypto-2026-08.toml)."""
    path = Path(spec)
    if path.is_file():
        return path
    shipped = default_rules_dir() / "api" / f"pypto-{spec}.toml"
    if shipped.is_file():
        return shipped
    raise click.BadParameter(f"{spec}: neither a table file nor a step with a shipped table")


@api.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--stubs", "stubs", type=click.Path(file_okay=False, path_type=Path),
              help="Write a rule record for each mechanical change into this folder.")
@click.option("--first-id", default=900, show_default=True, help="The number of the first stub's id (PTO900).")
@click.option("--mechanical", is_flag=True, help="Print only the mechanical changes.")
def diff_command(old: str, new: str, stubs: Path | None, first_id: int, mechanical: bool) -> None:
    """Print the catalogue of changes from table OLD to table NEW (files, or steps such as 2026-03)."""
    from .stubs import write_stubs
    from .table_diff import Table, diff

    try:
        old_path, new_path = _table(old), _table(new)
        cat = diff(old_path, new_path)
    except (RuleFileError, OSError, ValueError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if mechanical:
        cat.changes = [c for c in cat.changes if c.mechanical]
    click.echo(cat.text(), nl=False)
    if stubs is not None:
        written = write_stubs(cat, Table(old_path), stubs, first_id)
        click.echo(f"{len(written)} rule stub{'s' * (len(written) != 1)} written to {stubs}", err=True)
