"""The real corpus (../shared/corpus, read at run time, never copied into the repository).

The four DeepSeek v3.2 parts go through every stage: migrate, the strict check, the
compiler's parse, its pass pipeline, the structure audit, overflows, verify against the
original, and a second run that changes nothing. The library tree goes through migrate
with no internal error and a second run that changes nothing. Each expectation is a test of
its own, per file, so that a failure says which real file fails at which stage.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from needs import CORPUS, ROOT, corpus_or_skip, pypto_or_skip

sys.path.insert(0, str(ROOT / "benchmarks"))
import real_corpus  # noqa: E402

pytestmark = pytest.mark.real

DEEPSEEK = sorted(p.name for p in (CORPUS / "deepseek").glob("*.py")) or ["(no corpus)"]
LIBRARY = sorted(p.relative_to(CORPUS).as_posix() for p in (CORPUS / "library").rglob("*.py")) or ["(no corpus)"]


@pytest.fixture(scope="session")
def migrated(tmp_path_factory):
    """The corpus copied, migrated with `run --write` (a real subprocess), and run a second time."""
    corpus_or_skip()
    tree, first, second = real_corpus.migrate_corpus(tmp_path_factory.mktemp("real"), jobs=2)
    return tree, first, second


@pytest.fixture(scope="session")
def compiled(migrated):
    """The compiler's verdict on each migrated DeepSeek file (passes stage), computed once."""
    pypto_or_skip()
    from codemods.compiler.bridge import compile_source

    tree = migrated[0]
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = compile_source(tree / "deepseek" / name, None, "passes")
        return cache[name]

    return get


def _require_migrated(first, rel: str) -> None:
    if rel in first.errors:
        pytest.fail(f"{rel} was not migrated: {first.errors[rel].splitlines()[0]}", pytrace=False)


def _errors(result) -> str:
    return "\n".join(f"  line {e.line}:{e.column}: {e.message}" for e in result.errors[:5])


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_migrates_without_an_error(migrated, name):
    _, first, _ = migrated
    rel = f"deepseek/{name}"
    _require_migrated(first, rel)
    assert first.edits[rel] > 0, f"{rel}: nothing was migrated"


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_migration_passes_the_strict_check(migrated, name):
    _, first, _ = migrated
    rel = f"deepseek/{name}"
    _require_migrated(first, rel)
    lines = [line for line in first.stderr.splitlines() if line.startswith(f"corpus/{rel}:") and " error API: " in line]
    assert not lines, "\n".join(lines[:10])


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_migration_is_accepted_by_the_compilers_parser(compiled, name):
    result = compiled(name)
    parse_errors = [e for e in result.errors if not e.message.startswith("pass pipeline")]
    assert result.programs and not parse_errors, f"the compiler rejects the migrated {name}:\n{_errors(result)}"


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_migration_runs_through_the_pass_pipeline(compiled, name):
    result = compiled(name)
    assert result.programs, f"no program was built (parse failed first):\n{_errors(result)}"
    assert not result.errors, f"the pass pipeline failed on {name}:\n{_errors(result)}"
    assert result.memory, "the pass pipeline wrote no memory report"


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_migration_has_the_structure_of_a_correct_migration(compiled, name):
    result = compiled(name)
    assert result.programs and not result.errors, f"not compiled (an earlier stage failed):\n{_errors(result)}"
    assert not result.structure, "\n".join(p.message for p in result.structure)


def _kernel_pairs(migrated, compiled, name):
    """The tool's capacity figures of the migrated file beside the compiler's memory report."""
    from codemods.compiler.verdict import pair_kernels, tool_capacity
    from codemods.rulebook.loading import load_api

    result = compiled(name)
    assert result.memory, f"no memory report (an earlier stage failed):\n{_errors(result)}"
    path = migrated[0] / "deepseek" / name
    pairs, notes = pair_kernels(tool_capacity(path.read_text(encoding="utf-8-sig"), name, load_api(None, "2026-03")), result.memory)
    assert not notes, "\n".join(notes)
    return pairs


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_compiler_overflows_are_seen_by_the_tool(migrated, compiled, name):
    unseen = [
        f"{p.compiler} {space}: compiler {compiler} B of {limit} B, tool {tool} B"
        for p in _kernel_pairs(migrated, compiled, name) for space, (tool, compiler, limit) in p.spaces.items()
        if compiler is not None and compiler > limit and not (tool is not None and tool > limit)
    ]
    assert not unseen, "over a limit for the compiler, within it for the tool:\n" + "\n".join(unseen)


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_capacity_figures_are_the_compilers(migrated, compiled, name):
    """Every kernel, every space: the tool's bytes are the compiler's memory report's, to its rounding."""
    from codemods.compiler.verdict import disagreements

    pairs = _kernel_pairs(migrated, compiled, name)
    assert len(pairs) >= 6 and all(p.tool and p.compiler for p in pairs)
    assert not disagreements(pairs), "\n".join(disagreements(pairs))


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_migration_computes_what_the_original_did(migrated, name):
    tree, first, _ = migrated
    rel = f"deepseek/{name}"
    _require_migrated(first, rel)
    cell, why = real_corpus.run_verify(CORPUS / rel, tree / rel, tree.parent)
    assert cell.startswith(("0 ", "3 ")), f"verify: {cell}: {why}"
    assert real_corpus.verify_counts([cell])[2] <= 10.0, cell  # at the sizes verify chose itself


@pytest.mark.parametrize("name", DEEPSEEK)
def test_deepseek_second_run_changes_nothing(migrated, name):
    _, first, second = migrated
    rel = f"deepseek/{name}"
    _require_migrated(first, rel)
    assert not second.edits[rel], f"a second run changes {rel} again"


@pytest.mark.parametrize("rel", LIBRARY)
def test_library_file_migrates_without_an_internal_error(migrated, rel):
    _, first, _ = migrated
    assert "internal error" not in first.errors.get(rel, ""), first.errors.get(rel)


@pytest.mark.parametrize("rel", LIBRARY)
def test_library_file_second_run_changes_nothing(migrated, rel):
    _, _, second = migrated
    assert not second.edits[rel], f"a second run changes {rel} again"
    assert "internal error" not in second.errors.get(rel, ""), second.errors.get(rel)


@pytest.mark.parametrize("rel", LIBRARY)
def test_library_file_verify_is_equivalent_or_says_why_it_cannot_run(migrated, rel):
    """Every migrated library file is verified at the sizes verify chooses: equivalent, or exit 2
    naming the file (not a kernel: a helper of the old tensor-function API; or a module that
    cannot load here, such as golden.py importing torch), never a silent mismatch."""
    tree, first, _ = migrated
    if not first.edits[rel]:  # nothing to verify: the file is as it was
        assert (tree / rel).read_bytes() == (CORPUS / rel).read_bytes()
        return
    cell, why = real_corpus.run_verify(CORPUS / rel, tree / rel, tree.parent)
    assert cell == "not a kernel" or cell.startswith(("0 ", "2 ", "3 ")), f"{cell}: {why}"
    if cell.startswith("2 "):
        assert Path(rel).name in why, why
