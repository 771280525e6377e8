"""What must change in a kernel region, written into the `Plan`: the decision half of the planner.

The typing (`codemods.model.inference`) says what each value is; where that calls for a
change, these methods record it: a Tensor operand loaded (at the kernel's start, or where it
is read when the kernel also writes it), a reduction's scratch tile, an assemble of a Tile
piece turned into a store, a scalar read, a matmul's operands moved into Left/Right, a
create_tensor inside a kernel made a Tile; every tile the kernel will hold (`Allocation`,
for the capacity report), the statements to insert (`StatementEdit`), and the flags.
"""

from __future__ import annotations

import libcst as cst

from ..model.capacity import region_usage
from ..model.extents import assignments, constant_bound
from ..model.inference import Site
from ..model.values import ACC, LEFT, MAT, MATMUL_ACC_DTYPE, RIGHT, TENSOR, TILE, UNKNOWN, UNKNOWN_VAL, VEC, Val
from ..model.liveness import names_written
from ..syntax.nodes import attr_name, code, codes, is_window, statements
from .matmul_flags import tile_matmul_keywords
from .plan import Allocation, RegionPlan, StatementEdit

# The statements the planner inserts, one form each, filled in by `statement()`: what the
# 2026-03 API calls a whole load, a fresh Vec tile, a Tensor made before a kernel, a store
# of a tile into it, and a piece reloaded from a hand-off buffer.
STATEMENTS = {
    "load": "{name} = pl.load({tensor}, {offsets}, {shape}, target_memory=pl.MemorySpace.Vec)",
    "create_tile": "{name} = pl.create_tile({shape}, dtype=pl.{dtype}, target_memory=pl.MemorySpace.Vec)",
    "create_tensor": "{name} = pl.create_tensor({shape}, dtype=pl.{dtype})",
    "store": "{name} = pl.store({tile}, {offsets}, {name})",
    "reload": "{name} = pl.reshape(pl.load({tensor}, {offsets}, {shape}, target_memory=pl.MemorySpace.Vec{valid}), {reshape})",
}


def statement(form: str, **fields: str) -> str:
    return STATEMENTS[form].format(**fields)


