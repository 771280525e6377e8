"""Values that cross a kernel's boundary, or are assembled piecewise: hand-offs and folded views.

A Tile still read after its `pl.incore()` block is stored into a Tensor of its name; a
Tensor assembled piecewise in a chunked loop is handed off through a buffer with one slot
per iteration and reloaded where it is read whole; a view only sliced again is folded into
the loads that read it.
"""

from __future__ import annotations

import libcst as cst

from ..model.inference import Site, plus
from ..model.values import TENSOR, TILE, VEC, Val
from ..syntax.nodes import attr_name, code, codes, is_name
from ..syntax.traversal import content
from .decisions import statement
from .plan import RegionPlan, View


class HandOffs:
    """Mixin of the Planner: hand-off buffers and folded views."""

    def _hand_off(self, rp: RegionPlan, name: str, value: Val, env: dict[str, Val]) -> bool:
        """A Tile still read after its `pl.incore()` block leaves it as a Tensor: the block
        stores it into a Tensor of the same name, created before the block unless one that
        fits is already there; inside the block the tile gets a name of its own."""
        if rp.region.kind != "incore" or not value.shape or not value.dtype or not rp.body:
            return False
        if name in self.live.live_before(rp.body[0]):
            self._flag("untyped-value", rp.region.node, f"{name} is read in this block before the block makes it a Tile, "
                       "and read after it: hand it off through a Tensor by hand")
            return True
        tile = rp.renames.get(name)
        if tile is None:
            tile = rp.renames[name] = self._fresh(f"{name}_tile")
            for node in rp.name_nodes.get(name, ()):
                self.plan.decisions["unique-tile-names"][node] = tile
        before = env.get(name)
        if not (before is not None and before.is_tensor and before.shape == value.shape and before.dtype == value.dtype):
            self._edit("handoff-buffer", "before", rp.region.node,
                       statement("create_tensor", name=name, shape=self._shape_text(value.shape), dtype=value.dtype))
        self._edit("handoff-buffer", "after", rp.body[-1], statement("store", name=name, tile=tile, offsets=self._zeros(value)))
        return True

    def _fold_view(self, small: cst.Assign, stmt, name: str, env, rp: RegionPlan) -> bool:
        view_call, cast = self._view_parts(small.value)
        pos = [a.value for a in view_call.args if a.keyword is None]
        root = env.get(pos[0].value)
        if root is None or not root.is_tensor:
            return False
        offsets = codes(pos[2])
        inner = rp.views.get(pos[0].value)
        if inner is not None:  # a view of a view: compose down to the real tensor
            if len(inner.offsets) != len(offsets) or (inner.cast and cast is not None):
                return False
            offsets = tuple(plus(a, b) for a, b in zip(inner.offsets, offsets))
            cast = cast if cast is not None else None
            root_name, cast_text = inner.root, inner.cast or (code(cast) if cast is not None else None)
        else:
            root_name, cast_text = pos[0].value, code(cast) if cast is not None else None
        dtype = attr_name(cast) if cast is not None else root.dtype
        rp.views[name] = View(root_name, offsets, cast_text, dtype)
        self._edit("slice-to-load", "remove", stmt)
        env[name] = Val(TENSOR, codes(pos[1]), dtype)
        return True

    # -- hand-off buffers (a value assembled piecewise from tiles) ----------------------
    def _handoff_statement(self, small: cst.Assign, stmt, name: str, env, rp: RegionPlan) -> bool:
        h = rp.handoff[name]
        op = self._call_op(small.value)
        if op == "create_tensor":
            self._edit("handoff-buffer", "remove", stmt)
            shape = ", ".join((rp.region.trip_count(), *h.shape))
            self._edit("handoff-buffer", "before", rp.region.scope or rp.region.node,
                       statement("create_tensor", name=h.buffer, shape=f"[{shape}]", dtype=h.dtype))
            env[name] = Val(TENSOR, h.shape, h.dtype)
            return True
        pos = [a.value for a in small.value.args if a.keyword is None] if isinstance(small.value, cst.Call) else []
        if (op in self.api.ops and self.api.ops[op].kind == "unified" and pos and is_name(pos[0], name)
                and all(isinstance(p, (cst.Integer, cst.Float, cst.UnaryOperation)) for p in pos[1:]) and h.shape):
            # A whole update of the buffer (the zero-init idiom) works on a fresh tile of its
            # shape and stores the result into this iteration's slot, like a piece.
            init = self._fresh(f"{name}_init")
            self._edit("handoff-buffer", "before", stmt, statement("create_tile", name=init, shape=self._shape_text(h.shape), dtype=h.dtype))
            zeros = ", ".join("0" for _ in h.shape)
            self.plan.decisions["handoff-buffer"][small] = ("whole-piece", h.buffer, f"[{rp.region.iteration_index()}, {zeros}]",
                                                            self._shape_text(("1", *h.shape)), init)
            self._alloc(rp, VEC, h.shape, h.dtype, f"fresh tile for {name}", stmt, init)
            return True
        if op == "assemble" and is_name(small.value.args[0].value, name):
            piece = self._expr(small.value.args[1].value, env, Site(stmt, rp))
            self._expr(small.value.args[2].value, env, Site(stmt, rp))
            offset = small.value.args[2].value
            offsets = [code(e.value) for e in offset.elements] if isinstance(offset, cst.List) else None
            if not piece.is_tile or not piece.shape or offsets is None:
                self._flag("untyped-value", stmt, f"cannot hand {name} off through a buffer: the piece is {piece.describe()}")
                return True
            self.plan.decisions["handoff-buffer"][small] = (
                h.buffer,
                f"[{', '.join((rp.region.iteration_index(), *offsets))}]",
                self._shape_text(("1", *piece.shape)),
            )
            if h.valid and not h.flagged:
                h.flagged = True
                self._flag("drop-valid-shape", stmt, f"valid_shape={h.valid} of {name} dropped; the reload carries it as "
                           "valid_shapes, but padding rows are computed and may be written out: decide whether that is acceptable")
            rp.pending_reload[name] = h
            return True
        return False

    def _reload_if_used(self, s, env, rp: RegionPlan) -> None:
        for name, h in list(rp.pending_reload.items()):
            if not _uses_whole(s, name, self.ops):
                continue
            final = rp.renames.get(name, name)
            zeros = ", ".join("0" for _ in h.shape)
            valid = f", valid_shapes=[1, {h.valid.strip('[]')}]" if h.valid else ""
            text = statement("reload", name=final, tensor=h.buffer, offsets=f"[{rp.region.iteration_index()}, {zeros}]",
                             shape=self._shape_text(("1", *h.shape)), valid=valid, reshape=self._shape_text(h.shape))
            self._edit("handoff-buffer", "before", s, text)
            env[name] = Val(TILE, h.shape, h.dtype, VEC)
            self._alloc(rp, VEC, ("1", *h.shape), h.dtype, f"reload of {name} from {h.buffer}", s, name)
            del rp.pending_reload[name]



def _uses_whole(statement, name: str, ops) -> bool:
    """Does the statement read `name` other than as the target of `name = assemble(name, ...)`?"""

    def reads(node) -> bool:
        kind = type(node)
        if kind is cst.Name:
            return node.value == name
        if kind is cst.Assign:
            target = node.targets[0].target if len(node.targets) == 1 else None
            value = node.value
            if is_name(target, name) and isinstance(value, cst.Call) and ops.get(value) == "assemble" and value.args and is_name(value.args[0].value, name):
                return any(reads(arg.value) for arg in value.args[1:])
            return reads(value)
        if kind is cst.Attribute or kind is cst.Arg:  # not an attribute's name nor a keyword
            return reads(node.value)
        return any(reads(child) for child in content(node))

    found = reads(statement)
    del reads  # a closure that calls itself is a reference cycle (see migrate/collector.py)
    return found
