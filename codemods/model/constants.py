"""The Python numbers of a pl program: the module's and the builder's constants, what an
expression of them evaluates to, and the type the DSL gives a number.

The compiler folds these when the program is built: a tile shape `[B, K]` or a loop bound
`H * QB` is a number by then, which the planner, the strict check and the capacity model
need to reason about sizes.
"""

from __future__ import annotations

import ast
import math
from typing import NamedTuple
from functools import lru_cache

import libcst as cst

from ..syntax.nodes import code


_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Div, ast.Mod, ast.Pow)


def evaluate(expr: str, env: dict[str, float]) -> float | None:
    """Plain arithmetic on literals and known names; None for anything else."""
    tree = _parsed(expr.strip())
    if tree is None:
        return None
    try:
        value = _ev(tree, env)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    return value if not isinstance(value, float) or math.isfinite(value) else None


def _ev(n: ast.AST, env: dict[str, float]) -> float:
    # Module level, not a closure in `evaluate`: a nested function that calls itself is a
    # reference cycle, and the thousands of them a big file makes were left to the collector.
    if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
        return n.value
    if isinstance(n, ast.Name) and n.id in env:
        return env[n.id]
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        v = _ev(n.operand, env)
        return -v if isinstance(n.op, ast.USub) else v
    if isinstance(n, ast.BinOp) and isinstance(n.op, _ARITH):
        a, b = _ev(n.left, env), _ev(n.right, env)
        if isinstance(n.op, ast.Add):
            return a + b
        if isinstance(n.op, ast.Sub):
            return a - b
        if isinstance(n.op, ast.Mult):
            return a * b
        if isinstance(n.op, ast.FloorDiv):
            return a // b
        if isinstance(n.op, ast.Div):
            return a / b
        if isinstance(n.op, ast.Mod):
            return a % b
        return a**b
    raise ValueError(n)


@lru_cache(maxsize=4096)
def _parsed(expr: str) -> ast.AST | None:
    """The expression's tree (only read): the same few hundred sizes are evaluated thousands
    of times a file, once per tree and builder, and parsing was most of it."""
    try:
        return ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None


class Constant(NamedTuple):
    """A name whose value is a number when the program is built."""

    name: str
    value: float
    statement: cst.CSTNode  # where it is defined (a statement, or the builder for parameters)
    level: str  # "module" | "builder"


def scalar_dtype(node, constants: dict[str, Constant]) -> str | None:
    """The type the DSL gives a Python number: a float is an FP32 scalar, an int an INDEX one
    (literals, negated ones, arithmetic on them, and the module's and builder's constants)."""
    if is_float(node, constants):
        return "FP32"
    if isinstance(node, cst.Integer) or (isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer)):
        return "INDEX"
    if isinstance(node, cst.Name) and node.value in constants:
        return "INDEX"
    return None


def is_float(node, constants: dict[str, Constant]) -> bool:
    """Whether a scalar expression is a Python float: a float literal, a true division, or a
    constant defined by one (the DSL folds them into FP32 scalars)."""
    kind = type(node)  # exact types (LibCST's classes are final): no ABCMeta on every operand
    if kind is cst.Float:
        return True
    if kind is cst.UnaryOperation:
        return is_float(node.expression, constants)
    if kind is cst.BinaryOperation:
        return type(node.operator) is cst.Divide or is_float(node.left, constants) or is_float(node.right, constants)
    if kind is cst.Name and node.value in constants:
        c = constants[node.value]
        if not float(c.value).is_integer():
            return True
        body = getattr(c.statement, "body", ())
        for small in body if isinstance(body, (list, tuple)) else ():  # a simple statement's; a compound one defines no float
            if (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == node.value):
                return is_float(small.value, constants)
    return False


def _assignments(body) -> list[tuple[str, cst.BaseExpression, cst.CSTNode]]:
    out = []
    for statement in body:
        if type(statement) is not cst.SimpleStatementLine:  # exact types: no ABCMeta
            continue
        for small in statement.body:
            if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
                out.append((small.targets[0].target.value, small.value, statement))
            elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
                out.append((small.target.value, small.value, statement))
    return out


def module_constants(module: cst.Module) -> dict[str, Constant]:
    env: dict[str, float] = {}
    out: dict[str, Constant] = {}
    for name, value, statement in _assignments(module.body):
        v = evaluate(code(value), env)
        if v is not None:
            env[name] = v
            out[name] = Constant(name, v, statement, "module")
    return out


def builder_constants(builder: cst.FunctionDef, outer: dict[str, Constant]) -> dict[str, Constant]:
    """Builder parameters (their defaults) and its plain-arithmetic locals, over the module's."""
    env = {name: c.value for name, c in outer.items()}
    out: dict[str, Constant] = {}
    for param in [*builder.params.posonly_params, *builder.params.params, *builder.params.kwonly_params]:
        if param.default is not None:
            v = evaluate(code(param.default), env)
            if v is not None:
                env[param.name.value] = v
                out[param.name.value] = Constant(param.name.value, v, builder, "builder")
    body = builder.body.body if isinstance(builder.body, cst.IndentedBlock) else ()
    for name, value, statement in _assignments(body):
        v = evaluate(code(value), env)
        if v is not None:
            env[name] = v
            out[name] = Constant(name, v, statement, "builder")
    return out


