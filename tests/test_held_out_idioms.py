"""The idioms of real kernels the DeepSeek files do not use (issue 13, item 3): each is a fix
the tool makes, on fixtures of our own, and the compiler rejects the form it replaces."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from needs import pypto_or_skip


def after(name: str) -> str:
    return (FIXTURES / "2026-03" / "after" / f"{name}.py").read_text()


@pytest.fixture
def compiler():
    pypto_or_skip()
    from codemods.compiler import bridge

    return bridge


def test_matmul_transposition_flags_become_transposing_moves():
    text = after("idiom_matmul_trans")
    assert "b_trans" not in text.split('"""', 2)[2] and "a_trans" not in text.split('"""', 2)[2]
    assert "target_memory=pl.MemorySpace.Right, transpose=True)" in text
    assert "pl.move(g_blk, target_memory=pl.MemorySpace.Left, transpose=True)" in text


def test_the_tile_matmul_rejects_the_flags_the_fix_removes(compiler, tmp_path):
    text = after("idiom_matmul_trans").replace(
        "target_memory=pl.MemorySpace.Right, transpose=True))", "target_memory=pl.MemorySpace.Right), b_trans=True)", 1)
    path = tmp_path / "kernel.py"
    path.write_text(text)
    [error] = compiler.compile_source(path, None, "parse").errors
    assert "unexpected keyword argument 'b_trans'" in error.message


def test_matmul_flags_on_tensors_outside_kernels_stay(run_rules):
    code = (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n    @pl.function\n"
        "    def f(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16]) -> pl.Tensor[[16, 64], pl.BF16]:\n"
        "        c = pl.matmul(a, b, b_trans=True)\n        return c\n"
    )
    assert run_rules(code).output == code


def test_documented_ops_keep_their_type_and_their_tensor_operands_are_loaded():
    text = after("idiom_tile_ops")
    assert "summed = pl.addc(leaky, b, bias_tile)" in text
    assert "diff = pl.subc(summed, b, bias_tile)" in text
    assert "out = pl.store(pl.add(norm, summed), [r0, 0], out)" in text  # a Tile is stored, not assembled
    assert "fill = pl.store(pl.expands(norm, 0.5), [r0, 0], fill)" in text
    assert "pypto-migrate: review" not in text


def test_the_compiler_rejects_a_tensor_operand_and_an_assembled_tile(compiler, tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text(after("idiom_tile_ops").replace("pl.addc(leaky, b, bias_tile)", "pl.addc(leaky, b, bias)"))
    [error] = compiler.compile_source(path, None, "parse").errors
    assert "addc requires third argument to be a TileType, but got TensorType" in error.message
    path.write_text(after("idiom_tile_ops").replace("out = pl.store(pl.add(norm, summed), [r0, 0], out)",
                                                    "out = pl.assemble(out, pl.add(norm, summed), [r0, 0])"))
    [error] = compiler.compile_source(path, None, "parse").errors
    assert "assemble requires second argument to be a TensorType, but got TileType" in error.message


def test_annotations_are_written_from_the_value_type_where_they_disagree():
    text = after("idiom_annotations")
    assert "y: pl.Tensor[[rows, OUT], pl.FP32] = pl.matmul(x, w, out_dtype=pl.FP32)" in text
    assert "part: pl.Tile[[ROWS, OUT], pl.FP32] = pl.load(y, [r0, 0], [ROWS, OUT], target_memory=pl.MemorySpace.Vec)" in text


def test_the_compiler_rejects_the_annotation_the_fix_replaces(compiler, tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text(after("idiom_annotations").replace("y: pl.Tensor[[rows, OUT], pl.FP32]", "y: pl.Tensor[[rows, 2 * OUT], pl.FP32]"))
    [error] = compiler.compile_source(path, None, "parse").errors
    assert "Type annotation for 'y' has shape dimension 1 = 128 but expression has shape dimension 1 = 64" in error.message


def test_the_strict_check_holds_annotations_to_the_inferred_type(api):
    import libcst as cst

    from codemods.check.strict import check_module

    text = after("idiom_annotations")
    assert check_module(cst.parse_module(text), api) == []
    wrong = text.replace("y: pl.Tensor[[rows, OUT], pl.FP32]", "y: pl.Tensor[[rows, OUT], pl.BF16]")
    assert [v.message for v in check_module(cst.parse_module(wrong), api)] == [
        "Type annotation for 'y' has dtype bfloat16 but expression has dtype fp32"]


ACCEPTED_ANNOTATIONS = '''\
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[4, 8], pl.INT32], n: pl.Tensor[[D, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.INT32]:
        y: pl.Tensor[[4, 8], pl.INT32] = pl.mul(x, 2)
        z: pl.Tensor[[E, 8], pl.FP32] = pl.exp(n)
        return y
'''


def test_annotations_the_compiler_accepts_stay(run_rules):
    # INDEX (an int times an INT32 tensor) passes for any integer annotation; D and E are not
    # known here, so the shapes cannot be told apart: nothing is said.
    result = run_rules(ACCEPTED_ANNOTATIONS)
    assert result.output == ACCEPTED_ANNOTATIONS and result.edits == [] and result.findings == []


TILE_VIEW_VALID = '''
import pypto.language as pl


@pl.program
class Example:
    @pl.function(type=pl.FunctionType.Opaque)
    def f(self, x: pl.Tensor[[8, 64], pl.FP32], lens: pl.Tensor[[1], pl.INT32], out: pl.Tensor[[8, 1], pl.FP32]) -> pl.Tensor[[8, 1], pl.FP32]:
        with pl.auto_incore():
            for i in pl.parallel(0, 2, 1, chunk=2):
                n = pl.tensor.read(lens, [0])
                width = pl.min(64, n)
                scaled = pl.mul(pl.view(x, [8, 64], [0, 0]), 0.25)
                kept = pl.view(scaled, [8, 64], [0, 0], valid_shape=[8, width])
                out = pl.assemble(out, pl.row_max(kept), [0, 0])
        return out
'''


def test_a_valid_shape_view_of_a_tile_is_flagged_at_its_line(run_rules):
    """c39's tile.slice takes no valid_shape (measured: "slice() got an unexpected keyword
    argument 'valid_shape'"); moving the region onto the feeding load would change what the
    row_max reads at widths under 64 (verify: the February CCE backend reduced over the
    padding), so a person decides, and the marker stands right above the refused line."""
    lines = run_rules(TILE_VIEW_VALID.lstrip("\n")).output.splitlines()
    at = next(i for i, line in enumerate(lines) if "valid_shape=[8, width]" in line and "review" not in line)
    assert "# pypto-migrate: review PTO002: valid_shape=[8, width] on a slice of Tile scaled" in lines[at - 1]


IMPORTED_SIZES = '''
import pypto.language as pl

from sizes import K, N, ROWS


@pl.program
class Example:
    @pl.function(type=pl.FunctionType.Opaque)
    def f(self, x: pl.Tensor[[ROWS, K], pl.BF16], w: pl.Tensor[[K, N], pl.BF16], out: pl.Tensor[[ROWS, N], pl.FP32]) -> pl.Tensor[[ROWS, N], pl.FP32]:
        with pl.auto_incore():
            for i in pl.parallel(0, 2, 1, chunk=2):
                y = pl.matmul(pl.view(x, [ROWS, K], [0, 0]), pl.view(w, [K, N], [0, 0]))
                out = pl.assemble(out, y, [0, 0])
        return out
'''


def test_sizes_imported_from_another_module_are_not_runtime_extents(run_rules):
    """An imported size is a Python number when the program is built (c39 folds it): the loads
    take it as their shape, with no marker calling it a runtime value."""
    result = run_rules(IMPORTED_SIZES.lstrip("\n"))
    assert "pl.load(x, [0, 0], [ROWS, K]" in result.output
    assert "review PTO002" not in result.output
