"""`verify` without hand-given sizes (issue 29, item 6) and its exit code for files it cannot run
(item 3): the sizes it chooses keep what the kernel's code implies, it says which, `--set`
still wins, it shows progress only when a run takes long, and a file that is not Python or
not a kernel is exit 2 naming the file (and line).

The kernels here are written for these tests; the real ones are read from ../shared/corpus.
"""

from __future__ import annotations

import ast
import os
import time

import pytest

from codemods.interp import sizing
from codemods.interp import verify as verify_module
from codemods.interp.execute import Settings, parse_input
from codemods.interp.verify import EQUIVALENT, MISMATCH, verify
from conftest import pypto
from needs import CORPUS

# Every relation of the issue in one kernel of the old API, at sizes far too large to run:
# a loop stepping by ROW_TILE over BATCH, a chunked parallel loop over HIDDEN // K_CHUNK blocks,
# a constant derived from others (HALF), heads whose columns tile HIDDEN only through their
# offsets (h * HEAD_DIM + HALF must stay inside x), and a capacity guard.
LARGE = '''\
import pypto.language as pl

BATCH = 256
HIDDEN = 4096
NUM_HEADS = 32
HEAD_DIM = 128
K_CHUNK = 512
ROW_TILE = 16
HALF = HEAD_DIM // 2
BLOCKS = HIDDEN // K_CHUNK
LIMIT_BYTES = 64 * 1024

if ROW_TILE * K_CHUNK * 4 > LIMIT_BYTES:
    raise ValueError("tile too large")


@pl.program
class Sized:
    @pl.function
    def main(self, x: pl.Tensor[[BATCH, HIDDEN], pl.FP32], out: pl.Tensor[[BATCH, HIDDEN], pl.FP32]) -> pl.Tensor[[BATCH, HIDDEN], pl.FP32]:
        for r0 in pl.range(0, BATCH, ROW_TILE):
            for kb in pl.parallel(0, BLOCKS, 1, chunk=4):
                k0 = kb * K_CHUNK
                t = pl.view(x, [ROW_TILE, K_CHUNK], [r0, k0])
                out = pl.assemble(out, pl.mul(t, 2.0), [r0, k0])
            for h in pl.range(NUM_HEADS):
                col = h * HEAD_DIM
                lo = pl.view(x, [ROW_TILE, HALF], [r0, col])
                hi = pl.view(x, [ROW_TILE, HALF], [r0, col + HALF])
                out = pl.assemble(out, pl.add(lo, hi), [r0, col])
        return out
'''


def chosen(text: str, fixed: dict | None = None) -> dict:
    choice = sizing.choose(ast.parse(text), fixed or {})
    assert choice.candidates, "the file's own sizes are large: verify must choose smaller ones"
    base = {"BATCH": 256, "HIDDEN": 4096, "NUM_HEADS": 32, "HEAD_DIM": 128, "K_CHUNK": 512, "ROW_TILE": 16}
    return {**base, **(fixed or {}), **choice.sets}


def test_the_chosen_sizes_are_smaller_and_keep_every_relation_the_code_implies():
    s = chosen(LARGE)
    assert s["HIDDEN"] * s["BATCH"] <= 4096 * 256 // 64  # far smaller
    assert s["BATCH"] % s["ROW_TILE"] == 0 and s["BATCH"] // s["ROW_TILE"] >= 2  # a loop step divides its extent
    blocks = s["HIDDEN"] // s["K_CHUNK"]
    assert s["HIDDEN"] % s["K_CHUNK"] == 0 and blocks >= 4 and blocks % 4 == 0  # whole blocks, whole chunks of 4
    assert (s["NUM_HEADS"] - 1) * s["HEAD_DIM"] + s["HEAD_DIM"] // 2 * 2 <= s["HIDDEN"]  # every head's window fits
    assert s["HEAD_DIM"] % 2 == 0 and min(s.values()) >= 2  # HALF stays whole; no dim collapses to 1


