"""`--target` and `--from`: the version step to migrate to and the one to start at."""

from __future__ import annotations

import click

from . import exits
from ..rulebook.loading import RuleFileError, steps


def _known() -> tuple[str, ...]:
    """The steps there are, for the options' help (a listing of the rules folder)."""
    try:
        return steps()
    except RuleFileError:
        return ()


STEPS = _known()


class _Fatal(click.ClickException):
    """Exit 2 with the message alone (as `commands.Fatal`, which imports this module)."""

    exit_code = exits.FAILED

    def show(self, file=None) -> None:
        click.echo(self.format_message(), err=True)


version_options = [
    click.option("--target", metavar="STEP", help=f"The pypto version to migrate to, one of {', '.join(STEPS)}; "
                 f"default: [tool.pypto-migrate] target, else the newest ({STEPS[-1] if STEPS else 'none found'}). "
                 "An older one pins a pypto you cannot upgrade yet."),
    click.option("--from", "start", metavar="STEP", help="Start at this version step instead of the one read off each "
                 "file's code" + (f": {STEPS[0]} applies every step, {STEPS[-1]} only the last." if STEPS else ".")),
]


def chosen_steps(target, start, config) -> tuple[str, str]:
    """The target and the starting step: the command line over the configuration."""
    from ..migrate.chain import StepError, check_step
    from ..rulebook.loading import newest_step

    try:
        chosen = check_step(target or config.target or newest_step())
        first = check_step(start, what="--from step") if start else ""
    except StepError as exc:
        if not target and config.target:
            raise _Fatal(f"{config.where('target')}: {exc}")
        raise click.UsageError(str(exc))
    except RuleFileError as exc:
        raise _Fatal(f"broken rule file: {exc}")
    return chosen, first


