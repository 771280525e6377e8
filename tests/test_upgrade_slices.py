"""The 2026-08 rules of runtime-extent slices (PTO121), rank-reducing slices (PTO175), matmul
results merged with vector values (PTO176): what they rewrite, and what they leave to a person."""

from __future__ import annotations

import pytest

from conftest import upgrade

KERNEL = '''
import pypto.language as pl


@pl.program
class Example:
    @pl.function
    def k(self, x: pl.Tensor[[4, 128], pl.FP32], out: pl.Out[pl.Tensor[[4, 128], pl.FP32]], red: pl.Out[pl.Tensor[[4, 2], pl.FP32]]) -> pl.Tensor[[4, 128], pl.FP32]:
        for r in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                for b in pl.range(2):
                    s0 = b * 64
                    n = pl.min(64, 100 - s0)
                    row = pl.mul(pl.slice(x, [1, 64], [r, s0]), 1.0)
                    v = pl.slice(row, [1, n], [0, 0])
{after}
        return out
'''


def _upgrade(after: str) -> str:
    return upgrade(KERNEL.format(after=after)).output


@pytest.mark.parametrize("after,fill", [
    ("                    red = pl.assemble(red, pl.row_sum(v), [r, b])", "zero"),
    ("                    red = pl.assemble(red, pl.row_max(v), [r, b])", "min"),
    ("                    red = pl.assemble(red, pl.row_min(pl.neg(v)), [r, b])", "min"),
    ("                    e = pl.exp(pl.row_expand_sub(v, pl.row_max(v)))\n"
     "                    red = pl.assemble(red, pl.row_sum(e), [r, b])", "min"),
])
def test_the_padding_takes_the_identity_of_the_reduction_that_reads_it(after, fill):
    out = _upgrade(after)
    assert f"v = pl.fillpad(pl.slice(row, [1, 64], [0, 0], valid_shape=[1, n]), pad_value=pl.PadValue.{fill})" in out
    assert "review PTO121" not in out


def test_padding_no_reduction_reads_is_left_unfilled():
    out = _upgrade("                    w = pl.exp(v)\n                    s = pl.row_sum(pl.slice(x, [1, 64], [r, 0]))")
    assert "v = pl.slice(row, [1, 64], [0, 0], valid_shape=[1, n])" in out and "fillpad" not in out


@pytest.mark.parametrize("after", [
    "                    out = pl.assemble(out, v, [r, s0])",  # the padding would be written out
    "                    red = pl.assemble(red, pl.row_sum(pl.mul(v, v)), [r, b])",  # no single fill keeps both
])
def test_padding_that_reaches_what_is_not_followed_is_flagged(after):
    out = _upgrade(after)
    assert "review PTO121" in out and "v = pl.slice(row, [1, n], [0, 0])" in out


def test_an_extent_without_a_constant_bound_is_flagged():
    out = upgrade(KERNEL.format(after="                    red = pl.assemble(red, pl.row_sum(v), [r, b])").replace(
        "n = pl.min(64, 100 - s0)", "n = 100 - s0")).output
    assert "review PTO121" in out and "fillpad" not in out


RESHAPE = '''
import pypto.language as pl


def build(width: int = 64):
    @pl.program
    class Example:
        @pl.function
        def k(self, x: pl.Tensor[[1, 64], pl.FP32], m: pl.Tensor[[1], pl.INT32], y: pl.Out[pl.Tensor[[1, 1, 64], pl.FP32]]) -> pl.Tensor[[1, 1, 64], pl.FP32]:
            cnt = pl.tensor.read(m, [0])
            with pl.at(level=pl.Level.CORE_GROUP):
                n = pl.min(64, cnt)
                e = pl.exp(pl.load(x, [0, 0], [1, 64], target_memory=pl.MemorySpace.Vec))
                y = pl.store(pl.reshape(e, [1, 1, {extent}]), [0, 0, 0], y)
            return y

    return Example
'''


def test_a_kernel_reshape_to_a_runtime_extent_is_flagged():
    # e2d0f78ae: "dynamic (non-constant) dimension ... every tile dimension must be a compile-time constant"
    out = upgrade(RESHAPE.format(extent="n")).output
    assert "review PTO121: pl.reshape: shape element 2 (`n`)" in out


