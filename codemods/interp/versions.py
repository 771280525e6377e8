"""Where the pypto versions differ in meaning, and the 2026-08 (e2d0f78ae) profile's language.

Checked with both compilers (c39fe714a for the old and 2026-03 profiles, e2d0f78ae for
2026-08):
- subscripts: at c39 a scalar index in a sliced subscript keeps its axis with size 1
  (`t[3, 0:16]` is `[1, 16]`, `t[0:16, 3]` is `[16, 1]`); at 2026-08 it drops it (numpy),
  and a Tile left below rank 2 is promoted to `[1, N]` (a column becomes a row).
- `not x` on an integer scalar is a bitwise not at c39 (`~x` is unsupported there); at
  2026-08 `not` is logical and `~` bitwise.
- `if`/`while` conditions must be BOOL scalars at 2026-08.
- a written Tensor parameter that is not `pl.Out`/`pl.InOut` is not copied back to the host
  at 2026-08 (it reads back as zeros; see `execute.run`); an `Out` one is not copied in.
- ops: `pl.incore`/`pl.auto_incore`/`chunk=` are gone (`pl.at`), `row_expand(target, vec)`,
  axis reductions gone (`row_*`/`col_*`), same-dtype
  casts are rejected, `valid_shapes=` is `valid_shape=`, `maxs`/`mins` are
  `maximums`/`minimums`, loop indices must be cast before a tile op takes them; `move` takes
  a destination layout (`blayout=`, `slayout=`: `pl.TileLayout`), which moves no value.
"""

from __future__ import annotations

import ast
import contextlib

import numpy as np

from . import dtypes as D
from .values import KernelError, Tensor, Tile

NOT, INVERT, COND = "__pypto_not__", "__pypto_invert__", "__pypto_cond__"
PL_DECORATORS = ("function", "jit", "inline", "incore")


class Index(int):
    """A loop index (pl.range & co.): an INDEX scalar, which 2026-08 tile ops refuse raw."""


def subscript(m, x, key):
    key = key if isinstance(key, tuple) else (key,)
    if all(not isinstance(k, slice) for k in key) and len(key) == len(x.shape):
        return m.read(x, list(key), "tile.read" if isinstance(x, Tile) else "tensor.read")
    if len(key) > len(x.shape) or (len(key) < len(x.shape) and not m.head):
        raise KernelError(f"subscript {key} of a rank-{len(x.shape)} value")
    shape, offset, dropped = [], [], []
    for axis, (k, n) in enumerate(zip(key + (slice(None),) * (len(x.shape) - len(key)), x.shape)):
        if isinstance(k, slice):
            if k.step not in (None, 1):
                raise KernelError("a subscript slice with a step is not a pl.slice")
            lo = 0 if k.start is None else int(k.start)
            hi = n if k.stop is None else int(k.stop)
            shape.append(hi - lo)
            offset.append(lo)
        else:
            shape.append(1)
            offset.append(int(k))
            dropped.append(axis)
    result = m.slice(x, shape, offset)
    if not (m.head and dropped):
        return result  # c39: the axis stays, with size 1
    kept = [s for axis, s in enumerate(shape) if axis not in dropped]
    if isinstance(result, Tile) and len(kept) < 2:
        kept = [1] * (2 - len(kept)) + kept  # "tile subscript reduces to 1D; auto-promoting to 2D shape [1, N]"
    if isinstance(result, Tile):
        return Tile(result.data.reshape(kept), result.space, result.kernel, None, result.name)
    return Tensor(result.data.reshape(kept), result.written.reshape(kept), result.name, None, result.kernel)


def logical_not(m, value):
    if isinstance(value, (Tensor, Tile)):
        raise KernelError("`not` of a Tensor or Tile")
    if m.head or isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return not value
    return ~int(value)  # c39 lowered `not` to a bitwise not


def invert(m, value):
    if not m.head:
        raise KernelError("Unsupported unary operator: Invert (`~` arrived with pypto #492; use `not`)")
    if isinstance(value, (bool, np.bool_)):
        return not value
    return ~int(value)


def condition(m, value):
    if m.head and not isinstance(value, (bool, np.bool_)):
        raise KernelError(f"if condition must be a Bool-typed scalar expression, got {type(value).__name__} "
                          "(use an explicit comparison, e.g. `if x != 0:`)")
    return value


class Syntax(ast.NodeTransformer):
    """`not x`, `~x` and `if`/`while` tests inside pl functions go through the profile."""

    def __init__(self) -> None:
        self.depth = 0

    def visit_FunctionDef(self, node):
        pl = any(_decorator_name(d) in PL_DECORATORS for d in node.decorator_list)
        self.depth += pl
        self.generic_visit(node)
        self.depth -= pl
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if self.depth and isinstance(node.op, (ast.Not, ast.Invert)):
            helper = NOT if isinstance(node.op, ast.Not) else INVERT
            return ast.copy_location(ast.Call(ast.Name(helper, ast.Load()), [node.operand], []), node)
        return node

    def visit_If(self, node):
        self.generic_visit(node)
        if self.depth:
            node.test = ast.copy_location(ast.Call(ast.Name(COND, ast.Load()), [node.test], []), node.test)
        return node

    visit_While = visit_If


