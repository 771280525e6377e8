"""Per-file results kept between runs, as Ruff keeps its own: a file whose content, tool and
settings are unchanged is not migrated again.

An entry is the migration of one text (output, edits, findings, or the error that stopped
it), stored under the SHA-256 of the file's bytes in a folder named for everything else the
result depends on: the tool's version and its own code, Python's and LibCST's versions, the
rule files and the API table, the selected rules and whether outputs are strictly checked.
Paths are not part of the key (messages are rebuilt with the path of the run), and the
compiler's and the interpreter's verdicts (--compile, --verify) are never kept: they depend
on programs the key does not cover.

The cache lives in `.pypto-migrate-cache/` at the project root (the nearest folder above the
current one with a pyproject.toml or a .git, else the current folder), holds a `.gitignore`
of `*` so that it is never committed, and is written atomically, so that concurrent runs and
a run killed halfway leave only whole entries. A cache that cannot be read or written is
simply not used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from functools import lru_cache
from pathlib import Path

from .. import __version__

FOLDER = ".pypto-migrate-cache"
ENV = "PYPTO_MIGRATE_CACHE_DIR"  # a cache folder of one's own (CI caches, tests)
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# The cache of pypto-migrate; `pypto-migrate cache clean` removes it.\n"


def default_dir(start: Path | None = None) -> Path:
    """Where the cache of the project around `start` (the current folder) lives."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file() or (folder / ".git").exists():
            return folder / FOLDER
    return here / FOLDER


def clean(folder: Path) -> bool:
    """Remove a cache folder; False when there was none. Refuses a folder that is not one."""
    if not folder.exists():
        return False
    if not (folder / "CACHEDIR.TAG").is_file():
        raise OSError(f"{folder} does not look like a pypto-migrate cache (no CACHEDIR.TAG); not removed")
    import shutil

    shutil.rmtree(folder)
    return True


def _libcst_version() -> str:
    """LibCST's version as its own `_version.py` states it, read without importing LibCST or
    importlib.metadata (either would cost a warm run more than all its cached results)."""
    from importlib.util import find_spec

    spec = find_spec("libcst")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        try:
            text = Path(folder, "_version.py").read_text(encoding="utf-8")
        except OSError:
            continue
        m = re.search(r"""^(?:__version__|version)\b[^\n]*?=\s*['"]([^'"]+)['"]""", text, re.M)
        if m:
            return m.group(1)
    return _version("libcst")


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return ""


@lru_cache(maxsize=None)
def _tool_fingerprint() -> str:
    """The tool's own code: a checkout being worked on must not reuse results of older code."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _folder_fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.toml")):
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def settings_key(rule_ids: tuple[str, ...], strict: bool, rules_dir: Path, target: str = "", start: str = "") -> str:
    """Everything besides the file's content that a migration result depends on."""
    parts = {
        "target": target,
        "from": start,
        "tool": _tool_fingerprint(),
        "python": list(sys.version_info[:2]),
        "libcst": _libcst_version(),
        "rules": _folder_fingerprint(rules_dir),
        "selected": sorted(rule_ids),
        "strict": strict,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


class ResultCache:
    """Entries of one settings key: `get(content)` and `put(content, entry)`, plain JSON."""

    def __init__(self, root: Path, settings: str) -> None:
        self.root = root
        self.folder = root / settings

    @staticmethod
    def content_key(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    def get(self, key: str) -> dict | None:
        try:
            with open(self.folder / f"{key}.json", encoding="utf-8") as fh:
                entry = json.load(fh)
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, entry: dict) -> None:
        import tempfile

        try:
            self._prepare()
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(entry, fh, ensure_ascii=False)
                os.replace(tmp, self.folder / f"{key}.json")
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            pass  # a read-only checkout, a full disk: the run goes on uncached

    def _prepare(self) -> None:
        if self.folder.is_dir():
            return
        self.root.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# Created by pypto-migrate.\n*\n"), ("CACHEDIR.TAG", _TAG)):
            marker = self.root / name
            if not marker.exists():
                marker.write_text(text, encoding="utf-8")
        self.folder.mkdir(exist_ok=True)


def result_entry(result, diff_body: str) -> dict:
    """An engine Result as an entry (the output only when it differs from the input), with
    its diff but for the header, which names the file as the run does."""
    return {
        "output": result.output if result.changed else None,
        "diff": diff_body,
        "edits": [[e.rule, e.line, e.column, e.safety, e.before, e.after] for e in result.edits],
        "findings": [[f.rule, f.line, f.column, f.message, f.level] for f in result.findings],
        "reviewed": result.reviewed,
        "kernels": result.kernels,
        "over_budget": result.over_budget,
        "introduced": [[f.rule, f.line, f.column, f.message, f.level] for f in result.introduced],
        "still_rejected": result.still_rejected,
    }


def error_entry(exc) -> dict:
    return {"error": [exc.message, exc.line, exc.column]}


def from_entry(entry: dict, text: str):
    """The Result an entry stands for, for the text it was made from, and its diff body;
    raises its error."""
    from ..check.results import Edit, Finding, Result, SourceError

    if "error" in entry:
        message, line, column = entry["error"]
        raise SourceError(message, line, column)
    output = entry["output"]
    return entry["diff"], Result(
        text,
        text if output is None else output,
        [Edit(*e) for e in entry["edits"]],
        [Finding(*f) for f in entry["findings"]],
        entry["reviewed"],
        entry["kernels"],
        entry["over_budget"],
        [Finding(*f) for f in entry["introduced"]],
        entry["still_rejected"],
    )
