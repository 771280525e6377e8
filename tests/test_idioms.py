"""Expected outputs checked against pypto-migration-idioms.md, one idiom at a time.

The golden files in fixtures/2026-03/after are the tool's output; these lines were written by hand
from the idioms file, so a wrong golden file cannot pass by agreeing with itself.
"""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES

M = "target_memory=pl.MemorySpace"


def after(name: str) -> str:
    return (FIXTURES / "2026-03" / "after" / f"{name}.py").read_text()


def lines(name: str) -> list[str]:
    return [line.strip() for line in after(name).splitlines()]


HAND_CHECKED = [
    # idioms 1 and 8: offsets before shapes; only a matmul operand -> Mat
    ("decode_back", f"a_chunk = pl.load(attn_out, [b0, k0], [BATCH_TILE, K_CHUNK], {M}.Mat)"),
    # idioms 1 and 8: feeding a vector op -> Vec
    ("decode_back", f"res = pl.cast(pl.load(residual, [b0, o0], [BATCH_TILE, OUT_CHUNK], {M}.Vec), target_type=pl.FP32)"),
    # idiom 3: assemble(target, value, offset) -> store(value, offset, target)
    ("decode_back", "h1 = pl.store(pl.add(acc, res), [b0, o0], h1)"),
    # idiom 5: a local accumulator becomes a Vec tile and keeps its zero-init
    ("decode_back", f"acc = pl.create_tile([BATCH_TILE, OUT_CHUNK], dtype=pl.FP32, {M}.Vec)"),
    ("decode_back", "acc = pl.mul(acc, 0.0)"),
    # idiom 7: a Vec operand goes Vec -> Mat -> Left; the weight is loaded into Mat and moved to Right
    ("decode_back", f"down = pl.add(down, pl.matmul(pl.move(pl.move(act, {M}.Mat), {M}.Left), "
                    f"pl.move(pl.load(w_down, [i0, 0], [INTER_CHUNK, hidden], {M}.Mat), {M}.Right)))"),
    # idiom 9: the tile reduction gets a scratch tile of the input's shape and dtype, with its own name
    ("decode_back", f"sq_sum_tmp = pl.create_tile([BATCH_TILE, OUT_CHUNK], dtype=pl.FP32, {M}.Vec)"),
    ("decode_back", "sq_sum = pl.add(sq_sum, pl.row_sum(pl.mul(h_chunk, h_chunk), sq_sum_tmp))"),
    # idioms 10 and 11: a Tensor read inside a kernel comes from a tile loaded at the kernel's start
    ("decode_front", f"seq_lens_tile = pl.load(seq_lens, [0, 0], [batch, 1], {M}.Vec)"),
    ("decode_front", "pos = pl.tile.read(seq_lens_tile, [b0 + r, 0]) - 1"),
    ("decode_front", "q_normed = pl.col_expand_mul(pl.row_expand_mul(q_a, q_inv), q_norm_weight_tile)"),
    # idioms 11 and 12: orchestration keeps tensor.read; scalar pl.min is unchanged
    ("decode_front", "ctx_len = pl.min(max_seq, pl.tensor.read(seq_lens, [b, 0]))"),
    # idiom 7, transposed operand: a move with transpose=True replaces pl.transpose
    ("decode_front", f"scores = pl.matmul(pl.move(pl.move(q_row, {M}.Mat), {M}.Left), pl.move(keys, {M}.Right, transpose=True))"),
    # idiom 15: shape arithmetic becomes a named constant beside the others
    ("decode_front", "ROPE_DIM_HALF = ROPE_DIM // 2"),
    ("decode_front", f"cos_lo = pl.load(rope_cos, [pos, 0], [1, ROPE_DIM_HALF], {M}.Vec)"),
    # idiom 17: the same tile name in the second kernel is renamed
    ("decode_front", f"cos_lo_2 = pl.load(rope_cos, [pos, 0], [1, ROPE_DIM_HALF], {M}.Vec)"),
    # idioms 4 and 6: pieces of a value go through a Tensor made in orchestration, one slice per iteration
    ("decode_front", "scores_buf = pl.create_tensor([batch, 1, TOPK], dtype=pl.FP32)"),
    ("decode_front", "scores_buf = pl.store(pl.reshape(pl.mul(s, attn_scale), [1, 1, 1]), [b, 0, t], scores_buf)"),
    ("decode_front", f"scores_2 = pl.reshape(pl.load(scores_buf, [b, 0, 0], [1, 1, TOPK], {M}.Vec), [1, TOPK])"),
    ("prefill_back", "h1_buf = pl.create_tensor([max_tokens // TOK_TILE, TOK_TILE, hidden], dtype=pl.FP32)"),
    ("prefill_back", "h1_buf = pl.store(pl.reshape(pl.add(acc, res), [1, TOK_TILE, OUT_CHUNK]), [t0 // TOK_TILE, 0, o0], h1_buf)"),
    # idiom 13: valid_shape leaves create_tensor, validity rides on the loads
    ("prefill_front", f"pl.load(hidden_states, [t0, k0], [TOK_TILE, K_CHUNK], {M}.Vec, valid_shapes=[valid, K_CHUNK]),"),
    ("prefill_front", f"q_head = pl.create_tile([TOK_TILE, qk_head], dtype=pl.FP32, {M}.Vec)"),
    # idiom 16: code outside any chunked loop, and a loop too short to be outlined, get pl.incore()
    ("edge_regions", "with pl.incore():"),
    # idiom 14: a slice of a slice is one load from the root at the summed offset
    ("edge_regions", f"left = pl.load(x, [b0 + r, 0], [1, HALF], {M}.Vec)"),
    ("edge_regions", f"right = pl.load(x, [b0 + r, HALF], [1, HALF], {M}.Vec)"),
    # idiom 2: rank-reducing slice -> load at full rank with a leading 1, then reshape
    ("edge_regions", f"plane = pl.cast(pl.reshape(pl.load(x3, [1, b0, 0], [1, TILE_ROWS, COLS], {M}.Vec), [TILE_ROWS, COLS]), target_type=pl.FP32)"),
]


