"""Imports go downward only: each layer package of `codemods` imports the layers its
`__init__.py` docstring names, never one above it, so the packages form no cycle.

Every import is read from the source (module level and inside functions alike: a lazy
import is still a dependency), relative ones resolved against the module's own package.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "codemods"

# What each layer may import, as its docstring says (ARCHITECTURE.md draws the same map).
MAY_IMPORT = {
    "text": set(),
    "syntax": set(),
    "rulebook": {"syntax"},
    "model": {"syntax", "rulebook", "text"},
    "interp": {"rulebook"},
    "check": {"model", "rulebook", "syntax", "text"},
    "steps": {"check", "model", "rulebook", "syntax", "text"},
    "migrate": {"steps", "check", "model", "rulebook", "syntax", "text"},
    "compiler": {"migrate", "steps", "interp", "check", "model", "rulebook", "syntax", "text"},
    "run": {"compiler", "interp", "migrate", "steps", "check", "model", "rulebook", "syntax", "text"},
    # Beside `run`: a maintainer's commands (measure a compiler's API, diff two tables).
    "maintain": {"compiler", "interp", "migrate", "steps", "check", "model", "rulebook", "syntax", "text"},
    "cli": {"maintain", "run", "compiler", "interp", "migrate", "steps", "check", "model", "rulebook", "syntax", "text"},
}


def imported_layers(path: Path) -> dict[str, int]:
    """The layers of `codemods` a module imports, each with the line of one import."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[tuple[str, ...]] = []
        if isinstance(node, ast.Import):
            names = [tuple(a.name.split(".")) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            target = base + tuple((node.module or "").split(".") if node.module else ())
            names = [target] if node.module else [target + (a.name,) for a in node.names]
        for name in names:
            if len(name) > 1 and name[0] == "codemods" and (PACKAGE / name[1]).is_dir():
                found.setdefault(name[1], node.lineno)
    return found


def modules(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


def test_every_package_is_a_layer_with_a_docstring():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(MAY_IMPORT)
    for layer in packages:
        doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "import" in doc, f"codemods/{layer}/__init__.py must say what it may import"
    assert not [p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_imports_go_downward_only(layer):
    wrong = []
    for path in modules(layer):
        for other, line in imported_layers(path).items():
            if other != layer and other not in MAY_IMPORT[layer]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: imports codemods.{other}")
    assert not wrong, "\n".join(wrong)


def test_the_bottom_layer_knows_nothing_of_python_syntax():
    for path in modules("text"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                tops = [node.module.split(".")[0]]
            else:
                continue
            assert all(t in sys.stdlib_module_names or t in ("__future__", "unidiff") for t in tops), (path, tops)


def test_the_map_has_no_cycle():
    """The allowed imports order the layers: peeling off each layer whose imports are all
    peeled already must peel them all (else some layers reach back to themselves)."""
    peeled: list[str] = []
    while len(peeled) < len(MAY_IMPORT):
        ready = sorted(layer for layer in MAY_IMPORT if layer not in peeled and MAY_IMPORT[layer] <= set(peeled))
        assert ready, f"a cycle among {sorted(set(MAY_IMPORT) - set(peeled))}"
        peeled += ready
    assert peeled[:2] == ["syntax", "text"] and peeled[-1] == "cli"
