"""The interpreter runs the constructs real kernels use, in both profiles, and the strict
profile still refuses what the target compiler (or a correct migration) refuses."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from codemods.cli.commands import main
from codemods.interp.execute import Settings, load, make_inputs, run
from codemods.interp.ops import OLD, STRICT, Machine
from codemods.interp.values import KernelError

KERNELS = Path(__file__).resolve().parent / "interp_kernels"
PAIRS = {  # name: verify options
    "real_idioms": ["--input", "lens=0:8", "--input", "pick_t=0:1"],
    "program_functions": [],
}


@pytest.mark.parametrize("name", sorted(PAIRS))
@pytest.mark.parametrize("seed", [0, 5])
def test_hand_migrations_of_real_idioms_verify(name, seed):
    result = CliRunner().invoke(main, ["verify", str(KERNELS / f"{name}_old.py"), str(KERNELS / f"{name}_new.py"),
                                       "--seed", str(seed), *PAIRS[name]])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("equivalent: 1 outputs")


def test_a_builder_guard_refusing_the_sizes_is_a_setup_error():
    result = CliRunner().invoke(main, ["verify", str(KERNELS / "real_idioms_old.py"), str(KERNELS / "real_idioms_new.py"),
                                       "--set", "rows=128", "--set", "width=16"])
    assert result.exit_code == 2  # the sizes asked for, not the migration (both: verify would choose a width that fits)
    assert "build_real_idioms_program(rows=128, width=16) failed: ValueError: working set 8192 bytes exceeds 4096" in result.output


def test_a_broken_hand_migration_is_caught():
    new = (KERNELS / "real_idioms_new.py").read_text()
    broken = new.replace("for j in pl.range(keep - 1, -1, -1):", "for j in pl.range(keep - 1, 0, -1):")
    assert broken != new
    path = KERNELS / "real_idioms_old.py"
    from codemods.interp.verify import MISMATCH, verify
    from codemods.rulebook.loading import load_api

    verdict = verify((str(path), path.read_text()), ("new.py", broken),
                     Settings(inputs={"lens": (1, 8), "pick_t": (0, 1)}), load_api(None, "2026-03"), "2026-03")
    assert verdict.code == MISMATCH and verdict.message.startswith("mismatch in `return`"), verdict.message


def execute(text: str, profile: str, api, **inputs):
    machine = Machine(profile, api, 1)
    text = textwrap.dedent(text)
    program = load("k.py", text, Settings(), machine)
    arrays = make_inputs(program.specs, Settings())
    arrays.update(inputs)
    return run(program, arrays)


HEAD = """
import pypto.language as pl

