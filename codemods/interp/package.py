"""Sizes across the modules of a kernel's own folder: a kernel file that calls kernels of its
sibling modules (`from decode_indexer_compressor import indexer_compressor`), all of them
sized from one config module (`from config import FLASH as M`, `D = M.hidden_size`).

Each sibling builds its kernels at its own module constants, so small sizes chosen for the
kernel file alone would not reach them. Here the modules the file imports from its folder
(transitively) become one module for `sizing`: every module's top-level names are qualified
by their module (`decode_indexer_compressor.K_CHUNK`), an imported name is the name it
imports, and a config value read at module level (`M.hidden_size`) is one size of its own,
shared by every module that reads it. `sizing` then keeps every module's relations and those
between a call's tensors and the called kernel's parameters. The sizes chosen are applied to
each module as `--set` is to the kernel file: its module-level assignments replaced, at import.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from dataclasses import dataclass, field

from .sources import builders, module_names

SEP = "__"  # between a module and its name in the merged module (`config__DECODE_BATCH`)


@dataclass
class Package:
    tree: ast.Module  # every module in one, for sizing
    modules: list[str]  # the folder's modules, dependencies first; "" is the kernel file
    display: dict[str, str] = field(default_factory=dict)  # merged name -> as --set names it
    assigned: dict[str, dict[str, str]] = field(default_factory=dict)  # module -> {its constant: merged name}
    known: dict[str, int] = field(default_factory=dict)  # merged name -> its value at the file's own sizes
    aliases: dict[str, str] = field(default_factory=dict)  # merged name -> the name it only copies (`B = DECODE_BATCH`)
    sources: set[str] = field(default_factory=set)  # config values read at module level (`config.FLASH.hidden_size`)
    origin: dict[str, tuple[str, str]] = field(default_factory=dict)  # merged name -> (module, its name there)

    def merged(self, name: str) -> str | None:
        """The merged name of a `--set` name (`K_CHUNK`, `decode_indexer_compressor.K_CHUNK`,
        `config.FLASH.hidden_size`); a size given for a copy fixes what it copies."""
        found = {shown: m for m, shown in self.display.items()}.get(name)
        seen = set()
        while found in self.aliases and found not in seen:
            seen.add(found)
            found = self.aliases[found]
        return found

    def runtime_sets(self, env: dict, own: dict, always: set[str] = frozenset()) -> dict[str, str]:
        """Every module constant whose value moved from `own` (the values the modules have when
        run as they are, not those a `--set` gave), as `--set` takes it (`NAME` of the kernel
        file, `module.NAME` of a sibling): applying them rebuilds each module at these sizes."""
        out = {}
        for module, names in self.assigned.items():
            for name, merged in names.items():
                new, old = env.get(merged), own.get(merged)
                if _int(new) is not None and _int(old) is not None and (new != old or merged in always):
                    out[f"{module}.{name}" if module else name] = str(new)
        return out


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def folder_imports(tree: ast.Module, folder: str) -> list[tuple[str, ast.stmt]]:
    """The top-level imports of modules of `folder` (a flat module beside the file)."""
    out = []
    for node in tree.body:
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            if "." not in name and os.path.isfile(os.path.join(folder, name + ".py")):
                out.append((name, node))
    return out


def siblings(path: str, tree: ast.Module) -> dict[str, ast.Module]:
    """The folder's modules the file imports, transitively, dependencies first."""
    folder = os.path.dirname(os.path.abspath(path))
    found: dict[str, ast.Module | None] = {}

    def visit(t: ast.Module) -> None:
        for name, _ in folder_imports(t, folder):
            if name in found:
                continue
            found[name] = None  # a cycle stops here
            file = os.path.join(folder, name + ".py")
            try:
                with open(file, encoding="utf-8") as f:
                    dep = ast.parse(f.read(), file)
            except (OSError, SyntaxError, ValueError):
                del found[name]
                continue
            visit(dep)
            found.pop(name)
            found[name] = dep  # after its own dependencies

    visit(tree)
    return {k: v for k, v in found.items() if v is not None}


