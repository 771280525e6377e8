"""LibCST's code generation with its parentheses opened by a small class.

Every expression LibCST prints goes through `_parenthesize`, a `contextlib.contextmanager`
that opens the node's syntactic-position context inside it: two generators and their
frames per expression. On the DeepSeek four that machinery is a third of a print (LibCST's
own `module.code`: 50 to 34 ms). While this package prints, the method is a class that
writes the same parentheses and records the same start. Upstream could do the same.

Only a `_parenthesize` this module knows is replaced (its names are checked), only for
the time of a print, and LibCST's is put back after. A state that can record a start
directly (`syntactic_start`, ours) is told so; any other gets its own context, as LibCST
opens it, so code that prints in another thread meanwhile is served exactly as before.
"""

from __future__ import annotations

from types import MethodType

import libcst as cst
from libcst._nodes.base import CSTCodegenError
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst._nodes.internal import CodegenState

CodegenError = CSTCodegenError  # what a node that prints only inside its parent raises alone; `libcst` does not export it

# What LibCST's `_parenthesize` reads (libcst 1.x): another body is left alone.
_KNOWN_NAMES = ("lpar", "_codegen", "record_syntactic_position", "rpar")
_LIBCSTS = _BaseParenthesizedNode.__dict__.get("_parenthesize")
_BODY = getattr(_LIBCSTS, "__wrapped__", None)
_KNOWN = _BODY is not None and _BODY.__code__.co_names == _KNOWN_NAMES


class _Parenthesized:
    __slots__ = ("node", "state", "position")

    def __init__(self, node, state) -> None:
        self.node, self.state, self.position = node, state, None

    def __enter__(self) -> None:
        node, state = self.node, self.state
        for lpar in node.lpar:
            lpar._codegen(state)
        record = getattr(state, "syntactic_start", None)
        if record is not None:
            record(node)  # its start is where its code begins inside the parentheses
        else:
            self.position = state.record_syntactic_position(node)
            self.position.__enter__()

    def __exit__(self, kind, value, traceback) -> bool:
        if self.position is not None:
            self.position.__exit__(kind, value, traceback)
        if kind is None:  # as the generator: an error inside leaves the parentheses open
            for rpar in self.node.rpar:
                rpar._codegen(self.state)
        return False


def _parenthesized(node, state):
    # A function, not the class itself: set on LibCST's class, only a function binds the node.
    if not node.lpar and not node.rpar:
        # Most expressions: nothing to write, and their start is here (nothing is written
        # between this call and its context's entry).
        record = getattr(state, "syntactic_start", None)
        if record is not None:
            record(node)
            return NOTHING
    return _Parenthesized(node, state)


class light_parentheses:  # noqa: N801 - a context manager, named as contextlib's are
    """For the code generations run inside: LibCST's `_parenthesize` as a class. Inside
    another such block (or while another thread has one open) this one changes nothing."""

    __slots__ = ("swapped",)

    def __enter__(self) -> None:
        self.swapped = _KNOWN and _BaseParenthesizedNode.__dict__.get("_parenthesize") is _LIBCSTS
        if self.swapped:
            _BaseParenthesizedNode._parenthesize = _parenthesized

    def __exit__(self, *exc) -> bool:
        if self.swapped:
            _BaseParenthesizedNode._parenthesize = _LIBCSTS
        return False


class _Nothing:
    """The context of a position nobody asked for, entered for most expressions a print writes
    (a million in a big file's): its two methods are functions of C, which `with` calls as they
    are (they are no descriptors, so nothing is bound), a third of the cost of two Python
    methods. `tuple()` is the empty tuple; `"".format(type, value, traceback)` is "", false,
    so an exception raised inside goes on as it would."""

    __slots__ = ()

    __enter__ = tuple
    __exit__ = "".format


NOTHING = _Nothing()


class _Plain(CodegenState):
    """`code_for_node`'s state, which records no position."""

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return NOTHING

    def syntactic_start(self, node) -> None:
        pass


# LibCST's `add_token` (libcst 1.x) appends to `tokens` and does nothing else.
_APPENDS = CodegenState.add_token.__code__.co_names == ("tokens", "append")


def direct_tokens(state: CodegenState) -> None:
    """LibCST writes every token through `state.add_token`, a method around the list's
    `append`: the list's own bound `append` in its place spares a Python call per token
    (only while that method does nothing else).

    The attribute is set either way: a state whose class declares `add_token` in its
    `__slots__` (CodegenState has slots, so ours must to take the fast path) shadows LibCST's
    method with an empty slot, which a LibCST whose `add_token` does more would find unset.
    Such a state gets LibCST's own method, bound."""
    if _APPENDS:
        state.add_token = state.tokens.append
    else:
        state.add_token = MethodType(CodegenState.add_token, state)


def code_for_node(node: cst.CSTNode, module: cst.Module) -> str:
    """`module.code_for_node(node)`: the same text, printed the light way (or its
    `CodegenError`, for a node that prints only inside its parent)."""
    state = _Plain(default_indent=module.default_indent, default_newline=module.default_newline)
    direct_tokens(state)
    with light_parentheses():
        node._codegen(state)
    return "".join(state.tokens)
