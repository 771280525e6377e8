"""`pl.yield_` of a loop with `init_values` binds its results by assignment (pypto #1248).

Since 2026-05-02 the parser takes a loop's post-loop binding names from the left-hand side
of its `pl.yield_`, and refuses a bare `pl.yield_(...)` in a loop that carries values. At
2026-03 (measured on c39fe714a) the bare form was accepted and its results were unreachable
after the loop: the header names are local to the loop at both versions. Binding them to
fresh names the function does not use keeps that meaning exactly.

A later read of a header name after its loop is a program of the days between (when the
header name was the loop's result): where the name is bound nowhere else in the function,
those reads are renamed to the new binding; where it is, what the read meant is a person's
call, and the loop is flagged.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.traversal import walk
from .base import Upgrade, keyword
from .infer import Site
from ..registry import kind

LOOPS = ("range", "parallel", "while_")


@kind("upgrade-yield-binding")
class YieldBinding(Upgrade):
    def begin(self, ctx) -> None:
        self._renamed: dict[cst.FunctionDef, dict[str, str]] = {}
        super().begin(ctx)

    def scan(self, site: Site) -> None:
        yielded = self._bare_yield(site.statement)
        if yielded is None or not site.parents:
            return
        loop = site.parents[-1]
        header = self._carried(loop)
        if header is None or not self._directly_in(site.statement, loop):
            return
        count = len([a for a in yielded.args if not a.star])
        names = header if len(header) == count else [f"result_{i}" for i in range(count)]
        fresh = [self.fresh(site, f"{n}_out") for n in names]
        target = ", ".join(fresh)
        self.rewrite(site.statement, lambda new, t=target: _assign(new, t))
        if len(header) == count:
            self._after_loop(site, loop, dict(zip(header, fresh)))

    # -- what the statement and its loop are ---------------------------------------------
    def _bare_yield(self, statement) -> cst.Call | None:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        expr = statement.body[0]
        if not isinstance(expr, cst.Expr) or not self._is_pl(expr.value, ("yield_",)):
            return None
        return expr.value

    def _is_pl(self, node, names) -> bool:
        # the op index resolves the module however the file names it (aliases, from-imports)
        return (self.info.op(node) or "").rpartition(".")[2] in names

    def _carried(self, loop) -> list[str] | None:
        """The names a loop with `init_values` carries, in order; None for any other loop."""
        if not isinstance(loop, cst.For) or not self._is_pl(loop.iter, LOOPS) or keyword(loop.iter, "init_values") is None:
            return None
        target = loop.target
        if self.info.op(loop.iter).rpartition(".")[2] != "while_":
            # `for i, (a, b) in pl.range(...)`: the carried names are the tuple after the index
            if not isinstance(target, cst.Tuple) or len(target.elements) != 2:
                return []
            target = target.elements[1].value
        if not isinstance(target, cst.Tuple):
            return []
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        return names if len(names) == len(target.elements) else []

    @staticmethod
    def _directly_in(statement, loop: cst.For) -> bool:
        body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
        return any(s is statement for s in body)

    # -- reads after the loop ------------------------------------------------------------
    def _after_loop(self, site: Site, loop: cst.For, renames: dict[str, str]) -> None:
        inside = {id(n) for n in walk(loop)}
        reads = [n for n in walk(site.function) if isinstance(n, cst.Name) and n.value in renames and id(n) not in inside]
        if not reads:
            return
        bound_elsewhere = {n.value for n in _bound_names(site.function, inside)}
        for read in reads:
            name = read.value
            if name in bound_elsewhere:
                self.ctx.flag_at(self.rule, loop, f"`{name}` is read after this loop: before pypto #1248 it was the "
                                 f"loop's result, now it is the `{name}` bound before the loop; write `{renames[name]}` "
                                 "for the result, or keep it for the earlier value")
                continue
            self.rewrite(read, lambda new, to=renames[name]: new.with_changes(value=to))


def _bound_names(function: cst.FunctionDef, skip: set[int]) -> list[cst.Name]:
    """The names a function binds outside the given subtree: parameters, assignment and loop targets."""
    bound: list[cst.Name] = [p.name for p in function.params.params]
    for node in walk(function.body):
        if id(node) in skip:
            continue
        targets = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets = [node.target]
        elif isinstance(node, cst.For):
            targets = [node.target]
        for t in targets:
            bound.extend(n for n in walk(t) if isinstance(n, cst.Name))
    return bound


def _assign(statement: cst.SimpleStatementLine, target: str) -> cst.SimpleStatementLine:
    call = statement.body[0].value
    names = [cst.Name(n.strip()) for n in target.split(",")]
    left = names[0] if len(names) == 1 else cst.Tuple([cst.Element(n) for n in names], lpar=[], rpar=[])
    return statement.with_changes(body=[cst.Assign([cst.AssignTarget(left)], call)])
