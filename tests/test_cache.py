"""The results cache, through the real command line: same output warm or cold, kept at the
project root and ignored by git, a changed file done again alone, `cache clean`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemods.run.cache import ENV, FOLDER
from conftest import FIXTURES, pinned

KERNEL = "import pypto.language as pl\n\n\ndef k(t):\n    return pl.view(t, [4, 4], [0, 0])\n"


def cli(*args, cwd: Path, cache: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if cache is not None:
        env[ENV] = str(cache)
    return subprocess.run([sys.executable, "-m", "codemods", *pinned(args)], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8")


@pytest.fixture
def project(tmp_path):
    """A git repository with a pyproject.toml, kernels, plain Python and files that fail."""
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "2026-03" / "before", root / "models")
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (root / "models" / "plain.py").write_text("x = 1\n")
    (root / "models" / "syntax.py").write_text("def f(:\n    pass\n")
    (root / "models" / "latin1.py").write_bytes(b"s = '\xe9'\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json"))


def test_warm_runs_say_exactly_what_cold_runs_and_uncached_runs_say(project, tmp_path):
    cache = tmp_path / "cache"
    for command in (["run", "--jobs", "1"], ["run", "--jobs", "2"], ["check", "--jobs", "1"],
                    ["check", "--format", "json", "--jobs", "1"], ["check", "--format", "github", "--jobs", "2"]):
        shutil.rmtree(cache, ignore_errors=True)
        cold = cli(*command, "models", cwd=project, cache=cache)
        warm = cli(*command, "models", cwd=project, cache=cache)
        uncached = cli(*command, "--no-cache", "models", cwd=project, cache=tmp_path / "unused")
        assert cold.returncode == warm.returncode == uncached.returncode == 2  # two files cannot be processed
        assert cold.stdout == warm.stdout == uncached.stdout
        assert cold.stderr == warm.stderr == uncached.stderr
        if "--format" not in command:
            assert "models/syntax.py:1:7:" in warm.stderr and "models/latin1.py:1:6: error: not UTF-8" in warm.stderr
    kernels = len(list((FIXTURES / "2026-03" / "before").glob("*.py")))
    assert len(entries(cache)) == kernels + 2  # each file read as text (plain.py and syntax.py too; not latin1.py)
    assert not (tmp_path / "unused").exists(), "--no-cache writes nothing"


def test_the_cache_is_at_the_project_root_and_git_ignores_it(project):
    sub = project / "models"
    done = cli("check", ".", cwd=sub)  # no PYPTO_MIGRATE_CACHE_DIR: the project's own folder
    assert done.returncode == 2  # two of its files cannot be processed
    folder = project / FOLDER
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert entries(folder)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=project,
                            capture_output=True, text=True, check=True).stdout
    assert FOLDER not in status and "models/plain.py" in status


def test_a_changed_file_is_done_again_alone(project, tmp_path):
    cache = tmp_path / "cache"
    first = cli("run", "models", cwd=project, cache=cache)
    before = entries(cache)
    kernel = project / "models" / "edge_regions.py"
    kernel.write_text(kernel.read_text().replace("pl.view(", "pl.slice(", 1))
    shutil.copy(project / "models" / "plain.py", project / "models" / "plain_copy.py")  # same content, new path
    second = cli("run", "models", cwd=project, cache=cache)
    assert len(entries(cache)) == len(before) + 1, "only the edited file was migrated again"
    assert second.stdout != first.stdout and second.stdout == cli("run", "--no-cache", "models", cwd=project).stdout


def test_other_rules_are_another_cache(project, tmp_path):
    cache = tmp_path / "cache"
    cli("check", "models", cwd=project, cache=cache)
    narrowed = cli("check", "--select", "PTO001", "models", cwd=project, cache=cache)
    assert len([p for p in cache.iterdir() if p.is_dir()]) == 2
    assert narrowed.stderr == cli("check", "--no-cache", "--select", "PTO001", "models", cwd=project).stderr


def test_a_damaged_entry_is_done_again(project, tmp_path):
    cache = tmp_path / "cache"
    cold = cli("run", "models", cwd=project, cache=cache)
    for i, entry in enumerate(entries(cache)):
        entry.write_text("{not json" if i % 2 else json.dumps({"output": 3}))
    again = cli("run", "models", cwd=project, cache=cache)
    assert (again.stdout, again.stderr) == (cold.stdout, cold.stderr)


def test_a_cache_that_cannot_be_written_is_not_used(project, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = cli("run", "models", cwd=project, cache=blocker / "cache")
    assert done.returncode == 2 and "internal error" not in done.stderr
    assert done.stdout == cli("run", "--no-cache", "models", cwd=project).stdout


def test_write_from_the_cache_writes_the_migration(project, tmp_path):
    cache = tmp_path / "cache"
    kernel = project / "models" / "k.py"
    kernel.write_text(KERNEL)
    cli("run", "models", cwd=project, cache=cache)
    cli("run", "--write", "models", cwd=project, cache=cache)
    assert "pl.slice(t, [4, 4], [0, 0])" in kernel.read_text()
    assert cli("check", "models/k.py", cwd=project, cache=cache).returncode == 0


def test_cache_clean_removes_the_projects_cache(project):
    cli("check", "models", cwd=project)
    assert (project / FOLDER).is_dir()
    done = cli("cache", "clean", cwd=project / "models")
    assert done.returncode == 0 and "removed" in done.stderr and str(project / FOLDER) in done.stderr
    assert not (project / FOLDER).exists()
    again = cli("cache", "clean", cwd=project)
    assert again.returncode == 0 and "no cache" in again.stderr


def test_cache_clean_refuses_a_folder_that_is_not_a_cache(tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("...")
    done = cli("cache", "clean", cwd=tmp_path, cache=precious)
    assert done.returncode == 2 and "does not look like a pypto-migrate cache" in done.stderr
    assert (precious / "thesis.tex").exists()
