"""`run --interactive`: hunks are applied exactly, whichever the reviewer accepts."""

from __future__ import annotations

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.cli.commands import main
from codemods.text.diffs import unified_diff
from codemods.check.results import Edit
from codemods.cli.review import Terminal, apply, hunks_of, review_file, rules_of
from conftest import FIXTURES, pinned

_line = st.sampled_from(["a", "b", "x = 1", "", "    y", "pl.view(t)"])
_eol = st.sampled_from(["\n", "\r\n"])


@st.composite
def _edits(draw):
    old = [draw(_line) + draw(_eol) for _ in range(draw(st.integers(1, 30)))]
    new = list(old)
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(new)))
        choice = draw(st.sampled_from(["replace", "insert", "delete"]))
        if choice == "insert" or not new:
            new.insert(i, draw(_line) + draw(_eol))
        elif choice == "delete":
            del new[min(i, len(new) - 1)]
        else:
            new[min(i, len(new) - 1)] = draw(_line) + "!" + draw(_eol)
    if draw(st.booleans()):  # no final newline
        old[-1] = old[-1].rstrip("\r\n")
        if new:
            new[-1] = new[-1].rstrip("\r\n")
    mask = draw(st.lists(st.booleans(), min_size=40, max_size=40))
    context = draw(st.sampled_from([0, 1, 3]))
    return "".join(old), "".join(new), mask, context


@settings(max_examples=300, deadline=None)
@given(_edits())
def test_any_subset_of_hunks_applies_cleanly(case):
    old, new, mask, context = case
    diff = unified_diff(old, new, "f.py", context=context)
    if not diff:
        return
    hunks = hunks_of(diff)
    assert apply(old, hunks, [True] * len(hunks)) == new
    assert apply(old, hunks, [False] * len(hunks)) == old
    chosen = mask[: len(hunks)]
    partial = apply(old, hunks, chosen)
    # Taking the chosen hunks and then the rest reaches the same end as taking all at once.
    rest = hunks_of(unified_diff(partial, new, "f.py", context=context))
    assert apply(partial, rest, [True] * len(rest)) == new


def test_review_file_choices():
    old = "".join(f"line {i}\n" for i in range(30))
    new = old.replace("line 2\n", "LINE 2\n").replace("line 15\n", "LINE 15\n").replace("line 28\n", "LINE 28\n")
    diff = unified_diff(old, new, "f.py", context=1)
    shown = []
    answers = iter(["n", "a"])
    term = Terminal(lambda prompt: next(answers), shown.append)
    text, taken, total, stop = review_file("f.py", old, diff, [], term)
    assert (taken, total, stop) == (2, 3, False) and text == new.replace("LINE 2\n", "line 2\n")
    assert [s for s in shown if "hunk" in s] == ["\nf.py: hunk 1 of 3\n", "\nf.py: hunk 2 of 3\n"]
    text, taken, total, stop = review_file("f.py", old, diff, [], Terminal(lambda prompt: None, shown.append))
    assert (text, taken, stop) == (old, 0, True), "end of input: nothing accepted, nothing more asked"


def test_each_hunk_names_the_rules_of_its_lines():
    old = "".join(f"line {i}\n" for i in range(30))
    new = old.replace("line 2\n", "LINE 2\n").replace("line 15\n", "# pypto-migrate: review PTO013: why\nline 15\n")
    hunks = hunks_of(unified_diff(old, new, "f.py", context=1))
    edits = [Edit("PTO001", 3, 1), Edit("PTO002", 3, 5), Edit("PTO016", 1, 1), Edit("PTO010", 20, 1)]
    # Line 3 is in hunk 1; line 1 (a statement whose body was prepended to) is nearest hunk 1;
    # line 20 is nearest hunk 2, which also carries a PTO013 marker.
    assert rules_of(hunks, edits) == [["PTO001", "PTO002", "PTO016"], ["PTO010", "PTO013"]]


def test_interactive_cli_writes_only_accepted_hunks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = (FIXTURES / "2026-03" / "before" / "deepseek_v3_2_decode_back.py").read_text()
    (tmp_path / "k.py").write_text(source)
    result = CliRunner().invoke(main, pinned(["run", "--interactive", "k.py"]), input="y\nn\nd\n")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "k.py").read_text()
    assert text != source and "pl.view(" in text  # some hunks taken, not all
    assert "k.py: 1 of 4 hunks written" in result.output
    quit_all = CliRunner().invoke(main, pinned(["run", "-i", "k.py"]), input="q\n")
    assert quit_all.exit_code == 0 and (tmp_path / "k.py").read_text() == text


# -- the reviewer's terminal: a real process on a pseudo-terminal --------------------------

import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402

import pexpect  # noqa: E402

from conftest import ROOT  # noqa: E402

PROMPT = r"Apply this hunk\? \[y,n,a,d,e,r,q,\?\] "
def _three(i: int) -> str:
    return f"def k{i}(t):\n    return pl.view(t, [{i + 1}, 4], [b, 0])\n\n\n"


KERNELS = "import pypto.language as pl\n\n\n" + "".join(_three(i) for i in range(3))


def _slice(text: str, *which: int) -> str:
    for i in which:
        text = text.replace(f"pl.view(t, [{i + 1}, 4]", f"pl.slice(t, [{i + 1}, 4]")
    return text


def _spawn(tmp_path, *paths, env=None):
    return pexpect.spawn(
        sys.executable, ["-m", "codemods", *pinned(["run", "--interactive", *paths])], cwd=str(tmp_path), encoding="utf-8",
        timeout=120, dimensions=(50, 200), env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        preexec_fn=_sigint_as_on_a_terminal,
    )


