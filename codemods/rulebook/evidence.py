"""Evidence, read off the API tables, that code was written for a later pypto than a table's:
a call whose signature the table's version did not have and a later one's has. The chain reads
it to choose the first step a file needs; a step's rules read it to tell code of a later day
from code of the table's own (a silent-change question is only about the latter)."""

from __future__ import annotations

from .loading import ApiTable, load_api, steps


def later_tables(step: str) -> list[ApiTable]:
    """The API tables of the steps after `step`, oldest first (none for a step not in the list)."""
    names = steps()
    return [load_api(None, s) for s in names[names.index(step) + 1:]] if step in names else []


def later_signature(op: str, table: ApiTable, later: list[ApiTable], keyword: str | None = None,
                    arity: int = 0) -> bool:
    """A keyword the table's signature of `op` lacks and a later table's has (`matmul_acc(b_trans=)`),
    or `arity` positional arguments, more than it takes and no more than a later one does
    (`pl.tile.rem(a, b, tmp)`). Nothing where the table does not know the op's parameters."""
    spec = table.ops.get(op)
    if spec is None or not spec.params or spec.kind == "removed":
        return False
    if keyword is not None:
        return keyword not in spec.params and any(keyword in getattr(t.ops.get(op), "params", ()) for t in later)
    if arity in spec.earlier_arity:  # as many as an older form took: that form, as likely as the later one
        return False
    return arity > len(spec.params) and any(arity <= len(getattr(t.ops.get(op), "params", ())) for t in later)
