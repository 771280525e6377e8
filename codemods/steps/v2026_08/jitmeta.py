"""A tensor name handed to a called kernel function loses its metadata at `x = y` (e2d0f78ae:
"@pl.jit: missing inferred tensor metadata for parameter 'p'"; not in the catalogue, found
compiling the May 2026 library).

`@pl.jit` specializes each kernel function it calls from the shapes and dtypes of the caller's
arguments. It reads them off the caller's source, statement by statement: `pl.create_tensor`,
`pl.slice`, `pl.reshape` and `pl.window` give a name its metadata, other `pl` calls keep what
the name had, and a plain `x = y` gives `x` the metadata of `y`. Where `y` is a `pl.full(...)`
result, which it does not follow, `x` loses its metadata, and the call that takes `x` later fails
at the entry function's `def`, in whichever file that is.

`x = y` becomes `x = pl.full(...)`, the same call `y` was bound to, when that call reads only
names the function never binds and neither name is written in place (pl.write, a subscript
store, pl.assemble, pl.store): two equal constants then stand where one was shared.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.traversal import walk
from .base import Upgrade, binding, positional
from ..registry import kind

TRACKED = ("create_tensor", "slice", "reshape", "window")  # the binders the jit specializer follows
WRITES = ("write", "tensor.write", "assemble", "tensor.assemble", "store", "tile.store")


@kind("upgrade-jit-alias-metadata")
class JitAliasMetadata(Upgrade):
    def begin(self, ctx) -> None:
        super().begin(ctx)
        by_function: dict[cst.FunctionDef, list] = {}
        for site in self.info.sites:
            if site.ftype == "jit":
                by_function.setdefault(site.function, []).append(site)
        for sites in by_function.values():
            self._function(sites)

    def scan(self, site) -> None:
        pass

    def _function(self, sites) -> None:
        bound = {}
        for i, site in enumerate(sites):
            name, value = binding(site.statement)
            if name is not None:
                bound.setdefault(name, []).append((i, value))
        for i, site in enumerate(sites):
            x, y = binding(site.statement)
            if x is None or not isinstance(y, cst.Name):
                continue
            source = self._pure_full(y.value, i, bound)
            if source is None or not self._tracked_before(x, i, bound):
                continue
            call_at = self._handed_on(sites, i, x, bound)
            if call_at is None or self._written(sites, i, (x, y.value)) or self._used_after(sites, call_at, y.value):
                continue
            self.rewrite(y, lambda _n, text=self.text(source): cst.parse_expression(text))

    def _pure_full(self, name: str, at: int, bound) -> cst.Call | None:
        """The `pl.full(...)` `name` is bound to once, before `at`, from names the function never binds."""
        bindings = bound.get(name, [])
        if len(bindings) != 1 or bindings[0][0] >= at:
            return None
        value = bindings[0][1]
        if not isinstance(value, cst.Call) or self.info.op(value) != "full":
            return None
        for node in walk(value):
            if isinstance(node, cst.Name) and node.value in bound:
                return None
        return value

    def _tracked_before(self, name: str, at: int, bound) -> bool:
        """Does the specializer know `name`'s metadata just before `at` (its last binding one it follows)?"""
        earlier = [v for i, v in bound.get(name, []) if i < at]
        if not earlier:
            return False
        last = next((v for v in reversed(earlier) if not (isinstance(v, cst.Call) and self._kept(v))), None)
        return isinstance(last, cst.Call) and (self.info.op(last) or "").rpartition(".")[2] in TRACKED

    def _kept(self, call) -> bool:
        """A `pl` call the specializer does not model keeps the name's metadata."""
        op = self.info.op(call)
        return op is not None and op.rpartition(".")[2] not in TRACKED

    def _handed_on(self, sites, at: int, name: str, bound) -> int | None:
        """The first later site passing `name` to a function of the file's own (not a `pl` op),
        with no binding in between that gives `name` metadata again."""
        for j in range(at + 1, len(sites)):
            for node in sites[j].of(cst.Call):
                if self.info.op(node) is None and isinstance(node.func, cst.Name) \
                        and any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args):
                    return j
            rebound, value = binding(sites[j].statement)
            if rebound == name and not (isinstance(value, cst.Call) and self._kept(value)):
                return None
        return None

    def _written(self, sites, at: int, names) -> bool:
        for site in sites[at:]:
            statement = site.statement
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, (cst.Assign, cst.AugAssign)):
                        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                        if any(isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value in names
                               for t in targets):
                            return True
            for node in site.own:
                op = self.info.op(node)
                if op in WRITES:
                    args = positional(node)
                    dest = args[2].value if op in ("store", "tile.store") and len(args) > 2 else \
                        (args[0].value if args else None)
                    if isinstance(dest, cst.Name) and dest.value in names:
                        return True
        return False

    def _used_after(self, sites, at: int, name: str) -> bool:
        return any(n.value == name for site in sites[at:] for n in site.of(cst.Name))

