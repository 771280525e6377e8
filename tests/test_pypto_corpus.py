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


# Some after/ files are not code the target accepts: upstream left constructs in them that the
# c39 compiler rejects. The tool may edit those, and only with a rule whose rejection the
# compiler confirms on a kernel of our own below (the kernel, then a piece of its message).
_KERNEL = """\
import pypto.language as pl


@pl.program
class K:
    @pl.function
    def f(self, x: pl.Tensor[[64, 16], pl.FP32], idx: pl.Tensor[[4], pl.INT32],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.incore():
{body}
            out = pl.store(t, [0, 0], out)
        return out
"""
REJECTED = {
    "PTO022": ("            t = pl.load(x, [0, 0], [16, 16])\n            out = pl.store(t, [0, 0], [16, 16], out)",
               "got multiple values for argument"),
    "PTO009": ("            row = pl.tensor.read(idx, [1])\n            t = pl.load(x, [row, 0], [16, 16])",
               "tile.getval requires first argument to be a TileType"),
    "PTO020": ("            t = pl.nonexistent_op(pl.load(x, [0, 0], [16, 16]))", "Unknown tile operation"),
}


# The strict check's findings (rule "API") are told apart by their message.
REJECTED_FINDINGS = {
    "has no return statement": ("""\
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        pl.store(pl.load(x, [0, 0], [16, 16]), [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out = self.k(x, out)
        return out
""", "InCore function has no return statement"),
}


def _rule(finding: dict) -> str:
    if finding["rule"] == "API":
        for fragment in REJECTED_FINDINGS:
            if fragment in finding["message"]:
                return f"API: {fragment}"
    return finding["rule"]


@pytest.mark.parametrize("fragment", sorted(REJECTED_FINDINGS))
def test_the_findings_allowed_on_after_are_what_the_compiler_rejects(fragment, tmp_path):
    pypto_or_skip()
    from codemods.compiler import bridge

    text, message = REJECTED_FINDINGS[fragment]
    kernel = tmp_path / "k.py"
    kernel.write_text(text)
    errors = bridge.compile_source(kernel, None, "passes").errors
    assert any(message in e.message for e in errors), errors


@pytest.mark.parametrize("rule", sorted(REJECTED))
def test_the_rules_allowed_on_after_remove_what_the_compiler_rejects(rule, tmp_path):
    pypto_or_skip()
    from codemods.compiler import bridge

    body, message = REJECTED[rule]
    kernel = tmp_path / "k.py"
    kernel.write_text(_KERNEL.format(body=body))
    errors = bridge.compile_source(kernel, None, "passes").errors
    assert any(message in e.message for e in errors), errors


@pytest.mark.parametrize("rel", AFTER)
def test_after_comes_out_byte_for_byte(scores, rel):
    after, _ = scores
    assert rel not in after.errors, f"after/{rel} could not be processed"
    if rel not in after.changed:
        return
    import json
    import subprocess

    checked = subprocess.run([sys.executable, "-m", "codemods", "check", "--target", "2026-03", "--no-cache", "--format", "json", rel],
                             cwd=PYPTO / "after", capture_output=True, text=True)
    report = json.loads(checked.stdout)
    rules = {e["rule"] for e in report["edits"]} | {_rule(f) for f in report["findings"]}
    allowed = set(REJECTED) | {f"API: {fragment}" for fragment in REJECTED_FINDINGS}
    assert rules and rules <= allowed, (
        f"after/{rel} is code the target accepts, and the tool changed it with {sorted(rules - allowed)}")


def test_after_migration_breaks_no_passing_test(scores):
    after, _ = scores
    assert not after.broken, (f"{len(after.broken)} of {len(pypto_suite.passing(after.original))} passing tests of "
                              f"after/ fail once it is migrated:\n{_named(after.broken, after.migrated)}")


def test_before_migration_loses_no_passing_test(scores):
    _, before = scores
    assert not before.errors, f"before/ files not processed: {before.errors}"
    assert not before.broken, (f"{len(before.broken)} of {len(pypto_suite.passing(before.original))} tests that passed "
                               f"unmigrated fail once migrated:\n{_named(before.broken, before.migrated)}")
