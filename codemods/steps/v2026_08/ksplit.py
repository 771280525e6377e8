"""K split by hand for a matmul of fewer than 16 rows whose right operand overflows L0B (2026-08).

AutoTileMatmulL0 tiles a matmul's K only from M = 16 up (measured at e2d0f78ae: M = 4 with a
[512, 128] BF16 right operand stops the pipeline, "Right buffer usage (131072 bytes) exceeds
platform limit (65536 bytes)"; M = 16 passes). Below that the K loop is written out: the first K
chunk is a matmul, the others matmul_acc into it (the cube's accumulator, FP32, as one matmul
accumulates), each chunk small enough for L0A/L0B. The right operand's chunks are read from where
it was read (its `pl.load` / `pl.slice` at the summed offset), not cut from a whole copy: a
[512, 512] BF16 operand alone fills Mat. `plan` decides; `KSplit.apply` writes it.

Two forms: tile level (`pl.matmul(pl.move(a, Left), pl.move(b, Right))`, b loaded into Mat)
and tensor level in a kernel (`pl.matmul(a, b)`, b a `pl.slice` of a Tensor, bound to a name
before or written in the call; a slice of a 3-D weight `[h, 0, 0]` that drops its leading axis
is cut alike, each chunk spelled at full rank with `drop_dims`, as PTO175 spells the whole).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ...model.extents import assignments
from ...model.values import TENSOR
from ...syntax.nodes import code, codes, statements
from ...syntax.traversal import walk
from .base import MIN_L0_DIM, Upgrade, argument, in_kernel, keyword, positional
from .infer import Site, number
from ..registry import kind

LEFT, RIGHT, MAT = ("pl.MemorySpace.Left", "pl.MemorySpace.Right", "pl.MemorySpace.Mat")


@dataclass
class Plan:
    tile: bool  # the tile-level form (moves into Left/Right) or the tensor-level one
    lhs: str  # the left operand as written (a name, or an expression to hoist)
    lhs_is_name: bool
    source: str  # the tensor the right operand was read from
    offsets: tuple  # at which offsets (one per axis of the tensor)
    shape: tuple  # the shape read (K on axis `k_axis`; leading 1s before [K, N] when reshaped)
    k_axis: int
    reshaped: bool  # `pl.reshape(pl.load(t, ..., [1, K, N], Mat), [K, N])`: each chunk is reshaped alike
    m: str
    k: str
    n: str
    splits: int
    dtype: str = "FP32"
    read_at: cst.CSTNode | None = None  # the statement that read the right operand whole, by name
    trans: bool = False  # `b_trans=True`: the right operand is [N, K], its K the second axis
    drop: tuple = ()  # the leading unit axes a tensor-level chunk drops (`drop_dims=`)


def plan(up: Upgrade, call: cst.Call, site: Site, tile: bool) -> Plan | None:
    """The K split of `call`, or None where it is not needed or not known to be right."""
    args = positional(call)
    fp32 = keyword(call, "out_dtype")
    if fp32 is not None and (tile or code(fp32.value).rpartition(".")[2] != "FP32"):
        return None
    # A weight kept [N, K] and read with `b_trans=True` (the May library's way) splits along its columns.
    trans = keyword(call, "b_trans")
    if trans is not None and (tile or code(trans.value) != "True"):
        return None
    if len(args) != 2 or any(a.keyword is not None and a is not fp32 and a is not trans for a in call.args):
        return None  # a transposed left operand, other output dtypes: not split by hand here
    lhs, rhs = args[0].value, args[1].value
    if tile:
        lhs, rhs = _moved(up, lhs, "Left"), _moved(up, rhs, "Right")
        if lhs is None or rhs is None:
            return None
    elif not in_kernel(site, up.info):
        return None  # (a left operand that is an expression, `pl.cast(x, ...)`, is bound to a name first)
    inline = None if tile or isinstance(rhs, cst.Name) else _inline_slice(up, rhs)
    if not isinstance(rhs, cst.Name) and not (tile and _reshaped_load(up, rhs)) and inline is None:
        return None
    a, b = up.info.type_of(lhs, site.env), up.info.type_of(rhs, site.env)
    if not (a.shape and b.shape and len(a.shape) == len(b.shape) == 2 and a.dtype == b.dtype):
        return None
    if not tile and (a.kind != TENSOR or b.kind != TENSOR):
        return None
    b_k, b_n = (b.shape[1], b.shape[0]) if trans is not None else (b.shape[0], b.shape[1])
    m, k, k2, n = (number(d, up.info, site.function) for d in (*a.shape, b_k, b_n))
    size = up.api.dtype_bytes.get(b.dtype)
    limits = up.api.memory_limits
    if None in (m, k, k2, n, size) or k != k2 or m >= MIN_L0_DIM or "Right" not in limits or k * n * size <= limits["Right"]:
        return None
    splits = next((s for s in (2, 4, 8, 16, 32) if k % s == 0 and k // s >= 16 and (k // s) * n * size <= limits["Right"]
                   and m * (k // s) * size <= limits.get("Left", 1 << 62)), None)
    if isinstance(rhs, cst.Name):
        read = _read(up, rhs, site, tile, a.shape[1], b_n, trans is not None)
    elif inline is not None:
        read = _sliced(up, inline, site, a.shape[1], b_n, trans is not None)
    else:
        read = _reshaped(up, rhs, site, b.shape)
    if splits is None or read is None:
        return None
    if tile and not isinstance(lhs, cst.Name) and not _mat(up, lhs):
        return None
    if tile and isinstance(lhs, cst.Name) and not _mat_name(up, lhs, site):
        return None
    return Plan(tile, code(lhs), isinstance(lhs, cst.Name), *read[:5], a.shape[0], a.shape[1], b_n, splits,
                "FP32" if fp32 is not None else a.dtype, read[5], trans is not None, read[6] if len(read) > 6 else ())


def apply(up: Upgrade, call: cst.Call, site: Site, p: Plan) -> None:
    acc, kk = up.fresh(site, "acc_k"), up.fresh(site, "kk")
    lines = []
    lhs = p.lhs
    if not p.lhs_is_name:
        lhs = up.fresh(site, "lhs_k")
        lines.append(f"{lhs} = {p.lhs}")
    chunk = f"{p.k if p.k.isidentifier() or p.k.isdigit() else f'({p.k})'} // {p.splits}"

    def operands(step: str) -> str:
        at = f"{step} * ({chunk})" if step else "0"
        offsets, shape = list(p.offsets), list(p.shape)
        if step:  # a chunk read from offset 0 starts at the chunk's own offset: no `0 + ` before it
            offsets[p.k_axis] = at if offsets[p.k_axis] == "0" else f"{offsets[p.k_axis]} + {at}"
        shape[p.k_axis] = chunk
        if p.tile:
            left = f"pl.move(pl.slice({lhs}, [{p.m}, {chunk}], [0, {at}]), target_memory={LEFT})"
            read = f"pl.load({p.source}, [{', '.join(offsets)}], [{', '.join(shape)}], target_memory={MAT})"
            if p.reshaped:
                read = f"pl.reshape({read}, [{chunk}, {p.n}])"
            right = f"pl.move({read}, target_memory={RIGHT})"
        else:
            left = f"pl.slice({lhs}, [{p.m}, {chunk}], [0, {at}])"
            drop = f", drop_dims=[{', '.join(str(d) for d in p.drop)}]" if p.drop else ""
            right = f"pl.slice({p.source}, [{', '.join(shape)}], [{', '.join(offsets)}]{drop})"
            if p.reshaped:
                right = f"pl.reshape({right}, [{p.n}, {chunk}])" if p.trans else f"pl.reshape({right}, [{chunk}, {p.n}])"
        return f"{left}, {right}"

    flag = ", b_trans=True" if p.trans else ""
    first = f"pl.matmul({operands('')})" if p.tile else f"pl.matmul({operands('')}{flag}, out_dtype=pl.FP32)"
    lines += [f"{acc} = {first}",
              f"for {kk} in pl.range(1, {p.splits}):",
              f"    {acc} = pl.matmul_acc({acc}, {operands(kk)}{flag})"]
    up.before(site, up.pl("\n".join(lines)))
    if p.read_at is not None and _read_only_here(p.read_at, site):
        # the chunks are read from the tensor: the whole read is dead, and would hold Mat for nothing
        up.ctx.insert(up.rule, "remove", p.read_at)
    if p.tile or p.dtype == "FP32":
        up.rewrite(call, lambda new: cst.Name(acc))
    else:
        # a tensor matmul of half-precision operands is of their dtype (measured at c39fe714a and
        # e2d0f78ae): the FP32 accumulation is rounded once, as the cube does on its way out
        up.rewrite(call, lambda new: up.expr(f"pl.cast({acc}, target_type=pl.{p.dtype})"))


def _read_only_here(read_at: cst.SimpleStatementLine, site: Site) -> bool:
    """Whether the name `read_at` binds occurs in its function only there and in the matmul's operand."""
    target = read_at.body[0].targets[0].target
    if not isinstance(target, cst.Name):
        return False
    return sum(1 for n in walk(site.function) if isinstance(n, cst.Name) and n.value == target.value) == 2


