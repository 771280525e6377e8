"""The kernel file's source as the interpreter and the compiler worker set it up: which
functions build a program, which module constants `--set` may replace, and the replacing.

Standard library only: the compiler worker imports it in the Python that has pypto, where
neither NumPy's companions nor anything else of the tool's environment may be installed.
"""

from __future__ import annotations

import ast


class SetupError(Exception):
    """The kernel file cannot be built or run as asked (not a migration problem)."""


class NotAKernel(SetupError):
    """The file builds no program to run: not a kernel file (a helper module, a config)."""


class CannotLoad(SetupError):
    """The module's own top-level code fails (an import this Python lacks, such as torch)."""


class SizeError(SetupError):
    """The sizes asked for do not fit the kernel (a typo in --set, a guard refusing them): the
    user's setup, never a finding about the migration."""


def override_constants(tree: ast.Module, sets: dict[str, str], path: str) -> ast.Module:
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(target, ast.Name) and node.value is not None:
            name = target.id
            if name in sets:
                try:
                    node.value = ast.parse(sets[name], mode="eval").body
                except SyntaxError:
                    raise SizeError(f"--set {name}={sets[name]}: not a Python expression") from None
    return ast.fix_missing_locations(tree)


def module_names(tree: ast.Module) -> set[str]:
    names = {n.targets[0].id for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}
    return names | {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None}


def builders(tree: ast.Module) -> list[str]:
    """The module-level functions that define a @pl.program class (and return it), in order."""
    return [
        node.name for node in tree.body
        if isinstance(node, ast.FunctionDef) and any(
            isinstance(inner, ast.ClassDef) and any(is_program(d) for d in inner.decorator_list)
            for inner in ast.walk(node)
        )
    ]


def is_program(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Attribute) and target.attr == "program") or (isinstance(target, ast.Name) and target.id == "program")
