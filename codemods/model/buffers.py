"""The compiler's buffer allocation of one kernel, replayed, so that the tool's figures are its.

pypto (c39fe714a) gives every tile value a buffer (InitMemRef), lets values share one where
their lifetimes do not overlap (BasicMemoryReuse) and lays the buffers out 32-byte aligned
(AllocateMemoryAddr). Measured against its memory report and its own debug log of each
reuse decision, reuse follows these rules, replayed here:

- Statements are numbered in order once nested calls are flattened into temporaries, each
  a statement of its own, innermost first; loops and branches take no number.
- Only the statements of the kernel's body and of the loops directly in it are numbered.
  A value made deeper keeps a buffer of its own, and reads there are not seen: a value read
  only inside a nested loop dies where it is made.
- A value lives from its statement to its last read, both ends included; a read of a
  loop-carried value inside its loop counts for the value that entered the loop, a read
  after the loop for none (the loop's result is a new value, in global memory).
- In the order values are made, each takes the first earlier buffer of its memory space
  that is at least as large, was first made for a tile of the same shape, and whose values
  all died before this one is made. Results of `pl.cast` never share; `pl.reshape` is a
  view of its source's buffer.
- A loop-carried value keeps the buffer it was first given, even when the value that entered
  the loop shares another one: that buffer stays allocated beside the shared one.

The compiler's liveness ignores loop back edges and nested loops, so its figure can be
lower than what a kernel really needs at once; these figures are the compiler's, by design.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .liveness import names_written
from ..syntax.nodes import statements
from ..syntax.traversal import content

ALIGN = 32
VIEW_OPS = frozenset({"reshape"})
NEVER_SHARED = frozenset({"cast"})


@dataclass(eq=False)
class Value:
    """A tile value's live range in a kernel, for the buffer replay."""

    alloc: object  # plan.Allocation
    bytes: int | None
    start: int
    end: int
    root: "Value | None" = None  # the value whose buffer a view shares
    pinned: bool = False  # a loop carries it: its first buffer stays

    @property
    def group(self) -> "Value":
        v = self
        while v.root is not None:
            v = v.root
        return v


