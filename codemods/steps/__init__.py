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
from .registry import KINDS, kind, load_all


def make_transform(rule: Rule, api: ApiTable):
    """A fresh instance per file: kinds may keep what they learn of the file in `begin`."""
    from .registry import lookup

    try:
        made = lookup(rule.kind, rule.step)
    except KeyError:
        load_all()
        raise RuleFileError(f"{rule.path}: unknown rule kind '{rule.kind}' (known: {', '.join(sorted(KINDS))})")
    return made(rule, api)


__all__ = ["KINDS", "kind", "load_all", "make_transform"]
