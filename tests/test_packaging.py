"""The wheel carries every subpackage and the rules: `pip install` gives a working tool."""

from __future__ import annotations

import subprocess
import sys
import zipfile

from conftest import ROOT


def test_wheel_has_the_packages_and_the_rules(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("pypto_migrate-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("cli/commands", "migrate/engine", "migrate/planner", "check/strict", "steps/v2026_03/planned", "interp/ops", "interp/verify"):
        assert f"codemods/{module}.py" in names
    source = ROOT / "codemods" / "rules"
    for path in source.glob("*/*.toml"):  # every step's folder, found by the glob: none listed by hand
        assert f"codemods/rules/{path.parent.name}/{path.name}" in names, path
    assert "codemods/rules/api/pypto-2026-03.toml" in names
    assert not any(".data/" in n for n in names)  # nothing under the environment's prefix
