from __future__ import annotations

from pathlib import Path

import pytest

from codemods.migrate.engine import migrate
from codemods.rulebook.loading import load_api, load_rules, steps
from codemods.run.runner import LEFTOVER_ID

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def upgrade(text: str, api=None):
    """Migrate `text` with the rules of the 2026-08 step against that step's own table, as a
    run does (`api`: another table, for a test that asks what the rules do with it)."""
    rules = load_rules()
    step = tuple(r for r in rules if r.step == "2026-08")
    return migrate(text, step, api or load_api(None, "2026-08"), frozenset(r.id for r in rules) | {LEFTOVER_ID})


@pytest.fixture(scope="session", autouse=True)
def _results_cache(tmp_path_factory):
    """Runs through the CLI keep results, as users' do, in a folder of the session's own
    (never in the checkout); tests of the cache itself choose theirs."""
    import os

    from codemods.run.cache import ENV

    os.environ[ENV] = str(tmp_path_factory.mktemp("results-cache"))
    yield
    os.environ.pop(ENV, None)


@pytest.fixture(scope="session")
def rules():
    return load_rules()


@pytest.fixture(scope="session")
def api():
    """The 2026-03 step's table: the tests that use it test that step."""
    return load_api(None, "2026-03")


@pytest.fixture(scope="session")
def run_rules(rules, api):
    """Migrate a text with all rules of the 2026-03 step (or the ones named), the way the
    runner does for that step."""
    known = frozenset(r.id for r in rules) | {LEFTOVER_ID}

    def apply(text: str, only: tuple[str, ...] = (), strict: bool = False):
        chosen = tuple(r for r in rules if ((r.id in only or r.name in only) if only else r.step == api.step))
        return migrate(text, chosen, api, known, strict=strict)

    return apply


PINNED = steps()[0]  # the step whose fixtures the CLI's tests were written on


def pinned(args) -> list[str]:
    """`args` of a `run`, `check`, `verify` or `report` with `--target` of the first step added where
    they name none: the suite's tests of the command line were written on that step's fixtures
    (fixtures/2026-03/before, fixtures/2026-03/after), as a user who pins c39 runs them. The default target, the
    newest step, has tests of its own (tests/test_steps.py), which pass pin=False."""
    args = [str(a) for a in args]
    if args and args[0] in ("run", "check", "verify", "report") and not {"--target", "--from"} & set(args) \
            and not any(a.startswith("--target=") for a in args):
        return [args[0], "--target", PINNED, *args[1:]]
    return args


def pypto(*args, cwd, env=None, pin=True, **kwargs):
    """The tool as a user runs it: a real process, `python -m codemods`, text output."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    args = pinned(args) if pin else [str(a) for a in args]
    return subprocess.run([sys.executable, "-m", "codemods", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, **kwargs)
