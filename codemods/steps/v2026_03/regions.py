"""`wrap-incore`: tile code left in orchestration is given a kernel region of its own.

The compiler outlines only chunked `pl.parallel` loops under `pl.auto_incore()` and
`pl.incore()` blocks; every other statement of an Opaque function runs in orchestration,
which runs no tile ops. Real kernels put sequential batch loops under `auto_incore` and
compute between the chunked loops inside them, or compute in a parallel loop that is not
under `auto_incore` at all, so the search goes through every statement list of the
function that is not already a kernel, at any depth.

In each list the statements that need tile semantics (they call a tile-only op of the API
table) are seeds. A seed's block grows forward over statements that read what the block
made (so that its tiles need not leave it) and backward over statements that make what
the block reads, as long as what they make is not read after the block. The block is
wrapped in `with pl.incore():`. Statements that only compute scalars (`pl.tensor.read`,
`pl.min`) and statements that hold a kernel bound the growth. Tensor ops stay where they
are: orchestration runs them. Values that still leave a block are the planner's to hand
off through Tensors (phase 1 sees the new block as a region like any other).
"""

from __future__ import annotations

import libcst as cst

from ...model.kernels import OPAQUE, OpIndex, find_regions, function_type, kernel_functions, module_alias
from ...model.liveness import Liveness, names_read, names_written
from ...check.strict import rejected_within
from ...rulebook.loading import ApiTable, Rule
from ...syntax.memo import cached
from ...syntax.nodes import statements
from ...syntax.traversal import own_and_nested
from ..registry import kind

# Statements made only of these are orchestration's own work: scalars and loop headers.
SCALAR_OPS = {"tensor.read", "read", "min", "max", "range", "parallel", "unroll"}
# Reading elements as scalars is control code: orchestration reads them, a kernel would
# have to load what it reads (and the tensors it reads are often written as it goes).
SCALAR_READS = {"tensor.read", "read"}
# Ops that make, view or place data without computing on it.
NON_COMPUTE = SCALAR_OPS | {"create_tensor", "slice", "view", "assemble", "reshape", "auto_incore", "incore", "dim"}

SEED, PLAIN, BARRIER, KERNEL, CONTAINER = "seed", "plain", "barrier", "kernel", "container"


