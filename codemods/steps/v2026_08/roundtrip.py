"""A Vec tile moved into Mat and only moved back into Vec, in a kernel that also uses the cube.

e2d0f78ae splits a kernel that uses both units into a cube and a vector kernel, and a move from
Vec into Mat becomes a push to the cube side; moved straight back, the tile has no cube op to
pop it, and StampTfreeSplit stops ("tfree_to_aic requires its tile argument to come from a
matching tpop", at the move into Mat: measured). At 2026-03 the same kernel compiled. Keeping the
tile in Vec is what the code computes, but whether the round trip stood for something (a layout
change the author wanted) is the author's to say: the move is marked.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import attr_name
from .base import Upgrade, binding, keyword, positional
from .infer import Site
from ..registry import kind

CUBE_OPS = ("matmul", "matmul_acc", "matmul_bias", "gemv", "gemv_acc", "gemv_bias", "batch_matmul")


def _space(call) -> str | None:
    target = keyword(call, "target_memory")
    if target is None and len(positional(call)) > 1:
        return attr_name(positional(call)[1].value)
    return attr_name(target.value) if target is not None else None


@kind("upgrade-vec-mat-round-trip")
class VecMatRoundTrip(Upgrade):
    flags_only = True

    def begin(self, ctx) -> None:
        super().begin(ctx)
        for sites in self.sites_by_function().values():
            if not any(op.rpartition(".")[2] in CUBE_OPS for site in sites for _, op in site.calls):
                continue
            made: dict[str, Site] = {}  # name of a tile moved Vec -> Mat -> the site that moved it
            vec: set[str] = set()  # names bound to tiles in Vec (loaded or computed there)
            reads: dict[str, list[str]] = {}  # Mat name -> how each read uses it ("back" or "other")
            backs: dict[str, list[Site]] = {}  # Mat name -> the moves back into Vec
            for site in sites:
                name, value = binding(site.statement)
                for node in _names_read(site.statement):
                    if node in made:
                        reads.setdefault(node, []).append("other")
                if isinstance(value, cst.Call) and (self.info.op(value) or "").rpartition(".")[2] == "move":
                    src = positional(value)[0].value if positional(value) else None
                    src_name = src.value if isinstance(src, cst.Name) else None
                    space = _space(value)
                    if space == "Mat" and src_name in vec and name:
                        made[name] = site
                    elif space == "Vec" and src_name in made and reads.get(src_name):
                        reads[src_name][-1] = "back"
                        backs.setdefault(src_name, []).append(site)
                if name and isinstance(value, cst.Call):
                    op = (self.info.op(value) or "").rpartition(".")[2]
                    space = _space(value) if op in ("load", "move", "create_tile", "create") else "Vec"
                    if space in ("Vec", None) and op not in CUBE_OPS:
                        vec.add(name)
                    else:
                        vec.discard(name)
            for name in made:
                if not reads.get(name) or any(r != "back" for r in reads[name]):
                    continue
                for site in backs[name]:  # the line e2d0f78ae names
                    self.flag(site, f"`{name}` is a Vec tile moved into Mat and only moved back into Vec, in a kernel "
                                    "that also uses the cube: e2d0f78ae splits such a kernel and its StampTfreeSplit "
                                    "pass refuses the round trip (\"tfree_to_aic requires its tile argument to come "
                                    "from a matching tpop\"); keep the tile in Vec, or feed the Mat tile to the cube")

    def scan(self, site: Site) -> None:
        pass


def _names_read(statement) -> list[str]:
    """The names the statement reads (its right-hand side and call arguments)."""
    out = []
    value = statement.body[0].value if isinstance(statement, cst.SimpleStatementLine) and statement.body \
        and isinstance(statement.body[0], (cst.Assign, cst.AnnAssign, cst.Expr)) else None
    if value is None:
        return out

    class _V(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            out.append(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            return False  # pl.MemorySpace.Mat: no name of the kernel

    value.visit(_V())
    return out
