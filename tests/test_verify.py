"""`verify`: every shipped migration is proved on small inputs, and broken ones are caught."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from codemods.cli.commands import main
from codemods.interp.execute import Settings, load
from codemods.interp.ops import STRICT, Machine
from codemods.interp.values import KernelError
from codemods.interp.verify import EQUIVALENT, MASKED, MISMATCH, verify
from conftest import FIXTURES, pinned

PROGRAMS = sorted(p.stem for p in (FIXTURES / "2026-03" / "before").glob("*.py") if "@pl.program" in p.read_text())


def pair(name: str, migrated: str | None = None):
    before = FIXTURES / "2026-03" / "before" / f"{name}.py"
    after = FIXTURES / "2026-03" / "after" / f"{name}.py"
    return (str(before), before.read_text()), (str(after), migrated if migrated is not None else after.read_text())


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_shipped_migration_is_equivalent(name, api):
    verdict = verify(*pair(name), Settings(), api, api.step)
    if name.startswith("deepseek_v3_2_prefill"):  # valid_shape masking is lost, and said so precisely
        assert verdict.code == MASKED, verdict.message
        assert verdict.message.startswith("valid region equivalent; rows ")
        assert "differ, masked before" in verdict.message
    else:
        assert verdict.code == EQUIVALENT, verdict.message
        assert verdict.message.startswith("equivalent: ")


def test_other_sizes_and_seeds(api):
    settings = Settings(sets={"BATCH": "2", "HIDDEN": "32", "MAX_SEQ": "8"}, inputs={"seq_lens": (4, 8)}, seed=7)
    verdict = verify(*pair("deepseek_v3_2_decode_front"), settings, api, api.step)
    assert verdict.code == EQUIVALENT, verdict.message
    settings = Settings(sets={"max_tokens": "12"}, inputs={"num_tokens_t": (12, 12)}, seed=3)
    assert verify(*pair("deepseek_v3_2_prefill_back"), settings, api, api.step).code == EQUIVALENT  # no padding rows: no masking


MUTATIONS = {
    # name: (fixture, text in the migration, what a careless hand-edit writes instead)
    "load offsets and shapes swapped": (
        "deepseek_v3_2_decode_back",
        "pl.load(attn_out, [b0, k0], [BATCH_TILE, K_CHUNK]", "pl.load(attn_out, [BATCH_TILE, K_CHUNK], [b0, k0]"),
    "load offsets swapped in bounds": (
        "edge_regions", "left = pl.load(x, [b0 + r, 0]", "left = pl.load(x, [b0 + r, HALF]"),
    "store to the wrong offset": (
        "deepseek_v3_2_decode_back", "h1 = pl.store(pl.add(acc, res), [b0, o0], h1)", "h1 = pl.store(pl.add(acc, res), [b0, 0], h1)"),
    "zero-init dropped": (
        "deepseek_v3_2_decode_back", "                        acc = pl.mul(acc, 0.0)\n", ""),
    "accumulation dropped": (
        "deepseek_v3_2_decode_back", "acc = pl.add(acc, pl.matmul(", "acc = pl.add(pl.mul(acc, 0.0), pl.matmul("),
    "hand-off index dropped": (
        "deepseek_v3_2_decode_front", "[b, 0, t], scores_buf)", "[0, 0, t], scores_buf)"),
    "wrong RoPE half": (
        "deepseek_v3_2_decode_front", "k_rot_lo = pl.sub(pl.mul(k_lo, cos_lo), pl.mul(k_hi, sin_lo))",
        "k_rot_lo = pl.sub(pl.mul(k_lo, cos_lo), pl.mul(k_lo, sin_lo))"),
}


@pytest.mark.parametrize("what", sorted(MUTATIONS))
def test_broken_migrations_are_not_equivalent(what, api):
    name, old, new = MUTATIONS[what]
    text = (FIXTURES / "2026-03" / "after" / f"{name}.py").read_text()
    assert text.count(old) >= 1, "the mutation must apply"
    verdict = verify(*pair(name, text.replace(old, new, 1)), Settings(), api, api.step)
    assert verdict.code == MISMATCH, verdict.message
    assert verdict.message.startswith(("mismatch in `", str(FIXTURES / "2026-03" / "after"))), verdict.message


def test_a_kernel_error_names_the_migrated_file_and_line(api):
    name, old, new = MUTATIONS["load offsets and shapes swapped"]
    text = (FIXTURES / "2026-03" / "after" / f"{name}.py").read_text()
    verdict = verify(*pair(name, text.replace(old, new, 1)), Settings(), api, api.step)
    line = 1 + text.splitlines().index(next(l for l in text.splitlines() if old in l))
    assert verdict.message == (f"{FIXTURES / '2026-03' / 'after' / name}.py:{line}: pl.load of attn_out: shape [0, 0] is empty in "
                               "dimension 0 (offsets and shapes swapped?) (strict profile)")


def strict_error(path, text, api) -> str:
    machine = Machine(STRICT, api, 1)
    program = load(path, text, Settings().merged_over(text), machine)
    from codemods.interp.execute import make_inputs, run

    with pytest.raises(KernelError) as info:
        run(program, make_inputs(program.specs, Settings().merged_over(text)))
    return str(info.value)


FIRST_ERRORS = {  # what the target compiler stops at first in each original
    "deepseek_v3_2_decode_back": "Unknown tensor operation: view",
    "deepseek_v3_2_decode_front": "Unknown tensor operation: view",
    "deepseek_v3_2_prefill_back": "create() got an unexpected keyword argument 'valid_shape'",
    "deepseek_v3_2_prefill_front": "create() got an unexpected keyword argument 'valid_shape'",
}


@pytest.mark.parametrize("name", sorted(FIRST_ERRORS))
def test_strict_profile_rejects_the_originals(name, api):
    path = FIXTURES / "2026-03" / "before" / f"{name}.py"
    assert strict_error(str(path), path.read_text(), api) == FIRST_ERRORS[name]


def test_strict_profile_stops_where_the_review_saw_it_stop(run_rules, api):
    path = FIXTURES / "2026-03" / "before" / "deepseek_v3_2_decode_front.py"
    renamed = run_rules(path.read_text(), ("PTO001",)).output
    assert strict_error(str(path), renamed, api) == "The operator tile.rsqrt requires argument to be a TileType, but got TensorType"


def test_poison_nan_shows_the_zero_init_idiom_is_fragile(api):
    verdict = verify(*pair("deepseek_v3_2_decode_back"), Settings(poison="nan"), api, api.step)
    assert verdict.code == MISMATCH and verdict.message.startswith("NaN reached `out`")


def test_reading_memory_never_written_is_a_mismatch(api):
    # A migration that forgets to store half of a row: the original's output there differs
    # from the migration's initial Out values only if nobody wrote it; here the original did.
    name = "edge_regions"
    text = (FIXTURES / "2026-03" / "after" / f"{name}.py").read_text()
    broken = text.replace("out = pl.store(pl.mul(mixed, 0.5), [b0 + r, HALF], out)", "pass")
    verdict = verify(*pair(name, broken), Settings(), api, api.step)
    assert verdict.code == MISMATCH and "mismatch in `out`" in verdict.message


def test_interpreter_leaves_sys_modules_as_it_was(api):
    saved = {k: sys.modules.get(k) for k in ("pypto", "pypto.language")}
    verify(*pair("edge_capacity"), Settings(), api, api.step)
    assert {k: sys.modules.get(k) for k in saved} == saved


def test_cli_verify_exit_codes(monkeypatch):
    monkeypatch.chdir(FIXTURES.parent)
    ok = CliRunner().invoke(main, pinned(["verify", "fixtures/2026-03/before/edge_regions.py", "fixtures/2026-03/after/edge_regions.py"]))
    assert ok.exit_code == 0 and ok.stdout.startswith("equivalent: 1 outputs")
    masked = CliRunner().invoke(main, pinned(["verify", "fixtures/2026-03/before/deepseek_v3_2_prefill_back.py", "fixtures/2026-03/after/deepseek_v3_2_prefill_back.py"]))
    assert masked.exit_code == 3 and "masked before" in masked.stdout
    bad = CliRunner().invoke(main, pinned(["verify", "--set", "NOPE=1", "fixtures/2026-03/before/edge_regions.py", "fixtures/2026-03/after/edge_regions.py"]))
    assert bad.exit_code == 2 and "--set NOPE: no module constant or builder parameter" in bad.stdout  # setup, not a mismatch
    assert CliRunner().invoke(main, pinned(["verify", "--input", "x=oops", "fixtures/2026-03/before/edge_regions.py", "fixtures/2026-03/after/edge_regions.py"])).exit_code == 2


def test_run_verify_writes_only_proved_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("deepseek_v3_2_decode_back", "deepseek_v3_2_decode_front"):
        (tmp_path / f"{name}.py").write_text((FIXTURES / "2026-03" / "before" / f"{name}.py").read_text())
    # Without its input bounds the decode front reads the cache out of bounds: it must not be written.
    front = tmp_path / "deepseek_v3_2_decode_front.py"
    front.write_text(front.read_text().replace("# pypto-migrate: verify --input seq_lens=4:16\n", ""))
    result = CliRunner().invoke(main, pinned(["run", "--verify", "--write", "--jobs", "1", "."]))
    assert result.exit_code == 2  # a file could not be migrated
    assert "deepseek_v3_2_decode_back.py: verified: equivalent" in result.stderr
    assert "deepseek_v3_2_decode_front.py:1:1: error: verify failed, not written:" in result.stderr and "out of bounds" in result.stderr
    assert "pl.view(" in front.read_text()
    assert "pl.view(" not in (tmp_path / "deepseek_v3_2_decode_back.py").read_text()
    again = CliRunner().invoke(main, pinned(["run", "--verify", "--write", "--input", "seq_lens=4:16", "--jobs", "1", "."]))
    assert again.exit_code == 0, again.stderr
    assert "deepseek_v3_2_decode_front.py: verified: equivalent" in again.stderr


FEBRUARY_ROWS = '''
import pypto.language as pl

R = 4
C = 128


def build_rows_program():
    @pl.program
    class Rows:
        @pl.function(type=pl.FunctionType.Opaque)
        def rows(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Tensor[[R, C], pl.FP32]) -> pl.Tensor[[R, C], pl.FP32]:
            with pl.auto_incore():
                for i in pl.parallel(0, R, 1, chunk=2):
                    out = pl.assemble(out, pl.exp(pl.view(x, [1, C], [i, 0])), [i, 0])
            return out

    return Rows
'''


def test_run_verify_means_what_the_target_means(tmp_path, monkeypatch):
    """`run --target 2026-08 --verify` runs the migration with 2026-08's meaning (its `Out`
    parameters are written back), as `verify --target 2026-08` does: before, run verified with
    2026-03's and refused every migration to 2026-08 ("outputs differ"), on real kernels too."""
    written = _verified_to_2026_08(tmp_path, monkeypatch, "rows.py", FEBRUARY_ROWS)
    assert "pl.Out[" in written and "pl.view(" not in written


