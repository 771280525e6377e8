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