def _decorator_name(d: ast.expr) -> str:
    target = d.func if isinstance(d, ast.Call) else d
    while isinstance(target, ast.Attribute) and target.attr in ("incore", "inline") and isinstance(target.value, ast.Attribute):
        target = target.value  # @pl.jit.incore
    return target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""


def helpers(m) -> dict:
    return {NOT: lambda v: logical_not(m, v), INVERT: lambda v: invert(m, v), COND: lambda v: condition(m, v)}


class Level:
    CORE_GROUP, CLUSTER, HOST = "CORE_GROUP", "CLUSTER", "HOST"


def install(pl, m) -> None:
    """The names whose meaning depends on the version; the 2026-08 ones only in that profile."""
    at = _at(m, pl.auto_incore, pl.incore)
    pl.Level, pl.at = Level, at
    pl.pipeline = lambda *a, stage=None, **k: pl.range(*a, **k)
    pl.chunked_loop_optimizer, pl.auto_chunk = "chunked_loop_optimizer", "auto_chunk"
    pl.split = lambda *a, **k: ("split", a, tuple(sorted(k.items())))
    pl.SplitMode = type("SplitMode", (), {"UP_DOWN": "UP_DOWN", "LEFT_RIGHT": "LEFT_RIGHT", "NONE": "NONE"})
    pl.col_sum, pl.col_max, pl.col_min = (lambda x, op=op: _col(m, op, x) for op in ("sum", "max", "min"))
    old_expand = getattr(pl, "row_expand", None)
    pl.row_expand = lambda *a, **k: _row_expand(m, *a, **k)
    del old_expand
    for ns in (pl, pl.tensor, pl.tile):
        ns.read = (lambda fn: lambda x, index: fn(x, _indices(m, x, index)))(ns.read)
    if not m.head:  # the flat-offset scalar ops of 2026-03 (pypto #420 removed them)
        pl.tensor.load_scalar = pl.load_scalar = lambda x, off: m.read(x, _indices(m, x, off), "tensor.read")
        pl.tile.getval = pl.getval = lambda x, off: m.read(x, _indices(m, x, off), "tile.read")
    if m.head:
        for name in ("incore", "auto_incore", "sum", "maxs", "mins"):
            if hasattr(pl, name):
                delattr(pl, name)
        pl.max = lambda a, b: _scalar_pair(max, a, b)
        pl.min = lambda a, b: _scalar_pair(min, a, b)
        pl.maximums = lambda x, s: m.binary("maximum", x, s)
        pl.minimums = lambda x, s: m.binary("minimum", x, s)
        for name in ("maxs", "mins"):
            if hasattr(pl.tile, name):
                delattr(pl.tile, name)
        pl.tile.maximums, pl.tile.minimums = pl.maximums, pl.minimums
        pl.tile.transpose_view = lambda t: Tile(t.data.T.copy(), t.space, t.kernel, None, t.name)
        pl.PadValue = PadValue
        pl.TileLayout = TileLayout
        pl.move = _laid_out_move(pl.move)
        pl.tile.move = _laid_out_move(pl.tile.move)
        pl.fillpad = pl.tile.fillpad = pl.tensor.fillpad = lambda x, pad_value="zero": _fillpad(m, x, pad_value)
    else:
        # c39's parser resolves `pl.adds/subs/muls/divs` to the tile ops of a scalar by name (its
        # Python module has no such attributes; measured: c39 accepts a kernel that calls them)
        for name in ("adds", "subs", "muls", "divs"):
            setattr(pl, name, getattr(pl.tile, name))
        pl.sum = lambda x, axis=-1, keepdim=False: _axis_reduce(m, "sum", x, axis, keepdim)
        pl.max = lambda a, b=None, keepdim=False, axis=None: _max_min(m, max, "max", a, b, axis, keepdim)
        pl.min = lambda a, b=None, keepdim=False, axis=None: _max_min(m, min, "min", a, b, axis, keepdim)
        pl.tile.sum = pl.sum
    if not m.strict:
        # The original of an upgrade is April or May code, which has fillpad (its meaning did not change
        # on the way to 2026-08); c39's own profile keeps refusing what c39 did not have.
        pl.PadValue = PadValue
        pl.fillpad = pl.tile.fillpad = pl.tensor.fillpad = lambda x, pad_value="zero": _fillpad(m, x, pad_value)


