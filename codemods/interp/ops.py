"""The pl ops, computed with NumPy, in the old profile or the strict 2026-03 one.

Arithmetic runs in float32 (int64 for integer data) and each result is rounded to its
dtype, as the vector and cube units do. The strict profile raises what the target compiler
raises (operand kinds checked with the API table, as its parser dispatches; removed ops and
arguments), and the structure the idioms file demands: tile ops only inside kernels, no
Tile leaving its kernel (or its parallel iteration), vector ops on Vec tiles, matmul
operands in Left/Right, loads and stores inside their tensors. Idiom-level advice the
compiler accepts (a tensor op left inside a kernel) is `codemods.check.strict`'s to report.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..rulebook.loading import ApiTable
from . import dtypes as D
from .coverage_ops import cast_mode, convert
from .memory import MemoryOps
from .values import KernelError, Tensor, Tile, kind, type_name, array_of, as_f32, dtype_of, valid_of

OLD, STRICT, HEAD = "old", "strict", "head"  # HEAD: also what the newest version changed in meaning


class Machine(MemoryOps):
    """One run of one kernel file: its profile, its uninitialised memory, its kernel regions."""

    def __init__(self, profile: str, api: ApiTable, seed: int, poison: str = "garbage", predates: bool = False) -> None:
        self.profile, self.api, self.poison = profile, api, poison
        # old code written before the oldest step (it calls what that step's table lists removed,
        # pl.view): there pl.matmul in a kernel region was the tile op whatever its operands, its
        # product FP32 (in orchestration it was the tensor op, as the 2026-03 step keeps it)
        self.predates = predates
        self.rng = np.random.default_rng(seed)
        self.kernel: object | None = None  # the kernel instance running now; None in orchestration
        self.auto = 0  # depth of pl.auto_incore()
        self._ids = itertools.count(1)
        self.masked = False  # the old profile honoured a valid_shape somewhere
        self.forced: str | None = None  # "Tile"/"Tensor" while a pl.tile.* / pl.tensor.* op runs
        self.yields: list[list] = []  # one frame per running loop with init_values: what pl.yield_ gave

    @property
    def strict(self) -> bool:
        """The checks of a target version: 2026-03 and 2026-08 alike."""
        return self.profile != OLD

    @property
    def head(self) -> bool:
        return self.profile == HEAD

    # -- memory --------------------------------------------------------------------------
    def uninitialised(self, shape, dtype: D.DType) -> np.ndarray:
        """What memory holds before it is written: finite garbage, different in every run."""
        shape = tuple(int(s) for s in shape)
        if self.poison == "nan" and dtype.is_float:
            return np.full(shape, np.nan, dtype=np.float32).astype(dtype.np)
        if self.poison == "zero":
            return np.zeros(shape, dtype=dtype.np)
        if dtype.is_float:
            return D.cast(self.rng.uniform(-448.0, 448.0, shape), dtype)
        info = np.iinfo(dtype.np) if dtype.np.kind in "iu" else None
        high = min(info.max, 1 << 20) if info is not None else 2
        return self.rng.integers(0, high, shape).astype(dtype.np)

    def new_kernel(self) -> object:
        return ("kernel", next(self._ids))

    # -- checks --------------------------------------------------------------------------
    def _spec(self, op):
        return self.api.ops.get(op)

    def _dispatch(self, op: str, args: list, first_kind: str | None = None) -> str:
        """Check operand kinds as the 2026-03 parser does; returns 'tile' or 'tensor'."""
        spec = self._spec(op)
        self._kernel_local(op, args)
        first = first_kind or self.forced or (kind(args[0]) if args else "Scalar")
        family = "tile" if (spec is not None and spec.kind == "tile-only") or first == "Tile" else "tensor"
        if not self.strict or spec is None:
            return family
        for i, value in enumerate(args):
            if i >= len(spec.params):
                break
            role = spec.roles.get(spec.params[i], "")
            which = "argument" if sum(1 for p in spec.params if spec.roles.get(p) in ("tile", "tensor", "value", "value-or-scalar")) == 1 else f"argument {i + 1}"
            want = None
            if role == "tile" or (role in ("value", "value-or-scalar") and family == "tile" and spec.kind != "tensor-only"):
                want = "Tile"
            elif role == "tensor" or (role in ("value", "value-or-scalar") and family == "tensor"):
                want = "Tensor"
            if want is None or (role == "value-or-scalar" and kind(value) == "Scalar"):
                continue
            if kind(value) != want:
                raise KernelError(f"The operator {family}.{op} requires {which} to be a {want}Type, but got {type_name(value)}")
        return family

    def _kernel_local(self, op: str, args) -> None:
        if not self.strict:
            return
        for t in args:
            if isinstance(t, Tensor) and t.kernel is not None and t.kernel is not self.kernel:
                raise KernelError(f"pl.{op} uses a tensor created inside another kernel region: the compiler makes a "
                                  "create_tensor inside a kernel a Tile of that kernel, so it cannot hand data on; "
                                  "create hand-off tensors before the region")

    def _in_kernel(self, op: str) -> None:
        if self.strict and self.kernel is None:
            raise KernelError(f"tile op pl.{op} outside a kernel region: orchestration runs no tile ops")

    def _same_kernel(self, op: str, tiles) -> None:
        if not self.strict:
            return
        for t in tiles:
            if isinstance(t, Tile) and t.kernel is not self.kernel:
                raise KernelError(f"pl.{op} uses a Tile made in another kernel (or another iteration of a parallel loop): "
                                  "a Tile cannot cross a region boundary")

    def _vector_spaces(self, op: str, args) -> None:
        if not self.strict:
            return
        for i, t in enumerate(args):
            if isinstance(t, Tile) and t.space != "Vec" and not (t.space == "Acc" and self._spec(op).may_read_acc(i)):
                raise KernelError(f"vector op pl.{op} reads a tile in {t.space}: vector ops work on Vec tiles")

    # -- results -------------------------------------------------------------------------
    def _tile(self, data: np.ndarray, space: str = "Vec", valid=None) -> Tile:
        return Tile(data, space, self.kernel, valid)

    def _result(self, like, data: np.ndarray, valid=None, space: str = "Vec"):
        if isinstance(like, Tile):
            return self._tile(data, space, valid)
        name = like.name if isinstance(like, Tensor) else "result"
        # 2026-03 lowered a tensor op's result in a kernel to a Tile of that kernel; e2d0f78ae
        # hands a value that leaves its kernel scope on in GM (measured: a pl.at's result read
        # by later kernels compiles). Only a create_tensor in a kernel stays the kernel's own.
        local = self.kernel if self.strict and self.kernel and not self.head else None
        return Tensor(data, np.zeros(data.shape, dtype=bool), name, valid, local)

    # -- elementwise ---------------------------------------------------------------------
    def binary(self, op: str, lhs, rhs):
        if self.head and type(rhs).__name__ == "Index":
            raise KernelError(f"pl operation '{op}': Scalar operand has dtype `index`, which tile/tensor scalar instructions "
                              "do not accept. Convert it explicitly, e.g. pl.cast(<value>, pl.INT32).")
        family = self._dispatch(op, [lhs, rhs])
        self._enter_op(op, family, [lhs, rhs])
        a, b = array_of(lhs), array_of(rhs)
        if isinstance(rhs, (Tensor, Tile)):
            try:
                np.broadcast_shapes(a.shape, b.shape)
            except ValueError:  # the compilers' words (2026-05-26, e2d0f78ae)
                raise KernelError(f"The operator {family}.{op} requires compatible shapes, but got {list(a.shape)} and "
                                  f"{list(b.shape)}") from None
        dtype = dtype_of(lhs)
        if isinstance(rhs, (Tensor, Tile)) or (family == "tensor" and isinstance(rhs, float)):
            # BF16 with FP32 is FP32, and a tensor op takes a float as an FP32 scalar (measured at
            # c39, 2026-05 and e2d0f78ae; a tile op of a scalar keeps its dtype from 2026-05 on)
            dtype = D.wider(dtype, dtype_of(rhs))
        if dtype.is_float:
            a, b = a.astype(np.float32) if isinstance(a, np.ndarray) else np.float32(a), as_f32(b)
        else:
            a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64) if isinstance(b, np.ndarray) else b
        with np.errstate(all="ignore"):
            out = {
                "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "div": lambda: a / b,
                "maximum": lambda: np.maximum(a, b), "minimum": lambda: np.minimum(a, b),
            }[op]()
        return self._result(lhs, D.cast(out, dtype), valid_of(lhs))

    def binary_scalar(self, op: str, lhs, rhs):
        """pl.tile.adds/subs/muls/divs/maxs/mins: a Tile and a scalar."""
        name = {"add": "adds", "sub": "subs", "mul": "muls", "div": "divs", "maximum": "maxs", "minimum": "mins"}[op]
        if self.strict and (kind(lhs) != "Tile" or kind(rhs) != "Scalar"):
            raise KernelError(f"The operator tile.{name} requires a TileType and a scalar, got {type_name(lhs)} and "
                              f"{type_name(rhs)}")
        self._in_kernel(name)
        self._same_kernel(name, [lhs])
        self._vector_spaces(name, [lhs]) if self._spec(op) is not None else None
        with np.errstate(all="ignore"):
            a = array_of(lhs).astype(np.float32) if lhs.dtype.is_float else array_of(lhs).astype(np.int64)
            out = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                   "maximum": np.maximum, "minimum": np.minimum}[op](a, rhs)
        return self._result(lhs, D.cast(out, lhs.dtype), valid_of(lhs))

    def subscript(self, x, key):
        """The guide's sugar: all-integer keys read a scalar, slices make a `slice` (per version)."""
        from .versions import subscript

        return subscript(self, x, key)

    def dim(self, x, axis):
        return int(x.shape[int(axis)])

    def unary(self, op: str, x):
        family = self._dispatch(op, [x])
        self._enter_op(op, family, [x])
        a = array_of(x).astype(np.float32)
        with np.errstate(all="ignore"):
            out = {
                "exp": np.exp, "neg": np.negative, "recip": lambda v: np.float32(1) / v,
                "rsqrt": lambda v: np.float32(1) / np.sqrt(v), "sqrt": np.sqrt, "log": np.log, "abs": np.abs,
                "relu": lambda v: np.maximum(v, np.float32(0)),
            }[op](a)
        return self._result(x, D.cast(out, dtype_of(x)), valid_of(x))

    def cast(self, x, target_type, mode="round"):
        cast_mode(mode)
        if not isinstance(x, (Tensor, Tile)):  # a scalar: pl.cast(i, pl.INT32)
            return float(x) if target_type.is_float else int(x)
        if self.head and x.dtype == target_type:
            raise KernelError(f"tile.cast: target_type {target_type} equals input dtype; same-dtype cast is not a valid operation")
        family = self._dispatch("cast", [x])
        self._enter_op("cast", family, [x])
        return self._result(x, convert(array_of(x), dtype_of(x), target_type, mode), valid_of(x))

    def _enter_op(self, op: str, family: str, args) -> None:
        if family == "tile":
            self._in_kernel(op)
            self._same_kernel(op, args)
            spec = self._spec(op)
            if spec is not None and spec.unit == "vector":
                self._vector_spaces(op, args)

    # -- broadcasts and reductions -------------------------------------------------------
    def expand(self, op: str, x, vec):
        family = self._dispatch(op, [x, vec])
        self._enter_op(op, family, [x, vec])
        a, v = array_of(x).astype(np.float32), array_of(vec).astype(np.float32)
        axis = "row" if op.startswith("row") else "col"
        want = (a.shape[0], 1) if axis == "row" else (1, a.shape[1])
        if v.shape != want:
            raise KernelError(f"pl.{op} needs a {list(want)} vector for a {list(a.shape)} tile, got {list(v.shape)}")
        with np.errstate(all="ignore"):
            out = {"mul": a * v, "div": a / v, "add": a + v, "sub": a - v}[op.rsplit("_", 1)[1]]
        # of a BF16 value and an FP32 vector, FP32 (measured: tile and tensor forms at c39, 2026-05, e2d0f78ae)
        return self._result(x, D.cast(out, D.wider(dtype_of(x), dtype_of(vec))), valid_of(x))

    def reduce(self, op: str, x, tmp_tile=None):
        family = self._dispatch(op, [x] + ([tmp_tile] if tmp_tile is not None else []))
        self._enter_op(op, family, [x])
        if self.strict and family == "tile":
            if tmp_tile is None:
                raise KernelError(f"tile.{op} requires tmp_tile: a scratch tile of the input's shape and dtype")
            if tmp_tile.shape != x.shape or tmp_tile.dtype != x.dtype:
                raise KernelError(f"tile.{op}: tmp_tile {list(tmp_tile.shape)} {tmp_tile.dtype} does not match the input "
                                  f"{list(x.shape)} {x.dtype}")
        a = array_of(x).astype(np.float32)
        valid = valid_of(x)
        if not self.head and family == "tile" and valid is not None and len(valid) == 2:
            # Up to c39fe714a a Tile's reduction runs over its valid region (c39's PTO code generator
            # writes a load's valid_shapes as the tile_buf's v_col, and pto-isa's TROWMAX/TROWSUM/TROWMIN
            # reduce over GetValidCol): the padding is not read. The rows past the valid ones are padding.
            return self._valid_reduce(op, x, a, valid)
        with np.errstate(all="ignore"):
            out = {"row_sum": np.sum, "row_max": np.max, "row_min": np.min}[op](a, axis=1, keepdims=True)
        return self._result(x, D.cast(out, dtype_of(x)), (valid[0], 1) if valid else None)

    def _valid_reduce(self, op: str, x, a: np.ndarray, valid) -> Tile:
        rows, cols = (max(0, int(v)) for v in valid)
        out = self.uninitialised((a.shape[0], 1), dtype_of(x)).astype(np.float32)
        if rows and cols:
            with np.errstate(all="ignore"):
                out[:rows] = {"row_sum": np.sum, "row_max": np.max, "row_min": np.min}[op](
                    a[:rows, :cols], axis=1, keepdims=True)
        return self._result(x, D.cast(out, dtype_of(x)), (valid[0], 1))

    def matmul(self, lhs, rhs, out_dtype=None, a_trans=False, b_trans=False, c_matrix_nz=False):
        family = self._dispatch("matmul", [lhs, rhs])
        if family == "tile":
            given = {"out_dtype": out_dtype, "a_trans": a_trans, "b_trans": b_trans, "c_matrix_nz": c_matrix_nz}
            extra = [k for k, v in given.items() if v not in (None, False) and k not in (self._spec("matmul").tile_params or given)]
            if self.strict and extra:
                raise KernelError(f"matmul() got an unexpected keyword argument '{extra[0]}'")
            self._in_kernel("matmul")
            self._same_kernel("matmul", [lhs, rhs])
            if self.strict:
                # 2026-08 (AutoTileMatmulL0) also takes whole operands from Mat (and a Vec left one) and tiles them
                later = self.profile == HEAD
                for t, want, also in ((lhs, "Left", ("Mat", "Vec") if later else ()), (rhs, "Right", ("Mat",) if later else ())):
                    if t.space != want and t.space not in also:
                        raise KernelError(f"tile.matmul reads its {'left' if want == 'Left' else 'right'} operand from {want}, "
                                          f"but it is in {t.space}: pl.move it there")
        out, valid = _product(lhs, rhs, a_trans, b_trans)
        in_region = self.kernel is not None or self.auto > 0
        dtype = out_dtype or _product_dtype("tile" if self.predates and in_region else family, lhs)
        return self._result(lhs, D.cast(out, dtype), valid, space="Acc")

    def matmul_acc(self, acc, lhs, rhs, a_trans=False, b_trans=False):
        if (a_trans or b_trans) and self.strict and (not self.head or self.forced == "Tile"):
            # c39fe714a's matmul_acc and 2026-08's pl.tile.matmul_acc take (acc, lhs, rhs) only
            raise KernelError(f"matmul_acc() got an unexpected keyword argument '{'a_trans' if a_trans else 'b_trans'}'")
        self.matmul(lhs, rhs, a_trans=a_trans, b_trans=b_trans)  # the operands' checks
        self._same_kernel("matmul_acc", [acc])
        product, _ = _product(lhs, rhs, a_trans, b_trans)
        total = D.cast(array_of(acc).astype(np.float64) + product, acc.dtype)
        if isinstance(acc, Tensor):  # 2026-08: tensor.matmul_acc inside a kernel
            return self._result(acc, total)
        return self._tile(total, acc.space)

    # -- shapes --------------------------------------------------------------------------
    def reshape(self, x, shape):
        family = self._dispatch("reshape", [x])
        self._enter_op("reshape", family, [x])
        shape = [int(s) for s in shape]
        a = array_of(x)
        if int(np.prod(shape)) != a.size:
            raise KernelError(f"pl.reshape of {list(a.shape)} to {shape}")
        if isinstance(x, Tile):
            return self._tile(a.reshape(shape).copy(), x.space)
        return Tensor(a.reshape(shape), x.written.reshape(shape), x.name, kernel=x.kernel)

    def transpose(self, x, axis1=0, axis2=1):
        family = self._dispatch("transpose", [x])
        self._enter_op("transpose", family, [x])
        a = np.swapaxes(array_of(x), int(axis1), int(axis2))
        if isinstance(x, Tile):
            return self._tile(a.copy(), x.space)
        return Tensor(a, np.swapaxes(x.written, int(axis1), int(axis2)), x.name, kernel=x.kernel)


