"""Rule kinds about the module's names rather than one call: a member renamed wholesale
(`pl.block` became `pl.tile`), and names the target does not have at all."""

from __future__ import annotations

import libcst as cst

from ...rulebook.evidence import later_tables
from ...rulebook.loading import ApiTable, Rule, RuleFileError
from ...model.aliases import scope_of
from ...model.kernels import module_alias
from ...syntax.nodes import code
from ...syntax.traversal import imports, statements_below, walk
from ..registry import kind


@kind("member-rename")
class MemberRename:
    """`pl.OLD` → `pl.NEW` wherever the module is meant, and `from pypto.language import OLD`
    → `... import NEW as OLD-or-its-alias`, so the names the file uses keep working."""

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule, self.api = rule, api
        renames = rule.params.get("renames")
        if not isinstance(renames, dict) or not renames:
            raise RuleFileError(f"{rule.path}: params.renames must map old member names to new ones")
        self.renames: dict[str, str] = renames
        self.advice: str = rule.params.get("missing", "")

    def interest(self, ctx):
        """References to a renamed member (`pl.block`, `pl.block.adds(...)`), and the imports."""
        return [*(node for node, op in ctx.ops.items() if op.partition(".")[0] in self.renames), *imports(ctx.module)]

    def leave_Attribute(self, original, updated, ctx):
        new = self.renames.get(ctx.op_of(original) or "")
        if new is None or original in self.keep:
            return None
        return updated.with_changes(attr=cst.Name(new))

    def begin(self, ctx) -> None:
        # `pl.block` in front of an op `pl.tile` lacks stays as written, next to its marker.
        self.keep: set[cst.CSTNode] = set()
        for node, op in ctx.ops.items():
            old, _, member = op.partition(".")
            if isinstance(node, cst.Call) and old in self.renames and member and isinstance(node.func, cst.Attribute):
                if not self.api.exists(f"{self.renames[old]}.{member}"):
                    self.keep.add(node.func.value)
        bound = [name for name, targets in scope_of(ctx.module).items() if targets == {self.api.module}]
        self.has_alias = bool(bound)
        self.alias = module_alias(ctx.ops) if module_alias(ctx.ops) in bound else (bound[0] if bound else "pl")

    def leave_Call(self, original, updated, ctx):
        op = ctx.op_of(original) or ""
        old, _, member = op.partition(".")
        new = self.renames.get(old)
        if new is None or not member or "." in member:
            return None
        if not self.api.exists(f"{new}.{member}"):
            ctx.flag(self.rule, original, self.advice.format(old=old, new=new, member=member))
            return None
        func = original.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Attribute) and ctx.op_of(func.value) == old:
            return None  # `pl.block.X`: the attribute hook renames it in place
        # The parser reads only `pl.tile.X`, never an alias bound to the namespace
        # (`Unsupported operation call: pl_block.adds`): spell the call out through the module.
        if not self.has_alias:
            ctx.flag(self.rule, original, f"write this call as pl.{new}.{member}(...) with `import {self.api.module} as pl`: "
                     f"the parser does not read a namespace bound by name")
            return None
        path = cst.parse_expression(f"{self.alias}.{new}.{member}")
        return updated.with_changes(func=path)

    def leave_ImportFrom(self, original, updated, ctx):
        if original.relative or original.module is None or code(original.module) != self.api.module:
            return None
        if isinstance(updated.names, cst.ImportStar):
            return None
        names, changed = [], False
        for alias in updated.names:
            old = alias.name.value if isinstance(alias.name, cst.Name) else None
            new = self.renames.get(old or "")
            if new is None:
                names.append(alias)
                continue
            changed = True
            # Keep the name the file binds: `import block` becomes `import tile as block`.
            asname = alias.asname or cst.AsName(name=cst.Name(old))
            names.append(alias.with_changes(name=cst.Name(new), asname=asname))
        return updated.with_changes(names=names) if changed else None

    def leave_Import(self, original, updated, ctx):
        for alias in original.names:
            parts = code(alias.name).split(".")
            head = self.api.module.split(".")
            if parts[: len(head)] == head and len(parts) > len(head) and parts[len(head)] in self.renames:
                new = self.renames[parts[len(head)]]
                ctx.flag(self.rule, original, f"{code(alias.name)} is gone and {self.api.module}.{new} is not a module: "
                         f"write `from {self.api.module} import {new}` and use its members")
        return None


