"""The interpreter's cube, gather/scatter, sort and cross-core ops against NumPy written here:
small kernels run in the 2026-08 profile (the one these ops are measured for), their outputs
compared with the formula of each op's docstring."""

from __future__ import annotations

import numpy as np
import pytest

from codemods.interp.execute import Settings, load, make_inputs, run
from codemods.interp.ops import HEAD, STRICT, Machine
from codemods.interp.values import KernelError
from codemods.rulebook.loading import load_api

HEAD_API = load_api(None, "2026-08")


def interpret(body: str, params: str, inputs: dict | None = None, profile: str = HEAD, out: str = "[8, 32]"):
    """Run `body` in an InCore function with `params` and `out: Out[Tensor[out, FP32]]`."""
    text = ("import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def main(self, {params}, out: pl.Out[pl.Tensor[{out}, pl.FP32]]) -> pl.Tensor[{out}, pl.FP32]:\n"
            + "".join(f"        {line}\n" for line in body.strip().splitlines())
            + "        return out\n")
    api = HEAD_API if profile == HEAD else load_api(None, "2026-03")
    settings = Settings(inputs=inputs or {})
    program = load("k.py", text, settings, Machine(profile, api, 3))
    given = make_inputs(program.specs, settings)
    result = run(program, given)
    return {k: v.astype(np.float64) for k, v in given.items()}, result["out"].data.astype(np.float64)


VEC, MAT = "pl.MemorySpace.Vec", "pl.MemorySpace.Mat"
CUBE = f"""
lm = pl.load(a, [0, 0], [ROWS_A, 16], target_memory={MAT})
lt = pl.move(lm, target_memory=pl.MemorySpace.Left)
rm = pl.load(w, [0, 0], [16, 32], target_memory={MAT})
rt = pl.move(rm, target_memory=pl.MemorySpace.Right)
"""
AW = "a: pl.Tensor[[8, 16], pl.FP16], w: pl.Tensor[[16, 32], pl.FP16], bias: pl.Tensor[[1, 32], pl.FP32]"


def _fp16(x):
    return x.astype(np.float16).astype(np.float64)


@pytest.mark.parametrize("profile", [STRICT, HEAD])
def test_matmul_bias_adds_the_bias_row(profile):
    body = CUBE.replace("ROWS_A", "8") + f"""
bm = pl.load(bias, [0, 0], [1, 32], target_memory={MAT})
p = pl.matmul_bias(lt, rt, bm)
out = pl.store(pl.move(p, target_memory={VEC}), [0, 0], out)
"""
    x, got = interpret(body, AW, profile=profile)
    np.testing.assert_allclose(got, x["a"] @ x["w"] + x["bias"], rtol=1e-5)


def test_gemv_forms_are_one_row_products():
    body = CUBE.replace("ROWS_A", "1") + f"""
bm = pl.load(bias, [0, 0], [1, 32], target_memory={MAT})
g = pl.tile.gemv(lt, rt)
g2 = pl.tile.gemv_acc(g, lt, rt)
g3 = pl.gemv_bias(lt, rt, bm)
s = pl.add(pl.move(g2, target_memory={VEC}), pl.move(g3, target_memory={VEC}))
out = pl.store(s, [0, 0], out)
"""
    x, got = interpret(body, AW, out="[1, 32]")
    row = x["a"][:1] @ x["w"]
    np.testing.assert_allclose(got, 3 * row + x["bias"], rtol=1e-5)


def test_gemv_of_several_rows_is_refused_at_2026_08():
    body = CUBE.replace("ROWS_A", "8") + "g = pl.gemv(lt, rt)\n"
    with pytest.raises(KernelError, match="exactly 1"):
        interpret(body, AW)


def test_matmul_bias_reads_its_operands_from_left_and_right():
    body = f"""
lm = pl.load(a, [0, 0], [8, 16], target_memory={MAT})
rm = pl.load(w, [0, 0], [16, 32], target_memory={MAT})
bm = pl.load(bias, [0, 0], [1, 32], target_memory={MAT})
p = pl.matmul_bias(lm, rm, bm)
"""
    with pytest.raises(KernelError, match="Left"):
        interpret(body, AW)


