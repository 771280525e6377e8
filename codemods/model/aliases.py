"""Which expressions name the pypto.language module, by Python's scoping rules.

LibCST's QualifiedNameProvider answers this too, but builds full scope metadata for every
node and dominated the run time; we need one fact: does `pl.view` here mean
`pypto.language.view`? A scope stack of bound names answers it in one cheap pass per
function body. A name bound in a function (parameter, assignment, loop or `with` target,
import, def) hides the module's import; class bodies do not leak into their methods;
`global` defers to the module. Bindings are read off statements only, so a walrus inside an
expression is not seen; kernels do not bind names that way.
"""

from __future__ import annotations

import libcst as cst

from ..syntax.memo import cached
from ..syntax.nodes import code, statements
from ..syntax.traversal import COMPOUND_TYPES

NOT_MODULE = ""  # a binding that is not an import of interest


def _import_bindings(node: cst.Import | cst.ImportFrom) -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = code(alias.name)
            if alias.asname is not None:
                out[alias.asname.name.value] = full  # type: ignore[union-attr]
            else:
                root = full.split(".")[0]
                out[root] = root
        return out
    if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
        return out
    base = code(node.module)
    for alias in node.names:
        name = alias.name.value if isinstance(alias.name, cst.Name) else code(alias.name)
        bound = alias.asname.name.value if alias.asname is not None else name  # type: ignore[union-attr]
        out[bound] = f"{base}.{name}"
    return out


def _targets(node, bind) -> None:
    if type(node) is cst.Name:  # exact types: isinstance on LibCST's classes goes through ABCMeta
        bind(node.value)
    elif type(node) is cst.Tuple or type(node) is cst.List:
        for element in node.elements:
            _targets(element.value, bind)
    elif type(node) is cst.StarredElement:
        _targets(node.value, bind)


def _bind_statements(body, names: dict[str, set[str]], globals_: set[str]) -> None:
    """Names bound directly in a scope, found by walking statements only (fast: expressions are
    not entered, so a walrus inside an expression is not seen; kernels do not use them)."""

    def bind(name: str, target: str = NOT_MODULE) -> None:
        names.setdefault(name, set()).add(target)

    for statement in body:
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if type(small) is cst.Assign:
                    for t in small.targets:
                        _targets(t.target, bind)
                elif type(small) is cst.AnnAssign or type(small) is cst.AugAssign:
                    _targets(small.target, bind)
                elif type(small) is cst.Import or type(small) is cst.ImportFrom:
                    for name, target in _import_bindings(small).items():
                        bind(name, target)
                elif type(small) is cst.Global or type(small) is cst.Nonlocal:
                    globals_.update(n.name.value for n in small.names)
        elif type(statement) is cst.FunctionDef or type(statement) is cst.ClassDef:
            bind(statement.name.value)
        elif type(statement) in COMPOUND_TYPES:
            if type(statement) is cst.For:
                _targets(statement.target, bind)
            elif type(statement) is cst.With:
                for item in statement.items:
                    if item.asname is not None:
                        _targets(item.asname.name, bind)
            elif type(statement) is cst.Try:
                for handler in statement.handlers:
                    if handler.name is not None:
                        _targets(handler.name.name, bind)
                    _bind_statements(statements(handler), names, globals_)
                for part in (statement.orelse, statement.finalbody):
                    if part is not None:
                        _bind_statements(statements(part), names, globals_)
            _bind_statements(statements(statement), names, globals_)
            orelse = getattr(statement, "orelse", None)
            if type(orelse) is cst.If:  # elif
                _bind_statements([orelse], names, globals_)
            elif type(orelse) is cst.Else:
                _bind_statements(statements(orelse), names, globals_)




def scope_of(node: cst.Module | cst.FunctionDef | cst.Lambda | cst.ClassDef) -> dict[str, set[str]]:
    """The names bound directly in a scope; trees are immutable, so each is computed once per file."""
    return cached("scope", node, _collect)


def _collect(node) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    globals_: set[str] = set()
    if isinstance(node, (cst.FunctionDef, cst.Lambda)):
        for param in _params(node.params):
            names.setdefault(param.name.value, set()).add(NOT_MODULE)
        if isinstance(node, cst.FunctionDef):
            _bind_statements(statements(node), names, globals_)
    elif isinstance(node, cst.ClassDef):
        _bind_statements(statements(node), names, globals_)
    else:
        _bind_statements(node.body, names, globals_)
    for name in globals_:
        names.pop(name, None)
    return names


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
    while type(node) is cst.Attribute:  # exact types: LibCST's classes are final (no ABCMeta)
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
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
        module = self.resolve(parts[0])
        return None if module is None else ".".join([module] + parts[1:])

    def resolve(self, name: str) -> str | None:
        """The module a bare name stands for here (`pypto.language` for `pl`), else None."""
        innermost = len(self._stack) - 1
        for depth in range(innermost, -1, -1):
            is_class, names = self._stack[depth]
            if is_class and depth != innermost:
                continue  # a class body's names are not visible inside its methods
            targets = names.get(name)
            if targets:
                modules = [t for t in targets if t]
                return modules[0] if modules else None
        return None
