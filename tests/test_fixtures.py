"""The shipped kernels: each `before` migrates to exactly its `after`, and only once."""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES, pinned

NAMES = sorted(p.name for p in (FIXTURES / "2026-03" / "before").glob("*.py"))
DEEPSEEK = [n for n in NAMES if n.startswith("deepseek_v3_2_")]


def _read(path):
    return path.read_bytes().decode("utf-8")


def test_the_four_deepseek_parts_are_shipped():
    assert DEEPSEEK == [
        "deepseek_v3_2_decode_back.py",
        "deepseek_v3_2_decode_front.py",
        "deepseek_v3_2_prefill_back.py",
        "deepseek_v3_2_prefill_front.py",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_fixture_migrates_to_expected(name, run_rules):
    before = _read(FIXTURES / "2026-03" / "before" / name)
    expected = _read(FIXTURES / "2026-03" / "after" / name)
    result = run_rules(before)
    assert result.output == expected
    assert run_rules(result.output).output == result.output, "a second run must change nothing"
    assert [f for f in result.findings if f.level == "error"] == []


@pytest.mark.parametrize("name", DEEPSEEK)
def test_view_to_slice_changes_only_the_view_calls(name, run_rules):
    before = _read(FIXTURES / "2026-03" / "before" / name)
    result = run_rules(before, ("view-to-slice",))
    assert before.count("pl.view(") > 5
    assert result.output == before.replace("pl.view(", "pl.slice(")
    assert len(result.edits) == before.count("pl.view(")


def test_view_to_slice_respects_bytes_of_crlf_and_bom(run_rules):
    raw = (FIXTURES / "2026-03" / "before" / "edge_crlf_bom.py").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    out = run_rules(raw.decode("utf-8"), ("PTO001",)).output.encode("utf-8")
    assert out == raw.replace(b"pl.view(", b"pl.slice(")


def test_aliases_and_lookalikes(run_rules):
    source = _read(FIXTURES / "2026-03" / "before" / "edge_aliases.py")
    out = run_rules(source, ("PTO001",)).output
    changed = "".join(
        line if "is gone" in line else re.sub(r"\b(lang|language|pypto\.language)\.view\(", r"\1.slice(", line)
        for line in source.splitlines(keepends=True)
    )
    assert out == changed
    assert "return pl.view(t, [4, 4], [0, 0])" in out  # a parameter named pl
    assert "np.zeros(8).view(np.int32)" in out and "Window().view([1], [0])" in out
    assert '"lang.view(t, s, o) is gone"  # lang.view(t, s, o) in a comment' in out


def test_check_passes_once_flagged_lines_are_reviewed(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from codemods.cli.commands import main

    monkeypatch.chdir(tmp_path)
    for name in NAMES:
        (tmp_path / name).write_bytes((FIXTURES / "2026-03" / "after" / name).read_bytes())
    markers = sum(_read(FIXTURES / "2026-03" / "after" / n).count("# pypto-migrate: review PTO") for n in NAMES)
    assert markers > 20
    flagged = CliRunner().invoke(main, pinned(["check", "."]))
    assert flagged.exit_code == 1 and f"0 files would be migrated, 0 edits, {markers} need review" in flagged.stderr
    for name in NAMES:
        path = tmp_path / name
        path.write_bytes(path.read_bytes().replace(b"# pypto-migrate: review PTO", b"# pypto-migrate: reviewed PTO"))
    clean = CliRunner().invoke(main, pinned(["check", "."]))
    assert clean.exit_code == 0, clean.stderr
    typo = tmp_path / NAMES[0]
    assert b"reviewed PTO013" in typo.read_bytes()
    typo.write_bytes(typo.read_bytes().replace(b"reviewed PTO013", b"reviewed PTO913", 1))
    assert CliRunner().invoke(main, pinned(["check", "."])).exit_code == 1


def test_every_deepseek_fixture_is_fully_migrated(run_rules):
    """No line left for a person except the ones the tool flagged, and no strict error."""
    for name in DEEPSEEK:
        result = run_rules((FIXTURES / "2026-03" / "after" / name).read_text())
        assert result.edits == []
        assert {f.rule for f in result.findings} <= {"PTO012", "PTO013"}, name


@pytest.mark.parametrize("name", NAMES)
def test_no_comment_is_lost(name):
    """Every comment of the original is in the migration, in the same order."""
    import io
    import tokenize

    def comments(text):
        toks = tokenize.generate_tokens(io.StringIO(text.lstrip("\ufeff")).readline)
        return [t.string for t in toks if t.type == tokenize.COMMENT and "pypto-migrate:" not in t.string]

    assert comments(_read(FIXTURES / "2026-03" / "after" / name)) == comments(_read(FIXTURES / "2026-03" / "before" / name))


def test_a_kernel_importing_the_module_under_another_name(run_rules, api):
    """Generated statements (scratch tiles, whole loads, hand-offs) use the file's own alias."""
    from codemods.interp.execute import Settings
    from codemods.interp.verify import EQUIVALENT, verify

    source = _read(FIXTURES / "2026-03" / "before" / "deepseek_v3_2_decode_front.py").replace(
        "import pypto.language as pl\n", "import pypto.language as lang\n").replace("pl.", "lang.")
    out = run_rules(source).output
    code_lines = [line for line in out.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in code_lines if "pl." in line]
    assert "s_tmp = lang.create_tile([1, kv_lora], dtype=lang.FP32, target_memory=lang.MemorySpace.Vec)" in out
    assert "scores_buf = lang.create_tensor([batch, 1, TOPK], dtype=lang.FP32)" in out
    assert verify(("a.py", source), ("b.py", out), Settings(), api, api.step).code == EQUIVALENT
