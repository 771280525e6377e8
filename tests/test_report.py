"""The capacity report: numbers that hand arithmetic reproduces, JSON records, and the CLI."""

from __future__ import annotations

import json

import libcst as cst
import pytest
from click.testing import CliRunner

from codemods.cli.commands import main
from codemods.migrate.report import report_module
from codemods.rulebook.loading import load_rules, steps
from conftest import FIXTURES, pinned


def usage_of(path, api):
    rep = report_module(cst.parse_module(path.read_text()), path.name, api)
    return {(k.label, u.space): u.bytes for k in rep.kernels for u in k.usage}, rep


def test_decode_back_kernel_1_by_hand(api):
    # BATCH_TILE=2, OUT_CHUNK=32, K_CHUNK=16. The kernel is the b0 loop; the compiler shares
    # buffers only among statements of its body and of loops directly in it, and everything here
    # sits in the o0 loop inside it: every tile keeps a buffer of its own. Vec: acc made, acc
    # zeroed, acc accumulated, res cast and the sum stored into h1 ([2, 32] FP32, 256 B each),
    # and the residual load ([2, 32] BF16, 128 B): 1408. Mat: a_chunk [2, 16] BF16 = 64 and the
    # wo load [16, 32] BF16 = 1024. Left: a_chunk moved, 64. Right: the wo tile moved, 1024.
    # Acc: the [2, 32] FP32 result, 256. The compiler's memory report says the same.
    for kind in ("before", "after"):  # the report of old code describes it as migrated
        usage, _ = usage_of(FIXTURES / "2026-03" / kind / "deepseek_v3_2_decode_back.py", api)
        assert [usage["kernel 1", s] for s in ("Vec", "Mat", "Left", "Right", "Acc")] == [1408, 1088, 64, 1024, 256]


def test_decode_back_kernel_3_right_and_acc_by_hand(api):
    # The three matmuls sit in loops inside the b0 loop, so none shares a buffer. Right: the w_gate
    # and w_up tiles [K_CHUNK, INTER_CHUNK] BF16 = 16 * 32 * 2 = 1024 B each, the w_down tile
    # [INTER_CHUNK, hidden] BF16 = 32 * 64 * 2 = 4096 B: 6144. Acc: the gate and up results
    # [BATCH_TILE, INTER_CHUNK] FP32 = 256 B each, the down result [BATCH_TILE, hidden] FP32 = 512 B.
    usage, _ = usage_of(FIXTURES / "2026-03" / "after" / "deepseek_v3_2_decode_back.py", api)
    assert usage["kernel 3", "Right"] == 6144 and usage["kernel 3", "Acc"] == 1024


def test_overflow_names_the_tile_and_constants(run_rules):
    rule = next(r for r in load_rules() if r.name == "buffer-capacity")
    result = run_rules(rule.examples[0].before)
    (finding,) = [f for f in result.findings if f.rule == rule.id]
    assert finding.message == (
        "kernel 1, Right: 128 KB of 64 KB; largest: the [K_CHUNK, Q_OUT_CHUNK] BF16 w_chunk moved to Right "
        "(128 KB); K_CHUNK=512, Q_OUT_CHUNK=128"
    )


@pytest.mark.parametrize("step", steps())
def test_report_json_records_and_scopes(tmp_path, monkeypatch, step):
    monkeypatch.chdir(FIXTURES.parent)
    result = CliRunner().invoke(main, ["report", "--target", step, "--format", "json",
                                       "fixtures/2026-03/after/deepseek_v3_2_decode_front.py"])
    assert result.exit_code == 0
    records = json.loads(result.stdout)
    assert len(records) == 2 * 5  # two kernels, five spaces each
    assert set(records[0]) == {"file", "line", "function", "region", "space", "bytes", "limit", "tiles"}
    assert {r["region"] for r in records} == {"kernel 1", "kernel 2"}
    assert all(r["bytes"] <= r["limit"] for r in records)
    text = CliRunner().invoke(main, pinned(["report", "fixtures/2026-03/after/deepseek_v3_2_decode_front.py"])).stdout
    source = (FIXTURES / "2026-03" / "after" / "deepseek_v3_2_decode_front.py").read_text().splitlines()
    scopes = [i + 1 for i, line in enumerate(source) if line.strip() == "with pl.auto_incore():"]
    assert len(scopes) == 2
    assert f"auto_incore at line {scopes[0]}" in text and f"auto_incore at line {scopes[1]}" in text
    assert f"kernel 2 at line {scopes[1] + 1}: for b in pl.parallel(0, batch, 1, chunk=1)" in text
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    assert CliRunner().invoke(main, pinned(["report", str(bad)])).exit_code == 2  # could not process a file


def test_edge_capacity_by_hand(api):
    # BATCH_TILE=16, K_CHUNK=512, Q_OUT_CHUNK=128; everything sits in the q0 loop inside the
    # kernel's b0 loop, where the compiler shares no buffer.
    # Right: the wq tile [512, 128] BF16 = 131072 B (twice the 65536 B limit).
    # Mat: x_chunk [16, 512] BF16 = 16384 (a variable, only a matmul operand) + the wq tile 131072.
    # Left: x_chunk moved, 16384. Acc: [16, 128] FP32 = 8192. Vec: the accumulator made, zeroed
    # and accumulated, 8192 each.
    usage, rep = usage_of(FIXTURES / "2026-03" / "before" / "edge_capacity.py", api)
    assert [usage["kernel 1", s] for s in ("Vec", "Mat", "Left", "Right", "Acc")] == [24576, 147456, 16384, 131072, 8192]
    (kernel,) = rep.kernels
    assert [u.space for u in kernel.usage if u.over] == ["Right"]
    assert "OVER" in rep.text() and "K_CHUNK=512, Q_OUT_CHUNK=128" in rep.text()


def test_report_holds_needs_against_the_targets_limits(tmp_path):
    """e2d0f78ae has 8 KB less Vec than c39: the default target's limit is the newest's, and
    --target pins the older one; the needs themselves are the same model's."""
    from codemods.rulebook.loading import load_api, newest_step, oldest_step

    path = tmp_path / "k.py"
    path.write_text(
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[64, 1024], pl.FP32], out: pl.Out[pl.Tensor[[64, 1024], pl.FP32]]) "
        "-> pl.Tensor[[64, 1024], pl.FP32]:\n"
        "        t = pl.load(x, [0, 0], [64, 1024], target_memory=pl.MemorySpace.Vec)\n"
        "        out = pl.store(t, [0, 0], out)\n        return out\n", encoding="utf-8")
    newest = CliRunner().invoke(main, ["report", "--format", "json", str(path)])
    oldest = CliRunner().invoke(main, ["report", "--format", "json", "--target", oldest_step(), str(path)])
    vec = [next(rec for rec in json.loads(r.output) if rec["space"] == "Vec") for r in (newest, oldest)]
    assert vec[0]["limit"] == load_api(None, newest_step()).memory_limits["Vec"] == 188416
    assert vec[1]["limit"] == load_api(None, oldest_step()).memory_limits["Vec"] == 196608
    assert vec[0]["bytes"] == vec[1]["bytes"] == 64 * 1024 * 4
