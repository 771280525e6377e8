"""A small type inference for the version-upgrade rules (2026-03 -> 2026-08).

The planner infers what the 2026-03 target demands; the upgrade rules need less and other
facts: the kind, shape, dtype of a value and the dtype of a scalar, read in the *old*
(c39) semantics, where a scalar index in a sliced subscript keeps its axis. Every
statement of every pl function (`@pl.function`, `@pl.jit...`, `@pl.inline`) is a `Site`
carrying the names known before it. What is not known stays unknown: a rule then flags
instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst

from ...model.extents import assignments, runtime_names
from ...model.kernels import module_alias, parameter_value
from ...model.constants import builder_constants, evaluate, module_constants
from ...model.results import promote, result_val
from ...model.values import SCALAR, TENSOR, TILE, UNKNOWN, UNKNOWN_VAL, Val
from ...rulebook.loading import load_api
from ...syntax.memo import cached
from ...syntax.nodes import attr_name, code, codes, statements
from ...syntax.traversal import own_and_nested
from .signatures import pl_functions, scalar

INTS = ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "INDEX")
ELEMENTWISE = {"add", "sub", "mul", "div", "maximum", "minimum", "exp", "neg", "recip", "rsqrt", "sqrt", "log",
               "abs", "relu", "adds", "subs", "muls", "divs", "maxs", "mins", "row_expand_mul", "row_expand_div",
               "row_expand_add", "row_expand_sub", "col_expand_mul", "col_expand_div", "col_expand_sub",
               "rem", "rems", "and_", "or_", "xor", "shl", "shr", "sel", "maximums", "minimums",
               "row_expand_max", "row_expand_min", "col_expand", "col_expand_add",
               # padding or re-marking the valid region keeps the tile's allocated shape
               "fillpad", "fillpad_inplace", "set_validshape", "move"}
SCALAR_PROMOTING = {"add", "sub", "mul", "div", "maximum", "minimum", "adds", "subs", "muls", "divs", "maxs", "mins"}
LOOPS = {"range", "parallel", "unroll", "pipeline"}


CONST = scalar("const")  # a Python value the parser folds (module constants, literals)


@dataclass
class Site:
    """One statement of a pl function and what is known just before it."""

    statement: cst.CSTNode
    env: dict[str, Val]
    function: cst.FunctionDef
    ftype: str  # Opaque, InCore, Orchestration, ... ("jit" for @pl.jit functions)
    own: list[cst.CSTNode]  # its nodes outside nested statements
    parents: tuple = ()  # the compound statements around it, outermost first
    # the calls of `own` that name a pl op, with the op, in the same order: every kind asks
    # for some of them (`Upgrade.calls`), and most nodes are none
    calls: list[tuple[cst.Call, str]] = field(default_factory=list)
    _by_type: dict | None = field(default=None, repr=False, compare=False)
    _by_name: dict | None = field(default=None, repr=False, compare=False)

    def of(self, kind: type) -> list[cst.CSTNode]:
        """The nodes of `own` of exactly this LibCST class (its classes are final), in order:
        grouped once per statement for the thirty kinds that each looked through all of `own`
        for one or two classes (`isinstance` on LibCST's classes is a Python-level ABCMeta call)."""
        by = self._by_type
        if by is None:
            by = self._by_type = {}
            for node in self.own:
                found = by.get(type(node))
                if found is None:
                    by[type(node)] = [node]
                else:
                    found.append(node)
        return by.get(kind, ())

    def calls_named(self, name: str) -> list[tuple[cst.Call, str]]:
        """The entries of `calls` whose op is `name` in any namespace (`slice`: `tile.slice` too),
        in order: grouped once per statement, for the kinds that each ask for a few names."""
        by = self._by_name
        if by is None:
            by = self._by_name = {}
            for entry in self.calls:
                by.setdefault(entry[1].rpartition(".")[2], []).append(entry)
        return by.get(name, ())


@dataclass
class Module:
    alias: str
    ops: dict[cst.CSTNode, str]
    sites: list[Site]
    constants: dict[str, float]
    functions: list[cst.FunctionDef]
    local: dict = None  # function -> its builder's constants over the module's (builder parameters' defaults)
    api: object = None  # the step's ApiTable: the result of an op this module does not type itself
    _by_function: dict = None
    _by_name: dict = None
    tabled: bool = False  # a value was typed by `api` alone (an op the walk has no case for)

    def op(self, node) -> str | None:
        return self.ops.get(node.func) if type(node) is cst.Call else None  # exact: asked of every node

    def function_named(self, name: str | None) -> cst.FunctionDef | None:
        """The first pl function of that name (a call names its callee so): looked up, where a
        scan of the functions per call made a file of many cost the square of their number."""
        if self._by_name is None:
            self._by_name = {}
            for func in self.functions:
                self._by_name.setdefault(func.name.value, func)
        return self._by_name.get(name)

    def sites_of(self, func: cst.FunctionDef) -> list[Site]:
        """The sites of one function, in order: grouped once for all of the module's functions
        (asked per function, a walk over every site of the module made a file of many
        functions cost the square of their number)."""
        if self._by_function is None:
            self._by_function = {}
            for site in self.sites:
                self._by_function.setdefault(site.function, []).append(site)
        return self._by_function.get(func, [])

    def type_of(self, expr, env: dict[str, Val]) -> Val:
        return _type(expr, env, self)


def infer(module: cst.Module, ops: dict[cst.CSTNode, str], api=None) -> Module:
    return cached(f"upgrade-infer {getattr(api, 'step', None)}", module, lambda m: _infer(m, ops, api))


def untabled(module: cst.Module, ops: dict[cst.CSTNode, str], api) -> Module:
    """What `infer` without a table says (`infer(module, ops)`): the step's own inference
    (`infer(module, ops, api)`) where no value of its walk was typed by the table, which is the
    one thing the table changes; a walk of every function again otherwise."""
    info = infer(module, ops, api)
    if info.tabled:
        return infer(module, ops)
    return Module(info.alias, info.ops, info.sites, info.constants, info.functions, info.local, None)


def _infer(module: cst.Module, ops, api=None) -> Module:
    module_consts = module_constants(module)  # once: a file of many builders read the module again for each
    consts = {name: c.value for name, c in module_consts.items()}
    info = Module(module_alias(ops), ops, [], consts, [], {}, api)
    for func, ftype, builder in pl_functions(module, ops):
        info.functions.append(func)
        if builder is not None:
            info.local[func] = {**consts, **{n: c.value for n, c in builder_constants(builder, module_consts).items()}}
        env: dict[str, Val] = {}
        for param in [*func.params.params, *func.params.kwonly_params]:
            env[param.name.value] = parameter_value(param.annotation.annotation if param.annotation else None, ops, typed=True)
        _walk(statements(func), env, func, ftype, info, ())
    return info


def _walk(body, env: dict[str, Val], func, ftype: str, info: Module, parents: tuple) -> None:
    for statement in body:
        own, _ = own_and_nested(statement)
        ops = info.ops
        calls = [(n, ops[n.func]) for n in own if type(n) is cst.Call and n.func in ops]
        info.sites.append(Site(statement, dict(env), func, ftype, own, parents, calls))
        inside = (*parents, statement)
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                _bind(small, env, info)
        elif isinstance(statement, cst.For):
            names = _targets(statement.target)
            kind = info.op(statement.iter)
            inner = dict(env)
            for n in names:
                inner[n] = scalar("INDEX") if kind in LOOPS and len(names) == 1 else UNKNOWN_VAL
            inner.update(_carried(statement, kind, env, info))
            _walk(statements(statement), inner, func, ftype, info, inside)
            _merge(env, inner, info)
        elif isinstance(statement, (cst.If, cst.While, cst.With)):
            inner = dict(env)
            _walk(statements(statement), inner, func, ftype, info, inside)
            _merge(env, inner, info)
            orelse = getattr(statement, "orelse", None)
            while orelse is not None:
                other = dict(env)
                _walk(statements(orelse), other, func, ftype, info, (*parents, orelse))
                _merge(env, other, info)
                orelse = getattr(orelse, "orelse", None) if isinstance(orelse, cst.If) else None
        elif isinstance(statement, cst.FunctionDef):
            continue


def _carried(loop: cst.For, kind: str | None, env: dict, info: Module) -> dict[str, Val]:
    """`for i, (a, b) in pl.range(..., init_values=(x, y))`: the index, and each carried name
    typed as its initial value (the compiler requires the yield to keep that type)."""
    init = next((a.value for a in loop.iter.args if a.keyword is not None and a.keyword.value == "init_values"),
                None) if isinstance(loop.iter, cst.Call) else None
    target = loop.target
    if kind not in LOOPS or not isinstance(init, (cst.Tuple, cst.List)) or not isinstance(target, cst.Tuple) \
            or len(target.elements) != 2 or not isinstance(target.elements[0].value, cst.Name):
        return {}
    carried = target.elements[1].value
    names = [e.value for e in carried.elements] if isinstance(carried, (cst.Tuple, cst.List)) else [carried]
    values = [e.value for e in init.elements]
    out = {target.elements[0].value.value: scalar("INDEX")}
    if len(names) == len(values):
        out.update({n.value: _type(v, env, info) for n, v in zip(names, values) if isinstance(n, cst.Name)})
    return out


def _helper_result(call: cst.Call, info: Module) -> Val:
    """A call of a pl function of the module by its name (`scale_shift(v)`, an `@pl.inline`
    helper): what its return annotation says."""
    func = call.func
    name = func.value if isinstance(func, cst.Name) else None
    callee = next((f for f in info.functions if f.name.value == name), None) if name else None
    if callee is None or callee.returns is None:
        return UNKNOWN_VAL
    return parameter_value(callee.returns.annotation, info.ops, typed=True)


def _merge(env: dict, inner: dict, info: "Module") -> None:
    for name, val in inner.items():
        if name in env and val.kind == env[name].kind and val.shape != env[name].shape and _same_shape(
                val.shape, env[name].shape, info):
            val = val.but(shape=env[name].shape)  # `[T_TILE, N]` and `[16, N]` with T_TILE = 16: one shape
        if name not in env:
            env[name] = val
        elif env[name] != val and val.kind == env[name].kind == SCALAR and "const" in (val.dtype, env[name].dtype):
            env[name] = val if env[name].dtype == "const" else env[name]  # a literal takes the other side's dtype
        elif env[name] != val:
            env[name] = env[name] if (env[name].kind, env[name].shape, env[name].dtype) == (val.kind, val.shape, val.dtype) else (
                Val(val.kind, val.shape if val.shape == env[name].shape else None, val.dtype if val.dtype == env[name].dtype else None)
                if val.kind == env[name].kind else UNKNOWN_VAL)


def _same_shape(a, b, info: "Module") -> bool:
    """Two shapes written differently that the module's numbers make the same."""
    if a is None or b is None or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x != y and (number(x, info) is None or number(x, info) != number(y, info)):
            return False
    return True


def _targets(node) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _targets(e.value)]
    return []