def _sigint_as_on_a_terminal() -> None:
    # A program started from a terminal gets Ctrl-C; a test run started from a background shell
    # (`cmd &`) has SIGINT ignored, which its children would inherit, and ^C would do nothing.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _finish(child) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_pty_hunks_name_their_rules_keys_docs_and_end_of_input_writes(tmp_path):
    (tmp_path / "k.py").write_text(KERNELS)
    child = _spawn(tmp_path, "k.py")
    child.expect(r"k\.py: hunk 1 of 3 · PTO001 view-to-slice \(safe\)\r\n")
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("e  edit this hunk in \\$EDITOR, then apply it")
    child.expect(PROMPT)
    child.sendline("r")
    child.expect("# view-to-slice \\(PTO001\\)")
    child.expect("## Fix safety")
    child.expect(PROMPT)
    child.sendline("x")
    child.expect("unknown key 'x'; \\? shows the keys")
    child.expect(PROMPT)
    child.sendline("y")
    child.expect("hunk 2 of 3")
    child.expect(PROMPT)
    child.sendline("n")
    child.expect("hunk 3 of 3")
    child.expect(PROMPT)
    child.sendeof()  # Ctrl-D: what was accepted so far in this file is written
    child.expect(r"k\.py: 1 of 3 hunks written; 2 edits left, 0 need review")
    assert _finish(child) == 0
    assert (tmp_path / "k.py").read_text() == _slice(KERNELS, 0)


def test_pty_quit_writes_this_file_and_stops(tmp_path):
    (tmp_path / "a.py").write_text(KERNELS)
    (tmp_path / "b.py").write_text(KERNELS)
    child = _spawn(tmp_path, "a.py", "b.py")
    child.expect(PROMPT)
    child.sendline("n")
    child.expect(PROMPT)
    child.sendline("y")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(r"a\.py: 1 of 3 hunks written")
    assert _finish(child) == 0
    assert (tmp_path / "a.py").read_text() == _slice(KERNELS, 1)
    assert (tmp_path / "b.py").read_text() == KERNELS, "quit: no more files are reviewed"


def test_pty_ctrl_c_leaves_the_current_file_and_names_those_written(tmp_path):
    (tmp_path / "a.py").write_text(KERNELS)
    (tmp_path / "b.py").write_text(KERNELS)
    child = _spawn(tmp_path, "a.py", "b.py")
    child.expect(r"a\.py: hunk 1 of 3")
    child.expect(PROMPT)
    child.sendline("a")
    child.expect(r"b\.py: hunk 1 of 3")
    child.expect(PROMPT)
    child.sendline("y")
    child.expect(PROMPT)
    child.sendintr()
    child.expect(r"interrupted: b\.py was left as it was; written: a\.py")
    assert _finish(child) == 130
    assert (tmp_path / "a.py").read_text() == _slice(KERNELS, 0, 1, 2)
    assert (tmp_path / "b.py").read_text() == KERNELS


EDITOR = """\
import pathlib, re, sys
count = pathlib.Path(sys.argv[1]).with_name("editor-calls")
calls = int(count.read_text()) if count.exists() else 0
count.write_text(str(calls + 1))
hunk = pathlib.Path(sys.argv[2])
text = hunk.read_text()
if calls == 0:  # first try: the edit does not parse
    text = text.replace("+    return pl.slice(", "+    return (pl.slice(")
else:  # then a good edit: a comment above the rewritten line
    text = text.replace("+    return pl.slice(", "+    # checked by hand\\n+    return pl.slice(")
hunk.write_text(text)
"""


def test_pty_edit_a_hunk_in_the_editor_rechecked(tmp_path):
    (tmp_path / "k.py").write_text(KERNELS)
    editor = tmp_path / "tools" / "editor.py"
    editor.parent.mkdir()
    editor.write_text(EDITOR)
    child = _spawn(tmp_path, "k.py", env={"EDITOR": f"{sys.executable} {editor} {editor}", "VISUAL": ""})
    child.expect(PROMPT)
    child.sendline("e")
    child.expect(r"k\.py:\d+:\d+: the edited file is not valid Python[^\r\n]*; hunk offered again")
    child.expect(r"k\.py: hunk 1 of 3")
    child.expect(PROMPT)
    child.sendline("e")
    child.expect("edited hunk accepted")
    child.expect(r"k\.py: hunk 2 of 3")
    child.expect(PROMPT)
    child.sendline("d")
    child.expect(r"k\.py: 1 of 3 hunks written")
    assert _finish(child) == 0
    expected = _slice(KERNELS, 0).replace("    return pl.slice(t, [1, 4]", "    # checked by hand\n    return pl.slice(t, [1, 4]")
    assert (tmp_path / "k.py").read_text() == expected


def test_pty_on_a_shipped_fixture_accept_all_gives_the_full_migration(tmp_path):
    import shutil

    name = "deepseek_v3_2_decode_back.py"
    shutil.copy(FIXTURES / "2026-03" / "before" / name, tmp_path / name)
    child = _spawn(tmp_path, name)
    child.expect(r"hunk 1 of \d+ · PTO001 view-to-slice \(safe\), PTO002 slice-to-load \(safe\), [^\r\n]*"
                 r"PTO013 matmul-accumulation \(flag\)")
    child.expect(PROMPT)
    child.sendline("a")
    child.expect(r"hunks written; 0 edits left, \d+ need review")
    assert _finish(child) == 0
    assert (tmp_path / name).read_bytes() == (FIXTURES / "2026-03" / "after" / name).read_bytes()