@pytest.mark.parametrize("fixture,line", HAND_CHECKED, ids=[f"{f}:{i}" for i, (f, _) in enumerate(HAND_CHECKED)])
def test_hand_checked_line(fixture, line):
    name = fixture if fixture.startswith("edge") else f"deepseek_v3_2_{fixture}"
    assert line in lines(name)


def test_each_lost_mask_is_flagged_where_it_was_dropped():
    text = after("deepseek_v3_2_prefill_front")
    creates = re.findall(r"\n( *)# pypto-migrate: review PTO012: valid_shape=\[valid, [^\]]+\] dropped[^\n]*\n\1(\w+) = pl.create_tile", text)
    assert [name for _, name in creates] == ["sq_sum", "q_a", "kv_a", "k_idx", "q_head"]


@pytest.mark.parametrize("name", sorted(p.stem for p in (FIXTURES / "2026-03" / "after").glob("*.py")))
def test_the_reviews_three_mistakes_are_absent(name):
    text = after(name)
    # 1. never load a slice: inside a kernel the slice is itself lowered to a load
    assert not re.search(r"pl\.load\(\s*pl\.(slice|view)\(", text)
    # 2. never a Mat load feeding a vector op (vector ops on Mat tiles are accepted and wrong)
    assert not re.search(r"pl\.(add|mul|sub|exp|cast|rsqrt|row_sum)\(pl\.load\([^)]*MemorySpace\.Mat", text)
    # 3. never store an accumulator into a fresh create_tensor inside a kernel
    assert not re.search(r"pl\.store\([^\n]*pl\.create_tensor\(", text)