_PYTHON_TYPES = {"int": "INDEX", "float": "FP32", "bool": "BOOL"}


def closure_dtypes(builder: cst.FunctionDef | None, constants: dict[str, Constant],
                   module: cst.Module | None = None) -> dict[str, str]:
    """The DSL type of each Python value a builder hands its kernels, where its value is not
    known but its Python type is: a parameter annotated `int` (or with a number as default), a
    local computed from such values, and in a builder method, an attribute its class's
    `__init__` sets from such values (`q_tile = self.q_tile`). The parser folds each into a
    scalar of that type."""
    if builder is None:
        return {}
    attributes: dict[str, str] = {}
    owner = _owner(module, builder) if module is not None else None
    init = next((s for s in owner.body.body if type(s) is cst.FunctionDef and s.name.value == "__init__"), None) \
        if owner is not None and isinstance(owner.body, cst.IndentedBlock) else None
    if init is not None:
        _typed_body(init, constants, {}, attributes)
    return _typed_body(builder, constants, attributes, None)


def _typed_body(func: cst.FunctionDef, constants, attributes: dict[str, str], sets: dict[str, str] | None) -> dict[str, str]:
    """The Python types of a function's parameters and plain locals (and, into `sets`, of what it
    assigns to attributes of `self`)."""
    found: dict[str, str] = {}
    tuples: dict[str, list] = {}  # a parameter annotated `tuple[int, int]`: each element's type
    for param in [*func.params.posonly_params, *func.params.params, *func.params.kwonly_params]:
        annotation = param.annotation.annotation if param.annotation is not None else None
        dtype = _PYTHON_TYPES.get(annotation.value) if type(annotation) is cst.Name else None
        if dtype is None and param.default is not None:
            dtype = python_dtype(param.default, found, constants)
        if dtype is not None:
            found[param.name.value] = dtype
        elif type(annotation) is cst.Subscript and code(annotation.value) == "tuple":
            tuples[param.name.value] = [_PYTHON_TYPES.get(code(e.slice.value)) for e in annotation.slice]
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else ()
    for name, value, _ in _assignments(body):
        dtype = python_dtype(value, {**found, **{f"self.{k}": v for k, v in attributes.items()}}, constants)
        if dtype is not None:
            found[name] = dtype
        else:
            found.pop(name, None)  # re-bound to something else: its type is no longer known
    if sets is not None:
        for statement in body:
            for small in getattr(statement, "body", ()) if type(statement) is cst.SimpleStatementLine else ():
                if type(small) is not cst.Assign or len(small.targets) != 1:
                    continue
                target = small.targets[0].target
                if type(target) is cst.Attribute and code(target.value) == "self":
                    dtype = python_dtype(small.value, found, constants)
                    if dtype is not None:
                        sets[target.attr.value] = dtype
                elif type(target) in (cst.Tuple, cst.List) and type(small.value) is cst.Name and small.value.value in tuples:
                    # `self._rows, self._cols = shape` of a `shape: tuple[int, int]`
                    parts = tuples[small.value.value]
                    for element, dtype in zip(target.elements, parts if len(parts) == len(target.elements) else ()):
                        if type(element.value) is cst.Attribute and code(element.value.value) == "self" and dtype:
                            sets[element.value.attr.value] = dtype
    return found


def _owner(module: cst.Module, func: cst.FunctionDef) -> cst.ClassDef | None:
    """The class whose body defines `func` directly, at any depth of the module."""
    stack = list(module.body)
    while stack:
        node = stack.pop()
        if type(node) is cst.ClassDef and isinstance(node.body, cst.IndentedBlock):
            if any(s is func for s in node.body.body):
                return node
            stack.extend(node.body.body)
        elif type(node) is cst.FunctionDef and isinstance(node.body, cst.IndentedBlock):
            stack.extend(node.body.body)
    return None


def python_dtype(node, known: dict[str, str], constants: dict[str, Constant]) -> str | None:
    """The DSL type of a Python expression of numbers (`(n + t - 1) // t`, `int(x)`, `2.0 * s`)."""
    kind = type(node)
    if kind is cst.Integer:
        return "INDEX"
    if kind is cst.Float:
        return "FP32"
    if kind is cst.Name:
        if node.value in ("True", "False"):
            return "BOOL"
        return known.get(node.value) or (scalar_dtype(node, constants) if node.value in constants else None)
    if kind is cst.Attribute and type(node.value) is cst.Name:
        return known.get(f"{node.value.value}.{node.attr.value}")
    if kind is cst.UnaryOperation:
        return python_dtype(node.expression, known, constants)
    if kind is cst.BinaryOperation:
        if type(node.operator) is cst.Divide:
            return "FP32"
        a, b = python_dtype(node.left, known, constants), python_dtype(node.right, known, constants)
        if a is None or b is None:
            return None
        return a if a == b else ("FP32" if {a, b} == {"FP32", "INDEX"} else None)
    if kind is cst.Call and type(node.func) is cst.Name:
        if node.func.value in _PYTHON_TYPES:
            return _PYTHON_TYPES[node.func.value]
        if node.func.value in ("min", "max") and node.args:
            dtypes = {python_dtype(a.value, known, constants) for a in node.args}
            return dtypes.pop() if len(dtypes) == 1 else None
    return None
