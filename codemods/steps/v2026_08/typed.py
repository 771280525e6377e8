"""Type-directed rewrites of the 2026-08 step: each needs a shape or a dtype the inference knows.

Where the type is not known the line is flagged with what a person must write; nothing is
guessed. The scratch tiles they create are Vec tiles named after the value they serve.
"""

from __future__ import annotations

import libcst as cst

from ...model.values import SCALAR, TENSOR, TILE
from .base import Upgrade, after_2026_03, append_arg, argument, keyword, positional
from .infer import Site, is_int, number, number_variable
from ..registry import kind

SCRATCH = "{name} = pl.create_tile([{shape}], dtype=pl.{dtype}, target_memory=pl.MemorySpace.Vec)"


class _Scratch(Upgrade):
    def scratch(self, site: Site, base: str, shape, dtype: str) -> str:
        name = self.fresh(site, base)
        self.before(site, self.pl(SCRATCH.format(name=name, shape=", ".join(shape), dtype=dtype)))
        return name

    def target_name(self, site: Site, fallback: str) -> str:
        statement = site.statement
        if isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], (cst.Assign, cst.AnnAssign)):
            small = statement.body[0]
            target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
            if isinstance(target, cst.Name):
                return f"{target.value}_tmp"
        return fallback


@kind("upgrade-axis-reduction")
class AxisReduction(_Scratch):
    """`pl.sum(t, axis=1, keepdim=True)` -> `pl.row_sum(t, tmp)`; `axis=0` -> `pl.col_sum(t)`."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, "sum", "max", "min"):
            if op.split(".")[0] not in ("sum", "max", "min", "tile"):
                continue
            axis, keep = keyword(call, "axis"), keyword(call, "keepdim")
            if axis is None:
                continue  # pl.max(a, b) of two scalars: still what it was
            x = positional(call)[0].value
            t = self.info.type_of(x, site.env)
            name = op.rpartition(".")[2]
            a = number(self.text(axis.value), self.info)
            kept = keep is not None and self.text(keep.value) == "True"
            if t.kind != TILE or not t.shape or len(t.shape) != 2 or t.dtype is None or a is None or not kept:
                self.flag(site, f"`pl.{op}(..., axis=...)` is gone: use pl.row_{name}(tile, tmp) (last axis, result "
                                f"[M, 1]) or pl.col_{name}(tile) (axis 0, [1, N]); keepdim=False has no equivalent")
                continue
            # The operand as the updated call has it: another rule may have renamed a read in it.
            if a in (1, -1):
                tmp = self.scratch(site, self.target_name(site, "tmp"), t.shape, t.dtype)
                self.rewrite(call, lambda new, n=name, tmp=tmp: self.expr(
                    f"pl.row_{n}({self.text(positional(new)[0].value)}, {tmp})"))
            else:
                self.rewrite(call, lambda new, n=name: self.expr(f"pl.col_{n}({self.text(positional(new)[0].value)})"))


@kind("upgrade-same-dtype-cast")
class SameDtypeCast(Upgrade):
    """`pl.cast(x, target_type=D)` with `x` already of dtype D is `x`."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, "cast"):
            x = argument(call, 0, "input") or argument(call, 0, "tile")
            target = argument(call, 1, "target_type")
            if x is None or target is None:
                continue
            t = self.info.type_of(x, site.env)
            wanted = self.info.ops.get(target)
            if t.kind in (TILE, TENSOR) and t.dtype is not None and wanted == t.dtype:
                statement = site.statement
                small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
                if (isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1
                        and isinstance(x, cst.Name) and self.text(small.targets[0].target) == x.value):
                    self.ctx.insert(self.rule, "remove", statement)  # `x = pl.cast(x, same)`: nothing left to do
                    continue
                self.rewrite(call, lambda new: positional(new)[0].value if positional(new) else argument(new, 0, "input"))


