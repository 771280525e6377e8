"""`keyword-rename` rules: a keyword argument of some ops renamed where it stands.

`pl.load(t, o, s, valid_shapes=v, target_memory=M)` → `... valid_shape=v ...`: only the
keyword's name changes, so the call keeps its argument order, comments and layout, which a
call pattern (that rebuilds the argument list in its own order) would not promise.
"""

from __future__ import annotations

import libcst as cst

from ...model.kernels import OpIndex
from ...rulebook.loading import ApiTable, Rule, RuleFileError


class KeywordRename:
    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule = rule
        ops, renames = rule.params.get("ops"), rule.params.get("renames")
        if not isinstance(ops, list) or not ops or not all(isinstance(o, str) for o in ops):
            raise RuleFileError(f"{rule.path}: params.ops must list the ops whose keyword is renamed")
        if not isinstance(renames, dict) or not renames or not all(isinstance(v, str) for v in renames.values()):
            raise RuleFileError(f"{rule.path}: params.renames must map old keyword names to new ones")
        self.ops, self.renames = frozenset(ops), dict(renames)
        # `params.module`: calls of another pypto module (`pypto.runtime`'s RunConfig) than the language's.
        self.module = rule.params.get("module", "")

    def begin(self, ctx) -> None:
        if not self.module:
            self.names = ctx.ops
        elif self.module.split(".")[0] in (ctx.text or "pypto"):
            self.names = OpIndex(ctx.module, self.module).ops
        else:
            self.names = {}

    def interest(self, ctx):
        return [node for node, op in self.names.items() if op in self.ops and type(node) is cst.Call]

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx) -> cst.Call | None:
        if self.names.get(original) not in self.ops:
            return None
        given = {a.keyword.value for a in updated.args if a.keyword is not None}
        args, changed = [], False
        for arg in updated.args:
            new = self.renames.get(arg.keyword.value) if arg.keyword is not None else None
            if new is not None and new not in given:  # both spelled: the call is wrong either way, left to the compiler
                arg = arg.with_changes(keyword=cst.Name(new))
                changed = True
            args.append(arg)
        return updated.with_changes(args=args) if changed else None
