"""Load a kernel file, build its program at small sizes, make inputs, and run it.

Sizes: `--set NAME=VALUE` replaces every module-level assignment of NAME (the constants
derived from it follow, being computed from it) or passes NAME to the builder function.
Defaults for both, and input bounds, can sit in the kernel file itself:

    # pypto-migrate: verify --set BATCH=2 --input seq_lens=4:16
"""

from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import re
import shlex
import sys
import types
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from . import dtypes as D
from . import versions
from .language import Spec, build, installed
from .ops import OLD, Machine
from .sources import CannotLoad, NotAKernel, SetupError, SizeError, builders, module_names, override_constants
from .values import KernelError, Tensor, active, kind

DIRECTIVE = re.compile(r"#\s*pypto-migrate:\s*verify\b(.*)$", re.M)


@dataclass
class Settings:
    sets: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, tuple[float, float]] = field(default_factory=dict)
    seed: int = 0
    poison: str = "garbage"
    # [tool.pypto-migrate] sizes: for every kernel of a project, so only the names a file
    # defines apply, and under the file's own line.
    defaults: tuple[dict, dict] = ({}, {})

    def merged_over(self, text: str) -> "Settings":
        """The file's own `# pypto-migrate: verify ...` defaults, with these settings winning."""
        sets, inputs = applicable(text, *self.defaults)
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


def parse_input(text: str) -> tuple[str, tuple[float | str, float | str]]:
    """A bound is a number or an expression of the module's constants (`seq_lens=1:MAX_SEQ`),
    evaluated at the sizes the kernel runs at, so one line serves any sizes."""
    name, _, bounds = text.partition("=")
    low, _, high = bounds.partition(":")
    out = []
    for bound in (low, high):
        try:
            out.append(float(bound))
        except ValueError:
            try:
                ast.parse(bound, mode="eval")
            except SyntaxError:
                raise SetupError(f"--input {text!r}: expected NAME=LOW:HIGH, each a number or an expression of the "
                                 "module's constants") from None
            out.append(bound)
    return name, (out[0], out[1])


@dataclass
class Program:
    entry: object  # the bound @pl.function method
    specs: dict[str, Spec]
    machine: Machine | None = None
    namespace: dict = field(default_factory=dict)  # the module's, at the sizes it runs at


def load(path: str, text: str, settings: Settings, machine: Machine) -> Program:
    own_sets = {k: v for k, v in settings.sets.items() if "." not in k}
    tree = override_constants(ast.parse(text, path), own_sets, path)
    if machine.profile == OLD and _predates(tree, machine.api):
        machine.predates = True
    builder = _builder(tree)
    called = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"}
    if builder is not None:
        tree = _eager_annotations(tree)
    tree = versions.Syntax().visit(_Annotations().visit(tree))
    ast.fix_missing_locations(tree)
    namespace = {"__name__": "pypto_migrate_kernel", "__file__": path, ANNOTATED: partial(_annotated, machine),
                 **versions.helpers(machine)}
    with installed(build(machine)), active(machine), _neighbours(path, settings.sets), _absent_modules() as absent:
        code = compile(tree, path, "exec", dont_inherit=True)  # not our __future__ flags
        fresh = dict(namespace)
        while True:
            try:
                exec(code, namespace)
                break
            except KernelError:
                raise
            except ModuleNotFoundError as exc:
                if not absent.stand_in(exc.name):
                    raise CannotLoad(f"{path}: executing the module failed: {type(exc).__name__}: {exc}") from exc
                namespace = dict(fresh)
            except Exception as exc:
                raise CannotLoad(f"{path}: executing the module failed: {type(exc).__name__}: {exc}") from exc
        if builder is not None:
            fn = namespace[builder]
            params = inspect.signature(fn).parameters
            kwargs = {}
            for name, value in own_sets.items():
                if name in params:
                    kwargs[name] = ast.literal_eval(value)
            try:
                program = fn(**kwargs)
            except KernelError:
                raise
            except Exception as exc:  # e.g. a capacity guard refusing the sizes asked for
                raise SizeError(f"{path}: {builder}({', '.join(f'{k}={v}' for k, v in kwargs.items())}) failed: "
                                 f"{type(exc).__name__}: {exc} (choose other sizes with --set)") from exc
        else:
            program = next((v for v in namespace.values() if getattr(v, "__pl_program__", False)), None)
        if program is None:
            program = _jit_program(namespace)
    if program is None:
        raise NotAKernel(f"{path}: no @pl.program class (nor a builder function returning one)")
    unknown = [n for n in own_sets if n not in module_names(tree) and (builder is None or n not in inspect.signature(namespace[builder]).parameters)]
    unknown += _unknown_in_siblings(path, settings.sets)
    if unknown:
        raise SizeError(f"{path}: --set {', '.join(unknown)}: no module constant or builder parameter of that name")
    functions = [name for name, v in vars(program).items()
                 if getattr(v, "__pl_function__", False) or getattr(getattr(v, "__func__", None), "__pl_function__", False)]
    if not functions:
        raise NotAKernel(f"{path}: the program has no @pl.function")
    entry = getattr(program(), _entry(program, functions, called))
    specs = {}
    try:  # under `from __future__ import annotations` the annotations are strings until evaluated
        params = inspect.signature(entry, eval_str=True).parameters
    except NameError as exc:
        raise SetupError(f"{path}: an annotation of the entry function names what the module does not define: {exc}") from exc
    for name, param in params.items():
        if not isinstance(param.annotation, Spec) or param.annotation.kind == "Tile":
            raise SetupError(f"{path}: parameter {name} has no pl.Tensor or pl.Scalar annotation to make an input from")
        specs[name] = param.annotation
    return Program(entry, specs, machine, namespace)


