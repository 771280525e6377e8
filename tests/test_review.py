"""`run --interactive`: hunks are applied exactly, whichever the reviewer accepts."""

from __future__ import annotations

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.cli import main
from codemods.diffs import unified_diff
from codemods.review import apply, hunks_of, review_file
from conftest import FIXTURES

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
    accepted, quit_ = review_file("f.py", diff, lambda: next(answers), lambda title, text: shown.append(title))
    assert accepted == [False, True, True] and not quit_
    assert shown == ["f.py: hunk 1 of 3", "f.py: hunk 2 of 3"]
    accepted, quit_ = review_file("f.py", diff, lambda: "q", lambda *_: None)
    assert accepted == [False, False, False] and quit_


def test_interactive_cli_writes_only_accepted_hunks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = (FIXTURES / "before" / "deepseek_v3_2_decode_back.py").read_text()
    (tmp_path / "k.py").write_text(source)
    result = CliRunner().invoke(main, ["run", "--interactive", "k.py"], input="y\nn\nd\n")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "k.py").read_text()
    assert text != source and "pl.view(" in text  # some hunks taken, not all
    assert "k.py: 1 of 4 hunks written" in result.output
    quit_all = CliRunner().invoke(main, ["run", "-i", "k.py"], input="q\n")
    assert quit_all.exit_code == 0 and (tmp_path / "k.py").read_text() == text
