"""codemods.compiler.bridge against the real pypto compiler, on our own fixtures and small kernels;
the memory report parser, the IR structure audit and the review-marker exemption on texts
written here."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemods.compiler.verdict import KernelCapacity, mismatches, over_limits, pair_kernels, under_review_marker
from codemods.compiler.ir_audit import Kernel, audit_dump, kernels_in
from codemods.compiler.memory_report import MemoryRecord, parse_memory_report
from conftest import FIXTURES
from needs import pypto_or_skip

WITH_PROGRAMS = sorted(p.name for p in (FIXTURES / "2026-03" / "after").glob("*.py") if "program" in p.read_text())

TILE_OP_ON_TENSOR = '''\
import pypto.language as pl

N = 16


def build_bad_program(n: int = N):
    @pl.program
    class Bad:
        @pl.function
        def bad(self, x: pl.Tensor[[n, 16], pl.FP32], out: pl.Out[pl.Tensor[[n, 16], pl.FP32]]) -> pl.Tensor[[n, 16], pl.FP32]:
            with pl.incore():
                t = pl.tile.rsqrt(x)
                out = pl.store(t, [0, 0], out)
            return out

    return Bad
'''

SHAPES = '''\
import pypto.language as pl
{directive}
ROWS = 16


@pl.program
class Shapes:
    @pl.function
    def shapes(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.incore():
            t = pl.load(x, [0, 0], [ROWS, 16], target_memory=pl.MemorySpace.Vec)
            u = pl.load(x, [0, 0], [8, 16], target_memory=pl.MemorySpace.Vec)
            v = pl.add(t, u)
            out = pl.store(v, [0, 0], out)
        return out
'''


@pytest.fixture
def compiler():
    pypto_or_skip()
    from codemods.compiler import bridge as compiler

    return compiler


@pytest.mark.parametrize("name", WITH_PROGRAMS)
def test_every_migrated_fixture_parses_and_passes_with_a_clean_structure(compiler, name):
    result = compiler.compile_source(FIXTURES / "2026-03" / "after" / name, None, "passes")
    assert result.errors == [] and result.programs, result
    assert result.memory, "the pass pipeline reports each kernel's memory"
    assert all(r.limit > 0 and r.used >= 0 and "_incore_" in r.function for r in result.memory)
    assert result.structure == []


def test_fixtures_without_a_program_are_skipped_with_a_note(compiler):
    result = compiler.compile_source(FIXTURES / "2026-03" / "after" / "edge_aliases.py", None, "parse")
    assert result.skipped and "program" in result.skipped and result.errors == []


def test_a_tile_op_on_a_tensor_is_rejected_at_its_line_without_the_cpp_traceback(compiler, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(TILE_OP_ON_TENSOR)
    result = compiler.compile_source(path, None, "parse")
    [error] = result.errors
    line = TILE_OP_ON_TENSOR.splitlines().index("                t = pl.tile.rsqrt(x)") + 1
    assert (error.line, error.column) == (line, len("                t = ") + 1)
    assert "tile.rsqrt requires argument to be a TileType, but got TensorType" in error.message
    assert "Traceback" not in error.message and "File \"" not in error.message and "\n" not in error.message


def test_a_text_is_compiled_as_if_it_were_the_file(compiler, tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text("x = 1\n")  # what is on disk is not what is compiled
    text = "# one more line, so that the line numbers are the text's\n" + TILE_OP_ON_TENSOR
    [error] = compiler.compile_source(path, text, "parse").errors
    assert text.splitlines()[error.line - 1].strip() == "t = pl.tile.rsqrt(x)"


def test_sizes_come_from_the_files_verify_line_and_from_the_caller(compiler, tmp_path):
    path = tmp_path / "shapes.py"
    path.write_text(SHAPES.format(directive=""))
    [error] = compiler.compile_source(path, None, "parse").errors
    assert "compatible shapes" in error.message
    assert path.read_text().splitlines()[error.line - 1].strip() == "v = pl.add(t, u)"
    assert compiler.compile_source(path, None, "parse", {"ROWS": "8"}).errors == []
    path.write_text(SHAPES.format(directive="# pypto-migrate: verify --set ROWS=8"))
    assert compiler.compile_source(path, None, "parse").errors == []
    assert compiler.compile_source(path, None, "parse", {"ROWS": "16"}).errors  # the caller wins


def test_builder_parameters_take_sizes_too(compiler, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(TILE_OP_ON_TENSOR.replace("pl.tile.rsqrt(x)", "pl.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)"))
    assert compiler.compile_source(path, None, "passes", {"n": "32"}).errors == []
    result = compiler.compile_source(path, None, "parse", {"nonexistent": "3"})
    assert any("nonexistent" in note for note in result.notes)


def test_a_crash_of_the_child_costs_only_the_result(compiler, tmp_path):
    path = tmp_path / "abort.py"
    path.write_text("import os\nos.abort()\n" + TILE_OP_ON_TENSOR)
    [error] = compiler.compile_source(path, None, "parse").errors
    assert "SIGABRT" in error.message and error.line == 1


def test_a_hang_is_stopped(compiler, tmp_path):
    path = tmp_path / "hang.py"
    path.write_text("import time\ntime.sleep(60)\n" + TILE_OP_ON_TENSOR)
    [error] = compiler.compile_source(path, None, "parse", timeout=3).errors
    assert "did not finish within 3 s" in error.message


def test_a_failing_import_is_an_error_at_the_line_that_raised(compiler, tmp_path):
    path = tmp_path / "imports.py"
    path.write_text("import os\nimport a_module_that_is_not_there\n" + TILE_OP_ON_TENSOR)
    [error] = compiler.compile_source(path, None, "parse").errors
    assert error.line == 2 and "ModuleNotFoundError" in error.message


REPORT = """\
=== Memory Usage Report ===
Pass: AllocateMemoryAddr
Backend: 910B_CCE
Functions: 2 InCore

