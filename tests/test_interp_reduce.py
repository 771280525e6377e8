"""The interpreter's reductions and broadcasts (codemods/interp/reduce_ops.py), against NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from codemods.interp.language import build
from codemods.interp.ops import HEAD, OLD, STRICT, Machine
from codemods.interp.values import KernelError, Tensor, Tile
from codemods.model.results import result_val
from codemods.model.values import TILE, Val
from codemods.rulebook.loading import load_api

RNG = np.random.default_rng(7)
X = RNG.uniform(-4, 4, (8, 16)).astype(np.float32)
Y = RNG.uniform(-4, 4, (8, 16)).astype(np.float32)


def language(profile: str = HEAD):
    m = Machine(profile, load_api(None, "2026-08" if profile == HEAD else "2026-03"), 0, "zero")
    m.kernel = m.new_kernel()
    return build(m), m


def tile(m, data, valid=None):
    return Tile(np.array(data, dtype=np.float32), "Vec", m.kernel, valid)


def tensor(data, valid=None):
    data = np.array(data, dtype=np.float32)
    return Tensor(data, np.ones(data.shape, dtype=bool), "x", valid)


@pytest.mark.parametrize("op,fn", [("row_prod", np.prod), ("row_argmax", np.argmax), ("row_argmin", np.argmin)])
def test_row_reductions_give_a_column(op, fn):
    pl, m = language()
    for ns in (pl, pl.tile):
        got = getattr(ns, op)(tile(m, X), tile(m, np.zeros_like(X)))
        assert got.shape == (8, 1)
        assert got.dtype.name == ("INT32" if "arg" in op else "FP32")
        np.testing.assert_allclose(got.data, fn(X, axis=1, keepdims=True).astype(got.data.dtype), rtol=1e-5)
    got = pl.tensor.row_argmax(tensor(X))
    assert isinstance(got, Tensor) and (got.data[:, 0] == X.argmax(axis=1)).all()


@pytest.mark.parametrize("op,fn", [("col_sum", np.sum), ("col_max", np.max), ("col_min", np.min), ("col_prod", np.prod),
                                   ("col_argmax", np.argmax), ("col_argmin", np.argmin)])
def test_column_reductions_give_a_row(op, fn):
    pl, m = language()
    args = [tile(m, np.zeros_like(X))] if "arg" in op else []
    got = getattr(pl.tile, op)(tile(m, X), *args)
    assert got.shape == (1, 16)
    np.testing.assert_allclose(got.data, fn(X, axis=0, keepdims=True).astype(got.data.dtype), rtol=1e-5)
    assert getattr(pl, op)(tensor(X)).shape == (1, 16)


def test_scratch_tiles_as_the_compiler_asks_for_them():
    pl, m = language()
    with pytest.raises(KernelError, match="tmp_tile"):
        pl.row_prod(tile(m, X))
    with pytest.raises(KernelError, match="tmp_tile"):
        pl.col_argmax(tile(m, X))
    with pytest.raises(KernelError, match="exactly"):
        pl.row_argmax(tile(m, X), tile(m, np.zeros((8, 32))))
    pl.row_prod(tile(m, X), tile(m, np.zeros((8, 32))))  # larger is enough for the non-arg ones
    with pytest.raises(KernelError, match="takes 1 positional argument"):
        pl.col_max(tile(m, X), tile(m, X))
    pl.col_sum(tile(m, X), tile(m, X))  # optional: it picks the order of the sum
    with pytest.raises(KernelError, match="no tmp_tile"):
        pl.tensor.row_prod(tensor(X), tile(m, X))


@pytest.mark.parametrize("f,fn", [("max", np.maximum), ("min", np.minimum), ("expdif", lambda a, v: np.exp(a - v)),
                                  ("add", np.add)])
def test_expands_broadcast_a_row_or_a_column(f, fn):
    pl, m = language()
    rv, cv = X[:, :1] / 2, Y[:1, :]
    if f != "add":
        got = getattr(pl.tile, f"row_expand_{f}")(tile(m, X), tile(m, rv))
        np.testing.assert_allclose(got.data, fn(X, rv), rtol=1e-5)
    got = getattr(pl, f"col_expand_{f}")(tile(m, X), tile(m, cv))
    np.testing.assert_allclose(got.data, fn(X, cv), rtol=1e-5)
    got = getattr(pl.tensor, f"col_expand_{f}")(tensor(X), tensor(cv))
    assert isinstance(got, Tensor)
    with pytest.raises(KernelError, match=r"\[1, 16\] vector"):
        getattr(pl, f"col_expand_{f}")(tile(m, X), tile(m, rv))


def test_col_expand_spreads_the_row_at_both_versions():
    for profile in (STRICT, HEAD):
        pl, m = language(profile)
        got = pl.tile.col_expand(tile(m, X), tile(m, Y[:1, :]))
        np.testing.assert_array_equal(got.data, np.broadcast_to(Y[:1, :], X.shape))


def test_part_ops_take_the_valid_operand_where_only_one_is():
    pl, m = language()
    a, b = tile(m, X), tile(m, Y, valid=(8, 4))
    got = pl.part_add(a, b)
    np.testing.assert_allclose(got.data[:, :4], X[:, :4] + Y[:, :4])
    np.testing.assert_array_equal(got.data[:, 4:], X[:, 4:])
    assert got.valid is None
    got = pl.tile.part_max(b, tile(m, X, valid=(4, 16)))  # the result keeps lhs's valid region
    assert got.valid == (8, 4)
    np.testing.assert_array_equal(got.data[:4, :4], np.maximum(X, Y)[:4, :4])
    np.testing.assert_array_equal(got.data[4:, :4], Y[4:, :4])


def test_fillpad_family():
    pl, m = language()
    c = tile(m, X, valid=(8, 4))
    got = pl.tile.fillpad_inplace(c, pl.PadValue.min)
    assert got.valid is None and (got.data[:, 4:] == -np.finfo(np.float32).max).all()
    got = pl.fillpad(c, -math.inf)
    assert (got.data[:, 4:] < -1e38).all()
    got = pl.fillpad_expand(tile(m, X[:, :8]), [8, 16])
    assert got.shape == (8, 16) and (got.data[:, 8:] == 0).all() and (got.data[:, :8] == X[:, :8]).all()
    got = pl.tile.fillpad_expand(tile(m, X[:, :8], valid=(8, 2)), [8, 16], pl.PadValue.max)
    assert (got.data[:, :2] == X[:, :2]).all() and (got.data[:, 2:] > 1e38).all()


def test_c39_has_its_own_names_only():
    pl, m = language(STRICT)
    got = pl.tile.fillpad(tile(m, X, valid=(8, 4)))  # c39: no pad_value operand, zero
    assert (got.data[:, 4:] == 0).all()
    assert pl.tile.max(tile(m, X), axis=0, keepdim=True).shape == (1, 16)
    np.testing.assert_array_equal(pl.tile.row_expand(tile(m, X)).data, np.broadcast_to(X[:, :1], X.shape))
    assert not hasattr(pl, "row_prod") and not hasattr(pl.tile, "part_add")
    with pytest.raises(KernelError, match="TileType"):
        pl.fillpad(tensor(X))
    old, _ = language(OLD)  # a source of any earlier day has them all
    assert hasattr(old, "row_prod") and hasattr(old.tensor, "fillpad_expand")


def test_table_types_the_new_reductions():
    api = load_api(None, "2026-08")
    t = Val(TILE, ("M", "N"), "BF16", "Vec")
    assert result_val(api.ops["col_max"], [t], [], {}).shape == ("1", "N")
    assert result_val(api.ops["tile.row_argmax"], [t, t], [], {}) == Val(TILE, ("M", "1"), "INT32")
    assert api.ops["tensor.col_argmin"].params == ("x",)  # the Tensor form takes no scratch
    assert api.ops["tile.col_argmin"].scratch == "tmp_tile"
    assert not api.exists("fillpad_inplace") and api.exists("tile.fillpad_inplace")
