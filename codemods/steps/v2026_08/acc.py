"""A matmul result merged with a vector value (2026-08): PTO176 (`AccBranchMerge`, a tensor-level
result merged in an `if`) and PTO178 (`AccMoveLayout`, an Acc tile moved into Vec, whose layout
the merge refuses; see its class).

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

from ...model.values import TILE
from ...syntax.nodes import attr_name, statements
from ...syntax.traversal import walk
from .base import Upgrade, argument, binding, in_kernel, keyword
from .infer import ELEMENTWISE, Site, number
from ..registry import kind

MATMULS = ("matmul", "matmul_acc", "matmul_bias")


@kind("upgrade-acc-branch-merge")
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


# The layout an Acc tile moved into Vec keeps at e2d0f78ae (measured: `pl.move(acc,
# target_memory=pl.MemorySpace.Vec)` is pl.TileView(blayout=col_major, slayout=row_major), the
# cube's fractal layout, for [1, 128] and [16, 128]), and the one a Vec tile of two or more
# columns has when created, loaded or computed (row_major, none_box): the layout the move is given.
ND_LAYOUT = "blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box"
# Ops whose result has their first operand's layout (measured: mul, exp, add; see upgrade_infer).
KEEPS_LAYOUT = (ELEMENTWISE - {"move"}) | {"cast"}
DEFAULT, UNKNOWN_ORIGIN = "default", "unknown"


@kind("upgrade-acc-move-layout")
class AccMoveLayout(Upgrade):
    """An Acc tile moved into Vec (`pl.move(o_acc, target_memory=pl.MemorySpace.Vec)`) keeps the
    cube's layout at 2026-08, a type of its own: a name bound to it (or to an op of it, which keeps
    its first operand's layout) and elsewhere to a Vec tile of the default layout, the same shape
    and dtype, is refused ("Cannot reassign 'oi' with a different type: ... pl.TileView(blayout=
    pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)"). At 2026-03 a tile had no layout
    in its type. The move is given the default layout (`blayout=pl.TileLayout.row_major,
    slayout=pl.TileLayout.none_box`): the same elements, placed as every other Vec tile's."""

    def begin(self, ctx) -> None:
        super().begin(ctx)
        for sites in self.sites_by_function().values():
            self._function(sites)

    def scan(self, site: Site) -> None:
        pass

    def _function(self, sites) -> None:
        bindings: dict[str, list] = {}  # name -> [(site, value)]
        for site in sites:
            name, value = binding(site.statement)
            if name is not None:
                bindings.setdefault(name, []).append((site, value))
            else:
                for node in site.of(cst.Name):  # bound some other way (a loop target, a tuple): origin unknown
                    if _bound_otherwise(site.statement, node):
                        bindings.setdefault(node.value, []).append((site, None))
        moves = {}  # id(move call) -> (call, site)
        for name, found in bindings.items():
            for site, value in found:
                for node in walk(value) if value is not None else ():
                    if type(node) is cst.Call and self._acc_move(node, site, bindings):
                        moves[id(node)] = (node, site)
        if not moves:
            return
        relaid: set[int] = set()
        while True:
            origins = self._origins(bindings, moves, relaid)
            more = set()
            for name, found in bindings.items():
                have = origins[name]
                nz = {o for o in have if isinstance(o, int) and o not in relaid}
                if not nz or not (DEFAULT in have or any(o in relaid for o in have if isinstance(o, int))):
                    continue
                if not self._same_type(name, found, moves, nz):
                    continue
                if sites[0].ftype == "jit" and len({s.parents for s, _ in found}) == 1:
                    continue  # the jit frontend versions a name re-bound in one block (PTO153's why)
                more |= nz
            if not more:
                break
            relaid |= more
        for key in relaid:
            self.rewrite(moves[key][0], self._laid_out)

    def _laid_out(self, call: cst.Call) -> cst.Call:
        """The move with the default layout's keywords after its arguments (a trailing comma kept last)."""
        added = list(self.expr(f"f({ND_LAYOUT})").args)
        last = call.args[-1]
        if isinstance(last.comma, cst.Comma):
            added[-1] = added[-1].with_changes(comma=last.comma)
        return call.with_changes(args=[*call.args[:-1], last.with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), *added])

    def _acc_move(self, call: cst.Call, site: Site, bindings) -> bool:
        """`pl.move(x, target_memory=Vec)` of a tile-level matmul's result, in a kernel, no layout given."""
        if (self.info.op(call) or "").rpartition(".")[2] != "move" or not in_kernel(site, self.info):
            return False
        if keyword(call, "blayout") is not None or keyword(call, "slayout") is not None:
            return False
        space, source = argument(call, 1, "target_memory"), argument(call, 0, "tile")
        if attr_name(space) != "Vec" or source is None:
            return False
        values = [source] if isinstance(source, cst.Call) else [
            v for _, v in bindings.get(source.value, [])] if isinstance(source, cst.Name) else []
        return bool(values) and all(isinstance(v, cst.Call) and self._tile_matmul(v, site) for v in values)

    def _tile_matmul(self, call: cst.Call, site: Site) -> bool:
        op = self.info.op(call) or ""
        return op.rpartition(".")[2] in MATMULS and (op.startswith("tile.") or self.info.type_of(call, site.env).kind == TILE)

    def _origins(self, bindings, moves, relaid) -> dict[str, set]:
        """For each name, where the layouts of the values bound to it come from: an Acc move
        (its id), a tile of the default layout (DEFAULT), or UNKNOWN_ORIGIN. Flow-insensitive,
        to a fixed point."""
        origins = {name: set() for name in bindings}
        changed = True
        while changed:
            changed = False
            for name, found in bindings.items():
                for site, value in found:
                    new = self._origin(value, site, origins, moves, relaid) - origins[name]
                    if new:
                        origins[name] |= new
                        changed = True
        return origins

    def _origin(self, value, site: Site, origins, moves, relaid) -> set:
        if value is None:
            return {UNKNOWN_ORIGIN}
        if isinstance(value, cst.Name):
            return set(origins.get(value.value, {UNKNOWN_ORIGIN}))
        if not isinstance(value, cst.Call):
            return {UNKNOWN_ORIGIN}
        if id(value) in moves:
            return {DEFAULT} if id(value) in relaid else {id(value)}
        name = (self.info.op(value) or "").rpartition(".")[2]
        first = argument(value, 0, "") if value.args else None
        if name in KEEPS_LAYOUT and first is not None:
            return self._origin(first, site, origins, moves, relaid)
        if name in MATMULS or name == "move":
            return {UNKNOWN_ORIGIN}
        return {DEFAULT} if _wide(self.info.type_of(value, site.env), self.info, site.function) else {UNKNOWN_ORIGIN}

    def _same_type(self, name: str, found, moves, nz) -> bool:
        """Do the name's default-layout values have the moves' kind, shape and dtype (only the
        layout differs: a value of another shape or dtype is PTO153's)?"""
        types = {_key(self.info.type_of(value, site.env), self.info, site.function) for site, value in found
                 if value is not None}
        types |= {_key(self.info.type_of(call, site.env), self.info, site.function) for call, site in
                  (moves[k] for k in nz)}
        return len(types) == 1 and None not in types


def _key(val, info, function):
    if val.kind != TILE or not val.dtype or not val.shape or len(val.shape) != 2:
        return None
    dims = tuple(number(d, info, function) for d in val.shape)
    return None if None in dims else (dims, val.dtype)


def _wide(val, info, function) -> bool:
    """A 2-D Vec-able tile of two or more columns: row_major, none_box whatever made it."""
    key = _key(val, info, function)
    return key is not None and key[0][1] > 1


def _bound_otherwise(statement, node) -> bool:
    if isinstance(statement, cst.For):
        return any(n is node for n in walk(statement.target))
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
                [small.target] if isinstance(small, (cst.AugAssign, cst.AnnAssign)) else [])
            if any(n is node for t in targets for n in walk(t)):
                return True
    return False