@kind("upgrade-rem-scratch")
class RemScratch(_Scratch):
    """`pl.rem(a, b)` / `pl.rems(a, s)` take a scratch tile of the operand's shape and dtype."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, "rem", "rems"):
            args = positional(call)
            if len(args) != 2 or keyword(call, "tmp") is not None:
                continue
            t = self.info.type_of(args[0].value, site.env)
            if t.kind == TENSOR:
                continue  # the tensor form takes no scratch
            if t.kind != TILE or not t.shape or t.dtype is None:
                self.flag(site, f"pl.{op} needs a scratch tile now (pypto #1823): pl.{op}(a, b, tmp) with tmp of a's "
                                "shape and dtype")
                continue
            tmp = self.scratch(site, self.target_name(site, "rem_tmp"), t.shape, t.dtype)
            self.rewrite(call, lambda new, tmp=tmp: append_arg(new, cst.Name(tmp)))


@kind("upgrade-row-scratch")
class RowScratch(_Scratch):
    """A row reduction's scratch must be at least the input's shape (pypto #2099)."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, "row_sum", "row_max", "row_min"):
            args = positional(call)
            if len(args) != 2:
                continue
            t = self.info.type_of(args[0].value, site.env)
            s = self.info.type_of(args[1].value, site.env)
            if t.kind != TILE or s.kind != TILE or not t.shape or not s.shape or t.dtype is None:
                continue
            small = len(s.shape) < len(t.shape) or any(
                (a := number(x, self.info)) is not None and (b := number(y, self.info)) is not None and b < a
                for x, y in zip(t.shape, s.shape))
            if small:
                tmp = self.scratch(site, self.target_name(site, "row_tmp"), t.shape, t.dtype)
                self.rewrite(args[1].value, lambda new, tmp=tmp: cst.Name(tmp))


@kind("upgrade-bool-condition")
class BoolCondition(Upgrade):
    """`if n:` / `while n:` on an integer scalar -> `n != 0`; `if 1:` -> `if True:`."""

    def scan(self, site: Site) -> None:
        if not isinstance(site.statement, (cst.If, cst.While)):
            return
        test = site.statement.test
        if isinstance(test, cst.Integer):
            self.rewrite(test, lambda new: cst.Name("True" if int(new.value, 0) else "False"))
            return
        t = self.info.type_of(test, site.env)
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not after_2026_03(self.ctx):
            inner = self.info.type_of(test.expression, site.env)
            if inner.kind == SCALAR and inner.dtype == "const":
                inner = number_variable(self.info, test.expression, site) or inner
            t = inner if is_int(inner) else t  # 2026-03: `not n` of an integer was an integer
        if is_int(t):
            self.rewrite(test, _nonzero)


def _nonzero(test: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(test, (cst.BooleanOperation, cst.Comparison, cst.UnaryOperation)) and not test.lpar:
        test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Comparison(test, [cst.ComparisonTarget(cst.NotEqual(), cst.Integer("0"))])


BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "adds", "subs", "muls", "divs", "maximums", "minimums")


@kind("upgrade-index-operand")
class IndexOperand(Upgrade):
    """A loop index as the scalar operand of a tile/tensor op is cast to the operand's dtype."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, *BINARY, "cmps"):
            args = positional(call)
            # cmps's third, the comparison, is a number: "Scalar operand has dtype `index`" is its second
            if len(args) != 2 and not (op.endswith("cmps") and len(args) == 3):
                continue
            x = self.info.type_of(args[0].value, site.env)
            s = self.info.type_of(args[1].value, site.env)
            if x.kind not in (TILE, TENSOR) or s.kind != SCALAR or s.dtype != "INDEX":
                continue
            if x.dtype is None:
                self.flag(site, f"`{self.text(args[1].value)}` is an index scalar, which tile/tensor ops refuse now "
                                "(pypto #2132): pl.cast it to the operand's dtype")
                continue
            self.rewrite(args[1].value, lambda new, d=x.dtype: self.expr(f"pl.cast({self.text(new)}, pl.{d})"))
        for call, op in self.calls(site, "arange"):
            # `pl.tile.arange(v0, [1, N], dtype=pl.INT32)` with v0 an index: "tile.ci requires 'start' dtype
            # (index) to match destination dtype (int32)" (measured at e2d0f78ae)
            start, dtype = argument(call, 0, "start"), keyword(call, "dtype")
            if start is None or dtype is None:
                continue
            s = self.info.type_of(start, site.env)
            if s.kind == SCALAR and s.dtype == "INDEX":
                d = self.text(dtype.value).rpartition(".")[2]
                self.rewrite(start, lambda new, d=d: self.expr(f"pl.cast({self.text(new)}, pl.{d})"))


# The ops that read a packed cmp mask as a mask (e2d0f78ae: sel and its scalar form sels).
MASK_READERS = frozenset({"sel", "sels"})


@kind("upgrade-sel-scratch")
class SelScratch(_Scratch):
    """`pl.sel(mask, a, b)` takes a `[1, 32]` UINT8 scratch tile (pypto #1239)."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, "sel"):
            if len(positional(call)) != 3 or keyword(call, "tmp") is not None:
                continue
            name = self.fresh(site, self.target_name(site, "sel_tmp"))
            self.before(site, self.pl(f"{name} = pl.tile.create([1, 32], dtype=pl.UINT8)"))
            self.rewrite(call, lambda new, name=name: append_arg(new, cst.Name(name)))
        for call, op in self.calls(site, "cmp", "cmps"):
            if not self._feeds_sel_only(site):
                self.flag(site, f"pl.{op} returns a packed UINT8 mask now (pypto #1239): a cast or arithmetic on it "
                                "computes something else; materialize it with pl.tile.sel(mask, one, zero, tmp)")

    def _feeds_sel_only(self, site: Site) -> bool:
        statement = site.statement
        if not (isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign)):
            return any((self.info.op(n) or "").rpartition(".")[2] in MASK_READERS for n in site.own)
        target = statement.body[0].targets[0].target
        if not isinstance(target, cst.Name):
            return False
        uses = [s for s in self.info.sites if s.function is site.function and s is not site
                and any(n.value == target.value for n in s.of(cst.Name))]
        return all(any((self.info.op(n) or "").rpartition(".")[2] in MASK_READERS for n in s.own) for s in uses)


@kind("upgrade-flat-offset")
class FlatOffset(Upgrade):
    """Flat-offset scalar access (`load_scalar`, `getval`, `pl.read(t, off)`) -> per-dimension indices."""

    READS = ("load_scalar", "getval", "read")
    WRITES = ("store_scalar", "setval", "write")

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, *self.READS, *self.WRITES):
            args = positional(call)
            if len(args) < 2 or isinstance(args[1].value, (cst.List, cst.Tuple)):
                continue
            family, _, name = op.rpartition(".")
            if name in ("read", "write") and family:
                continue  # pl.tensor.read / pl.tile.read always took indices
            t = self.info.type_of(args[0].value, site.env)
            if name in ("read", "write") and t.shape and len(t.shape) == 1:
                continue  # a bare index into a 1-D value is still accepted
            indices = self._indices(args[1].value, t)
            if indices is None:
                self.flag(site, f"`pl.{op}` takes one index per dimension now (pypto #420): split the flat offset "
                                "`{0}` by the shape".format(self.text(args[1].value)))
                continue
            kind = "tile" if t.kind == TILE else "tensor"
            new_op = f"{kind}.{'write' if name in self.WRITES else 'read'}" if family or name not in ("read", "write") else name
            self.rewrite(call, lambda new, o=new_op, i=indices: self._call(new, o, i))

    def _indices(self, off, t) -> str | None:
        if t.kind not in (TILE, TENSOR) or not t.shape:
            return None
        if len(t.shape) == 1:
            return f"[{self.text(off)}]"
        if len(t.shape) != 2:
            return None
        n = t.shape[1]
        if isinstance(off, cst.BinaryOperation) and isinstance(off.operator, cst.Add) and isinstance(off.left, cst.BinaryOperation) \
                and isinstance(off.left.operator, cst.Multiply) and self.text(off.left.right) == n:
            return f"[{self.text(off.left.left)}, {self.text(off.right)}]"  # the source computed r * N + c
        o = self.text(off)
        o = o if isinstance(off, (cst.Name, cst.Integer)) else f"({o})"
        return f"[{o} // {n}, {o} % {n}]"

    def _call(self, new: cst.Call, op: str, indices: str) -> cst.Call:
        args = positional(new)
        rest = ", ".join(self.text(a.value) for a in args[2:])
        return self.expr(f"pl.{op}({self.text(args[0].value)}, {indices}{', ' + rest if rest else ''})")


