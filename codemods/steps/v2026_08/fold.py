"""`/` between two integer constants in a pl function (catalogue §26: compile-time constant
folding, pypto 727fafebf, 2026-03-11).

From that commit the parser evaluates arithmetic whose leaves are all closure values in Python,
so `N / 2` is the float `32.0` where c39fe714a emitted an integer IR division (32; for positive
operands the same as `N // 2`). Measured at e2d0f78ae: a float in a tile's shape is taken as a
dynamic extent and refused ("InitMemRef requires static shape"). Where the division stands in
an integer place (a shape, offset or index list of a pl call, a loop bound, a subscript) and
both operands are known positive integers, `//` keeps the c39 value and is accepted. Elsewhere
(a scalar operand) a float may be what a later author meant, so code written for c39 is
flagged, and code that already names a later API is left alone.
"""

from __future__ import annotations

import libcst as cst

from .base import Upgrade, after_2026_03
from ...model.constants import evaluate
from ...syntax.traversal import walk
from .infer import Site
from ..registry import kind

INTEGER_CALLS = {"range", "parallel", "unroll", "pipeline"}


@kind("upgrade-constant-division")
class ConstantDivision(Upgrade):
    def begin(self, ctx) -> None:
        self.later = after_2026_03(ctx)
        super().begin(ctx)

    def scan(self, site: Site) -> None:
        divisions = [n for n in site.of(cst.BinaryOperation) if type(n.operator) is cst.Divide]
        places = self._integer_places(site) if divisions else set()
        for node in divisions:
            left, right = (_integer(self.text(side), self.info, site.function) for side in (node.left, node.right))
            if left is None or right is None or right == 0:
                continue  # not two integer constants: a division, then as now
            if id(node) in places and left > 0 and right > 0:
                self.rewrite(node, lambda new: new.with_changes(operator=cst.FloorDivide(
                    whitespace_before=new.operator.whitespace_before, whitespace_after=new.operator.whitespace_after)))
            elif not self.later:
                value = left / right
                shown = repr(value) if value.is_integer() else f"{value:.6g}"
                self.flag(site, f"`{self.text(node)}` divides two integer constants: c39fe714a computed the "
                                f"integer {left // right}, pypto since 2026-03-11 folds it to the float {shown}; "
                                "write `//` where the integer was meant")

    def _integer_places(self, site: Site) -> set[int]:
        """The nodes standing where only an integer is accepted (their own subtrees too)."""
        found: set[int] = set()
        for node in site.own:
            roots = []
            if isinstance(node, cst.Call) and self.info.op(node) is not None:
                op = self.info.op(node).rpartition(".")[2]
                if op in INTEGER_CALLS:
                    roots += [a.value for a in node.args if a.keyword is None]
                roots += [a.value for a in node.args if isinstance(a.value, (cst.List, cst.Tuple))]
            elif isinstance(node, cst.Subscript):
                roots += [e.slice for e in node.slice]
            for root in roots:
                found.update(id(n) for n in walk(root))
        return found


def _integer(text: str, info, function) -> int | None:
    """The value of an integer constant expression (`N`, `2 * K`); None for a float (`1.0`) or
    anything not known here."""
    value = evaluate(text, (info.local or {}).get(function, info.constants))
    return value if isinstance(value, int) and not isinstance(value, bool) else None
