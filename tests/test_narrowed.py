"""Narrowed rules (--select/--ignore) never write unchecked output (issue 8, hole 6)."""

from __future__ import annotations

import re
import shutil

import pytest

from codemods.rulebook.loading import choose_rules, load_rules
from conftest import FIXTURES, ROOT, pypto
from needs import CORPUS, corpus_or_skip


def _copy(tmp_path, name):
    shutil.copy(FIXTURES / "before" / name, tmp_path / name)
    return tmp_path / name


def test_requirements_come_along_or_their_dependents_stay_out():
    rules = load_rules()
    chosen = choose_rules(rules, ["pto011"], [])
    assert [r.id for r in chosen.rules] == ["PTO004", "PTO010", "PTO011"]
    assert "PTO004 handoff-buffer comes along: PTO011 unique-tile-names relies on it" in chosen.notes
    ignored = choose_rules(rules, [], ["PTO004"])
    ids = {r.id for r in ignored.rules}
    assert "PTO004" not in ids and "PTO011" not in ids and "PTO016" not in ids and "PTO002" in ids
    assert any(n.startswith("PTO011 unique-tile-names is left out too") for n in ignored.notes)


def test_every_requirement_names_a_rule_and_none_of_a_full_run_is_dropped():
    rules = load_rules()
    assert choose_rules(rules, [], []).rules == rules and not choose_rules(rules, [], []).notes


def test_ignore_handoff_refuses_what_it_would_break_and_says_why(tmp_path):
    broken = _copy(tmp_path, "deepseek_v3_2_decode_front.py")
    fine = _copy(tmp_path, "deepseek_v3_2_decode_back.py")  # no hand-off: migrates without PTO004
    result = pypto("run", "--write", "--ignore", "PTO004", broken.name, fine.name, cwd=tmp_path)
    assert result.returncode == 2  # a file could not be processed
    assert "note: PTO011 unique-tile-names is left out too: it relies on PTO004 handoff-buffer" in result.stderr
    assert re.search(r"deepseek_v3_2_decode_front\.py:1:1: error: not migrated: with the selected rules the result would have "
                     r"\d+ new errors? against the target API", result.stderr)
    # a Tile handed to assemble on a line that had no error: the hand-off PTO004 would write
    assert re.search(r"deepseek_v3_2_decode_front\.py:\d+:\d+: error API: The operator tensor.assemble requires argument 2 "
                     r"to be a TensorType, but got TileType", result.stderr)
    assert broken.read_bytes() == (FIXTURES / "before" / broken.name).read_bytes(), "never written"
    assert fine.read_bytes() != (FIXTURES / "before" / fine.name).read_bytes()
    checked = pypto("check", fine.name, cwd=tmp_path)
    assert "API" not in checked.stderr, "what was written passes the full strict check"
    dry = pypto("check", "--ignore", "PTO004", broken.name, cwd=tmp_path)
    assert dry.returncode == 2 and "not migrated" in dry.stderr


def test_without_requires_the_output_check_still_catches_undefined_names(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "codemods" / "rules", rules)
    for path in rules.glob("*/PTO*.toml"):
        path.write_text(re.sub(r"^requires = .*\n", "", path.read_text(), flags=re.M))
    kernel = _copy(tmp_path, "real_batch_loop.py")
    result = pypto("run", "--write", "--ignore", "PTO004", kernel.name, cwd=tmp_path, env={"PYPTO_MIGRATE_RULES": str(rules)})
    assert result.returncode == 2
    assert "note:" not in result.stderr
    assert re.search(r"real_batch_loop\.py:\d+:\d+: error API: inv is read but nothing defines it", result.stderr), result.stderr
    assert kernel.read_bytes() == (FIXTURES / "before" / kernel.name).read_bytes()


def test_select_brings_requirements_along(tmp_path):
    kernel = _copy(tmp_path, "deepseek_v3_2_decode_front.py")
    result = pypto("run", "--select", "unique-tile-names", kernel.name, cwd=tmp_path)
    assert "note: PTO004 handoff-buffer comes along: PTO011 unique-tile-names relies on it" in result.stderr
    assert "note: PTO010 hoist-tile-shape comes along: PTO004 handoff-buffer relies on it" in result.stderr


# A kernel in the old style whose views sit inside a kernel region: renamed alone, the slice
# of b is still a Tensor where the tile op pl.rsqrt needs a Tile (the compiler: "tile.rsqrt
# requires argument to be a TileType, but got TensorType"; the next step loads it), an error
# the input had on the same line as "view was removed".
STEPWISE = '''\
import pypto.language as pl

ROWS = 16
COLS = 64


def build(rows: int = ROWS):
    @pl.program
    class Stepwise:
        @pl.function
        def run(
            self,
            a: pl.Tensor[[rows, COLS], pl.FP32],
            b: pl.Tensor[[rows, COLS], pl.FP32],
            out: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
        ) -> pl.Tensor[[rows, COLS], pl.FP32]:
            with pl.auto_incore():
                for r in pl.parallel(0, rows, 4, chunk=1):
                    left: pl.Tensor[[4, COLS], pl.FP32] = pl.view(
                        a, [4, COLS], [r, 0]
                    )
                    right = pl.rsqrt(pl.view(b, [4, COLS], [r, 0]))  # same rows of b
                    out = pl.assemble(out, pl.add(left, right), [r, 0])
            return out

    return Stepwise
'''


