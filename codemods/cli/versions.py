"""`--target` and `--from`: the version step to migrate to and the one to start at."""

from __future__ import annotations

import click

from . import exits
from ..rulebook.loading import RuleFileError


class _Fatal(click.ClickException):
    """Exit 2 with the message alone (as `commands.Fatal`, which imports this module)."""

    exit_code = exits.FAILED

    def show(self, file=None) -> None:
        click.echo(self.format_message(), err=True)


version_options = [
    click.option("--target", metavar="STEP", help="The pypto version to migrate to: 2026-03 (c39fe714a) or 2026-08 "
                 "(e2d0f78ae); default: [tool.pypto-migrate] target, else 2026-03."),
    click.option("--from", "start", metavar="STEP", help="Start at this version step instead of the one read off each "
                 "file's code: 2026-03 applies every step (code older than 2026-03-09), 2026-08 only the last."),
]


def chosen_steps(target, start, config) -> tuple[str, str]:
    """The target and the starting step: the command line over the configuration."""
    from ..migrate.chain import StepError, check_step
    from ..rulebook.loading import DEFAULT_TARGET

    try:
        chosen = check_step(target or config.target or DEFAULT_TARGET)
        first = check_step(start, what="--from step") if start else ""
    except StepError as exc:
        if not target and config.target:
            raise _Fatal(f"{config.where('target')}: {exc}")
        raise click.UsageError(str(exc))
    except RuleFileError as exc:
        raise _Fatal(f"broken rule file: {exc}")
    return chosen, first