def _bind(small, env: dict, info: Module) -> None:
    if isinstance(small, cst.Assign):
        if isinstance(small.value, cst.Call) and (info.op(small.value) or "").endswith("yield_"):
            # `a_out, b_out = pl.yield_(a, b)`: each name the type of what it hands on
            given = [_type(a.value, env, info) for a in small.value.args if a.keyword is None]
            for t in small.targets:
                names = _targets(t.target)
                for n, val in zip(names, given if len(given) == len(names) else [UNKNOWN_VAL] * len(names)):
                    env[n] = val
            return
        val = _type(small.value, env, info)
        for t in small.targets:
            names = _targets(t.target)
            for n in names:
                env[n] = val if len(names) == 1 else UNKNOWN_VAL
    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        val = parameter_value(small.annotation.annotation, info.ops, typed=True)
        env[small.target.value] = val if val.kind != UNKNOWN or small.value is None else _type(small.value, env, info)
    elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        env[small.target.value] = _type(small.target, env, info)


def number(text: str, info: Module, func=None) -> int | None:
    v = evaluate(text, (info.local or {}).get(func, info.constants))
    return int(v) if v is not None and float(v).is_integer() else None


def _type(expr, env: dict[str, Val], info: Module) -> Val:
    # Exact types (LibCST's node classes are final): `isinstance` on them goes through ABCMeta,
    # and this is asked of every operand of every statement, for each tree of the step.
    kind = type(expr)
    if kind is cst.Name:
        if expr.value in env:
            return env[expr.value]
        return CONST  # a closure value (module constant, builder parameter): the parser folds it
    if kind is cst.Integer or kind is cst.Float:
        return CONST
    if kind is cst.Comparison:
        return scalar("BOOL")
    if kind is cst.BooleanOperation:
        return scalar("BOOL")
    if kind is cst.UnaryOperation:
        inner = _type(expr.expression, env, info)
        return scalar("BOOL") if type(expr.operator) is cst.Not and inner.kind == SCALAR and inner.dtype != "const" else inner
    if kind is cst.BinaryOperation:
        a, b = _type(expr.left, env, info), _type(expr.right, env, info)
        if a.kind == SCALAR and b.kind == SCALAR:
            if a.dtype == "const":
                return b
            if type(expr.operator) is cst.Divide and a.dtype in INTS:
                return UNKNOWN_VAL
            return a
        return UNKNOWN_VAL
    if kind is cst.Subscript:
        return _laid_out(_subscript(expr, env, info), "row_major", info)
    if kind is cst.Call:
        return _laid_out(_call(expr, env, info), _layout(expr, env, info), info)
    return UNKNOWN_VAL


