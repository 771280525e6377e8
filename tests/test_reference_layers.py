"""The interpreter against the layer math, written here directly in NumPy.

`verify` compares the interpreter with itself; these tests check the interpreter: each
original DeepSeek fixture, run in the old profile, must compute what RMSNorm, the LoRA
projections, RoPE, the indexer's top-k, sparse MLA attention and the SwiGLU MLP compute.
The reference works in float64 and rounds to BF16 only where the kernels cast.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from codemods.interp.execute import Settings, load, make_inputs, run
from codemods.interp.ops import OLD, Machine
from codemods.model.constants import module_constants
from codemods.migrate.parsing import parse
from conftest import FIXTURES

TOL = dict(rtol=3e-2, atol=3e-2)  # BF16 outputs: a couple of units in the last place


def f(a):
    return np.asarray(a).astype(np.float64)


def bf16(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def rms(x, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


def interpret(name: str, settings: Settings | None = None, api=None):
    path = FIXTURES / "2026-03" / "before" / f"{name}.py"
    text = path.read_text()
    settings = (settings or Settings()).merged_over(text)
    program = load(str(path), text, settings, Machine(OLD, api, 11))
    inputs = make_inputs(program.specs, settings)
    outputs = {k: v.data.astype(np.float64) for k, v in run(program, inputs).items()}
    consts = {n: c.value for n, c in module_constants(parse(text)).items()}
    return {k: f(v) for k, v in inputs.items()}, outputs, consts


def swiglu_back(x_attn, residual, wo, gamma, w_gate, w_up, w_down, eps):
    h1 = x_attn @ wo + residual
    mlp_in = bf16(rms(h1, eps) * gamma)
    gate, up = mlp_in @ w_gate, mlp_in @ w_up
    act = bf16(gate / (1.0 + np.exp(-gate)) * up)
    return bf16(act @ w_down + h1)


def test_decode_back_is_attention_output_residual_rmsnorm_swiglu(api):
    x, out, c = interpret("deepseek_v3_2_decode_back", api=api)
    want = swiglu_back(x["attn_out"], x["residual"], x["wo"], x["post_rms_weight"], x["w_gate"], x["w_up"], x["w_down"], c["EPS"])
    np.testing.assert_allclose(out["out"], want, **TOL)


def test_prefill_back_on_the_valid_tokens(api):
    x, out, c = interpret("deepseek_v3_2_prefill_back", api=api)
    n = int(x["num_tokens_t"][0, 0])
    want = swiglu_back(x["attn_out"], x["residual"], x["wo"], x["post_rms_weight"], x["w_gate"], x["w_up"], x["w_down"], c["EPS"])
    np.testing.assert_allclose(out["out"][:n], want[:n], **TOL)
    np.testing.assert_array_equal(out["out"][n:], x["out"][n:])  # masked: never written


def rope(lo, hi, cos, sin):
    half = lo.shape[-1]
    return lo * cos[..., :half] - hi * sin[..., :half], hi * cos[..., half:] + lo * sin[..., half:]


def test_prefill_front_is_rmsnorm_lora_rope_and_cache_writes(api):
    x, out, c = interpret("deepseek_v3_2_prefill_front", api=api)
    n = int(x["num_tokens_t"][0, 0])
    eps, kvl, nope, rope_dim = c["EPS"], c["KV_LORA"], c["NOPE_DIM"], c["ROPE_DIM"]
    half, qk = int(rope_dim) // 2, int(nope + rope_dim)
    kvl, nope = int(kvl), int(nope)
    normed = bf16(rms(x["hidden_states"], eps) * x["input_rms_weight"])
    q_a, kv_a, k_idx = normed @ x["wq_a"], normed @ x["wkv_a"], normed @ x["w_idx_k"]
    np.testing.assert_allclose(out["idx_keys"][:n], bf16(k_idx)[:n], **TOL)
    q_normed = bf16(rms(q_a, eps) * x["q_norm_weight"])
    cos, sin = x["rope_cos"], x["rope_sin"]
    for h in range(int(c["NUM_HEADS"])):
        q_head = q_normed @ x["wq_b"][:, h * qk:(h + 1) * qk]
        lo, hi = rope(q_head[:, nope:nope + half], q_head[:, nope + half:], cos, sin)
        want = np.concatenate([q_head[:, :nope], lo, hi], axis=1)
        np.testing.assert_allclose(out["q_out"][:n, h * qk:(h + 1) * qk], bf16(want)[:n], **TOL)
    kv_normed = rms(kv_a[:, :kvl], eps) * x["kv_norm_weight"]
    np.testing.assert_allclose(out["kv_cache"][:n], bf16(kv_normed)[:n], **TOL)
    lo, hi = rope(kv_a[:, kvl:kvl + half], kv_a[:, kvl + half:], cos, sin)
    np.testing.assert_allclose(out["pe_cache"][:n], bf16(np.concatenate([lo, hi], axis=1))[:n], **TOL)


def test_decode_front_is_mla_with_indexer_topk_and_sparse_attention(api):
    x, out, c = interpret("deepseek_v3_2_decode_front", api=api)
    eps = c["EPS"]
    B, S, TOPK, NH = int(c["BATCH"]), int(c["MAX_SEQ"]), int(c["TOPK"]), int(c["NUM_HEADS"])
    kvl, nope, v_dim = int(c["KV_LORA"]), int(c["NOPE_DIM"]), int(c["V_DIM"])
    half, qk = int(c["ROPE_DIM"]) // 2, int(c["NOPE_DIM"] + c["ROPE_DIM"])
    normed = bf16(rms(x["hidden_states"], eps) * x["input_rms_weight"])
    q_a, kv_a, idx_q = normed @ x["wq_a"], normed @ x["wkv_a"], normed @ x["w_idx"]
    q_proj = bf16(rms(q_a, eps) * x["q_norm_weight"]) @ x["wq_b"]
    kv_normed = rms(kv_a[:, :kvl], eps) * x["kv_norm_weight"]
    kv_cache, pe_cache = x["kv_cache"].copy(), x["pe_cache"].copy()
    pos = x["seq_lens"][:, 0].astype(int) - 1
    for b in range(B):  # the new token's latent and rotated key go to the cache
        cos, sin = x["rope_cos"][pos[b]], x["rope_sin"][pos[b]]
        lo, hi = rope(kv_a[b, kvl:kvl + half], kv_a[b, kvl + half:], cos, sin)
        pe_cache[b * S + pos[b]] = bf16(np.concatenate([lo, hi]))
        kv_cache[b * S + pos[b]] = bf16(kv_normed[b])
    np.testing.assert_allclose(out["kv_cache"], kv_cache, **TOL)
    np.testing.assert_allclose(out["pe_cache"], pe_cache, **TOL)

    attn = np.zeros((B, NH * v_dim))
    scale = 1.0 / np.sqrt(qk)
    for b in range(B):
        keys = x["idx_keys"][b * S:(b + 1) * S]
        # Scores in float32 like the kernel, so that near-ties rank the same; the ranking is ours.
        scores = (bf16(idx_q[b:b + 1]).astype(np.float32) @ keys.astype(np.float32).T)[0].astype(np.float64)
        live = min(S, int(x["seq_lens"][b, 0]))
        chosen = list(np.argsort(-scores[:live], kind="stable")[:TOPK])
        rows = [b * S + j for j in chosen]
        cos, sin = x["rope_cos"][pos[b]], x["rope_sin"][pos[b]]
        for h in range(NH):
            q_lat = bf16(q_proj[b, h * qk:h * qk + nope]) @ x["w_uk"][h * nope:(h + 1) * nope]
            q_lo, q_hi = rope(q_proj[b, h * qk + nope:h * qk + nope + half], q_proj[b, h * qk + nope + half:(h + 1) * qk], cos, sin)
            k_lat, k_pe = kv_cache[rows], pe_cache[rows]
            s = (k_lat @ q_lat + k_pe[:, :half] @ q_lo + k_pe[:, half:] @ q_hi) * scale
            p = np.exp(s - s.max())
            p /= p.sum()
            o_lat = p @ k_lat
            attn[b, h * v_dim:(h + 1) * v_dim] = bf16(bf16(o_lat) @ x["w_uv"][h * kvl:(h + 1) * kvl])
    np.testing.assert_allclose(out["attn_out"], attn, **TOL)


@pytest.mark.parametrize("seed", [1, 2])
def test_decode_back_reference_at_other_sizes(seed, api):
    settings = Settings(sets={"BATCH": "6", "INTER": "96"}, seed=seed)
    x, out, c = interpret("deepseek_v3_2_decode_back", settings, api=api)
    assert out["out"].shape == (6, 64)
    want = swiglu_back(x["attn_out"], x["residual"], x["wo"], x["post_rms_weight"], x["w_gate"], x["w_up"], x["w_down"], c["EPS"])
    np.testing.assert_allclose(out["out"], want, **TOL)
