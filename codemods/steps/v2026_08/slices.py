"""Slices of the 2026-08 step that the compiler rejects for their shape list, not their meaning.

`upgrade-slice-full-rank`: a kernel's `pl.slice(t, [R, C], [i, j, r, c])` of a rank-4 Tensor
said at 2026-03 "leading axes of size 1, dropped". At 2026-08 a slice in a kernel is a tile.load
whose shape list must be full-rank ("requires offsets and shapes to have same number of
dimensions"); the rank reduction is spelled `drop_dims=` (pypto #1343). The shape (and the
valid shape) get the leading unit axes, and `drop_dims` names them: the result's type, and so
everything downstream, is what it was.
"""

from __future__ import annotations

import libcst as cst

from ...model.extents import constant_bound, runtime_names
from ...model.values import SCALAR, TENSOR, TILE
from ...syntax.traversal import walk
from .base import Upgrade, argument, in_kernel, keyword
from .infer import Site, number
from .padding import padding_for, rest_of_block
from ..registry import kind


def _list_of(items: list[cst.BaseExpression]) -> cst.List:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.List([cst.Element(v, comma=comma if i < len(items) - 1 else cst.MaybeSentinel.DEFAULT)
                     for i, v in enumerate(items)])


def _padded(node: cst.List | cst.Tuple, lead: int) -> cst.List:
    return _list_of([cst.Integer("1")] * lead + [e.value for e in node.elements])


@kind("upgrade-slice-full-rank")
class SliceFullRank(Upgrade):
    """`pl.slice(t4, [R, C], [a, b, r, c])` → `pl.slice(t4, [1, 1, R, C], [a, b, r, c],
    drop_dims=[0, 1])`, valid_shape padded the same way. In a kernel the pass pipeline refuses
    the short list; in the orchestration it passes the pipeline and the orchestration code
    generator refuses it ("tensor.slice offset must have same rank as shape", measured)."""

    def scan(self, site: Site) -> None:
        for call, op in self.calls(site, "slice", "view"):
            if op.partition(".")[0] == "tile":
                continue
            source = argument(call, 0, "tensor") or argument(call, 0, "input")
            shape, offset = argument(call, 1, "shape"), argument(call, 2, "offset")
            if source is None or not all(isinstance(x, (cst.List, cst.Tuple)) for x in (shape, offset)):
                continue
            if keyword(call, "drop_dims") is not None:
                continue
            t = self.info.type_of(source, site.env)
            if t.kind != TENSOR or not t.shape or len(offset.elements) != len(t.shape):
                continue
            lead = len(offset.elements) - len(shape.elements)
            if lead <= 0:
                continue
            valid = keyword(call, "valid_shape")
            if valid is not None and not (isinstance(valid.value, (cst.List, cst.Tuple))
                                          and len(valid.value.elements) == len(shape.elements)):
                self.flag(site, self.params.get("message", "").format(op=op))
                continue
            self.rewrite(call, lambda new, lead=lead: _full_rank(new, lead))


def _full_rank(call: cst.Call, lead: int) -> cst.Call:
    args = list(call.args)
    positional = [i for i, a in enumerate(args) if a.keyword is None]
    for i, a in enumerate(args):
        is_shape = (a.keyword is None and len(positional) > 1 and i == positional[1]) or (
            a.keyword is not None and a.keyword.value in ("shape", "valid_shape"))
        if is_shape and isinstance(a.value, (cst.List, cst.Tuple)):
            args[i] = a.with_changes(value=_padded(a.value, lead))
    return call.with_changes(args=with_keyword(args, "drop_dims", _list_of([cst.Integer(str(d)) for d in range(lead)])))


def with_keyword(args: list[cst.Arg], name: str, value: cst.BaseExpression) -> list[cst.Arg]:
    """The arguments with `name=value` appended last (a trailing comma stays last)."""
    args = list(args)
    trailing = args[-1].comma if args else cst.MaybeSentinel.DEFAULT
    if args:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    eq = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    keep = trailing if isinstance(trailing, cst.Comma) else cst.MaybeSentinel.DEFAULT
    args.append(cst.Arg(value, keyword=cst.Name(name), equal=eq, comma=keep))
    return args


