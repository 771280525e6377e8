"""`pypto-migrate apply PATCH`: a reviewed diff applied file by file, refusing what changed since."""

from __future__ import annotations

import shutil

from codemods.run.patches import recount
from conftest import FIXTURES, pypto

KERNEL = "import pypto.language as pl\n\n\ndef k(t):\n    return pl.view(t, [4, 4], [0, 0])\n"


def _tree(tmp_path):
    shutil.copytree(FIXTURES / "2026-03" / "before", tmp_path / "models")
    return tmp_path / "models"


def test_apply_gives_what_write_gives(tmp_path):
    models = _tree(tmp_path)
    dry = pypto("run", "--diff-file", "fix.patch", "models", cwd=tmp_path)
    assert dry.returncode == 0
    result = pypto("apply", "fix.patch", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    files = sorted(FIXTURES.joinpath("2026-03", "before").glob("*.py"))
    assert f"{len(files)} of {len(files)} files applied, 0 refused" in result.stderr
    for before in files:  # CRLF, BOM and a missing final newline included
        assert (models / before.name).read_bytes() == (FIXTURES / "2026-03" / "after" / before.name).read_bytes(), before.name
    again = pypto("apply", "fix.patch", cwd=tmp_path)
    assert again.returncode == 1 and "refused, changed since the patch was made" in again.stderr


def test_a_changed_file_is_refused_and_the_others_applied(tmp_path):
    models = _tree(tmp_path)
    patch = pypto("run", "models", cwd=tmp_path).stdout
    (tmp_path / "fix.patch").write_text(patch)
    changed = models / "deepseek_v3_2_decode_back.py"
    lines = changed.read_text().splitlines(keepends=True)
    lines[52] = "# someone edited this line after the patch was made\n"
    changed.write_text("".join(lines))
    edited_before = changed.read_text()
    check = pypto("apply", "--check", "fix.patch", cwd=tmp_path)
    assert check.returncode == 1 and "would apply" in check.stderr
    assert (models / "edge_regions.py").read_bytes() == (FIXTURES / "2026-03" / "before" / "edge_regions.py").read_bytes(), "--check writes nothing"
    result = pypto("apply", "fix.patch", cwd=tmp_path)
    assert result.returncode == 1
    assert ("models/deepseek_v3_2_decode_back.py: refused, changed since the patch was made: line 53 reads "
            "'# someone edited this line after the patch was made'") in result.stderr
    assert changed.read_text() == edited_before
    assert (models / "edge_regions.py").read_bytes() == (FIXTURES / "2026-03" / "after" / "edge_regions.py").read_bytes()


def test_a_hand_edited_patch_applies(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL + "\n\ndef j(t):\n    return pl.view(t, [2, 2], [0, 0])\n")
    patch = pypto("run", "k.py", cwd=tmp_path).stdout
    # The reviewer keeps the second view as it is (the '-' becomes context, its '+' goes) and
    # adds a comment line: the hunk header's counts are now wrong, as after any hand edit.
    edited = patch.replace("+    return pl.slice(t, [2, 2], [0, 0])\n", "")
    edited = edited.replace("-    return pl.view(t, [2, 2], [0, 0])\n", "     return pl.view(t, [2, 2], [0, 0])\n")
    edited = edited.replace("+    return pl.slice(t, [4, 4], [0, 0])\n", "+    # migrated by hand review\n+    return pl.slice(t, [4, 4], [0, 0])\n")
    assert edited != patch
    (tmp_path / "fix.patch").write_text(edited)
    result = pypto("apply", "fix.patch", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "k.py").read_text()
    assert "    # migrated by hand review\n    return pl.slice(t, [4, 4], [0, 0])\n" in text
    assert "return pl.view(t, [2, 2], [0, 0])" in text


def test_an_unreadable_patch_is_exit_2(tmp_path):
    (tmp_path / "junk.patch").write_text("this is not a diff\n")
    result = pypto("apply", "junk.patch", cwd=tmp_path)
    assert result.returncode == 2 and "junk.patch" in result.stderr and "Traceback" not in result.stderr
    (tmp_path / "k.py").write_text(KERNEL)
    bad = pypto("run", "k.py", cwd=tmp_path).stdout.replace("@@ -", "@@ -x")
    (tmp_path / "bad.patch").write_text(bad)
    assert pypto("apply", "bad.patch", cwd=tmp_path).returncode == 2


def test_a_missing_file_is_refused_with_the_reason(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL)
    (tmp_path / "fix.patch").write_text(pypto("run", "k.py", cwd=tmp_path).stdout)
    (tmp_path / "k.py").unlink()
    result = pypto("apply", "fix.patch", cwd=tmp_path)
    assert result.returncode == 1 and "k.py: refused, cannot read: no such file or directory" in result.stderr


def test_recount_fixes_counts_and_stripped_blank_context_lines():
    diff = "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n a\n\n-b\n+B\n+C\n"
    assert recount(diff) == "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,4 @@\n a\n \n-b\n+B\n+C\n"