# Measured at e2d0f78ae (python_print(explicit_layout=True)): a [1, 1] Vec tile is row_major when
# created, sliced or reshaped, and col_major when loaded or made by a row reduction; a unary or
# elementwise op, a cast and a move within Vec keep their first operand's layout. (Any other
# shape has one layout whatever made it: [N, 1] col_major, [1, N] and wider row_major.)
ROW_MAJOR_MAKERS = {"create_tile", "create", "full", "slice", "reshape"}
COL_MAJOR_MAKERS = {"load", "row_sum", "row_max", "row_min"}


def _layout(call: cst.Call, env, info: Module) -> str | None:
    name = (info.op(call) or "").rpartition(".")[2]
    if name in ROW_MAJOR_MAKERS:
        return "row_major"
    if name in COL_MAJOR_MAKERS:
        return "col_major"
    if name == "move":
        given = _arg(call, 99, "blayout")
        if given is not None:
            return attr_name(given)
        space = _arg(call, 1, "target_memory")
        if space is not None and attr_name(space) != "Vec":
            return None
    if name in ELEMENTWISE or name == "cast":
        first = _arg(call, 0, "") if call.args else None
        return _type(first, env, info).layout if first is not None else None
    return None


def _laid_out(val: Val, layout: str | None, info: Module) -> Val:
    """The value with its layout where the layout can differ between values of its type: a [1, 1] tile."""
    square = val.kind == TILE and val.shape is not None and len(val.shape) == 2 and all(
        number(d, info) == 1 for d in val.shape)
    wanted = layout if square else None
    return val if val.layout == wanted else val.but(layout=wanted)


