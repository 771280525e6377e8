"""A name re-bound to a value of another type gets a name of its own (e2d0f78ae: "Cannot reassign
'x' with a different type"; not in the catalogue, found by compiling the April library).

At 2026-03 a name could be re-bound to a Tile or Tensor of another shape or dtype; at 2026-08 a
function's names keep one type. The later binding and the uses it reaches are renamed, where
that is provably local: every use it reaches lies after it in its own block, and the name is
not read earlier in an enclosing loop (a loop-carried value would then change its name
halfway). Anything else is flagged.
"""

from __future__ import annotations

import libcst as cst

from ...model.extents import assignments
from ...model.constants import evaluate
from ...model.kernels import parameter_value
from ...model.values import SCALAR, TENSOR, TILE, Val
from ...syntax.nodes import code
from .base import Upgrade, argument, binding, keyword, kernel_scope
from .infer import ELEMENTWISE, number
from ..registry import kind


@kind("upgrade-rebind-new-type")
class RebindNewType(Upgrade):
    def begin(self, ctx) -> None:
        super().begin(ctx)
        by_function = self.sites_by_function()
        for sites in by_function.values():
            self._function(sites)

    def scan(self, site) -> None:
        pass

    def _function(self, sites) -> None:
        first: dict[str, tuple] = {}
        bound: dict[str, list] = {}  # name -> the sites binding it so far
        renamed: dict[tuple, str] = {}  # (name, type) -> the name values of that type take
        self._renamed_targets: set[int] = set()
        for i, site in enumerate(sites):
            name, value = binding(site.statement)
            if name is None or i in self._renamed_targets:
                continue
            earlier = bound.setdefault(name, [])
            earlier.append(site)
            new = self._declared(site) or self._type(value, site)
            key = _key(new, self._view(value, site))
            if key is None:
                continue
            if name not in first:
                first[name] = key
                continue
            self._func = site.function
            if not self._differs(key, first[name]):
                continue
            if site.ftype == "jit" and self._jit_accepts(earlier[:-1], site):
                first[name] = key  # the jit frontend versions the name: later bindings compare with this one
                continue
            uses = self._reached(sites, i, name, key)
            if uses is None and _only_layout(key, first[name]):
                self._relayout(value, first[name][3])
                continue
            if uses is None:
                self.flag(site, f"`{name}` is re-bound to a {new.describe()}: e2d0f78ae refuses to change a name's "
                                "type (\"Cannot reassign ... with a different type\"); give this value a name of its own")
                continue
            fresh = _same_type(renamed, name, key) or self.fresh(site, name)
            renamed[(name, key)] = fresh
            target = site.statement.body[0].targets[0].target if isinstance(site.statement.body[0], cst.Assign) \
                else site.statement.body[0].target
            self.rewrite(target, lambda n, f=fresh: n.with_changes(value=f))
            for node in uses:
                self.rewrite(node, lambda n, f=fresh: n.with_changes(value=f))

    def _declared(self, site) -> Val | None:
        """A scalar binding's annotated type: `x: pl.Scalar[pl.INT64] = 0` holds an INT64 (the
        parser converts the literal), which a later `x = n` of an INT64 keeps."""
        small = site.statement.body[0]
        if not isinstance(small, cst.AnnAssign):
            return None
        declared = parameter_value(small.annotation.annotation, self.info.ops, typed=True)
        return declared if declared.kind == SCALAR and declared.dtype else None

    def _type(self, value, site) -> Val:
        """The value's type as the compiler sees it: a Python number the parser folds (a literal,
        a module or builder constant, arithmetic of them) is an INDEX scalar when it is an int and
        an FP32 one when it is a float (measured at e2d0f78ae, @pl.program and @pl.jit alike:
        `i = 0` then `i = e`, e a loop index, is accepted; `i = 0` then an INT32 `pl.read` is
        refused, "was pl.Scalar[pl.INDEX], got pl.Scalar[pl.INT32]"; `x = 0.0` then an INDEX,
        "was pl.Scalar[pl.FP32]")."""
        val = self.info.type_of(value, site.env)
        if val.kind != SCALAR or val.dtype != "const":
            return val
        folded = evaluate(code(value), (self.info.local or {}).get(site.function, self.info.constants))
        if isinstance(folded, bool) or not isinstance(folded, (int, float)):
            # `n + 1` with n a runtime scalar: not a number the parser folds, and its dtype is not known
            return val.but(dtype=None)
        return val.but(dtype="INDEX" if isinstance(folded, int) else "FP32")

    def _view(self, value, site):
        """The valid region a Tensor or Tile value carries in its type (a TensorView or TileView):
        a tuple of its dimensions (a number where it folds to one, else the expression's text: the
        compiler compares the expressions, so `[n, 64]` then `[m, 64]` is refused and `[v, 64]`
        twice accepted even with `v` re-bound between, measured at e2d0f78ae), False for none,
        None where not known. e2d0f78ae refuses `x = pl.cast(pl.slice(t, s, o, valid_shape=v), ...)`
        then `x = pl.slice(buf, s, o)` or one of another valid shape, "Cannot reassign 'x' with a
        different type ... TensorView(valid_shape=...)". A slice of a parameter, or of a tensor only
        created and assembled into, has none at 2026-08 (PTO114 drops create_tensor's valid_shape);
        nor has a load without one."""
        while isinstance(value, cst.Call):
            op = (self.info.op(value) or "").rpartition(".")[2]
            if op in ("slice", "view", "load"):
                valid = keyword(value, "valid_shape") or keyword(value, "valid_shapes")
                shape = argument(value, 2, "shapes") if op == "load" else argument(value, 1, "shape")
                if valid is not None:
                    # a valid region as large as the shape is no view (measured: that re-binding is accepted)
                    if self._same_dims(valid.value, shape, site):
                        return False
                    return self._dims(valid.value, site)
                if op == "load":
                    return False
                return False if self._plain_tensor(argument(value, 0, "tensor"), site) else None
            if (op != "cast" and op not in ELEMENTWISE) or not value.args:
                return None
            value = value.args[0].value
        return None

    def _dims(self, node, site):
        if not isinstance(node, (cst.List, cst.Tuple)):
            return None
        dims = []
        for e in node.elements:
            n = number(code(e.value), self.info, site.function)
            dims.append(n if n is not None else " ".join(code(e.value).split()))
        return tuple(dims)

    def _same_dims(self, a, b, site) -> bool:
        if not (isinstance(a, (cst.List, cst.Tuple)) and isinstance(b, (cst.List, cst.Tuple))) or len(a.elements) != len(b.elements):
            return False
        for x, y in zip(a.elements, b.elements):
            m, n = number(code(x.value), self.info, site.function), number(code(y.value), self.info, site.function)
            if code(x.value) != code(y.value) and (m is None or m != n):
                return False
        return True

    def _plain_tensor(self, node, site) -> bool:
        if not isinstance(node, cst.Name):
            return False
        values = [a.value for a in assignments(site.function, node.value)]
        if any(p.name.value == node.value for p in site.function.params.params):
            return not values
        made = [v for v in values if (self.info.op(v) or "").rpartition(".")[2] == "create_tensor"]
        grown = [v for v in values if (self.info.op(v) or "").rpartition(".")[2] == "assemble"
                 and isinstance(argument(v, 0, "target"), cst.Name) and argument(v, 0, "target").value == node.value]
        return bool(made) and len(made) + len(grown) == len(values)

    def _jit_accepts(self, earlier, site) -> bool:
        """Does the @pl.jit frontend of e2d0f78ae take this re-binding as a new version of the name?
        Measured: yes when every earlier binding is in the same block (at function level, in a
        `pl.at`, in a loop inside one), or when each binding stands directly in a `pl.at` scope of
        its own (sequential scopes, or scopes in sibling loops); no when a binding is in a loop or
        branch the other is not in (before/after/inside a loop, sibling loops or if/else in one
        `pl.at`, a `pl.at` with a loop binding it followed by another scope)."""
        if all(e.parents == site.parents for e in earlier):
            return True
        scopes = [e.parents[-1] if e.parents and kernel_scope(e.parents[-1], self.info) else None
                  for e in (*earlier, site)]
        return None not in scopes and len(set(map(id, scopes))) == len(scopes)

    def _relayout(self, value, layout: str) -> None:
        """A [1, 1] tile that cannot take a name of its own (a loop carries the name) is given the
        name's layout instead: a reshape is a zero-copy row_major view, a move within Vec copies
        into a col_major tile (both measured at e2d0f78ae; a [1, 1] tile holds one element, so
        neither changes a value)."""
        template = self.expr("pl.reshape(X, [1, 1])" if layout == "row_major" else
                             "pl.move(X, target_memory=pl.MemorySpace.Vec, blayout=pl.TileLayout.col_major)")
        self.rewrite(value, lambda n: template.with_changes(args=[template.args[0].with_changes(value=n),
                                                                  *template.args[1:]]))

    def _differs(self, a, b) -> bool:
        """Provably another type: kind, dtype, rank or a known layout differ, or a dimension both
        sides know as a number."""
        if a[0] != b[0] or a[2] != b[2] or len(a[1]) != len(b[1]):
            return True
        if None not in (a[3], b[3]) and a[3] != b[3]:
            return True
        if None not in (a[4], b[4]) and _views_differ(a[4], b[4]):
            return True
        for x, y in zip(a[1], b[1]):
            m, n = number(x, self.info, self._func), number(y, self.info, self._func)
            if m is not None and n is not None and m != n:
                return True
        return False

    def _reached(self, sites, i: int, name: str, key):
        """The Name nodes the binding at i reaches, or None when renaming them is not provably local."""
        here = sites[i]
        for loop in here.parents:
            if isinstance(loop, (cst.For, cst.While)):
                for k, before in enumerate(sites[:i]):
                    if loop in before.parents and _reads(before, name) and not _bound_before(sites, k, name, loop):
                        return None  # read earlier in the loop: possibly the carried value
        found = []
        end = len(sites)
        for j in range(i + 1, len(sites)):
            site = sites[j]
            if site.parents[:len(here.parents)] != here.parents:
                end = j  # the block ended
                break
            found.extend(n for n in site.of(cst.Name) if n.value == name and not _is_target(site, n))
            bound, value = binding(site.statement)
            if bound == name and site.parents == here.parents:
                return found  # re-bound in the same block: later uses are that binding's
            if bound == name:  # re-bound deeper (a loop, a branch): ours only if it keeps our type
                other = _key(self._type(value, site), self._view(value, site))
                if other is None or self._differs(other, key):
                    return None
                self._renamed_targets.add(j)
                found.append(_target(site.statement))
            elif any(n.value == name and _is_target(site, n) for n in site.of(cst.Name)):
                return None  # bound some other way (a tuple, an augmented assignment)
        for site in sites[end:]:  # after the block nothing may read it before binding it anew
            if _reads(site, name):
                return None
            if binding(site.statement)[0] == name:
                break
        return found


