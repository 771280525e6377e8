"""Walking LibCST trees fast: the children of a node read off its fields, trivia skipped.

LibCST's `node.children` rebuilds the node through a visitor on every call, and a
CSTVisitor pass rebuilds every node it passes; both dominated the analyses. Here the
fields a node type visits, and in which order, are learnt once per type from LibCST
itself, so `children(node)` is exactly `node.children` (same nodes, same order) at the
cost of a few attribute reads. `content` and `walk` also skip trivia (whitespace,
comments, punctuation, operator tokens): six nodes in ten, none of which holds a name,
a call or a statement.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator

import libcst as cst
from libcst import MaybeSentinel

from .memo import cached, memoized, table


def _concrete(kind: type) -> set[type]:
    found = set()
    for sub in kind.__subclasses__():
        found |= _concrete(sub)
        if not getattr(sub, "__abstractmethods__", None):
            found.add(sub)
    return found


_TRIVIA_BASES = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Comment, cst.Newline,
    cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
    cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.ImportStar,
    cst.Asynchronous, cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp,
)
TRIVIA = frozenset(set(_TRIVIA_BASES) | set().union(*(_concrete(base) for base in _TRIVIA_BASES)))

# Every concrete node class: `type(x) in NODE_TYPES` is `isinstance(x, cst.CSTNode)` without ABCMeta.
NODE_TYPES = frozenset(_concrete(cst.CSTNode))

# Names and literals: nodes whose only children are trivia (their parentheses).
LEAVES = frozenset({cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString})

# Simple statement lines and compound statements: the units the analyses summarise.
STATEMENT_TYPES = frozenset(_concrete(cst.BaseStatement))
# Read off the MROs: `issubclass` on LibCST's classes goes through ABCMeta, which asks every
# subclass of the base in turn for each class it is not a base of (3% of a DeepSeek run, here).
COMPOUND_TYPES = frozenset(k for k in STATEMENT_TYPES if cst.BaseCompoundStatement in k.__mro__)
EXPRESSION_TYPES = frozenset(k for k in NODE_TYPES if cst.BaseExpression in k.__mro__)


class _FieldOrder(cst.CSTVisitor):
    """Records which fields a node type visits, in order, without entering them."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


class _Layout(typing.NamedTuple):
    fields: tuple[str, ...]  # every field the type visits, in order
    content: tuple[str, ...]  # of those, the ones that may hold more than trivia
    maybe: tuple[str, ...]  # fields the type visits only when they are set


_LAYOUTS: dict[type, _Layout] = {}


def layout(node: cst.CSTNode) -> _Layout:
    """The fields LibCST visits in a node of this type, in its order, learnt from the first one."""
    kind = type(node)
    known = _LAYOUTS.get(kind)
    if known is None:
        known = _LAYOUTS[kind] = _learn(node)
    return known


def _learn(node: cst.CSTNode) -> _Layout:
    """A few types visit a field only when it is set (an f-string's `format_spec`): a field
    the first instance did not visit, and that held nothing there, is checked every time."""
    recorder = _FieldOrder()
    node._visit_and_replace_children(recorder)
    fields = tuple(dict.fromkeys(recorder.fields))
    declared = dataclasses.fields(node)
    maybe = tuple(f.name for f in declared if f.name not in fields and _holds_nodes(getattr(node, f.name), empty=True))
    # LibCST annotates its nodes' fields with the classes themselves: the declared types are
    # what `typing.get_type_hints` would evaluate, at a tenth of its cost (a string left in
    # one keeps its field, see below).
    types = {f.name: f.type for f in declared}
    return _Layout(fields, tuple(f for f in fields if not _trivia_only(types.get(f))), maybe)


def _trivia_only(hint) -> bool:
    """Does a field's annotation admit only trivia nodes (besides None and sentinels)?"""
    if hint is None:
        return False
    classes = _classes(hint)
    if any(isinstance(k, (str, typing.ForwardRef)) for k in classes):
        return False  # a name not resolved here: it may be anything
    # Read off the classes' MROs and the TRIVIA set: `issubclass` on LibCST's classes goes
    # through ABCMeta, which cost more than the rest of learning a layout.
    kinds = [k for k in classes if isinstance(k, type) and cst.CSTNode in k.__mro__]
    return bool(kinds) and all(k in TRIVIA for k in kinds)


def _classes(hint) -> set:
    args = typing.get_args(hint)
    if not args:
        return {hint}
    return set().union(*(_classes(a) for a in args))


def holds_nodes_in(node: cst.CSTNode, fields: tuple[str, ...]) -> bool:
    """Whether any of these fields of the node holds a node."""
    return any(_holds_nodes(getattr(node, name)) for name in fields)


def _holds_nodes(value, empty: bool = False) -> bool:
    if value is None:
        return empty
    if isinstance(value, (tuple, list)):
        return empty or bool(value)
    # Not `isinstance(value, cst.CSTNode)`: for a str or a sentinel, ABCMeta first asks each of
    # LibCST's few hundred classes (once per type, a few thousand calls in a run).
    return type(value) in NODE_TYPES


