"""Inference coverage: how much of a file's kernel code the model types completely.

A *kernel expression* is a value the compiler types inside kernel code, written as a name, a
call or a subscript:

- kernel code is the body of a kernel region (`model.kernels.find_regions`: an InCore/AIC/AIV
  function, a `pl.incore()` or `pl.at(level=CORE_GROUP)` block, a chunked loop of
  `pl.auto_incore()`), of any pl function (`@pl.function`, `@pl.jit...`), and the body of an
  `@pl.inline` helper (the compiler parses it in place at each call);
- counted are `Name`, `Call` and `Subscript` nodes in value position there. Not counted, as
  the compiler gives them no value type: what a statement binds (assignment, loop and `with`
  targets), annotations and decorators, the callee of a call (`pl.add`, a helper's name), a
  path of a module (`pl.FP32`, `pl.MemorySpace.Vec`, the `pl` of them), `True`/`False`/`None`,
  a loop's iterator call and a `with` item (`pl.range(...)`, `pl.incore()`: constructs, their
  arguments are counted), and the result of an expression statement (`pl.yield_(a)` or a
  bare `pl.store(...)`: its value is dropped; its arguments are counted);
- an expression is *known* when the model gives it a kind and, for a Tensor, its shape and
  dtype; for a Tile, its shape, dtype and memory space; for a Scalar, its dtype. What is
  missing is listed (`kind`, `shape`, `dtype`, `space`; `untyped` for an expression the
  walk never typed).

A file is measured with the inference its migration uses at the first step it needs
(`chain.first_step`): the planner (`model.inference`, driven by `migrate.planner`) for the
2026-03 step, the upgrade inference (`steps.v2026_08.infer`) for the 2026-08 step, whose
Tiles carry no memory space (the step places none) and are judged without it.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..model.kernels import OpIndex, find_regions, kernel_functions, module_alias
from ..model.values import SCALAR, TENSOR, TILE, UNKNOWN, Val, join
from ..rulebook.loading import ApiTable
from ..syntax.nodes import code, statements
from .chain import first_step
from .parsing import parse
from .planner import Planner, inline_helpers

_COUNTED = (cst.Name, cst.Call, cst.Subscript)
_CONSTANTS = frozenset({"True", "False", "None"})


@dataclass(frozen=True)
class Entry:
    """One kernel expression and what the model misses of it ("" when nothing)."""

    line: int
    text: str
    missing: str
    described: str = ""


def missing(val: Val | None, space: bool = True) -> str:
    """What of `val` the model does not know, by the rules of this module's docstring."""
    if val is None:
        return "untyped"
    if val.kind == UNKNOWN:
        return "kind"
    gaps = []
    if val.kind in (TENSOR, TILE) and not val.shape:
        gaps.append("shape")
    if val.kind in (TENSOR, TILE, SCALAR) and not _dtype_known(val):
        gaps.append("dtype")
    if space and val.kind == TILE and not val.space:
        gaps.append("space")
    return ",".join(gaps)


def _dtype_known(val: Val) -> bool:
    """A dtype is known where it is named; the upgrade inference's `const` (a Python number the
    parser folds: INDEX or FP32 by its Python type) names one for a scalar only."""
    return bool(val.dtype) and (val.dtype != "const" or val.kind == SCALAR)


# -- which expressions count ------------------------------------------------------------


class _Counter:
    def __init__(self, module: cst.Module, ops: dict) -> None:
        self.ops = ops
        self.modules = _module_names(module) | {module_alias(ops)}
        self.found: list[cst.CSTNode] = []

    def statement(self, s) -> None:
        kind = type(s)
        if kind is cst.SimpleStatementLine:
            for small in s.body:
                self.small(small)
        elif kind is cst.For:
            self.dropped(s.iter)
            self.block(s)
        elif kind is cst.While or kind is cst.If:
            self.expr(s.test)
            self.block(s)
            orelse = s.orelse
            while orelse is not None:
                if type(orelse) is cst.If:
                    self.expr(orelse.test)
                self.block(orelse)
                orelse = getattr(orelse, "orelse", None) if type(orelse) is cst.If else None
        elif kind is cst.With:
            for item in s.items:
                self.dropped(item.item)
            self.block(s)

    def block(self, node) -> None:
        for s in statements(node):
            self.statement(s)

    def small(self, small) -> None:
        kind = type(small)
        if kind in (cst.Assign, cst.AnnAssign, cst.AugAssign):
            if small.value is not None:
                self.expr(small.value)
        elif kind is cst.Expr:
            self.dropped(small.value)
        elif kind is cst.Return and small.value is not None:
            self.expr(small.value)

    def dropped(self, node) -> None:
        """A value the code throws away (or a construct): its parts count, not itself."""
        if type(node) is cst.Call:
            self.arguments(node)
        else:
            self.expr(node)

    def arguments(self, call: cst.Call) -> None:
        if type(call.func) is not cst.Name and not self.module_path(call.func):
            self.expr(call.func)  # a method's object
        for arg in call.args:
            self.expr(arg.value)

    def module_path(self, node) -> bool:
        while type(node) is cst.Attribute:
            if node in self.ops:
                return True
            node = node.value
        return type(node) is cst.Name and node.value in self.modules

    def expr(self, node) -> None:
        kind = type(node)
        if kind is cst.Name:
            if node.value not in _CONSTANTS and node.value not in self.modules:
                self.found.append(node)
        elif kind is cst.Call:
            self.found.append(node)
            self.arguments(node)
        elif kind is cst.Subscript:
            self.found.append(node)
            self.expr(node.value)
            for element in node.slice:
                self.expr(element.slice)
        elif kind is cst.Attribute:
            if not self.module_path(node):
                self.expr(node.value)
        elif kind in (cst.Index, cst.Slice):
            for part in (getattr(node, "value", None), getattr(node, "lower", None),
                         getattr(node, "upper", None), getattr(node, "step", None)):
                if part is not None:
                    self.expr(part)
        elif kind in (cst.Lambda, cst.FormattedString, cst.SimpleString, cst.ConcatenatedString):
            return
        else:
            for child in _expression_children(node):
                self.expr(child)


