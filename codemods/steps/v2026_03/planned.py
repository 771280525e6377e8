"""Type-directed rule kinds: each applies its share of the file's migration plan.

The planner (`codemods.migrate.planner`) decides, once per file, what the strict API demands; a
rule here turns its decisions into code with the templates of its TOML record, and
registers the statements it inserts and the lines it flags. Unselected rules leave their
share undone, which `check` then reports.
"""

from __future__ import annotations

import re

import libcst as cst

from ...rulebook.pattern import compile_call, match_call, render_call, render_template
from ...rulebook.loading import ApiTable, Rule, RuleFileError
from ..registry import kind


@kind("diagnostic")
class Planned:
    """Flags and statement edits of one plan share; subclasses add the call rewrites."""

    templates: tuple[str, ...] = ()

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule = rule
        # The planner files its decisions under the rule kind's name; a diagnostic names its share.
        self.share = rule.params.get("plan", rule.kind)
        if self.share == "diagnostic":
            raise RuleFileError(f"{rule.path}: a diagnostic rule names the plan share it reports (params.plan)")
        missing = [t for t in self.templates if t not in rule.params]
        if missing:
            raise RuleFileError(f"{rule.path}: params needs {', '.join(missing)}")
        self.t = {name: rule.params[name] for name in self.templates}

    def begin(self, ctx) -> None:
        plan = ctx.plan()
        self.plan = plan
        self.decisions = plan.of(self.share)
        self.receiver = cst.parse_expression(plan.alias)
        for edit in plan.statements:
            if edit.rule == self.share:
                ctx.insert(self.rule, edit.where, edit.node, _realias(edit.code, plan.alias))
        for rule, node, message in plan.flags:
            if rule == self.share:
                ctx.flag_at(self.rule, node, message)

    def interest(self, ctx):
        """The nodes its share of the plan decided about (its statement edits and flags are
        the engine's own to place)."""
        return self.decisions.keys()

    def fill(self, template: str, **bound) -> cst.BaseExpression:
        return render_template(template, bound, self.receiver)

    @staticmethod
    def call(text: str):
        return compile_call(text)  # cached: templates are parsed once per process


def _realias(text: str, alias: str) -> str:
    return text if alias == "pl" else re.sub(r"(?<![\w.])pl\.", alias + ".", text)


def _args(call: cst.Call) -> tuple[list[cst.BaseExpression], dict[str, cst.BaseExpression]]:
    pos = [a.value for a in call.args if a.keyword is None and not a.star]
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    return pos, kw


@kind("slice-to-load")
class SliceToLoad(Planned):
    templates = ("match", "replace", "match_valid", "replace_valid", "reduce_rank", "fold", "fold_cast", "subscript")

    def leave_Subscript(self, original, updated, ctx):
        decision = self.decisions.get(original)
        if decision is None or decision[0] != "subscript":
            return None
        _, space, offset, shape = decision
        return self.fill(self.t["subscript"].format(offset=offset, shape=shape, space=space), src=updated.value)

    def leave_Call(self, original, updated, ctx):
        decision = self.decisions.get(original)
        if decision is None:
            return None
        if decision[0] == "fold":  # a slice of a slice: one load from the root at the summed offset
            _, space, root, offset, cast = decision
            pos, _ = _args(updated)
            fields = {"root": root, "offset": offset, "space": space, "dtype": cast}
            return self.fill(self.t["fold_cast" if cast else "fold"].format(**fields), shape=pos[1])
        space, lead, extent = decision
        has_valid = any(a.keyword is not None and a.keyword.value == "valid_shape" for a in updated.args)
        suffix = "_valid" if has_valid else ""
        bound = match_call(self.call(self.t["match" + suffix]), updated)
        if bound is None:
            return None
        if extent is not None:  # a runtime extent: the tile at its bound, the extent its valid shape
            bound["valid"] = bound["shape"]
            bound["shape"] = bound["shape"].with_changes(value=_bounded(bound["shape"].value, extent[0]))
            suffix = "_valid"
        shape = bound["shape"]
        if lead:
            bound["shape"] = shape.with_changes(value=_lead_ones(shape.value, lead))
            if has_valid:
                bound["valid"] = bound["valid"].with_changes(value=_lead_ones(bound["valid"].value, lead))
        load = render_call(self.call(self.t["replace" + suffix].format(space=space)), bound, updated, self.receiver)
        if lead:
            return self.fill(self.t["reduce_rank"], load=load, shape=shape.value)
        return load