def _product_dtype(family: str, lhs) -> D.DType:
    """Without out_dtype, a tensor matmul keeps its left operand's dtype (measured at c39, the
    2026-05 compiler and e2d0f78ae: BF16 operands give a BF16 Tensor); a tile one lands in Acc
    as FP32, of integers as INT32."""
    if family == "tensor":
        return dtype_of(lhs)
    return D.DTYPES["FP32"] if dtype_of(lhs).is_float else D.DTYPES["INT32"]


def _product(lhs, rhs, a_trans: bool, b_trans: bool):
    """The matrix product in float64, and its valid region. The hardware sums in FP32; a float64
    sum rounded once does not depend on the order of the sum, which BLAS picks per processor
    (OpenBLAS chooses its kernel by CPU) and which a K split changes: an FP32 sum's last bits,
    cast on to BF16, would make two equivalent kernels differ on one machine and not another."""
    a, b = array_of(lhs).astype(np.float64), array_of(rhs).astype(np.float64)
    a, b = (np.swapaxes(a, -1, -2) if a_trans and a.ndim >= 2 else a), (np.swapaxes(b, -1, -2) if b_trans and b.ndim >= 2 else b)
    # rank 3: a batched product over the leading axis (e2d0f78ae types [1, M, K] @ [1, K, N] as [1, M, N])
    batched = a.ndim in (2, 3) and b.ndim in (2, 3) and 3 in (a.ndim, b.ndim) and (
        a.ndim == 2 or b.ndim == 2 or a.shape[0] == b.shape[0])
    if not (a.ndim == b.ndim == 2 or batched) or a.shape[-1] != b.shape[-2]:
        raise KernelError(f"pl.matmul of {list(a.shape)} by {list(b.shape)}")
    out = np.matmul(a, b)
    lv, rv = valid_of(lhs), valid_of(rhs)
    lv, rv = (lv[::-1] if lv and a_trans else lv), (rv[::-1] if rv and b_trans else rv)
    if out.ndim != 2 and (lv or rv):
        raise KernelError("a batched pl.matmul of masked operands (valid_shape) is not modelled by the interpreter")
    valid = (lv[0] if lv else out.shape[0], rv[1] if rv else out.shape[1]) if (lv or rv) else None
    return out, valid
