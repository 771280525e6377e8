"""The kernel generator (kernelgen/) and a fixed-seed smoke of its differential run.

The generator's own checks need no compiler: every kernel of every era is Python, uses pypto
ops of the API tables, and code already at a target runs in the interpreter. The smoke needs
the three compilers (c39 in this Python, the 2026-08 one, the 2026-05-26 one: `make install`
builds them from ../shared); without them it skips, and under CI=true it fails.
"""

from __future__ import annotations

import ast
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from needs import head_python, missing, pypto_or_skip

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kernelgen import tool  # noqa: E402
from kernelgen.fuzz import Shard, known_keys, run_shard, summary, table_ops  # noqa: E402
from kernelgen.gen import ERAS, kernels  # noqa: E402


@pytest.mark.parametrize("era", ERAS)
def test_generated_kernels_are_whole_programs_of_table_ops(era):
    ops = table_ops()
    head = tool.api("2026-08")

    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(kernels(era))
    def check(kernel):
        tree = ast.parse(kernel.text)
        assert any(isinstance(n, (ast.ClassDef, ast.FunctionDef)) for n in tree.body)
        used = kernel.ops()
        # 2026-08 code writes the dispatching names head lists without a typing record of their
        # own (`pl.sin`, `pl.col_sum`: the table types `tile.sin` and `tensor.sin`)
        listed = {op for op in used if era == "aug" and head.exists(op)}
        assert used and used <= ops | listed | {"parallel", "range", "auto_incore", "incore", "at", "function", "program",
                                                "yield_"}, used - ops

    check()


@pytest.mark.parametrize("era", ["mar", "spring"])
def test_kernels_already_at_a_target_run_in_the_interpreter(era):
    """A kernel of 2026-03 is its own migration to 2026-03; run as both, verify says equal."""

    @settings(max_examples=10, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(kernels(era))
    def check(kernel):
        if era == "mar":
            equal, said = tool.verify(kernel.text, kernel.text, "2026-03")
            assert equal, f"{said}\n{kernel.text}"
        else:  # a spring kernel: the original profile runs it (against its own migration)
            out = tool.migrate(kernel.text, "2026-08").output
            equal, said = tool.verify(kernel.text, out, "2026-08")
            assert equal or "original.py" not in said, f"{said}\n{kernel.text}"

    check()


def _compilers_or_skip():
    from kernelgen.compilers import pythons

    pypto_or_skip()
    head_python()
    if not pythons()["2026-05-26"]:
        missing("no Python with the compiler of 2026-05-26 (make install builds .venv-era-2026-05 from "
                "../shared/oracle-eras/2026-05-26; or set PYPTO_ERA_2026_05_PYTHON)")


SMOKE = [Shard(era, 12, 20261128 + i) for i, era in enumerate(ERAS)]  # about 50 kernels, a few minutes


def test_aug_kernels_come_out_as_they_went_in():
    """Code written for 2026-08 is the tool's first duty: at 2026-08 its migration is itself;
    at 2026-03 nothing but review markers is added, and a finding says the code is newer."""
    from kernelgen.harness import NEWER, newer_names

    @settings(max_examples=12, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(kernels("aug"))
    def check(kernel):
        assert tool.migrate(kernel.text, "2026-08").output == kernel.text, kernel.text
        if newer_names(kernel.text, "2026-03", "2026-08"):
            back = tool.migrate(kernel.text, "2026-03")
            assert tool.without_markers(back.output) == kernel.text, back.output
            assert any(NEWER.search(said) for said in back.said), back.said

    check()


def test_fuzz_smoke_finds_no_new_failure_class():
    """A fixed seed, twelve kernels per era through every target: each source is accepted by its
    own era's compiler, and every failure is one of fixtures/fuzz/catalogue.json's classes
    (each pinned there by a test of its minimal kernel). A new class fails this test."""
    _compilers_or_skip()
    results = [run_shard(shard) for shard in SMOKE]
    lines, keys = summary(results, table_ops())
    report = "\n".join(lines)
    refused = [r for res in results for r in res["records"] if r[2] == "source-refused"]
    assert not refused, f"the generator wrote kernels their own compiler refuses: {refused}\n{report}"
    new = sorted(set(keys) - known_keys())
    assert not new, "new failure classes (run `make fuzz` to shrink and keep them):\n" + "\n".join(new) + "\n" + report
    from kernelgen.gen import TARGETS_OF

    assert sum(len(res["records"]) for res in results) == sum(s.n * len(TARGETS_OF[s.era]) for s in SMOKE)


def test_the_tool_never_imports_the_generator():
    wrong = []
    for path in sorted((ROOT / "codemods").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names if n.split(".")[0] == "kernelgen"]
    assert not wrong


# ---------------------------------------------------------------------------------------------
# Real kernels as seeds (kernelgen/seeds.py): read from ../shared/corpus at run time


def test_seed_eras_without_the_corpus_say_so_and_judge_nothing(monkeypatch, tmp_path):
    from kernelgen import seeds
    from kernelgen.fuzz import run_seed_shard

    monkeypatch.setattr(seeds, "CORPUS", tmp_path / "no-corpus")
    seeds.units.cache_clear()
    try:
        result = run_seed_shard(Shard("aug-real", 5, 1))
    finally:
        seeds.units.cache_clear()
    assert result["records"] == [] and "no seeds of aug-real" in result["missing"]
    lines, _ = summary([result], table_ops())
    assert any(line.startswith("seeds: no seeds") for line in lines)


def test_seed_units_stand_alone_and_mutants_parse():
    """Each unit cut out of a real file is a module of its own (nothing it reads unbound), and a
    text differs from its unit only where mutations are named (two may cancel: x2 then x0.5)."""
    import random

    from needs import corpus_or_skip

    from kernelgen import seeds

    corpus_or_skip()
    for era in seeds.SEED_DIRS:
        found = seeds.units(era)
        assert len(found) > 100, era
        rng = random.Random(3)
        for unit in rng.sample(found, 40):
            assert not seeds.free_names(unit.text), unit.where
            text, said = seeds.mutate(unit.text, era, rng, 2)
            ast.parse(text)
            assert said or text == unit.text, unit.where


def test_real_seed_smoke_edits_no_accepted_mutant():
    """A fixed seed over the 2026-08 seeds: pypto's own kernels of e2d0f78ae, cut out and mutated.
    Every one the compiler accepts comes out byte for byte, and nothing else fails (the two harm
    classes real seeds first met, PTO142 re-deciding a plain parameter of code written for
    2026-08, are fixed: fixtures/fuzz/aug_to_202608_harm_plain_*.py)."""
    from needs import corpus_or_skip

    corpus_or_skip()
    head_python()
    result = run_shard(Shard("aug-real", 6, 20261201))
    counts = result["seeds"]
    assert counts["accepted"] and counts["mutants accepted"], counts
    for era, target, category, key in result["records"]:
        assert category in ("accepted", "source-refused"), (era, category, key, result["examples"].get(key))
