"""What a rule sees of the file while the engine's traversal runs: the tree, the API, the
op index, the plan (computed on first request), and where it records statement edits and
review markers for the engine to write."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

import libcst as cst

from ..model.kernels import OpIndex
from ..rulebook.loading import ApiTable, Rule
from ..syntax.positions import starts
from .presumption import presumed


# The texts of the modules beside the file that it imports (module name -> text), given by
# whoever knows where the file is (the runner): a rule reads what a kernel of another module
# does to the tensors handed to it. Empty for a text without a place (stdin, tests).
_NEIGHBOURS: ContextVar[Mapping[str, str]] = ContextVar("neighbours", default={})


@contextmanager
def neighbours_given(texts: Mapping[str, str]) -> Iterator[None]:
    token = _NEIGHBOURS.set(texts)
    try:
        yield
    finally:
        _NEIGHBOURS.reset(token)


class Context:
    """What a rule sees of the file while the traversal runs."""

    def __init__(self, module: cst.Module, api: ApiTable, text: str | None = None) -> None:
        self.api = api
        self.module = module
        self.text = text  # the module's code, when known
        self.ops = OpIndex(module, api.module).ops
        self._plan = None
        self.flags: list[tuple[Rule, cst.CSTNode, str]] = []
        self.node_flags: dict[cst.CSTNode, list[tuple[Rule, str]]] = {}
        self.statement_edits: dict[cst.CSTNode, list[tuple[Rule, str, str]]] = {}
        self.open_statements: list[cst.CSTNode] = []  # the statements being traversed, innermost last
        self.neighbours: Mapping[str, str] = _NEIGHBOURS.get()
        self.presumed: bool = presumed()  # the file is taken to be the target's own code
        self.within: frozenset[str] = frozenset()  # the neighbours being read on the way here (a cycle stops)

    def plan(self):
        """The migration plan of this file, computed once, on the input, for all rules."""
        if self._plan is None:
            from .planner import plan_module  # only type-directed rules pay for it

            self._plan = plan_module(self.module, self.api, self.text)
        return self._plan

    def insert(self, rule: Rule, where: str, node: cst.CSTNode, code: str = "") -> None:
        """Statement edits: code `before`/`after` a statement, `prepend` to a body, `remove` it."""
        self.statement_edits.setdefault(node, []).append((rule, where, code))

    def flag_at(self, rule: Rule, statement: cst.CSTNode, message: str) -> None:
        self.node_flags.setdefault(statement, []).append((rule, message))

    def op_of(self, func: cst.BaseExpression) -> str | None:
        """The API op a callee names here ('view', 'tensor.read'), resolving the module alias."""
        return self.ops.get(func)

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        """1-based line and column of a node of the *input* tree (a code generation pass: for
        errors; the edits of a phase are placed together, see `migrate`)."""
        return starts(self.module, [node])[id(node)]

    def flag(self, rule: Rule, node: cst.CSTNode, message: str) -> None:
        """Ask a person to decide at this node's statement; the engine writes the marker."""
        if self.open_statements:
            # The statement whose own code holds the node: a `with` header's call is marked at
            # the `with`, not at the first line of its body (whichever is left first).
            self.flag_at(rule, self.open_statements[-1], message)
        else:
            self.flags.append((rule, node, message))