def test_integer_matmul_accumulates_in_int32():
    body = f"""
lt = pl.move(pl.load(a, [0, 0], [8, 16], target_memory={MAT}), target_memory=pl.MemorySpace.Left)
rt = pl.move(pl.load(w, [0, 0], [16, 32], target_memory={MAT}), target_memory=pl.MemorySpace.Right)
p = pl.move(pl.matmul(lt, rt), target_memory={VEC})
out = pl.store(pl.cast(p, target_type=pl.FP32), [0, 0], out)
"""
    params = "a: pl.Tensor[[8, 16], pl.INT8], w: pl.Tensor[[16, 32], pl.INT8]"
    x, got = interpret(body, params, inputs={"a": (-100, 100), "w": (-100, 100)})
    np.testing.assert_array_equal(got, x["a"] @ x["w"])  # past INT8 and FP16: the sums stay exact


def test_batch_matmul_multiplies_batch_by_batch():
    body = f"""
lt = pl.move(pl.load(a, [0, 0, 0], [2, 4, 16], target_memory={MAT}), target_memory=pl.MemorySpace.Left)
rt = pl.move(pl.load(w, [0, 0, 0], [2, 16, 32], target_memory={MAT}), target_memory=pl.MemorySpace.Right)
p = pl.tile.batch_matmul(lt, rt)
out = pl.store(pl.reshape(pl.move(p, target_memory={VEC}), [8, 32]), [0, 0], out)
"""
    params = "a: pl.Tensor[[2, 4, 16], pl.BF16], w: pl.Tensor[[2, 16, 32], pl.BF16]"
    x, got = interpret(body, params)
    np.testing.assert_allclose(got, (x["a"] @ x["w"]).reshape(8, 32), rtol=1e-5)


def test_tile_gather_reads_each_row_and_tile_scatter_writes_flat_indices():
    body = f"""
v = pl.load(x, [0, 0], [8, 32], target_memory={VEC})
i = pl.load(gi, [0, 0], [8, 32], target_memory={VEC})
t = pl.create_tile([8, 32], dtype=pl.FP32, target_memory={VEC})
g = pl.tile.gather(v, i, t)
s = pl.tile.scatter(v, g, i)
out = pl.store(s, [0, 0], out)
"""
    params = "x: pl.Tensor[[8, 32], pl.FP32], gi: pl.Tensor[[8, 32], pl.INT32]"
    x, got = interpret(body, params, inputs={"gi": (0, 31)})
    idx = x["gi"].astype(np.int64)
    gathered = np.take_along_axis(x["x"], idx, axis=1)
    want = x["x"].reshape(-1).copy()
    for k, value in zip(idx.reshape(-1), gathered.reshape(-1)):
        want[k] = value
    np.testing.assert_array_equal(got, want.reshape(8, 32))


def test_tensor_gather_reads_each_row_at_its_indices():
    body = "g = pl.tensor.gather(x, dim=-1, index=gi)\nout = pl.assemble(out, g, [0, 0])\n"
    params = "x: pl.Tensor[[8, 32], pl.FP32], gi: pl.Tensor[[8, 32], pl.INT32]"
    x, got = interpret(body, params, inputs={"gi": (0, 31)})
    np.testing.assert_array_equal(got, np.take_along_axis(x["x"], x["gi"].astype(np.int64), axis=1))


def test_scatter_update_replaces_rows():
    body = f"""
v = pl.load(x, [0, 0], [8, 32], target_memory={VEC})
src = pl.load(y, [0, 0], [8, 32], target_memory={VEC})
i = pl.load(ri, [0, 0], [1, 8], target_memory={VEC})
out = pl.store(pl.tile.scatter_update(v, -2, i, src), [0, 0], out)
"""
    params = "x: pl.Tensor[[8, 32], pl.FP32], y: pl.Tensor[[8, 32], pl.FP32], ri: pl.Tensor[[1, 8], pl.INT32]"
    x, got = interpret(body, params, inputs={"ri": (0, 7)})
    want = x["x"].copy()
    for row, k in enumerate(x["ri"].astype(np.int64).reshape(-1)):
        want[k] = x["y"][row]
    np.testing.assert_array_equal(got, want)


