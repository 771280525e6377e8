"""What some tests need from outside the repository: the pypto wheel, the real corpus.

Where they are missing, a test skips with the reason; under CI (CI=true) it fails instead,
so that a CI machine set up without them cannot pass by skipping everything that counts.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: required here)", pytrace=False)
    pytest.skip(reason)


def pypto_or_skip() -> None:
    if importlib.util.find_spec("pypto") is None:
        missing("pypto is not installed (make install adds ../shared/oracle/pypto-*.whl when it exists)")


def corpus_or_skip() -> None:
    if not CORPUS.is_dir():
        missing(f"no real corpus at {CORPUS}")


def head_python() -> str:
    """The Python that has the newest compiler (pypto of 2026-08-21, torch beside it):
    $PYPTO_HEAD_PYTHON (`make test` sets it), else the `-head` venv beside the running one."""
    import sys

    named = os.environ.get("PYPTO_HEAD_PYTHON")
    candidates = [Path(named)] if named else []
    prefix = Path(sys.prefix)
    candidates.append(prefix.with_name(prefix.name + "-head") / "bin" / "python")
    for candidate in candidates:
        if candidate.is_file():
            return str(candidate)
    missing("no Python with the newest pypto (make install builds .venv-head from ../shared/oracle-head/*.whl "
            "and torch==2.13.0; or set PYPTO_HEAD_PYTHON)")
    return ""