def _moved(up: Upgrade, node, space: str):
    """`pl.move(x, target_memory=<space>)`: x."""
    if not isinstance(node, cst.Call) or (up.info.op(node) or "").rpartition(".")[2] != "move":
        return None
    mem = keyword(node, "target_memory")
    if mem is None or code(mem.value).rpartition(".")[2] != space:
        return None
    return argument(node, 0, "tile")


def _mat(up: Upgrade, node) -> bool:
    mem = keyword(node, "target_memory") if isinstance(node, cst.Call) else None
    return mem is not None and code(mem.value).rpartition(".")[2] == "Mat" and (
        up.info.op(node) or "").rpartition(".")[2] in ("load", "move")


def _mat_name(up: Upgrade, name: cst.Name, site: Site) -> bool:
    values = [a.value for a in assignments(site.function, name.value)]
    return bool(values) and all(_mat(up, v) for v in values)


def _read(up: Upgrade, rhs: cst.Name, site: Site, tile: bool, k: str, n: str, trans: bool = False):
    """(tensor, row, col) the right operand was read from: its one definition in the block before the
    matmul, `pl.load(t, [r, c], [K, N], Mat)` or `pl.slice(t, [K, N], [r, c])` (`[N, K]` where the
    matmul transposes it), with nothing it names rebound in between."""
    k_axis = 1 if trans else 0
    parent = site.parents[-1] if site.parents else site.function
    body = statements(parent)
    at = next((i for i, s in enumerate(body) if s is site.statement), None)
    if at is None:
        return None
    for i in range(at - 1, -1, -1):
        s = body[i]
        small = s.body[0] if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None
        bound = {n.value for t in (small.targets if isinstance(small, cst.Assign) else ())
                 for n in walk(t.target) if isinstance(n, cst.Name)}
        if not isinstance(s, cst.SimpleStatementLine):
            bound = {n.value for n in walk(s) if isinstance(n, cst.Name)}  # a nested block may rebind anything
        if rhs.value not in bound:
            continue
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call)):
            return None
        value = small.value
        op = (up.info.op(value) or "").rpartition(".")[2]
        if tile and op == "load" and _mat(up, value):
            offsets, shape = argument(value, 1, "offsets"), argument(value, 2, "shapes")
        elif not tile and op == "slice":
            offsets, shape = argument(value, 2, "offset"), argument(value, 1, "shape")
        else:
            return None
        source = argument(value, 0, "tensor")
        if not (isinstance(offsets, (cst.List, cst.Tuple)) and isinstance(shape, (cst.List, cst.Tuple))
                and len(offsets.elements) == 2 and len(shape.elements) == 2 and isinstance(source, cst.Name)):
            return None
        if not _same(up, site, code(shape.elements[k_axis].value), k):
            return None
        if up.info.type_of(source, site.env).kind != TENSOR or keyword(value, "valid_shape") is not None:
            return None
        used = {x.value for x in walk(value) if isinstance(x, cst.Name)}
        for between in body[i + 1:at]:
            rebound = {x.value for t in walk(between) if isinstance(t, cst.AssignTarget) for x in walk(t.target)
                       if isinstance(x, cst.Name)}
            if not isinstance(between, cst.SimpleStatementLine) or rebound & used:
                return None
        return code(source), codes(offsets), (n, k) if trans else (k, n), k_axis, False, s
    return None