def _at(m, auto_incore, incore):
    """`pl.at` is a kernel scope like `pl.incore()`, or, chunked, the intermediate spelling of
    `pl.auto_incore()`: the two scopes the language module already defines."""
    @contextlib.contextmanager
    def at(level=None, optimization=None, optimizations=None, split=None, name_hint=None, **_):
        chunked = optimization == "chunked_loop_optimizer" or "auto_chunk" in (optimizations or ())
        if m.head and (optimization is not None or split is not None):
            raise KernelError("Unknown keyword argument 'optimization' in pl.at() (removed by pypto #1819)")
        if m.head and chunked:
            raise KernelError("Unsupported entry in pl.at(optimizations=[...]): pl.auto_chunk (removed by pypto #1895)")
        with (auto_incore if chunked else incore)():
            yield

    return at


class PadValue:
    null, zero, max, min = "null", "zero", "max", "min"


class TileLayout:
    none_box, row_major, col_major = "none_box", "row_major", "col_major"


def _laid_out_move(move):
    """2026-08: `pl.move(..., blayout=, slayout=)` chooses the destination tile's layout (how
    its elements are placed in the buffer), which changes no element's value."""
    def laid_out(tile, target_memory="Vec", blayout=None, slayout=None, **rest):
        for layout in (blayout, slayout):
            if layout is not None and layout not in vars(TileLayout).values():
                raise KernelError(f"pl.move: {layout!r} is not a pl.TileLayout")
        return move(tile, target_memory, **rest)
    return laid_out


def _fillpad(m, x, pad_value):
    """2026-08: the elements outside the valid region take the pad value; the whole value is valid then."""
    if x.valid is None:
        return x
    pad = {"zero": 0.0, 0: 0.0, "max": np.inf, float("inf"): np.inf, "min": -np.inf, float("-inf"): -np.inf}.get(pad_value)
    if pad is None:
        raise KernelError(f"pl.fillpad: pad_value {pad_value!r} is not one of the three padding modes")
    data = x.data.astype(np.float32).copy()
    if np.isinf(pad):  # the lowest or highest value of the dtype, as the hardware pads
        pad = float(np.finfo(np.float32).max) * (1 if pad > 0 else -1)
    outside = np.ones(data.shape, dtype=bool)
    outside[tuple(slice(0, v) for v in x.valid)] = False
    data[outside] = pad
    return m._result(x, D.cast(data, x.dtype), None)


def _scalar_pair(fn, a, b):
    if isinstance(a, (Tensor, Tile)) or isinstance(b, (Tensor, Tile)):
        raise KernelError("pl.max/pl.min take two scalars in the newest API (axis reductions are row_*/col_*)")
    return fn(a, b)


def _max_min(m, fn, op, a, b, axis, keepdim):
    if isinstance(a, (Tensor, Tile)):
        return _axis_reduce(m, op, a, axis if axis is not None else b, keepdim)
    return fn(a, b)


def _axis_reduce(m, op, x, axis, keepdim):
    if axis is None:
        raise KernelError(f"pl.{op} of a Tile needs an axis")
    a = x.data.astype(np.float32)
    out = {"sum": np.sum, "max": np.max, "min": np.min}[op](a, axis=int(axis), keepdims=bool(keepdim))
    return m._result(x, D.cast(out, x.dtype))


def _col(m, op, x):
    a = x.data.astype(np.float32)
    out = {"sum": np.sum, "max": np.max, "min": np.min}[op](a, axis=0, keepdims=True)
    return m._result(x, D.cast(out, x.dtype))


def _row_expand(m, target, row_vec=None):
    """c39: `row_expand(src)` spreads column 0 of src over its own shape; 2026-08: `row_expand(target, row_vec)`."""
    if m.head and row_vec is None:
        raise KernelError("pl operation 'row_expand': row_expand() missing 1 required positional argument: 'rhs'")
    if m.strict and not m.head and row_vec is not None:  # the old profile also runs spring sources, which have both
        raise KernelError("row_expand takes one tile in the strict API")
    vec = target.data[:, 0:1] if row_vec is None else row_vec.data
    if vec.shape != (target.shape[0], 1):
        raise KernelError(f"pl.row_expand needs a [{target.shape[0]}, 1] vector, got {list(vec.shape)}")
    return m._result(target, np.broadcast_to(vec, target.shape).astype(target.data.dtype).copy())


def _indices(m, x, index):
    """A flat offset (2026-03: `pl.read(x, off)`), or indices; 2026-08 takes a bare index for rank 1 only."""
    if isinstance(index, (list, tuple)):
        return list(index)
    if m.head and len(x.shape) != 1:
        raise KernelError(f"tensor.read indices count (1) must match tensor rank ({len(x.shape)})")
    return [int(v) for v in np.unravel_index(int(index), x.shape)]


def loop_index(m, i):
    return Index(i) if m.head else i