def _subscript(expr: cst.Subscript, env, info) -> Val:
    base = _type(expr.value, env, info)
    if base.kind not in (TENSOR, TILE):
        return UNKNOWN_VAL
    items = [e.slice for e in expr.slice]
    if all(isinstance(i, cst.Index) for i in items):
        return scalar(base.dtype)
    if base.shape is None or len(items) != len(base.shape):
        return Val(base.kind, None, base.dtype)
    shape = []
    for item, dim in zip(items, base.shape):
        if isinstance(item, cst.Index):
            shape.append("1")  # the old (c39) meaning: the axis stays, with size 1
            continue
        lower = code(item.lower) if item.lower is not None else "0"
        upper = code(item.upper) if item.upper is not None else dim
        n = number(f"({upper}) - ({lower})", info)
        if n is not None:
            shape.append(str(n))
        elif lower == "0":
            shape.append(upper)
        elif upper.replace(" ", "").startswith(lower.replace(" ", "") + "+"):
            shape.append(upper.replace(" ", "")[len(lower.replace(" ", "")) + 1:])  # `k : k + N` is N long
        else:
            shape.append(f"{upper} - ({lower})")
    return Val(base.kind, tuple(shape), base.dtype)


def _arg(call: cst.Call, index: int, name: str):
    """The argument `name=`, else the `index`-th positional one (not `*a`), else None: one pass
    over the arguments (asked several times of every call a statement makes)."""
    found, n = None, 0
    for a in call.args:
        keyword = a.keyword
        if keyword is not None:
            if keyword.value == name:
                return a.value
        elif not a.star:
            if n == index:
                found = a.value
            n += 1
    return found