def _predates(tree: ast.Module, api) -> bool:
    """Does old code call a `pl.` name the oldest step's table lists removed (`pl.view`)? Then it
    was written for the pypto before that step, whose meaning differs (see `Machine.predates`)."""
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "pl"
               and api.lists_removed(n.attr) for n in ast.walk(tree))


class _Absent(types.ModuleType):
    """A module this Python lacks (torch, for a kernel file's test harness), imported by the
    kernel file: any use of it says so, and nothing that does not use it is stopped by it."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise CannotLoad(f"{self.__name__}.{name}: {self.__name__} is not installed here (verify runs the kernel "
                         "without it; this file uses it where the kernel is built or run)")


class _AbsentModules:
    MOST = 4  # stand-ins for one file, at most

    def __init__(self) -> None:
        self.names: list[str] = []

    def stand_in(self, name: str | None) -> bool:
        """Bind a stand-in for a missing top-level module, once; False where none may stand in."""
        top = (name or "").split(".")[0]
        if not top or top == "pypto" or top in self.names or len(self.names) >= self.MOST or "." in (name or ""):
            return False
        self.names.append(top)
        sys.modules[top] = _Absent(top)
        return True


@contextlib.contextmanager
def _absent_modules():
    absent = _AbsentModules()
    try:
        yield absent
    finally:
        for name in absent.names:
            if isinstance(sys.modules.get(name), _Absent):
                del sys.modules[name]


@contextlib.contextmanager
def _neighbours(path: str, sets: dict[str, str] | None = None):
    """The kernel's own folder on `sys.path` while it loads, as its authors run it (`from config
    import ...`): the modules it imports from there are this run's alone, each run (original,
    migration) importing its own folder's with its own stand-in `pl`, so they leave
    `sys.modules` again. A module named in `sets` (`module.NAME=VALUE`) is built with those
    module constants replaced, as `--set` replaces the kernel file's."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isfile(path):
        yield
        return
    before = set(sys.modules)
    sys.path.insert(0, folder)
    finder = _SizedSiblings(folder, _by_module(sets or {}))
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(folder)
        for name in set(sys.modules) - before:
            if os.path.dirname(os.path.abspath(getattr(sys.modules[name], "__file__", None) or "/")) == folder:
                del sys.modules[name]


def _by_module(sets: dict[str, str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for key, value in sets.items():
        module, dot, name = key.rpartition(".")
        if dot:
            out.setdefault(module, {})[name] = value
    return out


def _unknown_in_siblings(path: str, sets: dict[str, str]) -> list[str]:
    """The `module.NAME` sizes that name no module constant of a module beside the kernel file."""
    folder = os.path.dirname(os.path.abspath(path))
    unknown = []
    for module, names in _by_module(sets).items():
        file = os.path.join(folder, module + ".py")
        try:
            with open(file, encoding="utf-8") as f:
                have = module_names(ast.parse(f.read(), file))
        except (OSError, SyntaxError, ValueError):
            have = set()
        unknown += [f"{module}.{n}" for n in names if n not in have]
    return unknown


class _SizedSiblings(importlib.abc.MetaPathFinder):
    def __init__(self, folder: str, sets: dict[str, dict[str, str]]) -> None:
        self.folder, self.sets = folder, sets

    def find_spec(self, name, path=None, target=None):
        file = os.path.join(self.folder, name + ".py")
        if "." in name or name not in self.sets or not os.path.isfile(file):
            return None
        return importlib.util.spec_from_file_location(name, file, loader=_SizedLoader(name, file, self.sets[name]))


class _SizedLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, name: str, path: str, sets: dict[str, str]) -> None:
        super().__init__(name, path)
        self.sets = sets

    def get_code(self, fullname):  # never the cached bytecode of the file's own sizes
        source = importlib.util.decode_source(self.get_data(self.path))
        tree = override_constants(ast.parse(source, self.path), self.sets, self.path)
        return compile(tree, self.path, "exec", dont_inherit=True)


def module_values(path: str, text: str, machine: Machine) -> tuple[dict[str, int], set[str], dict[str, dict]]:
    """The integer values of the module's top-level names once it has run (its own and those it
    imports from its folder, `from config import FLASH as M`), at the file's own sizes: what
    `sizing` starts from where a size is not a literal of the file; the modules whose kernels
    it imports (their sizes are theirs); and the namespaces of the modules of its folder it
    loaded ("" its own), for `package`. Empty if the module fails."""
    tree = ast.parse(text, path)
    if _builder(tree) is not None:
        tree = _eager_annotations(tree)
    tree = ast.fix_missing_locations(versions.Syntax().visit(_Annotations().visit(tree)))
    namespace = {"__name__": "pypto_migrate_kernel", "__file__": path, ANNOTATED: partial(_annotated, machine),
                 **versions.helpers(machine)}
    folder = os.path.dirname(os.path.abspath(path))
    namespaces = {}
    with installed(build(machine)), active(machine), _neighbours(path):
        try:
            exec(compile(tree, path, "exec", dont_inherit=True), namespace)
        except Exception:
            return {}, set(), {}
        for name, module in list(sys.modules.items()):
            if os.path.dirname(os.path.abspath(getattr(module, "__file__", None) or "/")) == folder:
                namespaces[name] = dict(vars(module))
    namespaces[""] = namespace
    kernels = {v.__module__ for v in namespace.values() if inspect.isfunction(v) and v.__module__ != namespace["__name__"]
               and os.path.dirname(os.path.abspath(v.__code__.co_filename)) == folder}
    return {k: v for k, v in namespace.items() if type(v) is int}, kernels, namespaces


def _eager_annotations(tree: ast.Module) -> ast.Module:
    """Without `from __future__ import annotations`, in a file with a builder: its kernel is
    annotated with the builder's own sizes (`pl.Tensor[[BATCH_CFG, ...]]`, `BATCH_CFG =
    batch`), which a string annotation can no longer see once the builder has returned;
    evaluated where they stand, as the DSL's parser reads them, they can. (Elsewhere the
    strings stay, evaluated once the module is complete: a jit file may name a size it
    defines further down.)"""
    body = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            kept = [a for a in node.names if a.name != "annotations"]
            if not kept:
                continue
            node.names = kept
        body.append(node)
    tree.body = body
    return tree


def _jit_program(namespace: dict):
    """A file of @pl.jit functions: the last one is the entry, as the compiler bridge takes it."""
    entries = [(name, v) for name, v in namespace.items() if getattr(v, "__pl_jit__", False)]
    if not entries:
        return None
    name, fn = entries[-1]
    return type("JitProgram", (), {"__pl_program__": True, name: staticmethod(fn)})


def _entry(program, functions: list[str], called: set[str]) -> str:
    """The function the program is run from: the one no other calls (`self.name(...)`),
    an Orchestration one if several are left, else the first."""
    roots = [f for f in functions if f not in called] or functions
    orchestration = [f for f in roots if getattr(vars(program)[f], "__pl_type__", "") == "Orchestration"]
    return (orchestration or roots)[0]


ANNOTATED = "__pypto_migrate_annotated__"


class _Annotations(ast.NodeTransformer):
    """`x: pl.Tensor[[4, 8], pl.FP32] = value` inside a function checks the value against the
    annotation, as the parser does (`Type annotation for 'x' is Tensor but expression has type Tile`)."""

    def __init__(self) -> None:
        self.depth = 0

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_AnnAssign(self, node):
        if self.depth == 0 or node.value is None or not isinstance(node.target, ast.Name):
            return node
        check = ast.Call(ast.Name(ANNOTATED, ast.Load()), [node.value, node.annotation, ast.Constant(node.target.id)], [])
        return ast.copy_location(ast.Assign([node.target], check), node)


def _annotated(machine: Machine, value, annotation, name: str):
    if not isinstance(annotation, Spec):
        return value
    got = kind(value)
    if got != annotation.kind and not (machine.strict is False and {got, annotation.kind} == {"Tensor", "Tile"}):
        raise KernelError(f"Type annotation for '{name}' is {annotation.kind} but expression has type {got}")
    if got == "Scalar" or not machine.strict:
        return value  # the old DSL did not hold an annotation's shape and dtype to its value's
    for dim, (want, have) in enumerate(zip(annotation.shape, value.shape)):
        if want != have:
            raise KernelError(f"Type annotation for '{name}' has shape dimension {dim} = {want} but expression has shape "
                              f"dimension {dim} = {have}")
    if len(annotation.shape) != len(value.shape):
        raise KernelError(f"Type annotation for '{name}' has rank {len(annotation.shape)} but expression has rank "
                          f"{len(value.shape)}")
    both_ints = annotation.dtype.np.kind in "iu" and value.dtype.np.kind in "iu"  # INDEX passes for any int
    if annotation.dtype != value.dtype and not both_ints:
        raise KernelError(f"Type annotation for '{name}' has dtype {annotation.dtype} but expression has dtype {value.dtype}")
    return value


def make_inputs(specs: dict[str, Spec], settings: Settings, namespace: dict | None = None) -> dict[str, np.ndarray]:
    """Random inputs from the annotations; the same arrays serve both runs. `namespace` is the
    module's, where a bound given as an expression is evaluated."""
    rng = np.random.default_rng(settings.seed)
    out = {}
    for name, spec in specs.items():
        low, high = settings.inputs.get(name, (-1.0, 1.0) if spec.dtype.is_float else (0, 3))  # shape () for a Scalar
        low, high = (_bound(b, name, namespace or {}) for b in (low, high))
        if spec.dtype.is_float:
            values = rng.uniform(low, high, spec.shape)
        else:
            values = rng.integers(int(low), int(high) + 1, spec.shape)
        out[name] = D.cast(values, spec.dtype)
    unknown = set(settings.inputs) - set(specs)
    if unknown:
        raise SizeError(f"--input {', '.join(sorted(unknown))}: no parameter of that name")
    return out


def run(program: Program, inputs: dict[str, np.ndarray], parameters: bool = False) -> dict[str, Tensor]:
    """Call the entry with fresh copies of the inputs; every Tensor it could write, by name.

    With `parameters` (a comparison across versions), every written parameter is an output by
    its own name, whatever its annotation: what the host reads back in it."""
    machine = program.machine
    head = machine is not None and machine.head
    tensors = {}
    for name, spec in program.specs.items():
        if spec.kind != "Tensor":
            continue
        data = inputs[name].copy()
        if head and spec.direction == "out":  # 2026-08: an Out tensor is not copied in
            data = machine.uninitialised(data.shape, spec.dtype)
        tensors[name] = Tensor(data, np.zeros(inputs[name].shape, dtype=bool), name)
    scalars = {name: inputs[name].item() for name, spec in program.specs.items() if spec.kind == "Scalar"}
    with active(program.machine) if program.machine is not None else contextlib.nullcontext():
        result = program.entry(**tensors, **scalars)
    outputs = {name: t for name, t in tensors.items() if program.specs[name].direction in ("out", "inout")}
    for name, t in tensors.items() if parameters else ():
        if name not in outputs and t.written.any():
            # Up to 2026-03 a written parameter is copied back whatever its annotation; at
            # 2026-08 only Out/InOut ones are, and the host reads zeros for the others.
            outputs[name] = Tensor(np.zeros_like(t.data), t.written, name) if head else t
            if head:
                outputs[name].not_copied_back = True  # verify names the cause of the mismatch it makes
    results = result if isinstance(result, tuple) else (result,)
    for i, value in enumerate(results):
        known = (*outputs.values(), *tensors.values()) if parameters else outputs.values()
        if isinstance(value, Tensor) and not any(value.data is t.data for t in known):
            outputs[f"return[{i}]" if len(results) > 1 else "return"] = value
    return outputs


def _bound(bound, name: str, namespace: dict) -> float:
    if not isinstance(bound, str):
        return bound
    try:
        return float(eval(bound, {"__builtins__": {"min": min, "max": max}}, namespace))
    except Exception as exc:
        raise SizeError(f"--input {name}: bound {bound!r}: {type(exc).__name__}: {exc}") from None


def applicable(text: str, sets: dict, inputs: dict) -> tuple[dict, dict]:
    """The sizes of `sets`/`inputs` that name a module constant, a builder parameter or a
    function parameter of this file (project-wide defaults skip the rest silently)."""
    if not (sets or inputs):
        return {}, {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}, {}
    params = {a.arg for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for a in n.args.args + n.args.kwonlyargs}
    names = module_names(tree) | params
    return {k: v for k, v in sets.items() if k in names}, {k: v for k, v in inputs.items() if k in params}


def _builder(tree: ast.Module) -> str | None:
    found = builders(tree)
    return found[0] if found else None


