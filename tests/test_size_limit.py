"""--max-file-size: a file too big to migrate safely is reported and skipped, not a crash."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codemods.text.sources import parse_size, size_text
from conftest import pinned

KERNEL = "import pypto.language as pl\n\n\ndef k(t):\n    return pl.view(t, [4, 4], [0, 0])\n"


def cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codemods", *pinned(args)], cwd=cwd, capture_output=True,
                          text=True, encoding="utf-8")


def test_a_file_over_the_limit_is_skipped_with_its_size_and_the_others_are_done(tmp_path):
    (tmp_path / "small.py").write_text(KERNEL)
    big = KERNEL + "# padding\n" * 300
    (tmp_path / "big.py").write_text(big)
    for command in ("run", "check"):
        done = cli(command, "--max-file-size", "2kB", ".", cwd=tmp_path)
        assert done.returncode == 2  # a file could not be processed
        assert f"big.py:1:1: error: {size_text(len(big))}, over the size limit of 2 kB; skipped, left as it was" in done.stderr
        assert "--max-file-size raises the limit" in done.stderr
    done = cli("run", "--max-file-size", "2kB", ".", cwd=tmp_path)
    assert "+++ b/small.py" in done.stdout and "big.py" not in done.stdout
    raised = cli("run", "--max-file-size", "1MB", ".", cwd=tmp_path)
    assert raised.returncode == 0 and "+++ b/big.py" in raised.stdout


def test_the_default_limit_is_two_megabytes_and_zero_lifts_it(tmp_path):
    (tmp_path / "huge.py").write_text("x = 1\n" * 400_000)  # 2.4 MB of plain Python: quick to check
    assert "over the size limit of 2 MB" in cli("check", ".", cwd=tmp_path).stderr
    assert cli("check", "--max-file-size", "0", ".", cwd=tmp_path).returncode == 0


def test_a_size_that_is_not_one_is_a_usage_error(tmp_path):
    done = cli("check", "--max-file-size", "lots", ".", cwd=tmp_path)
    assert done.returncode == 2 and "'lots' is not a size" in done.stderr


@pytest.mark.parametrize("text,size", [("2MB", 2_000_000), ("500kB", 500_000), ("3m", 3_000_000), ("1.5M", 1_500_000),
                                        ("1048576", 1_048_576), ("0", 0), ("2 MB", 2_000_000)])
def test_sizes_are_read_in_decimal_units(text, size):
    assert parse_size(text) == size