def _call(call: cst.Call, env, info: Module) -> Val:
    op = info.op(call)
    if op is None:
        return _helper_result(call, info)
    family, _, name = op.rpartition(".")
    first = _arg(call, 0, "") if call.args else None
    base = _type(first, env, info) if first is not None else UNKNOWN_VAL
    if name == "load":
        shapes = _arg(call, 2, "shapes")
        return Val(TILE, codes(shapes) if shapes is not None else None, base.dtype)
    if name in ("create_tile", "create", "full", "create_tensor"):
        shape, dtype = _arg(call, 0, "shape"), _arg(call, 1, "dtype")
        # bare `pl.full` came after c39 as the unified op: a Tensor (tensor.full), in a kernel scope too
        kind = TENSOR if name == "create_tensor" or family == "tensor" or (name == "full" and not family) else TILE
        return Val(kind, codes(shape) if shape is not None else None, attr_name(dtype) if dtype is not None else None)
    if name == "cast":
        target = _arg(call, 1, "target_type")
        dtype = attr_name(target) if target is not None else None
        return base.but(dtype=dtype) if base.kind != UNKNOWN else (scalar(dtype) if dtype else UNKNOWN_VAL)
    if name == "yield_" and len(call.args) == 1:
        return base  # what one value a loop or branch hands on is what it yields
    if name in ("read", "load_scalar", "getval"):
        return scalar(base.dtype)
    if name in ("row_sum", "row_max", "row_min"):
        if not (base.shape and len(base.shape) == 2):
            # the 2026-03 scratch tile has the operand's shape and type: it stands in for an operand not inferred
            tmp = _arg(call, 1, "tmp_tile")
            base = _type(tmp, env, info) if tmp is not None else UNKNOWN_VAL
            if base.kind != TILE:
                return UNKNOWN_VAL
        if base.shape and len(base.shape) == 2:
            return base.but(shape=(base.shape[0], "1"))
    if name in ("col_sum", "col_max", "col_min") and base.shape and len(base.shape) == 2:
        return base.but(shape=("1", base.shape[1]))
    if name in ("store", "assemble"):
        target = _arg(call, 2, "output_tensor") if name == "store" else first
        return _type(target, env, info) if target is not None else UNKNOWN_VAL
    if name in ("slice", "view"):
        shape = _arg(call, 1, "shape")
        dims = codes(shape) if shape is not None else None
        dropped = _arg(call, 99, "drop_dims")
        if dims is not None and dropped is not None:
            # 2026-08's rank reduction (PTO175 writes it): the listed axes, each of extent 1, go
            axes = {number(a, info) for a in codes(dropped) or ()}
            dims = None if None in axes else tuple(d for i, d in enumerate(dims) if i not in axes)
        return Val(base.kind, dims, base.dtype)
    if name == "reshape" and base.kind in (TENSOR, TILE):
        # the same elements under a new shape: kind, dtype and memory space are the input's
        shape = _arg(call, 1, "shape")
        return base.but(shape=codes(shape) if isinstance(shape, (cst.List, cst.Tuple)) else None, layout=None)
    if name in ("min", "max") and family == "" and base.kind == SCALAR:
        # a runtime operand makes the result a runtime value, whichever operand comes first
        others = [_type(a.value, env, info) for a in call.args[1:] if a.keyword is None]
        return next((t for t in others if t.kind == SCALAR and t.dtype != "const"), base) if base.dtype == "const" else base
    if name == "matmul_acc" and family != "tile" and base.kind in (TENSOR, TILE) and base.shape and base.dtype:
        return base  # the sum goes into the accumulator: its type is the accumulator's
    if name in ("matmul", "matmul_acc") and family != "tile":
        lhs, rhs = (_arg(call, 1, "lhs"), _arg(call, 2, "rhs")) if name == "matmul_acc" else (first, _arg(call, 1, "rhs"))
        a = _type(lhs, env, info) if lhs is not None else UNKNOWN_VAL
        b = _type(rhs, env, info) if rhs is not None else UNKNOWN_VAL
        out = _arg(call, 99, "out_dtype")
        # A tile product is the cube's FP32 accumulator; a tensor product of two operands of one dtype
        # is of that dtype (measured at c39fe714a and e2d0f78ae: casting a BF16 one to BF16 is refused)
        # (matmul_acc keeps its accumulator's dtype)
        same = name == "matmul" and a.kind == b.kind == TENSOR and a.dtype is not None and a.dtype == b.dtype
        # of integers, the cube accumulates in INT32 (measured at c39 for INT8, UINT8, INT16, INT32 operands)
        dtype = attr_name(out) if out is not None else a.dtype if same else "INT32" if a.dtype in INTS else "FP32"
        if a.kind == b.kind and a.kind in (TENSOR, TILE) and a.shape and b.shape and len(a.shape) == len(b.shape) == 2:
            flags = {k: self_text(_arg(call, 99, k)) for k in ("a_trans", "b_trans")}
            m = a.shape[1] if flags["a_trans"] == "True" else a.shape[0]
            n = b.shape[0] if flags["b_trans"] == "True" else b.shape[1]
            return Val(a.kind, (m, n), dtype)
        if a.kind == b.kind and a.kind in (TENSOR, TILE) and a.shape and b.shape and sorted(
                (len(a.shape), len(b.shape))) == [2, 3]:
            # A batched product: a rank-3 operand's leading axis is the batch (e2d0f78ae types
            # `[M, K] @ [1, K, N]` as [1, M, N]), as where a scalar-indexed weight kept its axis.
            flags = {k: self_text(_arg(call, 99, k)) == "True" for k in ("a_trans", "b_trans")}
            batch = (a.shape if len(a.shape) == 3 else b.shape)[0]
            m = a.shape[-1] if flags["a_trans"] else a.shape[-2]
            n = b.shape[-2] if flags["b_trans"] else b.shape[-1]
            return Val(a.kind, (batch, m, n), dtype)
        return Val(a.kind, None, dtype) if a.kind in (TENSOR, TILE) else UNKNOWN_VAL
    if base.kind == TILE and base.shape and len(base.shape) == 2 and (
            name == "transpose_view" or (name == "move" and self_text(_arg(call, 99, "transpose")) == "True")):
        # a transposed view (2026-08), or c39's move with transpose=True: rows and columns swap
        return base.but(shape=base.shape[::-1], layout=None)
    if name == "dim":
        return scalar("INDEX")
    if name in ("cmp", "cmps"):
        return base  # c39: typed like its operand
    if name not in ELEMENTWISE and not typed_like_operand(op) and info.api is not None and op in info.api.ops \
            and info.api.ops[op].kind != "removed":
        # an op typed nowhere above: its result as the table says
        info.tabled = True
        spec = info.api.ops[op]
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        val = result_val(spec, [_type(p, env, info) for p in pos], pos, kw)
        return val if val.kind != SCALAR else scalar(val.dtype)
    if (name in ELEMENTWISE or typed_like_operand(op)) and base.kind in (TENSOR, TILE):
        other = _arg(call, 1, "rhs")
        if name in SCALAR_PROMOTING and base.kind == TENSOR and other is not None and (
                isinstance(other, cst.Float) or isinstance(evaluate(code(other), info.constants), float)):
            # measured at e2d0f78ae: a tensor op takes a float literal as an FP32 scalar and promotes
            # (a BF16 tensor times 0.0 is FP32), as it does a module's float constant (`ATTN_SCALE`,
            # a Python float when the program is built); the tile op keeps the tile's dtype
            return base.but(dtype=promote(base.dtype, "FP32"))
        if base.kind == TENSOR and other is not None and base.dtype is not None:
            # two tensors of two dtypes: the wider (measured at e2d0f78ae: a BF16 tensor's
            # col_expand_mul by an FP32 row is not BF16, a cast of it to BF16 is accepted)
            second = _type(other, env, info)
            if second.kind == TENSOR and second.dtype is not None and second.dtype != base.dtype:
                return base.but(dtype=promote(base.dtype, second.dtype))
        return base
    return _tabled(op, call, env, info) if base.kind in (TENSOR, TILE) else UNKNOWN_VAL


