"""Which of a kernel region's planned edits are made: those that remove a rejection.

The planner plans a region that holds code the target rejects as a whole (what every value
would be once the region is in tile form), into a scratch plan. Only the statements that
take part in a rejection keep their share of it: the rejected statements themselves, the
statements that make the Tiles they read (a slice they read becomes a load), and the
statements that read the Tiles they make (a Tile they make is stored, not assembled), to a
fixed point. Everything else in the region is code the target accepts as it stands
(ConvertTensorToTileOps lowers Tensor ops in kernels) and is kept byte for byte.
"""

from __future__ import annotations

import re
from collections import defaultdict

import libcst as cst

from ..model.liveness import names_read
from ..syntax.nodes import statements
from ..syntax.traversal import own_and_nested, walk
from .plan import RegionPlan, StatementEdit

_BOUND = re.compile(r"^\s*([A-Za-z_]\w*)\s*=")
_WORD = re.compile(r"[A-Za-z_]\w*")


class _Leaves:
    """The region's statements: simple lines, and compound statements by their header."""

    def __init__(self, body: list) -> None:
        self.of: dict[int, int] = {}  # node id -> id of its leaf statement
        self.inside: dict[int, set[int]] = defaultdict(set)  # compound id -> leaf ids within it
        self.reads: dict[int, frozenset[str]] = {}
        self.defs: dict[str, set[int]] = defaultdict(set)
        self.users: dict[str, set[int]] = defaultdict(set)
        self.binds: dict[int, set[str]] = defaultdict(set)
        self.nodes: dict[int, cst.CSTNode] = {}
        for s in body:
            self._statement(s, [])

    def _statement(self, s, outer: list[int]) -> None:
        sid = id(s)
        self.nodes[sid] = s
        for o in outer:
            self.inside[o].add(sid)
        self.inside[sid].add(sid)
        if isinstance(s, cst.SimpleStatementLine):
            # a simple statement's own nodes are its every node, kept for the file
            self.of.update((id(n), sid) for n in own_and_nested(s)[0])
            self.reads[sid] = names_read(s)
            for small in s.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
                    [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else [])
                for t in targets:
                    for n in _names(t):
                        self.defs[n].add(sid)
                        self.binds[sid].add(n)
        else:
            self.of[sid] = sid
            header = [getattr(s, "iter", None), getattr(s, "test", None), getattr(s, "target", None)]
            header += [i.item for i in getattr(s, "items", ())]
            read: set[str] = set()
            for h in header:
                if h is not None:
                    self._own(h, sid)
                    read |= _names(h)
            self.reads[sid] = frozenset(read)
            for inner in statements(s):
                self._statement(inner, [*outer, sid])
            orelse = getattr(s, "orelse", None)
            if orelse is not None:
                for inner in statements(orelse):
                    self._statement(inner, [*outer, sid])
        for n in self.reads[sid]:
            self.users[n].add(sid)

    def _own(self, node, sid: int) -> None:
        self.of.update((id(n), sid) for n in walk(node))


def _names(node) -> set[str]:
    return {n.value for n in walk(node) if type(n) is cst.Name}


