"""Which pypto a Python has, read off the API it offers, and which Python the compiler runs in.

Every pypto build calls itself 0.1.0, so `codemods/rules/api/compilers.toml` says, per target, which
names its compiler has and which it lacks; the worker reports which of them it finds. The
two compilers cannot share an environment (the newer one needs torch, both are
`pypto-0.1.0-*.whl`), so the compiler may run in another Python than the tool's own:
`--compiler-python`, else `PYPTO_PYTHON`, else `compiler-python` in [tool.pypto-migrate],
else the tool's own Python.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

ENV = "PYPTO_PYTHON"


class Compiler(NamedTuple):
    target: str  # "2026-03"
    commit: str
    date: str
    present: tuple[str, ...]
    absent: tuple[str, ...]
    backend: str  # the BackendType the pass pipeline runs on
    wheel: str  # what to install, for the hint

    def matches(self, found: dict[str, bool]) -> bool:
        return all(found.get(n) for n in self.present) and not any(found.get(n) for n in self.absent)

    @property
    def title(self) -> str:
        return f"pypto of {self.date} ({self.commit}, --target {self.target})"


@lru_cache(maxsize=4)
def compilers(rules_dir: Path | None = None) -> dict[str, Compiler]:
    import tomllib  # read only when a compiler is asked for: every run resolves `compiler_python`

    from ..rulebook.loading import default_rules_dir

    path = (rules_dir or default_rules_dir()) / "api" / "compilers.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {
        c["target"]: Compiler(c["target"], c["commit"], c["date"], tuple(c["present"]), tuple(c["absent"]),
                              c["backend"], c["wheel"])
        for c in data["compiler"]
    }


def features(rules_dir: Path | None = None) -> list[str]:
    """Every name some target's compiler is told apart by, for the worker to look up."""
    return sorted({n for c in compilers(rules_dir).values() for n in (*c.present, *c.absent)})


def identify(found: dict[str, bool], rules_dir: Path | None = None) -> Compiler | None:
    """The target whose compiler this is, or None for a pypto of another day."""
    return next((c for c in compilers(rules_dir).values() if c.matches(found)), None)


def mismatch(target: str, found: dict[str, bool], python: str, rules_dir: Path | None = None) -> str | None:
    """Why the compiler `python` imports is not `target`'s, or None when it is."""
    wanted = compilers(rules_dir)[target]
    if wanted.matches(found):
        return None
    have = identify(found, rules_dir)
    if have is not None:
        what = f"has {have.title}"
    else:
        has = [n for n in wanted.absent if found.get(n)]
        lacks = [n for n in wanted.present if not found.get(n)]
        said = [f"has {', '.join(has)}" if has else "", f"lacks {', '.join(lacks)}" if lacks else ""]
        what = f"has a pypto of neither target ({'; '.join(s for s in said if s)})"
    return (
        f"--compile with --target {target} needs {wanted.title}, but {python} {what}. "
        f"Point --compiler-python (or {ENV}, or compiler-python in [tool.pypto-migrate]) at a Python "
        f"that has it, e.g. a virtualenv made with: python -m pip install {wanted.wheel}"
    )


def compiler_python(explicit: str | os.PathLike | None = None, configured: str | None = None) -> str:
    """The Python the compiler runs in: the command line, the environment, the configuration, ours."""
    for candidate in (explicit, os.environ.get(ENV), configured):
        if candidate:
            candidate = str(candidate)
            # A path relative to where the user stands: the worker runs in a folder of its own,
            # where it would name nothing. Made absolute, not resolved: a venv's python is a
            # symlink whose venv is found through the link. A bare name is looked up in PATH.
            return os.path.abspath(candidate) if os.sep in candidate or (os.altsep and os.altsep in candidate) else candidate
    return sys.executable