def test_a_relation_broken_by_the_code_is_not_kept():
    """The relation comes from the code: with the chunk of 4 gone, nothing keeps the block count a
    multiple of 4 (nor at least 4)."""
    s = chosen(LARGE.replace(", chunk=4", ""))
    assert s["HIDDEN"] // s["K_CHUNK"] == 2


def test_set_fixes_a_size_and_the_others_are_chosen_around_it():
    s = chosen(LARGE, {"K_CHUNK": 64})
    assert s["K_CHUNK"] == 64
    assert s["HIDDEN"] % 64 == 0 and (s["HIDDEN"] // 64) % 4 == 0


def test_a_small_file_keeps_its_own_sizes():
    small = LARGE.replace("BATCH = 256", "BATCH = 32").replace("HIDDEN = 4096", "HIDDEN = 64").replace(
        "NUM_HEADS = 32", "NUM_HEADS = 2").replace("HEAD_DIM = 128", "HEAD_DIM = 32").replace(
        "K_CHUNK = 512", "K_CHUNK = 16").replace("ROW_TILE = 16", "ROW_TILE = 8")
    assert sizing.choose(ast.parse(small), {}).candidates == []


@pytest.fixture
def large_pair(tmp_path, run_rules):
    original = tmp_path / "large.py"
    original.write_text(LARGE)
    migrated = tmp_path / "migrated" / "large.py"
    migrated.parent.mkdir()
    migrated.write_text(run_rules(LARGE).output)
    return original, migrated


def test_verify_of_a_large_kernel_runs_at_chosen_sizes_says_them_and_is_quick(large_pair, api):
    original, migrated = large_pair
    started = time.perf_counter()
    verdict = verify((str(original), original.read_text()), (str(migrated), migrated.read_text()), Settings(), api, api.step)
    assert verdict.code == EQUIVALENT, verdict.message
    assert time.perf_counter() - started < 10
    assert verdict.sizes and verdict.sizes["HIDDEN"] < 4096


def test_the_command_names_the_sizes_on_stderr_and_set_overrides(large_pair, tmp_path):
    original, migrated = large_pair
    done = pypto("verify", original, migrated, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("equivalent: ")
    assert "sizes chosen from the code" in done.stderr and "HIDDEN=" in done.stderr
    done = pypto("verify", original, migrated, "--set", "K_CHUNK=64", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "K_CHUNK=" not in done.stderr  # given, not chosen


def test_a_broken_migration_is_still_caught_at_the_chosen_sizes(large_pair, api):
    original, migrated = large_pair
    text = migrated.read_text()
    assert "col + HALF" in text
    verdict = verify((str(original), LARGE), (str(migrated), text.replace("col + HALF", "col", 1)), Settings(), api, api.step)
    assert verdict.code == MISMATCH, verdict.message


def test_progress_is_said_only_once_a_run_takes_more_than_a_moment(large_pair, api, monkeypatch):
    original, migrated = large_pair
    pair = (str(original), original.read_text()), (str(migrated), migrated.read_text())
    heard = []
    monkeypatch.setattr(verify_module._Heartbeat, "FIRST", 60.0)  # a run shorter than the moment (on a busy machine too)
    verify(*pair, Settings(), api, api.step, progress=heard.append)
    assert [line for line in heard if "running" in line] == []  # a quick run: only the sizes
    assert any("sizes chosen" in line for line in heard)
    monkeypatch.setattr(verify_module._Heartbeat, "FIRST", 0.0)
    monkeypatch.setattr(verify_module._Heartbeat, "EVERY", 0.001)
    slow_run = verify_module._run

    def run(*args, **kwargs):  # each run long enough for the heartbeat to be heard during it
        time.sleep(0.05)
        return slow_run(*args, **kwargs)

    monkeypatch.setattr(verify_module, "_run", run)
    heard.clear()
    verify(*pair, Settings(), api, api.step, progress=heard.append)
    assert any("running the original" in line and line.endswith(" s") for line in heard), heard


def test_an_input_bound_may_be_an_expression_of_the_module_constants(tmp_path, api):
    text = LARGE.replace("x: pl.Tensor[[BATCH, HIDDEN], pl.FP32], ", "x: pl.Tensor[[BATCH, HIDDEN], pl.FP32], "
                         "idx: pl.Tensor[[BATCH], pl.INT32], ")
    settings = Settings(inputs=dict([parse_input("idx=NUM_HEADS-1:NUM_HEADS-1")]))
    from codemods.interp.execute import load, make_inputs
    from codemods.interp.ops import OLD, Machine

    sets = {k: str(v) for k, v in sizing.choose(ast.parse(text), {}).sets.items()}
    program = load("k.py", text, Settings(sets=sets), Machine(OLD, api, 1, "garbage"))
    inputs = make_inputs(program.specs, settings, program.namespace)
    assert set(inputs["idx"].tolist()) == {int(sets.get("NUM_HEADS", 32)) - 1}


def test_a_file_that_is_not_a_kernel_is_exit_2_naming_it(tmp_path):
    (tmp_path / "config.py").write_text("HIDDEN = 4096\n")
    done = pypto("verify", "config.py", "config.py", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "config.py" in done.stdout and "not a kernel" in done.stdout


def test_a_syntax_error_is_exit_2_naming_the_file_and_line(tmp_path):
    (tmp_path / "good.py").write_text(LARGE)
    (tmp_path / "bad.py").write_text(LARGE.replace("        return out\n", "        return out(\n"))
    done = pypto("verify", "good.py", "bad.py", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    line = LARGE.splitlines().index("        return out") + 1
    assert done.stdout.startswith(f"bad.py:{line}:"), done.stdout


def test_a_kernel_failing_in_the_migration_is_still_exit_1(large_pair, api):
    original, migrated = large_pair
    text = migrated.read_text().replace("pl.mul(", "pl.no_such_op(", 1)
    verdict = verify((str(original), LARGE), (str(migrated), text), Settings(), api, api.step)
    assert verdict.code == MISMATCH and str(migrated) in verdict.message, verdict.message


# The real DeepSeek parts (read from ../shared/corpus at run time, never copied): each runs at
# the sizes verify chooses, in well under the 10 s of the issue (it took 73 s and more at their own).
DEEPSEEK = sorted((CORPUS / "deepseek").glob("*.py"))


def corpus_or_skip():
    if not DEEPSEEK:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CORPUS / 'deepseek'} is missing: CI must run the real kernels")
        pytest.skip("../shared/corpus not found")


@pytest.mark.parametrize("name", [p.name for p in DEEPSEEK] or ["(no corpus)"])
def test_a_real_deepseek_part_runs_at_sizes_it_chooses_in_under_ten_seconds(name, api):
    corpus_or_skip()
    path = CORPUS / "deepseek" / name
    text = path.read_text()
    model = sizing.Sizes(ast.parse(text), {})
    choice = sizing.choose(ast.parse(text), {})
    assert choice.candidates and model.holds({**model.base, **choice.sets})
    assert model.cost({**model.base, **choice.sets}) < choice.own_cost / 100
    started = time.perf_counter()
    # The original against itself, both in the old profile's place: what verify's first run does.
    from codemods.interp.execute import load, make_inputs, run
    from codemods.interp.ops import OLD, Machine

    settings = Settings(sets={k: str(v) for k, v in choice.sets.items()}, inputs=dict(
        [parse_input("seq_lens=MAX_SEQ//2:MAX_SEQ"), parse_input("node_id_t=0:EP_NODES-1")]), poison="zero")
    program = load(str(path), text, settings, Machine(OLD, api, 1, "zero"))
    inputs = make_inputs(program.specs, Settings(inputs={k: v for k, v in settings.inputs.items() if k in program.specs}),
                         program.namespace)
    outputs = run(program, inputs)
    assert outputs and any(t.written.any() for t in outputs.values())
    assert time.perf_counter() - started < 10