def _expression_children(node) -> list:
    out = []
    for name in ("left", "right", "expression", "value", "test", "body", "orelse", "lower", "upper", "step"):
        child = getattr(node, name, None)
        if isinstance(child, cst.BaseExpression):
            out.append(child)
    for element in getattr(node, "elements", ()) or ():
        out.append(element.value)
    for comparison in getattr(node, "comparisons", ()) or ():
        out.append(comparison.comparator)
    return out


def _module_names(module: cst.Module) -> set[str]:
    """Names an `import` statement binds: modules, whose attributes are paths, not values."""
    found = set()
    for node in statements(module):
        if type(node) is cst.SimpleStatementLine:
            for small in node.body:
                if type(small) is cst.Import:
                    for alias in small.names:
                        found.add(alias.asname.name.value if alias.asname is not None else code(alias.name).split(".")[0])
    return found


def kernel_scopes(module: cst.Module, ops: dict, functions) -> list:
    """The statement lists of kernel code: each kernel region of `functions`, and each
    `@pl.inline` helper's body."""
    bodies, seen = [], set()
    for func, consts in functions:
        for region, body in find_regions(func, ops, consts):
            if id(region.node) not in seen:
                seen.add(id(region.node))
                bodies.append(body)
    for helper in inline_helpers(module, ops).values():
        bodies.append(statements(helper))
    return bodies


def kernel_expressions(module: cst.Module, ops: dict, functions) -> list[cst.CSTNode]:
    counter = _Counter(module, ops)
    for body in kernel_scopes(module, ops, functions):
        for s in body:
            counter.statement(s)
    unique, seen = [], set()
    for node in counter.found:
        if id(node) not in seen:
            seen.add(id(node))
            unique.append(node)
    return unique


# -- what the inferences say ------------------------------------------------------------


class _Recorder(Planner):
    """The planner, noting what it typed each expression as (joined over the times it did)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.typed: dict[int, tuple[cst.CSTNode, Val]] = {}

    def _expr(self, node, env, sc):
        val = super()._expr(node, env, sc)
        self._note(node, val)
        return val

    def _note(self, node, val: Val) -> None:
        seen = self.typed.get(id(node))
        self.typed[id(node)] = (node, val if seen is None or seen[0] is not node else join(seen[1], val))


def planner_types(module: cst.Module, api: ApiTable) -> tuple[dict, list[cst.CSTNode]]:
    recorder = _Recorder(module, api)
    recorder.run()
    functions = [(kf.node, {n: c.value for n, c in kf.constants.items()}) for kf in kernel_functions(module, recorder.ops)]
    nodes = kernel_expressions(module, recorder.ops, functions)
    return {id(n): v for n, v in recorder.typed.values()}, nodes


def upgrade_types(module: cst.Module, api: ApiTable) -> tuple[dict, list[cst.CSTNode]]:
    from ..steps.v2026_08.infer import infer

    ops = OpIndex(module, api.module).ops
    info = infer(module, ops, api)
    functions = [(f, (info.local or {}).get(f, info.constants)) for f in info.functions]
    nodes = kernel_expressions(module, ops, functions)
    wanted = {id(n) for n in nodes}
    typed = {}
    for site in info.sites:
        for node in site.own:
            if id(node) in wanted and id(node) not in typed:
                typed[id(node)] = info.type_of(node, site.env)
    return typed, nodes


def measure(text: str, tables: list[ApiTable]) -> tuple[str, list[Entry]]:
    """The step whose inference typed the file, and each kernel expression of it."""
    module = parse(text)
    step = first_step(text, tables)
    upgrade = step > 0
    typed, nodes = (upgrade_types if upgrade else planner_types)(module, tables[step])
    lines = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    entries = []
    for node in nodes:
        val = typed.get(id(node))
        entries.append(Entry(lines[node].start.line, _short(code(node)), missing(val, space=not upgrade),
                             val.describe() if val is not None else ""))
    return tables[step].step, entries


def _short(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