def build(path: str, tree: ast.Module, namespaces: dict[str, dict]) -> Package:
    """The merged module of `tree` (the kernel file at `path`) and its folder's modules;
    `namespaces` are their values once run at the file's own sizes ("" the kernel file's)."""
    deps = siblings(path, tree)
    trees = {**deps, "": tree}
    folder = os.path.dirname(os.path.abspath(path))
    package = Package(ast.Module([], []), list(trees))
    maps: dict[str, dict[str, str]] = {}
    modules_as: dict[str, dict[str, str]] = {}  # module -> {local name: folder module it binds (`import m as x`)}
    body: list[ast.stmt] = []
    for module, t in trees.items():
        prefix = module + SEP if module else ""
        names: dict[str, str] = {}
        own = module_names(t)
        for node in t.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names[node.name] = prefix + node.name
        for n in own:
            names[n] = prefix + n
        for n, merged in names.items():
            package.origin[merged] = (module, n)
        bound: dict[str, str] = {}
        for dep, node in folder_imports(t, folder):
            for a in node.names:
                # The module's own assignment of a name wins over an import of it (the value it
                # ends with at module level).
                if isinstance(node, ast.ImportFrom) and a.name == "*":
                    for n, merged in maps.get(dep, {}).items():
                        if not n.startswith("_"):
                            names.setdefault(n, merged)
                elif isinstance(node, ast.ImportFrom):
                    names.setdefault(a.asname or a.name, maps.get(dep, {}).get(a.name, dep + SEP + a.name))
                elif a.name == dep:
                    bound[a.asname or a.name] = dep
        maps[module], modules_as[module] = names, bound
        package.assigned[module] = {n: prefix + n for n in own}
        for n in own:
            package.display[prefix + n] = f"{module}.{n}" if module else n
        for n, v in namespaces.get(module, {}).items():
            if n in own and _int(v) is not None:
                package.known[prefix + n] = v
        if module:
            # A sibling's golden reference, test harness or own program builder: verify never runs them.
            kept = _kernels_and_helpers(t) - set(builders(t))
            t.body = [n for n in t.body if not isinstance(n, ast.FunctionDef) or n.name in kept]
        renamed = _Rename(names, bound, maps, namespaces, trees, package, module).visit(t if module else _copy(t))
        for node in renamed.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            body.append(node)
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Name)):
                package.aliases[node.targets[0].id] = node.value.id
    sources = [ast.Assign([ast.Name(s, ast.Store())], ast.Constant(package.known[s])) for s in sorted(package.sources)]
    package.tree = ast.fix_missing_locations(ast.Module(sources + body, []))
    return package


