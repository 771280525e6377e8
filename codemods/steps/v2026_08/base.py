"""The frame of the version-upgrade rule kinds (`upgrade-*`): scan, decide, rewrite, flag.

A kind looks at every statement of every pl function once (`scan`, with the types known
before the statement, see `upgrade_infer`) and records decisions: a node of the input and
what it becomes (`self.rewrite`), statements to insert, lines to flag. The hooks below
carry the decisions out on the nodes as the traversal leaves them, so that several rules
may rewrite nested nodes of one statement.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ...model.kernels import KERNEL_TYPES
from ...rulebook.loading import ApiTable, Rule
from ...syntax.nodes import code
from ...syntax.memo import cached
from ...syntax.traversal import own_and_nested, walk
from .infer import Module, Site, infer

Rewrite = Callable[[cst.CSTNode], cst.CSTNode]


class Upgrade:
    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule, self.api = rule, api
        self.params = rule.params

    def begin(self, ctx) -> None:
        self.ctx = ctx
        self.info: Module = infer(ctx.module, ctx.ops, self.api)
        # id(node) -> (node, how): identity is what is meant, and the hooks ask at every node
        # they leave (a node's own __hash__ is a Python call)
        self.decisions: dict[int, tuple[cst.CSTNode, Rewrite]] = {}
        self._names: dict[cst.FunctionDef, set[str]] = {}
        for site in self.info.sites:
            self.scan(site)

    def scan(self, site: Site) -> None:
        raise NotImplementedError

    def interest(self, ctx):
        return [node for node, _ in self.decisions.values()]

    def idle(self) -> bool:
        """Nothing decided: each hook would return None at every node (the engine then hooks none
        of them; of thirty such kinds most rewrite nothing in a file, and each was asked at every node)."""
        return not getattr(self, "decisions", True)

    def sites_by_function(self) -> dict[cst.FunctionDef, list[Site]]:
        """Each pl function's statements, in order: what kinds that reason about a whole body read."""
        return {func: self.info.sites_of(func) for func in self.info.functions if self.info.sites_of(func)}

    # -- decisions -----------------------------------------------------------------------
    def rewrite(self, node: cst.CSTNode, how: Rewrite) -> None:
        self.decisions[id(node)] = (node, how)

    def flag(self, site: Site, message: str) -> None:
        self.ctx.flag_at(self.rule, site.statement, message)

    def before(self, site: Site, text: str) -> None:
        self.ctx.insert(self.rule, "before", site.statement, text)

    def pl(self, text: str) -> str:
        """Generated code names the module as the file does."""
        return text.replace("pl.", self.info.alias + ".") if self.info.alias != "pl" else text

    def expr(self, text: str) -> cst.BaseExpression:
        return cst.parse_expression(self.pl(text))

    def fresh(self, site: Site, base: str) -> str:
        """A name the function does not use yet (and will not, once given out)."""
        used = self._names.get(site.function)
        if used is None:
            used = self._names[site.function] = set(names_in(site.function))
        name, n = base, 2
        while name in used:
            name, n = f"{base}_{n}", n + 1
        used.add(name)
        return name

    def calls(self, site: Site, *names: str):
        """The calls of the statement (outside nested statements) to `pl.<name>` or `pl.<ns>.<name>`,
        in order (read only)."""
        found = [entries for name in names if (entries := site.calls_named(name))]
        if not found:
            return ()
        if len(found) == 1:
            return found[0]
        return [(node, op) for node, op in site.calls if op.rpartition(".")[2] in names]

    @staticmethod
    def text(node) -> str:
        return code(node)

    # -- hooks ---------------------------------------------------------------------------
    def _leave(self, original, updated, ctx):
        hit = self.decisions.get(id(original))
        return hit[1](updated) if hit is not None else None

    leave_Call = leave_Subscript = leave_UnaryOperation = leave_Annotation = leave_Name = _leave
    leave_If = leave_While = leave_With = leave_For = leave_SimpleStatementLine = leave_Assign = _leave
    leave_Integer = leave_Comparison = leave_BinaryOperation = leave_Attribute = leave_SubscriptElement = _leave


