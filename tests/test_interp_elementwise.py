"""The interpreter's elementwise family (codemods/interp/elementwise_ops.py): each op against
NumPy, and the parser's refusals it repeats (measured with c39fe714a and e2d0f78ae)."""

from __future__ import annotations

import numpy as np
import pytest

from codemods.interp import language
from codemods.interp.ops import Machine
from codemods.interp.values import KernelError, Tensor, Tile
from codemods.rulebook.loading import load_api

STEP = {"old": "2026-03", "strict": "2026-03", "head": "2026-08"}


def machine(profile: str):
    m = Machine(profile, load_api(None, STEP[profile]), seed=0)
    pl = language.build(m)
    m.kernel = m.new_kernel()  # inside a kernel: tile ops may run
    return m, pl


def tile(m, values, dtype=np.float32):
    return Tile(np.asarray(values, dtype=dtype), "Vec", m.kernel)


def tensor(values, dtype=np.float32):
    data = np.asarray(values, dtype=dtype)
    return Tensor(data, np.ones(data.shape, dtype=bool), "t")


INTS = [[0, 1, 2, 255], [7, 8, 9, 3]]


@pytest.mark.parametrize("profile", ["strict", "head"])
@pytest.mark.parametrize("op, scalar, expect", [
    ("and_", None, lambda a, b: a & b), ("or_", None, lambda a, b: a | b),
    ("shl", None, lambda a, b: a << b), ("shr", None, lambda a, b: a >> b),
    ("ands", 6, lambda a, b: a & b), ("ors", 6, lambda a, b: a | b),
    ("shls", 2, lambda a, b: a << b), ("shrs", 1, lambda a, b: a >> b),
])
def test_bitwise_ops_on_int32_tiles(profile, op, scalar, expect):
    m, pl = machine(profile)
    a = np.asarray(INTS, dtype=np.int32)
    b = np.asarray([[1, 2, 3, 1], [0, 1, 2, 3]], dtype=np.int32)
    rhs = tile(m, b, np.int32) if scalar is None else scalar
    for ns in (pl, pl.tile):
        out = getattr(ns, op)(tile(m, a, np.int32), rhs)
        assert out.dtype.name == "INT32"
        np.testing.assert_array_equal(out.data, expect(a, b if scalar is None else scalar))


@pytest.mark.parametrize("profile", ["strict", "head"])
def test_xor_takes_a_scratch_tile_and_not_wants_int16(profile):
    m, pl = machine(profile)
    a = np.asarray(INTS, dtype=np.int32)
    tmp = tile(m, np.zeros_like(a), np.int32)
    np.testing.assert_array_equal(pl.xor(tile(m, a, np.int32), tile(m, a[::-1], np.int32), tmp).data, a ^ a[::-1])
    np.testing.assert_array_equal(pl.tile.xors(tile(m, a, np.int32), 5, tmp).data, a ^ 5)
    with pytest.raises(KernelError, match="tmp"):
        pl.tile.xor(tile(m, a, np.int32), tile(m, a, np.int32))
    h = a.astype(np.int16)
    np.testing.assert_array_equal(pl.not_(tile(m, h, np.int16)).data, ~h)
    with pytest.raises(KernelError, match="int16"):
        pl.not_(tile(m, a, np.int32))


@pytest.mark.parametrize("profile", ["strict", "head"])
def test_bitwise_refuses_float_data_and_float_scalars(profile):
    m, pl = machine(profile)
    with pytest.raises(KernelError, match="integer"):
        pl.and_(tile(m, [[1.0, 2.0]]), tile(m, [[1.0, 2.0]]))
    with pytest.raises(KernelError, match="integer"):
        pl.ands(tile(m, [[1, 2]], np.int32), 3.0)


def test_rem_and_sel_take_a_scratch_tile_at_2026_08_only():
    a, b = [[7.0, 9.0, 2.5]], [[2.0, 4.0, 1.0]]
    m, pl = machine("strict")
    np.testing.assert_allclose(pl.rem(tile(m, a), tile(m, b)).data, np.fmod(a, b))
    np.testing.assert_allclose(pl.rems(tile(m, a), 2.0).data, np.fmod(a, 2.0))
    with pytest.raises(KernelError, match="span"):
        pl.rem(tile(m, a), tile(m, b), tile(m, a))
    mask = pl.cmp(tile(m, a), tile(m, b), cmp_type=4)
    np.testing.assert_allclose(pl.sel(mask, tile(m, a), tile(m, b)).data, np.where(np.greater(a, b), a, b))
    h, hl = machine("head")
    with pytest.raises(KernelError, match="tmp"):
        hl.rem(tile(h, a), tile(h, b))
    np.testing.assert_allclose(hl.tile.rems(tile(h, a), 2.0, tile(h, a)).data, np.fmod(a, 2.0))
    mask = hl.cmps(tile(h, a), 3.0, cmp_type=2)
    np.testing.assert_allclose(hl.sel(mask, tile(h, a), tile(h, b), tile(h, a)).data, np.where(np.less(a, 3.0), a, b))
    np.testing.assert_allclose(hl.tile.sels(mask, tile(h, a), tile(h, a), -1.0).data, np.where(np.less(a, 3.0), a, -1.0))
    with pytest.raises(KernelError, match="tmp"):
        hl.sel(mask, tile(h, a), tile(h, b))


