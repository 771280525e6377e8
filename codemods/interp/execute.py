"""Load a kernel file, build its program at small sizes, make inputs, and run it.

Sizes: `--set NAME=VALUE` replaces every module-level assignment of NAME (the constants
derived from it follow, being computed from it) or passes NAME to the builder function.
Defaults for both, and input bounds, can sit in the kernel file itself:

    # pypto-migrate: verify --set BATCH=2 --input seq_lens=4:16
"""

from __future__ import annotations

import ast
import inspect
import re
import shlex
from dataclasses import dataclass, field

import numpy as np

from . import dtypes as D
from .language import Spec, build, installed
from .ops import Machine
from .values import KernelError, Tensor

DIRECTIVE = re.compile(r"#\s*pypto-migrate:\s*verify\b(.*)$", re.M)


class SetupError(Exception):
    """The kernel file cannot be built or run as asked (not a migration problem)."""


@dataclass
class Settings:
    sets: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, tuple[float, float]] = field(default_factory=dict)
    seed: int = 0
    poison: str = "garbage"

    def merged_over(self, text: str) -> "Settings":
        """The file's own `# pypto-migrate: verify ...` defaults, with these settings winning."""
        sets, inputs = {}, {}
        for m in DIRECTIVE.finditer(text):
            words = shlex.split(m.group(1))
            for flag, value in zip(words[::2], words[1::2]):
                if flag == "--set":
                    name, _, v = value.partition("=")
                    sets[name] = v
                elif flag == "--input":
                    name, bounds = parse_input(value)
                    inputs[name] = bounds
        return Settings({**sets, **self.sets}, {**inputs, **self.inputs}, self.seed, self.poison)


def parse_input(text: str) -> tuple[str, tuple[float, float]]:
    name, _, bounds = text.partition("=")
    low, _, high = bounds.partition(":")
    try:
        return name, (float(low), float(high))
    except ValueError:
        raise SetupError(f"--input {text!r}: expected NAME=LOW:HIGH") from None


@dataclass
class Program:
    entry: object  # the bound @pl.function method
    specs: dict[str, Spec]


def load(path: str, text: str, settings: Settings, machine: Machine) -> Program:
    tree = override_constants(ast.parse(text, path), settings.sets, path)
    builder = _builder(tree)
    namespace = {"__name__": "pypto_migrate_kernel", "__file__": path}
    with installed(build(machine)):
        try:
            exec(compile(tree, path, "exec", dont_inherit=True), namespace)  # not our __future__ flags
        except KernelError:
            raise
        except Exception as exc:
            raise SetupError(f"{path}: executing the module failed: {type(exc).__name__}: {exc}") from exc
        if builder is not None:
            fn = namespace[builder]
            params = inspect.signature(fn).parameters
            kwargs = {}
            for name, value in settings.sets.items():
                if name in params:
                    kwargs[name] = ast.literal_eval(value)
            program = fn(**kwargs)
        else:
            program = next((v for v in namespace.values() if getattr(v, "__pl_program__", False)), None)
    if program is None:
        raise SetupError(f"{path}: no @pl.program class (nor a builder function returning one)")
    unknown = [n for n in settings.sets if n not in module_names(tree) and (builder is None or n not in inspect.signature(namespace[builder]).parameters)]
    if unknown:
        raise SetupError(f"{path}: --set {', '.join(unknown)}: no module constant or builder parameter of that name")
    functions = [name for name, v in vars(program).items() if getattr(v, "__pl_function__", False)]
    if not functions:
        raise SetupError(f"{path}: the program has no @pl.function")
    entry = getattr(program(), functions[0])
    specs = {}
    for name, param in inspect.signature(entry).parameters.items():
        if not isinstance(param.annotation, Spec):
            raise SetupError(f"{path}: parameter {name} has no pl.Tensor annotation to make an input from")
        specs[name] = param.annotation
    return Program(entry, specs)


def make_inputs(specs: dict[str, Spec], settings: Settings) -> dict[str, np.ndarray]:
    """Random inputs from the annotations; the same arrays serve both runs."""
    rng = np.random.default_rng(settings.seed)
    out = {}
    for name, spec in specs.items():
        low, high = settings.inputs.get(name, (-1.0, 1.0) if spec.dtype.is_float else (0, 3))
        if spec.dtype.is_float:
            values = rng.uniform(low, high, spec.shape)
        else:
            values = rng.integers(int(low), int(high) + 1, spec.shape)
        out[name] = D.cast(values, spec.dtype)
    unknown = set(settings.inputs) - set(specs)
    if unknown:
        raise SetupError(f"--input {', '.join(sorted(unknown))}: no parameter of that name")
    return out


def run(program: Program, inputs: dict[str, np.ndarray]) -> dict[str, Tensor]:
    """Call the entry with fresh copies of the inputs; every Tensor it could write, by name."""
    tensors = {name: Tensor(inputs[name].copy(), np.zeros(inputs[name].shape, dtype=bool), name) for name in program.specs}
    result = program.entry(**tensors)
    outputs = {name: t for name, t in tensors.items() if program.specs[name].direction in ("out", "inout")}
    results = result if isinstance(result, tuple) else (result,)
    for i, value in enumerate(results):
        if isinstance(value, Tensor) and not any(value.data is t.data for t in outputs.values()):
            outputs[f"return[{i}]" if len(results) > 1 else "return"] = value
    return outputs


def override_constants(tree: ast.Module, sets: dict[str, str], path: str) -> ast.Module:
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in sets:
                try:
                    node.value = ast.parse(sets[name], mode="eval").body
                except SyntaxError:
                    raise SetupError(f"--set {name}={sets[name]}: not a Python expression") from None
    return ast.fix_missing_locations(tree)


def module_names(tree: ast.Module) -> set[str]:
    return {n.targets[0].id for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)}


def _builder(tree: ast.Module) -> str | None:
    found = builders(tree)
    return found[0] if found else None


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
