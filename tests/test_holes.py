"""The holes a hostile user found (issue 8), each closed, through a real process."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, pypto

KERNEL = "import pypto.language as pl\n\n\ndef k(t):\n    return pl.view(t, [4, 4], [0, 0])\n"
MIGRATED = KERNEL.replace("pl.view(", "pl.slice(")


def test_diff_file_that_is_an_input_is_refused(tmp_path):
    (tmp_path / "k.py").write_text(KERNEL)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.py").write_text(KERNEL)
    same = pypto("run", "--diff-file", "k.py", "k.py", cwd=tmp_path)
    assert same.returncode == 2 and "--diff-file: k.py is one of the files to migrate" in same.stderr
    inside = pypto("run", "--write", "--diff-file", "models/new.py", "models", cwd=tmp_path)
    assert inside.returncode == 2 and "is inside models, which is being migrated" in inside.stderr
    assert (tmp_path / "k.py").read_text() == KERNEL and (tmp_path / "models" / "m.py").read_text() == KERNEL
    assert not (tmp_path / "models" / "new.py").exists(), "nothing written"
    # An already migrated file named as its own diff file is not truncated either.
    (tmp_path / "done.py").write_text(MIGRATED)
    assert pypto("run", "--diff-file", "./done.py", str(tmp_path / "done.py"), cwd=tmp_path).returncode == 2
    assert (tmp_path / "done.py").read_text() == MIGRATED
    # A patch beside the kernels is no input: it is written.
    beside = pypto("run", "--diff-file", "models/fix.patch", "models", cwd=tmp_path)
    assert beside.returncode == 0 and (tmp_path / "models" / "fix.patch").read_text() == beside.stdout


def test_diff_file_in_a_missing_folder_fails_before_anything_is_written(tmp_path):
    (tmp_path / "w.py").write_text(KERNEL)
    result = pypto("run", "--write", "--diff-file", tmp_path / "nowhere" / "d.patch", "w.py", cwd=tmp_path)
    assert result.returncode == 2 and "cannot create" in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "w.py").read_text() == KERNEL


def test_diff_file_is_written_with_write(tmp_path):
    (tmp_path / "w.py").write_text(KERNEL)
    result = pypto("run", "--write", "--diff-file", "d.patch", "w.py", cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "w.py").read_text() == MIGRATED
    assert (tmp_path / "d.patch").read_text().startswith("--- a/w.py\n+++ b/w.py\n")


@pytest.mark.parametrize("command", [["run"], ["run", "--write"], ["check"], ["report"]])
def test_loops_pipes_and_broken_links_in_a_folder_are_skipped_and_named_ones_are_errors(tmp_path, command):
    models = tmp_path / "models"
    models.mkdir()
    (models / "a.py").write_text(KERNEL)
    os.symlink("loop.py", models / "loop.py")
    os.symlink("missing.py", models / "broken.py")
    os.mkfifo(models / "pipe.py")
    os.symlink("loop2.py", tmp_path / "loop2.py")
    os.mkfifo(tmp_path / "named_pipe.py")
    result = pypto(*command, "models", "loop2.py", "named_pipe.py", cwd=tmp_path)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    for line in ("models/loop.py: skipped: symlink loop", "models/broken.py: skipped: broken symlink",
                 "models/pipe.py: skipped: not a regular file (a named pipe)"):
        assert line in result.stderr, result.stderr
    # Asked for by name, yet nothing to read: an error naming it (issue 29.3), never opened.
    for line in ("loop2.py:1:1: error: symlink loop: named on the command line, but there is no file to read",
                 "named_pipe.py:1:1: error: not a regular file (a named pipe): named on the command line"):
        assert line in result.stderr, result.stderr
    if command == ["run", "--write"]:
        assert (models / "a.py").read_text() == MIGRATED, "the other files are processed"
    assert result.returncode == 2


@pytest.mark.parametrize("command", ["check", "run", "report"])
def test_a_broken_symlink_named_on_the_command_line_is_an_error_and_the_others_are_processed(tmp_path, command):
    (tmp_path / "k.py").write_text(KERNEL)
    os.symlink("missing.py", tmp_path / "broken.py")
    result = pypto(command, "broken.py", "k.py", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "broken.py:1:1: error: broken symlink: named on the command line, but there is no file to read" in result.stderr
    if command == "check":
        assert "k.py: would be migrated (1 edit)" in result.stderr
    if command == "run":
        assert "+++ b/k.py" in result.stdout
    if command == "report":
        assert "note: no kernel in the 1 file read" in result.stderr  # k.py was read


def test_a_device_named_on_the_command_line_is_never_read(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero.py")  # a read would never end
    result = pypto("check", "zero.py", cwd=tmp_path)
    assert "zero.py:1:1: error: not a regular file (a character device)" in result.stderr
    assert result.returncode == 2


def test_write_goes_through_a_symlink(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "k.py"
    target.write_text(KERNEL)
    target.chmod(0o640)
    os.symlink("real/k.py", tmp_path / "link.py")
    result = pypto("run", "--write", "link.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "link.py").is_symlink() and os.readlink(tmp_path / "link.py") == "real/k.py"
    assert target.read_text() == MIGRATED and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert not [p for p in tmp_path.rglob("*") if "pypto-migrate" in p.name], "no temporary file left"


def test_the_same_file_named_twice_is_processed_once(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "a.py").write_text(KERNEL)
    os.symlink("models/a.py", tmp_path / "alias.py")
    result = pypto("run", "models/a.py", tmp_path / "models" / "a.py", "models", "alias.py", "./models/a.py", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.count("--- a/") == 1 and result.stdout.startswith("--- a/models/a.py\n")
    assert "1 file would be migrated, 1 edit" in result.stderr


@pytest.fixture
def stranger_dir():
    """A folder outside pytest's private tmp (0700), so that another user can reach it."""
    folder = Path(tempfile.mkdtemp(prefix="pypto-migrate-test-"))
    folder.chmod(0o755)
    yield folder
    for p in folder.rglob("*"):
        if p.is_dir():
            p.chmod(0o755)
    shutil.rmtree(folder)


