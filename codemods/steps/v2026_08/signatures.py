"""What a function's decorator and its parameters' annotations say, before its body is read: which
functions are pl code (and of which type), and the type an annotation names."""

from __future__ import annotations

import libcst as cst

from ...model.kernels import function_type
from ...model.values import SCALAR, Val
from ...syntax.nodes import statements

PL_DECORATORS = ("function", "jit", "inline")


def scalar(dtype: str | None) -> Val:
    return Val(SCALAR, (), dtype)


def pl_functions(module: cst.Module, ops) -> list[tuple[cst.FunctionDef, str]]:
    found = []

    def decorated(func) -> str | None:
        for d in func.decorators:
            target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            name = ops.get(target) or ops.get(d.decorator) or ""
            if name.split(".")[0] in PL_DECORATORS:
                return "jit" if name.startswith("jit") else function_type(func, ops)
        return None

    def walk(body, builder):
        for statement in body:
            if isinstance(statement, cst.FunctionDef):
                ftype = decorated(statement)
                if ftype is not None:
                    found.append((statement, ftype, builder))
                else:
                    walk(statements(statement), statement if builder is None else builder)
            elif isinstance(statement, cst.ClassDef):
                walk(statements(statement), builder)

    walk(module.body, None)
    del walk  # a closure that calls itself is a reference cycle (see migrate/collector.py)
    return found