def test_sort32_sorts_blocks_largest_first_and_carries_the_index():
    body = f"""
v = pl.load(x, [0, 0], [8, 32], target_memory={VEC})
i = pl.load(si, [0, 0], [8, 32], target_memory={VEC})
s = pl.tile.sort32(v, i)
vals = pl.tile.gather_mask(s, pl.tile.MaskPattern.P0101)
idx = pl.tile.gather_mask(s, pl.tile.MaskPattern.P1010, output_dtype=pl.UINT32)
out = pl.store(pl.add(vals, pl.mul(pl.cast(idx, target_type=pl.FP32), 1000.0)), [0, 0], out)
"""
    params = "x: pl.Tensor[[8, 32], pl.FP32], si: pl.Tensor[[8, 32], pl.UINT32]"
    x, got = interpret(body, params, inputs={"si": (0, 31)})
    order = np.argsort(-x["x"], axis=1, kind="stable")
    want = np.take_along_axis(x["x"], order, axis=1) + 1000.0 * np.take_along_axis(x["si"], order, axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_mrgsort_merges_sorted_lists_at_tensor_level_into_their_concatenation():
    body = """
a = pl.tensor.sort32(x, si)
b = pl.tensor.sort32(y, si)
m = pl.tensor.mrgsort(a, b)
out = pl.assemble(out, pl.tensor.gather(m, mask_pattern=1), [0, 0])
"""
    params = "x: pl.Tensor[[2, 32], pl.FP32], y: pl.Tensor[[2, 32], pl.FP32], si: pl.Tensor[[2, 32], pl.UINT32]"
    x, got = interpret(body, params, out="[2, 64]")
    np.testing.assert_array_equal(got, -np.sort(-np.concatenate([x["x"], x["y"]], axis=1), axis=1))


@pytest.mark.parametrize("pattern,stride,first", [("P0101", 2, 0), ("P1010", 2, 1), ("P0010", 4, 1), ("P1000", 4, 3)])
def test_mask_patterns_pick_and_place_columns(pattern, stride, first):
    body = f"""
v = pl.load(x, [0, 0], [8, 32], target_memory={VEC})
d = pl.tile.full([8, 32], dtype=pl.FP32, value=0.0)
g = pl.tile.gather_mask(v, pl.tile.MaskPattern.{pattern})
out = pl.store(pl.tile.scatter_mask(d, g, pl.tile.MaskPattern.{pattern}), [0, 0], out)
"""
    x, got = interpret(body, "x: pl.Tensor[[8, 32], pl.FP32]")
    want = np.zeros((8, 32))
    want[:, first::stride] = x["x"][:, first::stride]
    np.testing.assert_array_equal(got, want)


def test_a_tile_pushed_by_the_cube_is_popped_by_the_vector_core():
    from pathlib import Path

    text = (Path(__file__).parent / "interp_kernels" / "cross_core_c2v.py").read_text()
    settings = Settings()
    program = load("k.py", text, settings, Machine(HEAD, HEAD_API, 3))
    x = make_inputs(program.specs, settings)
    got = run(program, x)["out"].data.astype(np.float64)
    want = x["x"].astype(np.float64) @ x["y"].astype(np.float64) + 1.0
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_gather_compare_counts_the_values_past_the_threshold_and_lists_their_columns():
    body = f"""
v = pl.load(x, [0, 0], [8, 32], target_memory={VEC})
t = pl.create_tile([8, 32], dtype=pl.UINT8, target_memory={VEC})
d, c = pl.tile.gather_compare(v, 0.5, t, cmp_mode="gt", offset=100, out_cols=32)
n = pl.cast(pl.reshape(c, [8, 1]), target_type=pl.FP32)
out = pl.store(pl.row_expand_add(pl.tile.full([8, 32], dtype=pl.FP32, value=0.0), n), [0, 0], out)
"""
    x, got = interpret(body, "x: pl.Tensor[[8, 32], pl.FP32]")
    np.testing.assert_array_equal(got[:, 0], (x["x"] > 0.5).sum(axis=1))


def test_tensor_scatter_mask_takes_the_compact_input_first():
    body = """
g = pl.tensor.gather_mask(x, mask_pattern=1)
s = pl.tensor.scatter_mask(g, y, mask_pattern=2)
out = pl.assemble(out, s, [0, 0])
"""
    x, got = interpret(body, "x: pl.Tensor[[8, 32], pl.FP32], y: pl.Tensor[[8, 32], pl.FP32]")
    want = x["y"].copy()
    want[:, 1::2] = x["x"][:, 0::2]
    np.testing.assert_array_equal(got, want)


def test_crossings_of_a_split_aiv_region_keep_the_value():
    import ml_dtypes
    from pathlib import Path

    text = (Path(__file__).parent / "interp_kernels" / "split_aiv_crossings.py").read_text()
    settings = Settings()
    program = load("k.py", text, settings, Machine(HEAD, HEAD_API, 3))
    x = make_inputs(program.specs, settings)
    got = run(program, x)["out"].data.astype(np.float64)
    lhs = (x["x"].astype(np.float32) * np.float32(0.5)).astype(ml_dtypes.bfloat16).astype(np.float64)
    np.testing.assert_allclose(got, lhs @ x["w"].astype(np.float64), rtol=1e-5)