@kind("upgrade-slice-shape")
class SliceBound(Upgrade):
    """`s = pl.slice(t, [1, n], [0, 0])` in a kernel with `n = pl.min(T, ...)` a runtime extent:
    tile.slice needs a constant shape now (InitMemRef allocates it). The shape takes the bound T,
    `n` goes to valid_shape=, and where the code after it reduces over the padding, the padding
    is filled with the reduction's identity (`pl.fillpad`); where no bound or no fill is known
    the line is flagged."""

    def scan(self, site: Site) -> None:
        self._scan_valid(site)
        self._scan_reshape(site)
        local = runtime_names(site.function)
        for call, op in self.calls(site, "slice"):
            base = self.info.type_of(argument(call, 0, "input") or argument(call, 0, "tile")
                                     or argument(call, 0, "tensor"), site.env) if call.args else None
            if base is None or not (base.kind == TILE or (base.kind == TENSOR and in_kernel(site, self.info))):
                continue
            shape = argument(call, 1, "shape")
            if not isinstance(shape, (cst.List, cst.Tuple)):
                continue
            runtime = [(i, e.value) for i, e in enumerate(shape.elements) if self._runtime(e.value, site, local)]
            if not runtime:
                continue
            how = self._bounded(site, call, base, shape, runtime)
            if how is None:
                i, element = runtime[0]
                self.flag(site, self.params.get("message", "").format(op=op, index=i, element=self.text(element)))
                continue
            self.rewrite(call, how)

    def _scan_reshape(self, site: Site) -> None:
        """A kernel's reshape to a runtime extent: a tile's every dimension is a constant now
        (measured: "cannot reshape ... only part of it holds real data", FlattenTileNdTo2D's
        "dynamic (non-constant) dimension"). Which static shape keeps the meaning depends on what
        the padding holds and who reads it: flagged."""
        if not in_kernel(site, self.info):
            return
        for call, op in self.calls(site, "reshape"):
            shape = argument(call, 1, "shape")
            if not isinstance(shape, (cst.List, cst.Tuple)):
                continue
            local = runtime_names(site.function)
            runtime = [(i, e.value) for i, e in enumerate(shape.elements) if self._runtime(e.value, site, local)]
            if runtime:
                i, element = runtime[0]
                self.flag(site, self.params.get("reshape_message", "").format(op=op, index=i, element=self.text(element)))

    def _runtime(self, element, site: Site, local: set[str]) -> bool:
        """A scalar the kernel binds at run time: a builder's parameter, a module constant or an
        imported size is a Python number when the program is built (`model.extents.runtime_names`)."""
        t = self.info.type_of(element, site.env)
        return t.kind == SCALAR and t.dtype != "const" and any(
            isinstance(n, cst.Name) and n.value in local for n in walk(element))

    def _scan_valid(self, site: Site) -> None:
        """A kernel's load or slice already at its bound, the runtime extent in its valid shape (as
        c39 code has it, and the 2026-03 step writes a February view): c39 reduced over the valid
        region, at 2026-08 a reduction reads the padding. Where the code after it reduces over the
        padded axis, the padding gets the reduction's identity; elsewhere the line stays as it is."""
        for call, op in self.calls(site, "load", "slice"):
            if op.partition(".")[0] == "tensor" or not in_kernel(site, self.info):
                continue
            shape = argument(call, 2, "shapes") if op.endswith("load") else argument(call, 1, "shape")
            valid = keyword(call, "valid_shapes") or keyword(call, "valid_shape")
            if not isinstance(shape, (cst.List, cst.Tuple)) or valid is None or not isinstance(
                    valid.value, (cst.List, cst.Tuple)) or len(shape.elements) != 2 or len(valid.value.elements) != 2:
                continue
            axes = [i for i, (v, e) in enumerate(zip(valid.value.elements, shape.elements))
                    if self.text(v.value) != self.text(e.value)]
            if len(axes) != 1:
                continue
            axis = axes[0]
            bound = self._bound(valid.value.elements[axis].value, site)
            if bound is None or self.text(bound) != self.text(shape.elements[axis].value):
                continue  # not a runtime extent bounded by the shape: the valid region is the author's
            small = site.statement.body[0] if isinstance(site.statement, cst.SimpleStatementLine) else None
            if not (isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)):
                continue
            known, fill = padding_for(small.targets[0].target.value, axis, rest_of_block(site), site.function, self.info)
            if known and fill is not None:
                self.rewrite(call, lambda new, fill=fill: self._filled(new, fill))

    def _bounded(self, site: Site, call: cst.Call, base, shape, runtime):
        """The rewrite, or None where a bound, the source's room or the padding is not known."""
        if len(runtime) != 1 or len(shape.elements) != 2 or keyword(call, "valid_shape") is not None:
            return None
        axis, element = runtime[0]
        bound = self._bound(element, site)
        offset = argument(call, 2, "offset")
        if bound is None or not isinstance(offset, (cst.List, cst.Tuple)) or len(offset.elements) != 2:
            return None
        room = number(base.shape[axis], self.info, site.function) if base.shape and len(base.shape) == 2 else None
        start = number(self.text(offset.elements[axis].value), self.info, site.function)
        limit = number(self.text(bound), self.info, site.function)
        if room is None or start is None or limit is None or start + limit > room:
            return None  # a window that may run off the source: a tile cannot clamp it
        small = site.statement.body[0] if isinstance(site.statement, cst.SimpleStatementLine) else None
        if not (isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)):
            return None
        known, fill = padding_for(small.targets[0].target.value, axis, rest_of_block(site), site.function, self.info)
        if not known:
            return None
        return lambda new, axis=axis, bound=bound, fill=fill: self._static(new, axis, bound, fill)

    def _bound(self, element, site: Site):
        """The constant operand of `pl.min(C, x)`, the element itself or every assignment of its name."""
        return constant_bound(element, site.function, self.info.op,
                              lambda text: number(text, self.info, site.function))

    def _static(self, call: cst.Call, axis: int, bound, fill: str | None):
        args = list(call.args)
        positional = [i for i, a in enumerate(args) if a.keyword is None]
        at = positional[1] if len(positional) > 1 else next(i for i, a in enumerate(args) if a.keyword and a.keyword.value == "shape")
        shape = args[at].value
        runtime = [e.value for e in shape.elements]
        static = list(runtime)
        static[axis] = bound
        args[at] = args[at].with_changes(value=_list_of(static))
        new = call.with_changes(args=with_keyword(args, "valid_shape", _list_of(runtime)))
        if fill is None:
            return new
        return self._filled(new, fill)

    def _filled(self, new: cst.Call, fill: str) -> cst.Call:
        return cst.Call(self.expr("pl.fillpad"), args=[cst.Arg(new, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                  cst.Arg(self.expr(f"pl.PadValue.{fill}"), keyword=cst.Name("pad_value"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))])
