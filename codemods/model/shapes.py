"""Tile shapes must be compile-time constants: arithmetic in them becomes a named constant.

`[1, ROPE_DIM // 2]` becomes `[1, ROPE_DIM_HALF]` with `ROPE_DIM_HALF = ROPE_DIM // 2` beside
the constants it uses: at module level for module constants, in the builder function for its
parameters and locals (idiom 15).
"""

from __future__ import annotations

import ast

import libcst as cst

from .kernels import chunked_bounds
from .constants import Constant, evaluate
from ..syntax.nodes import code, statements


class ShapeConstants:
    """Mixin of the Planner: hoisting of shape arithmetic into named constants."""

    def _hoist_shape(self, shape_node, sc) -> None:
        if not isinstance(shape_node, (cst.List, cst.Tuple)):
            return
        for element in shape_node.elements:
            if isinstance(element.value, (cst.Name, cst.Integer)):
                continue
            name = self._constant_for(code(element.value), sc)
            if name:
                self.plan.decisions["hoist-tile-shape"][element.value] = name

    def _hoist_loop_bounds(self, loop: cst.For) -> None:
        """A chunked loop's start, stop and step must be compile-time constants too (c39:
        "Chunked loop stop must be a compile-time integer constant, got Mul"): arithmetic of
        constants there becomes a named constant the same way."""
        for which, bound in chunked_bounds(loop, self.ops):
            if not isinstance(bound, cst.BinaryOperation):
                continue
            name = self._constant_for(code(bound), None)
            if name:
                self.plan.decisions["hoist-tile-shape"][bound] = name
            else:
                self._flag("hoist-tile-shape", loop, f"chunked loop {which} `{code(bound)}` is an expression, and "
                           "c39 wants a name or a number there (\"must be a compile-time integer constant\"): give it a "
                           f"name at module level (`NAME = {code(bound)}`) and write the name here")

    def _shape_text(self, shape: tuple[str, ...] | None) -> str:
        if not shape:
            return "[]"
        return "[" + ", ".join(s if _simple(s) else (self._constant_for(s, None) or s) for s in shape) + "]"

    def _constant_for(self, expr: str, sc) -> str | None:
        try:
            tree = ast.parse(expr, mode="eval").body
        except SyntaxError:
            return None
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        unknown = [n for n in names if n not in self.consts]
        if unknown:
            if sc is not None:
                self._flag("hoist-tile-shape", sc.node, f"tile shape {expr} depends on {', '.join(sorted(unknown))}, "
                           "which is not a compile-time constant")
            return None
        level = "module" if all(self.consts[n].level == "module" for n in names) else "builder"
        key = (level, ast.dump(tree))
        name = self.hoisted.get(key)
        if name is None:  # one name for an expression file-wide: it is fresh, so no scope has it already
            base = _describe(tree)
            name = self.hoisted[key] = self._fresh(base.upper() if level == "module" else base.lower())
        # ...but a binding in each scope that reads it: a builder's locals are not another's. A
        # binding written while muted was dropped with its scratch plan, so it does not count.
        scope = self.kf.builder if level == "builder" and self.kf.builder is not None else self.module
        if (id(scope), key) in self.bound_hoists:
            return name
        if not self._quiet:
            self.bound_hoists.add((id(scope), key))
        value = evaluate(expr, self.env_numbers)
        deps = [self.consts[n] for n in names]
        text = f"{name} = {expr}"
        anchors = [c.statement for c in deps if c.level == level and not isinstance(c.statement, cst.FunctionDef)]
        if anchors:
            anchor = max(anchors, key=lambda s: self._order(s))
            self._edit("hoist-tile-shape", "after", anchor, text)
        else:
            self._edit("hoist-tile-shape", "prepend", scope, text)
        if value is not None:
            const = Constant(name, value, self.kf.builder or self.module, level)
            self.consts = {**self.consts, name: const}
            self.env_numbers[name] = value
            self.plan.constants[name] = const
        return name

    def _order(self, statement) -> int:
        order = getattr(self, "_stmt_order", None)
        if order is None:
            order = self._stmt_order = {}

            def number(body):
                for s in body:
                    order[s] = len(order)
                    if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
                        number(statements(s))

            number(self.module.body)
            del number  # a closure that calls itself is a reference cycle (see migrate/collector.py)
        return order.get(statement, -1)



def _simple(s: str) -> bool:
    return s.isidentifier() or s.isdigit()


def _describe(tree: ast.AST) -> str:
    if isinstance(tree, ast.Name):
        return tree.id
    if isinstance(tree, ast.Constant):
        return str(tree.value).replace(".", "_")
    if isinstance(tree, ast.BinOp):
        if isinstance(tree.op, ast.FloorDiv) and isinstance(tree.right, ast.Constant) and tree.right.value == 2:
            return f"{_describe(tree.left)}_half"
        word = {ast.Add: "plus", ast.Sub: "minus", ast.Mult: "times", ast.FloorDiv: "div", ast.Div: "div", ast.Mod: "mod"}.get(type(tree.op), "op")
        return f"{_describe(tree.left)}_{word}_{_describe(tree.right)}"
    return "shape"
