"""One GM tensor written through two store paths in one kernel scope (e2d0f78ae: "GM tensor 'x'
mixes MTE3 and scalar stores in one InCore function"; not in the catalogue, found compiling the
May 2026 library).

At e2d0f78ae an InCore function may not store to one GM tensor both through MTE3 (a subscript
store, `pl.assemble`, `pl.store`) and through the scalar D-cache path (`pl.write`). Before the
check, the compiler turns an innermost `pl.range` loop whose body only `pl.write`s one constant
into a contiguous, 32-byte aligned row into `tile.full` + `tile.store` (MTE3). So the common
idiom "zero-initialise with a `pl.write` loop, then scatter with `pl.write`" is rejected at its
first non-constant `pl.write`.

The compiler itself accepts one form of that idiom: a full-shape, zero-offset
`x[:, :] = pl.full(...)` at the top of the kernel scope followed only by `pl.write`s to `x`;
it then stages the writes in the tile and stores it once. Where the fill loop nest covers the
whole tensor, and nothing else in the scope touches the tensor or an alias of it, the nest is
replaced by that statement (the fill moves ahead of sibling statements, which do not touch the
tensor). Anything else that the compiler rejects is flagged at the `pl.write` it names.
"""

from __future__ import annotations

import libcst as cst

from ...model.values import TENSOR
from ...syntax.nodes import statements
from ...syntax.traversal import walk
from .base import Upgrade, positional
from .infer import number
from ..registry import kind

SCOPES = ("at", "incore")
MTE3 = ("assemble", "store", "tensor.assemble", "tile.store")
_BITS_PER_BYTE = 8
_UNKNOWN = -1  # a constant trip count whose value this file does not say


