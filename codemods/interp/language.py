"""The stand-in `pypto.language` module a kernel file imports while the interpreter runs it.

It is bound in `sys.modules` only while the kernel module executes (see `installed`), so
nothing leaks into the caller's interpreter; the kernel's functions keep their reference.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import types
from dataclasses import dataclass
from functools import partial

from . import dtypes as D
from . import coverage_ops, crosscore_ops, cube_ops, elementwise_ops, gather_ops, merge_ops, more_ops, movement_ops
from . import reduce_ops, stores
from . import versions
from .ops import Machine
from .values import KernelError, Tile, kind

TENSOR_OPS_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
UNARY = ("exp", "neg", "recip", "rsqrt", "sqrt", "log", "abs", "relu")
EXPAND = ("row_expand_mul", "row_expand_div", "row_expand_add", "row_expand_sub",
          "col_expand_mul", "col_expand_div", "col_expand_sub")
REDUCE = ("row_sum", "row_max", "row_min")


@dataclass(frozen=True)
class Spec:
    """An annotation: `pl.Tensor[[shape], dtype]` (possibly inside `pl.Out[...]` / `pl.InOut[...]`),
    `pl.Tile[[shape], dtype]` or `pl.Scalar[dtype]`."""

    kind: str  # "Tensor" | "Tile" | "Scalar"
    shape: tuple[int, ...]
    dtype: D.DType
    direction: str = "in"  # "in" | "out" | "inout"


class _SpecFactory:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __getitem__(self, item):
        if self.kind == "Scalar":
            if not isinstance(item, D.DType):
                raise KernelError("pl.Scalar[...] needs a dtype")
            return Spec("Scalar", (), item)
        if not isinstance(item, tuple) or len(item) < 2:
            raise KernelError(f"pl.{self.kind}[...] needs a shape and a dtype")
        shape, dtype = item[0], item[1]  # a third item is a layout (pl.ND, pl.NZ): no effect on values
        return Spec(self.kind, tuple(int(s) for s in shape), dtype)


class _Direction:
    def __init__(self, direction: str) -> None:
        self.direction = direction

    def __getitem__(self, spec: Spec) -> Spec:
        return Spec(spec.kind, spec.shape, spec.dtype, self.direction)


class MemorySpace:
    DDR, Vec, Mat, Left, Right, Acc = "DDR", "Vec", "Mat", "Left", "Right", "Acc"


class FunctionType:
    Opaque, InCore, Orchestration, AIC, AIV, Group = "Opaque", "InCore", "Orchestration", "AIC", "AIV", "Group"


KERNEL_TYPES = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)

TILE_OPS = {  # pl.tile.<name>: the Machine method and its first positional arguments
    **{op: ("binary", op) for op in ("add", "sub", "mul", "div", "maximum", "minimum")},
    **{s: ("binary_scalar", op) for s, op in (("adds", "add"), ("subs", "sub"), ("muls", "mul"), ("divs", "div"),
                                              ("maxs", "maximum"), ("mins", "minimum"))},
    **{op: ("unary", op) for op in UNARY},
    **{op: ("expand", op) for op in EXPAND},
    **{op: ("reduce", op) for op in REDUCE},
    **{op: (op,) for op in ("cast", "reshape", "transpose", "slice", "load", "store", "move", "matmul", "matmul_acc",
                            "full", "expands", "create_tile")},
    "create": ("create_tile",),
}
TENSOR_OPS = {
    **{op: ("binary", op) for op in ("add", "sub", "mul", "div", "maximum")},
    **{f"{op}_scalar": ("binary", op) for op in ("add", "sub", "mul", "div")},
    **{op: ("reduce", op) for op in ("row_sum", "row_max")},
    "exp": ("unary", "exp"),
    **{op: (op,) for op in ("cast", "reshape", "transpose", "slice", "assemble", "matmul", "create_tensor", "dim")},
    "create": ("create_tensor",),
}


def build(machine: Machine) -> types.ModuleType:
    pl = types.ModuleType("pypto.language")
    m = machine
    for name, dtype in D.DTYPES.items():
        setattr(pl, name, dtype)
    pl.MemorySpace, pl.FunctionType = MemorySpace, FunctionType
    pl.ND, pl.DN, pl.NZ = "ND", "DN", "NZ"
    pl.Tensor, pl.Tile, pl.Scalar = _SpecFactory("Tensor"), _SpecFactory("Tile"), _SpecFactory("Scalar")
    pl.Out, pl.InOut = _Direction("out"), _Direction("inout")

    def program(cls):
        cls.__pl_program__ = True
        return cls

    def function(fn=None, *, type=FunctionType.Opaque, strict_ssa=False):
        if fn is None:  # @pl.function(type=...)
            return partial(function, type=type, strict_ssa=strict_ssa)
        kind = str(type)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            return _call(m, fn, kind, args, kwargs)

        call.__pl_function__, call.__pl_type__ = True, kind
        return call

    pl.program, pl.function = program, function
    pl.jit = _jit(function)
    pl.inline = lambda fn: fn  # expanded at the call site: a plain call computes the same

    @contextlib.contextmanager
    def auto_incore():
        m.auto += 1
        try:
            yield
        finally:
            m.auto -= 1

    @contextlib.contextmanager
    def incore():
        outer = m.kernel
        m.kernel = m.kernel or m.new_kernel()
        try:
            yield
        finally:
            m.kernel = outer

    pl.auto_incore, pl.incore = auto_incore, incore
    pl.range = partial(_loop, m, "range", False)
    pl.unroll = partial(_loop, m, "unroll", False)
    pl.parallel = partial(_loop, m, "parallel", True)
    pl.yield_ = partial(_yield, m)

    def not_modelled(name):
        def refuse(*_, **__):
            raise KernelError(f"pl.{name} is not modelled by the interpreter")
        return refuse

    pl.while_, pl.cond = not_modelled("while_"), not_modelled("cond")
    pl.const = lambda value, dtype=None: value
    pl.dynamic = not_modelled("dynamic")

    for op in TENSOR_OPS_BINARY:
        setattr(pl, op, partial(m.binary, op))
    for op in UNARY:
        setattr(pl, op, partial(m.unary, op))
    for op in EXPAND:
        setattr(pl, op, partial(m.expand, op))
    for op in REDUCE:
        setattr(pl, op, partial(m.reduce, op))
    for op in ("cast", "matmul", "matmul_acc", "reshape", "transpose", "create_tensor", "create_tile", "view",
               "slice", "load", "store", "move", "assemble", "dim"):
        setattr(pl, op, getattr(m, op))
    pl.create = m.create_tile
    pl.read = partial(_read, m, "read")
    pl.min = lambda a, b: min(a, b)
    pl.max = lambda a, b: max(a, b)
    pl.tensor = _namespace(m, "Tensor", TENSOR_OPS)
    pl.tensor.read = partial(_read, m, "tensor.read")
    pl.tile = _namespace(m, "Tile", TILE_OPS)
    pl.tile.read = partial(_read, m, "tile.read")
    more_ops.install(pl, pl.tile, m)
    movement_ops.install(pl, m)
    stores.install(pl, m)
    if not m.strict:  # the old name of pl.tile, gone before the target version
        pl.block = pl.tile
    versions.install(pl, m)
    elementwise_ops.install(pl, m)
    reduce_ops.install(pl, m)
    coverage_ops.install(pl, m)
    cube_ops.install(pl, m)
    gather_ops.install(pl, m)
    merge_ops.install(pl, m)
    crosscore_ops.install(pl, m)
    return pl


def _jit(function):
    """`@pl.jit` (an entry, run as an Opaque function of a program of its own) and
    `@pl.jit.inline` (expanded at the call site: a plain call computes the same)."""
    def jit(fn=None, **_):
        if fn is None:
            return jit
        call = function(fn)
        call.__pl_jit__ = True
        return call

    jit.inline = lambda fn=None, **_: (lambda f: f) if fn is None else fn
    return jit


def _namespace(m: Machine, kind: str, table: dict) -> types.SimpleNamespace:
    """`pl.tile.*` / `pl.tensor.*`: the op of that family, whatever the first operand is."""
    ns = types.SimpleNamespace()
    for name, (method, *bound) in table.items():
        setattr(ns, name, partial(_forced, m, kind, getattr(m, method), *bound))
    return ns


def _forced(m: Machine, kind: str, fn, *args, **kwargs):
    saved, m.forced = m.forced, kind
    try:
        return fn(*args, **kwargs)
    finally:
        m.forced = saved


def _call(m: Machine, fn, kind: str, args, kwargs):
    """A call of a @pl.function: an InCore one is a kernel of its own; Tiles cannot cross into or out of it."""
    if kind not in KERNEL_TYPES and kind != FunctionType.Orchestration:
        return fn(*args, **kwargs)
    crossing = [a for a in (*args, *kwargs.values()) if isinstance(a, Tile)]
    if m.strict and crossing:
        raise KernelError(f"a Tile is passed to the {kind} function {fn.__name__}: a Tile cannot cross a kernel "
                          "boundary (pass the Tensor and load it inside)")
    outer = m.kernel
    m.kernel = m.new_kernel() if kind in KERNEL_TYPES else None
    try:
        result = fn(*args, **kwargs)
    finally:
        m.kernel = outer
    results = result if isinstance(result, tuple) else (result,)
    if m.strict and any(isinstance(r, Tile) for r in results):
        raise KernelError(f"the {kind} function {fn.__name__} returns a Tile: a Tile cannot cross a kernel boundary "
                          "(store it into a Tensor and return that)")
    return result


def _loop(m: Machine, name: str, parallel: bool, *args, init_values=None, chunk=None, chunk_policy="leading_full"):
    if not 1 <= len(args) <= 3:
        raise KernelError(f"pl.{name} takes (stop), (start, stop) or (start, stop, step), got {len(args)} arguments")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
    start, stop, step = int(start), int(stop), int(step)
    if step == 0:
        raise KernelError(f"pl.{name} with step 0")
    if chunk is not None and m.head:
        raise KernelError(f"Unknown keyword argument 'chunk' in pl.{name}() (removed by pypto #1895: tile the loop by hand)")
    if chunk is not None:
        chunk = int(chunk)
        if chunk <= 0:
            raise KernelError(f"pl.{name} chunk must be a positive integer, got {chunk}")
        if init_values is not None:
            raise KernelError("chunk cannot be used with init_values")
    iterations = range(start, stop, step)
    # SplitChunkedLoops + InterchangeChunkLoops (checked with the target compiler): inside
    # auto_incore, the full chunks of a chunked parallel loop become InCore kernels; the
    # remainder iterations (all of them when the trip count is below the chunk) stay in
    # orchestration. Sequential chunked loops are never outlined.
    outlined = 0
    if parallel and chunk is not None and m.auto > 0 and m.kernel is None:
        outlined = len(iterations) // chunk * chunk
    return _iterate(m, iterations, outlined, None if init_values is None else tuple(init_values))


def _iterate(m: Machine, iterations: range, outlined: int, carried):
    try:
        for n, i in enumerate(iterations):
            # each outlined iteration is its own kernel instance: no Tile may pass between them
            m.kernel = m.new_kernel() if n < outlined else (None if outlined else m.kernel)
            if carried is None:
                yield versions.loop_index(m, i)
                continue
            frame: list = []
            m.yields.append(frame)
            try:
                yield versions.loop_index(m, i), carried
            finally:
                m.yields.pop()
            if not frame:
                raise KernelError("a loop with init_values must pl.yield_ the carried values at the end of its body")
            new = frame[-1]
            if len(new) != len(carried):
                raise KernelError(f"pl.yield_ gives {len(new)} values for {len(carried)} init_values")
            if m.strict:
                for old, value in zip(carried, new):
                    if kind(old) != kind(value):
                        raise KernelError(f"a loop-carried value keeps one type: it entered the loop as a {kind(old)} "
                                          f"and is yielded as a {kind(value)}")
            carried = new
    finally:
        if outlined:
            m.kernel = None


def _yield(m: Machine, *values):
    """The value of a loop iteration or an if branch. Eagerly, the last one an iteration gives is its result."""
    if m.yields:
        m.yields[-1].append(values)
    return values[0] if len(values) == 1 else values


def _read(machine: Machine, op: str, x, indices):
    return machine.read(x, indices, op)


@contextlib.contextmanager
def installed(pl: types.ModuleType):
    """Bind `pypto` and `pypto.language` to the stand-in, and put back what was there."""
    saved = {name: sys.modules.get(name) for name in ("pypto", "pypto.language")}
    pkg = types.ModuleType("pypto")
    pkg.language = pl
    pkg.__path__ = []
    sys.modules["pypto"], sys.modules["pypto.language"] = pkg, pl
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
