"""Library code around kernels: helpers, function types, the old `pl.block` namespace,
annotated assignments; and the real library tree of the corpus, when it is there."""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from codemods.cli.commands import main
from codemods.model.kernels import OpIndex, find_regions, kernel_functions, parameter_value
from codemods.check.strict import check_module
from conftest import FIXTURES, ROOT, pinned

LIBRARY = FIXTURES / "library"
CORPUS = ROOT.parent / "shared" / "corpus" / "library"


def _read(name: str) -> str:
    return (LIBRARY / name).read_text()


def _errors(result) -> list[str]:
    return [f.message for f in result.findings if f.level == "error"]


def test_helpers_and_unknown_values_plan_nothing_and_raise_no_error(run_rules, api):
    # Unannotated helper parameters, helper-call results and `x.shape[0]` are unknown: no
    # rewrite is guessed for them and the strict check finds nothing to object to.
    source = _read("helpers.py")
    result = run_rules(source)
    assert result.output == source
    assert result.findings == []
    assert check_module(cst.parse_module(source), api) == []


@pytest.mark.parametrize("annotation,kind", [
    ("pl.Tensor", "Tensor"), ("pl.Out[pl.Tensor]", "Tensor"), ("pl.Tile", "Tile"),
    ("pl.Scalar[pl.FP32]", "Scalar"), ("int", "Scalar"), ("SomeClass", "unknown"),
    ("pl.Tensor[[4, 8], pl.BF16]", "Tensor"),
])
def test_parameter_kinds_come_from_the_annotation_only(annotation, kind, api):
    module = cst.parse_module(f"import pypto.language as pl\n\n@pl.function\ndef f(x: {annotation}, y):\n    return x\n")
    ops = OpIndex(module, api.module).ops
    func = module.body[1]
    assert parameter_value(func.params.params[0].annotation.annotation, ops).kind == kind
    assert parameter_value(None, ops).kind == "unknown"  # `y` has no annotation


def test_known_scalars_stay_scalars(run_rules, api):
    # A Tile where a Tensor is required is still caught when the other operand is a real scalar.
    source = (
        "import pypto.language as pl\n\nN = 4\n\n@pl.function\n"
        "def f(x: pl.Tensor[[4, 4], pl.FP32], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:\n"
        "    for i in pl.range(0, N, 1):\n"
        "        v = pl.tensor.read(x, [i, 0])\n"
        "        x = pl.assemble(x, v * 2 + s, [i, 0])\n"
        "    return x\n"
    )
    violations = [v.message for v in check_module(cst.parse_module(source), api)]
    assert violations == ["The operator tensor.assemble requires argument 2 to be a TensorType, but got ScalarType"]


def test_function_types_decide_the_kernel_regions(api):
    module = cst.parse_module(_read("function_types.py"))
    ops = OpIndex(module, api.module).ops
    kinds = {kf.node.name.value: (kf.type, [r.kind for r, _ in find_regions(kf.node, ops, {})])
             for kf in kernel_functions(module, ops)}
    assert kinds == {
        "scale_rows": ("InCore", ["function"]),
        "main": ("Orchestration", []),
        "normalize": ("InCore", ["function"]),
    }


def test_new_style_program_plans_nothing_and_old_style_incore_body_is_migrated(run_rules):
    source = _read("function_types.py")
    result = run_rules(source)
    assert _errors(result) == [] and result.findings == []
    new_style = source.split("@pl.program\nclass OldStyleKernel")[0]
    assert result.output.startswith(new_style), "the new-style program is left exactly as it is"
    old = result.output.split("class OldStyleKernel")[1]
    assert "inv_tile = pl.load(inv, [0, 0], [M, 1], target_memory=pl.MemorySpace.Vec)" in old
    assert "rows = pl.load(x, [0, 0], [M, N], target_memory=pl.MemorySpace.Vec)" in old
    assert "out = pl.store(scaled, [0, 0], out)" in old
    assert run_rules(result.output).output == result.output


