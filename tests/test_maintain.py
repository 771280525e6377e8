"""A maintainer's path to the next pypto: `api measure` reads a compiler's API into a table,
`api diff` prints the catalogue of changes between two tables and writes a rule stub for each
mechanical one. The stubs must be rule records the tool loads, whose examples its own kinds
carry out exactly."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from codemods.cli.commands import main
from codemods.maintain.measure import MeasureError, probe, to_toml
from codemods.maintain.stubs import write_stubs
from codemods.maintain.table_diff import Table, diff
from codemods.migrate.engine import migrate
from codemods.rulebook.loading import default_rules_dir, load_api, load_rule, steps
from needs import head_python, pypto_or_skip

OLD = """
module = "pypto.language"
version = "old"

[memory_limits]
Vec = 196608
Mat = 524288

[dtype_bytes]
FP32 = 4

[ops."tile.maxs"]
kind = "tile-only"
params = ["lhs", "rhs"]
required = 2

[ops.incore]
kind = "dsl"
params = []
required = 0

[ops.load]
kind = "tile-only"
params = ["tensor", "offsets", "shapes", "target_memory", "valid_shapes"]
required = 3

[ops.move]
kind = "tile-only"
params = ["tile", "target_memory", "transpose"]
required = 2

[ops.exp]
kind = "tile-only"
params = ["tile"]
required = 1
result = "tile"

[enums]
BackendType = ["CCE", "PTO"]
"""

NEW = """
module = "pypto.language"
version = "new"

[memory_limits]
Vec = 188416
Mat = 524288
Bias = 1024

[dtype_bytes]
FP32 = 4
FP8E8M0 = 1

[ops."tile.maximums"]
kind = "tile-only"
params = ["lhs", "rhs"]
required = 2

[ops.at]
kind = "dsl"
params = ["level"]
required = 0

[ops.load]
kind = "tile-only"
params = ["tensor", "offsets", "shapes", "valid_shape", "target_memory", "clamp"]
required = 3

[ops.move]
kind = "tile-only"
params = ["tile", "target_memory", "blayout", "slayout"]
required = 2

[ops.exp]
kind = "unified"
params = ["input"]
required = 1
result = "same"