class Decisions:
    """Mixin of the Planner: the decisions its typing calls for (the hooks `model.inference`
    calls), and the recording of them: `_decide`, `_edit`, `_alloc`, `_flag`, `_fresh`."""

    def _assemble(self, node, pos, env, sc: Site) -> Val:
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
        if target.kind in (TENSOR, UNKNOWN) and source.is_tile:
            # The old assemble's target is a Tensor whatever the tool knows of it (tensor.assemble
            # takes nothing else); its Tile piece is stored: `tensor.assemble requires second
            # argument to be a TensorType, but got TileType` otherwise.
            reshape = None
            if target.shape and source.shape and len(target.shape) > len(source.shape):
                reshape = self._shape_text(("1",) * (len(target.shape) - len(source.shape)) + source.shape)
            window = self._stored_window(pos[1], source, sc)
            if window is not None and reshape is None:
                self.plan.decisions["assemble-to-store"][node] = ("valid", window, self._zeros(source))
            else:
                self.plan.decisions["assemble-to-store"][node] = reshape
            return target
        if target.is_tile:
            self._flag("untyped-value", sc.node, "assembling into a Tile: there is no tile concatenation; "
                       "hand the pieces off through a Tensor created before the kernel")
        return target

    def _stored_window(self, operand, source: Val, sc: Site) -> str | None:
        """The valid region of a masked piece an assemble writes (`pl.view(..., valid_shape=v)`):
        the old assemble wrote only that region, leaving what the target held around it, and a
        store writes the whole tile, its padding too. The region as a constant shape to store
        a slice of, where it is smaller than the tile; a flag where it is not constant."""
        text = self._valid_window(operand, ("view", "slice"))
        if text is None and source.valid:  # the region travels with the value (a cast, an elementwise op)
            text = "[" + ", ".join(source.valid) + "]"
        if text is None or not source.shape:
            return None
        try:
            node = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            node = None
        elements = [code(e.value) for e in node.elements] if isinstance(node, (cst.List, cst.Tuple)) else None
        sizes = [self._int_of(e) for e in elements] if elements is not None else [None]
        whole = [self._int_of(e) for e in source.shape]
        if None in sizes or elements is None or len(elements) != len(source.shape):
            self._flag("assemble-to-store", sc.node, f"the piece assembled here is masked to its valid region {text}, "
                       "which the old pl.assemble wrote alone, and pl.store writes the whole tile, its padding too: "
                       "store only the valid region by hand (a constant-shaped pl.slice of the tile), or keep what "
                       "the padding overwrites")
            return None
        if sizes == whole:
            return None
        return self._shape_text(tuple(elements))

    def _kernel_read(self, node, pos, src: Val, sc: Site) -> None:
        """A scalar read inside a kernel: of a Tile as it is, of a Tensor through its whole load."""
        rp = sc.region
        if src.is_tile:
            self.plan.decisions["kernel-scalar-read"][node] = None
        elif src.is_tensor and isinstance(pos[0], cst.Name):
            if pos[0].value in rp.stored:
                self._flag("untyped-value", sc.node, f"{pos[0].value} is written and read in the same kernel; load it where it is read")
            self.plan.decisions["kernel-scalar-read"][node] = self._preamble(rp, pos[0].value, src, "kernel-scalar-read")

    def _kernel_matmul(self, node, pos, kw, env, sc: Site) -> Val:
        """A matmul inside a kernel: its operands moved into Left/Right, its result in Acc (or Vec)."""
        rp = sc.region
        spaces = self.api.ops["matmul"].space  # where the cube unit reads and writes, from the table
        drop, flips = tile_matmul_keywords(self.api.ops["matmul"], kw)
        lhs, how_l = self._matmul_operand(pos[0], spaces.get("lhs", LEFT), env, sc.inner(), flips[0])
        rhs, how_r = self._matmul_operand(pos[1], spaces.get("rhs", RIGHT), env, sc.inner(), flips[1])
        for k in kw:
            if k not in drop and k not in (self.api.ops["matmul"].tile_params or ()):
                self._flag("untyped-value", sc.node, f"the tile pl.matmul takes no {k}=; move the operand with "
                           "transpose=True or cast the result instead")
        hows = tuple((i, side, how) for i, side, how in ((0, spaces.get("lhs", LEFT), how_l), (1, spaces.get("rhs", RIGHT), how_r)) if how)
        if hows or drop:
            self.plan.decisions["matmul-operands"][node] = (hows, drop)
        shape = (lhs.shape[0], rhs.shape[1]) if lhs.shape and rhs.shape and len(lhs.shape) == 2 and len(rhs.shape) == 2 else None
        dtype = attr_name(kw.get("out_dtype")) or MATMUL_ACC_DTYPE
        result = spaces.get("result", ACC)
        if sc.direct and sc.target and self._read_by_vector_op(rp, sc.target):
            # A named matmul result that a vector op reads is moved out of Acc into Vec once.
            self.plan.decisions["matmul-operands"][node] = (*self.plan.decisions["matmul-operands"].get(node, ((), ())), VEC)
            if shape:
                self._alloc(rp, result, shape, dtype, "matmul result", sc.inner(), call=node)
                self._alloc(rp, VEC, shape, dtype, "matmul result moved to Vec", sc)
            return Val(TILE, shape, dtype, VEC)
        if shape:
            self._alloc(rp, result, shape, dtype, "matmul result", sc, call=node)
        return Val(TILE, shape, dtype, result)

    def _cube_operand(self, node: cst.Call, index: int, arg, side: str, env, sc: Site) -> Val:
        """An operand of another cube op (pl.matmul_acc, gemv, ...) where the table says the unit
        reads it: moved there as pl.matmul's operands are."""
        v, how = self._matmul_operand(arg, side, env, sc.inner())
        if how:
            decided = self.plan.decisions["matmul-operands"]
            hows, drop, *to = decided.get(node, ((), ()))
            decided[node] = (hows + ((index, side, how),), drop, *to)
        return v

    def _matmul_to_vec(self, node: cst.Call, v: Val, rp: RegionPlan, sc: Site) -> Val:
        """A matmul written as a vector op's operand (`pl.mul(pl.matmul(a, b), s)`): its result is
        moved out of Acc into Vec there, as a named result is. c39 compiles the Acc read too, but
        the vector op's operand is not in Acc in the target's semantics (the interpreter refuses it)."""
        decided = self.plan.decisions["matmul-operands"]
        decided[node] = (*decided.get(node, ((), ()))[:2], VEC)
        if v.shape:
            self._alloc(rp, VEC, v.shape, v.dtype, "matmul result moved to Vec", sc)
        return v.but(space=VEC)

    def _matmul_operand(self, arg, side: str, env, sc: Site, flip: bool = False) -> tuple[Val, str | None]:
        """The operand as the tile matmul needs it, and how it gets there: "mat"/"vec" (moved from
        Mat or Vec), "-t" (its pl.transpose undone into the move), "-T" (an a_trans/b_trans flag
        carried out by the move)."""
        rp = sc.region
        transposed = self._call_op(arg) == "transpose"
        if flip and transposed:  # transposed twice: the flag undoes the pl.transpose; left to a person
            self._flag("untyped-value", sc.node, "a pl.transpose operand under a_trans/b_trans: drop both by hand")
            flip = False
        inner = arg.args[0].value if transposed and arg.args else arg
        if self._call_op(inner) in ("slice", "view"):
            v = self._slice(inner, env, sc, MAT)
            self._note(inner, v)
        elif is_window(inner):
            v = self._subscript(inner, self._expr(inner.value, env, sc.inner()), env, sc, MAT)
            self._note(inner, v)
        else:
            v = self._expr(inner, env, sc.inner())
            if v.is_tensor:
                v = self._load_operand(inner, v, rp, sc, MAT)
        if not v.is_tile:
            self._flag("untyped-value", sc.node, f"cannot tell what the matmul operand {code(inner)[:40]} is")
            return v, None
        shape = v.shape[::-1] if (transposed or flip) and v.shape else v.shape
        if v.space == side and not transposed and not flip:
            return v.but(shape=shape), None
        how = ("mat" if v.space == MAT else "vec") + ("-t" if transposed else "-T" if flip else "")
        what = self._operand_name(inner)
        if how.startswith("vec") and v.shape:
            self._alloc(rp, MAT, v.shape, v.dtype, f"copy of {what} in Mat", sc)
        if shape:
            self._alloc(rp, side, shape, v.dtype, f"{'lhs' if side == LEFT else 'rhs'} operand, {what}", sc)
        return Val(TILE, shape, v.dtype, side), how

    def _tensor_creation(self, node: cst.Call, shape, dtype, valid, sc: Site) -> Val:
        """A pl.create_tensor: made before an incore block that assembles it, a Tile (an
        accumulator) inside any other kernel, and without valid_shape outside."""
        rp = sc.region
        if rp is not None and rp.region.kind == "incore" and sc.direct and sc.target in rp.hoisted:
            self._edit("handoff-buffer", "remove", sc.node)
            self._edit("handoff-buffer", "before", rp.region.node,
                       statement("create_tensor", name=sc.target, shape=code(node.args[0].value), dtype=dtype))
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

    def _operand_checks(self, op: str, spec, pos, vals: list[Val], sc: Site) -> None:
        """Operands a vector op cannot read where they are: a matmul result in Acc, a tile in Mat/Left/Right."""
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

    def _tile_form(self, op: str, node: cst.Call, sc: Site) -> str | None:
        """`pl.tensor.X` given a Tile inside a kernel (the migration made its operand one): the op
        of the target that takes tiles, read off the API table: the op's `tile_form` where the
        table names one (`add_scalar`: `tile.adds`), `X` where it is unified (it dispatches on
        its first operand), else `tile.X`. None, and the line flagged, where the
        table has neither."""
        _, _, name = op.partition(".")
        own = self.api.ops.get(op)
        for candidate in ((own.tile_form,) if own is not None and own.tile_form else ()) + (name, f"tile.{name}"):
            spec = self.api.ops.get(candidate)
            if spec is None or not self.api.exists(candidate):
                continue
            if spec.kind == "unified" or (candidate.startswith("tile.") and spec.kind == "tile-only"):
                self._decide("namespaced-tile-op", node.func, candidate)
                return candidate
        self._flag("untyped-value", sc.node, f"pl.{op} is given a Tile here and the target has no tile form of it: "
                   "rewrite it with tile ops by hand")
        return None

    def _read_by_vector_op(self, rp: RegionPlan, name: str) -> bool:
        for op, i in rp.operand_of.get(name, ()):
            spec = self.api.ops.get(op)
            if spec is not None and spec.unit == "vector" and not spec.may_read_acc(i):
                return True
        return False

    def _load_operand(self, arg, v: Val, rp: RegionPlan, sc: Site, space: str = VEC) -> Val:
        """A Tensor used where a Tile is needed inside a kernel: load it whole, once, at the kernel's start."""
        if not isinstance(arg, cst.Name) or not v.shape:
            self._flag("untyped-value", sc.node, f"{code(arg)[:40]} is a Tensor where a Tile is needed; load it by hand")
            return v
        if arg.value in rp.carried_init and arg.value not in rp.stored:  # what the loop starts from is loaded
            return self._load_carried_init(arg.value, v, rp, sc)
        if arg.value in rp.stored or arg.value in rp.bound:
            # written or bound in this kernel before this read: read it where it is read; a load at
            # the kernel's start would read a name not yet bound there (or its value of before)
            key = (sc.node, arg.value)
            tile = rp.late_loads.get(key)
            if tile is None:
                tile = rp.late_loads[key] = self._fresh(f"{arg.value}_tile")
                self._edit("tensor-operand-load", "before", sc.node,
                           statement("load", name=tile, tensor=arg.value, offsets=self._zeros(v), shape=self._shape_text(v.shape)))
                self._alloc(rp, VEC, v.shape, v.dtype, f"load of {arg.value}", sc.node, tile)
        else:
            carried = arg.value in rp.loop_bound and _carried(rp.body, sc.node, arg.value)
            if carried and not self._carry_as_tile(rp, arg.value, sc):
                return v
            tile = self._preamble(rp, arg.value, v, "tensor-operand-load")
            if carried:
                # Carried round a loop of the kernel (`acc = pl.add(acc, ...)`): loaded once at the
                # start, it is the tile from then on, so every use and binding of the name in the
                # kernel takes the tile's name; reading the load in each turn would drop the sum.
                for node in rp.name_nodes.get(arg.value, ()):
                    self.plan.decisions["tensor-operand-load"][node] = tile
        self.plan.decisions["tensor-operand-load"][arg] = tile
        return Val(TILE, v.shape, v.dtype, VEC)

    def _load_carried_init(self, name: str, v: Val, rp: RegionPlan, sc: Site) -> Val:
        """A Tensor a loop of the kernel carries (`for i, (acc,) in pl.range(n, init_values=(t,))`)
        read where a Tile is needed: the loop's header name is bound only by the loop, so what is
        loaded is its init value `t`, before the loop, and the loop carries that tile: one kind for
        the init value, the header name, the yield and the binding after the loop."""
        init, loop = rp.carried_init[name]
        if not isinstance(init, cst.Name):
            self._flag("untyped-value", sc.node, f"{name} is a Tensor the loop carries from {code(init)[:40]}; "
                       "load the init value into a tile before the loop by hand")
            return v
        key = (loop, init.value)
        tile = rp.late_loads.get(key)
        if tile is None:
            if init.value in rp.stored or init.value in rp.bound:
                tile = rp.late_loads[key] = self._fresh(f"{init.value}_tile")
                self._edit("tensor-operand-load", "before", loop,
                           statement("load", name=tile, tensor=init.value, offsets=self._zeros(v), shape=self._shape_text(v.shape)))
                self._alloc(rp, VEC, v.shape, v.dtype, f"load of {init.value}", loop, tile)
            else:
                tile = rp.late_loads[key] = self._preamble(rp, init.value, v, "tensor-operand-load")
        self.plan.decisions["tensor-operand-load"][init] = tile
        return Val(TILE, v.shape, v.dtype, VEC)

    def _carry_as_tile(self, rp: RegionPlan, name: str, sc: Site) -> bool:
        """Whether a Tensor a kernel's loop carries can become the kernel's own tile: only when
        nothing after the kernel reads it (the tile would have to be written back)."""
        if name not in self.live.live_after(rp.region.node):
            return True
        self._flag("tensor-operand-load", sc.node, f"{name} is a Tensor this kernel's loop carries and code after the "
                   f"kernel reads: load it once before the loop into a tile, accumulate into that tile, and store it "
                   f"back to {name} after the loop")
        return False

    def _preamble(self, rp: RegionPlan, tensor: str, v: Val, share: str) -> str:
        """A tensor loaded whole at the kernel's start; the first rule that needs it writes the load."""
        if tensor not in rp.preamble:
            rp.preamble[tensor] = (self._fresh(f"{tensor}_tile"), share)
            if v.shape:
                self._alloc(rp, VEC, v.shape, v.dtype, f"whole load of {tensor}", rp.region.node, rp.preamble[tensor][0])
        return rp.preamble[tensor][0]

    def _scratch(self, node: cst.Call, first: Val, sc: Site) -> None:
        valid = self._valid_window(node.args[0].value if node.args else None)
        if valid is not None:
            # The view the tile replaces reduced its valid region; c39's CCE backend builds the tile
            # whole and reduces the padding past valid_shapes= too (its PTO backend reduces the valid
            # region; measured), so the sums read what the padding holds there (verify, as CCE).
            self._flag("drop-valid-shape", sc.node, f"pl.{self._call_op(node)} reduces the whole tile on c39's CCE backend, "
                       f"its padding past the valid region {valid} included (the PTO backend reduces the region): "
                       "for CCE fill the padding with the reduction's identity first (0 for a sum, the lowest value "
                       "for a max), or reduce only the valid window")
        if not first.shape or not first.dtype:
            self._flag("untyped-value", sc.node, "the scratch tile of this reduction needs a known shape and dtype")
            return
        shape = tuple(self._scratch_extent(d) for d in first.shape)
        if None in shape:
            # a tile's shape is a compile-time constant (c39: "tile.create_tile shape element 1 must
            # be a compile-time constant (ConstInt), but got Var"), and this extent has no bound
            runtime = [d for d, b in zip(first.shape, shape) if b is None]
            self._flag("tile-reduction-scratch", sc.node, f"the scratch tile of this reduction takes its operand's shape, "
                       f"and {', '.join(runtime)} is known only at run time: create it at the largest extent by hand")
            return
        first = first.but(shape=shape)
        name = self._fresh(f"{sc.target or 'row'}_tmp")
        self.plan.decisions["tile-reduction-scratch"][node] = name
        text = statement("create_tile", name=name, shape=self._shape_text(first.shape), dtype=first.dtype)
        self._edit("tile-reduction-scratch", "before", sc.node, text)
        self._alloc(sc.region, VEC, first.shape, first.dtype, "scratch tile", sc.node, name)

    def _valid_window(self, operand, ops=("view", "slice", "load")) -> str | None:
        """The valid region a reduction's operand was given (`pl.view(..., valid_shape=v)`, directly
        or through the name it was bound to), as written; None where it has none."""
        values = [operand]
        if isinstance(operand, cst.Name):
            values = [a.value for a in assignments(self.kf.node, operand.value)]
        for value in values:
            if isinstance(value, cst.Call) and self._call_op(value) in ops:
                for a in value.args:
                    if a.keyword is not None and a.keyword.value in ("valid_shape", "valid_shapes"):
                        return code(a.value)
        return None

    def _scratch_extent(self, extent: str) -> str | None:
        """An extent a tile can be created with: a constant one as it is; a runtime one
        (`valid_len = pl.min(BLOCK, ...)`) at its constant bound, as a scratch may be larger than
        its operand; None where it has no bound."""
        try:
            element = cst.parse_expression(extent)
        except cst.ParserSyntaxError:
            return None
        if not self._runtime_extent(element):
            return extent  # folded when the program is built (a builder's parameter too)
        bound = constant_bound(element, self.kf.node, self._call_op, self._int_of)
        return code(bound) if bound is not None else None

    def _alloc(self, rp: RegionPlan | None, space, shape, dtype, what, where, name=None, call=None) -> None:
        """Record a tile; `where` is the statement, or the expression's Site (named when direct);
        `call` the call that makes it, where the code already has one."""
        if isinstance(where, Site):
            where, name = where.node, (where.target if where.direct else None)
        if rp is not None and shape and dtype:
            rp.allocations.append(Allocation(space, tuple(shape), dtype, what, where, name, call, self.ops.get(call)))

    def _capacity(self, rp: RegionPlan) -> None:
        rp.over_limit = 0
        for usage in region_usage(rp, self.api, self.env_numbers):
            if usage.bytes is not None and usage.bytes > usage.limit:
                # Counted whether or not a marker is written (none is, in a region the target
                # already accepts): an overflow stays one after --write, as `report` shows it.
                rp.over_limit += 1
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

    def _decide(self, kind: str, node, value) -> None:
        self.plan.decisions[kind][node] = value

    def _edit(self, rule: str, where: str, node, text: str = "") -> None:
        self.plan.statements.append(StatementEdit(rule, where, node, text))

    def _store_shapes(self, node: cst.Call, tile: Val, shapes) -> None:
        """The old `pl.store(tile, offsets, shapes, out)` whose shapes are the tile's own: the
        target's store, which writes the whole tile, writes what it wrote (PTO022 need not ask)."""
        written = codes(shapes)
        if not (tile.kind == TILE and tile.shape and written and len(written) == len(tile.shape)):
            return
        if all(w == t or (self._int_of(w) is not None and self._int_of(w) == self._int_of(t))
               for w, t in zip(written, tile.shape)):
            self.plan.decisions["store-shape-argument"][node] = "the tile's own"

    def _flag(self, rule: str, node, message: str) -> None:
        if not self._in_region and id(node) not in self.hot:
            return  # orchestration code the target accepts: nothing to write into it
        self.plan.flags.append((rule, node, message))


def _carried(body: list, statement, name: str) -> bool:
    """Whether `statement` (in `body`, at any depth) is inside a loop that binds `name`: a value
    its turns hand to each other."""
    for s in body:
        inner = _inner(s)
        if _holds(inner, statement):
            if type(s) in (cst.For, cst.While) and name in names_written(s):
                return True
            return _carried(inner, statement, name)
    return False


def _inner(s) -> list:
    """The statements a compound statement holds: its body and its else's (an elif is one)."""
    if not isinstance(s, cst.BaseCompoundStatement):
        return []
    orelse = getattr(s, "orelse", None)
    return [*statements(s), *([orelse] if isinstance(orelse, cst.If) else statements(orelse) if orelse is not None else [])]


def _holds(body: list, statement) -> bool:
    return any(s is statement or _holds(_inner(s), statement) for s in body)