def names_in(node) -> frozenset[str]:
    """The names a subtree uses: asked by every kind that makes up a name, once per function.
    Kept per statement for the file, so that a function a phase rewrote in part takes the
    names of the statements it kept from the tree before."""
    return cached("names-in", node, _names_in)


def _names_in(node) -> frozenset[str]:
    own, nested = own_and_nested(node)
    names = {n.value for n in own if type(n) is cst.Name}
    for statement in nested:
        names |= names_in(statement)
    return frozenset(names)


def binding(statement) -> tuple[str | None, cst.BaseExpression | None]:
    """`x = value` or `x: T = value` alone on its line: (x, value); else (None, None)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None, None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        return small.target.value, small.value
    return None, None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def argument(call: cst.Call, index: int, name: str) -> cst.BaseExpression | None:
    kw = keyword(call, name)
    if kw is not None:
        return kw.value
    pos = positional(call)
    return pos[index].value if index < len(pos) else None


def append_arg(call: cst.Call, value: cst.BaseExpression) -> cst.Call:
    """`f(a, b)` -> `f(a, b, value)`, before any keyword argument."""
    args = list(call.args)
    at = next((i for i, a in enumerate(args) if a.keyword is not None or a.star), len(args))
    new = cst.Arg(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if at < len(args) else cst.MaybeSentinel.DEFAULT)
    if at > 0:
        prev = args[at - 1]
        if not isinstance(prev.comma, cst.Comma):
            args[at - 1] = prev.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.insert(at, new)
    return call.with_changes(args=args)


def after_2026_03(ctx) -> bool:
    """Does the file name anything pypto c39fe714a (2026-03-09) did not have (`pl.at`, `pl.jit`),
    or call an op with a keyword or more arguments than c39's signature took and a later one's
    takes (`pl.tile.slice(..., valid_shape=)`)? Then it was written later, after the meaning of
    `not` changed (pypto #492, 2026-03-16): the evidence the chain reads (`rulebook.evidence`)."""
    from ...syntax.memo import cached

    ops = ctx.ops
    return cached("after_2026_03", ctx.module, lambda _: _written_after_c39(ops))


def _written_after_c39(ops) -> bool:
    from ...rulebook.evidence import later_signature, later_tables
    from ...rulebook.loading import load_api

    old = load_api(None, "2026-03")
    if any(not old.exists(op) for op in set(ops.values()) if op):
        return True
    later = later_tables("2026-03")
    for node, op in ops.items():
        if type(node) is not cst.Call or not op:
            continue
        positional = sum(1 for a in node.args if a.keyword is None and not a.star)
        if later_signature(op, old, later, arity=positional) or any(
                a.keyword is not None and later_signature(op, old, later, keyword=a.keyword.value) for a in node.args):
            return True
    return False


MIN_L0_DIM = 16  # the cube's smallest tile side on 910B: AutoTileMatmulL0 leaves a smaller M untouched


def in_kernel(site: Site, info) -> bool:
    """Inside a kernel scope, where a tensor-level op is lowered to its tile op (2026-08). An
    `auto_incore` scope counts too: the same step turns its chunked loops into `pl.at` kernels,
    and a flag missed before that rewrite would appear on a second run."""
    if site.ftype in KERNEL_TYPES:
        return True
    return any(kernel_scope(p, info) for p in site.parents)


KERNEL_SCOPES = ("at", "incore", "auto_incore")


def kernel_scope(node, info) -> bool:
    """`with pl.at(...)`, `pl.incore()`, `pl.auto_incore()`: a scope whose body is (or becomes) a kernel."""
    return type(node) is cst.With and any((info.op(i.item) or "").rpartition(".")[2] in KERNEL_SCOPES
                                              for i in node.items)


def decorated_as(func: cst.FunctionDef, info, op: str) -> bool:
    """Is `func` decorated with the DSL's `op` (`"jit"`, `"jit.inline"`), bare or called (`@pl.jit(...)`)?"""
    for d in func.decorators:
        target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if info.ops.get(target) == op:
            return True
    return False
