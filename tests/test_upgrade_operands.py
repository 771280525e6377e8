"""The 2026-08 rules of operand types (PTO150): an index scalar where a tile op wants its element type."""

from __future__ import annotations

from conftest import upgrade

ARANGE = '''
import pypto.language as pl


@pl.program
class Example:
    @pl.function(type=pl.FunctionType.Opaque)
    def k(self, x: pl.Tensor[[1, 2048], pl.FP32], y: pl.Out[pl.Tensor[[1, 2048], pl.FP32]]) -> pl.Tensor[[1, 2048], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for vb in pl.range(4):
                v0 = vb * 512
                t = pl.load(x, [0, v0], [1, 512], target_memory=pl.MemorySpace.Vec)
                iota = pl.cast(pl.tile.arange({start}, [1, 512], dtype=pl.INT32), target_type=pl.FP32)
                y = pl.store(pl.add(t, iota), [0, v0], y)
        return y
'''


def test_an_index_start_of_arange_is_cast_to_its_dtype():
    # e2d0f78ae: "The operator tile.ci requires 'start' dtype (index) to match destination dtype (int32)";
    # the cast form is accepted (measured)
    out = upgrade(ARANGE.format(start="v0")).output
    assert "pl.tile.arange(pl.cast(v0, pl.INT32), [1, 512], dtype=pl.INT32)" in out


def test_a_literal_start_of_arange_is_left_alone():
    text = ARANGE.format(start="0")
    assert upgrade(text).output == text


FLAG_LOOP = '''
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        done = 0
        for i in pl.range(4):
            if not done:
                t = pl.load(x, [0, 0], [16, 64], target_memory=pl.MemorySpace.Vec)
                out = pl.store(t, [0, 0], out)
                done = 1
        return out
'''


def test_not_of_a_flag_bound_to_numbers_keeps_its_bitwise_meaning_as_a_bool_test():
    """`done = 0` and `done = 1` make an INDEX variable of the DSL: c39's `not done` was bitwise
    (always true here), 2026-08's is logical (true once). PTO141 keeps `~done` and flags it, and
    PTO149 makes the test a Bool: `(~done) != 0` (accepted by e2d0f78ae; verify: equivalent).
    Before, the name was taken for a number the parser folds and the line was left unmarked."""
    result = upgrade(FLAG_LOOP.lstrip("\n"))
    lines = result.output.splitlines()
    at = lines.index("            if (~done) != 0:")
    assert "review PTO141: `not done` was a bitwise not of the INDEX `done`" in lines[at - 1]


TRANSPOSED_SCORES = '''
import pypto.language as pl

M = 16
N = 64
D = 128


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, q: pl.Tensor[[M, D], pl.BF16], kv: pl.Tensor[[N, D], pl.BF16],
          out: pl.Out[pl.Tensor[[M, 1], pl.FP32]]) -> pl.Tensor[[M, 1], pl.FP32]:
        left = pl.move(pl.load(q, [0, 0], [M, D], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Left)
        right = pl.move(pl.load(kv, [0, 0], [N, D], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Right, transpose=True)
        s = pl.move(pl.matmul(left, right), target_memory=pl.MemorySpace.Vec)
        s_tmp = pl.create_tile([M, N], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        out = pl.store(pl.row_max(s, s_tmp), [0, 0], out)
        return out
'''


def test_a_transposed_operand_makes_the_product_of_the_swapped_shape():
    """c39's `move(..., transpose=True)` (2026-08's transpose_view) swaps rows and columns, so
    the scores are [M, N] and their [M, N] scratch is big enough: before, the product was typed
    [M, D], PTO147 added a second [M, D] scratch and used it (verify: "tmp_tile [16, 128] does not
    match the input [16, 64]"; Vec wasted)."""
    result = upgrade(TRANSPOSED_SCORES.lstrip("\n"))
    assert result.output.count("pl.create_tile(") == 1
    assert "pl.row_max(s, s_tmp)" in result.output


WHOLE_THROUGH_A_VIEW = '''
import pypto.language as pl

B = 4
D = 64


@pl.jit
def entry(x: pl.Tensor[[B, D], pl.FP32], y: pl.Out[pl.Tensor[[B, D], pl.FP32]]):
    y_flat = pl.reshape(y, [B * D])
    with pl.at(level=pl.Level.CORE_GROUP):
        y_flat[0 : B * D] = pl.reshape(pl.mul(x, 2.0), [B * D])
    y = pl.reshape(y_flat, [B, D])
    return y
'''


def test_an_output_written_whole_through_a_reshaped_view_stays_out():
    """`y_flat = pl.reshape(y, ...)` names the whole of y again and reads nothing; written whole
    through it, y is an Out as declared (accepted by e2d0f78ae as written). Before, the reshape
    counted as a read and y became InOut: an edit of accepted code (the May library's form)."""
    text = WHOLE_THROUGH_A_VIEW.lstrip("\n")
    assert upgrade(text).output == text


PART_THROUGH_A_VIEW = '''
import pypto.language as pl

N = 8
D = 64


@pl.jit.inline
def append(cache: pl.Tensor[[N, D], pl.FP32], row: pl.Tensor[[1, D], pl.FP32], slot: pl.Scalar[pl.INDEX]):
    flat = pl.reshape(cache, [N * D])
    with pl.at(level=pl.Level.CORE_GROUP):
        flat = pl.assemble(flat, pl.reshape(row, [D]), [slot * D])
    cache = pl.reshape(flat, [N, D])
    return cache


@pl.jit
def entry(cache: pl.Tensor[[N, D], pl.FP32], row: pl.Tensor[[1, D], pl.FP32], slot: pl.Scalar[pl.INDEX]):
    cache = append(cache, row, slot)
    return cache
'''


def test_a_cache_written_in_part_through_a_view_is_in_out():
    """A plain parameter is not copied back at 2026-08 (PTO142). Written at one slot through a
    reshaped view in an inline helper, the entry's cache is an output that keeps its other
    slots: InOut. Before, a write through the view was not seen as a write of the cache."""
    out = upgrade(PART_THROUGH_A_VIEW.lstrip("\n")).output
    assert "def entry(cache: pl.InOut[pl.Tensor[[N, D], pl.FP32]]" in out
