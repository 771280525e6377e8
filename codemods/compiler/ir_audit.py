"""What the compiler accepts but a correct migration never produces, read off its IR dump.

The pass pipeline prints the program after each pass in the DSL itself, each function with
`@pl.function(type=pl.FunctionType.X)` and each tile with the `pl.MemRef(pl.MemorySpace.S,
...)` it was given. Three shapes of wrong structure show there (pypto-migration-idioms.md):
a tile op left in an Orchestration/Opaque function, a Tile parameter on an InCore kernel
(a Tile crossing a kernel boundary), and a vector op reading a tile that lives in Mat.

The printer writes keyword arguments inside subscripts (`pl.Tile[[4, 1], pl.INT32,
tile_view=pl.TileView(...), pl.MemRef(...)]`), which Python's grammar refuses; those `=`
are turned into `:=` token by token before `ast` reads the text.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import asdict, dataclass

from ..rulebook.loading import ApiTable

# Tile ops that move, make or reshape data rather than compute on the vector unit; the
# API table's `unit` decides for the ops it lists, this set for the others.
NOT_VECTOR = frozenset({
    "load", "store", "move", "create", "create_tile", "alloc", "full", "read", "getval", "setval",
    "get_block_idx", "slice", "reshape", "transpose", "fillpad",
})
OUTSIDE_KERNELS = ("Orchestration", "Opaque")
# The functions that run on a core: an outlined InCore kernel, and e2d0f78ae's halves of one that
# used both cores (its mixed kernel becomes a Group calling them).
KERNEL_TYPES = ("InCore", "AIC", "AIV")


@dataclass(frozen=True)
class StructureProblem:
    function: str
    op: str  # the op (pl.tile.add) or, for a Tile parameter, the parameter's name
    message: str
    line: int = 1  # in the user's file, where the compiler named one; an IR dump names none
    column: int = 1

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Kernel:
    """A kernel function of the IR after the last pass: every one the compiler outlined, those
    whose buffers the memory report leaves out (a kernel of scalar reads and writes) too."""

    function: str
    program: str = ""  # the builder, program class or @pl.jit entry compiled

    def to_json(self) -> dict:
        return asdict(self)


def kernels_in(text: str, program: str = "") -> list[Kernel]:
    tree = ast.parse(_subscript_keywords_as_walrus(text))
    return [Kernel(fn.name, program) for fn in _functions(tree) if _function_type(fn) in KERNEL_TYPES]


def audit_dump(text: str, api: ApiTable) -> list[StructureProblem]:
    tree = ast.parse(_subscript_keywords_as_walrus(text))
    problems: list[StructureProblem] = []
    for fn in _functions(tree):
        kind = _function_type(fn)
        spaces = _memory_spaces(fn)
        if kind == "InCore":
            for arg in fn.args.args + fn.args.kwonlyargs:
                if _is_tile_annotation(arg.annotation):
                    problems.append(StructureProblem(
                        fn.name, arg.arg,
                        f"InCore function {fn.name} takes a Tile parameter `{arg.arg}`: a Tile never crosses a kernel boundary",
                    ))
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            op = _tile_op(call.func)
            if op is None:
                continue
            shown = f"pl.tile.{op}"
            if kind in OUTSIDE_KERNELS:
                problems.append(StructureProblem(
                    fn.name, shown, f"tile op {shown} in {kind} function {fn.name}: tile ops belong in InCore kernels",
                ))
            elif is_vector_op(op, api):
                for arg in [*call.args, *(k.value for k in call.keywords)]:
                    if isinstance(arg, ast.Name) and spaces.get(arg.id) == "Mat":
                        problems.append(StructureProblem(
                            fn.name, shown,
                            f"vector op {shown} in {fn.name} reads `{arg.id}`, a tile in Mat: vector ops work on Vec tiles",
                        ))
    return problems


def is_vector_op(op: str, api: ApiTable) -> bool:
    for name in (f"tile.{op}", op):
        entry = api.ops.get(name)
        if entry is not None and entry.unit:
            return entry.unit == "vector"
    return op not in NOT_VECTOR and not op.startswith(("matmul", "gemv"))


def _subscript_keywords_as_walrus(text: str) -> str:
    lines = text.splitlines(keepends=True)
    edits: list[tuple[int, int]] = []
    brackets: list[str] = []
    previous = None
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP:
            if tok.string in "([{":
                brackets.append(tok.string)
            elif tok.string in ")]}" and brackets:
                brackets.pop()
            elif tok.string == "=" and brackets and brackets[-1] == "[" and previous is not None and previous.type == tokenize.NAME:
                edits.append(tok.start)
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            previous = tok
    for row, col in reversed(edits):  # right to left, so earlier columns stay valid
        line = lines[row - 1]
        lines[row - 1] = line[:col] + ":=" + line[col + 1:]
    return "".join(lines)


def _functions(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_decorator_name(d) == "function" for d in node.decorator_list):
            yield node


def _decorator_name(decorator: ast.expr) -> str | None:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)


def _function_type(fn: ast.FunctionDef) -> str:
    """InCore, Orchestration, ...; a bare @pl.function is Opaque, as in pypto."""
    for decorator in fn.decorator_list:
        if isinstance(decorator, ast.Call) and _decorator_name(decorator) == "function":
            for keyword in decorator.keywords:
                if keyword.arg == "type" and isinstance(keyword.value, ast.Attribute):
                    return keyword.value.attr
    return "Opaque"


def _tile_op(func: ast.expr) -> str | None:
    """`pl.tile.add` -> "add"; anything else -> None."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and func.value.attr == "tile":
        if isinstance(func.value.value, ast.Name):
            return func.attr
    return None


def _is_tile_annotation(annotation: ast.expr | None) -> bool:
    return isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Attribute) and annotation.value.attr == "Tile"


def _memory_spaces(fn: ast.FunctionDef) -> dict[str, str]:
    """Each variable's memory space, from the MemRef in the annotation that defines it."""
    spaces = {}
    for arg in fn.args.args + fn.args.kwonlyargs:
        space = _space_of(arg.annotation)
        if space:
            spaces[arg.arg] = space
    for node in ast.walk(fn):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            space = _space_of(node.annotation)
            if space:
                spaces[node.target.id] = space
    return spaces


def _space_of(annotation: ast.expr | None) -> str | None:
    if annotation is None:
        return None
    for node in ast.walk(annotation):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "MemRef" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Attribute) and isinstance(first.value, ast.Attribute) and first.value.attr == "MemorySpace":
                return first.attr
    return None