--- layer_incore_0 ---

  Space  |  Used       |  Limit      |  Usage   |  MemRefs
  -------+-------------+-------------+----------+---------
  Vec    |     6.0 KB  |   192.0 KB  |    3.1%  |  50
  Right  |   128.0 KB  |    64.0 KB  |  200.0%  |  5
  Acc    |      896 B  |   128.0 KB  |    0.7%  |  5

--- layer_incore_1 ---

  Space  |  Used       |  Limit      |  Usage   |  MemRefs
  -------+-------------+-------------+----------+---------
  Vec    |     1.5 MB  |   192.0 KB  |  800.0%  |  53
"""


def test_the_memory_report_becomes_records_in_bytes():
    records = parse_memory_report(REPORT)
    assert records == [
        MemoryRecord("layer_incore_0", "Vec", 6144, 196608, 51),
        MemoryRecord("layer_incore_0", "Right", 131072, 65536, 51),
        MemoryRecord("layer_incore_0", "Acc", 896, 131072, 0),
        MemoryRecord("layer_incore_1", "Vec", 1572864, 196608, 52429),
    ]  # precision: half the last printed digit, 0.05 KB or 0.05 MB; exact where printed in bytes
    assert [r.over for r in records] == [False, True, False, True]


def test_kernels_are_matched_by_order_within_a_function_and_mismatched_counts_are_said():
    capacity = [
        KernelCapacity("layer", "kernel 1", 10, {"Vec": (4096, 196608), "Right": (70000, 65536)}),
        KernelCapacity("layer", "kernel 2", 40, {"Vec": (1024, 196608)}),
        KernelCapacity("layer", "kernel 3", 70, {"Vec": (1024, 196608)}),
    ]
    pairs, notes = pair_kernels(capacity, parse_memory_report(REPORT))
    assert [(p.tool.label if p.tool else None, p.compiler) for p in pairs] == [
        ("kernel 1", "layer_incore_0"), ("kernel 2", "layer_incore_1"), ("kernel 3", None)]
    assert pairs[0].spaces["Right"] == (70000, 131072, 65536)
    assert notes == ["layer: the tool sees 3 kernel regions, the compiler outlined 2; matched by order, the rest stand alone"]
    assert over_limits(pairs) == (1, 2)


def _record(function: str, space: str, used: int, program: str = "") -> MemoryRecord:
    return MemoryRecord(function, space, used, 1 << 20, 0, program)


def test_the_newest_compilers_aic_and_aiv_halves_are_one_kernel_of_the_source():
    """e2d0f78ae splits a kernel using both cores into `<kernel>_aic` and `<kernel>_aiv`
    (ExpandMixedKernel): one region of the tool, its spaces from both halves (issue 36.4)."""
    capacity = [KernelCapacity("layer", "kernel 1", 10, {"Vec": (4096, 1 << 20), "Mat": (2048, 1 << 20)}),
                KernelCapacity("layer", "kernel 2", 40, {"Vec": (1024, 1 << 20)})]
    memory = [_record("layer_incore_0_aic", "Mat", 2048), _record("layer_incore_0_aiv", "Vec", 4096),
              _record("layer_incore_1", "Vec", 1024)]
    pairs, notes = pair_kernels(capacity, memory)
    assert notes == [] and mismatches(capacity, memory) == []
    assert [(p.tool.label, p.compiler) for p in pairs] == [
        ("kernel 1", "layer_incore_0_aic + layer_incore_0_aiv"), ("kernel 2", "layer_incore_1")]
    assert pairs[0].spaces == {"Vec": (4096, 4096, 1 << 20), "Mat": (2048, 2048, 1 << 20)}


def test_named_regions_and_programs_sharing_function_names_are_matched():
    """A `name_hint=` region is outlined under its name (`_0` when it repeats), counted in its
    function's order; two programs of one file each outline `gemm_incore_0`."""
    capacity = [KernelCapacity("layer", "kernel 1", 10, {"Vec": (1, 1 << 20)}, "rope", ("build_a", "layer")),
                KernelCapacity("layer", "kernel 2", 20, {"Vec": (2, 1 << 20)}, "", ("build_a", "layer")),
                KernelCapacity("layer", "kernel 3", 30, {"Vec": (3, 1 << 20)}, "rope", ("build_a", "layer")),
                KernelCapacity("gemm", "kernel 1", 60, {"Vec": (4, 1 << 20)}, "", ("build_b", "gemm"))]
    memory = [_record("rope", "Vec", 1, "build_a"), _record("layer_incore_1", "Vec", 2, "build_a"),
              _record("rope_0_aiv", "Vec", 3, "build_a"), _record("gemm_incore_0", "Vec", 4, "build_b")]
    pairs, notes = pair_kernels(capacity, memory)
    assert notes == []
    assert [(p.tool.line, p.compiler) for p in pairs] == [(10, "rope"), (20, "layer_incore_1"), (30, "rope_0_aiv"),
                                                          (60, "gemm_incore_0")]


