"""The anchored diff of long texts: hunks written as difflib writes them, and a diff that
turns the original into the migration exactly."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from codemods.text import diffs, long_diff
from codemods.text.diffs import diff_body, lines_of
from codemods.cli.review import apply, hunks_of

# Few distinct lines, so that most repeat (the case difflib is slow on), some unique ones.
LINE = st.one_of(st.sampled_from(["a\n", "b\n", "    x = 1\n", "\n", "c"]), st.integers(0, 50).map(lambda n: f"u{n}\n"))
TEXT = st.lists(LINE, max_size=60).map("".join)


def _edited(draw_lines, edits):
    lines = list(draw_lines)
    for at, kind, new in edits:
        if not lines and kind != "insert":
            continue
        at %= max(len(lines), 1)
        if kind == "insert":
            lines.insert(at, new)
        elif kind == "delete":
            del lines[at]
        else:
            lines[at] = new
    return lines


EDIT = st.tuples(st.integers(0, 100), st.sampled_from(["insert", "delete", "replace"]), LINE)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, st.integers(0, 4))
def test_hunks_are_written_as_difflib_writes_them(before, after, context):
    a, b = lines_of(before), lines_of(after)
    ours = list(long_diff.hunk_lines(difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context), a, b))
    theirs = list(difflib.unified_diff(a, b, n=context, lineterm="\n"))[2:]
    assert ours == theirs


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=80), st.lists(EDIT, max_size=12), st.integers(0, 3))
def test_the_anchored_diff_turns_the_original_into_the_migration(original, edits, context):
    before = "".join(original)
    after = "".join(_edited(original, edits))
    saved = diffs.LONG, long_diff.SHORT
    diffs.LONG, long_diff.SHORT = 0, 2  # every diff anchored, and anchored again inside the gaps
    try:
        body = diff_body(before, after, context)
    finally:
        diffs.LONG, long_diff.SHORT = saved
    assert (body == "") == (before == after)
    if body:
        hunks = hunks_of(f"--- a/k.py\n+++ b/k.py\n{body}")
        assert apply(before, hunks, [True] * len(hunks)) == after
        assert apply(before, hunks, [False] * len(hunks)) == before


def test_a_long_repetitive_file_is_diffed_through_the_anchors_as_small_edits():
    block = [f"def f{i}(t):\n" + "    x = pl.view(t, [4], [0])\n" * 3 + "    return x\n" for i in range(3000)]
    before = "".join(block)
    after = before.replace("def f1500(t):\n    x = pl.view", "def f1500(t):\n    x = pl.slice", 1)
    body = diff_body(before, after)
    assert len(lines_of(before)) + len(lines_of(after)) > diffs.LONG
    view = "    x = pl.view(t, [4], [0])\n"
    assert body == (
        f"@@ -7499,7 +7499,7 @@\n {view}     return x\n def f1500(t):\n-{view}+    x = pl.slice(t, [4], [0])\n"
        f" {view} {view}     return x\n"
    )


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT)
def test_line_maps_are_difflibs_where_its_search_is_cheap(before, after):
    a, b = lines_of(before), lines_of(after)
    assert long_diff.line_opcodes(a, b) == difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def test_copies_that_repeat_their_names_too_are_matched_copy_by_copy():
    block = ["def f(t):\n", "    x = pl.view(t, [4], [0])\n", "    y = pl.add(x, x)\n", "    return y\n", "\n"]
    a = block * 2000
    b = list(a)
    b[5 * 1234 + 1] = "    x = pl.slice(t, [4], [0])\n"
    assert long_diff.equal_pairs(a, b, autojunk=False) > long_diff.PAIRS  # difflib's search would be quadratic
    assert long_diff.line_opcodes(a, b) == [
        ("equal", 0, 6171, 0, 6171), ("replace", 6171, 6172, 6171, 6172), ("equal", 6172, 10000, 6172, 10000),
    ]