def _inline_slice(up: Upgrade, node) -> tuple[cst.Call, bool] | None:
    """The right operand written in the call as a plain `pl.slice(t, shape, offsets)` (or the same
    at full rank with `drop_dims=`), or as `pl.reshape(pl.slice(t, [1, K, N], offsets), [K, N])`:
    (the slice, whether it is reshaped). No valid shape, no padding."""
    reshaped = False
    if (isinstance(node, cst.Call) and (up.info.op(node) or "").rpartition(".")[2] == "reshape"
            and len(node.args) == 2 and all(a.keyword is None for a in node.args)):
        node, reshaped = node.args[0].value, True
    if not (isinstance(node, cst.Call) and (up.info.op(node) or "").rpartition(".")[2] == "slice"):
        return None
    if any(a.star or (a.keyword is not None and a.keyword.value not in ("tensor", "shape", "offset", "drop_dims"))
           for a in node.args) or len(positional(node)) > 3 or (reshaped and keyword(node, "drop_dims") is not None):
        return None
    return node, reshaped


def _sliced(up: Upgrade, inline: tuple[cst.Call, bool], site: Site, k: str, n: str, trans: bool):
    """(tensor, offsets, shape, K axis, reshaped, None, dropped axes) of a right operand written as
    `pl.slice(t, [K, N], offsets)` in the call (`[N, K]` where the matmul transposes it). A slice of
    a higher-rank tensor is spelled at full rank: the offsets' leading axes are unit axes of the
    shape, dropped (`drop_dims`); written so already, only leading unit axes may be dropped. Read
    through `pl.reshape(..., [K, N])` instead, the unit axes stay and each chunk is reshaped alike."""
    value, reshaped = inline
    source, shape, offsets = (argument(value, i, name) for i, name in enumerate(("tensor", "shape", "offset")))
    shape, offsets = codes(shape), codes(offsets)
    if not (isinstance(source, cst.Name) and shape and offsets and len(shape) >= 2 and len(offsets) >= len(shape)):
        return None
    if up.info.type_of(source, site.env).kind != TENSOR:
        return None
    lead = len(offsets) - 2
    dropped = keyword(value, "drop_dims")
    if reshaped:
        if len(shape) != len(offsets):
            return None
    elif dropped is not None:
        axes = codes(dropped.value)
        if len(shape) != len(offsets) or axes is None or list(axes) != [str(i) for i in range(lead)]:
            return None
    elif len(shape) == 2:
        shape = ("1",) * lead + shape
    else:
        return None  # a rank-reducing slice that keeps more than two axes: not a [K, N] operand
    if not all(number(d, up.info, site.function) == 1 for d in shape[:lead]):
        return None
    k_axis = lead + (1 if trans else 0)
    if not (_same(up, site, shape[k_axis], k) and _same(up, site, shape[lead + (0 if trans else 1)], n)):
        return None
    return code(source), offsets, shape, k_axis, reshaped, None, () if reshaped else tuple(range(lead))


