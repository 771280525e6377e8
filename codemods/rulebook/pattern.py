"""A call-pattern language small enough to read at a glance.

    pl.view($src, $shape, $offset, **$kw)   ->   pl.slice($src, $shape, $offset, **$kw)

`pl` stands for the pypto.language module however the file imports it. In a pattern:
  $name      one positional argument (never a `*splat`)
  *$name     every remaining positional argument, splats included
  key=$name  a keyword argument that must be present
  **$name    every remaining keyword argument (and `**splat`)
  anything else must be equal to the argument's code, whitespace aside.
The replacement is a call built from the same metavariables plus literal code. Captured
arguments are reused as nodes, so comments and line breaks inside them survive, and the
i-th argument of the output takes the separator and trailing comma layout of the i-th
argument of the input.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst

from ..syntax.nodes import code

_MV = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_PREFIX = "__mv_"


class PatternError(ValueError):
    pass


@dataclass(frozen=True)
class Slot:
    """One argument of a pattern or replacement call."""

    kind: str  # "one" | "rest" | "kwrest" | "literal"
    var: str | None  # metavariable name, or None for literal code
    keyword: str | None  # keyword name for `key=...` slots
    node: cst.Arg  # the parsed template argument (used for literals)


@dataclass(frozen=True)
class CallTemplate:
    callee: tuple[str, ...]  # attribute path after the module alias: ("view",), ("tile", "read")
    slots: tuple[Slot, ...]
    func: cst.BaseExpression  # the parsed callee, `pl.view`

    @property
    def op(self) -> str:
        return ".".join(self.callee)


def _dotted(node: cst.BaseExpression) -> tuple[str, ...]:
    if isinstance(node, cst.Name):
        return (node.value,)
    if isinstance(node, cst.Attribute):
        return _dotted(node.value) + (node.attr.value,)
    raise PatternError("the callee must be a dotted name such as pl.view")


def _var(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name) and node.value.startswith(_PREFIX):
        return node.value[len(_PREFIX):]
    return None


@lru_cache(maxsize=512)
def compile_call(text: str, module_alias: str = "pl") -> CallTemplate:
    try:
        expr = cst.parse_expression(_MV.sub(lambda m: _PREFIX + m.group(1), text))
    except cst.ParserSyntaxError as exc:
        raise PatternError(f"not a Python call expression: {text!r}") from exc
    if not isinstance(expr, cst.Call):
        raise PatternError(f"a pattern must be a call, got {text!r}")
    path = _dotted(expr.func)
    if path[0] != module_alias or len(path) < 2:
        raise PatternError(f"the callee must start with '{module_alias}.': {text!r}")
    slots = []
    for arg in expr.args:
        var = _var(arg.value)
        keyword = arg.keyword.value if arg.keyword else None
        if arg.star == "*":
            if var is None:
                raise PatternError(f"*{code(arg.value)} must be *$name")
            slots.append(Slot("rest", var, None, arg))
        elif arg.star == "**":
            if var is None:
                raise PatternError("** must be **$name")
            slots.append(Slot("kwrest", var, None, arg))
        elif var is not None:
            slots.append(Slot("one", var, keyword, arg))
        else:
            slots.append(Slot("literal", None, keyword, arg))
    return CallTemplate(tuple(path[1:]), tuple(slots), expr.func)


def _same_code(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    try:
        return ast.dump(ast.parse(code(a), mode="eval")) == ast.dump(
            ast.parse(code(b), mode="eval")
        )
    except SyntaxError:
        return False


Bindings = dict[str, "cst.Arg | list[cst.Arg]"]


def match_call(template: CallTemplate, call: cst.Call) -> Bindings | None:
    """Bind the template's metavariables to `call`'s arguments, or None if it does not fit."""
    positional = [a for a in call.args if a.keyword is None and a.star != "**"]
    keywords = [a for a in call.args if a.keyword is not None or a.star == "**"]
    bound: Bindings = {}
    pos_slots = [s for s in template.slots if s.keyword is None and s.kind in ("one", "literal", "rest")]
    i = 0
    for slot in pos_slots:
        if slot.kind == "rest":
            bound[slot.var] = positional[i:]
            i = len(positional)
            continue
        if i >= len(positional) or positional[i].star == "*":
            return None
        arg = positional[i]
        if slot.kind == "one":
            bound[slot.var] = arg
        elif not _same_code(slot.node.value, arg.value):
            return None
        i += 1
    if i != len(positional):
        return None
    remaining = list(keywords)
    for slot in template.slots:
        if slot.keyword is None:
            continue
        found = next((a for a in remaining if a.keyword and a.keyword.value == slot.keyword), None)
        if found is None:
            return None
        if slot.kind == "literal" and not _same_code(slot.node.value, found.value):
            return None
        if slot.kind == "one":
            bound[slot.var] = found
        remaining.remove(found)
    kwrest = next((s for s in template.slots if s.kind == "kwrest"), None)
    if kwrest is not None:
        bound[kwrest.var] = remaining
    elif remaining:
        return None
    return bound


class _Realias(cst.CSTTransformer):
    """Point the template's `pl.` at whatever expression names the module in the file."""

    def __init__(self, alias: str, receiver: cst.BaseExpression) -> None:
        self.alias, self.receiver = alias, receiver

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        if isinstance(updated.value, cst.Name) and updated.value.value == self.alias:
            return updated.with_changes(value=self.receiver)
        return updated


