"""The tool under test, through its public entry points only: `codemods.run.runner`
(`Job`, `migrate_text`: what `pypto-migrate run` does to one text), `codemods.interp.verify`
(what `pypto-migrate verify` does) and `codemods.compiler.verdict.under_review_marker` (what
`run --compile` asks before it keeps a rejected migration). Nothing in `codemods` imports
this package; when the tool's internals move, this module is the one place to follow them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from codemods.compiler.verdict import under_review_marker
from codemods.interp.execute import Settings
from codemods.interp.verify import EQUIVALENT, MASKED, verify as verify_pair
from codemods.rulebook.loading import load_api, load_rules
from codemods.run.runner import Job, migrate_text

TARGETS = ("2026-03", "2026-08")
REVIEW = "# pypto-migrate: review"


@lru_cache(maxsize=4)
def job(target: str) -> Job:
    return Job(tuple(r.id for r in load_rules(None, target)), target=target)


@lru_cache(maxsize=4)
def api(step: str = "2026-03"):
    return load_api(None, step)


@dataclass
class Migration:
    output: str
    errors: list[str] = field(default_factory=list)  # the strict check's errors and the engine's own
    said: list[str] = field(default_factory=list)  # every finding's message, review markers' included


def migrate(text: str, target: str) -> Migration:
    """The migration `pypto-migrate run --target TARGET` would write (an exception here is an
    internal error of the tool, left to the caller to count)."""
    result = migrate_text(text, job(target))
    errors = [f"{f.line}: {f.message}" for f in result.findings if getattr(f, "level", "") == "error"]
    return Migration(result.output, errors, [f"{f.line}: {f.message}" for f in result.findings])


def verify(original: str, migrated: str, target: str, seed: int = 0) -> tuple[bool, str]:
    """`pypto-migrate verify ORIGINAL MIGRATED --target TARGET`: (equal, what it said)."""
    verdict = verify_pair(("original.py", original), ("migrated.py", migrated), Settings(seed=seed), api(), target)
    return verdict.code in (EQUIVALENT, MASKED), verdict.message


def marked(text: str, line: int) -> bool:
    """Whether an open `# pypto-migrate: review` marker stands at that line (or right above its statement)."""
    return under_review_marker(text, line)


def without_markers(text: str) -> str:
    """The text less its open review markers: what a migration that only flagged leaves as it was."""
    return "".join(line for line in text.splitlines(True) if not line.lstrip().startswith(REVIEW))
