"""`check --compile` and `run --compile` through real subprocesses, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, pinned
from needs import pypto_or_skip

# Migration turns the view into a slice; the compiler then rejects the add of two tiles of
# different shapes, which the tool's own checks do not model.
GATE = '''\
import pypto.language as pl


def build_gate_program():
    @pl.program
    class Gate:
        @pl.function
        def gate(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            head = pl.view(x, [8, 16], [0, 0])
            with pl.incore():
                t = pl.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vec)
                u = pl.load(head, [0, 0], [8, 16], target_memory=pl.MemorySpace.Vec)
{marker}                v = pl.add(t, u)
                out = pl.store(v, [0, 0], out)
            return out

    return Gate
'''


def cli(*args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemods", *pinned(args)], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600)


@pytest.fixture
def gate(tmp_path):
    pypto_or_skip()
    path = tmp_path / "gate.py"
    path.write_text(GATE.format(marker=""))
    return path


def test_check_compile_reports_the_rejection_in_the_tools_format_and_fails(gate):
    done = cli("check", "--compile", gate.name, cwd=gate.parent)
    line = GATE.format(marker="").splitlines().index("                v = pl.add(t, u)") + 1
    assert done.returncode == 1
    assert f"gate.py:{line}:21: error COMPILE: Error in tile operation 'add': The operator tile.add requires compatible shapes" in done.stderr
    assert "1 compile error" in done.stderr and "Traceback" not in done.stderr


def test_compile_with_no_value_before_the_paths_takes_them_as_paths(gate):
    before = cli("check", "--compile", gate.name, cwd=gate.parent)
    after = cli("check", gate.name, "--compile=parse", cwd=gate.parent)
    assert before.returncode == after.returncode == 1
    assert "error COMPILE" in before.stderr and "error COMPILE" in after.stderr


def test_run_write_compile_does_not_write_what_the_compiler_rejects(gate):
    done = cli("run", "--write", "--compile", gate.name, cwd=gate.parent)
    assert done.returncode == 1
    assert "not written: the compiler rejects the migration" in done.stderr
    assert gate.read_text() == GATE.format(marker=""), "the file is left as it was"
    assert "0 files migrated (1 not written, as said above)" in done.stderr  # not counted as migrated


def test_run_write_compile_writes_when_every_rejection_is_under_a_review_marker(gate):
    marked = GATE.format(marker="                # pypto-migrate: review PTO013: decide the shapes\n")
    gate.write_text(marked)
    done = cli("run", "--write", "--compile", gate.name, cwd=gate.parent)
    assert "error COMPILE" in done.stderr and "not written" not in done.stderr
    assert "pl.slice(x, [8, 16], [0, 0])" in gate.read_text()


def test_run_compile_without_write_leaves_the_file_and_shows_the_diff(gate):
    done = cli("run", "--compile=parse", gate.name, cwd=gate.parent)
    assert done.returncode == 1 and "+            head = pl.slice(" in done.stdout
    assert gate.read_text() == GATE.format(marker="")


def test_passes_prints_the_compilers_memory_beside_the_tools(tmp_path):
    pypto_or_skip()
    done = cli("check", "--compile=passes", FIXTURES / "2026-03" / "after" / "edge_capacity.py", cwd=tmp_path)
    assert "compiler memory report beside the tool's capacity figures" in done.stderr
    assert "q_projection: kernel 1 (line 29) = q_projection_incore_0" in done.stderr
    assert "OVER (tool, compiler)" in done.stderr  # its Right operand is 128 KB of 64 KB, as both see it


def test_an_unchanged_clean_file_compiles_clean_and_check_passes(tmp_path):
    pypto_or_skip()
    done = cli("check", "--compile=passes", FIXTURES / "2026-03" / "after" / "edge_regions.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "edge_regions_incore_1" in done.stderr and "0 compile errors" in done.stderr


def test_without_pypto_one_clear_message_and_exit_2(tmp_path):
    fake = tmp_path / "shadow" / "pypto"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no pypto in this environment')\n")
    (tmp_path / "k.py").write_text("x = 1\n")
    env = dict(os.environ, PYTHONPATH=str(fake.parent))
    done = cli("check", "--compile", "k.py", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert "--compile needs the pypto compiler" in done.stderr and "pip install" in done.stderr
    # The usual way out is another Python (the two compilers cannot share one): both names of it are said.
    assert "--compiler-python" in done.stderr and "PYPTO_PYTHON" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") <= 2
    assert cli("check", "k.py", cwd=tmp_path, env=env).returncode == 0, "without --compile nothing needs pypto"


def test_help_says_the_module_is_imported(tmp_path):
    for command in ("run", "check"):
        text = " ".join(cli(command, "--help", cwd=tmp_path).stdout.split())
        assert "--compile" in text and "IMPORTS each kernel module, so its module-level code runs" in text


def test_an_unknown_stage_is_a_usage_error(tmp_path):
    (tmp_path / "k.py").write_text("x = 1\n")
    done = cli("check", "--compile=everything", "k.py", cwd=tmp_path)
    assert done.returncode == 2 and "not one of parse, passes" in done.stderr


def _python_whose_worker_fails(tmp_path: Path, failure: str) -> Path:
    """A compiler Python that answers the probe as the real one does, but whose compile worker
    raises `failure` on gate.py (as it raised RuleFileError from a pip install, issue 29.1)."""
    script = tmp_path / "bin" / "python"
    script.parent.mkdir()
    code = ("import sys, codemods.compiler.worker as w\n"
            "real = w.compile_file\n"
            "def broken(request):\n"
            "    if request[\"path\"].endswith(\"gate.py\"): raise " + failure + "\n"
            "    return real(request)\n"
            "w.compile_file = broken\n"
            "sys.exit(w.main())\n")
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -c '{code}'\n")
    script.chmod(0o755)
    return script


def test_an_internal_error_of_the_compile_worker_exits_2_names_the_file_and_writes_nothing(tmp_path):
    pypto_or_skip()
    python = _python_whose_worker_fails(tmp_path, "RuntimeError(\"no API table for step 2026-03\")")
    work = tmp_path / "work"
    work.mkdir()
    broken, fine = work / "gate.py", work / "plain.py"
    broken.write_text(GATE.format(marker=""))
    fine.write_text("import os\n")
    for command in (("check",), ("run",), ("run", "--write")):
        done = cli(*command, "--compile=passes", "--compiler-python", python, "gate.py", "plain.py", cwd=work)
        assert done.returncode == 2, (command, done.stderr)
        assert ("gate.py:1:1: error: internal error of pypto-migrate's compile worker "
                "(RuntimeError: no API table for step 2026-03)") in done.stderr
        assert "COMPILE" not in done.stderr and "Traceback" not in done.stderr
        assert "1 could not be processed" in done.stderr
    assert broken.read_text() == GATE.format(marker=""), "a file the worker failed on is never written"


def test_a_compiler_python_that_cannot_answer_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "k.py").write_text("x = 1\n")
    done = cli("check", "--compile", "--compiler-python", "/bin/false", "k.py", cwd=tmp_path)
    assert done.returncode == 2
    assert "error: --compile needs the pypto compiler, which /bin/false cannot import" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") <= 2
