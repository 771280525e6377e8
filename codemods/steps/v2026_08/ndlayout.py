"""A tile moved into Vec from Mat or Acc keeps the cube's block layout at 2026-08 (blayout
col_major, slayout row_major: measured), and a few Vec ops refuse it for an operand the API
table marks `nd` ("tile.row_min requires an ND input layout"). c39's tiles had no layout: the
same code compiled. Where such an operand comes from such a move, directly or through ops that
keep their first operand's layout (elementwise ops, casts: measured), the move is given the
layout every Vec tile made in Vec has, `blayout=row_major, slayout=none_box`; e2d0f78ae then
moves the elements into a row-major tile, and they are the same elements.

Only a move the target would refuse is touched: code written for 2026-08 never feeds an NZ tile
to these operands, so it is never rewritten.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import attr_name
from .base import Upgrade, argument, binding, keyword, positional
from .infer import ELEMENTWISE, Site
from ..registry import kind

CUBE_SPACES = {"Mat", "Acc", "Left", "Right"}
LAYOUT = "blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box"
KEEPS_LAYOUT = ELEMENTWISE | {"cast"}  # the result is laid out as the first operand


@kind("upgrade-nd-operand-move")
class NdOperandMove(Upgrade):
    def begin(self, ctx) -> None:
        super().begin(ctx)
        for sites in self.sites_by_function().values():
            bindings: dict[str, list[cst.BaseExpression]] = {}
            for site in sites:
                for call, op in site.calls:
                    spec = self.api.ops.get(op)
                    if spec is None or not spec.nd:
                        continue
                    for param in spec.nd:
                        operand = argument(call, spec.params.index(param), param) if param in spec.params else None
                        for move in self._moves(operand, bindings, 0):
                            self.rewrite(move, self._laid_out)
                name, value = binding(site.statement)
                if name is not None:
                    bindings.setdefault(name, []).append(value)

    def scan(self, site: Site) -> None:
        pass

    def _moves(self, node, bindings, depth: int) -> list[cst.Call]:
        """The moves out of a cube buffer into Vec, without a layout, that the value comes from."""
        if depth > 8 or node is None:
            return []
        if isinstance(node, cst.Name):
            return [m for value in bindings.get(node.value, [])[-1:] for m in self._moves(value, bindings, depth + 1)]
        if not isinstance(node, cst.Call):
            return []
        op = (self.info.op(node) or "").rpartition(".")[2]
        if op == "move":
            space = attr_name(keyword(node, "target_memory").value) if keyword(node, "target_memory") else None
            if space == "Vec" and keyword(node, "blayout") is None and keyword(node, "slayout") is None \
                    and from_cube(positional(node)[0].value if positional(node) else None, bindings, self.info.op, depth):
                return [node]
            return []
        if op in KEEPS_LAYOUT and positional(node):
            return self._moves(positional(node)[0].value, bindings, depth + 1)
        return []

    def _laid_out(self, new: cst.Call) -> cst.Call:
        extra = [cst.Arg(value=self.expr(f"pl.TileLayout.{v}"), keyword=cst.Name(k),
                         equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                               whitespace_after=cst.SimpleWhitespace("")))
                 for k, v in (("blayout", "row_major"), ("slayout", "none_box"))]
        args = list(new.args)
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        for i, arg in enumerate(extra):
            args.append(arg if i == len(extra) - 1 else arg.with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        return new.with_changes(args=args)


def from_cube(node, bindings, op_of, depth: int = 0) -> bool:
    """Is the value in Mat, Left, Right or Acc (a load or move there, a matmul)? `bindings`: each
    name's values in the order the function binds them; `op_of`: a call's pl op."""
    if depth > 8 or node is None:
        return False
    if isinstance(node, cst.Name):
        values = bindings.get(node.value, [])[-1:]
        return bool(values) and from_cube(values[0], bindings, op_of, depth + 1)
    if not isinstance(node, cst.Call):
        return False
    op = (op_of(node) or "").rpartition(".")[2]
    if op in ("load", "move"):
        target = keyword(node, "target_memory")
        return target is not None and attr_name(target.value) in CUBE_SPACES
    return op.startswith(("matmul", "gemv", "batch_matmul"))


def is_pop(node, bindings, op_of) -> bool:
    """A move into Vec of a value in a cube buffer: in a kernel that uses both cores, the vector
    core receives it from the cube core (a tpop; the tile is freed after its last read)."""
    if not isinstance(node, cst.Call) or (op_of(node) or "").rpartition(".")[2] != "move":
        return False
    target = keyword(node, "target_memory")
    if target is None or attr_name(target.value) != "Vec" or not positional(node):
        return False
    return from_cube(positional(node)[0].value, bindings, op_of, 1)
