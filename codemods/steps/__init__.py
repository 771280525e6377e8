"""Layer 4, the version steps: the rule kinds, the Python behind the data in `codemods/rules/`.

`common/` holds the kinds any step's records may name (call patterns, renames, keyword
flags); `v2026_03/`, `v2026_08/`, ... each hold one step's own kinds and the helpers only
they use.

A rule record names its `kind`; the kind is a class built from the record (and the API
table) that exposes LibCST-style hooks, `leave_<Node>(original, updated, ctx)` returning a
replacement or None, and `visit_<Node>(node, ctx)`. The engine runs the hooks of every
selected rule in one traversal. A new rename is a new record of an existing kind.

May import `check`, `model`, `rulebook`, `syntax` and `text`: a kind reads the model and the
plan the engine hands it through its context, never the engine itself.
"""

from __future__ import annotations

from ..rulebook.loading import ApiTable, Rule, RuleFileError
from .common.call_pattern import CallPattern
from .common.keywords import KeywordFlag, KeywordRename
from .common.renames import FlagMember, JitMethodRename, ModuleMemberRename, OpRename
from .v2026_03.planned import KINDS as PLANNED
from .common.members import MemberRename, UnknownMember
from .v2026_03.regions import WrapIncore


class _Kinds(dict):
    """Kind name -> class. The later steps' kinds are imported when a rule first names one:
    a run to 2026-03 does not pay for their import, a tenth of its start-up."""

    loaded = False

    def __missing__(self, name: str):
        if self.loaded:
            raise KeyError(name)  # no step knows it
        self.load_all()
        return self[name]

    def load_all(self) -> None:
        if not self.loaded:
            from .v2026_08.kinds import KINDS as UPGRADE

            self.loaded = True
            for key, kind in UPGRADE.items():
                self.setdefault(key, kind)


KINDS = _Kinds({
    "call-pattern": CallPattern,
    "keyword-rename": KeywordRename,
    "keyword-flag": KeywordFlag,
    "op-rename": OpRename,
    "flag-member": FlagMember,
    "jit-method-rename": JitMethodRename,
    "module-member-rename": ModuleMemberRename,
    "wrap-incore": WrapIncore,
    "member-rename": MemberRename,
    "unknown-member": UnknownMember,
    **PLANNED,
})


def make_transform(rule: Rule, api: ApiTable):
    """A fresh instance per file: kinds may keep what they learn of the file in `begin`."""
    try:
        kind = KINDS[rule.kind]
    except KeyError:
        KINDS.load_all()
        raise RuleFileError(f"{rule.path}: unknown rule kind '{rule.kind}' (known: {', '.join(KINDS)})")
    return kind(rule, api)
