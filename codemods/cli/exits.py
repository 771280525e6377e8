"""Exit codes, one meaning each across the commands (2 as in Ruff: the tool could not do its job).

`TABLE` is the one table: each command's `--help` prints its column, and the README and
docs/usage.md hold `markdown()` word for word (tests/test_exit_codes.py compares them).
"""

from __future__ import annotations

CLEAN = 0  # nothing to do (check), every file processed (run), equivalent (verify)
PENDING = 1  # check: a file would change or needs a person; run: the compiler rejects a migration; verify: a mismatch
FAILED = 2  # a file could not be processed, or a usage, configuration or setup error
MASKED = 3  # verify only: equivalent except where the original masked values with valid_shape
INTERRUPTED = 130  # Ctrl-C (SIGINT), as a shell reports a command it ended: 128 + 2

_NOT_PROCESSED = "a file could not be processed (also a named path with no file to read), or a usage or configuration error"

# A dry `run` is a preview: its pending changes are its output, not a failure. `check` is the
# gate that fails on them, as `ruff check` does where `ruff format --diff` is the preview.
TABLE: dict[str, dict[int, str]] = {
    "check": {
        CLEAN: "nothing would change, nothing needs review, no error found",
        PENDING: "a file would change, needs review or has an error (error API, COMPILE); 0 with --exit-zero",
        FAILED: _NOT_PROCESSED,
        INTERRUPTED: "interrupted (Ctrl-C)",
    },
    "run": {
        CLEAN: "every file processed; a dry run with changes pending too (it is a preview: check is the gate)",
        PENDING: "with --compile, the compiler rejects a migration; 0 with --exit-zero",
        FAILED: _NOT_PROCESSED,
        INTERRUPTED: "interrupted (Ctrl-C): the files written before it are listed, each whole; the others were not written",
    },
    "report": {
        CLEAN: "every file read",
        FAILED: "a file could not be read or parsed, or a usage error",
        INTERRUPTED: "interrupted (Ctrl-C)",
    },
    "verify": {
        CLEAN: "equivalent",
        PENDING: "a mismatch, or an execution error of either kernel",
        FAILED: "a usage or setup error: --set/--input names the kernel does not have, sizes its guards refuse",
        MASKED: "equivalent except where the original masked values with valid_shape",
        INTERRUPTED: "interrupted (Ctrl-C)",
    },
}


def epilog(command: str) -> str:
    """The command's column of the table, for its --help (`\\b`: click keeps the lines as they are)."""
    lines = [f"  {code}  {meaning}" for code, meaning in TABLE[command].items()]
    return "\b\nExit codes:\n" + "\n".join(lines)


def markdown() -> str:
    """The table as the README and docs/usage.md show it."""
    commands = list(TABLE)
    codes = sorted({code for column in TABLE.values() for code in column})
    rows = ["| code | " + " | ".join(f"`{c}`" for c in commands) + " |", "| --- |" + " --- |" * len(commands)]
    rows += [f"| {code} | " + " | ".join(TABLE[c].get(code, "") for c in commands) + " |" for code in codes]
    return "\n".join(rows) + "\n"


RUN, CHECK, REPORT, VERIFY = (epilog(c) for c in ("run", "check", "report", "verify"))


def of(summary, check: bool, exit_zero: bool = False) -> int:
    if summary.failed:
        return FAILED
    pending = summary.compile_problems or (check and (summary.files_changed or summary.review or summary.errors))
    return PENDING if pending and not exit_zero else CLEAN
