"""`--compile` as a pip user runs it (issue 29.1): the tool's wheel installed, not editable, in a
fresh environment of its own, the compiler in another, the commands run from a folder outside
the checkout. An editable install or the checkout on the path would hide what a wheel lacks
(before 84120fd the rules lay under sys.prefix, which in the compile worker is the compiler's
environment: every file was an internal error there).

The two environments are made once per test session, from the local wheels and pip's
configured index; they take about a minute on the shared machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT
from needs import head_python, missing

ORACLE = ROOT.parent / "shared" / "oracle"
KERNEL = FIXTURES / "2026-03" / "before" / "idiom_tile_ops.py"  # small; both compilers accept its migration, no marker


def _pip(python: Path, *args: str) -> None:
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-compile", *args],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]


def _venv(folder: Path) -> Path:
    # From the base interpreter, so that nothing of the test's own environment shows through.
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(folder)], check=True, capture_output=True, timeout=300)
    return folder / "bin" / "python"


@pytest.fixture(scope="session")
def environments(tmp_path_factory) -> tuple[Path, Path]:
    """(the tool's venv, the 2026-03 compiler's Python): the wheel built from a copy of the
    sources (nothing written into the checkout), each installed into a venv of its own."""
    wheels = sorted(ORACLE.glob("pypto-*.whl"))
    if not wheels:
        missing(f"no pypto wheel in {ORACLE}")
    root = tmp_path_factory.mktemp("pip-install")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "codemods", source / "codemods", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(root / "dist"),
                            str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (root / "dist").glob("pypto_migrate-*.whl")
    tool, compiler = _venv(root / "tool"), _venv(root / "compiler")
    # The two installs are independent: side by side they take the time of the longer one.
    jobs = [subprocess.Popen([str(python), "-m", "pip", "install", "--quiet", "--no-compile", str(what)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_clean())
            for python, what in ((tool, wheel), (compiler, wheels[0]))]
    for job in jobs:
        _, err = job.communicate(timeout=900)
        assert job.returncode == 0, err[-3000:]
    return root / "tool", compiler


def _clean() -> dict:
    """The environment without what would put another copy of the tool or another pypto first:
    what runs must be the installed wheel and the named compiler alone."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYPTO_PYTHON", "VIRTUAL_ENV")}


def _tool(venv: Path, *args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / "pypto-migrate"), *map(str, args), "--no-cache"], cwd=cwd,
                          env={**_clean(), **(env or {})}, capture_output=True, text=True, timeout=600)


@pytest.fixture
def outside(tmp_path) -> Path:
    folder = tmp_path / "elsewhere"  # not under the checkout: nothing of it on the path
    folder.mkdir()
    shutil.copy2(KERNEL, folder / "k.py")
    assert ROOT not in folder.parents
    return folder


def test_the_wheel_is_installed_as_a_wheel_apart_from_the_compiler(environments):
    tool, compiler = environments
    where = subprocess.run([str(tool / "bin" / "python"), "-c", "import codemods; print(codemods.__file__)"],
                           capture_output=True, text=True, cwd=tool, check=True, env=_clean()).stdout
    assert "site-packages" in where and str(ROOT) not in where
    lacks = subprocess.run([str(compiler), "-c", "import codemods"], capture_output=True, text=True, cwd=tool, env=_clean())
    assert lacks.returncode != 0, "the compiler's environment must not have the tool"


@pytest.mark.parametrize("how", ["env", "option"])
def test_check_and_run_write_compile_passes_from_a_pip_install(environments, outside, how):
    tool, compiler = environments
    given = ({"env": {"PYPTO_PYTHON": str(compiler)}, "args": ()} if how == "env"
             else {"env": {}, "args": ("--compiler-python", compiler)})
    before = (outside / "k.py").read_text()

    def run(*command):
        return _tool(tool, *command, "--target", "2026-03", "--compile=passes", *given["args"], "k.py",
                     cwd=outside, env=given["env"])

    checked = run("check")
    assert checked.returncode == 1, checked.stderr  # it would change: the CI gate fails
    assert "internal error" not in checked.stderr and "error COMPILE" not in checked.stderr
    assert "1 file would be migrated" in checked.stderr and "1 file compiled, 0 compile errors" in checked.stderr
    written = run("run", "--write")
    assert written.returncode == 0, written.stderr
    assert "1 file migrated" in written.stderr and "1 file compiled, 0 compile errors" in written.stderr
    after = (outside / "k.py").read_text()
    assert after != before and "pl.load(" in after
    again = run("check")
    assert again.returncode == 0, again.stderr
    assert "0 files would be migrated, 0 edits, 0 need review; 1 file compiled, 0 compile errors" in again.stderr


def test_target_2026_08_with_the_newest_compiler_from_a_pip_install(environments, outside):
    tool, _ = environments
    head = head_python()
    args = ("--target", "2026-08", "--compile=passes", "--compiler-python", head, "k.py")
    checked = _tool(tool, "check", *args, cwd=outside)
    assert checked.returncode == 1, checked.stderr
    assert "internal error" not in checked.stderr and "1 file compiled, 0 compile errors" in checked.stderr
    written = _tool(tool, "run", "--write", *args, cwd=outside)
    assert written.returncode == 0, written.stderr
    assert "1 file migrated" in written.stderr and "pl.load(" in (outside / "k.py").read_text()
    again = _tool(tool, "check", *args, cwd=outside)
    assert again.returncode == 0, again.stderr