def _read(node: cst.CSTNode, fields: tuple[str, ...]) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        if value is None or value is MaybeSentinel.DEFAULT:
            continue
        if isinstance(value, (tuple, list)):
            out.extend(value)
        else:
            out.append(value)
    return out


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node.children`: the same nodes in the same order, without rebuilding the node."""
    fields = layout(node)
    if fields.maybe and holds_nodes_in(node, fields.maybe):
        return list(node.children)  # a field this type visits only sometimes: LibCST knows where
    return _read(node, fields.fields)


def _content(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """The children of a node that are not trivia, in source order. Kept per node while a
    file is processed (`content`): the op index, the strict check, liveness and the region
    and interest walks each go over the same (mostly shared) trees."""
    fields = _LAYOUTS.get(type(node)) or layout(node)  # the lookup inline: this runs for every node
    if fields.maybe and holds_nodes_in(node, fields.maybe):
        return tuple([child for child in node.children if type(child) not in TRIVIA])
    # `_read` and the trivia filter in one loop: this runs once for every node of every tree.
    out: list[cst.CSTNode] = []
    for name in fields.content:
        value = getattr(node, name)
        if value is None or value is MaybeSentinel.DEFAULT:
            continue
        kind = type(value)
        if kind is tuple or kind is list or (kind not in TRIVIA and isinstance(value, (tuple, list))):
            out.extend([child for child in value if type(child) not in TRIVIA])
        elif kind not in TRIVIA:
            out.append(value)
    return tuple(out)


content = memoized("content")(_content)


def known_content() -> dict:
    """`content`'s answers so far, for the walks below to read without a call per node (the
    memo's wrapper cost as much as a walk's own work). Outside `per_file()`, a table of one walk."""
    known = table("content")
    return known if known is not None else {}


def content_into(node: cst.CSTNode, known: dict) -> tuple[cst.CSTNode, ...]:
    """`content(node)` where `known` (`known_content()`) has no answer yet: computed and kept
    there, without the memo's wrapper and its second look."""
    found = _content(node)
    known[id(node)] = (node, found)
    return found


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node of a subtree but trivia, the root first (order otherwise unspecified)."""
    known = known_content()
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        hit = known.get(id(n))
        stack.extend(hit[1] if hit is not None and hit[0] is n else content_into(n, known))


@memoized("own-and-nested")
def own_and_nested(node: cst.CSTNode) -> tuple[list[cst.CSTNode], list[cst.CSTNode]]:
    """The nodes of a subtree outside any nested statement (the root included, trivia not),
    and the statements nested directly in it: what a summary of a statement computes
    itself, and what it takes from the (cached) summaries of its inner statements. Kept per
    node for the file (what a statement reads, writes and binds is each asked of it), so
    the lists are read, never changed."""
    own: list[cst.CSTNode] = []
    nested: list[cst.CSTNode] = []
    known = known_content()
    stack = [node]
    while stack:
        n = stack.pop()
        own.append(n)
        hit = known.get(id(n))
        for child in hit[1] if hit is not None and hit[0] is n else content_into(n, known):
            (nested if type(child) in STATEMENT_TYPES else stack).append(child)
    return own, nested


def imports(module: cst.Module) -> list[cst.Import | cst.ImportFrom]:
    """Every import statement of a module, at any depth (only statements are walked)."""
    return [small for node in statements_below(module) if type(node) is cst.SimpleStatementLine
            for small in node.body if type(small) in (cst.Import, cst.ImportFrom)]


def statements_below(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every statement below `root`, at any depth (order otherwise unspecified), through the
    statements' own summaries: what names a function or a class is found without a walk of
    every node (a simple statement line holds none)."""
    stack: list[cst.CSTNode] = list(own_and_nested(root)[1])
    while stack:
        node = stack.pop()
        yield node
        if type(node) is not cst.SimpleStatementLine:
            stack.extend(own_and_nested(node)[1])


def ancestors(root: cst.CSTNode, wanted: set[int]) -> set[int]:
    """The ids of the nodes that have a node of `wanted` (ids; trivia never) strictly below them."""
    found: set[int] = set()
    if not wanted:
        return found
    up = parents(root)
    for key in wanted:
        for above in up.get(key, ()):
            _climb(above, up, found)
    return found


def _climb(key: int, up: dict[int, tuple[int, ...]], found: set[int]) -> None:
    while key not in found:
        found.add(key)
        above = up.get(key, ())
        if not above:
            return
        for other in above[1:]:  # a node object used in two places has two parents
            _climb(other, up, found)
        key = above[0]


def parents(root: cst.CSTNode) -> dict[int, tuple[int, ...]]:
    """`id(node) -> ids of its parents` for every node below `root` (trivia never): one walk
    per tree, kept while the file is processed; the strict check and the engine's choice of
    subtrees to enter both ask which nodes hold a given few."""
    return cached("parents", root, _parents)


def made_from(tree: cst.CSTNode, previous: cst.CSTNode) -> None:
    """Say that a phase made `tree` out of `previous` (LibCST rebuilt only what changed): the
    parents of the nodes they share are then taken from `previous`'s, where it has them."""
    links = table("made-from")
    if links is not None:
        links[id(tree)] = (tree, previous)


def _parents(root: cst.CSTNode) -> dict[int, tuple[int, ...]]:
    up: dict[int, tuple[int, ...]] = {}
    link = (table("made-from") or {}).get(id(root))
    if link is not None and link[0] is root:
        previous = (table("parents") or {}).get(id(link[1]))
        if previous is not None and previous[0] is link[1]:
            # A tree a phase made: the map of the tree it was made from, and only the new nodes
            # walked (a shared node is found there, its subtree with it). A shared node keeps its
            # old parents besides its new ones: an old parent no longer in the tree was rebuilt,
            # and so were all the nodes above it, none of them in the tree either; the ancestors
            # found through them are never asked about.
            up = dict(previous[1])
    known = known_content()
    stack = [root]
    while stack:
        node = stack.pop()
        key = id(node)
        hit = known.get(key)
        for child in hit[1] if hit is not None and hit[0] is node else content_into(node, known):
            child_key = id(child)
            seen = up.get(child_key)
            if seen is None:
                up[child_key] = (key,)
                if type(child) not in LEAVES:  # a third of the nodes, with nothing below to map
                    stack.append(child)
            elif key not in seen:  # the same object again, elsewhere: its subtree is walked once
                up[child_key] = seen + (key,)
    return up