def test_the_2026_03_sels_mode_is_not_modelled():
    m, pl = machine("strict")
    with pytest.raises(KernelError, match="not model"):
        pl.sels(tile(m, [[1.0]]), tile(m, [[2.0]]), 1)


def test_cos_sin_fmod_and_the_scalar_forms_of_2026_08():
    m, pl = machine("head")
    a = np.asarray([[0.5, -1.5, 3.0]], dtype=np.float32)
    for ns in (pl, pl.tile):
        np.testing.assert_allclose(ns.cos(tile(m, a)).data, np.cos(a), rtol=1e-6)
        np.testing.assert_allclose(ns.sin(tile(m, a)).data, np.sin(a), rtol=1e-6)
        np.testing.assert_allclose(ns.fmods(tile(m, a), 1.25).data, np.fmod(a, np.float32(1.25)))
        np.testing.assert_allclose(ns.maximums(tile(m, a), 0.0).data, np.maximum(a, 0))
        np.testing.assert_allclose(ns.minimums(tile(m, a), 0.0).data, np.minimum(a, 0))
    np.testing.assert_allclose(pl.tile.fmod(tile(m, a), tile(m, a + 4)).data, np.fmod(a, a + 4))
    np.testing.assert_allclose(pl.tile.adds(tile(m, a), 2.0).data, a + 2)
    with pytest.raises(KernelError, match="FP32"):
        pl.cos(tile(m, a.astype(np.float16), np.float16))
    s, sl = machine("strict")
    assert not hasattr(sl, "cos") and not hasattr(sl.tile, "fmod") and not hasattr(sl.tile, "maximums")
    assert not hasattr(pl, "adds") and not hasattr(pl.tile, "maxs")


def test_tensor_namespace_of_2026_08():
    m, pl = machine("head")
    a = np.asarray([[1.0, 4.0, 9.0]], dtype=np.float32)
    np.testing.assert_allclose(pl.tensor.sqrt(tensor(a)).data, np.sqrt(a))
    np.testing.assert_allclose(pl.tensor.adds(tensor(a), 0.5).data, a + 0.5)
    np.testing.assert_allclose(pl.tensor.minimum(tensor(a), 2.0).data, np.minimum(a, 2.0))
    np.testing.assert_allclose(pl.tensor.cmp(tensor(a), 4.0, cmp_type=5).data, (a >= 4).astype(np.float32))
    np.testing.assert_allclose(pl.expands(tensor(a), 1.5).data, np.full(a.shape, 1.5))
    i = np.asarray([[1, 2, 12]], dtype=np.int32)
    np.testing.assert_array_equal(pl.tensor.and_(tensor(i, np.int32), 6).data, i & 6)
    np.testing.assert_array_equal(pl.tensor.xor(tensor(i, np.int32), tensor(i, np.int32)).data, i ^ i)
    with pytest.raises(KernelError, match="TensorType"):
        pl.tensor.sqrt(tile(m, a))


def test_old_scalar_ops_on_tensors():
    m, pl = machine("old")
    a = np.asarray([[1.0, -2.0]], dtype=np.float32)
    for op, fn in (("add_scalar", np.add), ("sub_scalar", np.subtract), ("mul_scalar", np.multiply),
                   ("div_scalar", np.divide)):
        np.testing.assert_allclose(getattr(pl, op)(tensor(a), 2.0).data, fn(a, np.float32(2.0)))
        np.testing.assert_allclose(getattr(pl.tensor, op)(tensor(a), 2.0).data, fn(a, np.float32(2.0)))


def test_prelu_and_a_float_scalar_widening_a_half_tile():
    m, pl = machine("strict")
    x = np.asarray([[-2.0, 3.0]], dtype=np.float32)
    slope = np.asarray([[0.5, 0.25]], dtype=np.float32)
    np.testing.assert_allclose(pl.prelu(tile(m, x), tile(m, slope), tile(m, x)).data, [[-1.0, 3.0]])
    assert pl.tile.maxs(tile(m, x.astype(np.float16), np.float16), 0.5).dtype.name == "FP32"


FEB_SCALAR = '''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 16, 8, chunk=1):
                v0 = pl.view(x, [8, 32], [b, 0])
                v1 = pl.div_scalar(v0, 0.5)
                v2 = pl.tensor.add_scalar(v1, 0.5)
                out = pl.assemble(out, v2, [b, 0])
        return out
'''


def test_the_table_names_the_tile_form_of_the_scalar_tensor_ops():
    api = load_api(None, "2026-03")
    assert api.ops["add_scalar"].tile_form == "tile.adds"
    assert api.ops["tensor.div_scalar"].tile_form == "tile.divs"  # carried to the namespaced entry


@pytest.mark.parametrize("target", ["2026-03", "2026-08"])
def test_a_scalar_tensor_op_on_a_loaded_view_becomes_its_tile_form(target):
    from codemods.interp.execute import Settings
    from codemods.interp.verify import EQUIVALENT, verify
    from codemods.rulebook.loading import load_rules
    from codemods.run.runner import Job, migrate_text

    job = Job(tuple(r.id for r in load_rules(None, target)), target=target)
    out = migrate_text(FEB_SCALAR, job).output
    assert "v1 = pl.tile.divs(v0, 0.5)" in out and "v2 = pl.tile.adds(v1, 0.5)" in out
    assert "review" not in out
    verdict = verify(("original.py", FEB_SCALAR), ("migrated.py", out), Settings(seed=0), load_api(None, "2026-03"), target)
    assert verdict.code == EQUIVALENT, verdict.message
