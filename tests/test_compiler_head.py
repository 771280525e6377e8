"""--compile against the newest compiler (pypto e2d0f78ae, 2026-08-21), in a Python of its own
(`make install` builds .venv-head), on small kernels written here: entry @pl.jit functions
lowered (a scalar parameter left as pl.RUNTIME unless --set gives it), built programs through
the Ascend910B pipeline, the memory map's figures, an overflow that stops the pipeline, errors
at the user's line; the version told from the installed API, and one clear error when it is
not the target's."""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
import sys

import pytest

from codemods.compiler.bridge import CompilerMismatch, compile_source, probe
from codemods.compiler.installed import compiler_python, identify, mismatch
from codemods.run.config import ConfigError, parse
from conftest import FIXTURES
from needs import head_python, pypto_or_skip

JIT_ADD = '''\
import pypto.language as pl

ROWS = 64


@pl.jit
def add(
    a: pl.Tensor[[ROWS, 128], pl.FP32],
    b: pl.Tensor[[ROWS, 128], pl.FP32],
    n: pl.Scalar[pl.INT32],
    out: pl.Out[pl.Tensor[[ROWS, 128], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(a, b)
    return out
'''

JIT_TILE_ON_TENSOR = '''\
import pypto.language as pl


@pl.jit
def bad(
    a: pl.Tensor[[64, 128], pl.FP32],
    out: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.tile.rsqrt(a)
        out[:] = t
    return out
'''

JIT_OVERFLOW = '''\
import pypto.language as pl


@pl.jit
def big(
    a: pl.Tensor[[512, 512], pl.FP32],
    out: pl.Out[pl.Tensor[[512, 512], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [512, 512])
        u = pl.tile.add(t, t)
        out = pl.store(u, [0, 0], out)
    return out
'''

BUILDER = '''\
import pypto.language as pl

ROWS = 32


def build_scale_program(rows: int = ROWS):
    @pl.program
    class Scale:
        @pl.function(type=pl.FunctionType.Orchestration)
        def scale(self, x: pl.Tensor[[rows, 64], pl.FP32], out: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [rows, 64])
                u = pl.tile.mul(t, t)
                out = pl.store(u, [0, 0], out)
            return out

    return Scale
'''


@pytest.fixture(scope="module")
def head():
    return head_python()


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_version_is_told_from_the_api_both_ways(head):
    found = probe(target="2026-08", python=head)
    assert found["pl.jit"] and found["pl.at"] and not found["BackendType.CCE"] and not found["pl.incore"]
    with pytest.raises(CompilerMismatch) as caught:
        probe(target="2026-03", python=head)
    said = str(caught.value)
    assert "needs pypto of 2026-03-09" in said and "has pypto of 2026-08-21" in said and "--compiler-python" in said


def test_the_tools_own_pypto_is_not_the_newest():
    pypto_or_skip()
    with pytest.raises(CompilerMismatch, match=r"--target 2026-08 needs pypto of 2026-08-21 .* has pypto of 2026-03-09"):
        probe(target="2026-08")


def test_a_pypto_of_neither_day_says_what_it_has_and_lacks():
    between = {"pl.at": True, "pl.jit": False, "pl.incore": True, "pl.auto_incore": True, "BackendType.CCE": True}
    assert identify(between) is None
    said = mismatch("2026-08", between, "/some/python")
    assert "neither target" in said and "has pl.incore" in said and "lacks pl.jit" in said


def test_jit_scalar_left_runtime_and_memory_from_the_map(tmp_path, head):
    path = _write(tmp_path, "k.py", JIT_ADD)
    parsed = compile_source(path, None, "parse", target="2026-08", python=head)
    assert parsed.ok and parsed.programs == ["add"] and not parsed.memory
    assert any("n left as pl.RUNTIME" in note for note in parsed.notes)
    passed = compile_source(path, None, "passes", target="2026-08", python=head)
    assert passed.ok and not passed.structure
    vec = [m for m in passed.memory if m.space == "Vec"]
    assert vec and vec[0].limit == 188416 and 0 < vec[0].used <= vec[0].limit


def test_set_gives_the_jit_scalar_its_value(tmp_path, head):
    path = _write(tmp_path, "k.py", JIT_ADD)
    result = compile_source(path, None, "parse", sets={"n": "4"}, target="2026-08", python=head)
    assert result.ok and not any("RUNTIME" in note for note in result.notes)


def test_a_rejection_is_at_the_users_line(tmp_path, head):
    path = _write(tmp_path, "k.py", JIT_TILE_ON_TENSOR)
    result = compile_source(path, None, "parse", target="2026-08", python=head)
    assert [e.line for e in result.errors] == [10]
    assert "tile.rsqrt requires first argument to be a TileType" in result.errors[0].message