[enums]
BackendType = ["Ascend910B", "Ascend950"]
"""


@pytest.fixture()
def tables(tmp_path):
    old, new = tmp_path / "old.toml", tmp_path / "new.toml"
    old.write_text(OLD, encoding="utf-8")
    new.write_text(NEW, encoding="utf-8")
    return old, new


def test_the_catalogue_of_two_small_tables(tables):
    lines = diff(*tables).text().splitlines()
    assert lines[0] == "# old → new: 17 changes, 3 mechanical"
    assert lines[2:] == [
        "             op-removed       incore (no successor found)",
        "[mechanical] op-renamed       tile.maxs: tile.maxs → tile.maximums (same parameters, names 0.67 alike)",
        "             op-added         at: (level)",
        "             kind             exp: tile-only → unified",
        "             result           exp: tile → same",
        "[mechanical] keyword-renamed  exp: tile → input",
        "[mechanical] keyword-renamed  load: valid_shapes → valid_shape",
        "             keyword-added    load: clamp (optional)",
        "             signature        load: (tensor, offsets, shapes, target_memory, valid_shapes) → "
        "(tensor, offsets, shapes, valid_shape, target_memory, clamp) (positions moved: target_memory 3 → 4, valid_shape 4 → 3)",
        "             keyword-removed  move: transpose ((tile, target_memory, transpose) → (tile, target_memory, blayout, slayout))",
        "             keyword-added    move: blayout (optional)",
        "             keyword-added    move: slayout (optional)",
        "             enum             BackendType: CCE, PTO (members gone)",
        "             enum             BackendType: Ascend910B, Ascend950 (members new)",
        "             memory           Bias: 1024 (new)",
        "             memory           Vec: 196608 → 188416",
        "             dtype-size       FP8E8M0: 1 (new)",
    ]


def test_a_successor_the_newer_table_names_wins_over_a_look_alike(tables, tmp_path):
    old, new = tables
    named = tmp_path / "named.toml"
    named.write_text(NEW + '\n[ops."tile.maxs"]\nkind = "removed"\nreplacement = "at"\n', encoding="utf-8")
    renamed = diff(old, named).of("op-renamed")
    # `at` takes other parameters than `tile.maxs`: the rename is listed, not mechanical.
    assert [(c.old, c.new, c.mechanical) for c in renamed] == [("tile.maxs", "at", False)]
    # A different parameter count is never taken for a positional keyword rename.
    assert not [c for c in diff(old, new).of("keyword-renamed") if c.name == "move"]


def test_each_stub_is_a_rule_whose_examples_its_kind_carries_out(tables, tmp_path):
    old, new = tables
    written = write_stubs(diff(old, new), Table(old), tmp_path / "stubs", first_id=950)
    assert [p.name for p in written] == ["PTO950-rename-tile-maxs.toml", "PTO951-keywords-exp.toml",
                                         "PTO952-keywords-load.toml"]
    api = load_api(None, steps()[-1])
    for path in written:
        rule = load_rule(path)
        assert rule.examples and rule.unchanged
        for example in rule.examples:
            assert example.before != example.after
            assert migrate(example.before, (rule,), api, frozenset({rule.id})).output == example.after, path.name
        for code in rule.unchanged:
            assert migrate(code, (rule,), api, frozenset({rule.id})).output == code, path.name
    load = load_rule(written[2])
    assert (load.kind, load.params) == ("keyword-rename", {"ops": ["load"], "renames": {"valid_shapes": "valid_shape"}})
    assert "valid_shape=valid_shapes" in load.examples[0].after


def test_the_shipped_tables_give_the_renames_their_replacements_name(tmp_path):
    rules = default_rules_dir()
    old, new = (rules / "api" / f"pypto-{step}.toml" for step in steps()[-2:])
    cat = diff(old, new)
    mechanical = {(c.area, c.old, c.new) for c in cat.changes if c.mechanical}
    assert {("op-renamed", "maxs", "maximum"), ("op-renamed", "add_scalar", "add"),
            ("keyword-renamed", "valid_shapes", "valid_shape")} <= mechanical
    # getval(tile, offset) → read(x, indices): named by the table, but not the same call.
    assert [c.mechanical for c in cat.of("op-renamed") if c.old == "getval"] == [False]
    api = load_api(None, steps()[-1])
    for path in write_stubs(cat, Table(old), tmp_path):
        rule = load_rule(path)
        assert migrate(rule.examples[0].before, (rule,), api, frozenset({rule.id})).output == rule.examples[0].after


def test_a_measured_table_reads_back_as_a_table(tmp_path):
    measured = {
        "module": "pypto.language", "backend": "CCE", "memory_limits": {"Vec": 196608}, "dtype_bytes": {"FP4": 0.5},
        "namespaces": {"": ["add", "maxs", "tile"], "tile": ["add", "maxs"], "tensor": ["add"]},
        "enums": {"MemorySpace": ["Vec"]},
        "ops": {"add": {"params": ["lhs", "rhs"], "keyword_only": [], "required": 2, "result": "same"},
                "maxs": {"params": ["lhs", "rhs"], "keyword_only": ["mode"], "required": 2, "result": "tile"}},
    }
    path = tmp_path / "measured.toml"
    path.write_text(to_toml(measured, "2026-12-01"), encoding="utf-8")
    table = Table(path)
    assert table.version == "2026-12-01" and table.memory == {"Vec": 196608} and table.dtypes == {"FP4": 0.5}
    assert table.ops["add"]["kind"] == "unified" and table.ops["maxs"]["kind"] == "tile-only"
    assert table.params("maxs") == ["lhs", "rhs", "mode"]
    assert table.live("tile.add") and not table.live("tensor.maxs")
    assert table.enums == {"MemorySpace": ["Vec"]}


def test_the_commands(tables, tmp_path, monkeypatch):
    old, new = tables
    runner = CliRunner()
    done = runner.invoke(main, ["api", "diff", str(old), str(new), "--mechanical", "--stubs", str(tmp_path / "s")])
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines()[0] == "# old → new: 3 changes, 3 mechanical"
    assert "3 rule stubs written to" in done.stderr
    assert sorted(p.name for p in (tmp_path / "s").iterdir())[0] == "PTO900-rename-tile-maxs.toml"
    missing = runner.invoke(main, ["api", "diff", str(old), str(tmp_path / "nothing.toml")])
    assert missing.exit_code == 2
    monkeypatch.chdir(tmp_path)  # a relative path is the caller's, not the child's folder
    relative = runner.invoke(main, ["api", "measure", "--json", "--python", _relative_bare_python()])
    assert relative.exit_code == 2 and "could not read pypto" in relative.stderr, relative.stderr
    no_python = runner.invoke(main, ["api", "measure", "--python", str(tmp_path / "no-python")])
    assert no_python.exit_code == 2 and "no such Python" in no_python.stderr


def test_a_python_without_pypto_is_an_error(tmp_path):
    with pytest.raises(MeasureError, match="could not read pypto: ModuleNotFoundError"):
        probe(sys.executable if _no_pypto() else _bare_python(tmp_path))


def _no_pypto() -> bool:
    import importlib.util

    return importlib.util.find_spec("pypto") is None


def _relative_bare_python() -> str:
    import os
    from pathlib import Path

    os.mkdir("bin")
    return os.path.join("bin", Path(_bare_python(Path("bin"))).name)


def _bare_python(tmp_path) -> str:
    """A Python that cannot import pypto: this one, with its site-packages out of reach."""
    script = tmp_path / "bare"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n", encoding="utf-8")
    script.chmod(0o755)
    return str(script)


# -- both compilers, end to end (CI=true: required) --------------------------------------------

# What docs/versions.md lists as data-only changes from 2026-03 to 2026-08, as the measured
# catalogue must name them (PTO103, PTO104's tensor forms, PTO101, PTO107's wrapper keywords where
# c39's own wrapper had the IR builder's names: its `pl.exp` says `input` already, and its parser
# handed keywords to the builder, which no signature shows).
RENAMES = {"tile.maxs": "tile.maximums", "tile.mins": "tile.minimums",
           "tensor.add_scalar": "tensor.adds", "tensor.sub_scalar": "tensor.subs",
           "tensor.mul_scalar": "tensor.muls", "tensor.div_scalar": "tensor.divs"}
KEYWORDS = {("load", "valid_shapes", "valid_shape"), ("tile.load", "valid_shapes", "valid_shape"),
            ("abs", "tile", "input"), ("sqrt", "tile", "input"), ("rsqrt", "tile", "input"),
            ("row_expand_mul", "row_vec", "rhs"), ("col_expand", "col_vec", "rhs"), ("col_expand", "target", "lhs")}


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    pypto_or_skip()
    folder = tmp_path_factory.mktemp("measured")
    runner = CliRunner()
    paths = []
    for name, python in (("c39", sys.executable), ("head", head_python())):
        done = runner.invoke(main, ["api", "measure", "--python", python, "--version", name])
        assert done.exit_code == 0, done.output
        path = folder / f"{name}.toml"
        path.write_text(done.stdout, encoding="utf-8")
        paths.append(path)
    return paths


def test_measuring_both_compilers_finds_the_mechanical_changes_of_versions_md(measured, tmp_path):
    c39, head = measured
    cat = diff(c39, head)
    renamed = {c.old: c.new for c in cat.of("op-renamed") if c.mechanical}
    assert {k: renamed.get(k) for k in RENAMES} == RENAMES
    keywords = {(c.name, c.old, c.new) for c in cat.of("keyword-renamed") if c.mechanical}
    assert KEYWORDS <= keywords
    assert {"incore", "auto_incore"} <= {c.name for c in cat.of("op-removed")}
    assert ("move", "transpose") in {(c.name, c.old) for c in cat.of("keyword-removed")}  # PTO108: not a rename
    assert [(c.old, c.new) for c in cat.changes if c.area == "memory" and c.name == "Vec"] == [("196608", "188416")]
    assert {c.old for c in cat.of("enum") if c.name == "BackendType"} >= {"CCE, PTO"}
    # Every stub the real catalogue gives is a record the tool loads, its examples carried out.
    api = load_api(None, steps()[-1])
    written = write_stubs(cat, Table(c39), tmp_path / "stubs")
    assert len(written) >= len(RENAMES) + 3
    for path in written:
        rule = load_rule(path)
        assert migrate(rule.examples[0].before, (rule,), api, frozenset({rule.id})).output == rule.examples[0].after


def test_the_measured_tables_agree_with_the_shipped_ones_on_memory(measured):
    for path, step in zip(measured, steps()[-2:]):
        shipped = load_api(None, step).memory_limits
        assert {k: v for k, v in Table(path).memory.items() if k in shipped} == shipped, step

