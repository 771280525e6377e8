"""The engine's safety net: errors of an output that the compiler's parser would find first.

Two of them no rule is written to look for, since they come from rules working together (one
rewrites a binding, another a read of it; one changes a value's type, another keeps its name):

- a name read where it is not bound on some path (the binding moved into a branch or a loop,
  a definition dropped, a rename that missed a read): Python's own flow, per function. An
  output is held to it only where its input was not: a pair (function, name) the input reads
  that way too is the user's code, not the migration's doing;
- at a step whose rules say the target refuses to re-bind a name with another type (the kind
  `upgrade-rebind-new-type`), such a re-binding left in the output without a review marker
  above it: that rule's own detection, run again on what the whole step wrote.

`guard` writes a review marker above each statement found (the engine's marker form, rule
`API` for the first, the re-binding rule's id for the second) and returns the errors.
"""

from __future__ import annotations

import ast
import builtins
from typing import NamedTuple

import libcst as cst

from ..check.findings import MARKER
from ..check.results import Finding
from ..model.kernels import OpIndex
from ..rulebook.loading import ApiTable, Rule
from .parsing import ast_children

REBIND_KIND = "upgrade-rebind-new-type"
UNBOUND_ID = "API"
_BUILTINS = frozenset(dir(builtins)) | {"__file__", "__name__", "__doc__", "__builtins__", "__spec__"}


class Problem(NamedTuple):
    line: int  # of the name, 1-based, in the text checked
    column: int
    statement: int  # the first line of the statement it is in (where a marker goes)
    key: tuple[str, str]  # (function, name): what is compared between input and output
    message: str


# -- names read where they are not bound ----------------------------------------------------


def unbound_reads(text: str) -> list[Problem]:
    """Each read of a name that is not bound there on every path (Python's rules: a loop body
    may run no time, a branch may not be taken; `with` and `try` bodies run), or bound nowhere."""
    tree = ast.parse(text.lstrip("\ufeff"))
    module_names = _bound_anywhere(tree.body)[0] | _BUILTINS
    found: list[Problem] = []
    for func, qual, outer, local in _functions(tree):
        _Flow(func, qual, local, module_names | outer, found).run()
    return found


def _functions(tree):
    """(function, qualified name, names of the functions around it, its own names) for every function."""
    def visit(nodes, path, outer):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = f"{path}.{node.name}" if path else node.name
                local = _locals(node)
                yield node, qual, outer, local
                yield from visit(node.body, qual, outer | local)
            elif isinstance(node, ast.ClassDef):
                yield from visit(node.body, f"{path}.{node.name}" if path else node.name, outer)
            elif isinstance(node, ast.ExceptHandler):
                yield from visit(node.body, path, outer)
            else:
                yield from visit([c for c in ast.iter_child_nodes(node) if isinstance(c, (ast.stmt, ast.ExceptHandler))],
                                 path, outer)
    yield from visit(tree.body, "", frozenset())
    del visit  # a closure that calls itself is a reference cycle (see migrate/collector.py)


def _params(func) -> set[str]:
    a = func.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return set(names)


def _locals(func) -> frozenset[str]:
    bound, declared = _bound_anywhere(func.body)
    return frozenset((bound | _params(func)) - declared)


def _bound_anywhere(body) -> tuple[set[str], set[str]]:
    """The names a block binds, at any depth but not in nested scopes, and those it declares
    `global` or `nonlocal`."""
    found: set[str] = set()
    declared: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
            stack.extend(d for d in node.decorator_list)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                found.add(node.id)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.NamedExpr):
            found.add(node.target.id)
        stack.extend(ast_children(node))
    return found, declared


