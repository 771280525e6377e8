"""pypto's own tree, before and after its authors' hand migration, judged by its own tests.

Read from ../shared/corpus/pypto at run time (never copied into the repository), copied to a
temporary folder, migrated there, and tested with the python running this suite (`make
install` gives it the target's pypto and pytest). First do no harm: `after/` is code the
target accepts, so every file comes out byte for byte and no passing test fails; `before/`
migrated loses no test that passed unmigrated under the target compiler.
"""

from __future__ import annotations

import sys

import pytest

from needs import CORPUS, ROOT, corpus_or_skip, missing, pypto_or_skip

sys.path.insert(0, str(ROOT / "benchmarks"))
import pypto_suite  # noqa: E402

pytestmark = pytest.mark.real

PYPTO = CORPUS / "pypto"
AFTER = sorted(p.relative_to(PYPTO / "after").as_posix() for p in (PYPTO / "after").rglob("*.py")) or ["(no corpus)"]


@pytest.fixture(scope="module")
def scores():
    corpus_or_skip()
    if not PYPTO.is_dir():
        missing(f"no pypto trees at {PYPTO}")
    pypto_or_skip()  # pytest is there: it runs this
    return pypto_suite.score(jobs=2, python=sys.executable, corpus=PYPTO)


def _named(tests: list[str], outcomes: dict[str, str]) -> str:
    return "\n".join(f"  {t}: {outcomes.get(t, 'not run')}" for t in tests[:30])


def test_the_reference_suites_run(scores):
    """Without passing tests to lose, the two tests below could not fail."""
    after, before = scores
    assert len(pypto_suite.passing(after.original)) > 100, "pypto's after/ suite hardly runs here"
    assert len(pypto_suite.passing(before.original)) > 100, "pypto's before/ suite hardly runs here"


@pytest.mark.parametrize("rel", AFTER)
def test_after_comes_out_byte_for_byte(scores, rel):
    after, _ = scores
    assert rel not in after.errors, f"after/{rel} could not be processed"
    assert rel not in after.changed, f"after/{rel} is code the target accepts, and the tool changed it"


def test_after_migration_breaks_no_passing_test(scores):
    after, _ = scores
    assert not after.broken, (f"{len(after.broken)} of {len(pypto_suite.passing(after.original))} passing tests of "
                              f"after/ fail once it is migrated:\n{_named(after.broken, after.migrated)}")


def test_before_migration_loses_no_passing_test(scores):
    _, before = scores
    assert not before.errors, f"before/ files not processed: {before.errors}"
    assert not before.broken, (f"{len(before.broken)} of {len(pypto_suite.passing(before.original))} tests that passed "
                               f"unmigrated fail once migrated:\n{_named(before.broken, before.migrated)}")
