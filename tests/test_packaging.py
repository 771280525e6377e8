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
    for module in ("cli/commands", "migrate/engine", "migrate/planner", "check/strict", "migrate/transforms/planned", "interp/ops", "interp/verify"):
        assert f"codemods/{module}.py" in names
    data = "pypto_migrate-0.1.0.data/data/share/pypto-migrate/rules"
    shipped = {n.rsplit("/", 1)[1] for n in names if n.startswith(data)}
    assert {p.name for p in (ROOT / "rules").glob("*/PTO*.toml")} <= shipped
    assert "pypto-2026-03.toml" in shipped