def test_a_region_the_compiler_did_not_outline_is_a_structure_problem_an_inlined_helpers_kernel_is_not():
    capacity = [KernelCapacity("layer", "kernel 1", 10, {"Vec": (1, 1 << 20)}),
                KernelCapacity("layer", "kernel 2", 40, {"Vec": (1, 1 << 20)})]
    memory = [_record("layer_incore_0", "Vec", 1), _record("helper_scope", "Vec", 1)]
    problems = mismatches(capacity, memory)
    assert [(p.function, p.line, p.message) for p in problems] == [
        ("layer", 10, "layer: the tool sees 2 kernel regions, the compiler outlined 1")]
    assert mismatches(capacity, []) == [], "no memory report: nothing to hold the regions against"
    # A kernel of scalar reads and writes has no buffer, so no line of the memory report: the
    # IR's kernel functions count it.
    outlined = [Kernel("layer_incore_0"), Kernel("layer_incore_1"), Kernel("helper_scope")]
    assert mismatches(capacity, memory, outlined) == []
    pairs, _ = pair_kernels(capacity, memory, outlined)
    assert [(p.tool.line, p.compiler) for p in pairs if p.tool] == [(10, "layer_incore_0"), (40, "layer_incore_1")]


def _dump(body: str) -> str:
    return "import pypto.language as pl\n\n@pl.program\nclass P:\n" + textwrap.indent(textwrap.dedent(body), "    ")


CLEAN = _dump("""
    @pl.function(type=pl.FunctionType.InCore)
    def f_incore_0(self, x_0: pl.Tensor[[4, 1], pl.INT32, pl.MemRef(pl.MemorySpace.DDR, -1, 16, 0)]) -> pl.Tensor[[4, 1], pl.INT32]:
        mem_vec_1: pl.MemRefType = pl.tile.alloc(pl.MemorySpace.Vec, 0, 16, 1)
        t_0: pl.Tile[[4, 1], pl.INT32, tile_view=pl.TileView(blayout=pl.TileLayout.col_major), pl.MemRef(pl.MemorySpace.Vec, 0, 16, 1)] = pl.tile.load(x_0, [0, 0], [4, 1], [4, 1], target_memory=pl.MemorySpace.Vec)
        m_0: pl.Tile[[4, 1], pl.INT32, pl.MemRef(pl.MemorySpace.Mat, 0, 16, 2)] = pl.tile.load(x_0, [0, 0], [4, 1], [4, 1], target_memory=pl.MemorySpace.Mat)
        l_0: pl.Tile[[4, 1], pl.INT32, pl.MemRef(pl.MemorySpace.Left, 0, 16, 3)] = pl.tile.move(m_0, target_memory=pl.MemorySpace.Left)
        u_0: pl.Tile[[4, 1], pl.INT32, pl.MemRef(pl.MemorySpace.Vec, 16, 16, 4)] = pl.tile.muls(t_0, 2)
        x_1: pl.Tensor[[4, 1], pl.INT32] = pl.tile.store(u_0, [0, 0], x_0)
        return x_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def f(self, x_0: pl.Tensor[[4, 1], pl.INT32]) -> pl.Tensor[[4, 1], pl.INT32]:
        y_0: pl.Tensor[[4, 1], pl.INT32] = self.f_incore_0(x_0)
        z_0: pl.Tensor[[4, 1], pl.INT32] = pl.tensor.add(y_0, y_0)
        return z_0
""")


