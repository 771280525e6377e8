"""Which expressions name the pypto.language module, by Python's scoping rules.

LibCST's QualifiedNameProvider answers this too, but builds full scope metadata for every
node and dominated the run time; we need one fact: does `pl.view` here mean
`pypto.language.view`? A scope stack of bound names answers it in one cheap pass per
function body. A name bound in a function (parameter, assignment, loop or `with` target,
import, def) hides the module's import; class bodies do not leak into their methods;
`global` defers to the module.
"""

from __future__ import annotations

import libcst as cst

NOT_MODULE = ""  # a binding that is not an import of interest


def _import_bindings(node: cst.Import | cst.ImportFrom) -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = cst.Module([]).code_for_node(alias.name)
            if alias.asname is not None:
                out[alias.asname.name.value] = full  # type: ignore[union-attr]
            else:
                root = full.split(".")[0]
                out[root] = root
        return out
    if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return out
    base = cst.Module([]).code_for_node(node.module)
    for alias in node.names:
        name = alias.name.value if isinstance(alias.name, cst.Name) else cst.Module([]).code_for_node(alias.name)
        bound = alias.asname.name.value if alias.asname is not None else name  # type: ignore[union-attr]
        out[bound] = f"{base}.{name}"
    return out


class _Bindings(cst.CSTVisitor):
    """Names bound directly in one scope; nested functions and classes are other scopes."""

    def __init__(self) -> None:
        self.names: dict[str, set[str]] = {}
        self.globals: set[str] = set()

    def bind(self, name: str, target: str = NOT_MODULE) -> None:
        self.names.setdefault(name, set()).add(target)

    def _targets(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Name):
            self.bind(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._targets(element.value)
        elif isinstance(node, cst.StarredElement):
            self._targets(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bind(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bind(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ListComp(self, node) -> bool:
        return False

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:  # with ... as x, except ... as x
        self._targets(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_Import(self, node: cst.Import) -> bool:
        for name, target in _import_bindings(node).items():
            self.bind(name, target)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        for name, target in _import_bindings(node).items():
            self.bind(name, target)
        return False

    def visit_Global(self, node: cst.Global) -> None:
        self.globals.update(n.name.value for n in node.names)

    visit_Nonlocal = visit_Global


def scope_of(node: cst.Module | cst.FunctionDef | cst.Lambda | cst.ClassDef) -> dict[str, set[str]]:
    collector = _Bindings()
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        for param in _params(node.params):
            collector.bind(param.name.value)
        node.body.visit(collector)
    elif isinstance(node, cst.ClassDef):
        node.body.visit(collector)
    else:
        for statement in node.body:
            statement.visit(collector)
    for name in collector.globals:
        collector.names.pop(name, None)
    return collector.names


def _params(params: cst.Parameters):
    yield from params.posonly_params
    yield from params.params
    yield from params.kwonly_params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    if params.star_kwarg is not None:
        yield params.star_kwarg


def dotted(node: cst.BaseExpression) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return parts[::-1]


class ScopeTracker:
    """Mixin for LibCST visitors and transformers: resolve names against the scopes entered."""

    _SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)

    def _init_scopes(self, module: cst.Module) -> None:
        self._stack: list[tuple[bool, dict[str, set[str]]]] = [(False, scope_of(module))]

    def _enter(self, node: cst.CSTNode) -> None:
        if isinstance(node, self._SCOPES):
            self._stack.append((isinstance(node, cst.ClassDef), scope_of(node)))  # type: ignore[arg-type]

    def _exit(self, node: cst.CSTNode) -> None:
        if isinstance(node, self._SCOPES):
            self._stack.pop()

    def qualified(self, node: cst.BaseExpression) -> str | None:
        """`pypto.language.view` for `pl.view` where `pl` is that module here; else None."""
        parts = dotted(node)
        if not parts:
            return None
        innermost = len(self._stack) - 1
        for depth in range(innermost, -1, -1):
            is_class, names = self._stack[depth]
            if is_class and depth != innermost:
                continue  # a class body's names are not visible inside its methods
            targets = names.get(parts[0])
            if targets:
                modules = [t for t in targets if t]
                if not modules:
                    return None
                return ".".join([modules[0]] + parts[1:])
        return None
