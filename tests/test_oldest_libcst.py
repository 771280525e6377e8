"""The oldest LibCST that pyproject.toml allows runs the tests of our uses of its internals.

`syntax/codegen.py` and `syntax/positions.py` read LibCST's code generation closely (its
`_parenthesize`, `add_token`, the state's hooks); a range that admits a LibCST nobody ran them
on is a promise nobody kept. Under CI=true this builds a virtual environment with exactly the
lower bound of `libcst>=` (everything else taken from this environment through a `.pth` file,
so only LibCST is installed) and runs the syntax and engine tests in it: about two minutes.
Elsewhere it skips; `make test` stays as fast as it was.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import ROOT

# The tests that hold our reading of LibCST's internals: the printing classes, each guard
# forced off, the engine end to end, and the output tree against LibCST's own parse.
TESTS = ["tests/test_codegen.py", "tests/test_libcst_fallbacks.py", "tests/test_engine.py", "tests/test_output_tree.py"]


def lower_bound() -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'"libcst>=([0-9][0-9.]*)', text)
    assert found, "pyproject.toml must give LibCST a lower bound"
    return found.group(1)


@pytest.mark.skipif(os.environ.get("CI") != "true", reason="CI=true runs it: it builds a venv with the oldest LibCST")
def test_syntax_and_engine_tests_pass_on_the_oldest_libcst(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    wanted = lower_bound()
    pinned = wanted if wanted.count(".") >= 2 else wanted + ".0"
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", f"libcst=={pinned}"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # This environment's packages (the tool, pytest, hypothesis, ...) after the venv's own:
    # its LibCST is the one imported.
    Path(site, "zz-this-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    version = subprocess.run([str(python), "-c", "import importlib.metadata as m, libcst; print(m.version('libcst'), libcst.__file__)"],
                             capture_output=True, text=True, check=True, cwd=tmp_path).stdout.split()
    assert version[0] == pinned and version[1].startswith(site), version
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning", *TESTS],
                         cwd=ROOT, capture_output=True, text=True, timeout=1800, env=env)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert re.search(r"\d+ passed", run.stdout.splitlines()[-1]) and "failed" not in run.stdout.splitlines()[-1]
