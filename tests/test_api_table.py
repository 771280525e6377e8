"""The API table against the installed compiler (benchmarks/check_api_table.py), and the
result types the table gives the planner."""

from __future__ import annotations

import subprocess
import sys

import libcst as cst

from codemods.model.results import result_val
from codemods.model.values import SCALAR, TILE, Val
from conftest import ROOT
from needs import pypto_or_skip


def test_every_op_of_the_table_agrees_with_the_compiler():
    pypto_or_skip()
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "check_api_table.py")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert run.stdout.strip().endswith("0 disagreements between the API table and the compiler")


def test_the_whole_operation_reference_is_in_the_table(api):
    documented = (ROOT.parent / "shared" / "oracle" / "docs" / "user" / "02-operation_reference.md")
    if not documented.exists():
        pypto_or_skip()  # where the docs are absent, the compiler's list below is the reference
    names = {"addc", "subc", "addsc", "subsc", "rems", "lrelu", "prelu", "expands", "cmp", "cmps", "sum",
             "sel", "sels", "maxs", "mins", "and_", "or_", "xor", "not_", "shl", "shrs", "fillpad", "gemv",
             "matmul_bias", "row_expand", "col_expand", "getval", "setval", "max", "min"}
    assert names <= set(api.ops)
    assert all(api.ops[n].result for n in names)


def _call(text: str):
    node = cst.parse_expression(text)
    return [a.value for a in node.args if a.keyword is None], {a.keyword.value: a.value for a in node.args if a.keyword}


def test_results_follow_the_table(api):
    t = Val(TILE, ("M", "N"), "BF16", "Vec")
    pos, kw = _call("pl.rems(t, 3.0)")
    assert result_val(api.ops["rems"], [t, Val(SCALAR)], pos, kw, lambda n: "FP32") == Val(TILE, ("M", "N"), "FP32")
    pos, kw = _call("pl.sum(t, axis=1, keepdim=True)")
    assert result_val(api.ops["sum"], [t], pos, kw).shape == ("M", "1")
    pos, kw = _call("pl.sum(t, axis=0)")
    assert result_val(api.ops["sum"], [t], pos, kw).shape == ("N",)
    mask = Val(TILE, ("M", "N"), "UINT8")
    pos, kw = _call("pl.sel(mask, t, t)")
    assert result_val(api.ops["sel"], [mask, t, t], pos, kw).dtype == "BF16"
    pos, kw = _call("pl.cast(t, target_type=pl.FP32)")
    assert result_val(api.ops["cast"], [t], pos, kw).dtype == "FP32"
    lhs, rhs = Val(TILE, ("M", "K"), "BF16"), Val(TILE, ("K", "N"), "BF16")
    pos, kw = _call("pl.matmul(a, b)")
    assert result_val(api.ops["matmul"], [lhs, rhs], pos, kw) == Val(TILE, ("M", "N"), "FP32")


def test_ops_of_several_forms_are_typed_by_the_form_written():
    """The 2026-08 forms an op dispatches on by keyword, as e2d0f78ae types them (measured: a
    [8, 128] gather_mask gives [8, 64] for P0101/P1010, [8, 32] for P0001..P1000, [8, 128] for
    P1111; mrgsort of [8, 32], [8, 64], [8, 64] gives [8, 160]; with block_len its own shape)."""
    from codemods.model.values import TENSOR
    from codemods.rulebook.loading import load_api

    head = load_api(None, "2026-08")
    x = Val(TENSOR, ("8", "128"), "FP32")
    for pattern, cols in (("P1010", "64"), ("P0101", "64"), ("P0001", "32"), ("P1000", "32"), ("P1111", "128")):
        pos, kw = _call(f"pl.tensor.gather(x, mask_pattern=pl.tile.MaskPattern.{pattern})")
        assert result_val(head.ops["tensor.gather"], [x], pos, kw) == Val(TENSOR, ("8", cols), "FP32")
    pos, kw = _call("pl.tensor.gather_mask(x, mask_pattern=2, output_dtype=pl.INT32)")
    assert result_val(head.ops["tensor.gather_mask"], [x], pos, kw) == Val(TENSOR, ("8", "64"), "INT32")
    index = Val(TENSOR, ("8", "16"), "INT32")
    pos, kw = _call("pl.tensor.gather(x, -1, idx)")
    assert result_val(head.ops["tensor.gather"], [x, Val(SCALAR), index], pos, kw).shape == ("8", "16")
    parts = [Val(TENSOR, ("8", n), "FP32") for n in ("32", "64", "64")]
    pos, kw = _call("pl.mrgsort(a, b, c)")
    assert result_val(head.ops["mrgsort"], parts, pos, kw).shape == ("8", "32 + 64 + 64")
    pos, kw = _call("pl.tensor.mrgsort(x, block_len=64)")
    assert result_val(head.ops["tensor.mrgsort"], [x], pos, kw).shape == ("8", "128")
    pos, kw = _call("pl.tensor.arange(0, [1, 64], dtype=pl.UINT32)")
    assert result_val(head.ops["tensor.arange"], [Val(SCALAR)], pos, kw) == Val(TENSOR, ("1", "64"), "UINT32")
    pos, kw = _call("pl.tile.arange(0, [1, 64])")
    assert result_val(head.ops["tile.arange"], [Val(SCALAR)], pos, kw) == Val(TILE, ("1", "64"), "INT32")


def test_tile_comparisons_give_packed_masks():
    """e2d0f78ae's MakePackedPredicateTileType: a bit per element, each row's bytes rounded up to
    32; a Tensor comparison keeps its shape and type."""
    from codemods.model.constants import evaluate
    from codemods.model.values import TENSOR
    from codemods.rulebook.loading import load_api

    head = load_api(None, "2026-08")
    for cols, packed in (("16", "32"), ("256", "32"), ("257", "64"), ("512", "64")):
        t = Val(TILE, ("8", cols), "FP32", "Vec")
        for op, call in (("tile.cmp", "pl.tile.cmp(a, b, cmp_type=0)"), ("cmp", "pl.cmp(a, b)"), ("cmps", "pl.cmps(a, 0.0)")):
            pos, kw = _call(call)
            assert result_val(head.ops[op], [t, t], pos, kw) == Val(TILE, ("8", packed), "UINT8"), (op, cols)
    symbolic = result_val(head.ops["tile.cmp"], [Val(TILE, ("M", "N"), "FP32")] * 2, *_call("pl.tile.cmp(a, b)"))
    assert [evaluate(symbolic.shape[1], {"N": n}) for n in (16, 300)] == [32, 64]
    x = Val(TENSOR, ("8", "16"), "FP32")
    assert result_val(head.ops["cmp"], [x, x], *_call("pl.cmp(a, b)")) == Val(TENSOR, ("8", "16"), "FP32")


def test_a_four_argument_store_is_no_evidence_of_later_code():
    """2026-08's store(tile, offsets, output_tensor, shapes) and the pre-c39 store(tile, offsets,
    shapes, output_tensor) both pass four: only a form c39 never had is evidence."""
    from codemods.rulebook.evidence import later_signature, later_tables
    from codemods.rulebook.loading import load_api

    c39, later = load_api(None, "2026-03"), later_tables("2026-03")
    assert len(later[-1].ops["store"].params) == 4
    assert not later_signature("store", c39, later, arity=4)
    assert later_signature("rem", c39, later, arity=3)  # pl.tile.rem(a, b, tmp): c39's took two