def _reshaped_load(up: Upgrade, node) -> bool:
    """`pl.reshape(pl.load(t, offsets, shape, target_memory=Mat), new_shape)`, the load plain."""
    if not (isinstance(node, cst.Call) and (up.info.op(node) or "").rpartition(".")[2] == "reshape"
            and len(node.args) == 2):
        return False
    inner = argument(node, 0, "input")
    return (isinstance(inner, cst.Call) and (up.info.op(inner) or "").rpartition(".")[2] == "load" and _mat(up, inner)
            and all(a.keyword is None or a.keyword.value in ("tensor", "offsets", "shapes", "target_memory")
                    for a in inner.args))


def _reshaped(up: Upgrade, rhs: cst.Call, site: Site, kn: tuple):
    """(tensor, offsets, shape, K axis, True) of a right operand read as `pl.reshape(pl.load(t, offsets,
    [1, .., 1, K, N], Mat), [K, N])`: only leading 1s dropped, so a K chunk is a chunk of the load's
    next-to-last axis."""
    load = argument(rhs, 0, "input")
    source, offsets, shape = (argument(load, i, n) for i, n in enumerate(("tensor", "offsets", "shapes")))
    offsets, shape = codes(offsets), codes(shape)
    if not (isinstance(source, cst.Name) and offsets and shape and len(offsets) == len(shape) >= 2):
        return None
    if up.info.type_of(source, site.env).kind != TENSOR:
        return None
    if not (all(number(d, up.info, site.function) == 1 for d in shape[:-2])
            and _same(up, site, shape[-2], kn[0]) and _same(up, site, shape[-1], kn[1])):
        return None
    return code(source), offsets, shape, len(shape) - 2, True, None


def _same(up: Upgrade, site: Site, x: str, y: str) -> bool:
    """Two extents written alike, or that the function's numbers make equal."""
    return x == y or number(f"({x}) - ({y})", up.info, site.function) == 0


@kind("upgrade-tensor-k-split")
class TensorKSplit(Upgrade):
    """The tensor-level form: `pl.matmul(a, b)` in a kernel with M < 16 and b over L0B."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, "matmul"):
            if op.startswith("tile."):
                continue
            split = plan(self, call, site, tile=False)
            if split is not None:
                apply(self, call, site, split)
            elif in_kernel(site, self.info):
                over = _right_overflow(self, call, site)
                if over is not None:
                    self.flag(site, self.params.get("message", "").format(**over))


def _right_overflow(up: Upgrade, call: cst.Call, site: Site) -> dict | None:
    """A matmul of fewer than 16 rows whose right operand alone overflows L0B, in a form `plan` does
    not split (a subscript operand, a transposed left one): what the marker says, or None."""
    args = positional(call)
    if len(args) != 2:
        return None
    a, b = (up.info.type_of(x.value, site.env) for x in args)
    if not (a.kind == b.kind == TENSOR and a.shape and b.shape and len(a.shape) == len(b.shape) == 2):
        return None  # tile operands moved into Left/Right by hand are tiled along K by the compiler (DeepSeek's pass)
    trans = {k: code(kw.value) == "True" for k in ("a_trans", "b_trans") if (kw := keyword(call, k)) is not None}
    m = number(a.shape[1] if trans.get("a_trans") else a.shape[0], up.info, site.function)
    right = [number(d, up.info, site.function) for d in b.shape]
    size, limit = up.api.dtype_bytes.get(b.dtype), up.api.memory_limits.get("Right")
    if m is None or None in right or size is None or limit is None or m >= MIN_L0_DIM:
        return None
    used = right[0] * right[1] * size
    return {"m": m, "used": used, "limit": limit, "operand": code(args[1].value)} if used > limit else None
