"""A matmul result merged with a vector value at the end of an `if` (2026-08, 910B).

`if i == 0: acc = part` / `else: acc = pl.add(...)` with `part = pl.matmul(...)` in a kernel:
the compiler gives the merged `acc` the memory of the matmul result (Acc, the cube's
accumulator) and then has to move the vector side's value into Acc across cores, which the
910B backend refuses ("cross-core move destination must be Vec, Mat, Left, or Right, got 5").
At 2026-03 the merged value was an ordinary tensor. Passing the matmul result through a vector
op (`pl.mul(part, 1.0)`, exact in FP32: every value, NaN, infinities and -0.0 come out as they
went in) gives both branches a Vec value. Only an FP32 result is rewritten: a tensor op
promotes a half-precision tensor times a float literal to FP32, which would change the dtype.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import statements
from ...syntax.traversal import walk
from .upgrade_base import Upgrade, in_kernel
from .upgrade_infer import Site

MATMULS = ("matmul", "matmul_acc", "matmul_bias")


class AccBranchMerge(Upgrade):
    def scan(self, site: Site) -> None:
        if not site.parents or not isinstance(site.parents[-1], (cst.If, cst.Else)) or not in_kernel(site, self.info):
            return
        small = site.statement.body[0] if isinstance(site.statement, cst.SimpleStatementLine) and len(site.statement.body) == 1 else None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            return
        target, value = small.targets[0].target.value, small.value
        if not self._from_cube(value, site) or self.info.type_of(value, site.env).dtype != "FP32":
            return
        others = self._other_branch(target, site)
        if not others or any(self._from_cube(v, site) for v in others) or self._accumulates(target, site):
            return  # the other branch does not give the name a vector value: nothing merged with one
        self.rewrite(value, lambda new: cst.Call(self.expr("pl.mul"), args=[
            cst.Arg(new, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(cst.Float("1.0"))]))

    def _from_cube(self, value, site: Site) -> bool:
        """A tensor-level matmul, or a name every assignment of which is one."""
        if isinstance(value, cst.Call):
            op = self.info.op(value) or ""
            return op.rpartition(".")[2] in MATMULS and not op.startswith("tile.")
        if isinstance(value, cst.Name):
            values = self._values(value.value, site.function)
            return bool(values) and all(isinstance(v, cst.Call) and self._from_cube(v, site) for v in values)
        return False

    @staticmethod
    def _other_branch(name: str, site: Site) -> list:
        """The values the other branch of the `if` gives the name (its own statements)."""
        here = site.parents[-1]
        if isinstance(here, cst.If):
            other = here.orelse if isinstance(here.orelse, cst.Else) else None
        else:
            other = site.parents[-2] if len(site.parents) > 1 and isinstance(site.parents[-2], cst.If) else None
        if other is None:
            return []
        found = []
        for statement in statements(other):
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                         for t in small.targets):
                    found.append(small.value)
        return found

    def _accumulates(self, name: str, site: Site) -> bool:
        """Is the name a matmul_acc accumulator somewhere (it must stay in Acc then)?"""
        return any(isinstance(n, cst.Call) and (self.info.op(n) or "").rpartition(".")[2] == "matmul_acc" and n.args
                   and isinstance(n.args[0].value, cst.Name) and n.args[0].value.value == name for n in walk(site.function))

    @staticmethod
    def _values(name: str, function) -> list:
        found = []
        for node in walk(function):
            if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                    for t in node.targets):
                found.append(node.value)
            elif isinstance(node, (cst.For, cst.AugAssign, cst.AnnAssign)) and name in {
                    n.value for n in walk(node.target) if isinstance(n, cst.Name)}:
                found.append(node)  # bound otherwise: not a matmul's value
        return found