def _bounded(shape, bounds) -> cst.List:
    """The shape list with each runtime element replaced by its constant bound (axis, text)."""
    elements = list(shape.elements)
    for axis, text in bounds:
        elements[axis] = elements[axis].with_changes(value=cst.parse_expression(text))
    return cst.List(elements)


@kind("assemble-to-store")
class AssembleToStore(Planned):
    templates = ("match", "replace", "store_reshaped", "store_valid")

    def leave_Call(self, original, updated, ctx):
        if original not in self.decisions:
            return None
        bound = match_call(self.call(self.t["match"]), updated)
        if bound is None:
            return None
        reshape = self.decisions[original]
        if isinstance(reshape, tuple):  # ("valid", shape, offsets): only the piece's valid region is stored
            values = {k: v.value for k, v in bound.items()}
            return self.fill(self.t["store_valid"].format(shape=reshape[1], offsets=reshape[2]), **values)
        if reshape:
            values = {k: v.value for k, v in bound.items()}
            return self.fill(self.t["store_reshaped"].format(shape=reshape), **values)
        return render_call(self.call(self.t["replace"]), bound, updated, self.receiver)


class _CallRewrite(Planned):
    """A plan decision carried out by the first of the rule's (match, replace) pairs that fits."""

    templates = ("rewrites",)

    def leave_Call(self, original, updated, ctx):
        if original not in self.decisions:
            return None
        for match, replace in self.t["rewrites"]:
            bound = match_call(self.call(match), updated)
            if bound is not None:
                return render_call(self.call(replace.format(**self.fields(original))), bound, updated, self.receiver)
        return None

    def fields(self, original) -> dict:
        return {}


@kind("accumulator-to-tile")
class AccumulatorToTile(_CallRewrite):
    pass


@kind("drop-valid-shape")
class DropValidShape(_CallRewrite):
    pass


@kind("kernel-scalar-read")
class KernelScalarRead(_CallRewrite):
    def fields(self, original) -> dict:
        return {"tile": self.decisions[original] or ""}

    def leave_Call(self, original, updated, ctx):
        if original not in self.decisions:
            return None
        if self.decisions[original] is None:  # already a Tile: only the op changes
            pos, _ = _args(updated)
            return self.fill(self.t["rewrites"][1][1], tile=pos[0], index=pos[1])
        return super().leave_Call(original, updated, ctx)


@kind("matmul-operands")
class MatmulOperands(Planned):
    templates = ("from_mat", "from_vec", "from_mat_transposed", "from_vec_transposed")

    def leave_Call(self, original, updated, ctx):
        decision = self.decisions.get(original)
        if decision is None:
            return None
        hows, drop, *to = decision  # hows: (positional index, memory space, how it gets there)
        args = [a for a in updated.args if a.keyword is None or a.keyword.value not in drop]
        if len(args) < len(updated.args):
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        positional = [i for i, a in enumerate(args) if a.keyword is None]
        for index, side, how in hows:
            if index >= len(positional):
                continue
            at = positional[index]
            value = args[at].value
            if how.endswith(("-t", "-T")):
                if how.endswith("-t"):
                    value = value.args[0].value  # the operand of pl.transpose: the move transposes
                key = "from_mat_transposed" if how.startswith("mat") else "from_vec_transposed"
            else:
                key = "from_mat" if how == "mat" else "from_vec"
            args[at] = args[at].with_changes(value=self.fill(self.t[key].format(side=side), x=value))
        result = updated.with_changes(args=args)
        if to:  # the result leaves Acc for a vector op
            result = self.fill(self.t["from_mat"].format(side=to[0]), x=result)
        return result


