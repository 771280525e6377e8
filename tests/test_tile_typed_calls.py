"""Two failure classes `make fuzz` found in February kernels (fixtures/fuzz/), fixed by typing:
a `pl.tensor.<op>` call on a value the migration makes a Tile takes the op's tile form from the
API table (PTO024), and an `@pl.inline` helper is typed at its calls, so that the annotations
c39 checks when it inlines the helper say Tile (PTO018)."""

from __future__ import annotations

import pytest

from codemods.interp.execute import Settings
from codemods.interp.verify import EQUIVALENT, verify
from needs import pypto_or_skip

NAMESPACED = '''import pypto.language as pl


@pl.program
class Example:
    @pl.function
    def f(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        gamma: pl.Tensor[[4, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 16, 4, chunk=1):
                rows = pl.view(x, [4, 64], [b, 0])
                top = pl.tensor.maximum(rows, pl.tensor.add(rows, 1.0))
                scaled = pl.tensor.mul(top, gamma)
                out = pl.assemble(out, pl.neg(scaled), [b, 0])
        return out
'''

NAMESPACED_AFTER = '''import pypto.language as pl


@pl.program
class Example:
    @pl.function
    def f(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        gamma: pl.Tensor[[4, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 16, 4, chunk=1):
                gamma_tile = pl.load(gamma, [0, 0], [4, 64], target_memory=pl.MemorySpace.Vec)
                rows = pl.load(x, [b, 0], [4, 64], target_memory=pl.MemorySpace.Vec)
                top = pl.maximum(rows, pl.add(rows, 1.0))
                scaled = pl.mul(top, gamma_tile)
                out = pl.store(pl.neg(scaled), [b, 0], out)
        return out
'''

HELPER = '''import pypto.language as pl


@pl.inline
def shift(t: pl.Tensor[[4, 64], pl.FP32]) -> pl.Tensor[[4, 64], pl.FP32]:
    r: pl.Tensor[[4, 64], pl.FP32] = pl.add(pl.mul(t, 0.5), 1.0)
    return r


@pl.program
class Example:
    @pl.function
    def f(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 16, 4, chunk=1):
                rows = pl.view(x, [4, 64], [b, 0])
                moved = shift(pl.neg(rows))
                out = pl.assemble(out, moved, [b, 0])
        return out
'''

HELPER_AFTER = HELPER.replace("pl.Tensor[[4, 64], pl.FP32]", "pl.Tile[[4, 64], pl.FP32]").replace(
    "pl.view(x, [4, 64], [b, 0])", "pl.load(x, [b, 0], [4, 64], target_memory=pl.MemorySpace.Vec)").replace(
    "pl.assemble(out, moved, [b, 0])", "pl.store(moved, [b, 0], out)")

# A helper that one call gives a Tile (in a kernel) and another a Tensor (in orchestration): c39
# checks the local's annotation at each call and no one annotation fits both.
HELPER_BOTH = HELPER.replace("""        with pl.auto_incore():""", """        whole = shift(x)
        with pl.auto_incore():""")

# March code c39 accepts: a helper's parameter annotations are not checked when it is inlined,
# so a Tile passed to a `pl.Tensor` parameter is accepted, and the file is left as it is.
ACCEPTED_HELPER = '''import pypto.language as pl


@pl.inline
def shift(t: pl.Tensor[[4, 64], pl.FP32]) -> pl.Tensor[[4, 64], pl.FP32]:
    r = pl.add(pl.mul(t, 0.5), 1.0)
    return r


@pl.program
class Example:
    @pl.function
    def f(
        self,
        x: pl.Tensor[[16, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 16, 4, chunk=1):
                rows = pl.load(x, [b, 0], [4, 64], target_memory=pl.MemorySpace.Vec)
                out = pl.store(shift(rows), [b, 0], out)
        return out
'''


def test_a_namespaced_tensor_op_on_a_tile_takes_the_unified_op(run_rules):
    result = run_rules(NAMESPACED)
    assert result.output == NAMESPACED_AFTER
    assert {e.rule for e in result.edits} >= {"PTO024", "PTO008"} and result.findings == []
    assert run_rules(result.output).output == result.output


