"""Cube operands at 2026-08: AutoTileMatmulL0 tiles a matmul whose operands are in Mat, and
refuses one whose operand a person already placed whole in Left/Right when it overflows L0.

At 2026-03 the strict API had every matmul operand moved into Left/Right by hand, whatever its
size, and the compiler split it. At 2026-08 such a placement is a manual L0 decision the
compiler keeps, and an oversized one stops the pipeline ("already resident in Right (L0B)").
Where the operand comes from Mat, dropping the move gives the compiler back the tiling.
"""

from __future__ import annotations

import libcst as cst

from ...model.values import TENSOR, TILE
from ...syntax.nodes import code
from ...syntax.traversal import walk
from .base import MIN_L0_DIM, Upgrade, argument, keyword
from .infer import Site, number
from ..registry import kind

# which positional argument of each matmul form is the left and the right matrix
OPERANDS = {"matmul": (0, 1), "matmul_bias": (0, 1), "matmul_acc": (1, 2)}
SPACE = {0: "Left", 1: "Right"}
L0 = {"Left": "L0A", "Right": "L0B"}


def _space(call) -> str:
    mem = keyword(call, "target_memory")
    return code(mem.value).rpartition(".")[2] if mem is not None else ""


@kind("upgrade-l0-operand")
class L0Operand(Upgrade):
    """`pl.matmul(pl.move(a, Left), pl.move(b, Right))` with an operand bigger than its L0
    buffer: the move is dropped where the operand is in Mat, flagged where that is not known."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, *OPERANDS):
            moves = []  # (the move call, what it moves, its space, its bytes or None)
            for side, index in enumerate(OPERANDS[op.rpartition(".")[2]]):
                names = ("lhs", "rhs") if side == 0 else ("rhs",)
                operand = next((a for a in (argument(call, index, n) for n in names) if a is not None), None)
                if not isinstance(operand, cst.Call) or (self.info.op(operand) or "").rpartition(".")[2] != "move":
                    continue
                inner = argument(operand, 0, "tile")
                if inner is not None and _space(operand) == SPACE[side]:
                    moves.append((operand, inner, SPACE[side], self._bytes(inner, site)))
            over = [(inner, space, size) for _, inner, space, size in moves
                    if size is not None and space in self.api.memory_limits and size > self.api.memory_limits[space]]
            if not over:
                continue  # manual L0 tiles that fit are kept as written
            rows = self._rows(call, op, moves, site)
            if rows is not None and rows < MIN_L0_DIM:
                from .ksplit import apply, plan

                split = plan(self, call, site, tile=True)
                if split is not None:
                    apply(self, call, site, split)
                    continue
                inner, space, size = over[0]
                message = (f"`{self.text(inner)}` moved whole into {space} ({L0[space]}) takes {size} bytes of "
                           f"{self.api.memory_limits[space]}, and pypto 2026-08 does not tile a matmul of {rows} rows "
                           f"(fewer than {MIN_L0_DIM}, AutoTileMatmulL0): split K by hand so each {space} tile fits, "
                           f"or make the row block at least {MIN_L0_DIM}")
                self.flag(site, message)
                continue
            if all(self._in_mat(inner, site) for _, inner, _, _ in moves):
                # both operands go back to Mat: AutoTileMatmulL0 tiles only a matmul none of whose
                # operands a person placed in L0
                for move, *_ in moves:
                    self.rewrite(move, lambda new: new.args[0].value)
                continue
            inner, space, size = over[0]
            self.flag(site, f"`{self.text(inner)}` moved whole into {space} ({L0[space]}) takes {size} bytes of "
                            f"{self.api.memory_limits[space]}: pypto 2026-08 no longer tiles a matmul whose operands "
                            "are placed in Left/Right (AutoTileMatmulL0); pass both operands from Mat, "
                            f"or extract a smaller {space} tile by hand")

    def _rows(self, call, op, moves, site: Site) -> int | None:
        """M of the matmul, from its left operand (what is moved, or the operand itself)."""
        index = OPERANDS[op.rpartition(".")[2]][0]
        left = argument(call, index, "lhs")
        left = next((inner for move, inner, space, _ in moves if space == "Left"), left)
        t = self.info.type_of(left, site.env) if left is not None else None
        if t is None or not t.shape or len(t.shape) != 2:
            return None
        trans = keyword(call, "a_trans")
        dim = t.shape[1] if trans is not None and code(trans.value) == "True" else t.shape[0]
        return number(dim, self.info, site.function)

    def _bytes(self, expr, site: Site) -> int | None:
        if expr is None:
            return None
        t = self.info.type_of(expr, site.env)
        if not t.shape or t.dtype not in self.api.dtype_bytes:
            return None
        total = self.api.dtype_bytes[t.dtype]
        for dim in t.shape:
            n = number(dim, self.info, site.function)
            if n is None:
                return None
            total *= n
        return int(total)

    def _in_mat(self, expr, site: Site) -> bool:
        """Is the value placed in Mat by its every definition in the function?"""
        if isinstance(expr, cst.Call):
            return _space(expr) == "Mat" and (self.info.op(expr) or "").rpartition(".")[2] in ("load", "move")
        if not isinstance(expr, cst.Name):
            return False
        values = []
        for node in walk(site.function):
            if isinstance(node, (cst.For, cst.AugAssign, cst.AnnAssign)) and expr.value in {
                    n.value for n in walk(node.target) if isinstance(n, cst.Name)}:
                return False  # bound by a loop or an update: where it lives is not known here
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Name) and target.target.value == expr.value:
                        values.append(node.value)
                    elif expr.value in {n.value for n in walk(target.target) if isinstance(n, cst.Name)}:
                        return False
        return bool(values) and all(isinstance(v, cst.Call) and self._in_mat(v, site) for v in values)


ELEMENTWISE_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")


@kind("upgrade-shape-mismatch")
class ShapeMismatch(Upgrade):
    """`pl.mul(a, b)` of shapes no broadcast joins ([4, 256] by [256, 1]): the old compiler let
    it through, the 2026-08 one stops; what was meant (a matmul? a transpose?) is a person's call."""

    flags_only = True

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, *ELEMENTWISE_BINARY):
            args = [a for a in call.args if a.keyword is None]
            if len(args) != 2:
                continue
            a, b = (self.info.type_of(x.value, site.env) for x in args)
            if a.kind not in (TILE, TENSOR) or b.kind not in (TILE, TENSOR) or not a.shape or not b.shape:
                continue
            if len(a.shape) != len(b.shape):
                continue
            dims = [(number(x, self.info, site.function), number(y, self.info, site.function)) for x, y in zip(a.shape, b.shape)]
            if any(x is not None and y is not None and x != y and 1 not in (x, y) for x, y in dims):
                shown = lambda t: "[" + ", ".join(str(n) for n in t) + "]"
                self.flag(site, self.params.get("message", "").format(
                    op=op, lhs=shown(d[0] for d in dims), rhs=shown(d[1] for d in dims)))
