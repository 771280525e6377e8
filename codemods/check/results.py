"""What a migration of one text gives, as plain data: the engine makes it, the runner,
the cache and the reports read it (without loading LibCST, which a run whose results are
all cached never needs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Edit(NamedTuple):
    rule: str
    line: int
    column: int
    safety: str = ""
    before: str = ""  # the code the rule replaced or removed; "" for an insertion
    after: str = ""  # what it became or what was inserted; "" for a removal


class Finding(NamedTuple):
    """Something a person must look at, positioned in the migrated text (1-based)."""

    rule: str
    line: int
    column: int
    message: str
    level: str = "review"  # review | error


@dataclass
class Result:
    """What the engine makes of one file's text: the output, its edits and what is left to say."""

    source: str
    output: str
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    reviewed: int = 0
    kernels: int = 0  # kernel regions the plan looked at (0 when no type-directed rule ran)
    over_budget: int = 0  # of those, buffer spaces over the 910B limits
    # A staged run (narrowed rules): the output's errors where the target accepted the input,
    # positioned in the input (they refuse the file), and how many errors are left where it
    # rejected the input (on their line, or in their kernel): for the rules not selected.
    introduced: list[Finding] = field(default_factory=list)
    still_rejected: int = 0
    # The output's LibCST tree (and print), where the engine was asked to hand them on to the
    # next version step, which then need not parse the output again; never kept, compared or cached.
    handed: object = field(default=None, compare=False, repr=False)

    @property
    def changed(self) -> bool:
        return self.output != self.source


class SourceError(Exception):
    """The input cannot be migrated (not valid Python); carries a 1-based position."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


class EngineError(SourceError):
    """A rule produced output that does not parse: a bug in the rule, never the user's."""
