"""PTO183's placement beside the orchestration's own work, PTO153 on windows of another valid
shape, PTO150 on cmps's scalar: the 2026-08 step on kernels written for these tests (each after
checked with e2d0f78ae when it was written)."""

from __future__ import annotations

from conftest import upgrade

HEAD = """import pypto.language as pl


@pl.program
class Example:
"""

KERNEL = """    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        y = pl.store(pl.add(t, 1.0), [0, 0], y)
        return y

"""


def _orchestration(body: str) -> str:
    return HEAD + KERNEL + """    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.assemble(y, pl.add(x, 1.0), [0, 0])
""" + body + """        return y
"""


def test_host_work_beside_kernel_scopes_stays_where_it_is():
    for body in (
        "        pl.dump_tag(y)\n",
        "        with pl.manual_scope():\n"
        "            y, tid = pl.submit(self.k, x, y)\n"
        "            barrier = pl.system.task_dummy(deps=[tid])\n",
        "        tids = pl.array.create(2, pl.TASK_ID)\n",
        "        cores = pl.system.available_cluster_count()\n",
        "        for i in pl.spmd(2):\n"
        "            y = pl.assemble(y, pl.mul(x, 2.0), [0, 0])\n",
        "        with pl.spmd(2):\n"
        "            y = self.k(x, y)\n",
    ):
        source = _orchestration(body)
        result = upgrade(source)
        assert not [e for e in result.edits if e.rule == "PTO183"], body


def test_compute_after_host_work_gets_a_scope_after_it():
    source = _orchestration("        pl.dump_tag(y)\n        y = pl.assemble(y, pl.mul(x, 2.0), [0, 0])\n")
    output = upgrade(source).output
    assert ("        pl.dump_tag(y)\n"
            "        with pl.at(level=pl.Level.CORE_GROUP):\n"
            "            y = pl.assemble(y, pl.mul(x, 2.0), [0, 0])\n") in output


def test_an_allocation_stays_in_the_orchestration():
    source = _orchestration("        t = pl.create_tensor([16, 64], dtype=pl.FP32)\n"
                            "        t = pl.assemble(t, pl.mul(x, 2.0), [0, 0])\n"
                            "        y = pl.assemble(y, pl.slice(t, [16, 64], [0, 0]), [0, 0])\n")
    output = upgrade(source).output
    # the scope after the allocation; the copy out of it is the host's (a view and an assemble)
    assert ("        t = pl.create_tensor([16, 64], dtype=pl.FP32)\n"
            "        with pl.at(level=pl.Level.CORE_GROUP):\n"
            "            t = pl.assemble(t, pl.mul(x, 2.0), [0, 0])\n"
            "        y = pl.assemble(y, pl.slice(t, [16, 64], [0, 0]), [0, 0])\n") in output


def test_a_compute_op_on_an_allocation_its_kernel_wrote_starts_the_next_kernel():
    source = _orchestration("        t = pl.create_tensor([16, 64], dtype=pl.FP32)\n"
                            "        t = pl.assemble(t, pl.mul(x, 2.0), [0, 0])\n"
                            "        t = pl.assemble(t, pl.mul(x, 3.0), [8, 0])\n"
                            "        y = pl.assemble(y, pl.add(t, 1.0), [0, 0])\n")
    output = upgrade(source).output
    assert ("        t = pl.create_tensor([16, 64], dtype=pl.FP32)\n"
            "        with pl.at(level=pl.Level.CORE_GROUP):\n"
            "            t = pl.assemble(t, pl.mul(x, 2.0), [0, 0])\n"
            "            t = pl.assemble(t, pl.mul(x, 3.0), [8, 0])\n"
            "        with pl.at(level=pl.Level.CORE_GROUP):\n"
            "            y = pl.assemble(y, pl.add(t, 1.0), [0, 0])\n") in output


WINDOWS = HEAD + """    @pl.function(type=pl.FunctionType.Opaque)
    def f(self, x: pl.Tensor[[32, 64], pl.FP32], nt: pl.Tensor[[2], pl.INT32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        n = pl.cast(pl.tensor.read(nt, [0]), pl.INDEX)
        m = pl.cast(pl.tensor.read(nt, [1]), pl.INDEX)
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.slice(x, [16, 64], [0, 0], valid_shape=[n, 64])
            y = pl.assemble(y, pl.add(c, 1.0), [0, 0])
            c = {second}
            y = pl.assemble(y, pl.add(c, 1.0), [16, 0])
        return y
"""


def test_a_window_of_another_valid_shape_is_renamed():
    # each refused by e2d0f78ae: "Cannot reassign 'c' with a different type ... TensorView(valid_shape=...)"
    for second in ("pl.slice(x, [16, 64], [16, 0], valid_shape=[m, 64])",
                   "pl.slice(x, [16, 64], [16, 0], valid_shape=[n + 1, 64])",
                   "pl.slice(x, [16, 64], [16, 0], valid_shape=[16, 64])",
                   "pl.exp(pl.slice(x, [16, 64], [16, 0], valid_shape=[m, 64]))"):
        output = upgrade(WINDOWS.format(second=second)).output
        assert f"c_2 = {second}" in output and "pl.add(c_2, 1.0), [16, 0]" in output, second


def test_a_window_of_the_same_valid_shape_is_left_alone():
    for second in ("pl.slice(x, [16, 64], [16, 0], valid_shape=[n, 64])",
                   "pl.slice(x, [16, 64], [16, 0], valid_shape=[n, 16 * 4])"):
        source = WINDOWS.format(second=second)
        assert upgrade(source).output == source, second


def test_a_loaded_tile_of_another_valid_shape_is_renamed():
    source = HEAD + """    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64], valid_shape=[n, 64])
        y = pl.store(pl.add(t, 1.0), [0, 0], y)
        t = pl.load(x, [16, 0], [16, 64], valid_shape=[m, 64])
        y = pl.store(pl.add(t, 1.0), [16, 0], y)
        return y
"""
    output = upgrade(source).output
    assert "t_2 = pl.load(x, [16, 0], [16, 64], valid_shape=[m, 64])" in output
    assert "pl.add(t_2, 1.0), [16, 0]" in output


def test_an_index_compared_with_a_tile_is_cast_to_its_dtype():
    source = HEAD + """    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 64], pl.INT32], out: pl.Out[pl.Tensor[[1, 64], pl.INT32]]) -> pl.Tensor[[1, 64], pl.INT32]:
        t = pl.load(x, [0, 0], [1, 64])
        for i in pl.range(4):
            m = pl.tile.cmps(t, i, 4)
            t = pl.tile.sel(m, t, t, pl.tile.create([1, 32], dtype=pl.UINT8))
        out = pl.store(t, [0, 0], out)
        return out
"""
    assert "pl.tile.cmps(t, pl.cast(i, pl.INT32), 4)" in upgrade(source).output
