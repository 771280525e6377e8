"""`measure`: an installed pypto's API, read in its own Python (`probe`), written as an API
table in the TOML format of `codemods/rules/api/pypto-STEP.toml`.

The table says what the compiler's Python surface says: every op with its kind (which of
`pl.tile`/`pl.tensor` has it), its parameters in order, how many are required, its
keyword-only ones, what its annotation says it returns; the names of the namespaces, the
members of the DSL's enums, dtype sizes and memory capacities of the default backend. It is
the raw material of a step's table, never the table itself: roles, result shapes and dtype
rules are a person's reading of the compiler (benchmarks/measure_api.py and
benchmarks/check_api_table.py ask the compiler about those, kernel by kernel).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


class MeasureError(Exception):
    """The compiler's Python could not be asked; the message says why."""


def probe(python: str | None = None, timeout: float = 600) -> dict:
    """What `codemods.maintain.probe` prints, run in `python` (by default this one)."""
    if python and os.sep in python:
        python = os.path.abspath(python)  # the child runs elsewhere; a venv's link is kept, not resolved
    env = dict(os.environ)
    # The package is found behind the child's own path, as the compile bridge does it, so
    # that nothing of ours shadows what pypto imports.
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH"), package_root) if p)
    with tempfile.TemporaryDirectory(prefix="pypto-migrate-measure-") as cwd:  # no module of the caller's cwd shadows pypto
        try:
            done = subprocess.run([python or sys.executable, "-m", "codemods.maintain.probe"], capture_output=True,
                                  text=True, timeout=timeout, cwd=cwd, env=env)
        except FileNotFoundError:
            raise MeasureError(f"{python}: no such Python") from None
        except subprocess.TimeoutExpired:
            raise MeasureError(f"the compiler's Python did not answer within {timeout:g} s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise MeasureError(f"{python or sys.executable} could not read pypto: {last}")
    return json.loads(done.stdout)


def _kind(name: str, namespaces: dict[str, list[str]]) -> str:
    space, _, base = name.rpartition(".")
    if space == "tile":
        return "tile-only"
    if space == "tensor":
        return "tensor-only"
    tile, tensor = base in namespaces.get("tile", ()), base in namespaces.get("tensor", ())
    return "unified" if tile and tensor else "tile-only" if tile else "tensor-only" if tensor else "dsl"


def _value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return repr(value)


def _key(name: str) -> str:
    return name if name.replace("_", "a").replace("-", "a").isalnum() else json.dumps(name)


def _names(values: list[str]) -> list[str]:
    """A long list of names, wrapped as the shipped tables wrap theirs."""
    lines, line = [], "  "
    for value in values:
        piece = _value(value) + ", "
        if len(line) + len(piece) > 100:
            lines.append(line.rstrip())
            line = "  "
        line += piece
    lines.append(line.rstrip())
    return lines


def to_toml(measured: dict, version: str = "") -> str:
    """The measured API as a table `rulebook.loading.load_api` reads (every op a `kind` and
    `params`) with the measured extras beside: `keyword_only`, `[enums]`."""
    out = [
        "# Measured with `pypto-migrate api measure` (codemods/maintain/measure.py) from the pypto at",
        f"# {measured.get('pypto_file', '?')}; memory limits of the {measured.get('backend')} backend.",
        "# Raw material for a step's table: roles, result shapes and dtype rules are not measured here.",
        "",
        f"module = {_value(measured.get('module', 'pypto.language'))}",
        f"version = {_value(version or 'measured')}",
        "",
        "[memory_limits]",
        *(f"{k} = {v}" for k, v in sorted(measured.get("memory_limits", {}).items())),
        "",
        "[dtype_bytes]",
        *(f"{k} = {v}" for k, v in sorted(measured.get("dtype_bytes", {}).items())),
        "",
    ]
    namespaces = measured.get("namespaces", {})
    for name, spec in sorted(measured.get("ops", {}).items()):
        out.append(f"[ops.{_key(name)}]")
        out.append(f"kind = {_value(_kind(name, namespaces))}")
        out.append(f"params = {_value(spec['params'])}")
        out.append(f"required = {spec['required']}")
        if spec.get("keyword_only"):
            out.append(f"keyword_only = {_value(spec['keyword_only'])}")
        if spec.get("result"):
            out.append(f"result = {_value(spec['result'])}")
        out.append("")
    out.append("[namespaces]")
    for space in sorted(namespaces):
        out.append(f"{_value(space)} = [")
        out.extend(_names(namespaces[space]))
        out.append("]")
    out.append("")
    out.append("[enums]")
    for enum, members in sorted(measured.get("enums", {}).items()):
        out.append(f"{enum} = {_value(members)}")
    return "\n".join(out) + "\n"