def test_an_overflow_stops_the_pipeline_and_says_so(tmp_path, head):
    path = _write(tmp_path, "k.py", JIT_OVERFLOW)
    assert compile_source(path, None, "parse", target="2026-08", python=head).ok
    result = compile_source(path, None, "passes", target="2026-08", python=head)
    assert len(result.errors) == 1 and "Vec buffer usage" in result.errors[0].message
    assert result.errors[0].line == 4, "a pass names no line of the user's: the jit function's own"
    assert any("stops this compiler's pipeline" in note for note in result.notes)


def test_a_builder_runs_through_the_ascend910b_pipeline(tmp_path, head):
    path = _write(tmp_path, "k.py", BUILDER)
    result = compile_source(path, None, "passes", target="2026-08", python=head)
    assert result.ok and result.programs == ["build_scale_program"] and not result.structure
    assert [(m.space, m.used) for m in result.memory] == [("Vec", 32 * 64 * 4)]


ORCHESTRATION_COMPUTE = '''\
import pypto.language as pl


@pl.program
class Bare:
    @pl.function(type=pl.FunctionType.Opaque)
    def bare(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.assemble(y, pl.add(x, 1.0), [0, 0])
        z = pl.mul(y, 2.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.assemble(y, pl.add(z, 1.0), [0, 0])
        return y
'''


@pytest.mark.parametrize("outlined", [False, True])
def test_compute_left_in_the_orchestration_is_what_its_code_generator_refuses(tmp_path, head, outlined):
    """The pass pipeline accepts a compute op outside every kernel scope; the orchestration
    code generator does not. The check asks it, and names the op at the user's line."""
    source = ORCHESTRATION_COMPUTE
    if outlined:
        source = source.replace("        z = pl.mul(y, 2.0)\n", "        with pl.at(level=pl.Level.CORE_GROUP):\n            z = pl.mul(y, 2.0)\n")
    result = compile_source(_write(tmp_path, "k.py", source), None, "passes", target="2026-08", python=head)
    assert not result.errors
    if outlined:
        assert not result.structure
    else:
        assert [(p.op, p.line) for p in result.structure] == [("pl.tensor.muls", 10)]
        assert "Misplaced tensor op" in result.structure[0].message


def test_the_2026_03_compiler_does_not_know_this_code(tmp_path):
    pypto_or_skip()
    path = _write(tmp_path, "k.py", BUILDER)
    result = compile_source(path, None, "parse")
    assert result.errors and "at" in result.errors[0].message


def _cli(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "codemods", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          env=env)


def test_check_compile_with_the_newest_compiler_named_three_ways(tmp_path, head):
    _write(tmp_path, "k.py", JIT_TILE_ON_TENSOR)
    plain = {k: v for k, v in os.environ.items() if k != "PYPTO_PYTHON"}
    by_option = _cli("check", "--compile", "--target", "2026-08", "--compiler-python", head, "k.py", cwd=tmp_path, env=plain)
    by_env = _cli("check", "--compile", "--target", "2026-08", "k.py", cwd=tmp_path, env=dict(plain, PYPTO_PYTHON=head))
    (tmp_path / "pyproject.toml").write_text(f'[tool.pypto-migrate]\ncompiler-python = "{head}"\n')
    by_config = _cli("check", "--compile", "--target", "2026-08", "k.py", cwd=tmp_path, env=plain)
    for done in (by_option, by_env, by_config):
        assert done.returncode == 1, done.stderr
        assert "tile.rsqrt requires first argument to be a TileType" in done.stderr


