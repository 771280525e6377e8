"""The interpreter runs what the May 2026 library calls, with the dtypes the compilers give
(each measured at c39, the 2026-05-26 compiler and e2d0f78ae; see the ops' docstrings)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from codemods.interp import dtypes as D
from codemods.interp.execute import Settings
from codemods.interp.language import build
from codemods.interp.ops import HEAD, OLD, STRICT, Machine
from codemods.interp.values import KernelError, Tensor, Tile
from codemods.interp.verify import EQUIVALENT, MISMATCH, verify
from codemods.rulebook.loading import load_api

BF16, FP32, INT8, INT32 = (D.DTYPES[n] for n in ("BF16", "FP32", "INT8", "INT32"))


def machine(profile: str = OLD, predates: bool = False, kernel: bool = True):
    m = Machine(profile, load_api(None, "2026-08" if profile == HEAD else "2026-03"), 0, "zero", predates)
    pl = build(m)
    if kernel:
        m.kernel = m.new_kernel()
    return m, pl


def tensor(values, dtype) -> Tensor:
    data = D.cast(np.asarray(values, dtype=np.float64), dtype)
    return Tensor(data, np.zeros(data.shape, dtype=bool), "t")


def tile(m, values, dtype) -> Tile:
    return Tile(D.cast(np.asarray(values, dtype=np.float64), dtype), "Vec", m.kernel)


RNG = np.random.default_rng(1)
A, B = RNG.uniform(-2, 2, (16, 64)), RNG.uniform(-2, 2, (64, 16))


def test_a_tensor_matmul_keeps_its_operands_dtype():
    m, pl = machine(OLD)
    out = pl.matmul(tensor(A, BF16), tensor(B, BF16))
    assert out.dtype == BF16
    exact = D.cast(A, BF16).astype(np.float64) @ D.cast(B, BF16).astype(np.float64)
    assert np.array_equal(out.data, exact.astype(np.float32).astype(ml_dtypes.bfloat16))
    assert pl.matmul(tensor(A, BF16), tensor(B, BF16), out_dtype=FP32).dtype == FP32


def test_old_code_before_the_oldest_step_had_the_tile_product_in_a_kernel():
    m, pl = machine(OLD, predates=True)
    assert pl.matmul(tensor(A, BF16), tensor(B, BF16)).dtype == FP32
    m.kernel = None  # orchestration: the tensor op there too
    assert pl.matmul(tensor(A, BF16), tensor(B, BF16)).dtype == BF16
    with pl.auto_incore():
        assert pl.matmul(tensor(A, BF16), tensor(B, BF16)).dtype == FP32


def test_a_tile_matmul_lands_in_acc_as_fp32_or_int32():
    m, pl = machine(HEAD)
    left = Tile(D.cast(A, BF16), "Left", m.kernel)
    right = Tile(D.cast(B, BF16), "Right", m.kernel)
    assert pl.tile.matmul(left, right).dtype == FP32
    ints = (Tile(np.ones((16, 64), np.int8), "Left", m.kernel), Tile(np.ones((64, 16), np.int8), "Right", m.kernel))
    assert pl.tile.matmul(*ints).dtype == INT32


@pytest.mark.parametrize("profile", [OLD, HEAD])
def test_an_expand_of_bf16_by_an_fp32_row_is_fp32_and_may_be_cast_to_bf16(profile):
    m, pl = machine(profile)
    x, row = tensor(A, BF16), tensor(RNG.uniform(-1, 1, (1, 64)), FP32)
    y = pl.col_expand_mul(x, row)
    assert y.dtype == FP32
    assert pl.cast(y, target_type=BF16).dtype == BF16  # e2d0f78ae accepts this cast: not a same-dtype one
    with pytest.raises(KernelError, match="same-dtype") if profile == HEAD else _nothing():
        pl.cast(x, target_type=BF16)


def test_two_operands_of_two_float_widths_give_the_wider():
    m, pl = machine(OLD)
    assert pl.add(tensor(A, BF16), tensor(A, FP32)).dtype == FP32
    assert pl.mul(tensor(A, BF16), 2.0).dtype == FP32  # a tensor op takes a float as an FP32 scalar
    assert pl.mul(tile(m, A, BF16), 2.0).dtype == BF16  # a tile op of a scalar keeps its dtype
    assert pl.add(tensor(A, FP32), tensor(A, FP32)).dtype == FP32


def test_col_expand_repeats_the_row_over_the_target():
    m, pl = machine(OLD)
    row = RNG.uniform(-1, 1, (1, 64))
    out = pl.col_expand(tensor(A, FP32), tensor(row, FP32))
    assert out.shape == (16, 64) and np.array_equal(out.data, np.repeat(row.astype(np.float32), 16, axis=0))
    with pytest.raises(KernelError, match=r"needs a \[1, 64\] vector"):
        pl.col_expand(tensor(A, FP32), tensor(row[:, :8], FP32))
    # of a BF16 target and an FP32 row, or the other way, FP32 (measured at 2026-05-26 and e2d0f78ae)
    assert pl.col_expand(tensor(A, BF16), tensor(row, FP32)).dtype == FP32
    assert pl.col_expand(tensor(A, FP32), tensor(row, BF16)).dtype == FP32


def test_arange_counts_along_the_row():
    m, pl = machine(OLD)
    out = pl.tensor.arange(3, [1, 8], dtype=D.DTYPES["UINT32"])
    assert out.dtype.name == "UINT32" and out.data.tolist() == [[3, 4, 5, 6, 7, 8, 9, 10]]
    assert pl.tile.arange(7, [1, 4], descending=True).data.tolist() == [[7, 6, 5, 4]]
    _, c39 = machine(STRICT)
    assert not hasattr(c39, "spmd")  # c39 had no spmd


@pytest.mark.parametrize("mode, expected", [
    ("trunc", [2, -2, 0, 3]), ("floor", [2, -3, -1, 3]), ("ceil", [3, -2, 0, 4]),
    ("round", [3, -3, -1, 3]), ("rint", [2, -2, 0, 3]), (5, [2, -2, 0, 3]),
])
def test_cast_to_an_integer_rounds_as_its_mode_says(mode, expected):
    m, pl = machine(OLD)
    x = tensor([[2.5, -2.5, -0.5, 3.25]], FP32)
    assert pl.cast(x, target_type=INT8, mode=mode).data.tolist() == [expected]


def test_directed_modes_to_a_narrower_float_are_refused_not_guessed():
    m, pl = machine(OLD)
    with pytest.raises(KernelError, match="not modelled"):
        pl.cast(tensor(A, FP32), target_type=BF16, mode="trunc")
    with pytest.raises(KernelError, match="not one of"):
        pl.cast(tensor(A, FP32), target_type=BF16, mode="sideways")


def test_spmd_runs_each_block_as_a_kernel_of_its_own():
    m, pl = machine(HEAD, kernel=False)
    seen = []
    for i in pl.spmd(3, name_hint="blocks"):
        seen.append((int(i), m.kernel))
    assert [i for i, _ in seen] == [0, 1, 2]
    assert len({k for _, k in seen}) == 3 and None not in {k for _, k in seen}
    assert m.kernel is None
    with pytest.raises(KernelError, match="positive"):
        pl.spmd(0)


MATMUL_ORIGINAL = '''
import pypto.language as pl

M, K, N = 16, 256, 16


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[M, K], pl.BF16], b: pl.Tensor[[K, N], pl.BF16],
             out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        with pl.auto_incore():
            acc = pl.create_tensor([M, N], dtype=pl.FP32)
            acc = pl.mul(acc, 0.0)
            acc = pl.add(acc, pl.matmul(a, b))
            out = pl.assemble(out, acc, [0, 0])
        return out
'''


def test_a_migration_that_keeps_the_bf16_rounding_of_a_tensor_product_is_equivalent():
    """April's decode_front: the K-split product, cast to BF16 as the original's tensor matmul was."""
    migrated = MATMUL_ORIGINAL.replace("with pl.auto_incore():", "with pl.at(level=pl.Level.CORE_GROUP):").replace(
        "pl.add(acc, pl.matmul(a, b))", "pl.add(acc, pl.cast(pl.matmul(a, b, out_dtype=pl.FP32), target_type=pl.BF16))")
    api = load_api(None, "2026-03")
    verdict = verify(("orig.py", MATMUL_ORIGINAL), ("mig.py", migrated), Settings(), api, "2026-08")
    assert verdict.code == EQUIVALENT, verdict.message
    unrounded = migrated.replace("pl.cast(pl.matmul(a, b, out_dtype=pl.FP32), target_type=pl.BF16)",
                                 "pl.matmul(a, b, out_dtype=pl.FP32)")
    verdict = verify(("orig.py", MATMUL_ORIGINAL), ("mig.py", unrounded), Settings(), api, "2026-08")
    assert verdict.code == MISMATCH, verdict.message  # the FP32 product is not what the original computed


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_window_past_the_end_reads_only_its_valid_region():
    """May's hc_pre: a 24-row weight sliced as 32 rows with valid_shape [24, K], and a load of
    [16, 8] at column 12 of 16 columns with valid_shapes [16, 4]."""
    m, pl = machine(OLD)
    w = tensor(RNG.uniform(-1, 1, (24, 16)), FP32)
    view = pl.slice(w, [32, 16], [0, 0], valid_shape=[24, 16])
    assert view.shape == (32, 16) and view.valid == (24, 16)
    assert np.array_equal(view.data[:24], w.data)
    loaded = pl.load(w, [0, 12], [16, 8], valid_shapes=[16, 4])
    assert loaded.valid == (16, 4) and np.array_equal(loaded.data[:, :4], w.data[:16, 12:])
    with pytest.raises(KernelError, match="out of bounds"):
        pl.slice(w, [32, 16], [0, 0], valid_shape=[28, 16])  # the valid region itself passes the end
    with pytest.raises(KernelError, match="out of bounds"):
        pl.slice(w, [32, 16], [0, 0])  # no valid region: no padding either


def test_a_store_writes_the_tiles_valid_region():
    m, pl = machine(OLD)
    out = tensor(np.zeros((16, 4)), FP32)
    t = Tile(D.cast(RNG.uniform(-1, 1, (16, 8)), FP32), "Vec", m.kernel, (16, 4))
    pl.store(t, [0, 0], out)
    assert out.written.all() and np.array_equal(out.data, t.data[:, :4])


def test_set_validshape_and_fillpad_mask_the_rest():
    m, pl = machine(OLD)
    t = tile(m, RNG.uniform(-1, 1, (16, 8)), FP32)
    padded = pl.fillpad(pl.set_validshape(t, 16, 4), pad_value=pl.PadValue.zero)
    assert np.array_equal(padded.data[:, :4], t.data[:, :4]) and not padded.data[:, 4:].any()


def test_rsqrt_takes_high_precision_from_2026_05_on():
    m, pl = machine(OLD)
    x = tensor([[4.0, 16.0]], FP32)
    assert pl.rsqrt(x, high_precision=True).data.tolist() == [[0.5, 0.25]]
    _, c39 = machine(STRICT)
    with pytest.raises(TypeError):
        c39.rsqrt(x, high_precision=True)


def test_a_rank_3_matmul_is_batched_over_its_leading_axis():
    m, pl = machine(OLD)
    x, w = RNG.integers(-3, 3, (1, 8, 16)), RNG.integers(-3, 3, (1, 4, 16))
    out = pl.matmul(tensor(x, INT8), tensor(w, INT8), b_trans=True, out_dtype=INT32)
    assert out.shape == (1, 8, 4) and np.array_equal(out.data[0], x[0] @ w[0].T)


def test_operands_that_do_not_broadcast_are_refused_with_the_compilers_words():
    """Kimi's `pl.mul` of [BATCH_TILE, K] by [K, 1], refused by its own day's compiler (2026-05-26)."""
    m, pl = machine(OLD)
    with pytest.raises(KernelError, match=r"tensor.mul requires compatible shapes, but got \[4, 256\] and \[256, 1\]"):
        pl.mul(tensor(np.ones((4, 256)), FP32), tensor(np.ones((256, 1)), FP32))


def test_sort32_mrgsort_and_gather_give_the_top_k_indices():
    """May's decode_front top-k: sort32 of a row with its indices, merges up to the whole row,
    then the index bits of the first pairs read back as INT32."""
    m, pl = machine(OLD)
    scores = RNG.permutation(128).astype(np.float64).reshape(1, 128) - 64
    pairs = pl.tensor.sort32(tensor(scores, FP32), pl.tensor.arange(0, [1, 128], dtype=D.DTYPES["UINT32"]))
    assert pairs.shape == (1, 256)
    first_block = pairs.data[0, 0:64:2]
    assert np.array_equal(first_block, np.sort(scores[0, :32])[::-1])  # each block of 32, descending
    merged = pl.tensor.mrgsort(pairs, block_len=64)  # four runs of 32 pairs: the whole row
    head = pl.slice(merged, [1, 8], [0, 0])
    top = pl.tensor.gather(head, mask_pattern=pl.tile.MaskPattern.P1010, output_dtype=INT32)
    values = pl.tensor.gather(head, mask_pattern=pl.tile.MaskPattern.P0101)
    assert top.dtype == INT32 and top.data.tolist() == [list(np.argsort(-scores[0])[:4])]
    assert values.data.tolist() == [sorted(scores[0], reverse=True)[:4]]
    with pytest.raises(KernelError, match="multiple of 32"):
        pl.tensor.sort32(tensor(scores[:, :40], FP32), tensor(scores[:, :40], D.DTYPES["UINT32"]))


def test_gather_by_index_along_the_last_axis():
    m, pl = machine(HEAD)
    x = tensor(np.arange(12).reshape(2, 6), FP32)
    idx = Tensor(np.array([[5, 0], [1, 1]], np.int32), np.zeros((2, 2), bool), "idx")
    assert pl.tensor.gather(x, -1, idx).data.tolist() == [[5, 0], [7, 7]]
    with pytest.raises(KernelError, match="out of bounds"):
        pl.tensor.gather(x, -1, Tensor(np.array([[6, 0], [0, 0]], np.int32), np.zeros((2, 2), bool), "idx"))


def test_a_module_this_python_lacks_stands_in_until_it_is_used(tmp_path):
    """library's golden.py imports torch for its test harness only: its kernel runs without it."""
    from codemods.interp.execute import load

    text = '''
import pypto.language as pl
import torch_that_is_not_here


def harness():
    return torch_that_is_not_here.zeros(4)


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        return x
'''
    m = Machine(OLD, load_api(None, "2026-03"), 0)
    program = load(str(tmp_path / "k.py"), text, Settings(), m)
    assert set(program.specs) == {"x"}
    with pytest.raises(Exception, match="torch_that_is_not_here is not installed here"):
        program.namespace["harness"]()
    import sys
    assert "torch_that_is_not_here" not in sys.modules


def test_the_old_four_argument_store_writes_a_window_of_its_tile():
    m, pl = machine(OLD)
    out = tensor(np.zeros((16, 8)), FP32)
    t = tile(m, RNG.uniform(-1, 1, (16, 8)), FP32)
    pl.store(t, [0, 0], [16, 4], out)
    assert out.written[:, :4].all() and not out.written[:, 4:].any()
    # A window past the tile (the old `store(row_max_t, [0, 0], [M, N], out)` of an [M, 1]
    # result) copies what the buffer holds beyond it: undefined, held to nothing, as masked rows.
    wide = tensor(np.zeros((16, 16)), FP32)
    pl.store(t, [0, 0], [16, 16], wide)
    assert np.array_equal(wide.data[:, :8], t.data) and wide.written[:, :8].all() and not wide.written[:, 8:].any()
    assert m.masked
    with pytest.raises(KernelError, match="reaches past the tile"):
        pl.store(t, [0, 0], [16], tensor(np.zeros((16, 16)), FP32))  # a window of another rank
    _, c39 = machine(STRICT)
    with pytest.raises(KernelError, match="takes 3 positional arguments"):
        c39.store(t, [0, 0], [16, 4], out)
