"""Type inference over kernel functions, and the migration it calls for.

One flow-sensitive walk per `@pl.function` infers what each value is (Tensor, Tile,
Scalar; shape, dtype, memory space) as it will be *after* migration, and records, keyed by
the original CST nodes, every conversion the strict 2026-03 API demands inside kernel
regions. The rule kinds in `codemods.migrate.transforms` apply those decisions during the engine's
one traversal; nothing here edits code. Code that is already migrated plans nothing, which
is what makes a second run a no-op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from ..model.capacity import region_usage
from ..model.liveness import Liveness
from .plan import Allocation, Plan, RegionPlan, StatementEdit, View
from .prescan import RegionScan
from ..model.shapes import ShapeConstants
from ..model.kernels import KernelFunction, OpIndex, Region, find_regions, kernel_functions, module_alias, parameter_value, scope_kind
from ..syntax.nodes import attr_name, code, codes, is_name, statements
from ..syntax.traversal import content
from ..rulebook.loading import ApiTable
from ..model.values import ACC, LEFT, MAT, MATMUL_ACC_DTYPE, RIGHT, SCALAR, SCALAR_VAL, TENSOR, TILE, UNKNOWN, UNKNOWN_VAL, VEC, Val, join, row_reduced

ROW_REDUCTIONS = {"row_sum", "row_max", "row_min"}


HALF_FLOATS = frozenset({"BF16", "FP16"})
NARROW_INTS = frozenset({"INT8", "INT16", "INT32", "UINT8", "UINT16", "UINT32"})


def promote(tile: str | None, scalar: str | None) -> str | None:
    """The result type of a tile op with a scalar operand, as the compiler types it (measured):
    a half-precision tile with an FP32 scalar gives FP32; a narrow integer tile with an INDEX
    scalar gives INDEX (and with an FP32 one, FP32); otherwise the tile's own type."""
    if scalar == "FP32" and (tile in HALF_FLOATS or tile in NARROW_INTS):
        return "FP32"
    if scalar == "INDEX" and tile in NARROW_INTS:
        return "INDEX"
    return tile


@dataclass
class _Stmt:
    """Where an expression sits: its statement, its region, the name it is assigned to."""

    node: cst.CSTNode
    region: RegionPlan | None
    target: str | None = None
    direct: bool = False  # the expression is the whole right-hand side

    def inner(self) -> "_Stmt":
        return _Stmt(self.node, self.region, self.target, False)


