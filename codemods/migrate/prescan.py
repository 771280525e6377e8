"""A first look at each kernel region, before the typed walk: what each name is used for.

Which locals are assembled piecewise (hand-off buffers), which slices feed only matmuls
(loaded into Mat), which are only sliced again (folded), which tile names recur in later
kernels (renamed), which buffers are never read (padding).
"""

from __future__ import annotations

import ast

from collections import defaultdict

import libcst as cst

from ..model.kernels import Region
from .plan import Handoff, RegionPlan
from ..syntax.nodes import codes, is_name, is_window, statements
from ..syntax.traversal import content, walk
from ..model.values import LEFT, MAT, RIGHT, VEC

SCALAR_OPS = {"min", "max", "tensor.read", "tile.read", "read"}


class RegionScan:
    """Mixin of the Planner: its pre-scan of kernel regions."""

    def _prescan(self, region: Region, body: list) -> RegionPlan:
        rp = RegionPlan(region, body)
        created, assembled, assigns = set(), set(), defaultdict(list)
        statement_of: dict[cst.CSTNode, cst.CSTNode] = {}
        uses: dict[str, list[tuple]] = defaultdict(list)

        def visit(node, parent_op=None, parent_index=None, grand=None, call=None):
            # Exact types: LibCST's node classes are final (`isinstance` goes through ABCMeta).
            kind = type(node)
            if kind is cst.Name:
                rp.name_nodes.setdefault(node.value, []).append(node)
                uses[node.value].append((parent_op, parent_index, grand, call))
                return
            if kind is cst.Call:
                op = self.ops.get(node)
                for i, arg in enumerate(node.args):
                    if arg.keyword is not None:
                        visit(arg.value, None, None)
                    else:
                        visit(arg.value, op, i, (parent_op, parent_index), node)
                visit(node.func, None, None)
                return
            if kind is cst.Attribute:
                visit(node.value)
                return
            for child in content(node):
                visit(child)

        def scan_stmt(s, in_loop=False):
            if isinstance(s, cst.SimpleStatementLine):
                for small in s.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                        name = small.targets[0].target.value
                        if in_loop:
                            rp.loop_bound.add(name)
                        rp.name_nodes.setdefault(name, []).append(small.targets[0].target)
                        assigns[name].append(small.value)
                        statement_of[small.value] = s
                        op = self._call_op(small.value)
                        if op == "create_tensor":
                            created.add(name)
                        if op == "assemble" and small.value.args and is_name(small.value.args[0].value, name):
                            assembled.add(name)
                        if op == "assemble" and small.value.args and isinstance(small.value.args[0].value, cst.Name):
                            rp.stored.add(small.value.args[0].value.value)
                        visit(small.value)
                    else:
                        visit(small)
            elif isinstance(s, cst.For):
                if isinstance(s.target, cst.Name):
                    rp.name_nodes.setdefault(s.target.value, []).append(s.target)
                visit(s.iter)
                for inner in statements(s):
                    scan_stmt(inner, True)
            elif isinstance(s, (cst.If, cst.While)):
                visit(s.test)
                for inner in statements(s):
                    scan_stmt(inner, in_loop)
                if isinstance(s, cst.If) and s.orelse is not None:
                    for inner in statements(s.orelse):
                        scan_stmt(inner, in_loop)
            elif isinstance(s, cst.With):
                for inner in statements(s):
                    scan_stmt(inner, in_loop)

        for s in body:
            scan_stmt(s)
        del visit, scan_stmt  # a closure that calls itself is a reference cycle (see migrate/collector.py)
        rp.operand_of = {n: [(op, i) for op, i, _, _ in u if op is not None] for n, u in uses.items()}
        for node, message in self._padding(rp, assigns, uses, created):
            self._flag("padding-buffer", statement_of[node], message)
        for name in created & assembled:
            if region.kind == "incore":
                # One run of the block: the Tensor can simply be made before it.
                rp.hoisted.add(name)
                continue
            trips = region.trip_count()
            runtime = sorted(n for n in _names(trips) if n not in self.consts)
            if runtime:
                # The buffer is made before the loop with one slot per turn: a count known only
                # at run time (a length read in an outer loop) is not defined there.
                known = "" if runtime == [trips] else f" ({', '.join(runtime)})"
                self._flag("handoff-buffer", region.node, f"{name} is made and assembled in each turn of this loop and "
                           f"handed on: a buffer with a slot per turn needs the number of turns, and {trips} is known "
                           f"only at run time{known}: give the buffer a constant bound by hand")
                continue
            call = next(v for v in assigns[name] if self._call_op(v) == "create_tensor")
            shape, dtype, valid = self._creation(call)
            buffer = self._fresh(f"{name}_buf")
            rp.handoff[name] = Handoff(name, buffer, shape or (), dtype or "FP32", valid, region)
        for name, values in assigns.items():
            if values and all(self._call_op(v) in ("slice", "view") or is_window(v) for v in values):
                contexts = [u for u in uses[name] if u[0] is not None or u[2] is not None]
                in_matmul = all(
                    self._cube_reads(op, i) or (op == "transpose" and i == 0 and g and g[0] == "matmul")
                    for op, i, g, _ in uses[name]
                )
                rp.slice_space[name] = MAT if in_matmul and contexts else VEC
        rp.tile_vars = {n for n, vs in assigns.items() if (n not in rp.stored or n in rp.handoff) and any(self._tileish(v) for v in vs)}
        for name, values in assigns.items():
            parts = self._view_parts(values[0]) if len(values) == 1 else None
            if parts is None or not uses[name]:
                continue
            rank = len(parts[0].args[2].value.elements)
            if all(op in ("slice", "view") and i == 0 and self._foldable_use(call, rank) for op, i, _, call in uses[name]):
                rp.fold_only.add(name)
        return rp

    def _cube_reads(self, op: str | None, index: int) -> bool:
        """Operand `index` of `op` is one the cube unit reads from Left/Right (the table's `space`):
        a slice that only feeds such operands is loaded into Mat, on the cube's way."""
        spec = self.api.ops.get(op) if op else None
        if spec is None or spec.unit != "cube" or index >= len(spec.params):
            return False
        return spec.space.get(spec.params[index]) in (LEFT, RIGHT)

    def _padding(self, rp: RegionPlan, assigns, uses, created) -> list[tuple[cst.CSTNode, str]]:
        """A buffer that is only ever used to update itself is never read: padding, or a leftover."""
        found = []
        for name in created | {n for n, vs in assigns.items() if any(self._call_op(v) == "create_tile" for v in vs)}:
            own = sum(1 for v in assigns[name] for n in walk(v) if isinstance(n, cst.Name) and n.value == name)
            if own == len(uses[name]) and name not in rp.stored and name not in self.live.live_after(rp.region.node):
                node = next(v for v in assigns[name] if self._call_op(v) in ("create_tensor", "create_tile"))
                found.append((node, f"{name} is written but never read: a padding buffer kept only to raise "
                              "the reported occupancy? Remove it, or keep it deliberately"))
        return found

    def _view_parts(self, value):
        """`slice(T, shape, off)` or `cast(slice(T, shape, off), target_type=D)`: (slice call, cast node)."""
        cast = None
        if self._call_op(value) == "cast":
            kw = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
            pos = [a.value for a in value.args if a.keyword is None]
            cast = kw.get("target_type") or (pos[1] if len(pos) > 1 else None)
            value = pos[0] if pos else None
        if self._call_op(value) not in ("slice", "view"):
            return None
        pos = [a.value for a in value.args if a.keyword is None]
        if len(pos) < 3 or not isinstance(pos[0], cst.Name) or codes(pos[2]) is None or any(a.keyword for a in value.args):
            return None
        if any(isinstance(n, cst.Call) for e in pos[2].elements for n in walk(e.value)):
            return None  # offsets with calls in them cannot be copied into another load
        return value, cast

    def _foldable_use(self, call, rank: int) -> bool:
        pos = [a.value for a in call.args if a.keyword is None]
        offsets = codes(pos[2]) if len(pos) > 2 else None
        return offsets is not None and len(offsets) == rank and not any(a.keyword for a in call.args)

    def _tileish(self, value) -> bool:
        op = self._call_op(value)
        return op is not None and op not in SCALAR_OPS and op not in ("store", "assemble")

    def _decide_renames(self, plans: list[RegionPlan]) -> None:
        seen: dict[str, RegionPlan] = {}  # a name's last kernel
        for p in plans:
            for name in sorted(p.tile_vars):
                # Measured: a Tile name an earlier kernel bound is rejected where it is bound again in
                # a loop (a chunked loop, or a loop inside a pl.incore() block: it would be carried);
                # bound at the top of a later pl.incore() block it is accepted. A region that is not
                # being migrated keeps its names.
                if name in seen and id(p.region.node) in self.hot and (p.region.kind == "parallel" or name in p.loop_bound):
                    new = self._fresh(f"{name}_{p.region.index}")
                    p.renames[name] = new
                    for node in p.name_nodes.get(name, ()):
                        self.plan.decisions["unique-tile-names"][node] = new
                else:
                    seen[name] = p


def _names(expr: str) -> set[str]:
    """The names an expression's text reads."""
    try:
        return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}
    except SyntaxError:
        return {expr}

