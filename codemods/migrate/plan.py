"""The migration plan of one file: what the planner decided, keyed by CST node, for the rules.

The planner (`codemods.migrate.planner`) writes it once per file; each type-directed rule kind
(`codemods.migrate.transforms.planned`) reads its share, filed under the kind's name.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

import libcst as cst

from ..model.kernels import Region
from ..model.constants import Constant


class Allocation(NamedTuple):
    """One tile a kernel needs: a call site that produces a tile, and the name it is bound to."""

    space: str
    shape: tuple[str, ...]
    dtype: str
    what: str
    statement: cst.CSTNode
    name: str | None  # None: a temporary inside the statement
    call: cst.Call | None = None  # the call that makes it; None: a tile the migration will add
    op: str | None = None


@dataclass
class RegionPlan:
    """What the planner found and decided for one kernel region."""

    region: Region
    body: list
    function: str = ""
    handoff: dict[str, "Handoff"] = field(default_factory=dict)
    slice_space: dict[str, str] = field(default_factory=dict)
    stored: set[str] = field(default_factory=set)
    preamble: dict[str, tuple[str, str]] = field(default_factory=dict)  # tensor -> (tile name, rule that asked)
    renames: dict[str, str] = field(default_factory=dict)
    name_nodes: dict[str, list[cst.Name]] = field(default_factory=dict)
    tile_vars: set[str] = field(default_factory=set)
    allocations: list[Allocation] = field(default_factory=list)
    pending_reload: dict[str, "Handoff"] = field(default_factory=dict)
    constants: dict[str, float] = field(default_factory=dict)  # the numbers the shapes evaluate with
    fold_only: set[str] = field(default_factory=set)  # slice variables used only as sources of slices
    views: dict[str, "View"] = field(default_factory=dict)
    operand_of: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # name -> (op, position) it is passed at
    hoisted: set[str] = field(default_factory=set)  # Tensors assembled in an incore block, made before it
    late_loads: dict[tuple[cst.CSTNode, str], str] = field(default_factory=dict)  # (statement, tensor) -> tile loaded there
    loop_bound: set[str] = field(default_factory=set)  # names bound inside a loop of the region
    over_limit: int = 0  # buffer spaces over the 910B limits (report's OVER lines), marked or not
    bound: set[str] = field(default_factory=set)  # names the walk has seen bound in the region so far
    carried_init: dict[str, tuple] = field(default_factory=dict)  # loop-carried name -> (init node, its loop)
    kept: set[int] = field(default_factory=set)  # ids of the statements whose edits are made (migrate/selection.py)


class View(NamedTuple):
    """A slice of a Tensor that is only ever sliced again: folded into its users' loads."""

    root: str
    offsets: tuple[str, ...]
    cast: str | None
    dtype: str | None


@dataclass
class Handoff:
    """A Tile that leaves its kernel: stored into a Tensor buffer, loaded again where it is read."""

    var: str
    buffer: str
    shape: tuple[str, ...]
    dtype: str
    valid: str | None
    region: Region
    flagged: bool = False


class StatementEdit(NamedTuple):
    rule: str
    where: str  # "before" | "after" | "prepend" | "remove"
    node: cst.CSTNode
    code: str = ""


@dataclass
class Plan:
    """Everything the planner decided for a file, for the type-directed rule kinds to read."""

    alias: str = "pl"
    regions: list[Region] = field(default_factory=list)
    region_plans: list[RegionPlan] = field(default_factory=list)
    decisions: dict[str, dict[cst.CSTNode, object]] = field(default_factory=lambda: defaultdict(dict))
    statements: list[StatementEdit] = field(default_factory=list)
    flags: list[tuple[str, cst.CSTNode, str]] = field(default_factory=list)
    constants: dict[str, Constant] = field(default_factory=dict)

    def of(self, rule: str) -> dict[cst.CSTNode, object]:
        return self.decisions.get(rule, {})