class Planner(RegionScan, ShapeConstants):
    def __init__(self, module: cst.Module, api: ApiTable, text: str | None = None) -> None:
        self.module = module
        self.api = api
        self.index = OpIndex(module, api.module)
        self.ops = self.index.ops
        self.plan = Plan()
        self.hoisted: dict[tuple[str, str], str] = {}
        # Every identifier-like word of the file: a superset of its names, so fresh names never clash.
        # (`text`: the module's code, when the caller has it already.)
        self.taken: set[str] = set(re.findall(r"[A-Za-z_]\w*", module.code if text is None else text))

    # -- entry ---------------------------------------------------------------------------
    def run(self) -> Plan:
        self.plan.alias = module_alias(self.ops)
        for kf in kernel_functions(self.module, self.ops):
            self.function(kf)
        return self.plan

    def function(self, kf: KernelFunction) -> None:
        self.kf = kf
        self.consts = kf.constants
        self.env_numbers = {n: c.value for n, c in kf.constants.items()}
        self.live = Liveness(statements(kf.node))
        regions = find_regions(kf.node, self.ops, self.env_numbers)
        self.plan.regions.extend(r for r, _ in regions)
        plans = [self._prescan(r, body) for r, body in regions]
        for p in plans:
            p.function = kf.node.name.value
        self.plan.region_plans.extend(plans)
        self._decide_renames(plans)
        self.by_node = {p.region.node: p for p in plans}
        env: dict[str, Val] = {}
        for param in [*kf.node.params.posonly_params, *kf.node.params.params, *kf.node.params.kwonly_params]:
            annotation = param.annotation.annotation if param.annotation is not None else None
            env[param.name.value] = parameter_value(annotation, self.ops)
        self.escaped: dict[str, Region] = {}
        whole = self.by_node.get(kf.node)  # a kernel function: its body is the region
        if whole is not None:
            self._region(whole, env)
        else:
            self._block(statements(kf.node), env, None, None)
        for p in plans:
            self._capacity(p)

    # -- structure -----------------------------------------------------------------------
    def _call_op(self, node) -> str | None:
        return self.ops.get(node) if isinstance(node, cst.Call) else None

    # -- statements ----------------------------------------------------------------------
    def _block(self, stmts, env: dict[str, Val], rp: RegionPlan | None, scope) -> None:
        for s in stmts:
            if rp is not None:
                self._reload_if_used(s, env, rp)
            self._statement(s, env, rp, scope)

    def _statement(self, s, env, rp, scope) -> None:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                (self._annotated if isinstance(small, cst.AnnAssign) else self._small)(small, s, env, rp)
        elif isinstance(s, cst.With):
            inner = self.by_node.get(s)
            if inner is not None:
                self._region(inner, env)
            else:
                auto = any(scope_kind(item.item, self.ops) == "auto_incore" for item in s.items)
                self._block(statements(s), env, rp, s if auto else scope)
        elif isinstance(s, cst.For):
            if isinstance(s.target, cst.Name):
                env[s.target.value] = SCALAR_VAL
            self._expr(s.iter, env, _Stmt(s, rp))
            inner = self.by_node.get(s)
            if inner is not None:
                self._region(inner, env)
            else:
                self._block(statements(s), env, rp, scope)
        elif isinstance(s, cst.If):
            self._expr(s.test, env, _Stmt(s, rp))
            then_env, else_env = dict(env), dict(env)
            self._block(statements(s), then_env, rp, scope)
            if s.orelse is not None:
                self._block(statements(s.orelse), else_env, rp, scope)
            for name in set(then_env) | set(else_env):
                a, b = then_env.get(name), else_env.get(name)
                env[name] = join(a, b) if a is not None and b is not None else (a or b)
        elif isinstance(s, cst.While):
            self._expr(s.test, env, _Stmt(s, rp))
            self._block(statements(s), env, rp, scope)

    def _small(self, small, stmt, env, rp) -> None:
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            if rp is not None and name in rp.handoff and self._handoff_statement(small, stmt, name, env, rp):
                return
            if rp is not None and name in rp.fold_only and self._fold_view(small, stmt, name, env, rp):
                return
            value = self._expr(small.value, env, _Stmt(stmt, rp, name, True))
            before = env.get(name)
            if (rp is not None and value.is_tile and before is not None and before.is_tensor
                    and name in (rp.stored | rp.hoisted) and name not in rp.handoff and before.shape == value.shape and value.shape):
                # A Tensor the kernel also writes piecewise stays a Tensor: a whole update is stored into it.
                self.plan.decisions["handoff-buffer"][small] = ("whole", self._zeros(value), name)
                return
            env[name] = value
            if rp is not None and value.is_tile:
                rp.tile_vars.add(name)
        elif isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            if small.value is not None:
                self._expr(small.value, env, _Stmt(stmt, rp))
        elif isinstance(small, (cst.Expr, cst.Return)):
            if small.value is not None:
                self._expr(small.value, env, _Stmt(stmt, rp))

    def _annotated(self, small: cst.AnnAssign, stmt, env, rp) -> None:
        """`x: pl.Tensor[[M, N], pl.FP32] = value`: the compiler checks the annotation against the
        value's type, so where migration turns the value into a Tile the annotation follows it."""
        if small.value is None or not isinstance(small.target, cst.Name):
            return self._small(small, stmt, env, rp)
        name = small.target.value
        declared = parameter_value(small.annotation.annotation, self.ops)
        if rp is not None and name in rp.handoff:
            self._expr(small.value, env, _Stmt(stmt, rp))
            self._flag("untyped-value", stmt, f"{name} is assembled piecewise under an annotation: hand it off by hand")
            env[name] = declared
            return None
        # The annotated form is planned as the plain assignment it annotates; every decision is
        # keyed by the value's own nodes or by the statement, which both forms share.
        self._small(cst.Assign([cst.AssignTarget(small.target)], small.value), stmt, env, rp)
        value = env.get(name, UNKNOWN_VAL)
        if value.kind == UNKNOWN and declared.kind in (TENSOR, TILE):
            value = declared  # what the annotation says is what the compiler will hold it to
            env[name] = value
            if rp is not None and value.is_tile:
                rp.tile_vars.add(name)
        elif value.is_tile and declared.is_tensor:
            shape, dtype = declared.shape or value.shape, declared.dtype or value.dtype
            if shape is None or dtype is None:
                self._flag("untyped-value", stmt, f"{name} becomes a Tile but its annotation says Tensor; "
                           f"annotate it pl.Tile[[shape], dtype] by hand")
            else:
                self.plan.decisions["retype-annotation"][small.annotation] = (self._shape_text(shape), dtype)
        return None

    def _region(self, rp: RegionPlan, env: dict[str, Val]) -> None:
        local = dict(env)
        self._block(rp.body, local, rp, rp.region.scope)
        live = self.live.live_after(rp.region.node)
        for name, value in local.items():
            if value.is_tile and name in live and self._hand_off(rp, name, value, env):
                env[name] = Val(TENSOR, value.shape, value.dtype)
            elif value.is_tile and name not in env:
                self.escaped[name] = rp.region
            elif not value.is_tile:
                env[name] = value
        for tensor, (tile, share) in rp.preamble.items():
            v = env.get(tensor) or UNKNOWN_VAL
            text = f"{tile} = pl.load({tensor}, {self._zeros(v)}, {self._shape_text(v.shape)}, target_memory=pl.MemorySpace.Vec)"
            self._edit(share, "prepend", rp.region.node, text)

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
                       f"{name} = pl.create_tensor({self._shape_text(value.shape)}, dtype=pl.{value.dtype})")
        self._edit("handoff-buffer", "after", rp.body[-1], f"{name} = pl.store({tile}, {self._zeros(value)}, {name})")
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
            offsets = tuple(_plus(a, b) for a, b in zip(inner.offsets, offsets))
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
                       f"{h.buffer} = pl.create_tensor([{shape}], dtype=pl.{h.dtype})")
            env[name] = Val(TENSOR, h.shape, h.dtype)
            return True
        pos = [a.value for a in small.value.args if a.keyword is None] if isinstance(small.value, cst.Call) else []
        if (op in self.api.ops and self.api.ops[op].kind == "unified" and pos and is_name(pos[0], name)
                and all(isinstance(p, (cst.Integer, cst.Float, cst.UnaryOperation)) for p in pos[1:]) and h.shape):
            # A whole update of the buffer (the zero-init idiom) works on a fresh tile of its
            # shape and stores the result into this iteration's slot, like a piece.
            init = self._fresh(f"{name}_init")
            self._edit("handoff-buffer", "before", stmt, f"{init} = pl.create_tile({self._shape_text(h.shape)}, "
                       f"dtype=pl.{h.dtype}, target_memory=pl.MemorySpace.Vec)")
            zeros = ", ".join("0" for _ in h.shape)
            self.plan.decisions["handoff-buffer"][small] = ("whole-piece", h.buffer, f"[{rp.region.iteration_index()}, {zeros}]",
                                                            self._shape_text(("1", *h.shape)), init)
            self._alloc(rp, VEC, h.shape, h.dtype, f"fresh tile for {name}", stmt, init)
            return True
        if op == "assemble" and is_name(small.value.args[0].value, name):
            piece = self._expr(small.value.args[1].value, env, _Stmt(stmt, rp))
            self._expr(small.value.args[2].value, env, _Stmt(stmt, rp))
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
            text = (f"{final} = pl.reshape(pl.load({h.buffer}, [{rp.region.iteration_index()}, {zeros}], "
                    f"{self._shape_text(('1', *h.shape))}, target_memory=pl.MemorySpace.Vec{valid}), {self._shape_text(h.shape)})")
            self._edit("handoff-buffer", "before", s, text)
            env[name] = Val(TILE, h.shape, h.dtype, VEC)
            self._alloc(rp, VEC, ("1", *h.shape), h.dtype, f"reload of {name} from {h.buffer}", s, name)
            del rp.pending_reload[name]

    # -- expressions ---------------------------------------------------------------------
    def _expr(self, node, env, sc: _Stmt) -> Val:
        if isinstance(node, cst.Name):
            if node.value in env:
                return env[node.value]
            if node.value in self.escaped:
                self._flag("untyped-value", sc.node, f"Tile {node.value} from {self.escaped[node.value].label} is used outside it")
                return UNKNOWN_VAL
            # A number of the module or builder is a scalar; any other free name (a helper,
            # an import, a global of unknown value) is unknown, not guessed.
            return SCALAR_VAL if node.value in self.consts else UNKNOWN_VAL
        if isinstance(node, (cst.Integer, cst.Float)):
            return SCALAR_VAL
        if isinstance(node, cst.Call):
            op = self.ops.get(node)
            if op is None:
                for arg in node.args:
                    self._expr(arg.value, env, sc.inner())
                return UNKNOWN_VAL
            return self._call(op, node, env, sc)
        if isinstance(node, (cst.List, cst.Tuple)):
            for element in node.elements:
                self._expr(element.value, env, sc.inner())
            return UNKNOWN_VAL
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation)):
            known = True
            for child in content(node):
                if isinstance(child, cst.BaseExpression):
                    v = self._expr(child, env, sc.inner())
                    if v.kind in (TENSOR, TILE):
                        self._flag("untyped-value", sc.node, f"Python arithmetic on a {v.kind}: use the pl ops")
                    known = known and v.kind == SCALAR
            # Arithmetic on scalars is a scalar; on something unknown (`x.shape[0] // 2`), unknown.
            return SCALAR_VAL if known else UNKNOWN_VAL
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            if isinstance(node, cst.Subscript):
                self._expr(node.value, env, sc.inner())
            return UNKNOWN_VAL
        return UNKNOWN_VAL

    def _call(self, op: str, node: cst.Call, env, sc: _Stmt) -> Val:
        rp = sc.region
        pos = [a.value for a in node.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        inner = sc.inner()
        if op in ("view", "slice"):
            return self._slice(node, env, sc, None)
        if op in ("create_tensor", "create_tile"):
            return self._create(op, node, env, sc)
        if op == "load":
            src = self._expr(pos[0], env, inner) if pos else UNKNOWN_VAL
            for extra in pos[1:]:
                self._expr(extra, env, inner)
            shape = codes(pos[2]) if len(pos) > 2 else None
            if len(pos) > 2 and rp is not None:
                self._hoist_shape(pos[2], sc)
            space = attr_name(kw.get("target_memory")) or VEC
            if rp is not None and shape:
                self._alloc(rp, space, shape, src.dtype, f"load of {code(pos[0])}", sc, call=node)
            return Val(TILE, shape, src.dtype, space)
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
            for p in pos:
                self._expr(p, env, inner)
            return env.get(code(pos[2]), Val(TENSOR)) if len(pos) > 2 else Val(TENSOR)
        if op == "assemble":
            return self._assemble(node, pos, env, sc)
        if op in ("tensor.read", "read", "tile.read"):
            return self._read(op, node, pos, env, sc)
        if op == "matmul":
            return self._matmul(node, pos, kw, env, sc)
        if op in ("min", "max") or op in ("range", "parallel", "unroll"):
            for p in pos:
                self._expr(p, env, inner)
            return SCALAR_VAL
        spec = self.api.ops.get(op)
        if spec is None:
            for p in pos:
                self._expr(p, env, inner)
            return UNKNOWN_VAL
        return self._generic(op, spec, node, pos, kw, env, sc)

    def _generic(self, op, spec, node, pos, kw, env, sc: _Stmt) -> Val:
        rp = sc.region
        vals: list[Val] = []
        for i, arg in enumerate(pos):
            role = spec.roles.get(spec.params[i], "value") if i < len(spec.params) else "value"
            v = self._expr(arg, env, sc.inner())
            if rp is not None and v.is_tensor and role in ("tile", "value", "value-or-scalar"):
                v = self._load_operand(arg, v, rp, sc)
            vals.append(v)
        first = vals[0] if vals else UNKNOWN_VAL
        if rp is None:
            if first.is_tile or spec.kind == "tile-only":
                # Nothing outlines this code (no pl.incore(), no chunked loop, not an InCore function).
                self._flag("untyped-value", sc.node, f"tile op pl.{op} outside any kernel region: put this code in "
                           "`with pl.incore():` or a function of type pl.FunctionType.InCore")
            return first.but(space=None) if first.kind in (TENSOR, TILE) else first
        if not first.is_tile:
            if first.kind == "unknown":
                self._flag("untyped-value", sc.node, f"cannot tell what the operand of pl.{op} is; check it by hand")
            return first
        shape, dtype = first.shape, first.dtype
        if op == "cast":
            dtype = attr_name(kw.get("target_type") or (pos[1] if len(pos) > 1 else None)) or dtype
        elif op in ROW_REDUCTIONS:
            shape = row_reduced(first)
        if spec.scratch and len(pos) <= spec.params.index(spec.scratch) and spec.scratch not in kw:
            self._scratch(node, first, sc)  # the table says the tile form needs this operand
        elif op == "reshape" and len(pos) > 1:
            shape = codes(pos[1])
            self._hoist_shape(pos[1], sc)
        elif op == "transpose" and shape:
            shape = shape[::-1]
        for i, arg in enumerate(pos[:len(spec.params)]):
            if spec.roles.get(spec.params[i], "value") in ("scalar", "value-or-scalar") and vals[i].kind == SCALAR:
                dtype = promote(dtype, self._scalar_dtype(arg))
        acc_reads = [i for i, v in enumerate(vals) if v.is_tile and v.space == ACC]
        if any(not spec.may_read_acc(i) for i in acc_reads):
            self._flag("matmul-accumulation", sc.node, f"pl.{op} reads a matmul result in Acc; accumulate it into a Vec tile first")
        elif acc_reads and op == "add" and len(pos) > 1 and self._call_op(pos[1]) == "matmul":
            self._flag("matmul-accumulation", sc.node,
                       "a matmul result (Acc) is added into a Vec accumulator; pl.matmul_acc with the first K block "
                       "peeled keeps it in Acc: choose one")
        wrong_space = [v for v in vals if v.is_tile and v.space in (MAT, LEFT, RIGHT)]
        if wrong_space and spec.unit == "vector":
            self._flag("untyped-value", sc.node, f"vector op pl.{op} on a tile in {wrong_space[0].space}; vector ops need Vec")
        result = Val(TILE, shape, dtype, VEC)
        if shape:
            self._alloc(rp, VEC, shape, dtype, f"pl.{op}", sc, call=node)
        return result

    def _slice(self, node: cst.Call, env, sc: _Stmt, space: str | None) -> Val:
        rp = sc.region
        pos = [a.value for a in node.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        src = self._expr(pos[0], env, sc.inner()) if pos else UNKNOWN_VAL
        shape = codes(pos[1]) if len(pos) > 1 else None
        offsets = codes(pos[2]) if len(pos) > 2 else None
        if len(pos) > 2:
            self._expr(pos[2], env, sc.inner())
        if rp is None:
            return Val(TENSOR, shape, src.dtype) if src.kind == TENSOR else src.but(shape=shape)
        if shape is not None:
            self._hoist_shape(pos[1], sc)
        view = rp.views.get(pos[0].value) if isinstance(pos[0], cst.Name) else None
        if view is not None and offsets is not None and len(offsets) == len(view.offsets) and "valid_shape" not in kw:
            space = space or (rp.slice_space.get(sc.target, VEC) if sc.direct else VEC)
            summed = "[" + ", ".join(_plus(a, b) for a, b in zip(view.offsets, offsets)) + "]"
            self.plan.decisions["slice-to-load"][node] = ("fold", space, view.root, summed, view.cast)
            if shape:
                self._alloc(rp, space, shape, view.dtype, f"load of {view.root}", sc, call=node)
            return Val(TILE, shape, view.dtype, space)
        if src.is_tensor:
            if space is None:
                space = rp.slice_space.get(sc.target, VEC) if sc.direct else VEC
            lead = max(0, len(offsets) - len(shape)) if offsets is not None and shape is not None else 0
            self.plan.decisions["slice-to-load"][node] = (space, lead)
            if shape:
                self._alloc(rp, space, ("1",) * lead + shape, src.dtype, f"load of {code(pos[0])}", sc, call=node)
            if "valid_shape" in kw and lead:
                self._flag("untyped-value", sc.node, "a rank-reducing slice with valid_shape: check valid_shapes by hand")
            return Val(TILE, shape, src.dtype, space)
        if src.is_tile:
            if shape:
                self._alloc(rp, src.space or VEC, shape, src.dtype, f"slice of {code(pos[0])}", sc, call=node)
            return Val(TILE, shape, src.dtype, src.space)
        self._flag("untyped-value", sc.node, f"cannot tell whether {code(pos[0])} is a Tensor or a Tile")
        return UNKNOWN_VAL

    def _create(self, op: str, node: cst.Call, env, sc: _Stmt) -> Val:
        rp = sc.region
        shape, dtype, valid = self._creation(node)
        if op == "create_tile":
            if rp is not None and node.args:
                self._hoist_shape(node.args[0].value, sc)
            space = attr_name(next((a.value for a in node.args if a.keyword and a.keyword.value == "target_memory"), None)) or VEC
            if rp is not None and shape:
                self._alloc(rp, space, shape, dtype, "pl.create_tile", sc, call=node)
            return Val(TILE, shape, dtype, space)
        if rp is not None and rp.region.kind == "incore" and sc.direct and sc.target in rp.hoisted:
            self._edit("handoff-buffer", "remove", sc.node)
            self._edit("handoff-buffer", "before", rp.region.node,
                       f"{sc.target} = pl.create_tensor({code(node.args[0].value)}, dtype=pl.{dtype})")
            if valid:
                self._flag("drop-valid-shape", rp.region.node, f"valid_shape={valid} of {sc.target} dropped (create_tensor "
                           "takes none now); padding rows are computed and may be written out: decide whether that is acceptable")
            return Val(TENSOR, shape, dtype)
        if rp is None:
            if valid:
                self.plan.decisions["drop-valid-shape"][node] = True
                self._flag("drop-valid-shape", sc.node, f"valid_shape={valid} dropped (create_tensor takes none now); "
                           "put validity on the loads that read it")
            return Val(TENSOR, shape, dtype)
        self.plan.decisions["accumulator-to-tile"][node] = True
        first = node.args[0].value if node.args else None
        if first is not None:
            self._hoist_shape(first, sc)
        if valid:
            self._flag("drop-valid-shape", sc.node, f"valid_shape={valid} dropped; padding rows are computed now "
                       "and may be written out: decide whether that is acceptable")
        if shape:
            self._alloc(rp, VEC, shape, dtype, "accumulator", sc, call=node)
        return Val(TILE, shape, dtype, VEC)

    def _creation(self, node: cst.Call):
        pos = [a.value for a in node.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        shape = codes(pos[0]) if pos else codes(kw.get("shape"))
        dtype = attr_name(kw.get("dtype") or (pos[1] if len(pos) > 1 else None))
        valid = code(kw["valid_shape"]) if "valid_shape" in kw else None
        return shape, dtype, valid

    def _assemble(self, node, pos, env, sc: _Stmt) -> Val:
        rp = sc.region
        vals = [self._expr(p, env, sc.inner()) for p in pos]
        target = vals[0] if vals else UNKNOWN_VAL
        if rp is None:
            return target
        if len(vals) < 3:
            return target
        source = vals[1]
        if source.is_tensor:
            source = self._load_operand(pos[1], source, rp, sc)
        if target.is_tensor and source.is_tile:
            reshape = None
            if target.shape and source.shape and len(target.shape) > len(source.shape):
                reshape = self._shape_text(("1",) * (len(target.shape) - len(source.shape)) + source.shape)
            self.plan.decisions["assemble-to-store"][node] = reshape
            return target
        if target.is_tile:
            self._flag("untyped-value", sc.node, "assembling into a Tile: there is no tile concatenation; "
                       "hand the pieces off through a Tensor created before the kernel")
        return target

    def _read(self, op, node, pos, env, sc: _Stmt) -> Val:
        rp = sc.region
        src = self._expr(pos[0], env, sc.inner()) if pos else UNKNOWN_VAL
        for p in pos[1:]:
            self._expr(p, env, sc.inner())
        if rp is None or op == "tile.read":
            return SCALAR_VAL
        if src.is_tile:
            self.plan.decisions["kernel-scalar-read"][node] = None
        elif src.is_tensor and isinstance(pos[0], cst.Name):
            if pos[0].value in rp.stored:
                self._flag("untyped-value", sc.node, f"{pos[0].value} is written and read in the same kernel; load it where it is read")
            self.plan.decisions["kernel-scalar-read"][node] = self._preamble(rp, pos[0].value, src, "kernel-scalar-read")
        return SCALAR_VAL

    def _matmul(self, node, pos, kw, env, sc: _Stmt) -> Val:
        rp = sc.region
        if len(pos) < 2:
            return UNKNOWN_VAL
        if rp is None:
            a = self._expr(pos[0], env, sc.inner())
            self._expr(pos[1], env, sc.inner())
            return a
        spaces = self.api.ops["matmul"].space  # where the cube unit reads and writes, from the table
        lhs, how_l = self._matmul_operand(pos[0], spaces.get("lhs", LEFT), env, sc.inner())
        rhs, how_r = self._matmul_operand(pos[1], spaces.get("rhs", RIGHT), env, sc.inner())
        # The tile matmul takes only its two operands; its result is FP32 in Acc.
        drop = tuple(k for k in ("out_dtype",) if k in kw and attr_name(kw[k]) == MATMUL_ACC_DTYPE)
        for k in ("out_dtype", "a_trans", "b_trans", "c_matrix_nz"):
            if k in kw and k not in drop:
                self._flag("untyped-value", sc.node, f"the tile pl.matmul takes no {k}=; move the operand with "
                           "transpose=True or cast the result instead")
        if how_l or how_r or drop:
            self.plan.decisions["matmul-operands"][node] = (how_l, how_r, drop)
        shape = (lhs.shape[0], rhs.shape[1]) if lhs.shape and rhs.shape and len(lhs.shape) == 2 and len(rhs.shape) == 2 else None
        dtype = attr_name(kw.get("out_dtype")) or MATMUL_ACC_DTYPE
        result = spaces.get("result", ACC)
        if sc.direct and sc.target and self._read_by_vector_op(rp, sc.target):
            # A named matmul result that a vector op reads is moved out of Acc into Vec once.
            self.plan.decisions["matmul-operands"][node] = (*self.plan.decisions["matmul-operands"].get(node, (how_l, how_r, ())), VEC)
            if shape:
                self._alloc(rp, result, shape, dtype, "matmul result", sc.inner(), call=node)
                self._alloc(rp, VEC, shape, dtype, "matmul result moved to Vec", sc)
            return Val(TILE, shape, dtype, VEC)
        if shape:
            self._alloc(rp, result, shape, dtype, "matmul result", sc, call=node)
        return Val(TILE, shape, dtype, result)

    def _matmul_operand(self, arg, side: str, env, sc: _Stmt) -> tuple[Val, str | None]:
        rp = sc.region
        transposed = self._call_op(arg) == "transpose"
        inner = arg.args[0].value if transposed and arg.args else arg
        if self._call_op(inner) in ("slice", "view"):
            v = self._slice(inner, env, sc, MAT)
        else:
            v = self._expr(inner, env, sc.inner())
            if v.is_tensor:
                v = self._load_operand(inner, v, rp, sc, MAT)
        if not v.is_tile:
            self._flag("untyped-value", sc.node, f"cannot tell what the matmul operand {code(inner)[:40]} is")
            return v, None
        shape = v.shape[::-1] if transposed and v.shape else v.shape
        if v.space == side and not transposed:
            return v.but(shape=shape), None
        how = ("mat" if v.space == MAT else "vec") + ("-t" if transposed else "")
        what = self._operand_name(inner)
        if how.startswith("vec") and v.shape:
            self._alloc(rp, MAT, v.shape, v.dtype, f"copy of {what} in Mat", sc)
        if shape:
            self._alloc(rp, side, shape, v.dtype, f"{'lhs' if side == LEFT else 'rhs'} operand, {what}", sc)
        return Val(TILE, shape, v.dtype, side), how

    # -- helpers -------------------------------------------------------------------------
    def _scalar_dtype(self, node) -> str | None:
        """The type the DSL gives a Python number: a float is an FP32 scalar, an int an INDEX one."""
        if self._is_float(node):
            return "FP32"
        if isinstance(node, cst.Integer) or (isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer)):
            return "INDEX"
        if isinstance(node, cst.Name) and node.value in self.consts:
            return "INDEX"
        return None

    def _is_float(self, node) -> bool:
        """Whether a scalar expression is a Python float: a float literal, a true division, or a
        constant defined by one (the DSL folds them into FP32 scalars)."""
        if isinstance(node, cst.Float):
            return True
        if isinstance(node, cst.UnaryOperation):
            return self._is_float(node.expression)
        if isinstance(node, cst.BinaryOperation):
            return isinstance(node.operator, cst.Divide) or self._is_float(node.left) or self._is_float(node.right)
        if isinstance(node, cst.Name) and node.value in self.consts:
            c = self.consts[node.value]
            if not float(c.value).is_integer():
                return True
            for small in getattr(c.statement, "body", ()):
                if (isinstance(small, cst.Assign) and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == node.value):
                    return self._is_float(small.value)
        return False

    def _read_by_vector_op(self, rp: RegionPlan, name: str) -> bool:
        for op, i in rp.operand_of.get(name, ()):
            spec = self.api.ops.get(op)
            if spec is not None and spec.unit == "vector" and not spec.may_read_acc(i):
                return True
        return False

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

    def _load_operand(self, arg, v: Val, rp: RegionPlan, sc: _Stmt, space: str = VEC) -> Val:
        """A Tensor used where a Tile is needed inside a kernel: load it whole, once, at the kernel's start."""
        if not isinstance(arg, cst.Name) or not v.shape:
            self._flag("untyped-value", sc.node, f"{code(arg)[:40]} is a Tensor where a Tile is needed; load it by hand")
            return v
        if arg.value in rp.stored:  # written in this kernel: read it where it is read, not at the start
            key = (sc.node, arg.value)
            tile = rp.late_loads.get(key)
            if tile is None:
                tile = rp.late_loads[key] = self._fresh(f"{arg.value}_tile")
                self._edit("tensor-operand-load", "before", sc.node,
                           f"{tile} = pl.load({arg.value}, {self._zeros(v)}, {self._shape_text(v.shape)}, target_memory=pl.MemorySpace.Vec)")
                self._alloc(rp, VEC, v.shape, v.dtype, f"load of {arg.value}", sc.node, tile)
        else:
            tile = self._preamble(rp, arg.value, v, "tensor-operand-load")
        self.plan.decisions["tensor-operand-load"][arg] = tile
        return Val(TILE, v.shape, v.dtype, VEC)

    def _preamble(self, rp: RegionPlan, tensor: str, v: Val, share: str) -> str:
        """A tensor loaded whole at the kernel's start; the first rule that needs it writes the load."""
        if tensor not in rp.preamble:
            rp.preamble[tensor] = (self._fresh(f"{tensor}_tile"), share)
            if v.shape:
                self._alloc(rp, VEC, v.shape, v.dtype, f"whole load of {tensor}", rp.region.node, rp.preamble[tensor][0])
        return rp.preamble[tensor][0]

    def _scratch(self, node: cst.Call, first: Val, sc: _Stmt) -> None:
        if not first.shape or not first.dtype:
            self._flag("untyped-value", sc.node, "the scratch tile of this reduction needs a known shape and dtype")
            return
        name = self._fresh(f"{sc.target or 'row'}_tmp")
        self.plan.decisions["tile-reduction-scratch"][node] = name
        text = f"{name} = pl.create_tile({self._shape_text(first.shape)}, dtype=pl.{first.dtype}, target_memory=pl.MemorySpace.Vec)"
        self._edit("tile-reduction-scratch", "before", sc.node, text)
        self._alloc(sc.region, VEC, first.shape, first.dtype, "scratch tile", sc.node, name)

    def _alloc(self, rp: RegionPlan | None, space, shape, dtype, what, where, name=None, call=None) -> None:
        """Record a tile; `where` is the statement, or the expression's _Stmt (named when direct);
        `call` the call that makes it, where the code already has one."""
        if isinstance(where, _Stmt):
            where, name = where.node, (where.target if where.direct else None)
        if rp is not None and shape and dtype:
            rp.allocations.append(Allocation(space, tuple(shape), dtype, what, where, name, call, self.ops.get(call)))

    def _capacity(self, rp: RegionPlan) -> None:
        for usage in region_usage(rp, self.api, self.env_numbers):
            if usage.bytes is not None and usage.bytes > usage.limit:
                self._flag("capacity", rp.region.node, f"{rp.region.label}, {usage.space}: {usage.summary()}")
        rp.constants = dict(self.env_numbers)

    def _zeros(self, v: Val) -> str:
        return "[" + ", ".join("0" for _ in (v.shape or ())) + "]"

    def _fresh(self, base: str) -> str:
        name, n = base, 2
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        return name

    def _edit(self, rule: str, where: str, node, text: str = "") -> None:
        self.plan.statements.append(StatementEdit(rule, where, node, text))


    def _flag(self, rule: str, node, message: str) -> None:
        self.plan.flags.append((rule, node, message))


def plan_module(module: cst.Module, api: ApiTable, text: str | None = None) -> Plan:
    return Planner(module, api, text).run()


# -- small helpers ------------------------------------------------------------------------


def _plus(a: str, b: str) -> str:
    if a == "0":
        return b
    if b == "0":
        return a
    return f"{a} + {b}"






def _is_true(node) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"








def _uses_whole(statement, name: str, ops) -> bool:
    """Does the statement read `name` other than as the target of `name = assemble(name, ...)`?"""
    found = False

    class V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> bool:
            target = node.targets[0].target if len(node.targets) == 1 else None
            value = node.value
            if is_name(target, name) and isinstance(value, cst.Call) and ops.get(value) == "assemble" and value.args and is_name(value.args[0].value, name):
                for arg in value.args[1:]:
                    arg.visit(self)
                return False
            value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            nonlocal found
            if node.value == name:
                found = True

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

    statement.visit(V())
    return found
