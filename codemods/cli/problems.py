"""What `run` and `check` report about one file, in the form every output format shares: a
problem at `path:line:col`, the pseudo rules of problems no rule file names, the format names.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..run.runner import Outcome

FORMATS = ("text", "json", "sarif", "github")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ERROR_ID = "ERROR"  # the pseudo rule of a file that could not be processed

# Findings whose rule is not a rule file's: what they mean, for SARIF's rule list.
PSEUDO_RULES = {
    "API": ("target-api", "Code the target API rejects, or removed API that no rule rewrote",
            "An independent check of the output against the target API found this; change it by hand."),
    "COMPILE": ("compiler", "The pypto compiler rejects what run would write",
                "With --compile, the real pypto compiler built the migrated file and refused it here."),
    ERROR_ID: ("could-not-process", "A file pypto-migrate could not read, parse or migrate",
               "The file was left as it was: it is not valid Python or UTF-8, cannot be read or written, "
               "or a rule failed on it."),
}


class Problem(NamedTuple):
    """A line of `path:line:col: level RULE: message`, positioned in the migrated text."""

    line: int
    column: int
    level: str  # error | review
    rule: str
    message: str


def one_line(text: str) -> str:
    return re.sub(r"\s*[\r\n]+\s*", " ", text.strip())


def error_parts(o: Outcome) -> tuple[int, int, str]:
    """Line, column and message of a file's error; a file-level error is placed at 1:1."""
    rest = o.error[len(o.display) + 1:] if o.error.startswith(o.display + ":") else o.error
    m = re.match(r"(\d+):(\d+):(.*)", rest, re.S)
    if m:
        return int(m.group(1)), int(m.group(2)), one_line(m.group(3))
    return 1, 1, one_line(rest)


def error_line(o: Outcome) -> str:
    line, column, message = error_parts(o)
    return f"{o.display}:{line}:{column}: error: {message}"


def problems(o: Outcome) -> list[Problem]:
    found = [Problem(f.line, f.column, "error" if f.level == "error" else "review", f.rule, f.message) for f in o.findings]
    if o.compiled is not None:
        found += [Problem(e.line, e.column, "error", "COMPILE", e.message) for e in o.compiled.errors]
        found += [Problem(p.line, p.column, "error", "COMPILE", f"structure: {p.message}") for p in o.compiled.structure]
    return sorted(found, key=lambda p: (p.line, p.column))
