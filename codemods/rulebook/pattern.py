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
import dataclasses
import re
from typing import NamedTuple
from functools import lru_cache

import libcst as cst

from ..syntax.nodes import code
from ..syntax.traversal import NODE_TYPES, TRIVIA

_MV = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_PREFIX = "__mv_"


class PatternError(ValueError):
    pass


class Slot(NamedTuple):
    """One argument of a pattern or replacement call."""

    kind: str  # "one" | "rest" | "kwrest" | "literal"
    var: str | None  # metavariable name, or None for literal code
    keyword: str | None  # keyword name for `key=...` slots
    node: cst.Arg  # the parsed template argument (used for literals)


class CallTemplate(NamedTuple):
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


def _filled(node: cst.CSTNode, alias: str, receiver: cst.BaseExpression, bound: dict | None) -> cst.CSTNode:
    """A fresh copy of a template's (sub)tree with `pl.` pointed at whatever expression names
    the module in the file and, unless `bound` is None, each `$name` replaced by its node.

    Fresh, because the rules' analyses key what they know by node: a template node shared by
    two places in the output would be one node to them. Trivia (whitespace, commas) are
    shared, as nothing is known of them. Built field by field rather than by a LibCST
    transformer, whose dispatch cost more than the rest of a rewrite."""
    kind = type(node)
    if kind in TRIVIA:
        return node
    if kind is cst.Name and bound is not None:
        var = _var(node)  # type: ignore[arg-type]
        if var is not None:
            if var not in bound:
                raise PatternError(f"${var} is not bound")
            return bound[var]
    fields = {}
    # Exact types, trivia handed over in place: `isinstance` on LibCST's classes goes through
    # ABCMeta, and six children in ten are trivia.
    for name in _fields(kind):
        value = getattr(node, name)
        of = type(value)
        if of in NODE_TYPES:
            if of not in TRIVIA:
                value = _filled(value, alias, receiver, bound)
        elif of is tuple or of is list:
            value = tuple(_filled(v, alias, receiver, bound) if type(v) in NODE_TYPES and type(v) not in TRIVIA else v
                          for v in value)
        fields[name] = value
    if kind is cst.Attribute and type(fields["value"]) is cst.Name and fields["value"].value == alias:
        fields["value"] = receiver
    return kind(**fields)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


_DEFAULT_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def render_call(
    template: CallTemplate,
    bound: Bindings,
    original: cst.Call,
    receiver: cst.BaseExpression,
    module_alias: str = "pl",
) -> cst.Call:
    """Build the replacement call, reusing the original arguments' nodes and layout."""
    # A literal argument may hold metavariables of its own (`pl.tile.transpose_view($x)`).
    values_bound = {k: v.value for k, v in bound.items() if isinstance(v, cst.Arg)}
    values: list[cst.Arg] = []
    for slot in template.slots:
        if slot.kind == "literal":
            values.append(_filled(slot.node, module_alias, receiver, values_bound))
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
        func = _filled(template.func, module_alias, receiver, None)
    return original.with_changes(func=func, args=args)


@lru_cache(maxsize=256)
def _parse_template(text: str) -> cst.BaseExpression:
    try:
        return cst.parse_expression(_MV.sub(lambda m: _PREFIX + m.group(1), text))
    except cst.ParserSyntaxError as exc:
        raise PatternError(f"not a Python expression: {text!r}") from exc


def render_template(
    text: str, bound: dict[str, cst.BaseExpression], receiver: cst.BaseExpression, module_alias: str = "pl"
) -> cst.BaseExpression:
    """Any expression with `$name` holes, filled with nodes; `pl.` becomes the file's alias."""
    return _filled(_parse_template(text), module_alias, receiver, bound)
