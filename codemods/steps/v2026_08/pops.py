"""A tile the vector core receives from the cube core (a move into Vec of a value in Mat, Acc,
Left or Right) is freed after its last read: e2d0f78ae's StampTfreeSplit pass looks for the
pop the free belongs to, and where that read is a loop's `init_values=` it finds none and
refuses the program ("system.tfree_to_aic requires its tile argument to come from a matching
tile.tpop_from_aic, but no originating tpop was found"). c39 had no such pass: the same code
compiled. Measured on e2d0f78ae: the popped name in `init_values=`, an expression of it there, or
the move itself there, in `pl.range` and `pl.parallel` alike, is refused; the same value bound to
a name of its own by a statement before the loop (`v_init = v`) is accepted, as is reading the
popped tile inside the loop's body or yielding one. So the element is bound before the loop.

Only an element that reads a popped tile is touched: code written for 2026-08 never has one
(e2d0f78ae refuses it), so it is never rewritten.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import code
from ...syntax.traversal import walk
from .base import Upgrade, binding, keyword
from .infer import Site
from .ndlayout import is_pop
from ..registry import kind


@kind("upgrade-carried-pop")
class CarriedPop(Upgrade):
    def begin(self, ctx) -> None:
        super().begin(ctx)
        for sites in self.sites_by_function().values():
            bindings: dict[str, list[cst.BaseExpression]] = {}
            for site in sites:
                if isinstance(site.statement, cst.For):
                    self._loop(site, bindings)
                name, value = binding(site.statement)
                if name is not None:
                    bindings.setdefault(name, []).append(value)

    def scan(self, site: Site) -> None:
        pass

    def _loop(self, site: Site, bindings) -> None:
        header = site.statement.iter
        init = keyword(header, "init_values") if isinstance(header, cst.Call) else None
        if init is None or not isinstance(init.value, (cst.Tuple, cst.List)):
            return
        for element in init.value.elements:
            value = element.value
            if not self._reads_pop(value, bindings):
                continue
            name = self.fresh(site, f"{value.value if isinstance(value, cst.Name) else 'carried'}_init")
            self.before(site, f"{name} = {code(value)}")
            self.rewrite(value, lambda _, name=name: cst.Name(name))

    def _reads_pop(self, value, bindings) -> bool:
        for node in walk(value):
            if isinstance(node, cst.Call) and is_pop(node, bindings, self.info.op):
                return True
            if isinstance(node, cst.Name):
                last = bindings.get(node.value, [])[-1:]
                if last and is_pop(last[0], bindings, self.info.op):
                    return True
        return False
