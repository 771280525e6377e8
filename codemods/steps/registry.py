"""Rule kinds by name. A kind registers itself where it is defined (`@kind("slice-to-load")`),
as pyupgrade's fixers do: no list names them. A step's package (`v2026_08` for the step
`2026-08`) is imported, every module of it, the first time a rule of that step needs a kind, so
that a run to an earlier target never pays for a later step's code.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Callable, TypeVar

T = TypeVar("T")
COMMON = "common"  # the kinds any step's records may name
_STEP_PACKAGE = re.compile(r"^v\d{4}_\d{2}$")


class Kinds(dict):
    """Kind name -> class. A name not registered yet has every step's package imported once
    before it is called unknown."""

    def __missing__(self, name: str):
        if load_all():
            return self[name]
        raise KeyError(name)


KINDS = Kinds()
_loaded: set[str] = set()


def kind(*names: str) -> Callable[[T], T]:
    """Register the decorated class as the rule kind(s) `names`."""

    def register(cls: T) -> T:
        for name in names:
            other = dict.get(KINDS, name)
            if other is not None and other is not cls:
                raise RuntimeError(f"rule kind {name!r} is defined twice: in {other.__module__} and {cls.__module__}")
            KINDS[name] = cls
        return cls

    return register


def package_of(step: str) -> str:
    """The step's package: `2026-08` -> `v2026_08` (a package name cannot hold a dash)."""
    return "v" + step.replace("-", "_")


def load(package: str) -> bool:
    """Import every module of one package of `codemods.steps` (their kinds register); False
    for a step without code of its own (its records name common kinds only)."""
    if package in _loaded:
        return False
    _loaded.add(package)
    try:
        module = importlib.import_module(f"{__package__}.{package}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__package__}.{package}":
            return False
        raise
    for info in pkgutil.iter_modules(module.__path__):
        importlib.import_module(f"{module.__name__}.{info.name}")
    return True


def load_all() -> bool:
    """Import the common kinds and every step's package; True if any was new."""
    from . import __path__ as here

    packages = [COMMON] + sorted(i.name for i in pkgutil.iter_modules(here) if _STEP_PACKAGE.match(i.name))
    return any([load(p) for p in packages])


def lookup(name: str, step: str):
    """The class of kind `name` for a rule of `step`: the common kinds and that step's own
    first, every step's only if neither has it (a later step may reuse an earlier one's kind)."""
    if dict.get(KINDS, name) is None:
        load(COMMON)
        load(package_of(step))
    return KINDS[name]