def test_the_wrong_compiler_is_one_clear_error_and_exit_2(tmp_path, head):
    _write(tmp_path, "k.py", BUILDER)
    done = _cli("check", "--compile", "--target", "2026-03", "--compiler-python", head, "k.py", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "needs pypto of 2026-03-09" in done.stderr and "has pypto of 2026-08-21" in done.stderr


def test_the_compiler_python_precedence_and_config_paths(tmp_path, monkeypatch):
    monkeypatch.delenv("PYPTO_PYTHON", raising=False)
    assert compiler_python(None, None) == sys.executable
    assert compiler_python(None, "/from/config") == "/from/config"
    monkeypatch.setenv("PYPTO_PYTHON", "/from/env")
    assert compiler_python(None, "/from/config") == "/from/env"
    assert compiler_python("/from/option", "/from/config") == "/from/option"
    config = parse({"compiler-python": "../venv-head/bin/python"}, tmp_path / "proj" / "pyproject.toml")
    assert config.compiler_python == str(tmp_path / "proj" / ".." / "venv-head" / "bin" / "python")
    assert parse({"compiler-python": "python3.11"}, tmp_path / "pyproject.toml").compiler_python == "python3.11"
    with pytest.raises(ConfigError, match="compiler-python"):
        parse({"compiler-python": 3}, tmp_path / "pyproject.toml")


def test_a_relative_compiler_python_is_where_the_user_stands(tmp_path, head):
    """`--compiler-python venv/bin/python` (or PYPTO_PYTHON) names a path from the user's folder;
    the compile worker runs in a folder of its own, where it named nothing ("cannot be run")."""
    _write(tmp_path, "k.py", BUILDER)
    relative = os.path.relpath(head, tmp_path)
    assert not os.path.isabs(relative) and os.sep in relative
    done = _cli("check", "--compile=passes", "--target", "2026-08", "--compiler-python", relative, "k.py", cwd=tmp_path)
    assert "cannot be run" not in done.stderr and "1 file compiled" in done.stdout + done.stderr, done.stderr
    assert compiler_python("./bin/python") == os.path.abspath("./bin/python")
    assert compiler_python("python3.11") == "python3.11"  # a command name is looked up in PATH


def test_without_the_newest_compiler_the_hint_names_its_wheel_and_torch(tmp_path):
    fake = tmp_path / "shadow" / "pypto"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no pypto in this environment')\n")
    _write(tmp_path, "k.py", "x = 1\n")
    done = _cli("check", "--compile", "--target", "2026-08", "k.py", cwd=tmp_path,
                env=dict(os.environ, PYTHONPATH=str(fake.parent)))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "oracle-head" in done.stderr and "torch==2.13.0" in done.stderr and "2026-08-21" in done.stderr


def test_a_check_that_names_the_users_line_is_put_there(tmp_path):
    pypto_or_skip()  # the locator reads pypto's error classes
    from codemods.compiler.worker import _Locator

    user = _write(tmp_path, "k.py", "x = 1\n")
    where = _Locator(user, user, named_lines=True)
    text = f"tile.slice shape element 1 must be a compile-time constant Check failed: static_dim at pypto/src/x.cpp:153 at {user}:288:48"
    assert (where.finding(ValueError(text), "compiling")["line"], where.finding(ValueError(text), "compiling")["column"]) == (288, 49)
    other = "the same at /elsewhere/helper.py:7:3"
    assert where.finding(ValueError(other), "compiling")["line"] == 1


THIN_MATMUL = """import pypto.language as pl


@pl.program
class Thin:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4, 512], pl.BF16], w: pl.Tensor[[512, 128], pl.BF16],
          out: pl.Out[pl.Tensor[[4, 128], pl.FP32]]) -> pl.Tensor[[4, 128], pl.FP32]:
        lhs = pl.load(a, [0, 0], [4, 512], target_memory=pl.MemorySpace.Mat)
        rhs = pl.load(w, [0, 0], [512, 128], target_memory=pl.MemorySpace.Mat)
        acc = pl.matmul(pl.move(lhs, target_memory=pl.MemorySpace.Left), pl.move(rhs, target_memory=pl.MemorySpace.Right))
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 512], pl.BF16], w: pl.Tensor[[512, 128], pl.BF16],
             out: pl.Out[pl.Tensor[[4, 128], pl.FP32]]) -> pl.Tensor[[4, 128], pl.FP32]:
        out = self.k(a, w, out)
        return out
"""


def test_a_pass_error_is_placed_at_the_line_its_text_names(tmp_path, head):
    # AutoTileMatmulL0 refuses a 128 KB Right operand of a 4-row matmul and names the matmul as
    # "[FILE:LINE:COL]"; the traceback alone reaches only the function's def line.
    path = _write(tmp_path, "thin.py", THIN_MATMUL)
    result = compile_source(path, None, "passes", target="2026-08", python=head)
    lines = THIN_MATMUL.splitlines()
    assert result.errors and all("pl.matmul" in lines[e.line - 1] for e in result.errors), result.errors


def test_passes_at_the_default_target_match_the_aic_and_aiv_halves_with_the_tools_regions(tmp_path, head):
    """e2d0f78ae outlines a kernel that uses both cores as `<kernel>_aic` and `<kernel>_aiv`: each
    pair is one of the tool's regions, in order, so that no count differs and nothing is noise;
    the tool's figures (c39's model) are shown beside the compiler's, not marked DIFFERS (36.4)."""
    source = FIXTURES / "2026-03" / "before" / "deepseek_v3_2_decode_front.py"
    _write(tmp_path, "k.py", source.read_text(encoding="utf-8"))
    done = _cli("check", "--no-cache", "--compile=passes", "--compiler-python", head, "k.py", cwd=tmp_path)
    err = done.stderr
    assert "1 file compiled, 0 compile errors; target 2026-08" in err, err[-2000:]
    assert "structure:" not in err and "the tool sees" not in err and "DIFFERS" not in err
    assert "= decode_front_layer_incore_0_aic + decode_front_layer_incore_0_aiv" in err
    assert "not this compiler's: not compared" in err
