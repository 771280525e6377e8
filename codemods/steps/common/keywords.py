"""`keyword-rename` rules: a keyword argument of some ops renamed where it stands.

`pl.load(t, o, s, valid_shapes=v, target_memory=M)` → `... valid_shape=v ...`: only the
keyword's name changes, so the call keeps its argument order, comments and layout, which a
call pattern (that rebuilds the argument list in its own order) would not promise.
"""

from __future__ import annotations

import libcst as cst

from ...model.kernels import OpIndex, may_name
from ...rulebook.loading import ApiTable, Rule, RuleFileError
from ..registry import kind


@kind("keyword-rename")
class KeywordRename:
    def __init__(self, rule: Rule, api: ApiTable, renames: dict | None = None) -> None:
        self.rule = rule
        ops = rule.params.get("ops")
        renames = renames if renames is not None else rule.params.get("renames")
        if not isinstance(ops, list) or not ops or not all(isinstance(o, str) for o in ops):
            raise RuleFileError(f"{rule.path}: params.ops must list the ops whose keyword is renamed")
        if not isinstance(renames, dict) or not renames or not all(isinstance(v, str) for v in renames.values()):
            raise RuleFileError(f"{rule.path}: params.renames must map old keyword names to new ones")
        self.ops, self.renames = frozenset(ops), dict(renames)
        # `params.with`: keyword arguments the new name needs beside it (`save_kernels=True` for
        # `save_kernels_dir=`), added after it unless the call passes them already.
        self.extra: dict[str, str] = dict(rule.params.get("with", {}))
        # `params.module`: calls of another pypto module (`pypto.runtime`'s RunConfig) than the language's.
        self.module = rule.params.get("module", "")

    def begin(self, ctx) -> None:
        if not self.module:
            self.names = ctx.ops
        elif self.module.split(".")[0] in (ctx.text or "pypto") and may_name(ctx.text, self.module):
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
            old = arg.keyword.value if arg.keyword is not None else None
            new = self.renames.get(old) if old is not None else None
            if new is not None and new not in given:  # both spelled: the call is wrong either way, left to the compiler
                args.append(arg.with_changes(keyword=cst.Name(new)))
                changed = True
                extra = self.extra.get(old, "")
                name, _, value = extra.partition("=")
                if extra and name not in given:
                    given.add(name)
                    args.append(cst.Arg(keyword=cst.Name(name), value=cst.parse_expression(value), equal=arg.equal,
                                        comma=arg.comma if arg.comma is not cst.MaybeSentinel.DEFAULT else cst.MaybeSentinel.DEFAULT))
                    args[-2] = args[-2].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                continue
            args.append(arg)
        return updated.with_changes(args=args) if changed else None


@kind("keyword-flag")
class KeywordFlag(KeywordRename):
    """A keyword of some ops that has no mechanical successor (`tpush_to_aiv(aiv_idx=)`): each
    call that passes it is marked with the rule's message for that keyword, and left as it is."""

    flags_only = True

    def __init__(self, rule: Rule, api: ApiTable) -> None:
        flags = rule.params.get("flag")
        if not isinstance(flags, dict) or not flags or not all(isinstance(v, str) for v in flags.values()):
            raise RuleFileError(f"{rule.path}: params.flag must map keyword names to what a person must decide")
        super().__init__(rule, api, renames=dict(flags))

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx) -> None:
        if self.names.get(original) not in self.ops:
            return None
        for arg in original.args:
            if arg.keyword is not None and arg.keyword.value in self.renames:
                ctx.flag(self.rule, original, self.renames[arg.keyword.value])
        return None