def _as_nobody():
    """Run without root's power to write anywhere: for root every folder is writable.

    Root keeps its identity, so it can still read a checkout only root can read (root's home,
    `mktemp -d`), but gives up the capabilities that override file permissions. Where the
    bounding set cannot be changed (no setpriv, or no CAP_SETPCAP in a container), the run
    is made as nobody instead, which works when nobody can read the checkout."""
    if os.geteuid() != 0:
        return []
    import subprocess
    import sys

    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root, and no setpriv to drop the capabilities that override file permissions with")
    tries = ([setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"],
             [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for prefix in tries:
        probe = subprocess.run([*prefix, sys.executable, "-c", "import codemods"], env=env, capture_output=True, timeout=60)
        if probe.returncode == 0:
            return prefix
    pytest.skip("root, and neither dropping capabilities (setpriv --bounding-set) works here nor can nobody "
                f"read the checkout at {ROOT}")


def test_a_read_only_folder_is_a_plain_error(stranger_dir):
    import subprocess
    import sys

    ro = stranger_dir / "ro"
    ro.mkdir()
    (ro / "k.py").write_text(KERNEL)
    (ro / "k.py").chmod(0o666)  # the file may be written, its folder may not: no rename into it
    ro.chmod(0o555)
    (stranger_dir / "ok").mkdir(mode=0o777)
    (stranger_dir / "ok" / "k.py").write_text(KERNEL)
    (stranger_dir / "ok" / "k.py").chmod(0o666)
    (stranger_dir / "ok").chmod(0o777)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([*_as_nobody(), sys.executable, "-m", "codemods", "run", "--write", "ro", "ok"],
                            cwd=stranger_dir, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2  # could not process a file
    assert "ro/k.py:1:1: error: cannot write: permission denied: its folder is read-only to this user; left as it was" in result.stderr
    assert "internal error" not in result.stderr
    assert (ro / "k.py").read_text() == KERNEL and (stranger_dir / "ok" / "k.py").read_text() == MIGRATED
