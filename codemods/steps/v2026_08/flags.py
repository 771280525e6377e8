"""Changes of the 2026-08 step that only a person can migrate: the line is flagged (and at most a
keyword the parser refuses dropped).

`upgrade-flag` flags calls of the ops its record names (`ops`, by full name or last part),
optionally only where a keyword is passed (`keywords`), names one of some members (`values`),
or a number of positional arguments (`positional`); `upgrade-tensor-layout` flags `pl.Tensor[..., pl.DN]` / `pl.NZ` annotations;
`keyword-drop` drops a keyword the op no longer takes and flags it unless it said nothing.
The message is the record's, with `{op}` and `{keyword}` filled in.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import code
from .base import Upgrade, after_2026_03, argument, keyword, positional
from .infer import Site
from ..registry import kind


@kind("upgrade-flag")
class UpgradeFlag(Upgrade):
    flags_only = True
    quiet = False  # see `only_c39`

    def begin(self, ctx) -> None:
        self.ops = tuple(self.params.get("ops", ()))
        self.keywords = tuple(self.params.get("keywords", ()))
        self.positional = self.params.get("positional")
        self.message = self.params.get("message", "")
        self._names_seen: set[str] = set()
        # `only_c39 = true`: a question only about code written for c39 (what its codegen did);
        # a file that names anything c39 lacked was written later and means today's default.
        self.quiet = bool(self.params.get("only_c39")) and after_2026_03(ctx)
        super().begin(ctx)
        if self.params.get("names"):
            self._names(ctx)

    def scan(self, site: Site) -> None:
        if self.quiet:
            return
        for node, op in site.calls:
            if not (op in self.ops or op.rpartition(".")[2] in self.ops):
                continue
            used = [k for k in self.keywords if keyword(node, k) is not None]
            if self.keywords and not used:
                continue
            if self.positional is not None and len(positional(node)) != self.positional:
                continue
            if any(keyword(node, k) is not None for k in self.params.get("absent", ())):
                continue
            if not self._values_match(node):
                continue
            self.flag(site, self.message.format(op=op, keyword=used[0] if used else ""))

    def _values_match(self, node) -> bool:
        """`values = {keyword = [member, ...]}`: only where the keyword names one of the members."""
        for name, members in self.params.get("values", {}).items():
            given = keyword(node, name)
            if given is None or not (isinstance(given.value, cst.Attribute) and given.value.attr.value in members):
                return False
        return True

    def _names(self, ctx) -> None:
        """Members used anywhere (annotations too): flagged at their statement."""
        wanted = set(self.params["names"])
        for site in self.info.sites:
            for node in site.of(cst.Attribute):
                if self.info.ops.get(node) in wanted:
                    self.flag(site, self.message.format(op=self.info.ops[node], keyword=""))
                    break
        for func in self.info.functions:
            for param in [*func.params.params, *func.params.kwonly_params]:
                if param.annotation is not None and self._mentions(param.annotation, wanted):
                    ctx.flag_at(self.rule, func, self.message.format(op=", ".join(sorted(wanted)), keyword="")
                                + f" (parameter `{param.name.value}`)")

    def _mentions(self, node, wanted) -> bool:
        from ...syntax.traversal import walk

        return any(isinstance(n, cst.Attribute) and self.info.ops.get(n) in wanted for n in walk(node))


@kind("upgrade-tensor-layout")
class TensorLayout(Upgrade):
    """`pl.Tensor[[...], dtype, pl.DN]` (removed) or `pl.NZ` (tile-only now)."""

    flags_only = True

    def begin(self, ctx) -> None:
        super().begin(ctx)
        message = self.params.get("message", "")
        for func in self.info.functions:
            for param in [*func.params.params, *func.params.kwonly_params]:
                layout = param.annotation and self._layout(param.annotation.annotation)
                if layout:
                    ctx.flag_at(self.rule, func, message.format(layout=layout, name=param.name.value))
        for site in self.info.sites:
            for node in site.of(cst.Annotation):
                layout = self._layout(node.annotation)
                if layout:
                    self.flag(site, message.format(layout=layout, name=self.text(site.statement).split(":")[0].strip()))

    def scan(self, site: Site) -> None:
        pass

    def _layout(self, node) -> str | None:
        if not isinstance(node, cst.Subscript):
            return None
        head = self.info.ops.get(node.value)
        elements = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
        if head in ("Out", "InOut") and elements:
            return self._layout(elements[0])
        if head != "Tensor":
            return None
        wanted = tuple(self.params.get("layouts", ("DN", "NZ")))
        for e in elements[2:]:
            layout = (self.info.ops.get(e) or "").rpartition(".")[2]
            if layout in wanted:
                return layout
        return None


@kind("keyword-drop")
class DropKeyword(Upgrade):
    """A keyword the 2026-08 op no longer takes and whose meaning now follows from the code around
    it (`pl.create_tensor(..., valid_shape=V)`): the keyword is dropped so the call parses. Where V
    is the argument `same_as` names (the whole shape), nothing was said and nothing is lost;
    otherwise the line is flagged with what a person must check."""

    def begin(self, ctx) -> None:
        self.ops = tuple(self.params.get("ops", ()))
        self.name = self.params.get("keyword", "")
        self.same_as = self.params.get("same_as")
        self.message = self.params.get("message", "")
        super().begin(ctx)

    def scan(self, site: Site) -> None:
        for node, op in site.calls:
            if not (op in self.ops or op.rpartition(".")[2] in self.ops):
                continue
            arg = keyword(node, self.name)
            if arg is None:
                continue
            self.rewrite(node, lambda n, name=self.name: _without(n, name))
            whole = argument(node, *self.same_as) if self.same_as else None
            if whole is None or _spelled(whole) != _spelled(arg.value):
                self.flag(site, self.message.format(op=op, value=self.text(arg.value)))


def _without(call: cst.Call, name: str) -> cst.Call:
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if len(args) < len(call.args) and args:
        dropped = next(a for a in call.args if a.keyword is not None and a.keyword.value == name)
        args[-1] = args[-1].with_changes(comma=dropped.comma) if call.args[-1] is dropped else args[-1]
    return call.with_changes(args=args)


def _spelled(node) -> str:
    return "".join(code(node).split())