@kind("wrap-incore")
class WrapIncore:
    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule, self.api = rule, api
        self.tile_only = {name for name, op in api.ops.items() if op.kind == "tile-only"}

    def begin(self, ctx) -> None:
        self.ops = OpIndex(ctx.module, self.api.module).ops
        # Tile ops in orchestration are accepted by the target (measured): only a block that
        # holds code the target rejects is moved into a kernel, to be migrated there.
        self.hot = rejected_within(ctx.module, self.api)
        self.alias = module_alias(self.ops)
        self.blocks: dict[cst.CSTNode, list[tuple[int, int]]] = {}  # owner of a statement list -> spans
        for kf in kernel_functions(ctx.module, self.ops):
            if function_type(kf.node, self.ops) != OPAQUE:
                continue  # an InCore function is a kernel; an Orchestration one is the user's decision
            env = {n: c.value for n, c in kf.constants.items()}
            self.kernels = {r.node for r, _ in find_regions(kf.node, self.ops, env)}
            self.facts: dict[cst.CSTNode, tuple[bool, frozenset[str]]] = {}  # of this function's kernels
            self.function, self._live = kf.node, None
            self._scan(kf.node, under_auto=False)
        self.facts = {}

    @property
    def live(self) -> Liveness:
        """The function's liveness, computed when a block first grows backward (most functions
        have no tile code outside their kernels, and need none)."""
        if self._live is None:
            self._live = Liveness(statements(self.function))
        return self._live

    # -- where to look ---------------------------------------------------------------------
    def _scan(self, owner, under_auto: bool) -> None:
        body = statements(owner)
        spans = self._spans(body, under_auto)
        if spans:
            self.blocks[owner] = spans
        for s in body:
            kind = self._kind(s, under_auto)
            if kind in (KERNEL, CONTAINER) and s not in self.kernels and not self._is_incore(s):
                inner = under_auto or kind == CONTAINER
                self._scan(s, inner)
                if isinstance(s, cst.If) and s.orelse is not None:
                    self._scan(s.orelse, inner)

    def _is_incore(self, s) -> bool:
        return isinstance(s, cst.With) and any(self.ops.get(i.item) == "incore" for i in s.items)

    def _kind(self, s, under_auto: bool) -> str:
        """SEED: needs a kernel. Under `auto_incore` the author asked for on-chip compute, so
        any compute op is a seed there; elsewhere only a tile-only op is (a Tensor op is
        orchestration's to run). BARRIER: scalar control code, which stays in orchestration."""
        if isinstance(s, cst.With) and any(self.ops.get(i.item) == "auto_incore" for i in s.items):
            return CONTAINER  # its chunked loops are outlined; the rest of it is searched like any list
        has_kernel, calls = self._facts(s)
        if has_kernel:
            return KERNEL
        if any(op in self.tile_only for op in calls):
            return SEED
        if any(op in SCALAR_READS for op in calls) or (calls and all(op in SCALAR_OPS for op in calls)):
            return BARRIER
        if under_auto and any(op not in NON_COMPUTE for op in calls):
            return SEED
        if isinstance(s, cst.SimpleStatementLine) and any(isinstance(x, (cst.Return, cst.Raise)) for x in s.body):
            return BARRIER
        return PLAIN

    def _facts(self, s) -> tuple[bool, frozenset[str]]:
        """Does the statement hold a kernel (nested at any depth), and which pypto ops does it call?"""
        hit = self.facts.get(s)
        if hit is None:
            own, nested = own_and_nested(s)
            kernel = any(n in self.kernels or (type(n) is cst.With and self._is_incore(n)) for n in own)
            calls = {self.ops[n] for n in own if type(n) is cst.Call and n in self.ops}
            for inner in nested:
                inner_kernel, inner_calls = self._facts(inner)
                kernel, calls = kernel or inner_kernel, calls | inner_calls
            hit = self.facts[s] = (kernel, frozenset(calls))
        return hit

    # -- which statements form a block -----------------------------------------------------
    def _spans(self, body: list, under_auto: bool) -> list[tuple[int, int]]:
        if not any(id(s) in self.hot for s in body):
            return []  # a block is only ever made of these statements: none holds a rejection
        kinds = [self._kind(s, under_auto) for s in body]
        spans = [self._grow(body, kinds, i, i) for i, k in enumerate(kinds) if k == SEED]
        if not any(id(body[i]) in self.hot for lo, hi in spans for i in range(lo, hi + 1)):
            return []
        while True:
            merged: list[tuple[int, int]] = []
            for lo, hi in sorted(spans):
                if merged and lo <= merged[-1][1] + 1:
                    merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
                else:
                    merged.append((lo, hi))
            regrown = [self._grow(body, kinds, lo, hi) for lo, hi in merged]
            if regrown == spans:
                return [(lo, hi) for lo, hi in regrown if any(id(body[i]) in self.hot for i in range(lo, hi + 1))]
            spans = regrown

    def _grow(self, body, kinds, lo: int, hi: int) -> tuple[int, int]:
        joinable = (SEED, PLAIN)
        made = set().union(*(self._writes(s) for s in body[lo:hi + 1]))
        read = set().union(*(names_read(s) for s in body[lo:hi + 1]))
        while True:
            if hi + 1 < len(body) and kinds[hi + 1] in joinable and names_read(body[hi + 1]) & made:
                hi += 1
                made |= self._writes(body[hi])
                read |= names_read(body[hi])
                continue
            if lo > 0 and kinds[lo - 1] in joinable:
                makes = self._writes(body[lo - 1])
                # What it makes may be read after the block only where the block itself
                # makes it again: then the block's own value is the one read later.
                remade = set().union(*(names_written(x) for x in body[lo:hi + 1] if isinstance(x, cst.SimpleStatementLine)))
                if makes & read and not (makes - remade) & self.live.live_after(body[hi]):
                    lo -= 1
                    made |= makes
                    read |= names_read(body[lo])
                    continue
            return lo, hi

    @staticmethod
    def _writes(s) -> frozenset[str]:
        """What a statement binds, its nested statements and loop variables included."""
        return writes(s)

    # -- the rewrite -----------------------------------------------------------------------
    def interest(self, ctx):
        return self.blocks.keys()

    def _wrap(self, original, updated):
        spans = self.blocks.get(original)
        if not spans:
            return None
        block_node = updated.body
        if not isinstance(block_node, cst.IndentedBlock):
            return None
        body = list(block_node.body)
        out, at = [], 0
        for a, b in spans:
            out.extend(body[at:a])
            first = body[a]
            inner = cst.IndentedBlock(body=[first.with_changes(leading_lines=[]), *body[a + 1:b + 1]])
            call = cst.Call(func=cst.parse_expression(f"{self.alias}.incore"))
            out.append(cst.With(items=[cst.WithItem(call)], body=inner, leading_lines=first.leading_lines))
            at = b + 1
        out.extend(body[at:])
        return updated.with_changes(body=block_node.with_changes(body=out))

    def leave_With(self, original, updated, ctx):
        return self._wrap(original, updated)

    def leave_For(self, original, updated, ctx):
        return self._wrap(original, updated)

    def leave_While(self, original, updated, ctx):
        return self._wrap(original, updated)

    def leave_If(self, original, updated, ctx):
        return self._wrap(original, updated)

    def leave_Else(self, original, updated, ctx):
        return self._wrap(original, updated)

    def leave_FunctionDef(self, original, updated, ctx):
        return self._wrap(original, updated)


def writes(s) -> frozenset[str]:
    return cached("writes", s, _writes)


def _writes(s) -> frozenset[str]:
    out: set[str] = set()
    if isinstance(s, cst.SimpleStatementLine):
        out |= names_written(s)
    elif isinstance(s, cst.For) and isinstance(s.target, cst.Name):
        out.add(s.target.value)
    return frozenset(out).union(*(writes(inner) for inner in own_and_nested(s)[1]))