def _key(val, view=None):
    """What the compiler compares on a re-binding: a Tile's or Tensor's kind, shape, dtype, valid
    region and (for a [1, 1] tile) layout, a Scalar's dtype (INDEX and INT32 are two types to it;
    an int the parser folds is INDEX, see `RebindNewType._type`); None where the inference does not
    know."""
    if val.dtype is None:
        return None
    if val.kind == SCALAR:
        return (SCALAR, (), val.dtype, None, None)
    if val.kind in (TENSOR, TILE) and val.shape is not None:
        return (val.kind, val.shape, val.dtype, val.layout, view)
    return None


def _same_type(renamed: dict, name: str, key):
    """The name an earlier re-binding of `name` to this type took: a valid region one side does
    not know is no other type."""
    for (other, k), fresh in renamed.items():
        if other == name and k[:4] == key[:4] and (None in (k[4], key[4]) or not _views_differ(k[4], key[4])):
            return fresh
    return None


def _views_differ(a, b) -> bool:
    """Provably two valid regions: one has none, or a dimension both know as a number, or both
    spell as an expression, differs (a number and an expression may be the same constant)."""
    if a is False or b is False:
        return a is not b
    if len(a) != len(b):
        return True
    return any(type(x) is type(y) and x != y for x, y in zip(a, b))


def _only_layout(a, b) -> bool:
    return a[:3] == b[:3] and a[4] == b[4] and None not in (a[3], b[3]) and a[3] != b[3]



def _bound_before(sites, k: int, name: str, loop) -> bool:
    """Is the read at k preceded, inside `loop`, by a binding of `name` in a block around it?"""
    read = sites[k]
    for site in reversed(sites[:k]):
        if loop not in site.parents:
            return False
        if binding(site.statement)[0] == name and read.parents[:len(site.parents)] == site.parents:
            return True
    return False


def _target(statement):
    small = statement.body[0]
    return small.targets[0].target if isinstance(small, cst.Assign) else small.target



def _is_target(site, node) -> bool:
    statement = site.statement
    if isinstance(statement, cst.SimpleStatementLine):
        small = statement.body[0]
        if isinstance(small, cst.Assign):
            return any(t.target is node for t in small.targets)
        if isinstance(small, cst.AnnAssign):
            return small.target is node
    return False


def _reads(site, name: str) -> bool:
    return any(n.value == name and not _is_target(site, n) for n in site.of(cst.Name))
