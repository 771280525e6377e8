"""The interpreter's data-movement ops (codemods/interp/movement_ops.py), checked with NumPy,
in the profiles that run each version's code."""

from __future__ import annotations

import numpy as np
import pytest

from codemods.interp import language
from codemods.interp.ops import HEAD, OLD, STRICT, Machine
from codemods.interp.values import KernelError, Tile
from codemods.rulebook.loading import load_api

A = (np.arange(32, dtype=np.float32).reshape(4, 8) - 10.25)


def machine(profile: str):
    m = Machine(profile, load_api(None, "2026-08" if profile == HEAD else "2026-03"), 0)
    pl = language.build(m)
    m.kernel = m.new_kernel()
    return m, pl


def tile(m, data=A):
    return m._tile(np.array(data, dtype=np.float32))


@pytest.mark.parametrize("profile", [OLD, HEAD])
def test_concat_assemble_extract(profile):
    m, pl = machine(profile)
    t = tile(m)
    lo, hi = pl.tile.slice(t, [4, 4], [0, 0]), pl.tile.slice(t, [4, 4], [0, 4])
    np.testing.assert_array_equal(pl.concat(hi, lo).data, np.concatenate([A[:, 4:], A[:, :4]], axis=1))
    assembled = pl.tile.assemble(t, hi, [0, 0]).data
    np.testing.assert_array_equal(assembled, np.concatenate([A[:, 4:], A[:, 4:]], axis=1))
    np.testing.assert_array_equal(t.data, A)  # the target is not written in place
    e = pl.tile.extract(t, 1, 2, [2, 3], target_memory=pl.MemorySpace.Mat)
    assert e.space == "Mat"
    np.testing.assert_array_equal(e.data, A[1:3, 2:5])


def test_arange_ci_and_tri():
    m, pl = machine(HEAD)
    np.testing.assert_array_equal(pl.tile.arange(2, [1, 5], dtype=pl.INT32).data, [[2, 3, 4, 5, 6]])
    np.testing.assert_array_equal(pl.tensor.ci(4, [1, 5], dtype=pl.INT16, descending=True).data, [[4, 3, 2, 1, 0]])
    with pytest.raises(KernelError, match="leading dimensions must be 1"):
        pl.tile.arange(0, [4, 8], dtype=pl.INT32)
    with pytest.raises(KernelError, match="one of"):
        pl.tile.arange(0, [1, 8], dtype=pl.FP32)
    np.testing.assert_array_equal(pl.tile.tri(0, [3, 4], dtype=pl.FP32).data, np.tril(np.ones((3, 4)), 0))
    np.testing.assert_array_equal(pl.tri(1, [3, 4], dtype=pl.INT32, upper=True).data, np.triu(np.ones((3, 4)), 1))


def test_views_move_no_data():
    m, pl = machine(HEAD)
    t = tile(m)
    s = pl.tile.set_validshape(t, 2, 4)
    assert s.valid == (2, 4) and s.shape == (4, 8)
    padded = pl.fillpad(s).data
    assert (padded[2:] == 0).all() and (padded[:, 4:] == 0).all()
    np.testing.assert_array_equal(padded[:2, :4], A[:2, :4])
    ints = pl.tile.reinterpret_view(t, pl.INT32)
    np.testing.assert_array_equal(ints.data, A.view(np.int32))
    np.testing.assert_array_equal(pl.reinterpret_view(ints, pl.FP32).data, A)
    assert pl.tile.reinterpret_view(t, pl.FP16).shape == (4, 16)
    with pytest.raises(KernelError, match="differ"):
        pl.tile.reinterpret_view(t, pl.FP32)
    np.testing.assert_array_equal(pl.tile.transpose_view(t).data, A.T)