class _Flow:
    """Definite assignment over one function's statements."""

    def __init__(self, func, qual: str, local: frozenset[str], outside: frozenset[str] | set[str],
                 found: list[Problem]) -> None:
        self.func, self.qual, self.found = func, qual, found
        self.local = local
        self.outside = outside
        self.statement = func.lineno

    def run(self) -> None:
        self.block(self.func.body, set(_params(self.func)))

    def block(self, body, bound: set[str] | None) -> set[str] | None:
        """The names bound after `body` on every path that falls through it; None if none does."""
        for s in body:
            if bound is None:
                return None
            bound = self.one(s, bound)
        return bound

    def one(self, s, bound: set[str]) -> set[str] | None:
        self.statement = s.lineno
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in s.decorator_list:
                self.reads(d, bound)
            return bound | {s.name}
        if isinstance(s, ast.Assign):
            self.reads(s.value, bound)
            for t in s.targets:
                self.bind(t, bound)
            return bound
        if isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.reads(s.value, bound)
                self.bind(s.target, bound)
            return bound
        if isinstance(s, ast.AugAssign):
            self.reads(s.value, bound)
            self.reads(s.target, bound, load_target=True)
            self.bind(s.target, bound)
            return bound
        if isinstance(s, (ast.Return, ast.Raise)):
            for part in (getattr(s, "value", None), getattr(s, "exc", None), getattr(s, "cause", None)):
                if part is not None:
                    self.reads(part, bound)
            return None
        if isinstance(s, (ast.Break, ast.Continue)):
            return None
        if isinstance(s, ast.If):
            self.reads(s.test, bound)
            return _join(self.block(s.body, set(bound)), self.block(s.orelse, set(bound)))
        if isinstance(s, (ast.For, ast.AsyncFor)):
            self.reads(s.iter, bound)
            inner = set(bound)
            self.bind(s.target, inner)
            self.block(s.body, inner)  # it may run no time: what it binds is not bound after
            after = self.block(s.orelse, set(bound))
            if after is not None and _carries(s.iter):
                # A loop with init_values binds its header names and what its yield_ is assigned
                # to after it, whether it ran or not (the DSL's loop-carried values)
                after |= _names_of(s.target) | _yield_targets(s.body)
            return after
        if isinstance(s, ast.While):
            self.reads(s.test, bound)
            self.block(s.body, set(bound))
            return self.block(s.orelse, set(bound))
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.reads(item.context_expr, bound)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, bound)
            return self.block(s.body, bound)
        if isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            after = self.block(s.body, set(bound))
            after = self.block(s.orelse, after) if after is not None else None
            for h in s.handlers:
                inner = set(bound) | ({h.name} if h.name else set())
                after = _join(after, self.block(h.body, inner))
            if s.finalbody:
                return self.block(s.finalbody, after if after is not None else set(bound)) if after is not None else None
            return after
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return bound | {(a.asname or a.name).split(".")[0] for a in s.names if a.name != "*"}
        if isinstance(s, (ast.Global, ast.Nonlocal, ast.Pass)):
            return bound
        for child in ast_children(s):  # an expression statement, assert, del, match...
            if isinstance(child, ast.expr):
                self.reads(child, bound)
        return bound

    def bind(self, target, bound: set[str]) -> None:
        if isinstance(target, ast.Name):
            bound.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self.bind(e, bound)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, bound)
        else:  # x[i] = ..., x.a = ...: reads x
            self.reads(target, bound, load_target=True)

    def reads(self, node, bound: set[str], load_target: bool = False, hidden: frozenset[str] = frozenset()) -> None:
        stack = [(node, hidden)]
        while stack:
            n, hide = stack.pop()
            if isinstance(n, ast.Name):
                if isinstance(n.ctx, ast.Load) or load_target:
                    self.read(n, bound, hide)
                continue
            if isinstance(n, ast.Lambda):
                stack.append((n.body, hide | _params(n)))
                stack.extend((d, hide) for d in n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
                continue
            if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                inner = hide | {x.id for g in n.generators for x in ast.walk(g.target) if isinstance(x, ast.Name)}
                stack.extend((child, inner) for child in ast_children(n))
                continue
            if isinstance(n, ast.NamedExpr):
                stack.append((n.value, hide))
                bound.add(n.target.id)
                continue
            stack.extend([(child, hide) for child in ast_children(n)])

    def read(self, n: ast.Name, bound: set[str], hidden) -> None:
        name = n.id
        if name in bound or name in hidden:
            return
        if name in self.local:
            message = f"{name} is read here but is not bound on every path that reaches it"
        elif name in self.outside:
            return
        else:
            message = f"{name} is read but nothing defines it"
        self.found.append(Problem(n.lineno, n.col_offset + 1, self.statement, (self.qual, name), message))


def _carries(iterator) -> bool:
    return isinstance(iterator, ast.Call) and any(k.arg == "init_values" for k in iterator.keywords)


def _names_of(target) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _yield_targets(body) -> set[str]:
    """The names a loop body assigns a `yield_(...)` to, outside the loops nested in it."""
    found, stack = set(), list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call):
            func = node.value.func
            if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) == "yield_":
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    found |= _names_of(t)
        stack.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt))
    return found