def _verified_to_2026_08(tmp_path, monkeypatch, name: str, text: str) -> str:
    """`run --target 2026-08 --verify --write` on one file: it is written and verified
    equivalent; what was written."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    path.write_text(text.lstrip("\n"))
    result = CliRunner().invoke(main, pinned(["run", "--target", "2026-08", "--verify", "--write", "--jobs", "1", "--no-cache", name]))
    assert result.exit_code == 0, result.stderr
    assert f"{name}: verified: equivalent" in result.stderr
    return path.read_text()


SCALAR_OP_NAMES = '''
import pypto.language as pl

M = 16
N = 64


def build_scaled_program():
    @pl.program
    class Scaled:
        @pl.function(type=pl.FunctionType.InCore)
        def scaled(self, x: pl.Tensor[[M, N], pl.FP32], out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
            t = pl.load(x, [0, 0], [M, N], target_memory=pl.MemorySpace.Vec)
            t = pl.adds(pl.muls(t, 2.0), 1.0)
            out = pl.store(t, [0, 0], out)
            return out

    return Scaled
'''


def test_an_original_calling_the_scalar_ops_by_their_c39_names_runs(tmp_path, monkeypatch):
    """c39's parser takes `pl.muls`/`pl.adds` (tile ops of a scalar) though its Python module has
    no such names: the old profile must run them too. Before, verify stopped at "module
    'pypto.language' has no attribute 'muls'" and run --verify refused a right migration."""
    assert "pl.muls" not in _verified_to_2026_08(tmp_path, monkeypatch, "scaled.py", SCALAR_OP_NAMES)


