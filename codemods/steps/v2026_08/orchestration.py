"""Compute left in an orchestration function, outside every kernel scope (e2d0f78ae's
orchestration code generator: "Misplaced tensor op 'tensor.cast' in Orchestration function
(should be inside InCore block)").

The pass pipeline accepts such an op, so the kernel seems to compile; the generator of the
host code, which writes only allocations, scalar reads, views and copies (create, read,
slice, reshape, assemble, ...), refuses it. Kernels written for the spring of 2026 hold some:
a loop beside the `pl.auto_incore()` scopes, whose compute the compiler of the day only
warned about (pypto #428's verifier). A kernel of its own around the statement computes the
same, so each run of such statements gets one (`upgrade_outline.Outliner`), in an
orchestration function that already has kernel scopes (or a `@pl.jit` entry that has them
or calls a function of the module that has them): one with neither is not a kernel program of this shape, and stays
as it is.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import code, statements
from ...syntax.traversal import children, walk
from .base import Upgrade, decorated_as, kernel_scope
from .outline import Outliner, scalar_names
from ..registry import kind

# what the orchestration code generator writes (its registry of tensor ops at e2d0f78ae,
# src/codegen/tensor_op_codegen.cpp), the parser's markers that leave no op in a kernel's place
# (`pl.dump_tag` is refused inside a kernel scope, `pl.no_dep` marks a kernel call's argument),
# the task launches, and the DSL's own non-ops (loops, scopes, scalar min/max of sizes)
HOST_OPS = frozenset({
    "create_tensor", "create", "read", "write", "slice", "assemble", "reshape", "transpose", "dim", "view",
    "reinterpret_view", "dump_tag", "no_dep", "static_print", "static_assert", "submit", "spmd_submit",
    "range", "parallel", "unroll", "pipeline", "while_", "yield_", "cond", "at", "incore", "auto_incore",
    "scope", "manual_scope", "cluster", "min", "max", "const", "dynamic", "Level", "FunctionType", "MemorySpace",
})
# the system ops the orchestration code generator lowers itself (task ids, the device's core
# counts); the other `pl.system` ops (tpush, sync, ...) are a kernel's
HOST_SYSTEM_OPS = frozenset({
    "task_dummy", "task_invalid", "task_is_valid", "available_cluster_count", "available_aiv_count",
})
# host arrays (of task ids, sizes): C arrays on the host's stack
HOST_NAMESPACES = ("array",)
# a scope whose body the compiler outlines into a kernel of its own or dispatches one: what is in
# it is not the orchestration's
DISPATCH = "spmd"
ORCHESTRATION = ("Opaque", "Orchestration")


@kind("upgrade-orchestration-compute")
class OrchestrationCompute(Upgrade):
    _kernels: set[str] = frozenset()  # type: ignore[assignment]

    def begin(self, ctx) -> None:
        super().begin(ctx)
        done = set()
        # the module's functions that hold kernel scopes: a jit entry calling one orchestrates it
        kernels = {f.name.value for f in self.info.functions if any(self._scope(n) for n in walk(f.body))}
        self._kernels = kernels
        for site in self.info.sites:
            func = site.function
            if func in done:
                continue
            done.add(func)
            jit = decorated_as(func, self.info, "jit")
            if not (site.ftype in ORCHESTRATION or jit):
                continue
            if not any(self._scope(n) or (jit and _calls_one_of(n, kernels)) for n in walk(func.body)):
                continue
            scalars = scalar_names(self.info, func)
            computes = lambda st, s=scalars: self._computes(st, s)  # noqa: E731
            self._body(func, Outliner(self.info.alias, scalars, computes=computes, claim=False), computes)

    def scan(self, site) -> None:
        pass

    def _body(self, owner, outline: Outliner, computes) -> None:
        """Group the compute statements of `owner`'s body (and else body); enter the compound
        statements that hold kernel scopes (orchestration loops around kernels)."""
        body = list(statements(owner))
        orelse = getattr(owner, "orelse", None)
        if isinstance(orelse, cst.Else):
            body += statements(orelse)
        if any(not self._holds_scope(st) and computes(st) for st in body):
            self.rewrite(owner, outline.block)
        for st in body:
            if isinstance(st, (cst.For, cst.While, cst.If)) and self._holds_scope(st) and not self._dispatch(st):
                self._body(st, outline, computes)

    def _holds_scope(self, node) -> bool:
        """Holds a kernel scope, or calls a function of the module that holds one (an inline
        helper's `pl.at`: a scope around the call would nest it in another)."""
        return any(self._scope(n) or _calls_one_of(n, self._kernels) for n in walk(node))

    def _scope(self, node) -> bool:
        return kernel_scope(node, self.info) or self._dispatch(node)

    def _dispatch(self, node) -> bool:
        """`with pl.spmd(n):` or `for i in pl.spmd(n):`: its body is a kernel already."""
        if type(node) is cst.With:
            calls = [i.item for i in node.items]
        elif type(node) is cst.For:
            calls = [node.iter]
        else:
            return False
        return any(isinstance(c, cst.Call) and code(c.func) == f"{self.info.alias}.{DISPATCH}" for c in calls)

    def _computes(self, statement, scalars: set[str]) -> bool:
        """Does it call an op the host code cannot run? Read off the nodes as they are when the
        traversal leaves them (a sibling rule may have rewritten a call). A cast of a number or
        of a scalar name is the host's arithmetic; what a kernel scope in it holds is a kernel's."""
        prefix = self.info.alias + "."
        for node in _outside_scopes(statement, self._scope):
            if isinstance(node, cst.Call):
                name = code(node.func)
                space, _, op = name.rpartition(".")
                if not name.startswith(prefix) or self._host(space[len(prefix):], op):
                    continue
                first = node.args[0].value if node.args else None
                if op == "cast" and (isinstance(first, (cst.Integer, cst.Float))
                                     or (isinstance(first, cst.Name) and first.value in scalars)
                                     or (isinstance(first, cst.Call) and code(first.func).rpartition(".")[2] == "read")):
                    continue  # the host's arithmetic: a number, a scalar, an element it read
                return True
        return False

    @staticmethod
    def _host(space: str, op: str) -> bool:
        if space == "system":
            return op in HOST_SYSTEM_OPS
        return space in HOST_NAMESPACES or op in HOST_OPS

    leave_FunctionDef = Upgrade._leave


def _outside_scopes(node, scope):
    """The nodes of `node`'s subtree that no kernel scope inside it holds."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if not scope(n):
            stack.extend(children(n))


def _calls_one_of(node, names: set[str]) -> bool:
    """A call of another pl function of the module (`f(...)`, `self.f(...)`): its kernels."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) \
        and isinstance(func.value, cst.Name) and func.value.value == "self" else None
    return name in names
