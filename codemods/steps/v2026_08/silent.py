"""The three changes of 2026-08 that compile and compute something else: never left silent.

- numpy-style subscripts: `A[i, a:b]` kept the axis of `i` (size 1) at 2026-03 and drops it
  now; `i` becomes `i:i + 1`, so the old shape stays.
- `not x` on an integer scalar was bitwise at 2026-03 and is logical now; `~x` keeps the
  old value, and a marker asks whether the logical meaning was the intended one.
- a Tensor parameter a function writes must be `pl.Out` (written only) or `pl.InOut` (also
  read); left plain, an orchestration output is not copied back to the host (`outputs.py`).
"""

from __future__ import annotations

import libcst as cst

from ...model.values import SCALAR, TENSOR, TILE
from ...syntax.traversal import walk
from .base import Upgrade, after_2026_03, argument
from .infer import Site, is_int, number_variable, untabled
from ..registry import kind

SPACE = cst.SimpleWhitespace(" ")


@kind("upgrade-subscript-keep-rank")
class SubscriptKeepRank(Upgrade):
    """Only in files that still mean the old subscripts: a file written after pypto #1343 (a
    subscript with fewer indices than its value's rank, a subscript write whose value has the
    reduced rank) already means numpy's, and is left as it is."""

    def begin(self, ctx) -> None:
        self.numpy = None
        if _swimlane(ctx):
            self.numpy = True
        else:
            info = untabled(ctx.module, ctx.ops, self.api)
            self.numpy = any(_numpy_evidence(site, info) for site in info.sites)
        super().begin(ctx)

    def scan(self, site: Site) -> None:
        if self.numpy:
            return
        # A window reshaped at once means the same elements whichever rank it has: no edit.
        reshaped = {id(argument(call, 0, "input") or argument(call, 0, "tensor")) for call, _ in self.calls(site, "reshape")}
        for node in site.of(cst.Subscript):
            if len(node.slice) < 2 or id(node) in reshaped:
                continue
            items = [e.slice for e in node.slice]
            if not any(isinstance(i, cst.Slice) for i in items) or not any(isinstance(i, cst.Index) for i in items):
                continue
            base = self.info.type_of(node.value, site.env)
            if base.kind == SCALAR:
                continue
            if base.kind == TILE and not all(self._static(i.value) for i in items if isinstance(i, cst.Index)):
                # 2026-08: "Dynamic lower bounds are not supported in tile subscript": a slice op keeps the rank
                sliced = self._tile_slice(node, items, base)
                if sliced is None:
                    self.flag(site, f"`{self.text(node)}`: a scalar index now drops its axis, and a Tile subscript takes "
                                    "no dynamic start: write pl.slice(tile, shape, offsets) with the old shape")
                else:
                    self.rewrite(node, lambda new, e=sliced: e)
                continue
            hoisted: dict[int, str] = {}
            for k, item in enumerate(items):
                if not isinstance(item, cst.Index):
                    continue
                value = item.value
                if isinstance(value, cst.UnaryOperation) or (isinstance(value, cst.Integer) is False and not isinstance(value, cst.Name)):
                    if isinstance(site.statement, cst.While) or isinstance(value, cst.UnaryOperation):
                        self.flag(site, f"`{self.text(node)}`: a scalar index now drops its axis; write `e : e + 1` "
                                        "for each index `e` to keep the old shape")
                        break
                    # pypto#1377: a compound start does not fold to a static extent of 1
                    name = self.fresh(site, self.params.get("hoist", "idx"))
                    hoisted[k] = name
                    self.before(site, f"{name} = {self.text(value)}")
            else:
                self.rewrite(node, lambda new, h=hoisted: _keep_rank(new, h))

    def _static(self, value) -> bool:
        from .infer import number

        return number(self.text(value), self.info) is not None

    def _tile_slice(self, node, items, base):
        if base.shape is None or len(base.shape) != len(items):
            return None
        shape, offsets = [], []
        for item, dim in zip(items, base.shape):
            if isinstance(item, cst.Index):
                shape.append("1")
                offsets.append(self.text(item.value))
                continue
            if item.step is not None:
                return None
            lower = self.text(item.lower) if item.lower is not None else "0"
            upper = self.text(item.upper) if item.upper is not None else dim
            from .infer import number

            n = number(f"({upper}) - ({lower})", self.info)
            shape.append(upper if lower == "0" else str(n) if n is not None else f"{upper} - ({lower})")
            offsets.append(lower)
        return self.expr(f"pl.slice({self.text(node.value)}, [{', '.join(shape)}], [{', '.join(offsets)}])")