POSTPONED = '''
from __future__ import annotations

import pypto.language as pl

ROWS = 4


@pl.jit
def double(x: pl.Tensor[[ROWS, 16], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 16], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:, :] = pl.mul(x[:, :], {factor})
    return out
'''


def test_postponed_annotations_are_evaluated_for_the_entry(api):
    """Under `from __future__ import annotations` a jit entry's annotations are strings: the
    interpreter evaluates them to make its inputs, so such a file can be verified at all."""
    same = verify(("a.py", POSTPONED.format(factor="2.0")), ("b.py", POSTPONED.format(factor="2.0")), Settings(), api, "2026-08")
    assert same.code == EQUIVALENT, same.message
    other = verify(("a.py", POSTPONED.format(factor="2.0")), ("b.py", POSTPONED.format(factor="3.0")), Settings(), api, "2026-08")
    assert other.code == MISMATCH, other.message


def test_an_entry_annotation_naming_nothing_is_reported_not_raised(api):
    text = POSTPONED.format(factor="2.0").replace("ROWS = 4\n", "")
    verdict = verify(("a.py", text), ("b.py", text), Settings(), api, "2026-08")
    assert verdict.code != EQUIVALENT and "name 'ROWS' is not defined" in verdict.message, verdict.message


BUILT = '''
from __future__ import annotations

import pypto.language as pl


def build_scale_program(rows: int = 4):
    ROWS_CFG = rows

    @pl.program
    class Scale:
        @pl.function(type=pl.FunctionType.Opaque)
        def scale(self, x: pl.Tensor[[ROWS_CFG, 16], pl.FP32], out: pl.Out[pl.Tensor[[ROWS_CFG, 16], pl.FP32]]) -> pl.Tensor[[ROWS_CFG, 16], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, pl.mul(x, {factor}), [0, 0])
            return out

    return Scale
'''


