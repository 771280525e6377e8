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

from ...model.values import TENSOR
from .upgrade_base import Upgrade, argument, keyword
from .upgrade_cube import in_kernel
from .upgrade_infer import Site


def _list_of(items: list[cst.BaseExpression]) -> cst.List:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return cst.List([cst.Element(v, comma=comma if i < len(items) - 1 else cst.MaybeSentinel.DEFAULT)
                     for i, v in enumerate(items)])


def _padded(node: cst.List | cst.Tuple, lead: int) -> cst.List:
    return _list_of([cst.Integer("1")] * lead + [e.value for e in node.elements])


class SliceFullRank(Upgrade):
    """`pl.slice(t4, [R, C], [a, b, r, c])` in a kernel → `pl.slice(t4, [1, 1, R, C], [a, b, r, c],
    drop_dims=[0, 1])`, valid_shape padded the same way."""

    def scan(self, site: Site) -> None:
        if not in_kernel(site, self.info):
            return  # an orchestration tensor.slice still takes the short shape list
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