def _kernels_and_helpers(tree: ast.Module) -> set[str]:
    """The module's pl functions and the module functions they call (a helper computing a tile)."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    todo = [name for name, fn in functions.items() if any(_pl(d) for d in fn.decorator_list)]
    kept: set[str] = set()
    while todo:
        name = todo.pop()
        if name in kept:
            continue
        kept.add(name)
        todo += [c.func.id for c in ast.walk(functions[name]) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id in functions]
    return kept


def _pl(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(target, ast.Attribute):
        target = target.value
    return isinstance(target, ast.Name) and target.id == "pl"


def _copy(tree: ast.Module) -> ast.Module:
    import copy

    return copy.deepcopy(tree)


class _Rename(ast.NodeTransformer):
    """One module's names as the merged module has them; a function's own names stay its own."""

    def __init__(self, names, bound, maps, namespaces, trees, package: Package, module: str) -> None:
        self.names, self.bound, self.maps = names, bound, maps
        self.namespaces, self.trees, self.package, self.module = namespaces, trees, package, module
        self.local: list[set[str]] = []
        self.depth = 0

    def visit_FunctionDef(self, node):
        if not self.local and node.name in self.names:
            node.name = self.names[node.name]
        args = node.args
        params = {a.arg for a in args.args + args.kwonlyargs + args.posonlyargs}
        params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for a in args.defaults + args.kw_defaults:
            if a is not None:
                self.visit(a)
        for d in node.decorator_list:
            self.visit(d)
        for a in args.args + args.kwonlyargs + args.posonlyargs:
            if a.annotation is not None:
                a.annotation = self.visit(a.annotation)
        self.local.append(params | stored)
        self.depth += 1
        node.body = [self.visit(s) for s in node.body]
        self.depth -= 1
        self.local.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        if not self.local and node.name in self.names:
            node.name = self.names[node.name]
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def _is_local(self, name: str) -> bool:
        return any(name in scope for scope in self.local)

    def visit_Name(self, node):
        if not self._is_local(node.id) and node.id in self.names:
            node.id = self.names[node.id]
        return node

    def visit_Attribute(self, node):
        chain, root = [], node
        while isinstance(root, ast.Attribute):
            chain.append(root.attr)
            root = root.value
        if self.depth == 0 and isinstance(root, ast.Name) and not self._is_local(root.id) and isinstance(node.ctx, ast.Load):
            chain.reverse()
            if root.id in self.bound:  # `import config as C`, `C.DECODE_BATCH`
                dep = self.bound[root.id]
                name = self.maps.get(dep, {}).get(chain[0])
                if name is not None and len(chain) == 1:
                    return ast.copy_location(ast.Name(name, ast.Load()), node)
            elif root.id in self.names:
                # A config value read at module level (`M.hidden_size`): one size, named by where
                # it lives; a property computed from others (`M.index_nope_head_dim`) is that
                # computation of theirs.
                found = self._resolve(self.names[root.id], chain)
                if found is not None:
                    return ast.copy_location(found, node)
        return self.generic_visit(node)

    def _resolve(self, merged: str, chain: list[str], depth: int = 0) -> ast.expr | None:
        value = self._value(merged, chain)
        if _int(value) is None or depth > 8:
            return None
        computed = self._property(merged, chain, depth)
        if computed is not None:
            return computed
        source = SEP.join([merged, *chain])
        self.package.sources.add(source)
        self.package.known[source] = value
        owner, base = self.package.origin.get(merged, ("", merged))
        self.package.display[source] = ".".join(p for p in (owner, base, *chain) if p)
        return ast.Name(source, ast.Load())

    def _property(self, merged: str, chain: list[str], depth: int) -> ast.expr | None:
        """`return self.a - self.b` of a property, as an expression of the sizes `a` and `b`."""
        holder = self._value(merged, chain[:-1])
        prop = next((vars(k)[chain[-1]] for k in type(holder).__mro__ if chain[-1] in vars(k)), None)
        if not isinstance(prop, property) or prop.fget is None:
            return None
        try:
            fn = ast.parse(textwrap.dedent(inspect.getsource(prop.fget))).body[0]
        except (OSError, TypeError, SyntaxError, IndexError):
            return None
        body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if not (isinstance(fn, ast.FunctionDef) and len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value):
            return None
        me = fn.args.args[0].arg if fn.args.args else "self"

        class Fields(ast.NodeTransformer):
            failed = False

            def visit_Attribute(inner, n):
                if isinstance(n.value, ast.Name) and n.value.id == me:
                    found = self._resolve(merged, [*chain[:-1], n.attr], depth + 1)
                    if found is None:
                        inner.failed = True
                        return n
                    return found
                return inner.generic_visit(n)

            def visit_Name(inner, n):
                inner.failed = inner.failed or n.id == me
                return n

        t = Fields()
        expr = t.visit(body[0].value)
        if t.failed or any(isinstance(n, (ast.Call, ast.Attribute, ast.Subscript)) for n in ast.walk(expr)):
            return None
        return expr

    def _value(self, merged: str, chain: list[str]):
        module, name = self.package.origin.get(merged, ("", merged))
        value = self.namespaces.get(module, {}).get(name)
        for attr in chain:
            try:
                value = getattr(value, attr)
            except Exception:
                return None
        return value