def test_block_namespace_becomes_tile_calls_the_parser_reads(run_rules):
    result = run_rules(_read("block_namespace.py"))
    assert "from pypto.language import tile as pl_block" in result.output
    assert "shifted = pl.tile.adds(t, 1.0)" in result.output
    assert "scaled = pl.tile.muls(shifted, 0.5)" in result.output
    assert "pl.block" not in result.output.split("\n", 1)[1]  # the docstring names the old namespace
    assert _errors(result) == [] and result.findings == []
    assert run_rules(result.output).output == result.output


def test_a_block_op_the_tile_namespace_lacks_is_flagged(run_rules):
    source = "import pypto.language as pl\n\ny = pl.block.gather(x, idx)\n"
    result = run_rules(source)
    by_rule = {f.rule: f.message for f in result.findings}
    assert "pl.block.gather has no pl.tile.gather" in by_rule["PTO019"]
    assert "\ny = pl.block.gather(x, idx)\n" in result.output  # left as written, under its markers


def test_annotations_follow_values_that_become_tiles(run_rules):
    result = run_rules(_read("annotated.py"))
    assert "rows: pl.Tile[[B, D], pl.FP32] = pl.load(x, [b, 0], [B, D], target_memory=pl.MemorySpace.Vec)" in result.output
    assert "acc: pl.Tile[[B, D], pl.FP32] = pl.create_tile([B, D], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)" in result.output
    assert _errors(result) == [] and result.findings == []
    assert run_rules(result.output).output == result.output


def test_strict_check_reports_an_annotation_the_value_contradicts(api):
    source = (
        "import pypto.language as pl\n\n@pl.function(type=pl.FunctionType.InCore)\n"
        "def f(x: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:\n"
        "    t: pl.Tensor[[4, 4], pl.FP32] = pl.load(x, [0, 0], [4, 4])\n"
        "    return x\n"
    )
    messages = [v.message for v in check_module(cst.parse_module(source), api)]
    assert messages == ["Type annotation for 't' is Tensor but expression has type Tile"]


# -- the real library tree -------------------------------------------------------------

# Every strict error left on the corpus's library tree, read and judged real: tile row
# reductions whose required scratch tile the source never passes (the compiler says
# `row_sum() missing 1 required positional argument: 'tmp_tile'`). The tile code the helpers
# run in plain Opaque functions is wrapped in pl.incore() blocks (wrap-incore) and counts no
# longer: it was 50 "tile op in orchestration" errors before that rule searched every depth.
EXPECTED_ERRORS = {
    "junk_tensor_functions/composite.py": 3,
}
_LINE = re.compile(r"^(?P<path>[^:\s]+\.py):\d+:\d+: (?P<level>error|review) (?P<rule>\S+): (?P<message>.*)$")


@pytest.fixture
def library_tree(tmp_path):
    if not CORPUS.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CORPUS} is missing: CI must run the library tree test")
        pytest.skip(f"{CORPUS} is not here (the shared corpus sits beside the checkout)")
    tree = tmp_path / "library"
    shutil.copytree(CORPUS, tree)
    for path in tree.rglob("*"):  # the corpus is read-only; the copy is ours to write
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return tree


def _run(tree: Path, *args: str):
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        return CliRunner().invoke(main, pinned(["run", *args, "--jobs", "1", "."]), catch_exceptions=False)
    finally:
        os.chdir(cwd)


def test_library_tree_migrates_without_internal_or_false_errors(library_tree):
    first = _run(library_tree, "--write")
    assert first.exit_code == 0, first.output
    assert "engine error" not in first.output and "could not be processed" not in first.output
    errors = Counter()
    for line in first.output.splitlines():
        m = _LINE.match(line)
        if m and m.group("level") == "error":
            errors[m.group("path")] += 1
            assert ("in orchestration: it belongs inside a kernel region" in m.group("message")
                    or "needs its scratch tile" in m.group("message")), line
    assert dict(errors) == EXPECTED_ERRORS
    second = _run(library_tree)
    assert second.exit_code == 0
    assert "---" not in second.output and "0 files would be migrated, 0 edits" in second.output
