"""`[tool.pypto-migrate]` in pyproject.toml: the project's own defaults, under the command line.

The first pyproject.toml holding the table, walking up from the folder the given paths have
in common (from `--stdin-filename`'s folder for stdin), is the configuration, as Ruff finds
its own. Keys:

    select = ["PTO001", "view-to-slice"]   # rule ids or names; --select replaces it
    ignore = ["PTO014"]                     # --ignore replaces it
    exclude = ["generated", "legacy/*.py"]  # fnmatch patterns, skipped while walking folders
    set = {BATCH = 8, HIDDEN = 64}          # sizes for verify, run --verify, --compile
    input = {seq_lens = "4:16"}             # input bounds LOW:HIGH for verify
    target = "2026-08"                      # the pypto version to migrate to; --target replaces it
    compiler-python = "../venv-head/bin/python"  # the Python --compile runs pypto in (relative: to this file)

`set` and `input` are project-wide, so each applies only to the files that have that name,
under a file's own `# pypto-migrate: verify` line; --set/--input win over both.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

TABLE = "pypto-migrate"
KEYS = ("select", "ignore", "exclude", "set", "input", "target", "compiler-python")


class ConfigError(Exception):
    """A configuration that cannot be used; the message starts with the file's path."""


@dataclass(frozen=True)
class Config:
    """The `[tool.pypto-migrate]` table of a project, as the command line reads it."""

    path: Path | None = None  # the pyproject.toml it came from; None: no configuration
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    sets: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, tuple[float, float]] = field(default_factory=dict)
    target: str = ""  # a version step (`2026-08`); "": the tool's default
    compiler_python: str | None = None  # absolute, or as written when it is a bare command name

    def excluded(self, file: Path) -> bool:
        """Whether a pattern matches the file's path below the config's folder, or any of its
        folders there, or its name or a folder's name."""
        if not self.exclude or self.path is None:
            return False
        try:
            parts = Path(os.path.abspath(file)).relative_to(Path(os.path.abspath(self.path.parent))).parts
        except ValueError:
            parts = (Path(file).name,)
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        return any(fnmatch.fnmatchcase(text, pattern) for pattern in self.exclude for text in (*prefixes, *parts))

    def where(self, key: str) -> str:
        return f"{self.path}: [tool.{TABLE}] {key}"


def find(paths: list[Path], start: Path | None = None) -> Config:
    """The configuration that governs `paths` (or the folder `start`), or an empty one."""
    folder = start or _common_folder(paths)
    for candidate in (folder, *folder.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            table = _table(pyproject)
            if table is not None:
                return parse(table, pyproject)
    return Config()


def _common_folder(paths: list[Path]) -> Path:
    folders = [Path(os.path.abspath(p)) if Path(p).is_dir() else Path(os.path.abspath(p)).parent for p in paths]
    if not folders:
        return Path.cwd()
    return Path(os.path.commonpath([str(f) for f in folders]))


def _table(pyproject: Path) -> dict | None:
    import tomllib  # only a folder with a pyproject.toml pays for it

    try:
        source = pyproject.read_text(encoding="utf-8")
        data = tomllib.loads(source)
    except OSError as exc:
        raise ConfigError(f"{pyproject}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{pyproject}: not UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        # tomllib says "(at line L, column C)"; put the position first, as every error does.
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, column = (m.group(1), m.group(2)) if m else (source.count("\n") + 1, 1)  # "at end of document"
        raise ConfigError(f"{pyproject}:{line}:{column}: not valid TOML: {re.sub(r' [(]at .*', '', str(exc))}") from exc
    tool = data.get("tool")
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.{TABLE}] must be a table")
    return table


def parse(table: dict, path: Path) -> Config:
    where = f"{path}: [tool.{TABLE}]"
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {', '.join(map(repr, unknown))} (known: {', '.join(KEYS)})")
    lists = {}
    for key in ("select", "ignore", "exclude"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} {key}: expected a list of strings, got {value!r}")
        lists[key] = tuple(value)
    sets = table.get("set", {})
    if not isinstance(sets, dict) or not all(isinstance(v, (int, float, str)) for v in sets.values()):
        raise ConfigError(f"{where} set: expected a table of NAME = number or expression, got {sets!r}")
    inputs = table.get("input", {})
    if not isinstance(inputs, dict):
        raise ConfigError(f"{where} input: expected a table of NAME = \"LOW:HIGH\", got {inputs!r}")
    bounds = {}
    for name, value in inputs.items():
        low, colon, high = str(value).partition(":")
        try:
            if not (isinstance(value, str) and colon):
                raise ValueError
            bounds[name] = (float(low), float(high))
        except ValueError:
            raise ConfigError(f"{where} input: {name} = {value!r}: expected \"LOW:HIGH\"") from None
    target = table.get("target", "")
    if not isinstance(target, str):
        raise ConfigError(f"{where} target: expected a version step (YYYY-MM), got {target!r}")
    python = table.get("compiler-python")
    if python is not None and (not isinstance(python, str) or not python):
        raise ConfigError(f"{where} compiler-python: expected the path of a Python, got {python!r}")
    if python and os.sep in python:  # a path, read from the configuration's folder; a bare name is looked up on PATH
        python = os.path.join(os.path.dirname(os.path.abspath(path)), os.path.expanduser(python))
    return Config(path, lists["select"], lists["ignore"], lists["exclude"], {k: str(v) for k, v in sets.items()}, bounds,
                  target, python)


def filter_excluded(files: list[Path], named: list[Path], config: Config, force: bool = False) -> list[Path]:
    """Drop excluded files found by walking folders; a file named on the command line is kept
    unless `force` (--force-exclude, for pre-commit, which names every file)."""
    if not config.exclude:
        return files
    given = {Path(os.path.abspath(p)) for p in named}
    return [f for f in files if not config.excluded(f) or (not force and Path(os.path.abspath(f)) in given)]
