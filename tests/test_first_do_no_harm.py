"""Code the target compiler accepts comes out byte for byte (issue 13).

Each kernel here is accepted by pypto c39fe714a as it stands (benchmarks/measure_api.py
measures the forms they use): Tensor ops inside kernel regions, which the compiler's
ConvertTensorToTileOps pass lowers, tile code in an Opaque function, a tensor matmul with
b_trans. No rule may touch them, and no review marker may be written into them.
"""

from __future__ import annotations

import pytest

ACCEPTED = {
    "tensor ops in an incore block": '''
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.incore():
            y = pl.add(x, x)
            out = pl.assemble(out, pl.exp(y), [0, 0])
        return out
''',
    "tensor attention step under auto_incore": '''
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, q: pl.Tensor[[64, 64], pl.BF16], k: pl.Tensor[[64, 64], pl.BF16],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 64, 16, chunk=1):
                qi = pl.slice(q, [16, 64], [b, 0])
                s = pl.matmul(qi, k, b_trans=True, out_dtype=pl.FP32)
                acc = pl.create_tensor([16, 64], dtype=pl.FP32)
                acc = pl.add(acc, pl.row_max(s))
                out = pl.assemble(out, pl.sub(s, acc), [b, 0])
        return out
''',
    "tile code in an Opaque function": '''
import pypto.language as pl


@pl.function
def f(t: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
    a: pl.Tile[[64, 64], pl.FP32] = pl.tile.load(t, offsets=[0, 0], shapes=[64, 64])
    c: pl.Tile[[64], pl.FP32] = pl.min(a, axis=0)
    b: pl.Tile[[64, 64], pl.FP32] = pl.add(a, a)
    result: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(b, offsets=[0, 0], output_tensor=out)
    return result
''',
    "annotated Tensor values in a chunked loop": '''
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 64, 16, chunk=1):
                rows: pl.Tensor[[16, 64], pl.FP32] = pl.slice(x, [16, 64], [b, 0])
                acc: pl.Tensor[[16, 64], pl.FP32] = pl.create_tensor([16, 64], dtype=pl.FP32)
                acc = pl.mul(acc, 0.0)
                acc = pl.add(acc, pl.exp(rows))
                out = pl.assemble(out, acc, [b, 0])
        return out
''',
    "a zero tile from pl.tile.full": '''
import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def k(out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    z = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
    out = pl.store(z, [0, 0], out)
    return out
''',
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_accepted_code_is_left_byte_for_byte(name, run_rules):
    text = ACCEPTED[name].lstrip("\n")
    result = run_rules(text)
    assert result.output == text
    assert result.edits == []


def test_a_rejected_op_still_migrates_its_region(run_rules):
    """The same kind of region with a tile-only op on a Tensor (rejected: `The operator
    tile.recip requires argument to be a TileType, but got TensorType`) is migrated."""
    text = ACCEPTED["tensor ops in an incore block"].lstrip("\n").replace("pl.exp(y)", "pl.recip(y)")
    result = run_rules(text)
    assert "pl.load(" in result.output and "pl.recip(y)" in result.output
    assert "pl.assemble(out" not in result.output  # the Tile is stored, not assembled


def test_accepted_region_beside_a_rejected_one_is_kept(run_rules):
    accepted = ACCEPTED["tensor attention step under auto_incore"].lstrip("\n")
    rejected_block = (
        "        with pl.incore():\n"
        "            r = pl.rsqrt(pl.slice(k, [16, 64], [0, 0]))\n"
        "            out = pl.assemble(out, pl.cast(r, target_type=pl.FP32), [0, 0])\n"
        "        return out\n"
    )
    text = accepted.replace("        return out\n", rejected_block)
    result = run_rules(text)
    kept = accepted.split("        return out\n")[0]
    assert result.output.startswith(kept)
    assert "pl.rsqrt(pl.slice" not in result.output
