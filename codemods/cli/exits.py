"""Exit codes, one meaning each across the commands (2 as in Ruff: the tool could not do its job)."""

from __future__ import annotations

CLEAN = 0  # nothing to do (check), every file processed (run), equivalent (verify)
PENDING = 1  # check: a file would change or needs review; run: the compiler rejects a migration; verify: a mismatch
FAILED = 2  # a file could not be processed, or a usage, configuration or setup error
MASKED = 3  # verify only: equivalent except where the original masked values with valid_shape

RUN = """\b
Exit codes:
  0  every file was processed
  1  with --compile, the compiler rejects a migration (0 with --exit-zero)
  2  a file could not be processed, or a usage or configuration error"""

CHECK = """\b
Exit codes:
  0  nothing would change and nothing needs review
  1  a file would change or needs review (0 with --exit-zero)
  2  a file could not be processed, or a usage or configuration error"""

REPORT = """\b
Exit codes:
  0  every file was read
  2  a file could not be processed, or a usage error"""

VERIFY = """\b
Exit codes:
  0  equivalent
  1  a mismatch, or an execution error of either kernel
  2  a usage or setup error: --set/--input names the kernel does not have, sizes its guards refuse
  3  equivalent except where the original masked values with valid_shape"""


def of(summary, check: bool, exit_zero: bool = False) -> int:
    if summary.failed:
        return FAILED
    pending = summary.compile_problems or (check and (summary.files_changed or summary.review or summary.errors))
    return PENDING if pending and not exit_zero else CLEAN