@kind("upgrade-mixed-stores")
class MixedStores(Upgrade):
    def begin(self, ctx) -> None:
        super().begin(ctx)
        by_function = self.sites_by_function()
        for sites in by_function.values():
            self._bindings = _bindings(sites, self.info)
            for scope in self._scopes(sites):
                self._scope(scope, [s for s in sites if scope in s.parents])

    def scan(self, site) -> None:
        pass

    def _scopes(self, sites):
        for site in sites:
            statement = site.statement
            if isinstance(statement, cst.With) and any(
                    isinstance(item.item, cst.Call) and self.info.op(item.item) in SCOPES for item in statement.items):
                yield statement

    # -- one kernel scope ----------------------------------------------------------------
    def _scope(self, scope, inner) -> None:
        # a tensor made inside the scope is on-chip; `x = pl.assemble(x, ...)` only names the
        # write-through to x's own memory, and x stays the GM tensor it was
        bound_inside = {name for site in inner for name in _bound(site) if not self._writes_through(site, name)}
        writes: dict[str, list] = {}
        stores: dict[str, list] = {}
        for site in inner:
            for node, op in self.calls(site, "write"):
                if op not in ("write", "tensor.write"):
                    continue
                target = _first(node)
                if isinstance(target, cst.Name) and self._is_tensor(target.value, site):
                    writes.setdefault(target.value, []).append((site, node))
            for name in self._mte3_targets(site):
                stores.setdefault(name, []).append(site)
        for name, found in writes.items():
            if name in bound_inside:
                continue
            fills = [(s, c) for s, c in found if self._canonical_fill(s, c, name)]
            scalar = [(s, c) for s, c in found if (s, c) not in fills]
            if not scalar or not (fills or stores.get(name)):
                continue  # one store path only: accepted
            if not fills and self._staged(scope, name, inner, stores[name]):
                continue  # the form the compiler stages itself
            if len(fills) == 1 and not stores.get(name) and self._replace_fill(scope, name, inner, fills[0], scalar):
                continue
            self.flag(scalar[0][0], f"`{name}` is written here by pl.write (the scalar D-cache path) and elsewhere in "
                                    "this kernel scope through MTE3 (a subscript store, pl.assemble/pl.store, or a "
                                    "constant pl.write loop the compiler turns into one): e2d0f78ae rejects the mix "
                                    "(\"mixes MTE3 and scalar stores\"); stage the updates in one tile (pl.write on "
                                    "the tile, then one store) or write every element with pl.write")

    def _writes_through(self, site, name: str) -> bool:
        """`name = pl.assemble(name, ...)` / `name = pl.store(t, offsets, name)`."""
        statement = site.statement
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return False
        small = statement.body[0]
        value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
        return isinstance(value, cst.Call) and name in self._destinations(value)

    def _destinations(self, node):
        """The tensor names an MTE3 call stores into (none for any other node)."""
        op = self.info.op(node)
        if op in MTE3:
            args = positional(node)
            dest = args[0].value if op in ("assemble", "tensor.assemble") and args else \
                (args[2].value if len(args) > 2 else None)
            if isinstance(dest, cst.Name):
                yield dest.value

    def _is_tensor(self, name: str, site) -> bool:
        val = site.env.get(name)
        return val is not None and val.kind == TENSOR

    def _mte3_targets(self, site):
        statement = site.statement
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        if isinstance(t.target, cst.Subscript) and isinstance(t.target.value, cst.Name):
                            yield t.target.value.value
        for node in site.own:
            yield from self._destinations(node)

    # -- what the compiler turns into MTE3 ----------------------------------------------
    def _canonical_fill(self, site, call, name: str) -> bool:
        """Does e2d0f78ae's ConstantScalarFillLoopCanonicalizer turn this write's loop into a store?"""
        loop = site.parents[-1] if site.parents else None
        if not isinstance(loop, cst.For) or len(statements(loop)) != 1 or not _lone_call(site.statement, call):
            return False
        stop = self._unit_range(loop, site)
        args = positional(call)
        val = site.env.get(name)
        if stop is None or len(args) != 3 or not isinstance(args[2].value, (cst.Integer, cst.Float)):
            return False
        index = args[1].value
        if not isinstance(index, (cst.List, cst.Tuple)) or val.shape is None or len(index.elements) != len(val.shape):
            return False
        var = loop.target.value
        axis = None
        for i, element in enumerate(index.elements):
            e = element.value
            if not _mentions(e, var):
                continue
            if axis is not None or not _unit_index(e, var):
                return False
            axis = i
        bits = self.api.dtype_bytes.get(val.dtype or "")
        if axis is None or not bits:
            return False
        # A trip count this file cannot evaluate (a constant imported from another module) is
        # taken as a whole MTE3 row: the rewrite is accepted and means the same either way.
        if stop is not _UNKNOWN and (stop * int(bits * _BITS_PER_BYTE)) % 256:
            return False
        for i in range(axis + 1, len(val.shape)):  # contiguous only when every later dimension is one
            offset = index.elements[i].value
            if number(val.shape[i], self.info, site.function) != 1 or not (isinstance(offset, cst.Integer) and offset.value == "0"):
                return False
        return True

    def _unit_range(self, loop, site) -> int | None:
        """The constant trip count of `for v in pl.range(N)` (start 0, step 1, nothing else), else None."""
        it = loop.iter
        if not isinstance(loop.target, cst.Name) or loop.orelse is not None or not isinstance(it, cst.Call) \
                or self.info.op(it) != "range" or len(positional(it)) != len(it.args):
            return None
        args = [a.value for a in it.args]
        if not 1 <= len(args) <= 3:
            return None
        texts = [self.text(a) for a in args]
        start, stop, step = (["0", *texts, "1"][:3] if len(args) == 1 else [*texts, "1"][:3])
        values = [number(t, self.info, site.function) for t in (start, stop, step)]
        if values[0] != 0 or values[2] != 1:
            return None
        if values[1] is None:
            return _UNKNOWN if self.info.type_of(args[-1 if len(args) < 3 else 1], site.env).dtype == "const" else None
        return values[1] if values[1] > 0 else None

    def _same_extent(self, a: str, b: str, function) -> bool:
        m, n = number(a, self.info, function), number(b, self.info, function)
        return m == n if m is not None and n is not None else a.replace(" ", "") == b.replace(" ", "")

    # -- the forms that pass ----------------------------------------------------------------
    def _staged(self, scope, name, inner, store_sites) -> bool:
        """`x[:, :] = pl.full(...)` at the top of the scope, and only pl.write of x after it."""
        if len(store_sites) != 1:
            return False
        site = store_sites[0]
        if site.parents[-1] is not scope or not _full_init(site.statement, name, self.info):
            return False
        return self._only_written(name, [s for s in inner if s is not site])

    def _only_written(self, name, sites) -> bool:
        """Is `name` (or an alias of it) mentioned in these sites only as a pl.write destination?"""
        aliases = _aliases(name, self._bindings)
        for site in sites:
            targets = {id(_first(c)) for c, op in self.calls(site, "write") if op in ("write", "tensor.write")}
            for node in site.of(cst.Name):
                if (node.value in aliases or node.value == name) and \
                        (node.value != name or id(node) not in targets):
                    return False
        return True

    def _replace_fill(self, scope, name, inner, fill, scalar) -> bool:
        site, call = fill
        if any(self.info.sites.index(s) < self.info.sites.index(site) for s, _ in scalar):
            return False  # a scatter before the fill: the order matters
        if not self._only_written(name, inner):
            return False
        chain = [p for p in site.parents[site.parents.index(scope) + 1:]]
        if not chain or not all(isinstance(p, cst.For) for p in chain):
            return False
        val = site.env[name]
        index = [e.value for e in positional(call)[1].value.elements]
        dims: list[str | None] = [None] * len(index)
        for loop in chain:
            if self._unit_range(loop, site) is None:
                return False
            at = [i for i, e in enumerate(index) if isinstance(e, cst.Name) and e.value == loop.target.value]
            if len(at) != 1 or dims[at[0]] is not None:
                return False
            stop = self.text(loop.iter.args[-1 if len(loop.iter.args) < 3 else 1].value)
            if not self._same_extent(stop, val.shape[at[0]], site.function):
                return False
            dims[at[0]] = stop
        if any(d is None for d in dims):
            return False  # an index the nest does not run over: only part of the tensor is filled
        cut = len(chain) - 1  # the outermost loop of the chain that holds nothing but the chain
        while cut > 0 and len(statements(chain[cut - 1])) == 1:
            cut -= 1
        value = self.text(positional(call)[2].value)
        init = self.pl(f"{name}[{', '.join(':' * len(dims))}] = pl.full([{', '.join(dims)}], "
                       f"dtype=pl.{val.dtype}, value={value})")
        self.ctx.insert(self.rule, "before", chain[0], init)
        self.ctx.insert(self.rule, "remove", chain[cut])
        return True