def test_an_inline_helper_given_a_tile_says_tile(run_rules):
    result = run_rules(HELPER)
    assert result.output == HELPER_AFTER
    assert [e.rule for e in result.edits].count("PTO018") == 3 and result.findings == []
    assert run_rules(result.output).output == result.output


def test_an_inline_helper_given_a_tile_and_a_tensor_is_flagged(run_rules):
    lines = run_rules(HELPER_BOTH).output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("    r: pl.Tensor[[4, 64], pl.FP32] ="))
    assert "review PTO015: @pl.inline shift is called with a Tile and with a Tensor" in lines[at - 1]
    assert lines[4].startswith("def shift(t: pl.Tensor[[4, 64], pl.FP32])")  # parameters are not checked: left


def test_a_helper_the_compiler_accepts_stays(run_rules):
    result = run_rules(ACCEPTED_HELPER)
    assert result.output == ACCEPTED_HELPER and result.edits == [] and result.findings == []


@pytest.mark.parametrize("before,after", [(NAMESPACED, NAMESPACED_AFTER), (HELPER, HELPER_AFTER)], ids=["namespaced", "helper"])
def test_the_migrations_compute_what_the_originals_did(before, after, api):
    assert verify(("before.py", before), ("after.py", after), Settings(), api, "2026-03").code == EQUIVALENT


@pytest.mark.parametrize("after", [NAMESPACED_AFTER, HELPER_AFTER, ACCEPTED_HELPER], ids=["namespaced", "helper", "accepted"])
def test_c39_accepts_the_migrations(after, tmp_path):
    pypto_or_skip()
    from codemods.compiler import bridge

    path = tmp_path / "kernel.py"
    path.write_text(after)
    assert bridge.compile_source(path, None, "passes").errors == []


@pytest.mark.parametrize("old,new,message", [
    ("top = pl.maximum(rows, pl.add(rows, 1.0))", "top = pl.tensor.maximum(rows, pl.add(rows, 1.0))",
     "tensor.maximum requires first argument to be a TensorType, but got TileType"),
    ("    r: pl.Tile[[4, 64], pl.FP32] =", "    r: pl.Tensor[[4, 64], pl.FP32] =",
     "Type annotation for 'r' is Tensor but expression has type Tile"),
], ids=["namespaced", "helper"])
def test_c39_rejects_what_the_fixes_replace(old, new, message, tmp_path):
    pypto_or_skip()
    from codemods.compiler import bridge

    text = NAMESPACED_AFTER if "maximum" in old else HELPER_AFTER
    assert old in text
    path = tmp_path / "kernel.py"
    path.write_text(text.replace(old, new, 1))
    [error] = bridge.compile_source(path, None, "parse").errors
    assert message in error.message


# A region migrated for another statement (pl.neg on a slice): the helper's call reads a slice
# that no rejection needs loaded, so it stays a Tensor slice (c39 lowers the tensor ops), and
# the helper keeps its Tensor annotations.
UNTOUCHED_CALL = HELPER.replace("""        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    )""", """        out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
        side: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
    )""").replace("""                rows = pl.view(x, [4, 64], [b, 0])
                moved = shift(pl.neg(rows))
                out = pl.assemble(out, moved, [b, 0])""", """                rows = pl.slice(x, [4, 64], [b, 0])
                side = pl.assemble(side, shift(rows), [b, 0])
                other = pl.slice(x, [4, 64], [b, 0])
                out = pl.assemble(out, pl.neg(other), [b, 0])""")


def test_a_helper_whose_call_stays_as_it_is_keeps_its_annotations(run_rules, tmp_path):
    result = run_rules(UNTOUCHED_CALL)
    assert "other = pl.load(x, [b, 0], [4, 64]" in result.output
    assert "rows = pl.slice(x, [4, 64], [b, 0])" in result.output and "side = pl.assemble(side, shift(rows), [b, 0])" in result.output
    assert "pl.Tile" not in result.output and result.findings == []
    pypto_or_skip()
    from codemods.compiler import bridge

    path = tmp_path / "kernel.py"
    path.write_text(result.output)
    assert bridge.compile_source(path, None, "passes").errors == []
