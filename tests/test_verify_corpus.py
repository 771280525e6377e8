"""The real DeepSeek v3.2 kernels run in the interpreter (old profile) at the small sizes of
`real_corpus_sizes.toml`, and what they compute is checked.

They are third-party files read from ../shared/corpus at run time, never copied here. Outside
CI a checkout without them skips these tests; on CI (CI=true) their absence is a failure.
"""

from __future__ import annotations

import os
import time
import tomllib
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from codemods.interp.execute import Settings, load, make_inputs, parse_input, run
from codemods.interp.ops import OLD, STRICT, Machine
from codemods.interp.values import KernelError

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "deepseek"
SIZES_FILE = ROOT / "tests" / "real_corpus_sizes.toml"
NAMES = ("deepseek_v3_2_decode_back", "deepseek_v3_2_decode_front", "deepseek_v3_2_prefill_back",
         "deepseek_v3_2_prefill_front")
BUDGET_S = 20.0


def sizes() -> dict:
    with SIZES_FILE.open("rb") as fh:
        return tomllib.load(fh)


def require(corpus: Path) -> Path:
    if not corpus.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{corpus} is missing: CI must run the real kernels")
        pytest.skip(f"{corpus} not found (the real kernels are read from ../shared/corpus at run time)")
    return corpus


@pytest.fixture(scope="module")
def corpus() -> Path:
    return require(CORPUS)


def test_a_missing_corpus_fails_on_ci_and_skips_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the real kernels"):
        require(tmp_path / "missing")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="read from ../shared/corpus at run time"):
        require(tmp_path / "missing")


def settings_for(name: str) -> Settings:
    table = sizes()[name]
    sets = dict(s.split("=", 1) for s in table["set"])
    return Settings(sets, dict(parse_input(i) for i in table["input"]))


def run_original(corpus: Path, name: str, api, profile=OLD, poison="garbage", seed=1):
    path = corpus / f"{name}.py"
    text = path.read_text()
    settings = settings_for(name).merged_over(text)
    start = time.perf_counter()
    program = load(str(path), text, settings, Machine(profile, api, seed, poison))
    inputs = make_inputs(program.specs, settings)
    outputs = run(program, inputs)
    return inputs, outputs, time.perf_counter() - start


def test_sizes_file_has_one_table_per_real_kernel():
    table = sizes()
    assert set(table) == set(NAMES)
    for name in NAMES:
        assert {"set", "input"} <= set(table[name]) <= {"set", "input", "poison"}
        assert all(isinstance(s, str) and "=" in s for s in table[name]["set"] + table[name]["input"])


@pytest.mark.parametrize("name", NAMES)
def test_original_runs_quickly_and_computes_something(corpus, name, api):
    inputs, outputs, elapsed = run_original(corpus, name, api)
    assert elapsed < BUDGET_S, f"{name} took {elapsed:.1f} s"
    (result,) = outputs.values()
    values = result.data.astype(np.float64)[result.written]
    assert values.size > 0
    finite = values[np.isfinite(values)]
    assert finite.size >= values.size // 2 and np.unique(finite).size > values.size // 10


def bf16(a):
    return np.asarray(a, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def test_decode_back_matches_the_layer_written_in_numpy(corpus, api):
    inputs, outputs, _ = run_original(corpus, "deepseek_v3_2_decode_back", api)
    sets = settings_for("deepseek_v3_2_decode_back").sets
    hidden, tile = int(sets["HIDDEN"]), 4  # BATCH_TILE of the file
    f = {k: v.astype(np.float32) for k, v in inputs.items()}
    combined = f["combine_buf"][int(inputs["node_id_t"][0])]
    want = np.empty_like(f["hidden_states"])
    for b0 in range(0, want.shape[0], tile):
        rows = slice(b0, b0 + tile)
        resid1 = bf16(combined[rows]) @ f["wo"] + f["hidden_states"][rows]
        inv_rms = 1.0 / np.sqrt((resid1 * resid1).sum(axis=1, keepdims=True) / hidden + 1e-6)
        post = bf16(resid1 * inv_rms * f["post_rms_weight"])
        gate, up = post @ f["w_gate"], post @ f["w_up"]
        mlp = bf16(gate / (1.0 + np.exp(-gate)) * up)
        want[rows] = mlp @ f["w_down"] + resid1
    got = outputs["return"].data.astype(np.float32)
    np.testing.assert_allclose(got, bf16(want), rtol=2e-2, atol=2e-2 * np.abs(want).max())


def test_prefill_back_writes_only_the_tokens_of_each_sequence(corpus, api):
    inputs, outputs, _ = run_original(corpus, "deepseek_v3_2_prefill_back", api)
    out = outputs["return"]
    for b, n in enumerate(inputs["seq_lens"]):
        assert out.written[b, :n].all() and not out.written[b, n:].any()
        assert np.array_equal(out.data[b, n:], inputs["out"][b, n:])  # valid_shape masked the padding tokens


@pytest.mark.parametrize("name", ["deepseek_v3_2_decode_front", "deepseek_v3_2_prefill_front"])
def test_front_parts_read_memory_they_never_wrote(corpus, name, api):
    """Their top-k 'fill' is `pl.mul(create_tensor(...), -3.402823e38)`: uninitialised memory
    times a huge number, not a constant. So the result depends on what memory held, and
    `verify` of any migration of them needs `--poison zero`."""
    _, first, _ = run_original(corpus, name, api, seed=1)
    _, second, _ = run_original(corpus, name, api, seed=2)
    a, b = first["return"].data.astype(np.float64), second["return"].data.astype(np.float64)
    assert not np.array_equal(a, b, equal_nan=True)
    _, first, _ = run_original(corpus, name, api, poison="zero", seed=1)
    _, second, _ = run_original(corpus, name, api, poison="zero", seed=2)
    a, b = first["return"].data.astype(np.float64), second["return"].data.astype(np.float64)
    assert np.array_equal(a, b, equal_nan=True)
    # With zeroed memory only positive scores enter the top-k; a token whose candidates all
    # scored below zero keeps an empty top-k and divides 0 by 0 in every head: whole rows of NaN.
    rows = a.reshape(-1, a.shape[-1])
    nan_rows = np.isnan(rows)
    assert (nan_rows.all(axis=1) | ~nan_rows.any(axis=1)).all()


FIRST_ERRORS = {  # what the target compiler reports first for each file (run on them)
    "deepseek_v3_2_decode_back": "Unknown tensor operation: view",
    "deepseek_v3_2_decode_front": "Unknown tensor operation: view",
    "deepseek_v3_2_prefill_back": "Unknown tensor operation: view",
    "deepseek_v3_2_prefill_front": "create() got an unexpected keyword argument 'valid_shape'",
}


@pytest.mark.parametrize("name", NAMES)
def test_strict_profile_refuses_the_originals_where_the_compiler_does(corpus, name, api):
    with pytest.raises(KernelError) as info:
        run_original(corpus, name, api, profile=STRICT)
    assert str(info.value) == FIRST_ERRORS[name]
