"""Does a kernel file obey the strict 2026-03 API? An independent check of the output.

The planner predicts types of old code; this module reads *new* code only, with the API
table's rules and nothing else, so a migration is checked by something that did not write
it. It reports what the target compiler would reject (a Tensor given to a tile-only op, a
mix in a unified op, `valid_shape` on `create_tensor`, removed ops, a tile reduction without
its scratch, and, inside kernels, `tensor.read` and a Tensor slice with `valid_shape`, which
the pass pipeline rejects) and what the idioms file says is wrong although the compiler
accepts it (tile ops in orchestration, a Tile crossing a kernel boundary, vector ops on
Mat/Left/Right tiles, non-constant tile shapes). Each violation says which it is
(`rejects`): only a rejection is a reason to rewrite code (`rejected_within`). Tensor ops
inside kernels are not violations: the compiler's ConvertTensorToTileOps pass lowers them
(measured by benchmarks/measure_api.py).
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from ..model.annotations import differences
from ..model.results import argument, result_val
from ..model.kernels import (COUNTER, OpIndex, chunked_bounds, find_regions, function_type, kernel_functions, loop_targets,
                             parameter_value, scope_kind)
from ..model.constants import scalar_dtype
from ..model.outputs import NO_RETURN, hands_nothing_back, lacks_return
from ..syntax.memo import cached
from ..syntax.nodes import code, statements
from ..syntax.traversal import EXPRESSION_TYPES, ancestors, content, walk
from ..rulebook.loading import ApiTable
from ..model.values import ACC, LEFT, RIGHT, SCALAR, SCALAR_VAL, TENSOR, TILE, UNKNOWN, UNKNOWN_VAL, VEC, Val

SHAPED = {"load": 2, "create_tile": 0, "tile.full": 0}

# What arithmetic on scalars makes a scalar of (exact types: LibCST's node classes are final).
_OPERATIONS = frozenset({cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation})
_VALUED = frozenset({cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Return})  # small statements with a `value`


class Violation(NamedTuple):
    node: cst.CSTNode
    message: str
    rejects: bool = True  # the target compiler rejects it (parse or pass pipeline), measured


class _V(NamedTuple):
    """A value with the kernel it lives in (tiles cannot leave it)."""

    val: Val
    home: int | None = None


class StrictChecker:
    def __init__(self, module: cst.Module, api: ApiTable) -> None:
        self.api = api
        self.ops = OpIndex(module, api.module).ops
        self.module = module
        self.found: list[Violation] = []

    def run(self) -> list[Violation]:
        for kf in kernel_functions(self.module, self.ops):
            env_numbers = {n: c.value for n, c in kf.constants.items()}
            self.numbers = env_numbers
            self.regions = {r.node: r for r, _ in find_regions(kf.node, self.ops, env_numbers)}
            self.kinds = {r.index: r.kind for r in self.regions.values()}
            self.loops = 0
            self.auto = 0  # the auto_incore blocks open around the statement
            self.constants = kf.constants
            env: dict[str, _V] = {}
            self.tile_homes: dict[str, int] = {}
            for p in [*kf.node.params.posonly_params, *kf.node.params.params, *kf.node.params.kwonly_params]:
                annotation = p.annotation.annotation if p.annotation is not None else None
                env[p.name.value] = _V(parameter_value(annotation, self.ops))
                self._layout(annotation)
            self._layout(kf.node.returns.annotation if kf.node.returns is not None else None)
            whole = self.regions.get(kf.node)  # a kernel function: its whole body is one kernel
            home = whole.index if whole is not None else None
            for name, v in env.items():
                env[name] = _V(v.val, home)
            self._block(statements(kf.node), env, home)
            if self.api.kernel_needs_output:
                self._outputs(kf.node, whole)
        if self.api.refused_tensor_layouts:
            # a `@pl.jit` function's annotations are parsed as a `@pl.function`'s (its body is typed
            # at lower(), which this check does not model)
            for func in _jit_functions(self.module, self.ops):
                for p in [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]:
                    self._layout(p.annotation.annotation if p.annotation is not None else None)
                self._layout(func.returns.annotation if func.returns is not None else None)
        return self.found

    def _layout(self, annotation) -> None:
        """A `pl.Tensor[shape, dtype, layout]` (bare or in `pl.Out[...]`) naming a layout the
        target's parser refuses on a tensor (`refused_tensor_layouts`)."""
        if not self.api.refused_tensor_layouts or annotation is None:
            return
        while isinstance(annotation, cst.Subscript) and self.ops.get(annotation.value) in ("Out", "InOut") \
                and annotation.slice and isinstance(annotation.slice[0].slice, cst.Index):
            annotation = annotation.slice[0].slice.value
        if not isinstance(annotation, cst.Subscript) or self.ops.get(annotation.value) != "Tensor":
            return
        for element in annotation.slice[2:]:
            if isinstance(element.slice, cst.Index):
                layout = self.ops.get(element.slice.value) or ""
                message = self.api.refused_tensor_layouts.get(layout.rpartition(".")[2])
                if message:
                    self._bad(element.slice.value, message)

    def _outputs(self, func: cst.FunctionDef, whole) -> None:
        """Kernels the target outlines and then finds nothing to return from."""
        if whole is not None:
            # Measured: AIC and AIV functions (the halves of a cross-core kernel) may end without one.
            if function_type(func, self.ops) == "InCore" and lacks_return(func):
                self._bad(func.name, f"InCore function {func.name.value} has {NO_RETURN}: the compiler's pass "
                          "pipeline stops (Internal error); return the Tensor it writes")
            return
        for region in self.regions.values():
            if region.kind == "incore" and hands_nothing_back(func, region.node, self.ops, self.api.exists):
                self._bad(region.node, f"pl.incore() block (kernel {region.index}) hands nothing back: it stores into no "
                          "Tensor and nothing it binds is read after it, so the compiler's pass pipeline stops (Internal "
                          f"error: InCore function has {NO_RETURN}); store what it computes, or remove the block")

    def _own_type(self, small: cst.AnnAssign) -> bool:
        """`pl.Tensor[...]`/`pl.Tile[...]` itself, not wrapped (pl.Out[...])."""
        ann = small.annotation.annotation
        return isinstance(ann, cst.Subscript) and self.ops.get(ann.value) in ("Tensor", "Tile")

    def _bad(self, node, message: str, rejects: bool = True) -> None:
        self.found.append(Violation(node, message, rejects))

    def _advice(self, node, message: str) -> None:
        """What the idioms file calls wrong although the target compiler accepts it."""
        self._bad(node, message, rejects=False)

    # -- statements ----------------------------------------------------------------------
    def _block(self, stmts, env, region) -> None:
        for s in stmts:
            self._statement(s, env, region)

    def _statement(self, s, env, region) -> None:
        inner = self.regions.get(s)
        here = inner.index if inner is not None and region is None else region
        if type(s) is cst.SimpleStatementLine:  # exact types: isinstance on LibCST's classes goes through ABCMeta
            for small in s.body:
                if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
                    name = small.targets[0].target.value
                    value = self._expr(small.value, env, region, s)
                    env[name] = _V(value, region)
                    if region is None:
                        # Measured: bound again in orchestration (a Tensor there), the name no longer
                        # carries the earlier kernel's Tile: a later kernel may bind it in a loop.
                        self.tile_homes.pop(name, None)
                    elif value.kind == TILE:
                        first = self.tile_homes.setdefault(name, region)
                        if first != region:
                            # Measured: a Tile name an earlier kernel bound is rejected where it is bound
                            # again in a loop (a chunked loop, or a loop inside a pl.incore() block); at
                            # the top of a later pl.incore() block it is accepted.
                            both = self.kinds.get(region) == "parallel" or self.loops > 0
                            self._bad(small.targets[0].target, f"tile name {name} of kernel {first} is bound again in kernel "
                                      f"{region}: the compiler carries it across kernels (Internal error: return type 1 "
                                      "should be TensorType but got TileType); give it a name of its own", rejects=both)
                elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
                    name = small.target.value
                    value = self._expr(small.value, env, region, s)
                    declared = parameter_value(small.annotation.annotation, self.ops)
                    if {value.kind, declared.kind} == {TENSOR, TILE}:
                        self._bad(small.annotation, f"Type annotation for '{name}' is {declared.kind} but expression has type {value.kind}")
                    elif self._own_type(small):
                        for message in differences(name, declared, value, self.numbers)[:1]:  # the compiler stops at one
                            self._bad(small.annotation, message)
                    env[name] = _V(declared if value.kind == UNKNOWN else value, region)
                elif type(small) in _VALUED:
                    if small.value is not None:
                        self._expr(small.value, env, region, s)
        elif type(s) is cst.For:
            self._expr(s.iter, env, region, s)
            for which, bound in chunked_bounds(s, self.ops) if self.auto else ():
                if isinstance(bound, cst.BinaryOperation):
                    # Measured on c39: under pl.auto_incore(), whose pass splits chunked loops, a
                    # chunked loop's start, stop and step must each be a constant (a name or a
                    # literal): `H * QB` is refused; a loop without chunk=, or one outside
                    # auto_incore (a kernel's, an incore block's, orchestration's), takes it.
                    self._bad(bound, f"Chunked loop {which} must be a compile-time integer constant, "
                              f"got {type(bound.operator).__name__}: hoist it into a named constant")
            for name, how, start in loop_targets(s, self.ops):
                if how == COUNTER:
                    env[name] = _V(SCALAR_VAL)
                else:  # a carried value starts as its init value; an unpacked one is not known
                    known = env.get(start.value) if type(start) is cst.Name else None
                    env[name] = known if known is not None else _V(UNKNOWN_VAL, region)
            inner_loop = region is not None  # a loop inside a kernel (its names are carried)
            self.loops += inner_loop
            self._block(statements(s), env, here)
            self.loops -= inner_loop
        elif type(s) is cst.With:
            auto = any(scope_kind(item.item, self.ops) == "auto_incore" for item in s.items)
            self.auto += auto
            self._block(statements(s), env, here)
            self.auto -= auto
        elif type(s) is cst.If or type(s) is cst.While:
            self._expr(s.test, env, region, s)
            self._block(statements(s), env, region)
            if type(s) is cst.If and s.orelse is not None:
                self._block(statements(s.orelse), env, region)

    # -- expressions ---------------------------------------------------------------------
    def _expr(self, node, env, region, stmt) -> Val:
        kind = type(node)  # exact types: LibCST's node classes are final (no ABCMeta)
        if kind is cst.Name:
            v = env.get(node.value)
            if v is None:
                # Only the numbers of the module and builder are known scalars; a helper, an
                # import or a global of unknown value is unknown, and unknown is never an error.
                return SCALAR_VAL if node.value in self.constants else UNKNOWN_VAL
            if v.val.kind == TILE and v.home != region:
                where = f"kernel {region}" if region else "orchestration"
                self._advice(node, f"Tile {node.value} of kernel {v.home} is used in {where}: a Tile cannot cross a kernel boundary")
            return v.val
        if kind is cst.Call:
            op = self.ops.get(node)
            if op is None:
                for a in node.args:
                    self._expr(a.value, env, region, stmt)
                return UNKNOWN_VAL
            return self._call(op, node, env, region, stmt)
        if kind is cst.List or kind is cst.Tuple:
            for e in node.elements:
                self._expr(e.value, env, region, stmt)
            return UNKNOWN_VAL
        if kind is cst.Integer or kind is cst.Float:
            return SCALAR_VAL
        if kind is cst.Subscript and not (type(node.value) is cst.Attribute and node.value.attr.value == "shape"):
            # `x[i, a:b]` of a Tensor or Tile: a window of the same kind (c39 keeps a scalar-indexed
            # axis); all scalar indices read one element
            base = self._expr(node.value, env, region, stmt)
            for element in node.slice:
                part = element.slice
                for bound in ([part.value] if type(part) is cst.Index else [part.lower, part.upper, part.step]):
                    if bound is not None:
                        self._expr(bound, env, region, stmt)
            if base.kind in (TENSOR, TILE):
                if all(type(e.slice) is cst.Index for e in node.slice):
                    return SCALAR_VAL
                return Val(base.kind, space=base.space)
            return UNKNOWN_VAL
        known = kind in _OPERATIONS
        for child in content(node):
            if type(child) in EXPRESSION_TYPES:
                known = self._expr(child, env, region, stmt).kind == SCALAR and known
        # Arithmetic on known scalars is a scalar; attributes (`x.shape[0]`), subscripts and
        # arithmetic on anything unknown are unknown.
        return Val(SCALAR if known else UNKNOWN)

    def _call(self, op, node: cst.Call, env, region, stmt) -> Val:
        spec = self.api.ops.get(op)
        pos = [a.value for a in node.args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if op in ("range", "parallel", "unroll", "auto_incore", "incore", "at"):
            for p in pos:
                self._expr(p, env, region, stmt)
            return SCALAR_VAL
        if spec is None:
            for p in pos:
                self._expr(p, env, region, stmt)
            return UNKNOWN_VAL
        if spec.kind == "removed":
            self._bad(node, f"Unknown tensor operation: {op} (removed; use pl.{spec.replacement})")
            return UNKNOWN_VAL
        vals = [self._expr(p, env, region, stmt) for p in pos]
        for p in kw.values():
            self._expr(p, env, region, stmt)
        self._arity(op, spec, node, pos, kw)
        self._tile_form(op, spec, node, kw, vals)
        self._tensor_form(op, spec, node, pos, kw, vals)
        self._roles(op, spec, node, pos, kw, vals)
        result = self._result(op, spec, node, pos, kw, vals)
        self._accumulator(op, spec, node, pos, kw, vals, result)
        self._structure(op, node, pos, kw, vals, result, region)
        return result

    def _accumulator(self, op, spec, node, pos, kw, vals, result) -> None:
        """A tile matmul's `out_dtype` may only name the accumulator's own type, which the operands fix."""
        if spec.dtype != "matmul" or "out_dtype" not in (spec.tile_params or ()) or not vals or vals[0].kind != TILE:
            return
        asked = _attr(argument(spec, "out_dtype", pos, kw))
        if asked and vals[0].dtype and result.dtype and asked != result.dtype:
            self._bad(node, f"pl.{op}: out_dtype={asked} is not supported for Tile operands: the Cube accumulator "
                      f"fixes the result dtype ({result.dtype}); cast the result instead")

    def _arity(self, op, spec, node, pos, kw) -> None:
        """The table's parameter lists are the target's whole signatures (checked on the real corpus)."""
        if spec.params and len(pos) > len(spec.params):
            self._bad(node, f"{op}() takes {len(spec.params)} positional arguments ({', '.join(spec.params)}) "
                      f"but {len(pos)} were given")
        missing = [p for p in spec.params[len(pos):spec.required] if p not in kw]
        if missing:
            self._bad(node, f"{op}() missing {len(missing)} required positional argument{'s' * (len(missing) != 1)}: "
                      + " and ".join(f"'{p}'" for p in missing))

    def _tile_form(self, op, spec, node, kw, vals) -> None:
        """A unified op whose tile form takes fewer parameters rejects the others on a Tile."""
        if spec.tile_params is None or not vals or vals[0].kind != TILE:
            return
        for key in kw:
            if key in spec.params and key not in spec.tile_params:
                self._bad(node, f"{op}() got an unexpected keyword argument '{key}'")
                return

    def _tensor_form(self, op, spec, node, pos, kw, vals) -> None:
        """A unified op whose tensor form takes fewer parameters rejects the others on a Tensor."""
        if spec.tensor_params is None or not vals or vals[0].kind != TENSOR:
            return
        extra = list(spec.params[len(spec.tensor_params):len(pos)])
        extra += [key for key in kw if key in spec.params and key not in spec.tensor_params]
        if extra:
            self._bad(node, f"pl.{op}: Tensor inputs must not pass {extra[0]}")

    def _roles(self, op, spec, node, pos, kw, vals) -> None:
        first = vals[0] if vals else UNKNOWN_VAL
        family = "tile" if spec.kind == "tile-only" or first.kind == TILE else "tensor"
        roles = spec.roles_for({k: _keyword_value(v) for k, v in kw.items()}) if spec.roles_when else spec.roles
        for i, v in enumerate(vals):
            if i >= len(spec.params):
                continue
            role = roles.get(spec.params[i], "")
            which = "argument" if len(spec.params) == 1 else f"argument {i + 1}"
            if v.kind == UNKNOWN:
                if role in ("tile", "tensor") and type(pos[i]) in (cst.List, cst.Tuple):
                    # A list is never a Tile or a Tensor: the pre-c39 `pl.store(tile, offsets, shapes,
                    # output_tensor)`, which 2026-08's store(tile, offsets, output_tensor, shapes) refuses.
                    self._bad(node, f"The operator {_named(role, op)} requires {which} to be a "
                              f"{'TileType' if role == 'tile' else 'TensorType'}, but got a list")
                continue
            if role == "tile" and v.kind != TILE:
                self._bad(node, f"The operator {_named('tile', op)} requires {which} to be a TileType, but got {_type(v)}")
            elif role == "tensor" and v.kind != TENSOR:
                self._bad(node, f"The operator {_named('tensor', op)} requires {which} to be a TensorType, but got {_type(v)}")
            elif role == "value" and i > 0 and first.kind in (TENSOR, TILE) and v.kind != first.kind:
                self._bad(node, f"The operator {_named(family, op)} requires {which} to be a {_type(first)}, but got {_type(v)}")
            elif role == "value-or-scalar" and first.kind in (TENSOR, TILE) and v.kind in (TENSOR, TILE) and v.kind != first.kind:
                self._bad(node, f"The operator {_named(family, op)} requires {which} to be a {_type(first)} or a scalar, but got {_type(v)}")

    def _result(self, op, spec, node, pos, kw, vals) -> Val:
        """The result's kind and space as the idioms demand, with the shape and dtype the API
        table gives it (so that annotations can be held to them)."""
        kind = self._kind_and_space(op, spec, node, pos, kw, vals)
        typed = result_val(spec, vals, pos, kw, self._literal_dtype)
        if typed.kind != kind.kind or kind.kind not in (TENSOR, TILE):
            return kind
        shape = typed.shape
        if op == "move" and shape and isinstance(kw.get("transpose"), cst.Name) and kw["transpose"].value == "True":
            shape = shape[::-1]
        return kind.but(shape=shape, dtype=typed.dtype)

    def _literal_dtype(self, node) -> str | None:
        """A scalar operand's dtype as the op's result sees it: a number written in the call is
        none of its own where the table says a literal takes its operand's (`literal_follows_operand`)."""
        if self.api.literal_follows_operand and _literal(node):
            return None
        return scalar_dtype(node, self.constants)

    def _kind_and_space(self, op, spec, node, pos, kw, vals) -> Val:
        first = vals[0] if vals else UNKNOWN_VAL
        if spec.on_tile and first.kind == TILE:
            return Val(TILE, space=first.space)
        if spec.result == "scalar":
            return SCALAR_VAL
        if spec.result == "tensor":
            return Val(TENSOR)
        if op in ("load", "create_tile", "tile.full"):
            space = _attr(kw.get("target_memory")) or VEC
            return Val(TILE, space=space)
        if op == "move":
            return Val(TILE, space=_attr(kw.get("target_memory") or (pos[1] if len(pos) > 1 else None)) or VEC)
        if spec.space.get("result"):  # the cube ops: their tile form writes the table's space (Acc)
            tile = first.kind == TILE or spec.kind == "tile-only"
            return Val(TILE, space=spec.space["result"]) if tile else Val(first.kind)
        if spec.result == "tile":
            return Val(TILE, space=VEC)
        if first.kind == TILE:
            return Val(TILE, space=first.space if op in ("slice", "reshape") else VEC)
        return Val(first.kind)

    def _structure(self, op, node, pos, kw, vals, result, region) -> None:
        tile_involved = result.kind == TILE or any(v.kind == TILE for v in vals)
        if region is None and tile_involved and op != "store":
            self._advice(node, f"tile op pl.{op} in orchestration: it belongs inside a kernel region")
        if region is not None and not self.api.tensor_kernels:
            # Measured: the pass pipeline lowers these two Tensor forms into nothing it accepts.
            spec = self.api.ops[op]
            if vals and vals[0].kind in (TENSOR, TILE) and not spec.accepted(vals[0].kind.lower(), True):
                self._bad(node, f"pl.{op} inside a kernel breaks the lowering ({spec.rejects})"
                          + (": load the tensor and use pl.tile.read" if "read" in op else ""))
            if op == "slice" and vals and vals[0].kind == TENSOR and "valid_shape" in kw:
                self._bad(node, "a Tensor slice with valid_shape inside a kernel (tensor.slice conversion expects 3 args "
                          "(tensor, shape, offset)): load it with valid_shapes=")
        if op == "create_tensor" and "valid_shape" in kw:
            self._bad(node, "create() got an unexpected keyword argument 'valid_shape'")
        spec = self.api.ops[op]
        if spec.unit == "vector" and vals and vals[0].kind == TILE:
            for i, v in enumerate(vals):
                accepted = v.space == ACC and spec.may_read_acc(i)
                if v.kind == TILE and v.space not in (VEC, None) and not accepted:
                    self._advice(node, f"vector op pl.{op} reads a tile in {v.space}; vector ops work on Vec tiles")
            if spec.scratch and len(pos) <= spec.params.index(spec.scratch) and spec.scratch not in kw:
                self._bad(node, f"tile pl.{op} needs its scratch tile ({spec.scratch})")
        if op == "matmul" and vals and vals[0].kind == TILE:
            spaces = self.api.ops["matmul"].space
            for v, want in zip(vals[:2], (spaces.get("lhs", LEFT), spaces.get("rhs", RIGHT))):
                if v.kind == TILE and v.space != want:
                    self._advice(node, f"matmul operand in {v.space}: it must be moved to {want}")
        shape_at = SHAPED.get(op, 1 if op == "reshape" and vals and vals[0].kind == TILE else None)
        if shape_at is not None and shape_at < len(pos) and isinstance(pos[shape_at], (cst.List, cst.Tuple)):
            for e in pos[shape_at].elements:
                if not isinstance(e.value, (cst.Name, cst.Integer)):
                    self._advice(e.value, f"tile shape {code(e.value)} is not a compile-time constant name: hoist it")


def check_module(module: cst.Module, api: ApiTable) -> list[Violation]:
    # Keyed by the step as well: a file's answers last through its version steps (`chain`),
    # and the first step's output is the next one's input, checked against another table.
    return cached(f"strict-violations {api.step}", module, lambda m: StrictChecker(m, api).run())


def rejects_any(module: cst.Module, api: ApiTable) -> bool:
    """Whether the target compiler rejects anything in the module (`rejected_within` is not
    empty), without finding what holds it."""
    return any(v.rejects for v in check_module(module, api))


def rejected_within(module: cst.Module, api: ApiTable) -> frozenset[int]:
    """The ids of the nodes the target compiler rejects, and of every node that holds one:
    where a rule may rewrite. Code outside this set is accepted as it stands and is kept."""
    return cached(f"rejected-within {api.step}", module,
                  lambda m: _holders(m, [v.node for v in check_module(m, api) if v.rejects]))


def _holders(module: cst.Module, nodes: list) -> frozenset[int]:
    wanted = {id(n) for n in nodes}
    return frozenset(ancestors(module, wanted) | wanted)


def _type(v: Val) -> str:
    return {TENSOR: "TensorType", TILE: "TileType", SCALAR: "ScalarType"}.get(v.kind, "an unknown type")


def _attr(node) -> str | None:
    return node.attr.value if isinstance(node, cst.Attribute) else None


def _named(family: str, op: str) -> str:
    """The IR op's name the compiler's message gives: `tile.exp` for `pl.exp`, `tile.mgather` for `pl.tile.mgather`."""
    return op if op.startswith(("tile.", "tensor.")) else f"{family}.{op}"


def _keyword_value(node) -> str:
    """What a keyword's value says, for choosing an op's form: `pl.MemorySpace.Mat` -> "Mat", "elem" -> elem."""
    if type(node) is cst.Attribute or type(node) is cst.Name:
        return _attr(node) or node.value
    if type(node) is cst.SimpleString:
        return node.evaluated_value
    return code(node)


def _literal(node) -> bool:
    """`1.0`, `-2`, `3`: a number written as it is."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _jit_functions(module: cst.Module, ops) -> list[cst.FunctionDef]:
    """The functions decorated `@pl.jit` (`.inline`, `.incore`, called or bare), or with the
    decorator imported from its own module (`from pypto.jit.decorator import jit`), at any depth."""
    imported = set()
    for node in module.body:
        for small in getattr(node, "body", ()) if isinstance(node, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and small.module is not None and not isinstance(small.names, cst.ImportStar) \
                    and code(small.module).startswith("pypto.jit"):
                imported.update((a.asname.name.value if a.asname else a.name.value) for a in small.names
                                if isinstance(a.name, cst.Name) and a.name.value == "jit")
    found = []
    for node in walk(module):
        if type(node) is cst.FunctionDef:
            for d in node.decorators:
                target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
                while isinstance(target, cst.Attribute) and (ops.get(target) is None):
                    target = target.value  # `@jit.inline` of an imported `jit`
                if (ops.get(target) or "").split(".")[0] == "jit" or (isinstance(target, cst.Name) and target.value in imported):
                    found.append(node)
                    break
    return found