@pl.program
class K:
"""


def kernel(body: str, params: str = "x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]") -> str:
    return HEAD + textwrap.indent(textwrap.dedent(f"""
        @pl.function
        def main(self, {params}) -> pl.Tensor[[4, 8], pl.FP32]:
        """) + textwrap.indent(textwrap.dedent(body).rstrip("\n") + "\n", " " * 4) + "    return out\n", " " * 4)


def test_one_argument_range_negative_steps_and_scalar_reads_in_python_if(api):
    text = kernel("""
        for i in pl.range(4):
            for j in pl.range(7, -1, -2):
                v = pl.tensor.read(x, [i, j])
                if v > 0.0:
                    out = pl.assemble(out, pl.slice(x, [1, 1], [i, j]), [i, j])
                else:
                    out = pl.assemble(out, pl.mul(pl.slice(x, [1, 1], [i, j]), 0.0), [i, j])
    """)
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    for profile in (OLD, STRICT):
        got = execute(text, profile, api, x=x, out=np.full((4, 8), 7.0, np.float32))["out"].data
        want = np.full((4, 8), 7.0, np.float32)
        want[:, 1::2] = np.maximum(x[:, 1::2], 0.0)
        np.testing.assert_array_equal(got, want)


def test_init_values_carry_through_range_and_if_else(api):
    text = kernel("""
        with pl.incore():
            t = pl.load(x, [0, 0], [4, 8])
            init = pl.tile.full([4, 8], dtype=pl.FP32, value=1.0)
            for i, (acc,) in pl.range(1, 4, init_values=(init,)):
                if i == 2:
                    nxt = pl.yield_(pl.tile.muls(acc, 3.0))
                else:
                    nxt = pl.yield_(pl.add(acc, t))
                res = pl.yield_(nxt)
            out = pl.store(res, [0, 0], out)
    """)
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    got = execute(text, STRICT, api, x=x)["out"].data
    np.testing.assert_array_equal(got, ((1 + x) * 3) + x)


def test_matmul_transposes_and_subscripts(api):
    text = kernel("""
        g = pl.matmul(x, x, a_trans=True)
        h = pl.matmul(x, x, b_trans=True)
        out = pl.assemble(out, pl.add(g[0:4, :], pl.mul(x, h[1, 2])), [0, 0])
    """)
    x = np.arange(32, dtype=np.float32).reshape(4, 8) / 10
    got = execute(text, STRICT, api, x=x)["out"].data
    np.testing.assert_allclose(got, (x.T @ x)[0:4, :] + x * (x @ x.T)[1, 2], rtol=1e-6)


STRICT_REJECTS = {
    "a tile op in orchestration": (
        "t = pl.load(x, [0, 0], [4, 8])\nout = pl.store(t, [0, 0], out)",
        "tile op pl.load outside a kernel region"),
    "a tile op in the remainder iterations of a chunked loop": (
        "with pl.auto_incore():\n    for i in pl.parallel(0, 6, 1, chunk=4):\n"
        "        t = pl.load(x, [0, 0], [1, 8])\n        out = pl.store(t, [0, 0], out)",
        "tile op pl.load outside a kernel region"),
    "a Tile crossing parallel iterations": (
        "with pl.auto_incore():\n    t = None\n    for i in pl.parallel(0, 4, 1, chunk=2):\n"
        "        t = pl.load(x, [i, 0], [1, 8]) if t is None else pl.add(t, pl.load(x, [i, 0], [1, 8]))\n"
        "        out = pl.store(t, [i, 0], out)",
        "uses a Tile made in another kernel"),
    "a tensor made inside a kernel handing data on": (
        "with pl.incore():\n    buf = pl.create_tensor([4, 8], dtype=pl.FP32)\n"
        "    buf = pl.store(pl.load(x, [0, 0], [4, 8]), [0, 0], buf)\n"
        "with pl.incore():\n    out = pl.store(pl.load(buf, [0, 0], [4, 8]), [0, 0], out)",
        "uses a tensor created inside another kernel region"),
    "a rank-reducing load": (
        "with pl.incore():\n    t = pl.load(pl.reshape(x, [1, 4, 8]), [0, 0, 0], [4, 8])",
        "offsets and shapes must have same number of dimensions, got 3 offsets and 2 shapes"),
    "an annotation of the wrong kind": (
        "with pl.incore():\n    t: pl.Tensor[[4, 8], pl.FP32] = pl.load(x, [0, 0], [4, 8])",
        "Type annotation for 't' is Tensor but expression has type Tile"),
    "an annotation of the wrong shape": (
        "with pl.incore():\n    t: pl.Tile[[4, 4], pl.FP32] = pl.load(x, [0, 0], [4, 8])",
        "Type annotation for 't' has shape dimension 1 = 4 but expression has shape dimension 1 = 8"),
    "a Python operator on a tensor": (
        "y = x + x", "Expression must be ScalarExpr or Var with ScalarType, got Var with type TensorType"),
    "a carried value changing kind": (
        "acc = pl.create_tensor([4, 8], dtype=pl.FP32)\nfor i, (a,) in pl.range(2, init_values=(acc,)):\n"
        "    with pl.incore():\n        r = pl.yield_(pl.load(x, [0, 0], [4, 8]))",
        "entered the loop as a Tensor and is yielded as a Tile"),
    "a tensor op forced to the tile family": (
        "y = pl.tile.add(x, x)", "requires argument 1 to be a TileType, but got TensorType"),
}


@pytest.mark.parametrize("what", sorted(STRICT_REJECTS))
def test_strict_profile_rejects(what, api):
    body, message = STRICT_REJECTS[what]
    with pytest.raises(KernelError, match=None) as info:
        execute(kernel(body), STRICT, api)
    assert message in str(info.value)


FUNCTIONS = HEAD + """
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, t: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        RESULT
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        CALL
        return out
"""


def test_tiles_do_not_cross_function_boundaries(api):
    good = FUNCTIONS.replace("RESULT", "return pl.store(pl.exp(pl.load(t, [0, 0], [4, 8])), [0, 0], out)")
    x = np.zeros((4, 8), np.float32)
    assert (execute(good.replace("CALL", "out = self.kernel(x, out)"), STRICT, api, x=x)["out"].data == 1).all()
    with pytest.raises(KernelError, match="a Tile is passed to the InCore function kernel"):
        execute(good.replace("CALL", "with pl.incore():\n            out = self.kernel(pl.load(x, [0, 0], [4, 8]), out)"),
                STRICT, api)
    returns_tile = FUNCTIONS.replace("RESULT", "return pl.load(t, [0, 0], [4, 8])").replace("CALL", "y = self.kernel(x, out)")
    with pytest.raises(KernelError, match="the InCore function kernel returns a Tile"):
        execute(returns_tile, STRICT, api)
    # an InCore function is a kernel: its tile ops need no incore block
    assert (execute(good.replace("CALL", "out = self.kernel(x, out)"), OLD, api, x=x)["out"].data == 1).all()


def test_old_profile_accepts_the_old_forms(api):
    text = kernel("""
        y = pl.block.add(x, x) if False else x
        out = pl.assemble(out, pl.row_expand_mul(pl.view(y, [4, 8], [0, 0]), pl.row_sum(x)), [0, 0])
    """)
    x = np.ones((4, 8), np.float32)
    np.testing.assert_array_equal(execute(text, OLD, api, x=x)["out"].data, np.full((4, 8), 8.0))
