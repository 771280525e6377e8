"""What each value of a kernel function is: the typing half of the planner.

Given an environment of names, it says what an expression is (Tensor, Tile, Scalar; shape,
dtype, memory space) as it will be *after* migration: inside a kernel region a Tensor
operand becomes the Tile it is loaded as, a slice the Tile it is loaded into. Result types
come from the API table (`model.results`), scalar dtypes from the DSL's own promotion.

It decides nothing itself. Where a value's type implies a change to the code, it calls the
decision side (`codemods.migrate.decisions`, mixed into the same Planner), which supplies
`_flag`, `_alloc`, `_decide`, `_load_operand`, `_scratch`, `_assemble`, `_kernel_read`,
`_kernel_matmul`, `_cube_operand`, `_tensor_creation`, `_tile_form`, `_store_shapes` and `_operand_checks`; `_hoist_shape` comes from
`model.shapes`. This module imports nothing of `migrate`, so the dependency runs one way.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import libcst as cst

from ..syntax.nodes import attr_name, code, codes
from ..syntax.traversal import EXPRESSION_TYPES, content, walk
from .extents import constant_bound
from .constants import evaluate, scalar_dtype
from .results import argument, result_val
from .values import ACC, SCALAR, SCALAR_VAL, TENSOR, TILE, UNKNOWN_VAL, VEC, Val

# What arithmetic on scalars makes a scalar of (exact types: LibCST's node classes are final).
_OPERATIONS = frozenset({cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation})



class Site(NamedTuple):
    """Where an expression sits: its statement, its region, the name it is assigned to."""

    node: cst.CSTNode
    region: Any  # the RegionPlan the statement is in, or None
    target: str | None = None
    direct: bool = False  # the expression is the whole right-hand side

    def inner(self) -> "Site":
        return Site(self.node, self.region, self.target, False)


class Inference:
    """Mixin of the Planner: the typing of expressions."""

    _yielded: list[Val] = []  # what the last `pl.yield_` typed hands on, by position
    _locals: frozenset[str] | set[str] = frozenset()  # the names the function being walked binds
    _closure_types: dict[str, str] = {}  # the DSL types of the values its builder hands it (constants.closure_dtypes)

    # -- structure -----------------------------------------------------------------------
    def _call_op(self, node) -> str | None:
        return self.ops.get(node) if isinstance(node, cst.Call) else None

    # -- expressions ---------------------------------------------------------------------
    def _expr(self, node, env, sc: Site) -> Val:
        kind = type(node)  # exact types: LibCST's node classes are final (no ABCMeta)
        if kind is cst.Name:
            if node.value in env:
                return env[node.value]
            if node.value in self.escaped:
                self._flag("untyped-value", sc.node, f"Tile {node.value} from {self.escaped[node.value].label} is used outside it")
                return UNKNOWN_VAL
            if node.value in self.consts:  # a number of the module or builder
                return SCALAR_VAL.but(dtype=self._scalar_dtype(node))
            # A name the function does not bind is a Python value the parser folds where the
            # kernel reads it (an imported size, a builder's parameter): a scalar, of a type
            # its unknown value would tell. One it binds in a way not followed stays unknown.
            return SCALAR_VAL.but(dtype=self._closure_types.get(node.value)) if node.value not in self._locals else UNKNOWN_VAL
        if kind is cst.Integer:
            return SCALAR_VAL.but(dtype="INDEX")
        if kind is cst.Float:
            return SCALAR_VAL.but(dtype="FP32")
        if kind is cst.Call:
            op = self.ops.get(node)
            if op is None and type(node.func) is cst.Name and node.func.value in self.helpers:
                return self._inline_call(node, env, sc)  # the planner's: an @pl.inline helper typed at its call
            if op is None:
                for arg in node.args:
                    self._expr(arg.value, env, sc.inner())
                return UNKNOWN_VAL
            result = self._call(op, node, env, sc)
            self._typed_only([a.value for a in node.args if a.keyword is not None], env, sc)
            return result
        if kind is cst.List or kind is cst.Tuple:
            for element in node.elements:
                self._expr(element.value, env, sc.inner())
            return UNKNOWN_VAL
        if kind in _OPERATIONS:
            known = True
            operands = []
            for child in content(node):
                if type(child) in EXPRESSION_TYPES:  # no ABCMeta
                    v = self._expr(child, env, sc.inner())
                    if v.kind in (TENSOR, TILE):
                        self._flag("untyped-value", sc.node, f"Python arithmetic on a {v.kind}: use the pl ops")
                    known = known and v.kind == SCALAR
                    operands.append(v.dtype)
            # Arithmetic on scalars is a scalar; on something unknown (`x.shape[0] // 2`), unknown.
            return SCALAR_VAL.but(dtype=self._arithmetic_dtype(node, operands)) if known else UNKNOWN_VAL
        if kind is cst.Subscript:
            base = node.value
            if type(base) is cst.Attribute and base.attr.value == "shape":
                # `x.shape[1]`: an extent of a Tensor or Tile, an INDEX to the DSL
                owner = self._expr(base.value, env, sc.inner())
                self._typed_only([e.slice.value for e in node.slice if type(e.slice) is cst.Index], env, sc)
                return SCALAR_VAL.but(dtype="INDEX") if owner.kind in (TENSOR, TILE) else UNKNOWN_VAL
            src = self._expr(node.value, env, sc.inner())
            if src.kind in (TENSOR, TILE):
                return self._subscript(node, src, env, sc)
        return UNKNOWN_VAL

    def _folded(self, node) -> bool:
        """Whether a scalar expression is a Python number when the program is built: no call,
        and every name a constant or a value of the builder (one the function does not bind)."""
        return all(type(n) is not cst.Call and (type(n) is not cst.Name or n.value not in self._locals)
                   for n in walk(node))

    def _arithmetic_dtype(self, node, operands: list) -> str | None:
        """The DSL's type of scalar arithmetic: a comparison or a logical operation is a BOOL;
        arithmetic of numbers the parser folds is what Python makes of them (`C / 2` a float);
        otherwise the operands' common type (`common_dtype`)."""
        kind = type(node)
        if kind is cst.Comparison or kind is cst.BooleanOperation or (kind is cst.UnaryOperation and type(node.operator) is cst.Not):
            return "BOOL"
        if self._folded(node):
            return self._scalar_dtype(node) or common_dtype(operands)
        return common_dtype(operands)

    def _call(self, op: str, node: cst.Call, env, sc: Site) -> Val:
        rp = sc.region
        pos = [a.value for a in node.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        inner = sc.inner()
        if op in ("view", "slice"):
            return self._slice(node, env, sc, None)
        if op in ("create_tensor", "create_tile"):
            return self._create(op, node, env, sc)
        if op == "load":
            spec = self.api.ops[op]
            src = self._expr(pos[0], env, inner) if pos else UNKNOWN_VAL
            for extra in pos[1:]:
                self._expr(extra, env, inner)
            if not pos and "tensor" in kw:
                src = self._expr(kw["tensor"], env, inner)
            shapes = argument(spec, "shapes", pos, kw)  # by position or keyword (`shapes=[64, 64]`)
            shape = codes(shapes) if shapes is not None else None
            if shapes is not None and rp is not None:
                self._hoist_shape(shapes, sc)
            space = attr_name(kw.get("target_memory")) or VEC
            if rp is not None and shape:
                self._alloc(rp, space, shape, src.dtype, f"load of {code(pos[0])}", sc, call=node)
            return Val(TILE, shape, src.dtype, space, valid=_valid_of(kw))
        if op == "move":
            src = self._expr(pos[0], env, inner) if pos else UNKNOWN_VAL
            space = attr_name(kw.get("target_memory") or (pos[1] if len(pos) > 1 else None)) or VEC
            shape = src.shape
            if shape and _is_true(kw.get("transpose")):
                shape = shape[::-1]
            if rp is not None and shape:
                self._alloc(rp, space, shape, src.dtype, f"{self._operand_name(pos[0])} moved to {space}", sc, call=node)
            return Val(TILE, shape, src.dtype, space)
        if op == "store":
            vals = [self._expr(p, env, inner) for p in pos]
            if len(pos) == 4 and not kw:  # the old form, whose shapes argument the target dropped
                self._store_shapes(node, vals[0], pos[2])
            # The Tensor written: `output_tensor=`, else the last operand (the old four-operand
            # store put the shape before it)
            if "output_tensor" in kw:
                out = self._expr(kw["output_tensor"], env, inner)
            else:
                out = vals[-1] if len(vals) > 2 else Val(TENSOR)
            return out if out.is_tensor else Val(TENSOR)
        if op == "assemble":
            return self._assemble(node, pos, env, sc)
        if op in ("tensor.read", "read", "tile.read"):
            return self._read(op, node, pos, env, sc)
        if op == "matmul":
            return self._matmul(node, pos, kw, env, sc)
        if op == "yield_":
            # The values a loop hands on (`acc_out = pl.yield_(nxt)`): the binding after the loop
            # is what is yielded, so a value keeps one kind through init_values, the loop's
            # header, the yield and the name read after the loop.
            self._yielded = [self._expr(p, env, inner) for p in pos]
            return self._yielded[0] if len(self._yielded) == 1 else UNKNOWN_VAL
        if op in ("min", "max") or op in ("range", "parallel", "unroll"):
            dtypes = [self._expr(p, env, inner).dtype for p in pos]
            return SCALAR_VAL.but(dtype=common_dtype(dtypes)) if op in ("min", "max") and dtypes else SCALAR_VAL
        spec = self.api.ops.get(op)
        if spec is None:
            for p in pos:
                self._expr(p, env, inner)
            return UNKNOWN_VAL
        return self._generic(op, spec, node, pos, kw, env, sc)

    def _generic(self, op, spec, node, pos, kw, env, sc: Site) -> Val:
        rp = sc.region
        if spec.result == "tile" and spec.params and spec.roles.get(spec.params[0]) == "shape":
            # A tile made from a shape (pl.tile.full): no operand to type it by.
            self._typed_only(pos[:1], env, sc)
            for p in pos[1:]:
                self._expr(p, env, sc.inner())
            dtype = attr_name(kw.get("dtype") or (pos[1] if len(pos) > 1 else None))
            return Val(TILE, codes(pos[0]) if pos else None, dtype, VEC)
        vals: list[Val] = []
        for i, arg in enumerate(pos):
            role = spec.roles.get(spec.params[i], "value") if i < len(spec.params) else "value"
            side = spec.space.get(spec.params[i]) if i < len(spec.params) and spec.unit == "cube" else None
            if rp is not None and side is not None and side != ACC:
                # A cube op's operand goes where the table says the unit reads it (Left/Right), by
                # way of Mat, as pl.matmul's do: not loaded into Vec, which the cube cannot read.
                vals.append(self._cube_operand(node, i, arg, side, env, sc))
                continue
            v = self._expr(arg, env, sc.inner())
            if rp is not None and v.is_tensor and role in ("tile", "value", "value-or-scalar"):
                v = self._load_operand(arg, v, rp, sc)
            elif (rp is not None and v.is_tile and v.space == ACC and spec.unit == "vector"
                  and not spec.may_read_acc(i) and self._call_op(arg) == "matmul"):
                v = self._matmul_to_vec(arg, v, rp, sc)  # written inline: moved out of Acc where it is read
            vals.append(v)
        if rp is not None and spec.kind == "tensor-only" and any(v.is_tile for v in vals):
            # `pl.tensor.X` on a value the migration makes a Tile: the form of X the table says takes tiles.
            retarget = self._tile_form(op, node, sc)
            if retarget is not None:
                op, spec = retarget, self.api.ops[retarget]
                for i, (arg, v) in enumerate(zip(pos, vals)):
                    role = spec.roles.get(spec.params[i], "value") if i < len(spec.params) else "value"
                    if v.is_tensor and role in ("tile", "value", "value-or-scalar"):
                        vals[i] = self._load_operand(arg, v, rp, sc)
        first = vals[0] if vals else UNKNOWN_VAL
        if rp is None:
            if first.is_tile or spec.kind == "tile-only":
                # Nothing outlines this code (no pl.incore(), no chunked loop, not an InCore function).
                self._flag("untyped-value", sc.node, f"tile op pl.{op} outside any kernel region: put this code in "
                           "`with pl.incore():` or a function of type pl.FunctionType.InCore")
            if first.kind in (TENSOR, TILE):
                return result_val(spec, vals, pos, kw, self._scalar_dtype).but(space=None)
            return first
        if not first.is_tile:
            if first.kind == "unknown":
                self._flag("untyped-value", sc.node, f"cannot tell what the operand of pl.{op} is; check it by hand")
            elif first.is_tensor:
                return result_val(spec, vals, pos, kw, self._scalar_dtype)
            return first
        derived = result_val(spec, vals, pos, kw, self._scalar_dtype)  # what the table says the op gives
        shape, dtype = derived.shape, derived.dtype
        if spec.scratch and len(pos) <= spec.params.index(spec.scratch) and spec.scratch not in kw:
            self._scratch(node, first, sc)  # the table says the tile form needs this operand
        elif op == "reshape" and len(pos) > 1:
            self._hoist_shape(pos[1], sc)
        self._operand_checks(op, spec, pos, vals, sc)
        if derived.kind != TILE:  # pl.tile.store gives the Tensor it wrote, a read gives a scalar
            return derived
        space = spec.space.get("result", VEC)  # the cube ops write Acc
        result = Val(TILE, shape, dtype, space, valid=derived.valid)
        if shape:
            self._alloc(rp, space, shape, dtype, f"pl.{op}", sc, call=node)
        return result

    def _rewritten(self, value, val: Val | None, env, sc: Site) -> None:
        """A value the decision side planned whole (a hand-off, a folded view): it is what the
        name is bound to, `val`; its scalar operands are typed as they are."""
        self._typed_only([a.value for n in walk(value) if type(n) is cst.Call for a in n.args if type(a.value) is not cst.Call],
                         env, sc)
        self._note(value, val if val is not None else UNKNOWN_VAL)

    def _note(self, node, val: Val) -> None:
        """What an expression the walk did not type is (kept by whoever measures the inference)."""

    def _typed_only(self, nodes, env, sc: Site) -> None:
        """Arguments the handlers read as text (keywords, shapes): typed for what they are, and
        only where that decides nothing (no call but `pl.min`/`pl.max` inside), with every
        flag dropped."""
        with self._muted(True):
            for node in nodes:
                if all(type(n) is not cst.Call or self._call_op(n) in ("min", "max") for n in walk(node)):
                    self._expr(node, env, sc.inner())

    def _slice(self, node: cst.Call, env, sc: Site, space: str | None) -> Val:
        rp = sc.region
        pos = [a.value for a in node.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        self._typed_only(pos[1:2], env, sc)
        src = self._expr(pos[0], env, sc.inner()) if pos else UNKNOWN_VAL
        shape = codes(pos[1]) if len(pos) > 1 else None
        offsets = codes(pos[2]) if len(pos) > 2 else None
        if len(pos) > 2:
            self._expr(pos[2], env, sc.inner())
        valid = _valid_of(kw)
        if rp is None:
            return Val(TENSOR, shape, src.dtype, valid=valid) if src.kind == TENSOR else src.but(shape=shape, valid=valid)
        if shape is not None:
            self._hoist_shape(pos[1], sc)
        view = rp.views.get(pos[0].value) if isinstance(pos[0], cst.Name) else None
        if view is not None and offsets is not None and len(offsets) == len(view.offsets) and "valid_shape" not in kw:
            space = space or (rp.slice_space.get(sc.target, VEC) if sc.direct else VEC)
            summed = "[" + ", ".join(plus(a, b) for a, b in zip(view.offsets, offsets)) + "]"
            self._decide("slice-to-load", node, ("fold", space, view.root, summed, view.cast))
            if shape:
                self._alloc(rp, space, shape, view.dtype, f"load of {view.root}", sc, call=node)
            return Val(TILE, shape, view.dtype, space)
        if src.is_tensor:
            if space is None:
                space = rp.slice_space.get(sc.target, VEC) if sc.direct else VEC
            lead = max(0, len(offsets) - len(shape)) if offsets is not None and shape is not None else 0
            bounded = self._static_extent(pos[1], kw, lead, sc) if len(pos) > 1 else None
            if bounded is not None:
                shape = bounded[1]
            self._decide("slice-to-load", node, (space, lead, bounded))
            if shape:
                self._alloc(rp, space, ("1",) * lead + shape, src.dtype, f"load of {code(pos[0])}", sc, call=node)
            if "valid_shape" in kw and lead:
                self._flag("untyped-value", sc.node, "a rank-reducing slice with valid_shape: check valid_shapes by hand")
            return Val(TILE, shape, src.dtype, space, valid=None if lead else valid)
        if src.is_tile:
            runtime = [e for e in (pos[1].elements if len(pos) > 1 and isinstance(pos[1], (cst.List, cst.Tuple)) else ())
                       if self._runtime_extent(e.value)]
            if runtime:  # c39's tile.slice takes no valid_shape: no static form of this slice exists there
                self._flag("slice-to-load", sc.node, f"a slice of Tile {code(pos[0])} of runtime width "
                           f"`{code(runtime[0].value)}`: c39 allocates tiles from their shapes (a create_tile or "
                           "scratch of this width is refused) and its tile.slice takes no valid_shape; load the "
                           "window from its Tensor at the largest width with valid_shapes=, or keep the width constant")
            elif self._call_op(node) == "view" and "valid_shape" in kw:
                # February code (a 2026-03 slice is the 2026-08 step's to judge). c39 refuses "slice() got an
                # unexpected keyword argument 'valid_shape'". Moving the region onto the load the tile is
                # computed from changes what a reduction reads (the February CCE backend ignored valid
                # shapes and reduced over the padding too, c39's PTO backend honours them): a person decides
                self._flag("slice-to-load", sc.node, f"valid_shape={code(kw['valid_shape'])} on a slice of Tile "
                           f"{code(pos[0])}: c39's tile.slice takes no valid_shape (it refuses the call); decide where "
                           "the valid region goes: on the pl.load the tile is computed from (valid_shapes=; a "
                           "reduction then skips the padding, which the February CCE backend read), or, for a "
                           "matmul result, mask the padding before the op that reads it")
            if shape:
                self._alloc(rp, src.space or VEC, shape, src.dtype, f"slice of {code(pos[0])}", sc, call=node)
            return Val(TILE, shape, src.dtype, src.space)
        self._flag("untyped-value", sc.node, f"cannot tell whether {code(pos[0])} is a Tensor or a Tile")
        return UNKNOWN_VAL

    def _subscript(self, node: cst.Subscript, src: Val, env, sc: Site, space: str | None = None) -> Val:
        """`x[i, a:b]` as c39 reads it: all scalar indices of full rank are a read of one element;
        with a slice among them, a window in which a scalar index keeps its axis with size 1
        (pypto#1343 made it drop the axis later, the 2026-08 step's business). Inside a kernel
        region a window of a Tensor is data a tile op reads: a load, as `pl.slice` is (PTO002)."""
        window = _window(node, src.shape)
        for element in node.slice:
            part = element.slice
            bounds = [part.value] if type(part) is cst.Index else [b for b in (part.lower, part.upper) if b is not None]
            for bound in bounds:
                self._expr(bound, env, sc.inner())
        if window is None:
            return UNKNOWN_VAL
        offsets, shape, reads = window
        if reads:
            return SCALAR_VAL.but(dtype=src.dtype)
        rp = sc.region
        if rp is None or not src.is_tensor:
            return src.but(shape=shape, valid=None)
        if any(evaluate(extent, self.env_numbers) is None for extent in shape):
            self._flag("slice-to-load", sc.node, f"`{code(node)}` has an extent known only at run time: c39 allocates a "
                       "tile from its shape; load the window with pl.load at its largest extent and valid_shapes= by hand")
            return UNKNOWN_VAL
        space = space or (rp.slice_space.get(sc.target, VEC) if sc.direct else VEC)
        self._decide("slice-to-load", node, ("subscript", space, "[" + ", ".join(offsets) + "]", "[" + ", ".join(shape) + "]"))
        self._alloc(rp, space, shape, src.dtype, f"load of {code(node.value)}", sc, call=node)
        return Val(TILE, shape, src.dtype, space)

    def _static_extent(self, shape_node, kw, lead: int, sc: Site):
        """A load's shape with a runtime extent: c39 allocates a tile from its shape (a
        `create_tile` of it is refused, "shape element 1 must be a compile-time constant", and
        the code generator wants constants). Where each runtime element is `pl.min(C, ...)` with
        a constant C (model/extents.py), the load takes C and the extent goes to valid_shapes=:
        (the axes and their bounds, the static shape). Where one has no bound, the line is
        flagged; None then, and where there is no runtime element."""
        if not isinstance(shape_node, (cst.List, cst.Tuple)):
            return None
        runtime = [(i, e.value) for i, e in enumerate(shape_node.elements) if self._runtime_extent(e.value)]
        if not runtime:
            return None
        if "valid_shape" in kw or lead:
            self._flag("slice-to-load", sc.node, f"shape element `{code(runtime[0][1])}` is a runtime value beside "
                       "valid_shape= or a rank reduction: write the largest extent as the shape and the runtime one "
                       "in valid_shapes= by hand")
            return None
        function = self.kf.node
        bounds = []
        for axis, element in runtime:
            bound = constant_bound(element, function, self._call_op, self._int_of)
            if bound is None:
                self._flag("slice-to-load", sc.node, f"shape element {axis} (`{code(element)}`) is a runtime value: c39 "
                           "allocates a tile from its shape and refuses a runtime one; write its largest value as "
                           f"the shape and pass `{code(element)}` in valid_shapes=")
                return None
            bounds.append((axis, code(bound)))
        static = list(codes(shape_node))
        for axis, bound in bounds:
            static[axis] = bound
        return tuple(bounds), tuple(static)

    def _int_of(self, text: str) -> int | None:
        """The integer an expression of the program's numbers folds to; None otherwise."""
        value = evaluate(text, self.env_numbers)
        return int(value) if value is not None and float(value).is_integer() else None

    def _runtime_extent(self, element) -> bool:
        """A shape element the compiler cannot fold: not a number, not made of constants."""
        text = code(element)
        if evaluate(text, self.env_numbers) is not None:
            return False
        names = {n.value for n in walk(element) if isinstance(n, cst.Name)}
        # a name the kernel function does not bind (an imported size, a builder's parameter) is
        # a Python number when the program is built, its value known here or not
        return bool(names) and not names <= set(self.consts) and bool(names & self.runtime)

    def _create(self, op: str, node: cst.Call, env, sc: Site) -> Val:
        rp = sc.region
        self._typed_only([a.value for a in node.args if a.keyword is None], env, sc)
        shape, dtype, valid = self._creation(node)
        if op == "create_tile":
            if rp is not None and node.args:
                self._hoist_shape(node.args[0].value, sc)
            space = attr_name(next((a.value for a in node.args if a.keyword and a.keyword.value == "target_memory"), None)) or VEC
            if rp is not None and shape:
                self._alloc(rp, space, shape, dtype, "pl.create_tile", sc, call=node)
            return Val(TILE, shape, dtype, space)
        return self._tensor_creation(node, shape, dtype, valid, sc)

    def _creation(self, node: cst.Call):
        pos = [a.value for a in node.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        shape = codes(pos[0]) if pos else codes(kw.get("shape"))
        dtype = attr_name(kw.get("dtype") or (pos[1] if len(pos) > 1 else None))
        valid = code(kw["valid_shape"]) if "valid_shape" in kw else None
        return shape, dtype, valid

    def _read(self, op, node, pos, env, sc: Site) -> Val:
        rp = sc.region
        src = self._expr(pos[0], env, sc.inner()) if pos else UNKNOWN_VAL
        for p in pos[1:]:
            self._expr(p, env, sc.inner())
        read = SCALAR_VAL.but(dtype=src.dtype)  # a read gives an element of its source's type
        if rp is None or op == "tile.read":
            return read
        self._kernel_read(node, pos, src, sc)
        return read

    def _matmul(self, node, pos, kw, env, sc: Site) -> Val:
        rp = sc.region
        if len(pos) < 2:
            return UNKNOWN_VAL
        if rp is None:
            vals = [self._expr(pos[0], env, sc.inner()), self._expr(pos[1], env, sc.inner())]
            if vals[0].kind not in (TENSOR, TILE):
                return vals[0]
            return result_val(self.api.ops["matmul"], vals, pos, kw, self._scalar_dtype).but(space=None)
        return self._kernel_matmul(node, pos, kw, env, sc)

    # -- helpers -------------------------------------------------------------------------
    def _scalar_dtype(self, node) -> str | None:
        return scalar_dtype(node, self.consts)

    def _operand_name(self, node) -> str:
        """How a report names an operand: `x_chunk`, `a tile of wq`, `a pl.cast result`."""
        op = self._call_op(node)
        if op in ("slice", "view", "load") and node.args:
            return f"a tile of {code(node.args[0].value)}"
        if op == "move" and node.args:
            return self._operand_name(node.args[0].value)
        if op:
            return f"a pl.{op} result"
        return code(node) if isinstance(node, cst.Name) else "an expression"


# -- small helpers ------------------------------------------------------------------------


def plus(a: str, b: str) -> str:
    if a == "0":
        return b
    if b == "0":
        return a
    return f"{a} + {b}"


def minus(a: str, b: str) -> str:
    """`a - b` as a shape is written: `o + T` less `o` is `T`."""
    if b == "0":
        return a
    if a.startswith(b + " + ") or a.startswith(b + "+"):
        return a[len(b):].lstrip(" +")
    return f"{a} - {b}" if " " not in b else f"{a} - ({b})"


def _window(node: cst.Subscript, shape) -> tuple[tuple[str, ...], tuple[str, ...], bool] | None:
    """(offsets, extents, whether it reads one element) of a subscript, c39's way; None where
    it is not a plain window of a value of known rank (a step, fewer indices than axes)."""
    elements = [e.slice for e in node.slice]
    if shape is None or len(elements) != len(shape):
        return None
    offsets, extents = [], []
    for part, extent in zip(elements, shape):
        if type(part) is cst.Index:
            offsets.append(code(part.value))
            extents.append("1")
            continue
        if part.step is not None:
            return None
        lower = code(part.lower) if part.lower is not None else "0"
        upper = code(part.upper) if part.upper is not None else extent
        offsets.append(lower)
        extents.append(minus(upper, lower))
    reads = all(type(part) is cst.Index for part in elements)
    return tuple(offsets), tuple(extents), reads


def _valid_of(kw: dict) -> tuple[str, ...] | None:
    """The valid region a view, slice or load is given, as written (`valid_shape=`/`valid_shapes=`)."""
    node = kw.get("valid_shape", kw.get("valid_shapes"))
    return codes(node) if isinstance(node, (cst.List, cst.Tuple)) else None


def _is_true(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


_INT_BITS = {"INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64, "UINT8": 8, "UINT16": 16, "UINT32": 32, "UINT64": 64}
_FLOAT_BITS = {"FP16": 16, "BF16": 16, "FP32": 32}


def common_dtype(dtypes: list) -> str | None:
    """The type c39 gives scalar arithmetic (and pl.min/max) of operands of these types, as
    measured: an INDEX (a loop counter, a folded Python int) makes integers INDEX, else the
    wider integer wins (INT32 * INT64 is INT64); the wider float wins (BF16 + FP32, BF16 * 2.0
    are FP32); an integer with a float is refused ("requires same numeric dtype category").
    None where that is not known."""
    if not dtypes or None in dtypes:
        return None
    kinds = set(dtypes)
    if len(kinds) == 1:
        return dtypes[0]
    if kinds <= set(_INT_BITS) | {"INDEX"}:
        if "INDEX" in kinds:
            return "INDEX"
        widths = sorted(kinds, key=_INT_BITS.get)
        wide = widths[-1]
        return wide if all(k[0] == wide[0] for k in kinds) and _INT_BITS[widths[-2]] < _INT_BITS[wide] else None
    if kinds <= set(_FLOAT_BITS):
        widths = sorted(kinds, key=_FLOAT_BITS.get)
        return widths[-1] if _FLOAT_BITS[widths[-2]] < _FLOAT_BITS[widths[-1]] else None
    return None