@kind("unknown-member")
class UnknownMember:
    """A call of `pl.X` where the target has no X: the parser stops there
    (`Unknown tile operation: X`), so a person must say what X becomes."""

    flags_only = True  # nothing mechanical replaces such a name

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule, self.api = rule, api
        self.advice: dict[str, str] = rule.params.get("advice", {})
        self.default: str = rule.params.get("default", "")
        if not self.default:
            raise RuleFileError(f"{rule.path}: params.default is the message for a name without advice")

    def interest(self, ctx):
        return [*(node for node, op in ctx.ops.items()
                  if type(node) is cst.Call and (self._unknown(op) or self._newer_keyword(op, node))),
                *self._newer_decorators(ctx), *self._subscript_stores(ctx)]

    def _subscript_stores(self, ctx) -> list[cst.Assign]:
        """`out[r0:r1, :] = v` into a Tensor parameter, where the target has no such store and a
        later version has (its table's `subscript_store`)."""
        if self.api.subscript_store or _newer_store(self.api) is None:
            return []
        alias = module_alias(ctx.ops) or "pl"
        found = []
        for node in statements_below(ctx.module):
            if type(node) is not cst.FunctionDef or not node.decorators:
                continue
            tensors = {p.name.value for p in [*node.params.params, *node.params.kwonly_params]
                       if p.annotation is not None and code(p.annotation.annotation).startswith(
                           tuple(f"{alias}.{k}[" for k in ("Tensor", "Out", "InOut")))}
            found += [a for a in walk(node) if type(a) is cst.Assign and any(
                type(t.target) is cst.Subscript and type(t.target.value) is cst.Name and t.target.value.value in tensors
                for t in a.targets)]
        self._stores = set(map(id, found))
        return found

    def leave_Assign(self, original, updated, ctx):
        if id(original) in getattr(self, "_stores", ()):
            newer = _newer_store(self.api)
            ctx.flag(self.rule, original, f"a store by subscript (`{code(original.targets[0].target)} = ...`) is newer "
                                          f"than the target pypto {self.api.version} (pypto {newer.version} has it): "
                                          f"this code was written for a later pypto; run with --target {newer.step}, "
                                          "or without --target")
        return None

    def _newer_keyword(self, op: str | None, call: cst.Call) -> tuple[str, ApiTable] | None:
        """A keyword the target's signature of op lacks (where the table knows its parameters)
        and a later version's has: `pl.matmul_acc(..., b_trans=True)`, c39's took no transposes."""
        spec = self.api.ops.get(op or "")
        if spec is None or not spec.params or spec.kind == "removed":
            return None
        positional = [a for a in call.args if a.keyword is None and not a.star]
        # as many as an older form took (`earlier_arity`: c39's users still passed the old four-argument
        # store) says nothing of a later day
        if len(positional) > len(spec.params) and len(positional) == sum(1 for a in call.args if a.keyword is None) \
                and len(positional) not in spec.earlier_arity:
            newer = _newer_table(self.api, op, arity=len(positional))
            if newer is not None:
                return f"#{len(positional)}", newer
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value not in spec.params:
                newer = _newer_table(self.api, op, arg.keyword.value)
                if newer is not None:
                    return arg.keyword.value, newer
        for index, arg in enumerate(positional):
            # A list where the target takes one value (`pl.write(t, [i, j], v)`: c39's offset was
            # flat) and a later version takes a list (its role: offsets or a shape).
            if type(arg.value) not in (cst.List, cst.Tuple) or index >= len(spec.params):
                continue
            if spec.roles.get(spec.params[index]) in LIST_ROLES:
                continue
            newer = _newer_table(self.api, op, list_at=index)
            if newer is not None:
                return f"@{index + 1}", newer
        return None

    def _unknown(self, op: str | None) -> bool:
        return op is not None and not self.api.exists(op) and op not in self.api.ops

    def _newer_decorators(self, ctx) -> list[cst.Decorator]:
        """`@pl.jit` and `@pl.jit.incore`: a decorator names a member without calling it, and
        code of a later pypto may have no other name the target lacks (a `@pl.jit` function of
        loads, adds and stores)."""
        found = []
        for node in statements_below(ctx.module):  # a decorator stands on a function, a statement
            if type(node) is cst.FunctionDef:
                for decorator in node.decorators:
                    op = ctx.ops.get(decorator.decorator)
                    if type(decorator.decorator) is cst.Attribute and self._unknown(op) \
                            and _newer_table(self.api, op.partition(".")[0]) is not None:
                        found.append(decorator)
        return found

    def leave_Decorator(self, original, updated, ctx):
        op = ctx.ops.get(original.decorator)
        if type(original.decorator) is not cst.Attribute or not self._unknown(op):
            return None
        newer = _newer_table(self.api, op.partition(".")[0])
        if newer is not None:
            ctx.flag(self.rule, original, self._newer(f"@pl.{op}", newer))
        return None

    def leave_Call(self, original, updated, ctx):
        op = ctx.ops.get(original)
        if not self._unknown(op):
            keyword = self._newer_keyword(op, original)
            if keyword is not None:
                said = (f"pl.{op} with {keyword[0][1:]} arguments" if keyword[0].startswith("#")
                        else f"pl.{op} with a list as argument {keyword[0][1:]}" if keyword[0].startswith("@")
                        else f"pl.{op}({keyword[0]}=...)")
                ctx.flag(self.rule, original, self._newer(said, keyword[1]))
            return None
        newer = _newer_table(self.api, op)
        if newer is not None:  # code written for a later pypto than the pinned target: no hand rewrite
            message = self._newer(f"pl.{op}", newer)
        else:
            message = self.advice.get(op, self.default).format(op=op, version=self.api.version)
        ctx.flag(self.rule, original, message)
        return None

    def _newer(self, name: str, newer: ApiTable) -> str:
        return (f"{name} is newer than the target pypto {self.api.version} (pypto {newer.version} has it): "
                f"this code was written for a later pypto; run with --target {newer.step}, or without --target")


def _newer_store(api: ApiTable) -> ApiTable | None:
    """The first step after the table's own whose API stores by subscript, or None."""
    return next((t for t in later_tables(api.step) if t.subscript_store), None)


LIST_ROLES = frozenset({"offsets", "shape"})  # the parameter roles a list literal fills


def _newer_table(api: ApiTable, op: str, keyword: str | None = None, arity: int = 0,
                 list_at: int | None = None) -> ApiTable | None:
    """The first step after the table's own whose API has `pl.<op>` (taking `keyword`, or
    `arity` positional arguments, or a list as its positional argument `list_at`), or None."""
    for table in later_tables(api.step):
        params = getattr(table.ops.get(op), "params", ())
        if not table.offers(op) or (keyword is not None and keyword not in params) or arity > len(params):
            continue
        if list_at is not None and (list_at >= len(params)
                                    or table.ops[op].roles.get(params[list_at]) not in LIST_ROLES):
            continue
        return table
    return None