@lru_cache(maxsize=1)
def _target_api():
    from ...rulebook.loading import load_api

    return load_api(None, "2026-08")


def _tabled(op: str, call: cst.Call, env, info: Module) -> Val:
    """An op this walk has no case for: its result as the 2026-08 table types it (`shape = "swap"`
    of a transpose, `param:shape` of a re-view), from its operands' types."""
    spec = _target_api().ops.get(op)
    if spec is None or spec.kind == "removed" or not spec.result:
        return UNKNOWN_VAL
    pos = [a.value for a in call.args if a.keyword is None]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    got = result_val(spec, [_type(p, env, info) for p in pos], pos, kw)
    return got.but(layout=None) if got.kind in (TENSOR, TILE) else UNKNOWN_VAL


@lru_cache(maxsize=None)
def typed_like_operand(op: str) -> bool:
    """Whether the API tables type `op`'s result as its first operand (no `like`, `shape` or
    dtype rule but the scalar's promotion): the code read here is 2026-03's, or 2026-08's on a
    second run (lrelu, prelu, expands, fmod, the bitwise ops, cos, ...)."""
    for step in ("2026-03", "2026-08"):
        spec = load_api(None, step).ops.get(op)
        if spec is not None and spec.kind != "removed":
            return (spec.result in ("same", "tile", "tensor") and not spec.like and not spec.shape
                    and spec.dtype in ("", "promote") and bool(spec.params))
    return False


def self_text(node) -> str:
    return code(node) if node is not None else ""


def number_variable(info: Module, operand, site: Site) -> Val | None:
    """A name the function binds only to Python numbers (`done = 0`, later `done = 1`) is a
    variable of the DSL, not a number the parser folds: an INDEX scalar when every value is an
    int, an FP32 one when one is a float (as PTO153 measured such bindings); None otherwise."""
    if type(operand) is not cst.Name or operand.value not in runtime_names(site.function):
        return None
    constants = (info.local or {}).get(site.function, info.constants)
    folded = [evaluate(code(a.value), constants) for a in assignments(site.function, operand.value)]
    if not folded or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in folded):
        return None
    return scalar("FP32" if any(isinstance(v, float) for v in folded) else "INDEX")


def is_int(val: Val) -> bool:
    return val.kind == SCALAR and val.dtype in INTS
