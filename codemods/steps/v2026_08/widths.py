"""The chunk widths PTO181 writes beside a program: `X_CHUNK = math.gcd(X, W)`.

A width is a constant of the builder (or the module) that holds the kernel, so that the
kernel names it as it names its other sizes; `math.gcd` keeps it a divisor of the extent
whatever value a builder parameter or a test gives the extent. One constant per extent and
width, `import math` once.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import code
from ...syntax.traversal import walk


class ChunkWidths:
    def __init__(self, ctx, rule) -> None:
        self.ctx, self.rule = ctx, rule
        self.widths: dict = {}
        self.names: set[str] | None = None
        self.needs_math = False

    def define(self, function, extent: str, measured: int) -> str | None:
        """A constant beside the kernel's program: the chunk width, as the greatest common
        divisor of the extent and the width measured here. The builder's parameters (or a test's
        small sizes) may give the extent another value; a divisor of it still covers it exactly,
        and it is the measured width wherever that divides the extent."""
        home = self._home(function)
        if home is None:
            return None
        key = (id(home), extent.replace(" ", ""), measured)
        if key not in self.widths:
            if self.names is None:
                self.names = {n.value for n in walk(self.ctx.module) if isinstance(n, cst.Name)}
                imports = [small for st in self.ctx.module.body if isinstance(st, cst.SimpleStatementLine)
                           for small in st.body if isinstance(small, cst.Import)]
                self.needs_math = not any(code(a.name) == "math" and a.asname is None for i in imports for a in i.names)
            base = f"{extent}_CHUNK" if extent.isidentifier() else "COLUMN_CHUNK"
            name, n = base, 2
            while name in self.names:
                name, n = f"{base}_{n}", n + 1
            self.names.add(name)
            self.widths[key] = name
            text = f"{name} = math.gcd({extent}, {measured})  # fits Vec, and divides {extent} at any size\n"
            body = list(self.ctx.module.body)
            at = next((i for i, st in enumerate(body) if st is home), 0)
            if at and isinstance(body[at - 1], cst.SimpleStatementLine):
                # at module level, with the constants above the program: its blank lines stay its own
                self.ctx.insert(self.rule, "after", body[at - 1], text)
            else:
                self.ctx.insert(self.rule, "before", home, text)
            if self.needs_math:
                self.needs_math = False
                self._import_math()
        return self.widths[key]

    def _home(self, function):
        """The statement the constant goes before: the one holding the kernel's function in its
        builder (a plain function around a `@pl.program`), else at module level."""
        for top in self.ctx.module.body:
            if not any(n is function for n in walk(top)):
                continue
            if isinstance(top, cst.FunctionDef) and top is not function and isinstance(top.body, cst.IndentedBlock):
                inner = next((st for st in top.body.body if any(n is function for n in walk(st))), None)
                return inner if inner is not None and inner is not function else top
            return top
        return None

    def _import_math(self) -> None:
        """`import math` before the module's first import (after its docstring and any
        `from __future__` import, which must come first)."""
        body = self.ctx.module.body
        future = [st for st in body if isinstance(st, cst.SimpleStatementLine) and isinstance(st.body[0], cst.ImportFrom)
                  and isinstance(st.body[0].module, cst.Name) and st.body[0].module.value == "__future__"]
        if future:
            self.ctx.insert(self.rule, "after", future[-1], "import math\n")
            return
        first = next((st for st in body if isinstance(st, cst.SimpleStatementLine) and
                      isinstance(st.body[0], (cst.Import, cst.ImportFrom))), body[0])
        self.ctx.insert(self.rule, "before", first, "import math\n")