def test_cast_modes():
    m, pl = machine(OLD)
    t = tile(m, [[-1.5, -0.5, 0.5, 1.5, 2.5, 2.7]])
    expect = {"trunc": [-1, 0, 0, 1, 2, 2], "floor": [-2, -1, 0, 1, 2, 2], "ceil": [-1, 0, 1, 2, 3, 3],
              "round": [-2, -1, 1, 2, 3, 3], "rint": [-2, 0, 0, 2, 2, 3]}  # round: half away from zero
    # (e2d0f78ae's docs/dev/passes/12-lower_composite_ops.md: kCastModeRound), rint: half to even
    for mode, want in expect.items():
        np.testing.assert_array_equal(pl.cast(t, target_type=pl.INT32, mode=mode).data[0], want)
    np.testing.assert_array_equal(pl.tile.cast(t, target_type=pl.INT8, mode=5).data[0], expect["trunc"])


def test_flat_setval_of_2026_03_and_block_indices():
    m, pl = machine(STRICT)
    t = tile(m)
    out = pl.tile.setval(t, 9, 2.0)
    assert out.data[1, 1] == 2.0
    assert pl.tile.get_block_idx() == 0
    with pytest.raises(KernelError, match="Unknown tile operation: get_block_num"):
        pl.tile.get_block_num()
    m, pl = machine(HEAD)
    assert (pl.tile.get_block_idx(), pl.tile.get_block_num(), pl.tile.get_subblock_idx()) == (0, 1, 0)
    with pytest.raises(KernelError, match="setval"):
        pl.tile.setval(tile(m), 3, 1.0)


@pytest.mark.parametrize("op", ["concat", "set_validshape", "reinterpret_view", "tri", "arange", "assemble"])
def test_c39_refuses_what_it_did_not_have(op):
    m, pl = machine(STRICT)
    t = tile(m)
    calls = {"concat": lambda: pl.tile.concat(t, t), "set_validshape": lambda: pl.tile.set_validshape(t, 2, 2),
             "reinterpret_view": lambda: pl.tile.reinterpret_view(t, pl.INT32), "tri": lambda: pl.tile.tri(0, [4, 8]),
             "arange": lambda: pl.tile.arange(0, [1, 8]), "assemble": lambda: pl.tile.assemble(t, t, [0, 0])}
    with pytest.raises(KernelError, match="Unknown"):
        calls[op]()


def test_expand_clone_and_tensor_full():
    m, pl = machine(HEAD)
    m.kernel = None
    src = pl.tensor.full([1, 2, 3], dtype=pl.FP32, value=1.5)
    target = pl.tensor.full([4, 2, 3], dtype=pl.FP32, value=0.0)
    out = pl.tensor.expand_clone(src, target)
    assert out.shape == (4, 2, 3) and (out.data == 1.5).all()
    with pytest.raises(KernelError, match="rank to be 3"):
        pl.expand_clone(pl.tensor.full([1, 3], dtype=pl.FP32, value=1.0), pl.tensor.full([2, 3], dtype=pl.FP32, value=1.0))


def test_load_with_valid_shape_runs_in_the_old_profile():
    m, pl = machine(OLD)
    m.kernel = None
    x = pl.tensor.full([4, 8], dtype=pl.FP32, value=2.0)
    m.kernel = m.new_kernel()
    t = pl.load(x, [0, 0], [4, 8], valid_shape=[4, 8])
    assert isinstance(t, Tile) and (t.data == 2.0).all()


def test_the_2026_08_store_takes_an_nd_partition_shape():
    """e2d0f78ae's `store(tile, offsets, output_tensor, shapes)`: the tile written as a window of
    that shape (its row-major elements), where c39's four-argument store put `shapes` third."""
    m, pl = machine(HEAD)
    out = pl.create_tensor([2, 4, 8], dtype=pl.FP32)
    written = pl.store(tile(m), [1, 0, 0], out, [1, 4, 8])
    np.testing.assert_array_equal(written.data[1], A)
    assert not written.written[0].any()
    with pytest.raises(KernelError, match="sizes differ"):
        pl.store(tile(m), [0, 0, 0], out, [1, 2, 8])
