"""Does a write cover its whole destination? What decides `pl.Out` against `pl.InOut`.

At 2026-08 an `Out` parameter is not copied to the device before the call (the language guide
of e2d0f78ae: "Reading an Out parameter returns garbage ... use pl.InOut if the prior contents
matter"), and is copied back whole after it. A parameter written only in part (a row per
token at a computed offset, one half of it, a store under an `if`) would come back with
garbage where the kernel never wrote: at 2026-03 those elements kept what the caller passed.
So `Out` is chosen only where one write provably covers the parameter; else `InOut`.

Provably covering: a store/assemble (or a `p[...] = v` of full slices) not under an `if` or
`while`, whose value has the parameter's shape along every axis whose offset is 0, and along
every other axis an offset that walks the whole axis: a loop variable `v` of
`range(0, N, T)` with a value T long, `v * T` (or `T * v`) of `range(0, N // T)` / `range(N // T)`,
or a name bound to one of these (`k0 = kb * K_CHUNK` as the last binding before the write, in its block or one around it). A loop that the chunk
rule tiled (`for v in pl.range(u, pl.min(u + C, N))` inside `for u in pl.parallel(0, N, C)`)
walks what its outer loop walks.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import code
from .infer import Site, number

LOOPS = ("range", "parallel", "unroll", "pipeline")


def covers(site: Site, info, value, offsets, param: str, sites: list[Site]) -> bool:
    """Does writing `value` at `offsets` into `param` at `site` write every element of `param`?"""
    tile = info.type_of(value, site.env) if value is not None else None
    if tile is None or tile.shape is None or not isinstance(offsets, (cst.List, cst.Tuple)) \
            or len(offsets.elements) != len(tile.shape):
        return False
    return _covers(site, info, [(e.value, t) for e, t in zip(offsets.elements, tile.shape)], param, sites)


def covers_subscript(site: Site, info, target: cst.Subscript, sites: list[Site]) -> bool:
    """Does `param[a:a + T, :] = v` at `site` write every element of `param`?"""
    whole = site.env.get(target.value.value) if isinstance(target.value, cst.Name) else None
    if whole is None or whole.shape is None or len(target.slice) != len(whole.shape):
        return False
    dims = []
    for element, extent in zip(target.slice, whole.shape):
        item = element.slice
        if not isinstance(item, cst.Slice) or item.step is not None:
            return False
        lower = item.lower if item.lower is not None else cst.Integer("0")
        if item.upper is None:
            if number(code(lower), info, site.function) != 0:
                return False
            dims.append((lower, extent))
            continue
        low, high = code(lower).replace(" ", ""), code(item.upper).replace(" ", "")
        if number(code(lower), info, site.function) == 0:
            dims.append((lower, code(item.upper)))
        elif high.startswith(low + "+"):
            dims.append((lower, high[len(low) + 1:]))
        else:
            return False
    return _covers(site, info, dims, target.value.value, sites)


def _covers(site: Site, info, dims, param: str, sites: list[Site]) -> bool:
    if any(isinstance(p, (cst.If, cst.While, cst.Else)) for p in site.parents):
        return False
    whole = site.env.get(param)
    if whole is None or whole.shape is None or len(dims) != len(whole.shape):
        return False
    func = site.function
    loops = {}
    for p in site.parents:
        if isinstance(p, cst.For) and isinstance(p.target, cst.Name):
            loops[p.target.value] = p
    bound = {n: _reaching(sites, site, n) for e, _ in dims for n in _names(e) if n not in loops}
    used = set()
    for (offset, t), n in zip(dims, whole.shape):
        size, extent = _val(t, info, func), _val(n, info, func)
        walk = _walk(offset, loops, bound, info, func)
        if walk is None:
            return False
        var, stop, step = walk
        if var is None:
            if size != extent:
                return False
            continue
        if var in used or step != size or stop != extent:
            return False
        used.add(var)
    return True


def _val(node_or_text, info, func):
    """A size as a number where the constants give one, else as its text (`T` == `T`, unknown or not)."""
    text = node_or_text if isinstance(node_or_text, str) else code(node_or_text)
    n = number(text, info, func)
    return n if n is not None else text.replace(" ", "")


def _walk(expr, loops, bound, info, func):
    """(loop variable, stop, step) of an offset that steps over [0, stop) by step; (None, 0, 0) for
    a constant 0; None when neither is provable."""
    if number(code(expr), info, func) == 0:
        return None, 0, 0
    if isinstance(expr, cst.Name) and expr.value not in loops and bound.get(expr.value) is not None:
        expr, around = bound[expr.value]
        if not all(loop in around for loop in loops.values() if _names(expr) & {loop.target.value}):
            return None  # bound under another loop of the same variable's name
    scale, name = 1, None
    if isinstance(expr, cst.Name):
        name = expr.value
    elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        for a, b in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(a, cst.Name) and a.value in loops:
                name, scale = a.value, _val(b, info, func)
    if name is None or name not in loops:
        return None
    span = _span(loops[name], loops, info, func)
    if span is None:
        return None
    stop, step = span
    if scale != 1:
        if step != 1 or not isinstance(stop, int) or not isinstance(scale, int):
            return None
        return name, stop * scale, scale
    return name, stop, step


def _span(loop: cst.For, loops, info, func):
    """(stop, step) of a loop that runs v = 0, step, ... up to stop, or None."""
    call = loop.iter
    if not isinstance(call, cst.Call) or (info.op(call) or "").rpartition(".")[2] not in LOOPS:
        return None
    args = [a.value for a in call.args if a.keyword is None]
    if any(a.keyword is not None and a.keyword.value not in ("init_values", "attrs", "stage", "chunk", "chunk_policy") for a in call.args):
        return None
    if len(args) == 1:
        return _val(args[0], info, func), 1
    if len(args) not in (2, 3):
        return None
    step = _val(args[2], info, func) if len(args) == 3 else 1
    if isinstance(step, int) and step <= 0:
        return None
    start = args[0]
    if number(code(start), info, func) == 0:
        return _val(args[1], info, func), step
    # the chunk rule's inner loop: range(u, min(u + C, N)) or range(u, u + C) under u = 0, C, ... N
    if isinstance(start, cst.Name) and start.value in loops and step == 1:
        outer = _span(loops[start.value], loops, info, func)
        if outer is None:
            return None
        stop = args[1]
        if isinstance(stop, cst.Call) and (info.op(stop) or "").rpartition(".")[2] == "min" and len(stop.args) == 2:
            if _val(stop.args[1].value, info, func) != outer[0]:
                return None
            stop = stop.args[0].value
        if isinstance(stop, cst.BinaryOperation) and isinstance(stop.operator, cst.Add) \
                and isinstance(stop.left, cst.Name) and stop.left.value == start.value \
                and _val(stop.right, info, func) == outer[1]:
            return outer[0], 1
    return None


def _names(expr) -> set[str]:
    if isinstance(expr, cst.Name):
        return {expr.value}
    if isinstance(expr, cst.BinaryOperation):
        return _names(expr.left) | _names(expr.right)
    return set()


def _reaching(sites: list[Site], site: Site, name: str):
    """The value of the simple assignment of `name` that reaches `site` from its own or an enclosing
    block, with the statements around that assignment; None when another binding may reach it."""
    here = next(i for i, s in enumerate(sites) if s is site)
    for before in reversed(sites[:here]):
        statement = before.statement
        if not any(n.value == name for n in before.of(cst.Name)):
            continue
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name):
            if isinstance(small, (cst.AugAssign, cst.AnnAssign)) and isinstance(small.target, cst.Name) \
                    and small.target.value == name:
                return None
            continue
        if site.parents[:len(before.parents)] != before.parents:
            return None  # bound in a block the write is not in
        return small.value, before.parents
    return None


def constant_window(site: Site, info, target: cst.Subscript) -> tuple[tuple[int, int], ...] | None:
    """`[lo, hi)` per axis of a subscript write whose bounds are all constants, not under an `if`
    or `while`; None otherwise."""
    whole = site.env.get(target.value.value) if isinstance(target.value, cst.Name) else None
    if whole is None or whole.shape is None or len(target.slice) != len(whole.shape) \
            or any(isinstance(p, (cst.If, cst.While, cst.Else)) for p in site.parents):
        return None
    window = []
    for element, extent in zip(target.slice, whole.shape):
        item = element.slice
        size = number(extent, info, site.function)
        if not isinstance(item, cst.Slice) or item.step is not None or size is None:
            return None
        lo = number(code(item.lower), info, site.function) if item.lower is not None else 0
        hi = number(code(item.upper), info, site.function) if item.upper is not None else size
        if lo is None or hi is None:
            return None
        window.append((lo, hi, size))
    return tuple(window)


def windows_cover(windows: list[tuple[tuple[int, int, int], ...]]) -> bool:
    """Do these constant windows together write every element? Where all but one axis are whole in
    each window, that axis's intervals must join into [0, size) (two halves of the columns)."""
    if not windows:
        return False
    rank = len(windows[0])
    for axis in range(rank):
        if not all(len(w) == rank and all(w[a][:2] == (0, w[a][2]) for a in range(rank) if a != axis) for w in windows):
            continue
        reach = 0
        for lo, hi, _ in sorted(w[axis] for w in windows):
            if lo > reach:
                break
            reach = max(reach, hi)
        if reach >= windows[0][axis][2]:
            return True
    return False
