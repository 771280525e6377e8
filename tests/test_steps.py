"""Version steps as units: the kinds register themselves per step package, a step is found by
its folder alone (a third one, made here in a temporary folder, runs end to end without a line
of code outside it), the newest step is the default, and no step is named outside the steps."""

from __future__ import annotations

import ast
import re
import shutil
import sys
import tomllib

import pytest

from codemods.rulebook.loading import load_rules, newest_step, steps
from codemods.steps import registry
from conftest import ROOT, pypto

PACKAGE = ROOT / "codemods"
RULES = load_rules()


def test_every_kind_is_defined_in_common_or_its_rules_step_package():
    for rule in RULES:
        kind = registry.lookup(rule.kind, rule.step)
        home = kind.__module__.split(".")[2]
        assert home in (registry.COMMON, registry.package_of(rule.step)), (rule.id, rule.kind, kind.__module__)


def test_a_kind_defined_twice_is_an_error():
    class One:
        pass

    class Two:
        pass

    registry.kind("test-only-kind")(One)
    try:
        registry.kind("test-only-kind")(One)  # the same class again (a module imported twice) is fine
        with pytest.raises(RuntimeError, match="test-only-kind.*defined twice"):
            registry.kind("test-only-kind")(Two)
    finally:
        dict.pop(registry.KINDS, "test-only-kind")


