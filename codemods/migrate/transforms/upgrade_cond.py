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
from .upgrade_base import Upgrade, argument, keyword
from .upgrade_infer import Site

FLOATS = ("FP32", "FP16", "BF16", "FP64", "FP8E4M3FN", "FP8E5M2")


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
        operands = [test.left, *(c.comparator for c in test.comparisons)]
        return any(_is_float(self.info.type_of(o, site.env)) for o in operands)


def _is_float(val) -> bool:
    return val.kind == SCALAR and val.dtype in FLOATS


def _hoisted(new: cst.If, name: str):
    test = new.test.with_changes(lpar=[], rpar=[]) if isinstance(new.test, cst.Comparison) else new.test
    bind = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], test)],
                                   leading_lines=new.leading_lines)
    return cst.FlattenSentinel([bind, new.with_changes(test=cst.Name(name), leading_lines=[])])


class RankReducingSlice(Upgrade):
    """`pl.slice(t3d, [R, C], [b, r, c])`: fewer shape than offset entries. At e2d0f78ae the load it
    lowers to refuses it ("tile.load requires offsets and shapes to have same number of
    dimensions"); the leading axes are given size 1 and dropped by name (`drop_dims=`, the
    numpy-style rank reduction of pypto #1343), which keeps the result's rank and values."""

    def scan(self, site: Site) -> None:
        if not self._in_kernel(site):
            return  # a tensor view in orchestration code keeps the old form (accepted, measured)
        for call, _ in self.calls(site, "slice"):
            shape, offset = argument(call, 1, "shape"), argument(call, 2, "offset")
            if not isinstance(shape, cst.List) or not isinstance(offset, cst.List) or keyword(call, "drop_dims"):
                continue
            extra = len(offset.elements) - len(shape.elements)
            source = self.info.type_of(argument(call, 0, "input"), site.env)
            if extra <= 0 or source.shape is None or len(source.shape) != len(offset.elements):
                continue
            valid = argument(call, 3, "valid_shape")
            self.rewrite(call, lambda new, k=extra: _keep_rank(new, k))
            if valid is not None and not (isinstance(valid, cst.List) and len(valid.elements) == len(shape.elements)):
                self.flag(site, "a rank-reducing slice's valid_shape is not a list of its shape's length: "
                                "give it the dropped axes too")

    def _in_kernel(self, site: Site) -> bool:
        if site.ftype not in ("Opaque", "Orchestration", "jit", None):
            return True  # an InCore (AIC/AIV) function is a kernel throughout
        return any(isinstance(p, cst.With) and any(_scope(i, self.info) in KERNEL_SCOPES for i in p.items)
                   for p in site.parents)


KERNEL_SCOPES = ("at", "incore", "auto_incore")


def _scope(item, info) -> str:
    call = item.item
    return (info.op(call) or "").rpartition(".")[2] if isinstance(call, cst.Call) else ""


def _keep_rank(call: cst.Call, k: int) -> cst.Call:
    def widen(node):
        ones = [cst.Element(cst.Integer("1"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                for _ in range(k)]
        return node.with_changes(elements=[*ones, *node.elements]) if isinstance(node, cst.List) else node

    args = []
    for i, a in enumerate(call.args):
        name = a.keyword.value if a.keyword is not None else ("input", "shape", "offset", "valid_shape")[min(i, 3)]
        args.append(a.with_changes(value=widen(a.value)) if name in ("shape", "valid_shape") else a)
    drop = cst.parse_expression(f"[{', '.join(str(i) for i in range(k))}]")
    return append_kw(call.with_changes(args=args), "drop_dims", drop)


def append_kw(call: cst.Call, name: str, value) -> cst.Call:
    args = list(call.args)
    last = args[-1]
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
    return call.with_changes(args=args)