@dataclass(eq=False)
class Buffer:
    """One buffer of a memory space and the tile values that share it."""

    space: str
    bytes: int | None
    shape: tuple[float | None, ...]  # as numbers
    values: list[Value] = field(default_factory=list)  # the group roots sharing it, first = the one it was made for
    made_for: object = None  # the plan.Allocation it was first made for
    spans: list[tuple[int, int]] = field(default_factory=list)

    @property
    def aligned(self) -> int | None:
        return None if self.bytes is None else -(-self.bytes // ALIGN) * ALIGN


def space_used(buffers: list[Buffer], order: dict[int, int]) -> int | None:
    """Bytes of one space as the compiler lays it out: buffers one after another in the order
    their tiles appear (`order`: allocation id -> position), each start 32-byte aligned."""
    if any(b.bytes is None for b in buffers):
        return None
    if not buffers:
        return 0
    last = max(buffers, key=lambda b: order.get(id(b.made_for), -1))
    return sum(b.aligned for b in buffers) - last.aligned + last.bytes


def replay(kind: str, body: list, allocations, size, dims) -> list[Buffer]:
    """Every buffer the compiler allocates for the kernel; `size(allocation)` is its bytes or None,
    `dims(allocation)` its shape as numbers (tiles share by shape value, not by how it is spelled)."""
    return _Replay(allocations, size, dims).run(body, 1 if kind == "parallel" else 0)


class _Replay:
    def __init__(self, allocations, size, dims) -> None:
        self.size, self.dims = size, dims
        self.by_call = {id(a.call): a for a in allocations if getattr(a, "call", None) is not None}
        self.predicted: dict[int, list] = {}
        for a in allocations:
            if getattr(a, "call", None) is None:
                self.predicted.setdefault(id(a.statement), []).append(a)
        self.allocations = allocations
        self.placed: set[int] = set()  # ids of allocations given a value
        self.values: list[Value] = []
        self.version: dict[str, Value | None] = {}
        self.order = 0

    def run(self, body: list, depth: int) -> list[Buffer]:
        self._block(body, depth)
        return self._share() + self._apart()

    # -- walking ---------------------------------------------------------------------------
    def _block(self, stmts, depth: int) -> None:
        for s in stmts:
            self._statement(s, depth)

    def _statement(self, s, depth: int) -> None:
        if isinstance(s, cst.SimpleStatementLine):
            if depth >= 2:
                for name in names_written(s):
                    self.version[name] = None
                return
            added = [self._define(a, None) for a in self.predicted.get(id(s), ())]
            for v in added:
                if v.alloc.name:
                    self.version[v.alloc.name] = v
            for small in s.body:
                self._small(small)
            for v in added:  # read by the statement it is made for
                self._read(v)
        elif isinstance(s, (cst.For, cst.While)):
            written = names_written(s)
            for name in written:
                v = self.version.get(name)
                if v is not None:
                    v.pinned = True
            self._block(statements(s), depth + 1)
            for name in written:
                self.version[name] = None
        elif isinstance(s, cst.If):
            written = names_written(s)
            self._block(statements(s), depth + 1)
            orelse = s.orelse
            while orelse is not None:
                self._block(statements(orelse), depth + 1)
                orelse = getattr(orelse, "orelse", None)
            for name in written:
                self.version[name] = None
        elif isinstance(s, cst.With):
            self._block(statements(s), depth)

    def _small(self, small) -> None:
        target = None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            target, value = small.targets[0].target.value, small.value
        elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
            target, value = small.target.value, small.value
        elif isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Return)):
            value = getattr(small, "value", None)
            for name in names_written(small):
                self.version[name] = None
        else:
            return
        made = self._flatten(value) if value is not None else None
        if target is not None:
            self.version[target] = made

    def _flatten(self, node) -> Value | None:
        """One flattened statement: nested calls first, each its own; then this one's reads."""
        reads: list[str] = []
        made: dict[int, Value | None] = {}

        def scan(n) -> None:
            kind = type(n)  # exact types: isinstance on LibCST's classes goes through ABCMeta
            if kind is cst.Call:
                made[id(n)] = self._flatten(n)
            elif kind is cst.Name:
                reads.append(n.value)
            elif kind is cst.Attribute:
                scan(n.value)
            else:
                for child in content(n):
                    scan(child)

        if isinstance(node, cst.Call):
            for arg in node.args:
                scan(arg.value)
        else:
            scan(node)
        del scan  # a closure that calls itself is a reference cycle (see migrate/collector.py)
        self.order += 1
        for name in reads:
            self._read(self.version.get(name))
        for value in made.values():  # a temporary is read by the call it was flattened out of
            self._read(value)
        a = self.by_call.get(id(node)) if isinstance(node, cst.Call) else None
        if a is None:
            return None
        source = None
        if a.op in VIEW_OPS and node.args:
            first = node.args[0].value
            source = self.version.get(first.value) if isinstance(first, cst.Name) else made.get(id(first))
        return self._define(a, source)

    def _define(self, a, source: Value | None) -> Value:
        if a.call is None:
            self.order += 1  # a tile the migration will add: a flattened statement of its own
        v = Value(a, self.size(a), self.order, self.order, root=source)
        self.values.append(v)
        self.placed.add(id(a))
        return v

    def _read(self, v: Value | None) -> None:
        if v is not None:
            v.end = max(v.end, self.order)

    # -- sharing ---------------------------------------------------------------------------
    def _share(self) -> list[Buffer]:
        spans: dict[int, list[int]] = {}
        for v in self.values:
            g = v.group
            lo, hi = spans.get(id(g), (v.start, v.end))
            spans[id(g)] = (min(lo, v.start), max(hi, v.end))
        groups = sorted({id(v.group): v.group for v in self.values}.values(), key=lambda g: spans[id(g)][0])
        buffers: list[Buffer] = []
        home: dict[int, Buffer] = {}
        for g in groups:
            span = spans[id(g)]
            chosen = None
            if g.bytes is not None and g.alloc.op not in NEVER_SHARED:
                shape = self.dims(g.alloc)
                chosen = next((b for b in buffers if self._fits(b, g, shape, span)), None)
            if chosen is None:
                chosen = Buffer(g.alloc.space, g.bytes, self.dims(g.alloc), made_for=g.alloc)
                buffers.append(chosen)
            chosen.values.append(g)
            chosen.spans.append(span)
            home[id(g)] = chosen
        kept = []
        for v in self.values:  # the loop's own copy of a carried value that moved into a shared buffer
            if v.pinned and v.root is None and home[id(v)].values[0] is not v:
                kept.append(Buffer(v.alloc.space, v.bytes, self.dims(v.alloc), [v], v.alloc))
        return buffers + kept

    @staticmethod
    def _fits(b: Buffer, g: Value, shape, span: tuple[int, int]) -> bool:
        return (b.space == g.alloc.space and b.bytes is not None and b.bytes >= g.bytes
                and None not in shape and b.shape == shape
                and all(span[0] > hi or lo > span[1] for lo, hi in b.spans))

    def _apart(self) -> list[Buffer]:
        """Tiles of deeper loops (and tiles the walk never met): a buffer each; views share their source's."""
        return [
            Buffer(a.space, self.size(a), self.dims(a), made_for=a)
            for a in self.allocations
            if id(a) not in self.placed and a.op not in VIEW_OPS
        ]
