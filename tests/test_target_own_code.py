"""Code written for the target comes out as it went in, at the default target (issue 36).

A step exists to move code written before its version. A file that names nothing older than the
target (`chain.older_forms`) is taken to be the target's own code, unless a rule acts whose old
form only earlier code holds (a rule record's `evidence`), or a step before the target's rejects
something in it. Then no rule of the target's step touches it, and it carries no marker: the
silent-change rules (`not`, declared outputs, masks) and the rules whose old form the target's own
authors also write (a written plain Tensor in a kernel, a rebound output) never re-decide what
its author wrote. The kernels are ours, each after an idiom of pypto's own code of 2026-08.
"""

from __future__ import annotations

import pytest

from codemods.migrate.chain import older_forms, steps_for
from codemods.rulebook.loading import load_api, load_rules, steps
from codemods.run.runner import Job, migrate_text

from needs import CORPUS, corpus_or_skip

NEWEST = steps()[-1]
JOB = Job(tuple(r.id for r in load_rules()), target=NEWEST)

# Each is accepted by e2d0f78ae as written, and names nothing 2026-08 removed: nothing in its
# text dates it before the target (most use only names c39fe714a had too).
OWN = {
    "a declared Out read before it is written whole (an online-softmax state)": '''
import pypto.language as pl


@pl.program
class Step:
    @pl.function(type=pl.FunctionType.InCore)
    def update(self, x: pl.Tensor[[16, 64], pl.FP32], m: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        old = pl.load(m, [0, 0], [16, 64])
        t = pl.load(x, [0, 0], [16, 64])
        m = pl.store(pl.maximum(old, t), [0, 0], m)
        return m
''',
    "an Out rebound to a kernel's result in the orchestration": '''
import pypto.language as pl


@pl.program
class Twice:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        out = pl.store(pl.add(t, t), [0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out = self.kernel(a, out)
        return out
''',
    "a plain Tensor an Opaque function accumulates into and hands back": '''
import pypto.language as pl


@pl.program
class Acc:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], c: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(0, 64, 32):
                prev = pl.slice(c, [16, 32], [0, i])
                c = pl.assemble(c, pl.add(prev, pl.slice(a, [16, 32], [0, i])), [0, i])
        return c
''',
    "a logical not of an integer scalar": '''
import pypto.language as pl


@pl.program
class Flags:
    @pl.function
    def main(self, config: pl.Tensor[[2], pl.INT64], out: pl.Tensor[[2, 16], pl.FP32]) -> pl.Tensor[[2, 16], pl.FP32]:
        a: pl.Scalar[pl.INT64] = pl.tensor.read(config, [0])
        b: pl.Scalar[pl.BOOL] = not a
        _ = b
        return out
''',
    # A number beside a BF16 tensor is BF16 since pypto #2132; c39 promoted the result to FP32,
    # and its step would retype the annotation (make fuzz's real seeds, seed 4242).
    "a literal beside a half-precision tensor": '''
import pypto.language as pl


@pl.program
class Lower:
    @pl.function
    def main(self, x: pl.Tensor[[128], pl.BF16]) -> pl.Tensor[[128], pl.BF16]:
        y: pl.Tensor[[128], pl.BF16] = pl.sub(x, 1.0)
        return y
''',
    # Two classes, each with its own `kernel`: `self.kernel` is the caller's class's, and the
    # second kernel writes its second parameter where the first only reads it.
    "two programs whose kernels share a name": '''
import pypto.language as pl


@pl.program
class First:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.add(pl.load(a, [0], [64]), pl.load(b, [0], [64]))
        out = pl.store(t, [0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out = self.kernel(a, b, out)
        return out


@pl.program
class Second:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64], pl.FP32], out: pl.InOut[pl.Tensor[[64], pl.FP32]], b: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        out = pl.store(pl.load(a, [0], [64]), [0], out)
        return out
''',
}


@pytest.mark.parametrize("name", list(OWN))
def test_the_target_s_own_code_is_left_byte_for_byte(name):
    text = OWN[name].lstrip("\n")
    result = migrate_text(text, JOB)
    assert result.output == text
    assert result.edits == [] and result.findings == []


def test_nothing_in_them_is_older_than_the_target():
    tables = [load_api(None, s) for s in steps()]
    for text in OWN.values():
        assert older_forms(text, tables[-1], tables[:-1]) == set()


def test_an_old_name_dates_the_file_and_every_rule_of_the_step_acts():
    """The same kernel with `pl.incore()`, which 2026-08 removed: code of before, migrated whole,
    its declared Out read first re-decided as c39 code asks (PTO187)."""
    text = '''
import pypto.language as pl


@pl.program
class Step:
    @pl.function
    def update(self, x: pl.Tensor[[16, 64], pl.FP32], m: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.incore():
            old = pl.load(m, [0, 0], [16, 64])
            t = pl.load(x, [0, 0], [16, 64])
            m = pl.store(pl.add(old, t), [0, 0], m)
        return m
'''.lstrip("\n")
    tables = [load_api(None, s) for s in steps()]
    assert older_forms(text, tables[-1], tables[:-1]) == {"incore"}
    result = migrate_text(text, JOB)
    assert "pl.at(level=pl.Level.CORE_GROUP)" in result.output
    assert "m: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]" in result.output
    assert {e.rule for e in result.edits} >= {"PTO102", "PTO187"}


