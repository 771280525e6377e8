"""Renames between versions that keep every argument: an op's callee (`pl.tile.maxs` →
`pl.tile.maximums`), and a member of another pypto module (`BackendType.PTO` →
`BackendType.Ascend910B`). Only the name changes; the arguments, comments and layout stay."""

from __future__ import annotations

import libcst as cst

from ...model.kernels import OpIndex, may_name
from ...rulebook.loading import ApiTable, Rule, RuleFileError
from ...syntax.traversal import walk
from ..registry import kind


def _mapping(rule: Rule, key: str = "renames") -> dict[str, str]:
    renames = rule.params.get(key)
    if not isinstance(renames, dict) or not renames or not all(isinstance(v, str) for v in renames.values()):
        raise RuleFileError(f"{rule.path}: params.{key} must map old names to new ones")
    return dict(renames)


def _dotted(receiver: cst.BaseExpression, path: str) -> cst.BaseExpression:
    node = receiver
    for part in path.split("."):
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


@kind("op-rename")
class OpRename:
    """`pl.OLD(...)` → `pl.NEW(...)`, the arguments as they are."""

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule = rule
        self.renames = _mapping(rule)

    def interest(self, ctx):
        return [node for node, op in ctx.ops.items() if op in self.renames and type(node) is cst.Call]

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx) -> cst.Call | None:
        op = ctx.op_of(original.func)
        new = self.renames.get(op or "")
        if new is None or not isinstance(updated.func, cst.Attribute):
            return None  # a bare imported name needs its import changed too: the leftover scan reports it
        receiver: cst.BaseExpression = updated.func
        for _ in op.split("."):
            receiver = receiver.value  # type: ignore[attr-defined]
        return updated.with_changes(func=_dotted(receiver, new))


@kind("module-member-rename")
class ModuleMemberRename:
    """`BackendType.PTO` → `BackendType.Ascend910B` wherever the name comes from `params.module`
    (`from pypto.backend import BackendType`, `pypto.backend.BackendType`; a list: any of them); `params.flag` maps
    members that have no successor to what a person must decide."""

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule = rule
        module = rule.params.get("module")
        self.modules = [module] if isinstance(module, str) else module
        if not isinstance(self.modules, list) or not self.modules or not all(isinstance(m, str) and m for m in self.modules):
            raise RuleFileError(f"{rule.path}: params.module names the module (or lists the modules) whose members are renamed")
        self.renames = _mapping(rule) if "renames" in rule.params else {}
        self.flags: dict[str, str] = dict(rule.params.get("flag", {}))

    def begin(self, ctx) -> None:
        self.names = {}
        for module in sorted(self.modules, key=len):  # the longest prefix names a node last: `pypto.ir.pass_manager` over `pypto.ir`
            if module.split(".")[0] in (ctx.text or "pypto") and may_name(ctx.text, module):
                self.names.update(OpIndex(ctx.module, module).ops)

    def interest(self, ctx):
        return [n for n, name in self.names.items() if type(n) is cst.Attribute and (name in self.renames or name in self.flags)]

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute, ctx):
        name = self.names.get(original)
        if name in self.flags:
            ctx.flag(self.rule, original, self.flags[name])
            return None
        new = self.renames.get(name or "")
        if new is None:
            return None
        old_last, new_last = name.rsplit(".", 1)[-1], new.rsplit(".", 1)[-1]
        if name.rsplit(".", 1)[0] != new.rsplit(".", 1)[0] or old_last == new_last:
            raise RuleFileError(f"{self.rule.path}: a rename keeps the owner and changes the last name ({name} → {new})")
        return updated.with_changes(attr=cst.Name(new_last))


@kind("flag-member")
class FlagMember:
    """A member of the module whose every use needs a person at the target (`pl.DN` in a
    Tensor annotation): the statement is marked with the rule's message for it."""

    flags_only = True

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule = rule
        self.members = _mapping(rule, "members")

    def interest(self, ctx):
        return [n for n, op in ctx.ops.items() if type(n) is cst.Attribute and op in self.members]

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute, ctx):
        op = ctx.ops.get(original)
        if op in self.members:
            ctx.flag(self.rule, original, self.members[op])
        return None


@kind("jit-method-rename")
class JitMethodRename:
    """`f.compile_for_test(...)` → `f.lower(...)` where `f` is a function of the file decorated
    with `@pl.jit` (or `@pl.jit.X`): the method belongs to the JIT function object, so a method
    of that name on anything else is left alone."""

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule = rule
        self.renames = _mapping(rule)

    def begin(self, ctx) -> None:
        decorators = {n for n, op in ctx.ops.items() if op == "jit" or op.startswith("jit.")}
        self.jitted: set[str] = set()
        for statement in ctx.module.body:
            if isinstance(statement, cst.FunctionDef) and any(self._is_jit(d.decorator, decorators) for d in statement.decorators):
                self.jitted.add(statement.name.value)

    def interest(self, ctx):
        """Every call where the file has a jit function (its hook looks at the call as other
        rules left it), none where it has none: a traversal of the whole tree for a rule
        that has nothing to do was a fifth of a big file's run at 2026-08."""
        return [n for n in walk(ctx.module) if type(n) is cst.Call] if self.jitted else ()

    @staticmethod
    def _is_jit(node, decorators) -> bool:
        while isinstance(node, cst.Call):
            node = node.func
        return node in decorators

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx):
        func = updated.func
        if not (self.jitted and isinstance(func, cst.Attribute) and func.attr.value in self.renames):
            return None
        if not (isinstance(func.value, cst.Name) and func.value.value in self.jitted):
            return None
        return updated.with_changes(func=func.with_changes(attr=cst.Name(self.renames[func.attr.value])))