def test_a_builders_own_sizes_in_postponed_annotations_are_seen(api):
    """The model library's builders annotate their kernel with the builder's locals
    (`ROWS_CFG = rows`); as strings, those are gone once the builder returns. The interpreter
    evaluates annotations where they stand, as the DSL's parser does."""
    sizes = Settings(sets={"rows": "8"})
    same = verify(("a.py", BUILT.format(factor="2.0")), ("b.py", BUILT.format(factor="2.0")), sizes, api, "2026-08")
    assert same.code == EQUIVALENT, same.message
    other = verify(("a.py", BUILT.format(factor="2.0")), ("b.py", BUILT.format(factor="3.0")), sizes, api, "2026-08")
    assert other.code == MISMATCH, other.message


MATMUL_ACC_TRANS = '''
import pypto.language as pl

M = 16
N = 64
K = 128
KC = 64


@pl.jit
def mm(a: pl.Tensor[[M, K], pl.BF16], w: pl.Tensor[[N, K], pl.BF16], c: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(a[:, 0:KC], w[:, 0:KC], b_trans=True, out_dtype=pl.FP32)
        for k0 in pl.range(KC, K, KC):
            acc = pl.matmul_acc(acc, a[:, k0 : k0 + KC], w[:, k0 : k0 + KC], b_trans=True{extra})
        c[:, :] = acc
    return c
'''


def test_matmul_acc_takes_a_trans_and_b_trans(api):
    """2026-08's pl.matmul_acc transposes its operands as pl.matmul does: the K-split sum of
    a @ w.T equals the whole product."""
    text = MATMUL_ACC_TRANS.format(extra="")
    whole = text.replace("acc = pl.matmul(a[:, 0:KC], w[:, 0:KC]", "acc = pl.matmul(a, w").replace(
        "for k0 in pl.range(KC, K, KC)", "for k0 in pl.range(K, K, KC)")
    assert verify(("split.py", text), ("split.py", text), Settings(), api, "2026-08").code == EQUIVALENT
    verdict = verify(("split.py", text), ("whole.py", whole), Settings(), api, "2026-08")
    assert verdict.code == EQUIVALENT, verdict.message


def test_an_op_call_the_interpreter_does_not_model_is_named_with_its_line(api):
    text = MATMUL_ACC_TRANS.format(extra=", init_cond=True")
    verdict = verify(("k.py", text), ("k.py", text), Settings(), api, "2026-08")
    assert verdict.code == 1
    assert verdict.message == ("k.py:15: pl.matmul_acc: the interpreter does not model this call (matmul_acc() got an "
                               "unexpected keyword argument 'init_cond'); verify cannot run it (old profile)")
    assert "TypeError" not in verdict.message


VALID_BY_POSITION = '''
import pypto.language as pl

ROWS = 8
COLS = 16


@pl.program
class Part:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [0, 0], [ROWS, COLS], [ROWS, COLS])
        out = pl.store(t, [0, 0], out)
        return out
'''


def test_a_load_given_its_valid_region_by_position_runs(api):
    """c39's parser hands positional arguments to the IR op in its order (tensor, offsets,
    shapes, valid_shapes, target_memory), and c39fe714a accepts this kernel: the fourth is the
    valid region. The interpreter took it for the memory, and an original written so could not
    be verified."""
    text = VALID_BY_POSITION
    verdict = verify(("part.py", text), ("part.py", text), Settings(), api, api.step)
    assert verdict.code == EQUIVALENT, verdict.message