@kind("upgrade-cast-path")
class CastPath(Upgrade):
    """A tile cast the target's backend has no path for (the API table's `[casts]`, measured):
    where the target dtype holds every value of the source, routed through a dtype that holds
    them too and has a path on (the same cast, to the bit); flagged otherwise."""

    def scan(self, site: Site) -> None:
        paths, exact = self.api.cast_paths, self.api.exact_casts
        if not paths:
            return
        reached = {d for ds in paths.values() for d in ds}
        for call, op in self.calls(site, "cast"):
            x = argument(call, 0, "input") or argument(call, 0, "tile")
            target = argument(call, 1, "target_type")
            if x is None or target is None:
                continue
            t = self.info.type_of(x, site.env)
            src, dst = t.dtype, self.info.ops.get(target)
            if t.kind not in (TILE, TENSOR) or src not in paths or dst is None or dst == src or dst in paths[src]:
                continue
            if dst in paths and dst not in reached:
                continue  # no dtype casts to it there: a choice of backend, not of route (PTO127)
            # Where both the route's dtype and the target hold every value of the source, each value
            # arrives unchanged either way: the route is the cast itself, whatever the rounding mode.
            held = exact.get(src, frozenset())
            via = [m for m in sorted(held) if dst in held and m in paths[src] and dst in paths.get(m, ())]
            if via:
                through = via[0]
                self.rewrite(x, lambda new, m=through: self.expr(f"pl.cast({self.text(new)}, target_type=pl.{m})"))
                continue
            self.flag(site, self.params.get("message", "").format(src=src, dst=dst, arch=self.api.cast_arch))
