"""What an auto-chunk scope outlined besides its chunked loops, written as `pl.at` by hand.

When pypto consumed a `pl.auto_incore()` scope (pypto #428, #497, #646, March 2026) it did
not leave the statements outside chunked loops bare: each run of consecutive compute
statements became an InCore scope of its own; scalar assignments (loop offsets, sizes
read with `pl.tensor.read`) and tensor allocations stayed in the orchestration function,
and a loop holding chunked loops was entered, its own statements grouped the same way.
Since 2026-06 nothing outlines for the user: a compute statement left bare in the
orchestration function passes the pipeline and is refused by the orchestration code
generator ("Misplaced tensor op ... should be inside InCore block"). So the rewrite writes
those groups out: `with pl.at(level=pl.Level.CORE_GROUP):` around each run.

A group is found on the nodes as the traversal leaves them (other rules may have rewritten
a statement in it), by what each statement is: one that holds a `pl.at` is already a
kernel or an orchestration loop around kernels; one that binds a scalar (its every binding
in the function has a scalar type) or allocates a tensor stays; the rest is compute.
"""

from __future__ import annotations

import libcst as cst

from ...model.values import SCALAR
from ...syntax.nodes import code
from ...syntax.traversal import statements_below, walk
from .base import KERNEL_SCOPES, binding, names_in

ALLOCATIONS = ("create_tensor", "tensor.create")


def scalar_names(info, func) -> set[str]:
    """Names every binding of which in `func` has a scalar type (before the rewrite)."""
    scalar, other = set(), set()
    for site in info.sites_of(func):
        name, value = binding(site.statement)
        if name is None:
            continue
        (scalar if info.type_of(value, site.env).kind == SCALAR else other).add(name)
    return scalar - other


class Outliner:
    """Groups the compute statements of one orchestration body into `pl.at` scopes."""

    def __init__(self, alias: str, scalars: set[str], computes=None, claim: bool = True) -> None:
        # `computes`: only a statement it holds true for goes into a kernel (None: all but what stays).
        # `claim`: whether a run takes in the allocations only it reads, as the old outlining did; a
        # tensor created inside a kernel scope is a tile, its bytes counted against Vec, so code
        # whose allocations were never outlined keeps them in GM
        self.alias, self.scalars, self.computes, self.claim = alias, scalars, computes, claim
        self.at = cst.parse_statement(f"with {alias}.at(level={alias}.Level.CORE_GROUP):\n    pass\n")

    def body(self, statements) -> list[cst.CSTNode]:
        statements = list(statements)
        kinds = [self._kind(st) for st in statements]
        allocations = [n for n, kind in enumerate(kinds) if kind == "allocation"]
        # a tensor allocated only for the next run is that kernel's own (a tile, as the old
        # outlining made it); one read anywhere else is the orchestration's, in GM
        i = 0
        while i < len(statements):
            if kinds[i] == "stays":
                i += 1
                continue
            j = i
            while j < len(statements) and kinds[j] != "stays":
                j += 1
            outside = statements[:i] + statements[j:]
            computes = any(kinds[n] == "kernel" for n in range(i, j))
            for a in range(i, j):
                if kinds[a] == "allocation":
                    name = binding(statements[a])[0]
                    kinds[a] = "kernel" if self.claim and computes and not any(
                        name in names_in(st) for st in outside) else "stays"
            i = j
        # an allocation left in GM is a Tensor inside the kernel: once the kernel has written it, a
        # compute op of that kernel cannot read it ("tile.adds requires first argument to be a
        # TileType, but got TensorType", measured at e2d0f78ae); the next kernel loads it
        gm = {binding(statements[n])[0] for n in allocations if kinds[n] == "stays"}
        out, run, written = [], [], set()
        for statement, kind in zip(statements, kinds):
            if kind == "kernel":
                if run and any(self._computes_on(statement, name) for name in written):
                    out.append(self._kernel(run))
                    run, written = [], set()
                run.append(statement)
                name = binding(statement)[0]
                if name in gm:
                    written.add(name)
                continue
            written = set()
            if run:
                out.append(self._kernel(run))
                run = []
            out.append(statement)  # what stays, and an allocation no run follows
        if run:
            out.append(self._kernel(run))
        return out

    def block(self, node):
        """A compound statement with its body (and else body) grouped."""
        node = node.with_changes(body=node.body.with_changes(body=self.body(node.body.body)))
        orelse = getattr(node, "orelse", None)
        if isinstance(orelse, cst.Else):
            node = node.with_changes(orelse=orelse.with_changes(body=orelse.body.with_changes(body=self.body(orelse.body.body))))
        elif isinstance(orelse, cst.If):
            node = node.with_changes(orelse=self.block(orelse))
        return node

    def _computes_on(self, statement, name: str) -> bool:
        """Does a call of `statement` other than a slice or an assemble into it read `name` whole?"""
        for node in walk(statement):
            if isinstance(node, cst.Call) and code(node.func).rpartition(".")[2] not in ("slice", "assemble"):
                if any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args):
                    return True
            if isinstance(node, cst.Call) and code(node.func).rpartition(".")[2] == "assemble":
                if any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args[1:]):
                    return True
        return False

    def _kernel(self, run: list[cst.CSTNode]) -> cst.With:
        first = run[0]
        run[0] = first.with_changes(leading_lines=[])
        return self.at.with_changes(leading_lines=first.leading_lines, body=self.at.body.with_changes(body=run))

    def _kind(self, statement) -> str:
        """'stays' in the orchestration, 'allocation' (a tensor the next kernel may claim) or
        'kernel'."""
        if any(type(n) is cst.With and any(self._scope(i.item) for i in n.items)
               for n in (statement, *statements_below(statement))):  # a `with` is a statement
            return "stays"  # a kernel already, or a loop around kernels
        if isinstance(statement, cst.SimpleStatementLine):
            small = statement.body
            if all(isinstance(s, cst.Return) or (isinstance(s, (cst.Pass, cst.Expr)) and not _calls(s)) for s in small):
                return "stays"  # return, pass, a docstring
            name, value = binding(statement)
            if name is not None and name in self.scalars:
                return "stays"
            if name is not None and self._allocation(value):
                return "allocation"
        if self.computes is not None and not self.computes(statement):
            return "stays"
        return "kernel"

    def _scope(self, call) -> bool:
        if not isinstance(call, cst.Call):
            return False
        text = code(call.func)
        return any(text == f"{self.alias}.{s}" for s in KERNEL_SCOPES)

    def _allocation(self, value) -> bool:
        return isinstance(value, cst.Call) and any(code(value.func) == f"{self.alias}.{a}" for a in ALLOCATIONS)


def _calls(small) -> bool:
    return any(isinstance(n, cst.Call) for n in walk(small))