@kind("tile-reduction-scratch")
class TileReductionScratch(Planned):
    def leave_Call(self, original, updated, ctx):
        name = self.decisions.get(original)
        if name is None:
            return None
        args = list(updated.args)
        last = args[-1]
        comma = last.comma if isinstance(last.comma, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        args[-1] = last.with_changes(comma=comma)
        args.append(cst.Arg(cst.Name(name)))
        return updated.with_changes(args=args)


@kind("tensor-operand-load")
class TensorOperandLoad(Planned):
    def leave_Name(self, original, updated, ctx):
        tile = self.decisions.get(original)
        return updated.with_changes(value=tile) if tile else None


@kind("hoist-tile-shape")
class HoistTileShape(Planned):
    def leave_BinaryOperation(self, original, updated, ctx):
        name = self.decisions.get(original)
        return cst.Name(name) if name else None


@kind("unique-tile-names")
class UniqueTileNames(Planned):
    def leave_Name(self, original, updated, ctx):
        name = self.decisions.get(original)
        return updated.with_changes(value=name) if name else None


@kind("handoff-buffer")
class HandoffBuffer(Planned):
    templates = ("store_piece", "store_whole")

    def leave_Assign(self, original, updated, ctx):
        decision = self.decisions.get(original)
        if decision is None:
            return None
        if decision[0] == "whole":
            _, offset, tensor = decision
            return updated.with_changes(value=self.fill(self.t["store_whole"].format(offset=offset, tensor=tensor), value=updated.value))
        if decision[0] == "whole-piece":
            _, buffer, offset, shape, init = decision
            first = updated.value.args[0].with_changes(value=cst.Name(init))
            piece = updated.value.with_changes(args=[first, *updated.value.args[1:]])
            value = self.fill(self.t["store_piece"].format(buffer=buffer, offset=offset, shape=shape), piece=piece)
            return updated.with_changes(targets=[updated.targets[0].with_changes(target=cst.Name(buffer))], value=value)
        buffer, offset, shape = decision
        piece = updated.value.args[1].value
        value = self.fill(self.t["store_piece"].format(buffer=buffer, offset=offset, shape=shape), piece=piece)
        target = updated.targets[0].with_changes(target=cst.Name(buffer))
        return updated.with_changes(targets=[target], value=value)


@kind("namespaced-tile-op")
class NamespacedTileOp(Planned):
    """`pl.tensor.X(tile, ...)` → `pl.X(tile, ...)` (or `pl.tile.X`): the op the planner chose from the API table."""

    def leave_Attribute(self, original, updated, ctx):
        name = self.decisions.get(original)
        if name is None:
            return None
        return cst.parse_expression(f"{self.plan.alias}.{name}")


@kind("retype-annotation")
class RetypeAnnotation(Planned):
    """`x: pl.Tensor[S, D] = v` where `v` became a Tile: the annotation says Tile, with the same S and D."""

    templates = ("tile",)

    def leave_Annotation(self, original, updated, ctx):
        decision = self.decisions.get(original)
        if decision is None:
            return None
        if decision[0] == "exact":  # the annotation disagreed with the value: written from the value's type
            _, kind, shape_text, dtype = decision
            template = self.t["tile"] if kind == "Tile" else self.rule.params.get("tensor", "pl.Tensor[$shape, $dtype]")
            return updated.with_changes(annotation=self.fill(template, shape=cst.parse_expression(shape_text),
                                                             dtype=cst.parse_expression(f"pl.{dtype}")))
        shape_text, dtype = decision
        written = updated.annotation
        elements = [e.slice.value for e in written.slice if isinstance(e.slice, cst.Index)] if isinstance(written, cst.Subscript) else []
        # The annotation's own shape and dtype, as the author wrote them, where it has them.
        shape = elements[0] if elements else cst.parse_expression(shape_text)
        kind = elements[1] if len(elements) > 1 else cst.parse_expression(f"pl.{dtype}")
        return updated.with_changes(annotation=self.fill(self.t["tile"], shape=shape, dtype=kind))


def _lead_ones(node: cst.BaseExpression, lead: int) -> cst.BaseExpression:
    if not lead or not isinstance(node, cst.List):
        return node
    ones = [cst.Element(cst.Integer("1"), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for _ in range(lead)]
    return node.with_changes(elements=[*ones, *node.elements])