def test_a_narrowed_step_writes_what_it_leaves_for_the_other_rules(tmp_path):
    kernel = tmp_path / "stepwise.py"
    kernel.write_text(STEPWISE)
    full = pypto("check", kernel.name, cwd=tmp_path)
    assert "a Tensor slice inside a kernel" not in full.stderr  # the input's error is the removed view
    result = pypto("run", "--write", "--select", "view-to-slice", kernel.name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "not migrated" not in result.stderr and "new error" not in result.stderr
    assert re.search(r"stepwise\.py: \d+ errors? against the target API remain, each on a line that had one before: "
                     r"left for the rules not selected", result.stderr), result.stderr
    assert kernel.read_text() == STEPWISE.replace("pl.view(", "pl.slice("), "the rename and nothing else"
    after = pypto("check", kernel.name, cwd=tmp_path)
    assert after.returncode == 1, "the step leaves work for the next rules, and check still says so"
    rest = pypto("run", "--write", kernel.name, cwd=tmp_path)
    assert rest.returncode == 0 and "pl.slice(" not in kernel.read_text(), "the next step takes it from there"


def test_a_narrowed_rule_that_writes_a_malformed_call_is_refused(tmp_path):
    """The input had an error on the line (the removed view), but a call the target cannot
    take at all is the edit's own doing."""
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "codemods" / "rules", rules)
    view = next(rules.glob("*/PTO001-*.toml"))
    text = view.read_text()
    keep = text[: text.index("[[example]]")].replace('"pl.slice($src, $shape, $offset, **$kw)"', '"pl.slice($src)"')
    view.write_text(keep + '[[example]]\nbefore = "import pypto.language as pl\\ny = pl.view(x, [1], [0])\\n"\n'
                    'after = "import pypto.language as pl\\ny = pl.slice(x)\\n"\n')
    kernel = tmp_path / "stepwise.py"
    kernel.write_text(STEPWISE)
    result = pypto("run", "--write", "--select", "view-to-slice", kernel.name, cwd=tmp_path,
                   env={"PYPTO_MIGRATE_RULES": str(rules)})
    assert result.returncode == 2, result.stderr
    assert re.search(r"stepwise\.py:\d+:1: error API: slice\(\) missing 2 required positional arguments", result.stderr), result.stderr
    assert kernel.read_text() == STEPWISE, "never written"


def test_ignoring_the_handoff_leaves_only_the_errors_the_input_had(tmp_path):
    """`--ignore handoff-buffer` on a kernel whose only rejections the selected rules can't
    remove: since the rules fire only around a rejection, what is left (the compiler's
    `tile.rsqrt ... got TensorType`, checked with the compiler) stands on a line that had it
    before, so the step is written and the leftovers are counted in a note."""
    kernel = _copy(tmp_path, "real_batch_loop.py")
    result = pypto("run", "--write", "--ignore", "PTO004", kernel.name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert re.search(r"real_batch_loop\.py: \d+ errors? against the target API remains?, each on a line that had one", result.stderr), result.stderr
    assert "pl.view" not in kernel.read_text()
    assert kernel.read_bytes() != (FIXTURES / "before" / kernel.name).read_bytes()


# pypto's authors renamed pl.view to pl.slice by hand between the two trees of
# ../shared/corpus/pypto: `--select view-to-slice` must make the same change on every line
# where a pl.view call stands, and no other. (Upstream also edited a comment and a DSL
# program held in a string; the rule rewrites calls only, never comments or strings.)
PYPTO = CORPUS / "pypto"


def _view_call_lines(text: str) -> set[int]:
    """Lines where the callee of a `pl.view(...)` call ends (the line its rename changes)."""
    import ast

    return {node.func.end_lineno for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "view"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "pl"}


def _hand_edited() -> list[str]:
    if not PYPTO.is_dir():
        return ["(no corpus)"]
    return sorted(p.relative_to(PYPTO / "before").as_posix() for p in (PYPTO / "before").rglob("*.py")
                  if (PYPTO / "after" / p.relative_to(PYPTO / "before")).is_file()
                  and _view_call_lines(p.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def narrowed_tree(tmp_path_factory):
    corpus_or_skip()
    tree = tmp_path_factory.mktemp("view-to-slice")
    for rel in _hand_edited():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes((PYPTO / "before" / rel).read_bytes())
    result = pypto("run", "--write", "--select", "view-to-slice", *_hand_edited(), cwd=tree)
    return tree, result


@pytest.mark.parametrize("rel", _hand_edited())
def test_select_view_to_slice_makes_the_upstream_hand_edit(narrowed_tree, rel):
    tree, result = narrowed_tree
    assert f"{rel}:1:1: error" not in result.stderr, result.stderr
    before = (PYPTO / "before" / rel).read_text(encoding="utf-8").splitlines()
    upstream = (PYPTO / "after" / rel).read_text(encoding="utf-8").splitlines()
    ours = (tree / rel).read_text(encoding="utf-8").splitlines()
    assert len(ours) == len(before), "a rename changes no line count"
    views = _view_call_lines("\n".join(before))
    touched = {i + 1 for i, (a, b) in enumerate(zip(before, ours)) if a != b}
    assert touched == views, f"lines changed other than the pl.view calls: {sorted(touched ^ views)}"
    counterpart = _counterparts(before, upstream)
    differ = [f"line {n}: ours {ours[n - 1].strip()!r}, upstream {upstream[counterpart[n] - 1].strip() if n in counterpart else None!r}"
              for n in sorted(views) if n not in counterpart or ours[n - 1] != upstream[counterpart[n] - 1]]
    assert not differ, "\n".join(differ)


def _counterparts(before: list[str], after: list[str]) -> dict[int, int]:
    """Line of `before` -> its line in `after`, where the hand edit kept it or rewrote it in place."""
    import difflib

    found = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            found.update({i1 + k + 1: j1 + k + 1 for k in range(i2 - i1)})
    return found