class RejectionScope:
    """Mixin of the Planner: keeps of a migrated region only the edits a rejection needs."""

    def _closure(self, rp: RegionPlan, leaves: _Leaves, handed: set[str]) -> set[int]:
        tiles = self._tile_binds
        hot = {sid for sid in leaves.reads if sid in self.hot and leaves.inside[sid] == {sid}}
        # A compound statement is hot only by its header; its body's lines speak for themselves.
        hot |= {sid for sid in leaves.reads if sid in self.hot and leaves.inside[sid] != {sid}
                and not any(i in self.hot for i in leaves.inside[sid] - {sid})}
        # A kernel-local create_tensor filled piecewise is rejected by the pass pipeline where it is
        # read whole (measured: the tile op reading it gets a TensorType): its statements join in.
        hot |= {d for n in (rp.hoisted | set(rp.handoff)) for d in leaves.defs.get(n, ())}
        # So is a kernel-local value read after its pl.incore() block (measured on a real kernel:
        # TupleGetItemExpr index out of bounds): it is handed over through a Tensor.
        hot |= {d for n in handed for d in leaves.defs.get(n, ())}
        work = list(hot)
        while work:
            sid = work.pop()
            more = [d for n in leaves.reads.get(sid, ()) for d in leaves.defs.get(n, ()) if n in tiles.get(d, ())]
            more += [u for n in tiles.get(sid, ()) for u in leaves.users.get(n, ())]
            # A Tensor the kernel writes with pl.store is read back as a Tile: the pass pipeline
            # lowers no Tensor op on it (tile.cast requires argument to be a TileType).
            more += [u for n in leaves.binds.get(sid, ()) if n in rp.stored for u in leaves.users.get(n, ())]
            for m in more:
                if m not in hot:
                    hot.add(m)
                    work.append(m)
        return hot

    def _keep(self, rp: RegionPlan, decisions, edits: list[StatementEdit], flags: list) -> None:
        """Merge into the plan what of a region's scratch plan the rejections in it need."""
        leaves = _Leaves(rp.body)
        handed = {m.group(1) for e in edits if e.rule == "handoff-buffer" and e.where == "after" and (m := _BOUND.match(e.code))}
        hot = self._closure(rp, leaves, handed)
        rp.kept = hot

        def needed(node) -> bool | None:
            sid = leaves.of.get(id(node))
            if sid is None:
                return None  # the region itself, or before it: decided by what it defines
            return bool(leaves.inside[sid] & hot)

        def by_name(name: str) -> bool:
            return any(d in hot for d in leaves.defs.get(name, ()))

        kept_words: set[str] = set()
        for rule, chosen in decisions.items():
            for node, value in chosen.items():
                if rule == "unique-tile-names" and isinstance(node, cst.Name):
                    keep = by_name(node.value)
                else:
                    keep = needed(node) is not False
                if keep:
                    self.plan.decisions[rule][node] = value
                    kept_words |= set(_WORD.findall(repr(value)))
        # Renames the region was given before it was planned follow the same test.
        for name in list(rp.renames):
            if not by_name(name):
                for n in rp.name_nodes.get(name, ()):
                    self.plan.decisions["unique-tile-names"].pop(n, None)
        pending, removals = [], []
        for e in edits:
            verdict = needed(e.node)
            bound = _BOUND.match(e.code)
            if e.rule == "handoff-buffer" and e.where != "remove" and bound and bound.group(1) in leaves.defs:
                # A value handed over through a Tensor is handed over only where it became a Tile.
                verdict = by_name(bound.group(1))
            if verdict is True:
                self.plan.statements.append(e)
                kept_words |= set(_WORD.findall(e.code))
            elif verdict is None:
                pending.append(e)
            elif e.where == "remove":
                removals.append(e)
        grew = True
        while grew and pending:
            grew = False
            for e in list(pending):
                m = _BOUND.match(e.code)
                if e.where == "remove" or (m and (m.group(1) in kept_words or by_name(m.group(1)))):
                    if e.where == "remove":
                        continue
                    self.plan.statements.append(e)
                    kept_words |= set(_WORD.findall(e.code))
                    pending.remove(e)
                    grew = True
        # A statement moved out of the region (a Tensor made before it) goes with its new copy.
        moved = {m.group(1) for e in self.plan.statements if e.node is not None and leaves.of.get(id(e.node)) is None
                 and (m := _BOUND.match(e.code))}
        for e in removals:
            if any(sid == id(e.node) for n in moved for sid in leaves.defs.get(n, ())):
                self.plan.statements.append(e)
        for rule, node, message in flags:
            if needed(node) is not False:
                self.plan.flags.append((rule, node, message))
