"""`call-pattern` rules: rewrite one pl call into another, as written in the rule's data."""

from __future__ import annotations

import re

import libcst as cst

from ...rulebook.pattern import PatternError, compile_call, match_call, render_call
from ...rulebook.loading import ApiTable, Rule, RuleFileError
from ...syntax.nodes import code
from ..registry import kind


@kind("call-pattern")
class CallPattern:
    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule = rule
        try:
            # One pattern, or several spellings of one call (`pl.view(x, shape=s, offset=o)`,
            # `pl.tile.row_expand(x)`): the first that fits binds the replacement's metavariables.
            written = rule.params["match"]
            self.matches = [compile_call(m) for m in ([written] if isinstance(written, str) else written)]
            self.replace = compile_call(rule.params["replace"])
        except KeyError as exc:
            raise RuleFileError(f"{rule.path}: params needs '{exc.args[0]}'") from exc
        except PatternError as exc:
            raise RuleFileError(f"{rule.path}: {exc}") from exc
        self.match = self.matches[0]
        self.ops = {m.op for m in self.matches}
        if any(m.callee[-1] != self.match.callee[-1] for m in self.matches):
            raise RuleFileError(f"{rule.path}: the patterns of one rule match one op (in any of its namespaces)")
        needed = {s.var for s in self.replace.slots if s.var} | set(re.findall(r"\$(\w+)", rule.params["replace"]))
        known = set.intersection(*({s.var for s in m.slots if s.var} for m in self.matches))
        for match in self.matches:
            if needed - {s.var for s in match.slots if s.var}:
                raise RuleFileError(f"{rule.path}: replacement uses unbound "
                                    f"${', $'.join(sorted(needed - {s.var for s in match.slots if s.var}))}")
        # A rewrite that is right only under a condition the tool cannot see (a value's rank)
        # is made and flagged: the marker says what a person must check.
        self.review = rule.params.get("review")
        # Where the planner proved that condition (its decisions under this name hold the call),
        # the rewrite is made without the marker.
        self.proven = rule.params.get("proven_by")
        unbound = set(re.findall(r"\$(\w+)", self.review or "")) - known
        if unbound:
            raise RuleFileError(f"{rule.path}: review message uses unbound ${', $'.join(sorted(unbound))}")

    def interest(self, ctx):
        """The calls of the matched op: the only nodes this rule's hook changes."""
        return [node for node, op in ctx.ops.items() if op in self.ops and type(node) is cst.Call]

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx) -> cst.Call | None:
        op = ctx.op_of(original.func)
        if op not in self.ops:
            return None
        # Only `alias.op(...)` is rewritten: a bare `view(...)` imported by name would
        # need its import changed too, and the leftover scan reports it instead.
        if not isinstance(updated.func, cst.Attribute):
            return None
        spellings = [m for m in self.matches if m.op == op]
        receiver = _receiver(updated.func, len(spellings[0].callee))
        bound = next((b for b in (match_call(m, updated) for m in spellings) if b is not None), None)
        if bound is None:
            return None
        if self.review and not (self.proven and original in ctx.plan().of(self.proven)):
            ctx.flag(self.rule, original, re.sub(r"\$(\w+)", lambda m: _text(bound[m.group(1)]), self.review))
        return render_call(self.replace, bound, updated, receiver)


def _text(bound) -> str:
    if isinstance(bound, list):
        return ", ".join(code(a.value) for a in bound)
    return code(bound.value)


def _receiver(func: cst.Attribute, depth: int) -> cst.BaseExpression:
    """`pl` in `pl.view`, `pl` in `pl.tensor.read` (depth 2)."""
    node: cst.BaseExpression = func
    for _ in range(depth):
        node = node.value  # type: ignore[attr-defined]
    return node