def _join(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    if a is None:
        return b
    if b is None:
        return a
    return a & b


# -- re-bindings the target refuses --------------------------------------------------------


def refused_rebindings(module: cst.Module, api: ApiTable, rule: Rule) -> list[tuple[int, str]]:
    """(statement's first line, message) for each re-binding the rule would still rename, re-lay
    out or flag in `module`."""
    from ..steps.v2026_08.base import binding
    from ..steps.v2026_08.rebind import RebindNewType

    found: list[tuple[cst.CSTNode, str]] = []

    class Detector(RebindNewType):
        def flag(self, site, message: str) -> None:
            found.append((site.statement, message))

        def rewrite(self, node, how) -> None:
            statement = self._statements.get(id(node))
            if statement is not None:
                name, _ = binding(statement)
                found.append((statement, f"`{name}` is re-bound here to a value of another type than it had: "
                                         "the target refuses it (\"Cannot reassign ... with a different type\"); "
                                         "give this value a name of its own"))

    class Context:
        pass

    ctx = Context()
    ctx.module, ctx.ops = module, OpIndex(module, api.module).ops
    detector = Detector(rule, api)
    detector._statements = {}
    from ..steps.v2026_08.infer import infer

    for site in infer(module, ctx.ops, api).sites:
        name, value = binding(site.statement)
        if name is not None:
            small = site.statement.body[0]
            target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
            detector._statements[id(target)] = site.statement
            detector._statements[id(value)] = site.statement
    detector.begin(ctx)
    if not found:
        return []
    from ..syntax.positions import starts

    where = starts(module, [statement for statement, _ in found])
    out, seen = [], set()
    for statement, message in found:
        line = where[id(statement)][0]
        if line not in seen:
            seen.add(line)
            out.append((line, message))
    return out


# -- the net ------------------------------------------------------------------------------


def guard(source: str, output: str, out_module: cst.Module, rules: tuple[Rule, ...], api: ApiTable
          ) -> tuple[str, list[Finding]]:
    """The output with a review marker above each statement the net catches (one not already
    under an open marker), and the errors it found, at the output's lines."""
    problems: list[tuple[int, int, int, str, str]] = []  # (marker line, line, column, rule id, message)
    try:
        found = unbound_reads(output)
        had = {p.key for p in unbound_reads(source)} if found else set()
        problems += [(p.statement, p.line, p.column, UNBOUND_ID, p.message) for p in found if p.key not in had]
    except (SyntaxError, ValueError, RecursionError):
        pass
    rebind = next((r for r in rules if r.kind == REBIND_KIND), None)
    if rebind is not None:
        for line, message in refused_rebindings(out_module, api, rebind):
            problems.append((line, line, 1, rebind.id, message))
    if not problems:
        return output, []
    text_lines = output.splitlines(keepends=True)
    marked, findings = {}, []
    for at, line, column, rule_id, message in sorted(problems):
        if _under_marker(text_lines, at):
            continue  # a rule flagged it already: a person is on it, and the marker says so
        findings.append(Finding(rule_id, line, column, message, "error"))
        marked.setdefault((at, rule_id), message)
    if not marked:
        return output, findings
    for (at, rule_id), message in sorted(marked.items(), reverse=True):
        first = text_lines[at - 1]
        indent = first[: len(first) - len(first.lstrip())]
        newline = "\r\n" if first.endswith("\r\n") else "\n"
        text_lines.insert(at - 1, f"{indent}# pypto-migrate: review {rule_id}: {' '.join(message.split())}{newline}")
    # the errors' lines, moved down by the markers written above them
    shifted = []
    for f in findings:
        above = sum(1 for (at, _) in marked if at <= f.line)
        shifted.append(Finding(f.rule, f.line + above, f.column, f.message, f.level))
    return "".join(text_lines), shifted


def _under_marker(lines: list[str], at: int) -> bool:
    """Whether an open review marker stands in the comment lines right above line `at`."""
    i = at - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        m = MARKER.search(lines[i].strip())
        if m and m.group("state") == "review":
            return True
        i -= 1
    return False