# RunConfig's `enable_l2_swimlane` arrived in pypto #1358 (2026-05-13), `enable_chip_swimlane` in #2400:
# pypto-lib took the first up on 2026-05-14, the day #1343 changed subscripts, and spelled its old
# subscripts out by hand the day after. A file that names either was written for numpy's subscripts.
SWIMLANE = ("enable_l2_swimlane", "enable_chip_swimlane")


def _swimlane(ctx) -> bool:
    if ctx.text is not None and not any(word in ctx.text for word in SWIMLANE):
        return False  # the words are not in the file: no walk
    return any((isinstance(n, cst.Arg) and n.keyword is not None and n.keyword.value in SWIMLANE)
               or (isinstance(n, cst.Attribute) and n.attr.value in SWIMLANE) for n in walk(ctx.module))


def _numpy_evidence(site: Site, info) -> bool:
    for node in site.of(cst.Subscript):
        base = info.type_of(node.value, site.env)
        if base.kind not in (TENSOR, TILE) or not base.shape:
            continue
        items = [e.slice for e in node.slice]
        if len(items) < len(base.shape):
            return True  # a partial subscript was an error before #1343
    statement = site.statement
    if isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Assign):
        small = statement.body[0]
        target = small.targets[0].target
        if isinstance(target, cst.Subscript):
            base = info.type_of(target.value, site.env)
            value = info.type_of(small.value, site.env)
            dropped = sum(1 for e in target.slice if isinstance(e.slice, cst.Index))
            if base.shape and value.shape and dropped and len(value.shape) == len(base.shape) - dropped:
                return True  # the value has the reduced rank: written for numpy-style windows
            if base.shape and value.shape and len(value.shape) > len(base.shape):
                # typed with the old subscripts, the value has more axes than the tensor it is
                # written into: its scalar-indexed sources were meant to drop theirs
                return True
    return False


def _keep_rank(node: cst.Subscript, hoisted: dict[int, str]) -> cst.Subscript:
    elements = []
    for k, element in enumerate(node.slice):
        item = element.slice
        if isinstance(item, cst.Index):
            start = cst.Name(hoisted[k]) if k in hoisted else item.value
            stop = cst.BinaryOperation(start, cst.Add(whitespace_before=SPACE, whitespace_after=SPACE), cst.Integer("1"))
            if isinstance(start, cst.Integer):
                stop = cst.Integer(str(int(start.value, 0) + 1))
                colon = cst.Colon()
            else:
                colon = cst.Colon(whitespace_before=SPACE, whitespace_after=SPACE)
            item = cst.Slice(lower=start, upper=stop, first_colon=colon)
        elements.append(element.with_changes(slice=item))
    return node.with_changes(slice=elements)


@kind("upgrade-logical-not")
class LogicalNot(Upgrade):
    """Only in files written for 2026-03 (c39): one that names anything c39 did not have
    (`pl.at`, `pl.jit`, ...) was written after pypto #492 and already means the logical not."""

    def begin(self, ctx) -> None:
        self.later = after_2026_03(ctx)
        super().begin(ctx)

    def scan(self, site: Site) -> None:
        if self.later:
            return
        for node in site.of(cst.UnaryOperation):
            if type(node.operator) is not cst.Not:
                continue
            operand = self.info.type_of(node.expression, site.env)
            if operand.kind == SCALAR and operand.dtype == "const":
                operand = number_variable(self.info, node.expression, site) or operand
            if operand.kind == SCALAR and operand.dtype in ("BOOL", "const"):
                continue  # a 1-bit value: bitwise and logical not agree; constants Python folds
            what = self.text(node.expression)
            if is_int(operand):
                self.rewrite(node, _bitwise)
                self.flag(site, f"`not {what}` was a bitwise not of the {operand.dtype} `{what}` and is logical now; "
                                f"kept bitwise as `~`; if a logical test was meant, write `{what} == 0`")
            else:
                self.flag(site, f"`not {what}`: at 2026-03 `not` of an integer scalar was bitwise (now logical); the "
                                f"type of `{what}` is not known here: use `~` for bitwise or compare with 0")


def _bitwise(node: cst.UnaryOperation) -> cst.BaseExpression:
    operand = node.expression
    if isinstance(operand, (cst.BinaryOperation, cst.Comparison, cst.BooleanOperation)) and not operand.lpar:
        operand = operand.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(cst.BitInvert(), operand, lpar=node.lpar, rpar=node.rpar)
