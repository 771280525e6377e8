"""The shape of a pl program as the compiler sees it: kernel functions, regions, and its ops.

A *kernel region* is code the compiler outlines into an InCore kernel: the body of a
chunked `pl.parallel` loop inside `pl.auto_incore()` whose static trip count reaches its
chunk, or the body of a `pl.incore()` block. Everything else is orchestration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import libcst as cst

from .aliases import ScopeTracker, dotted
from .constants import Constant, builder_constants, evaluate, module_constants
from ..syntax.memo import cached, table
from ..syntax.nodes import attr_name, code, codes, statements
from ..syntax.traversal import COMPOUND_TYPES, LEAVES, content_into, known_content
from .values import SCALAR, SCALAR_VAL, TENSOR, TILE, UNKNOWN_VAL, VEC, Val

# `@pl.function(type=...)`: what the compiler makes of a function's body. A kernel type's
# whole body runs on the core (one kernel region); orchestration code has no region of its
# own; Opaque (the default) outlines its `pl.incore()` blocks and chunked parallel loops.
KERNEL_TYPES = frozenset({"InCore", "AIC", "AIV"})
HOST_TYPES = frozenset({"Orchestration", "Group"})
OPAQUE = "Opaque"

class OpIndex(ScopeTracker):
    """Every node of the module that names a pypto.language member: calls, attributes
    (`pl.view`, `pl.FP32`) and callees that are bare names (`view` of `from ... import view`).
    The one place that resolves the module's aliases; the engine, planner, rules, strict
    check and findings all read it (built once per tree and file, see `codemods.syntax.memo`)."""

    def __init__(self, module: cst.Module, prefix: str) -> None:
        self.prefix = prefix + "."
        self.ops: dict[cst.CSTNode, str] = cached(f"ops {prefix}", module, self._index)

    def _index(self, module: cst.Module) -> dict[cst.CSTNode, str]:
        # A plain pre-order walk in source order (as a LibCST visitor would go), without
        # the visitor's cost of rebuilding every node it passes. A file's phases make trees
        # that share most statements: what a statement's subtree names is kept per statement
        # (`table`), with how the names its calls start from resolve where it stands, and
        # taken again where they still resolve so.
        self._init_scopes(module)
        self._units = table(f"op-units {self.prefix}")
        pieces: list = []
        self._collect(module, pieces, set())
        ops: dict[cst.CSTNode, str] = {}
        _flatten(pieces, ops)
        return ops

    def _collect(self, top: cst.CSTNode, pieces: list, roots: set[str]) -> None:
        """The ops of `top`'s subtree in source order, as `pieces`: dicts of its own and the
        records of the statements in it (each kept whole, so a tree copies each entry once)."""
        own: dict[cst.CSTNode, str] = {}
        units, prefix, scopes = self._units, self.prefix, self._stack
        resolved: dict[str, str | None] = {}  # root name -> module, in the scope entered last
        known = known_content()
        stack: list = [top]
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in LEAVES:
                continue  # a third of the nodes: names no op by itself (a bare callee is read at its call)
            if kind is tuple:  # leaving the scope of node[0]
                scopes.pop()
                resolved = {}
                continue
            # A statement of a class body is not one: its methods resolve names past the class.
            if kind in _UNIT_TYPES and node is not top and units is not None and not scopes[-1][0]:
                record = self._unit(node)
                if own:
                    pieces.append(own)
                    own = {}
                pieces.append(record)
                roots |= record[2]
                continue
            if kind in _SCOPE_TYPES:
                self._enter(node)
                stack.append((node,))
                resolved = {}
            target = node.func if kind is cst.Call else node if kind is cst.Attribute else None
            if target is not None:
                parts = dotted(target)
                if parts:
                    root = parts[0]
                    roots.add(root)
                    module = resolved[root] if root in resolved else resolved.setdefault(root, self.resolve(root))
                    if module is not None:
                        parts[0] = module
                        name = ".".join(parts)
                        if name.startswith(prefix):
                            own[node] = name[len(prefix):]
                            if type(target) is cst.Name:
                                own[target] = own[node]
            hit = known.get(id(node))
            children = hit[1] if hit is not None and hit[0] is node else content_into(node, known)
            if children:
                stack.extend(reversed(children))
        if own:
            pieces.append(own)

    def _unit(self, statement: cst.CSTNode) -> tuple:
        """(statement, its pieces, the names its dotted callees start from, how they resolve)."""
        hit = self._units.get(id(statement))
        if hit is not None and hit[0] is statement and all(self.resolve(r) == t for r, t in hit[3]):
            return hit
        pieces: list = []
        roots: set[str] = set()
        self._collect(statement, pieces, roots)
        record = (statement, pieces, frozenset(roots), tuple((r, self.resolve(r)) for r in roots))
        self._units[id(statement)] = record
        return record


def may_name(text: str | None, module: str) -> bool:
    """Can code whose text is `text` name a member of `module` (`pypto.backend`)? Only where
    each part of its path is a word of the text: a name stands for a module by the imports,
    whose paths are written out, and the attributes after them. A file that never says
    `backend` needs no op index of `pypto.backend` (a walk of the whole tree each, per phase:
    the 2026-08 step asks for five such modules). Without the text: it may."""
    parts = module.split(".")
    # A part that is no substring of the text is no word of it: a plain search rules most out
    # (the word search goes over the whole text of a big file for each part it does not find).
    return text is None or (all(part in text for part in parts)
                            and all(re.search(rf"(?<!\w){re.escape(part)}(?!\w)", text) for part in parts))


def _flatten(pieces: list, ops: dict) -> None:
    for piece in pieces:
        if type(piece) is dict:
            ops.update(piece)
        else:
            _flatten(piece[1], ops)


_SCOPE_TYPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})
# What the op index keeps per statement: compound statements (a simple one costs less to walk
# again than to keep).
_UNIT_TYPES = COMPOUND_TYPES


def module_alias(ops: dict[cst.CSTNode, str]) -> str:
    """How the file writes the module in calls (`pl`, `lang`, `pypto.language`): generated code says the same."""
    for node, op in ops.items():
        if isinstance(node, cst.Call) and "." not in op and isinstance(node.func, cst.Attribute):
            return code(node.func.value)
    return "pl"


def parameter_value(annotation, ops: dict[cst.CSTNode, str], typed: bool = False) -> Val:
    """A kernel parameter from its annotation: `pl.Tensor[[B, H], pl.BF16]`, in `pl.Out[...]` or not.

    Only what the annotation says is known: a bare `pl.Tensor` is a Tensor of unknown shape,
    `pl.Scalar[...]` and Python's `int`/`float`/`bool` are scalars, and anything else (no
    annotation, a class of the user's) is unknown, never guessed to be a scalar.

    Two readings of the same annotation: the 2026-03 step's (a Tile lives in Vec, a scalar is
    a scalar) and, `typed`, the 2026-08 step's, which follows dtypes through scalar code (a
    scalar has its dtype, `int` is an INDEX; a bare `pl.Scalar` says none and is unknown) and
    places no Tile."""
    if annotation is None:
        return UNKNOWN_VAL
    head_node = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    head = ops.get(head_node)
    space = None if typed else VEC
    if isinstance(annotation, cst.Subscript):
        elements = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if head in ("Out", "InOut") and elements:
            return parameter_value(elements[0], ops, typed)
        if head in ("Tensor", "Tile") and elements:
            dtype = attr_name(elements[1]) if len(elements) > 1 else None
            return Val(TENSOR if head == "Tensor" else TILE, codes(elements[0]), dtype, space if head == "Tile" else None)
        if typed and head == "Scalar" and elements:
            return Val(SCALAR, (), attr_name(elements[0]))
    if head in ("Tensor", "Tile"):
        return Val(TENSOR) if head == "Tensor" else Val(TILE, space=space)
    if isinstance(annotation, cst.Name) and annotation.value in ("int", "float", "bool"):
        return Val(SCALAR, () if typed else None, _PYTHON_DTYPES[annotation.value])
    if head == "Scalar" and not typed:
        elements = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)] if isinstance(annotation, cst.Subscript) else []
        return SCALAR_VAL.but(dtype=attr_name(elements[0])) if elements else SCALAR_VAL
    return UNKNOWN_VAL


_PYTHON_DTYPES = {"int": "INDEX", "bool": "BOOL", "float": "FP32"}


def function_type(func: cst.FunctionDef, ops: dict[cst.CSTNode, str]) -> str:
    """`InCore` for `@pl.function(type=pl.FunctionType.InCore)`; `Opaque` when not said."""
    for d in func.decorators:
        call = d.decorator
        if not isinstance(call, cst.Call) or ops.get(call) != "function":
            continue
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "type":
                named = ops.get(arg.value)
                if named and named.startswith("FunctionType."):
                    return named.split(".", 1)[1]
    return OPAQUE


@dataclass
class Region:
    """Code the compiler outlines into one InCore kernel."""

    index: int
    kind: str  # "parallel" | "incore"
    node: cst.CSTNode  # the For or With whose body is the kernel
    scope: cst.With | None  # the enclosing auto_incore, if any
    loop_var: str | None = None
    start: str = "0"
    stop: str = ""
    step: str = "1"
    ops: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"kernel {self.index}"

    def iteration_index(self) -> str:
        """The loop variable as an index 0, 1, 2, ... of the iterations."""
        var = self.loop_var or "0"
        if self.start == "0":
            return var if self.step == "1" else f"{var} // {self.step}"
        shifted = f"({var} - {self.start})"
        return shifted if self.step == "1" else f"{shifted} // {self.step}"

    def trip_count(self, env: dict[str, float] | None = None) -> str:
        if self.start.isdigit() and self.stop.isdigit() and self.step.isdigit():
            return str(-(-(int(self.stop) - int(self.start)) // int(self.step)))
        span = self.stop if self.start == "0" else f"({self.stop} - {self.start})"
        if self.step == "1":
            return span
        return f"{span} // {self.step}" if self.start == "0" else f"({span} + {self.step} - 1) // {self.step}"


class KernelFunction(NamedTuple):
    """A `@pl.function` and what surrounds it (read, never changed: consumers share it)."""

    node: cst.FunctionDef
    builder: cst.FunctionDef | None
    program: cst.ClassDef | None
    constants: dict[str, Constant]  # the builder's and the module's
    type: str = OPAQUE


def kernel_functions(module: cst.Module, ops: dict[cst.CSTNode, str]) -> tuple[KernelFunction, ...]:
    """Every `@pl.function`, with the builder function and `@pl.program` class around it.
    Kept per tree and op index for the file: the region pass, the planner and the strict
    check each ask it of the same tree (and the constants cost a parse each)."""
    known = table("kernel functions")
    hit = known.get(id(module)) if known is not None else None
    if hit is not None and hit[0] is module and hit[1] is ops:
        return hit[2]
    found = tuple(_kernel_functions(module, ops))
    if known is not None:
        known[id(module)] = (module, ops, found)
    return found


def _kernel_functions(module: cst.Module, ops: dict[cst.CSTNode, str]) -> list[KernelFunction]:
    found: list[KernelFunction] = []
    mod_consts = module_constants(module)

    def decorated(node, name: str) -> bool:
        for d in node.decorators:
            target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            if ops.get(target) == name or ops.get(d.decorator) == name:
                return True
        return False

    def walk(body, builder, program, consts):
        for statement in body:
            if type(statement) is cst.FunctionDef:
                if decorated(statement, "function"):
                    found.append(KernelFunction(statement, builder, program, consts, function_type(statement, ops)))
                elif builder is None and program is None:
                    inner = {**consts, **builder_constants(statement, consts)}
                    walk(statements(statement), statement, None, inner)
            elif type(statement) is cst.ClassDef:
                walk(statements(statement), builder, statement if decorated(statement, "program") else program, consts)

    walk(module.body, None, None, mod_consts)
    del walk  # a closure that calls itself is a reference cycle (see migrate/collector.py)
    return found




def scope_kind(node, ops: dict[cst.CSTNode, str]) -> str | None:
    """What a `with` item opens: "incore" (`pl.incore()`, and from 2026-04 on
    `pl.at(level=pl.Level.CORE_GROUP)`), "auto_incore" (`pl.auto_incore()`, or a `pl.at` that
    asks for chunked loops: `optimization=pl.chunked_loop_optimizer`, `optimizations=[pl.auto_chunk]`),
    or None."""
    op = ops.get(node) if isinstance(node, cst.Call) else None
    if op in ("incore", "auto_incore"):
        return op
    if op != "at":
        return None
    keywords = {a.keyword.value: code(a.value) for a in node.args if a.keyword is not None}
    if any(k in keywords and ("chunked_loop_optimizer" in keywords[k] or "auto_chunk" in keywords[k])
           for k in ("optimization", "optimizations")):
        return "auto_incore"
    return "incore" if keywords.get("level", "").endswith("CORE_GROUP") else None


def find_regions(func: cst.FunctionDef, ops: dict[cst.CSTNode, str], env: dict[str, float]) -> list[tuple[Region, list]]:
    """The kernel regions of a function, outermost first, each with its body.

    The function's declared type comes first: a kernel function is one region, its whole
    body; an orchestration function has none (its callees are the kernels)."""
    found: list[tuple[Region, list]] = []
    declared = function_type(func, ops)
    if declared in KERNEL_TYPES:
        return [(Region(1, "function", func, None), list(statements(func)))]
    if declared in HOST_TYPES:
        return found

    def op(node) -> str | None:
        return ops.get(node) if isinstance(node, cst.Call) else None

    def walk(stmts, scope, inside):
        for s in stmts:
            if type(s) is cst.With:  # exact types: isinstance on LibCST's classes goes through ABCMeta
                names = [scope_kind(item.item, ops) for item in s.items]
                if "incore" in names and not inside:
                    found.append((Region(len(found) + 1, "incore", s, scope), statements(s)))
                    walk(statements(s), scope, True)
                else:
                    walk(statements(s), s if "auto_incore" in names else scope, inside)
            elif type(s) is cst.For:
                r = _parallel_region(s, scope, len(found) + 1, ops, env) if scope is not None and not inside else None
                if r is not None:
                    found.append((r, statements(s)))
                walk(statements(s), scope, inside or r is not None)
            elif type(s) is cst.If or type(s) is cst.While:
                walk(statements(s), scope, inside)
                if type(s) is cst.If and s.orelse is not None:
                    walk(statements(s.orelse), scope, inside)

    walk(statements(func), None, False)
    del walk  # a closure that calls itself is a reference cycle (see migrate/collector.py)
    return found


def chunked_bounds(loop: cst.For, ops: dict[cst.CSTNode, str]) -> list[tuple[str, cst.BaseExpression]]:
    """The start, stop and step a chunked loop (`pl.range`/`pl.parallel`/`pl.unroll` with
    `chunk=`) is written with, by role: the compiler needs each as a compile-time constant."""
    call = loop.iter
    if not isinstance(call, cst.Call) or ops.get(call) not in ("range", "parallel", "unroll"):
        return []
    if not any(a.keyword is not None and a.keyword.value == "chunk" for a in call.args):
        return []
    pos = [a.value for a in call.args if a.keyword is None and not a.star]
    roles = {1: ("stop",), 2: ("start", "stop"), 3: ("start", "stop", "step")}.get(len(pos), ())
    return list(zip(roles, pos))


COUNTER, CARRIED, UNPACKED = "counter", "carried", "unpacked"


def loop_targets(loop: cst.For, ops: dict[cst.CSTNode, str]) -> list[tuple[str, str, cst.BaseExpression | None]]:
    """What a `for` binds: (name, how, start) for each name of its target. A plain target is
    the loop's COUNTER; `for i, (acc,) in pl.range(n, init_values=(t0,))` binds the counter `i`
    and CARRIED `acc`, which starts as `t0`; any other unpacked name is UNPACKED (its value is
    not known here). Every name is rebound: none keeps what it was before the loop."""
    target = loop.target
    if type(target) is cst.Name:
        return [(target.value, COUNTER, None)]
    call = loop.iter
    inits: list = []
    if type(call) is cst.Call and ops.get(call) in ("range", "parallel", "unroll"):
        init = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "init_values"), None)
        if type(init) in (cst.Tuple, cst.List):
            inits = [e.value for e in init.elements]
    elements = [e.value for e in target.elements] if type(target) in (cst.Tuple, cst.List) else []
    if inits and len(elements) == 2 and type(elements[0]) is cst.Name and type(elements[1]) in (cst.Tuple, cst.List):
        carried = [e.value for e in elements[1].elements]
        out = [(elements[0].value, COUNTER, None)]
        for i, name in enumerate(carried):
            if type(name) is cst.Name:
                out.append((name.value, CARRIED, inits[i] if i < len(inits) else None))
            else:
                out.extend((n.value, UNPACKED, None) for n in _names_in(name))
        return out
    return [(n.value, UNPACKED, None) for n in _names_in(target)]


def _names_in(target) -> list[cst.Name]:
    if type(target) is cst.Name:
        return [target]
    if type(target) in (cst.Tuple, cst.List):
        return [n for e in target.elements for n in _names_in(e.value)]
    if type(target) is cst.StarredElement:
        return _names_in(target.value)
    return []


def _parallel_region(loop: cst.For, scope, index: int, ops, env) -> Region | None:
    call = loop.iter
    if not isinstance(call, cst.Call) or ops.get(call) != "parallel" or not isinstance(loop.target, cst.Name):
        return None
    chunk = next((a for a in call.args if a.keyword and a.keyword.value == "chunk"), None)
    if chunk is None:
        return None
    vals = [code(a.value) for a in call.args if a.keyword is None]
    start, stop, step = ("0", vals[0], "1") if len(vals) == 1 else (vals[0], vals[1], vals[2] if len(vals) > 2 else "1")
    trips = evaluate(f"(({stop}) - ({start}) + ({step}) - 1) // ({step})", env)
    chunk_n = evaluate(code(chunk.value), env)
    if trips is not None and chunk_n is not None and trips < chunk_n:
        return None  # too short to be outlined: it stays in orchestration
    return Region(index, "parallel", loop, scope, loop.target.value, start, stop, step)