def test_an_entry_s_plain_output_is_the_old_form_and_migrates():
    """A `@pl.jit` entry that writes a plain Tensor: at 2026-08 nothing written there goes back to
    the host. Code of the target never leaves it so; PTO142 retypes it, and that dates the file."""
    text = '''
import pypto.language as pl

R = 16
C = 64


@pl.jit
def scale(x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:, :] = pl.mul(x, 2.0)
    return y
'''.lstrip("\n")
    result = migrate_text(text, JOB)
    assert "y: pl.Out[pl.Tensor[[R, C], pl.FP32]]" in result.output
    assert [e.rule for e in result.edits] == ["PTO142"]


def test_from_overrides_the_presumption():
    """`--from 2026-03` says the code is of c39's day: the declared Out read first is re-decided."""
    text = OWN["a declared Out read before it is written whole (an online-softmax state)"].lstrip("\n")
    assert not any(s.presumed for s in steps_for(text, tuple(load_rules()), NEWEST, steps()[0]))
    result = migrate_text(text, Job(JOB.rule_ids, target=NEWEST, start=steps()[0]))
    assert "m: pl.InOut[" in result.output


def test_pypto_s_own_code_of_the_newest_day_is_left_as_it_is(tmp_path):
    """Issue 36's measure: every file of pypto's examples and tests at e2d0f78ae, the commit of the
    newest compiler, through `migrate_text` at the default target: no edit, no marker, no error."""
    corpus_or_skip()
    tree = CORPUS / "pypto" / "2026-08-21"
    touched = []
    for path in sorted(tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "pypto" not in text:
            continue
        result = migrate_text(text, JOB)
        if result.output != text or result.edits or result.findings:
            touched.append((str(path.relative_to(tree)), sorted({e.rule for e in result.edits}
                                                                | {f.rule for f in result.findings})))
    assert touched == []


# A test suite's kernels written to be refused (pypto's own tests of 2026-08 hold many): what a
# test expects to raise is no code of an earlier day, and changing it would fail the test.
EXPECTED_TO_FAIL = '''
import pytest

import pypto.language as pl


@pl.jit
def _dn_kernel(a: pl.Tensor[[64, 128], pl.FP16, pl.DN], c: pl.Out[pl.Tensor[[64, 128], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c[:, :] = pl.add(a, a)
    return c


def test_dn_is_refused():
    with pytest.raises(TypeError, match="DN"):
        _dn_kernel.lower()


def test_dn_in_a_function_is_refused():
    with pytest.raises(TypeError, match="DN"):

        @pl.function
        def func(x: pl.Tensor[[16, 1], pl.FP16, pl.DN]) -> pl.Tensor[[16, 1], pl.FP16]:
            return x
'''


def test_what_a_test_expects_to_be_refused_is_left_as_it_is():
    text = EXPECTED_TO_FAIL.lstrip("\n")
    result = migrate_text(text, JOB)
    assert result.output == text and result.findings == []


def test_the_same_kernel_used_for_real_is_dated_and_flagged():
    """The DN kernel called outside any `pytest.raises`: a kernel of before 2026-08-03 (DN removed,
    pypto #2250), flagged at its annotation (PTO110, an evidence rule)."""
    text = EXPECTED_TO_FAIL.lstrip("\n").split("\n\ndef test_dn_is_refused")[0] + "\n\n\nLOWERED = _dn_kernel.lower()\n"
    result = migrate_text(text, JOB)
    assert [f.rule for f in result.findings if f.level == "review"] == ["PTO110"]


def test_a_neighbour_it_imports_dates_the_file():
    """Modules of one folder that import each other were written for one pypto: a neighbour that
    names what the target removed dates the file that imports it (the May library's `moe.py`
    and its `hc_pre`), and the declared Out it reads first is re-decided (PTO187)."""
    own = OWN["a declared Out read before it is written whole (an online-softmax state)"].lstrip("\n")
    text = own.replace("import pypto.language as pl\n", "import pypto.language as pl\n\nfrom helpers import norm\n", 1)
    helper = '''
import pypto.language as pl


@pl.function
def norm(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    with pl.incore():
        out = pl.assemble(out, pl.exp(x), [0, 0])
    return out
'''.lstrip("\n")
    assert migrate_text(text, JOB, neighbours={}).output == text
    result = migrate_text(text, JOB, neighbours={"helpers": helper})
    assert "m: pl.InOut[" in result.output