_DEFAULT_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def render_call(
    template: CallTemplate,
    bound: Bindings,
    original: cst.Call,
    receiver: cst.BaseExpression,
    module_alias: str = "pl",
) -> cst.Call:
    """Build the replacement call, reusing the original arguments' nodes and layout."""
    realias = _Realias(module_alias, receiver)
    # A literal argument may hold metavariables of its own (`pl.tile.transpose_view($x)`).
    fill = _Fill(module_alias, receiver, {k: v.value for k, v in bound.items() if isinstance(v, cst.Arg)})
    values: list[cst.Arg] = []
    for slot in template.slots:
        if slot.kind == "literal":
            values.append(slot.node.visit(fill))
        elif slot.kind in ("rest", "kwrest"):
            values.extend(bound[slot.var])
        else:
            arg = bound[slot.var]
            if slot.keyword is not None:
                arg = arg.with_changes(keyword=cst.Name(slot.keyword), equal=slot.node.equal)
            elif arg.keyword is not None and not arg.star:
                arg = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
            values.append(arg)

    old = list(original.args)
    commas = [a.comma for a in old]
    # The comma between the last two original arguments carries the layout (newline and
    # indentation) that any argument added after them should get.
    between = commas[-2] if len(commas) >= 2 and isinstance(commas[-2], cst.Comma) else _DEFAULT_COMMA
    trailing = commas[-1] if commas else cst.MaybeSentinel.DEFAULT
    args = []
    for i, arg in enumerate(values):
        if i == len(values) - 1:
            comma = trailing
        elif i < len(old) - 1:
            comma = commas[i]
        else:
            comma = between
        args.append(arg.with_changes(comma=comma))

    func = original.func
    if isinstance(func, cst.Attribute):
        func = template.func.visit(realias)
    return original.with_changes(func=func, args=args)


@lru_cache(maxsize=256)
def _parse_template(text: str) -> cst.BaseExpression:
    try:
        return cst.parse_expression(_MV.sub(lambda m: _PREFIX + m.group(1), text))
    except cst.ParserSyntaxError as exc:
        raise PatternError(f"not a Python expression: {text!r}") from exc


class _Fill(_Realias):
    def __init__(self, alias: str, receiver: cst.BaseExpression, bound: dict[str, cst.BaseExpression]) -> None:
        super().__init__(alias, receiver)
        self.bound = bound

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        var = _var(updated)
        if var is None:
            return updated
        if var not in self.bound:
            raise PatternError(f"${var} is not bound")
        return self.bound[var]


def render_template(
    text: str, bound: dict[str, cst.BaseExpression], receiver: cst.BaseExpression, module_alias: str = "pl"
) -> cst.BaseExpression:
    """Any expression with `$name` holes, filled with nodes; `pl.` becomes the file's alias."""
    return _parse_template(text).visit(_Fill(module_alias, receiver, bound))