@pytest.mark.parametrize("extent", ["width", "64"])
def test_a_kernel_reshape_to_a_size_known_when_the_program_is_built_is_left_alone(extent):
    text = RESHAPE.format(extent=extent)
    assert upgrade(text).output == text


SLICE = RESHAPE.replace("pl.reshape(e, [1, 1, {extent}])", "pl.reshape(pl.exp(pl.slice(e, [1, {extent}], [0, 0])), [1, 1, 64])")


def test_a_kernel_slice_of_a_runtime_width_and_of_a_width_known_when_built():
    # The slice check and the reshape check call the same names runtime (model.extents.runtime_names):
    # the kernel's `n` is, the builder's `width` is a Python int when the program is built.
    assert "review PTO121: pl.slice: shape element 1 (`n`)" in upgrade(SLICE.format(extent="n")).output
    text = SLICE.format(extent="width")
    assert upgrade(text).output == text


def test_a_branch_choosing_matmul_or_matmul_acc_is_left_alone():
    code = '''
import pypto.language as pl


@pl.program
class Example:
    @pl.function
    def k(self, a: pl.Tensor[[16, 64], pl.BF16], w: pl.Tensor[[64, 128], pl.BF16], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.create_tensor([16, 128], dtype=pl.FP32)
            for i in pl.range(2):
                x = pl.slice(a, [16, 32], [0, i * 32])
                y = pl.slice(w, [32, 128], [i * 32, 0])
                if i == 0:
                    acc = pl.matmul(x, y, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, x, y)
            out = pl.assemble(out, acc, [0, 0])
        return out
'''
    assert upgrade(code).output == code


def test_a_half_precision_tensor_matmul_split_along_k_keeps_its_dtype():
    """A tensor matmul of BF16 operands is BF16 (c39fe714a and e2d0f78ae): the FP32 sum of the K
    chunks is cast back once, where an FP32 out_dtype keeps it as it is."""
    code = '''
import pypto.language as pl


@pl.program
class Example:
    @pl.function
    def k(self, a: pl.Tensor[[4, 512], pl.BF16], w: pl.Tensor[[512, 128], pl.BF16], out: pl.Out[pl.Tensor[[4, 128], pl.FP32]]) -> pl.Tensor[[4, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.slice(a, [4, 512], [0, 0])
            y = pl.slice(w, [512, 128], [0, 0])
            c = pl.add(pl.mul(pl.create_tensor([4, 128], dtype=pl.FP32), 0.0), pl.matmul(x, y))
            out = pl.assemble(out, c, [0, 0])
        return out
'''
    out = upgrade(code).output
    assert "pl.matmul(pl.slice(x, [4, 512 // 2], [0, 0]), pl.slice(w, [512 // 2, 128], [0, 0]), out_dtype=pl.FP32)" in out
    assert "pl.cast(acc_k, target_type=pl.BF16))" in out


SUBSCRIPT_RIGHT = '''
import pypto.language as pl


@pl.program
class Example:
    @pl.function(type=pl.FunctionType.Opaque)
    def k(self, x: pl.Tensor[[{m}, 512], pl.BF16], w: pl.Tensor[[512, 128], pl.BF16], out: pl.Out[pl.Tensor[[{m}, 128], pl.FP32]]) -> pl.Tensor[[{m}, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:, :] = pl.matmul(x, w[0:512, 0:128], out_dtype=pl.FP32)
        return out
'''


def test_a_thin_matmul_whose_right_operand_is_not_split_by_hand_is_flagged():
    # e2d0f78ae: "Right buffer usage (131072 bytes) exceeds platform limit (65536 bytes)", with no line
    # of the user's: the marker stands at the matmul. From 16 rows the compiler tiles K itself.
    out = upgrade(SUBSCRIPT_RIGHT.format(m=4)).output
    assert "review PTO177: a matmul of 4 rows: its right operand `w[0:512, 0:128]` (131072 bytes) overflows L0B" in out
    text = SUBSCRIPT_RIGHT.format(m=16)
    assert upgrade(text).output == text
