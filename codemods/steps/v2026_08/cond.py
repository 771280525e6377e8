"""An `if` that compares a floating-point scalar in its test gets the comparison as a name first.

Measured at e2d0f78ae: `if cur > kth:` on FP32 scalars, nested in another `if` (a top-k insert
inside `if s < valid:`), aborts the compiler in Simplify ("Internal error: scoped_knowns_ size
changed unexpectedly", transitive_comparison_analyzer.cpp:646, SIGABRT, no line); alone in a
loop it fails later ("Operator 'add' requires same numeric dtype category, got fp32 and int64").
`hit = cur > kth` followed by `if hit:` computes the same BOOL and is accepted in both places.
A 2026-03 kernel could write either; the abort names no line, so the rewrite is the only help.
"""

from __future__ import annotations

import libcst as cst

from ...model.values import SCALAR
from .base import Upgrade
from .infer import Site
from ..registry import kind

FLOATS = ("FP32", "FP16", "BF16", "FP64", "FP8E4M3FN", "FP8E5M2")


@kind("upgrade-float-condition")
class FloatCondition(Upgrade):
    def scan(self, site: Site) -> None:
        statement = site.statement
        if isinstance(statement, cst.If) and self._compares_floats(statement.test, site):
            name = self.fresh(site, "cond")
            self.rewrite(statement, lambda new, n=name: _hoisted(new, n))
        elif isinstance(statement, cst.While) and self._compares_floats(statement.test, site):
            self.flag(site, "a while condition compares a floating-point scalar, which e2d0f78ae's Simplify pass "
                            "aborts on (scoped_knowns_, no line): compute it into a BOOL name before the loop "
                            "and again at the end of its body")
        orelse = getattr(statement, "orelse", None)
        while isinstance(orelse, cst.If):
            if self._compares_floats(orelse.test, site):
                self.flag(site, "an elif compares a floating-point scalar, which e2d0f78ae's Simplify pass aborts "
                                "on (scoped_knowns_, no line): write it as `else:` with the comparison bound to a "
                                "name, then `if name:`")
            orelse = orelse.orelse

    def _compares_floats(self, test, site: Site) -> bool:
        if isinstance(test, cst.BooleanOperation):
            return self._compares_floats(test.left, site) or self._compares_floats(test.right, site)
        if isinstance(test, cst.UnaryOperation):
            return self._compares_floats(test.expression, site)
        if not isinstance(test, cst.Comparison):
            return False
        # Measured at e2d0f78ae, alone and nested: `<` and `>` on a float fail, `==`, `!=`, `<=` and `>=` pass
        left = test.left
        for c in test.comparisons:
            if isinstance(c.operator, (cst.LessThan, cst.GreaterThan)) and any(
                    _is_float(self.info.type_of(o, site.env)) for o in (left, c.comparator)):
                return True
            left = c.comparator
        return False


def _is_float(val) -> bool:
    return val.kind == SCALAR and val.dtype in FLOATS


def _hoisted(new: cst.If, name: str):
    test = new.test.with_changes(lpar=[], rpar=[]) if isinstance(new.test, cst.Comparison) else new.test
    bind = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], test)],
                                   leading_lines=new.leading_lines)
    return cst.FlattenSentinel([bind, new.with_changes(test=cst.Name(name), leading_lines=[])])