def test_a_run_to_the_first_step_imports_no_later_steps_code(tmp_path):
    first = steps()[0]
    probe = (
        "import sys\n"
        "from codemods.rulebook.loading import load_rules\n"
        "from codemods.steps.registry import lookup\n"
        f"for r in load_rules(through={first!r}):\n"
        "    lookup(r.kind, r.step)\n"
        "print(sorted({m.split('.')[2] for m in sys.modules if m.startswith('codemods.steps.') and m.count('.') > 2}))\n"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.strip() == str(sorted({registry.COMMON, registry.package_of(first)}))


def test_the_newest_step_is_the_default_target(tmp_path):
    (tmp_path / "k.py").write_text("import pypto.language as pl\n\nx = pl.view(t, [4, 4], [0, 0])\n", encoding="utf-8")
    default = pypto("run", "--format", "json", "k.py", cwd=tmp_path, pin=False)
    pinned = pypto("run", "--format", "json", "--target", newest_step(), "k.py", cwd=tmp_path)
    assert default.stdout == pinned.stdout
    assert f"else the newest ({newest_step()})" in " ".join(pypto("run", "--help", cwd=tmp_path).stdout.split())


def _string_literals(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_step_is_named_outside_the_steps_and_their_data():
    """The CLI's choices, the default, the interpreter's meanings and the compile worker take
    the steps from the registry: a step's name is written only in its own package and data."""
    named = re.compile("|".join(re.escape(s) for s in steps()))
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(PACKAGE / "steps") and path.parent != PACKAGE / "steps":
            continue  # a step's own package
        found += [f"{path.relative_to(ROOT)}:{line}: {text!r}" for line, text in _string_literals(path) if named.search(text)]
    assert not found, "\n".join(found)


def _third_step(rules):
    """A step after the newest, in a copy of the rules folder: its API table (what changed,
    over the newest's) and one rule record of a common kind. No Python."""
    newest = newest_step(rules)
    step = f"{int(newest[:4]) + 1}-01"
    base = tomllib.loads((rules / "api" / f"pypto-{newest}.toml").read_text(encoding="utf-8"))
    top = [n for n in base["namespaces"][""] if n != "rsqrt"] + ["reciprocal_sqrt"]
    names = ", ".join(f'"{n}"' for n in sorted(top))
    (rules / "api" / f"pypto-{step}.toml").write_text(
        f'base = "pypto-{newest}.toml"\nversion = "{step}-15"\n\n'
        '[ops.rsqrt]\nkind = "removed"\nreplacement = "reciprocal_sqrt"\n\n'
        '[ops.reciprocal_sqrt]\nkind = "unified"\nroles = { x = "value" }\nresult = "same"\n\n'
        f'[namespaces]\n"" = [{names}]\n', encoding="utf-8")
    (rules / step).mkdir()
    (rules / step / "PTO990-rsqrt-renamed.toml").write_text('''id = "PTO990"
name = "rsqrt-renamed"
summary = "pl.rsqrt is pl.reciprocal_sqrt"
why = "A test's own step: the op was renamed."
safety = "safe"
what = "`pl.rsqrt` → `pl.reciprocal_sqrt`"
kind = "op-rename"

[params]
renames = { rsqrt = "reciprocal_sqrt" }

[[example]]
before = """
import pypto.language as pl

y = pl.rsqrt(x)
"""
after = """
import pypto.language as pl

y = pl.reciprocal_sqrt(x)
"""
''', encoding="utf-8")
    return step


KERNEL = """import pypto.language as pl


@pl.function
def k(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.rsqrt(x)
    return y
"""


def test_a_third_step_made_of_data_runs_end_to_end(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(PACKAGE / "rules", rules)
    newest = newest_step()
    step = _third_step(rules)
    work = tmp_path / "work"
    work.mkdir()
    (work / "k.py").write_text(KERNEL, encoding="utf-8")
    env = {"PYPTO_MIGRATE_RULES": str(rules)}

    listed = " ".join(pypto("run", "--help", cwd=work, env=env).stdout.split())
    assert f"else the newest ({step})" in listed
    assert f"Step: {step}" in pypto("rules", "PTO990", cwd=work, env=env).stdout

    ran = pypto("run", "--write", "k.py", cwd=work, env=env, pin=False)  # no --target: the new step is the newest
    assert ran.returncode == 0, ran.stderr
    assert (work / "k.py").read_text(encoding="utf-8") == KERNEL.replace("pl.rsqrt(", "pl.reciprocal_sqrt(")
    again = pypto("run", "k.py", cwd=work, env=env, pin=False)
    assert again.stdout == ""  # code already at the step is left as it is

    (work / "k.py").write_text(KERNEL, encoding="utf-8")
    pinned = pypto("run", "--target", newest, "k.py", cwd=work, env=env)
    assert pinned.stdout == ""  # pinned to the step before: rsqrt is still right there
    older = pypto("run", "--target", newest, "--format", "json", "k.py", cwd=work, env=env)
    assert "reciprocal_sqrt" not in older.stdout

    new = KERNEL.replace("pl.rsqrt(", "pl.reciprocal_sqrt(")
    (work / "k.py").write_text(new, encoding="utf-8")
    flagged = pypto("run", "--target", newest, "k.py", cwd=work, env=env)
    # code written for the new step, at a pinned older target: told to target it, not to rewrite it
    assert f"run with --target {step}" in flagged.stderr and "replace it by hand" not in flagged.stderr


def test_the_default_never_moves_a_later_library_back(tmp_path):
    """pypto-lib as of 2026-05-25 (written with pl.at, pl.split, ...), with no flags: no marker
    tells its user to remove newer API, and no more review than --target of the newest."""
    from needs import CORPUS, corpus_or_skip

    corpus_or_skip()
    library = CORPUS / "pypto-lib" / "2026-05-25"
    default = pypto("run", "--no-cache", "--format", "json", library, cwd=tmp_path, pin=False)
    newest = pypto("run", "--no-cache", "--format", "json", "--target", newest_step(), library, cwd=tmp_path)
    import json

    a, b = json.loads(default.stdout), json.loads(newest.stdout)
    assert a["summary"] == b["summary"]
    messages = [f["message"] for f in a["findings"]]
    assert not [m for m in messages if "replace it by hand" in m and "does not exist" in m]
    pinned = json.loads(pypto("run", "--no-cache", "--format", "json", "--target", steps()[0], library, cwd=tmp_path).stdout)
    later = [f["message"] for f in pinned["findings"] if "written for a later pypto" in f["message"]]
    assert later and not [f for f in pinned["findings"] if "pl.at does not exist" in f["message"]]