def test_the_kernels_of_a_dump_are_its_incore_aic_and_aiv_functions():
    dump = _dump("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def f(self, x: pl.Tensor[[4, 1], pl.INT32]) -> pl.Tensor[[4, 1], pl.INT32]:
            return x

        @pl.function(type=pl.FunctionType.AIC)
        def f_incore_0_aic(self, x: pl.Tensor[[4, 1], pl.INT32]) -> pl.Tensor[[4, 1], pl.INT32]:
            return x

        @pl.function(type=pl.FunctionType.AIV)
        def f_incore_0_aiv(self, x: pl.Tensor[[4, 1], pl.INT32]) -> pl.Tensor[[4, 1], pl.INT32]:
            return x

        @pl.function(type=pl.FunctionType.InCore)
        def f_incore_1(self, x: pl.Tensor[[4, 1], pl.INT32]) -> pl.Tensor[[4, 1], pl.INT32]:
            return x
    """)
    assert kernels_in(dump, "build") == [Kernel("f_incore_0_aic", "build"), Kernel("f_incore_0_aiv", "build"),
                                         Kernel("f_incore_1", "build")]


def test_a_clean_dump_has_no_structure_problem(api):
    assert audit_dump(CLEAN, api) == []


def test_a_tile_op_in_orchestration_or_opaque_is_named(api):
    dump = CLEAN.replace("pl.tensor.add(y_0, y_0)", "pl.tile.add(y_0, y_0)")
    [problem] = audit_dump(dump, api)
    assert (problem.function, problem.op) == ("f", "pl.tile.add") and "Orchestration" in problem.message
    opaque = dump.replace("@pl.function(type=pl.FunctionType.Orchestration)", "@pl.function")
    [problem] = audit_dump(opaque, api)
    assert "Opaque" in problem.message


def test_a_tile_parameter_of_an_incore_kernel_is_named(api):
    dump = CLEAN.replace(
        "def f_incore_0(self, x_0: pl.Tensor[[4, 1], pl.INT32, pl.MemRef(pl.MemorySpace.DDR, -1, 16, 0)])",
        "def f_incore_0(self, x_0: pl.Tensor[[4, 1], pl.INT32, pl.MemRef(pl.MemorySpace.DDR, -1, 16, 0)], "
        "w_0: pl.Tile[[4, 1], pl.INT32, pl.MemRef(pl.MemorySpace.Vec, 32, 16, 9)])",
    )
    [problem] = audit_dump(dump, api)
    assert (problem.function, problem.op) == ("f_incore_0", "w_0") and "Tile parameter" in problem.message


def test_a_vector_op_on_a_mat_tile_is_named_but_data_movement_on_mat_is_not(api):
    dump = CLEAN.replace("pl.tile.muls(t_0, 2)", "pl.tile.muls(m_0, 2)")
    [problem] = audit_dump(dump, api)
    assert (problem.function, problem.op) == ("f_incore_0", "pl.tile.muls") and "`m_0`, a tile in Mat" in problem.message
    exp = CLEAN.replace("pl.tile.muls(t_0, 2)", "pl.tile.exp(m_0)")
    assert [p.op for p in audit_dump(exp, api)] == ["pl.tile.exp"]


def test_a_rejection_under_a_review_marker_is_excused():
    text = textwrap.dedent("""\
        a = 1
        # pypto-migrate: review PTO013: choose one
        b = f(
            a,
        )
        c = 2  # pypto-migrate: review PTO012: decide
        # pypto-migrate: reviewed PTO012
        d = 3
    """)
    assert under_review_marker(text, 3) and under_review_marker(text, 4), "a marker above a statement covers all its lines"
    assert under_review_marker(text, 6)
    assert not under_review_marker(text, 1)
    assert not under_review_marker(text, 8), "a reviewed marker is a decision, not an open question"


def test_a_marker_above_the_decorators_covers_the_def():
    text = textwrap.dedent("""\
        x = 1
        # pypto-migrate: review PTO110: swap the dims
        @pl.jit
        def k(w: pl.Tensor[[4, 8], pl.FP32, pl.DN]):
            return w
    """)
    assert under_review_marker(text, 4) and under_review_marker(text, 3)
    assert not under_review_marker(text, 1)