def _first(call: cst.Call):
    args = positional(call)
    return args[0].value if args else None


def _lone_call(statement, call) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
        and isinstance(statement.body[0], cst.Expr) and statement.body[0].value is call


def _mentions(node, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(node))


def _unit_index(expr, var: str) -> bool:
    """`v`, `v + base` or `base + v` with base free of v: what the canonicalizer matches."""
    if isinstance(expr, cst.Name):
        return expr.value == var
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        for a, b in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(a, cst.Name) and a.value == var and not _mentions(b, var):
                return True
    return False


def _full_init(statement, name: str, info) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return False
    target = small.targets[0].target
    if not (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value == name):
        return False
    whole = all(isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None
                and e.slice.step is None for e in target.slice)
    return whole and isinstance(small.value, cst.Call) and info.op(small.value) == "full"


def _bound(site) -> list[str]:
    statement = site.statement
    names = []
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                names += [t.target.value for t in small.targets if isinstance(t.target, cst.Name)]
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)) and isinstance(small.target, cst.Name):
                names.append(small.target.value)
    elif isinstance(statement, cst.For) and isinstance(statement.target, cst.Name):
        names.append(statement.target.value)
    return names


VIEWS = ("reshape", "slice", "view", "tensor.reshape", "tensor.slice", "tensor.view", "tensor.transpose_view")


def _bindings(sites, info) -> list[tuple[str, str]]:
    """Each binding of the function that may name memory another name names: `a = b`,
    `a = pl.reshape(b, ...)` and the other views."""
    found = []
    for site in sites:
        statement = site.statement
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
            if isinstance(value, cst.Call) and info.op(value) in VIEWS and positional(value):
                value = positional(value)[0].value
            if isinstance(value, cst.Name):
                found += [(name, value.value) for name in _bound(site)]
    return found


def _aliases(name: str, bindings) -> set[str]:
    """The names linked to `name` by views, either way, transitively."""
    seen = {name}
    changed = True
    while changed:
        changed = False
        for a, b in bindings:
            if (a in seen) != (b in seen):
                seen |= {a, b}
                changed = True
    seen.discard(name)
    return seen
