"""The hooks of .pre-commit-hooks.yaml, run for real by `pre-commit try-repo`.

pre-commit installs this checkout into a virtual environment of its own with pip (from PyPI),
as it would for a user, so this test takes about a minute and needs the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, ROOT

GIT = ["git", "-c", "user.name=pypto-migrate tests", "-c", "user.email=tests@pypto-migrate.invalid", "-c", "commit.gpgsign=false"]


def _git_copy_of_this_checkout(target: Path) -> None:
    """try-repo takes a hook file committed at a revision; the files of this checkout as they
    are now (tracked and new, not ignored) are committed in a repository of their own."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    subprocess.run([*GIT, "init", "-q"], cwd=target, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=target, check=True)
    subprocess.run([*GIT, "commit", "-qm", "the checkout under test"], cwd=target, check=True)


def _try_repo(tool: Path, repo: Path, home: Path, *hook: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(tool), *hook, "--all-files"],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=900)


def test_pre_commit_hooks_check_then_migrate(tmp_path):
    tool, repo, home = tmp_path / "tool", tmp_path / "repo", tmp_path / "home"
    tool.mkdir()
    repo.mkdir()
    _git_copy_of_this_checkout(tool)
    shutil.copy(FIXTURES / "2026-03" / "before" / "edge_aliases.py", repo / "kernel.py")
    (repo / "plain.py").write_text("x = 1\n")
    subprocess.run([*GIT, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)

    check = _try_repo(tool, repo, home, "pypto-migrate-check")
    out = check.stdout + check.stderr
    assert check.returncode == 1 and "pypto-migrate check....." in out and "Failed" in out, out
    assert "kernel.py: would be migrated (5 edits)" in out
    assert (repo / "kernel.py").read_text() == (FIXTURES / "2026-03" / "before" / "edge_aliases.py").read_text()

    migrate = _try_repo(tool, repo, home, "pypto-migrate")
    out = migrate.stdout + migrate.stderr
    assert migrate.returncode == 1 and "- hook id: pypto-migrate\n- files were modified by this hook" in out, out
    assert (repo / "kernel.py").read_text() == (FIXTURES / "2026-03" / "after" / "edge_aliases.py").read_text()
    assert (repo / "plain.py").read_text() == "x = 1\n"
