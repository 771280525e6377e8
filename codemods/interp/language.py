"""The stand-in `pypto.language` module a kernel file imports while the interpreter runs it.

It is bound in `sys.modules` only while the kernel module executes (see `installed`), so
nothing leaks into the caller's interpreter; the kernel's functions keep their reference.
"""

from __future__ import annotations

import contextlib
import sys
import types
from dataclasses import dataclass
from functools import partial

from . import dtypes as D
from .ops import Machine
from .values import KernelError

TENSOR_OPS_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
UNARY = ("exp", "neg", "recip", "rsqrt", "sqrt", "log", "abs", "relu")
EXPAND = ("row_expand_mul", "row_expand_div", "row_expand_add", "row_expand_sub",
          "col_expand_mul", "col_expand_div", "col_expand_sub")
REDUCE = ("row_sum", "row_max", "row_min")


@dataclass(frozen=True)
class Spec:
    """An annotation: `pl.Tensor[[shape], dtype]`, possibly inside `pl.Out[...]` / `pl.InOut[...]`."""

    kind: str  # "Tensor" | "Tile"
    shape: tuple[int, ...]
    dtype: D.DType
    direction: str = "in"  # "in" | "out" | "inout"


class _SpecFactory:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __getitem__(self, item):
        if not isinstance(item, tuple) or len(item) < 2:
            raise KernelError(f"pl.{self.kind}[...] needs a shape and a dtype")
        shape, dtype = item[0], item[1]
        return Spec(self.kind, tuple(int(s) for s in shape), dtype)


class _Direction:
    def __init__(self, direction: str) -> None:
        self.direction = direction

    def __getitem__(self, spec: Spec) -> Spec:
        return Spec(spec.kind, spec.shape, spec.dtype, self.direction)


class MemorySpace:
    DDR, Vec, Mat, Left, Right, Acc = "DDR", "Vec", "Mat", "Left", "Right", "Acc"


def build(machine: Machine) -> types.ModuleType:
    pl = types.ModuleType("pypto.language")
    m = machine
    for name, dtype in D.DTYPES.items():
        setattr(pl, name, dtype)
    pl.MemorySpace = MemorySpace
    pl.Tensor, pl.Tile = _SpecFactory("Tensor"), _SpecFactory("Tile")
    pl.Out, pl.InOut = _Direction("out"), _Direction("inout")

    def program(cls):
        cls.__pl_program__ = True
        return cls

    def function(fn):
        fn.__pl_function__ = True
        return fn

    pl.program, pl.function = program, function

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

    def loop(*args, chunk=None, parallel=False, **_):
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
        start, stop, step = int(start), int(stop), int(step)
        iterations = range(start, stop, step)
        outlined = parallel and chunk is not None and m.auto > 0 and m.kernel is None and len(iterations) >= int(chunk)
        if not outlined:
            yield from iterations
            return
        try:  # each iteration is its own kernel instance: no Tile may pass between them
            for i in iterations:
                m.kernel = m.new_kernel()
                yield i
        finally:
            m.kernel = None

    pl.auto_incore, pl.incore = auto_incore, incore
    pl.range, pl.unroll = partial(loop), partial(loop)
    pl.parallel = partial(loop, parallel=True)

    for op in TENSOR_OPS_BINARY:
        setattr(pl, op, partial(m.binary, op))
    for op in UNARY:
        setattr(pl, op, partial(m.unary, op))
    for op in EXPAND:
        setattr(pl, op, partial(m.expand, op))
    for op in REDUCE:
        setattr(pl, op, partial(m.reduce, op))
    for op in ("cast", "matmul", "matmul_acc", "reshape", "transpose", "create_tensor", "create_tile", "view",
               "slice", "load", "store", "move", "assemble"):
        setattr(pl, op, getattr(m, op))
    pl.create = m.create_tile
    pl.read = partial(_read, m, "read")
    pl.min = lambda a, b: min(a, b)
    pl.max = lambda a, b: max(a, b)
    pl.tensor = types.SimpleNamespace(read=partial(_read, m, "tensor.read"), create=m.create_tensor)
    pl.tile = types.SimpleNamespace(read=partial(_read, m, "tile.read"), full=m.full, create=m.create_tile)
    return pl


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
