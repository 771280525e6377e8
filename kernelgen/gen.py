"""Hypothesis strategies for whole kernel files in the idioms of three eras of pypto's DSL.

- `feb`: the DSL before 2026-03 (no compiler of its own here): `pl.view` windows (some with
  `valid_shape`), tensor ops on views, `create_tensor` accumulators zeroed by `pl.mul(acc, 0.0)`,
  matmuls over K chunks with `a_trans`/`b_trans`, casts, scalar reads, pieces assembled.
- `mar`: code c39fe714a (the 2026-03 target) accepts: loads into Vec and Mat, tile ops,
  scratch tiles for row reductions, matmul operands moved into Left/Right, stores; kernels
  as InCore functions called by an Orchestration function, or chunked loops of `auto_incore`.
- `spring`: code of April-May 2026 that the compiler of 2026-05-26 accepts and the 2026-08
  step migrates: `pl.incore()` and `auto_incore` + `chunk=` loops with tensor-level ops in
  them, numpy-style subscripts, plain `pl.Tensor` outputs, loads with `valid_shapes=`.

Each kernel is a `Kernel`: its text, its era, the targets to migrate it to. Every value a
body computes is a [TILE, COLS] FP32 array unless said; the sizes are small (verify runs each
kernel in milliseconds), and the module constants are drawn, with arithmetic in some shapes.
Numbers fed to `rsqrt`, `log`, `sqrt`, `recip` and divisors are made positive (x*x + 1).

Nothing here is keyed on the tool: the generator knows pypto's DSL, not pypto-migrate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hypothesis import strategies as st

from .families import Ctx, focus, for_era

ERAS = ("feb", "mar", "spring", "aug")
# Eras whose kernels are real ones mutated (`kernelgen/seeds.py`), not drawn from productions.
# Their 2026-08 code is judged at its own target only: the fixed point is what they test.
REAL_ERAS = ("aug-real", "spring-real")
TARGETS_OF = {"feb": ("2026-03", "2026-08"), "mar": ("2026-03", "2026-08"), "spring": ("2026-08",),
              "aug": ("2026-08", "2026-03"), "aug-real": ("2026-08",), "spring-real": ("2026-08",)}
# The compiler that judges a source of that era (None: we have none for that era).
SOURCE_COMPILER = {"feb": None, "mar": "2026-03", "spring": "2026-05-26", "aug": "2026-08",
                   "aug-real": "2026-08", "spring-real": "2026-05-26"}

FLOATS = ("FP32", "FP16", "BF16")
WIDE = (256, 2048, 16384)  # [TILE, WIDE] FP32: 4-16 KB, 32-128 KB, 256-1024 KB against Vec's 192 KB
CAST_THROUGH = ("BF16", "FP16", "INT32", "INT8", "FP32")
VEC = "pl.MemorySpace.Vec"
MAT = "pl.MemorySpace.Mat"
# Statements drawn per body: enough that a thousand kernels reach every op of the tables (an
# op family draws one op of its list per step), few enough that verify runs in milliseconds.
STEPS_MIN, STEPS_MAX = 2, 10


@dataclass
class Kernel:
    era: str
    text: str
    idioms: list[str] = field(default_factory=list)

    @property
    def targets(self) -> tuple[str, ...]:
        return TARGETS_OF[self.era]

    def ops(self) -> set[str]:
        """The pl calls of the text, as the API tables name them (`add`, `tile.read`)."""
        calls = {m.group(1) for m in re.finditer(r"\bpl\.((?:tile\.|tensor\.)?[a-z_][a-z0-9_]*)\(", self.text)}
        # and the table's names written without a call (`optimizations=[pl.auto_chunk]`), not
        # decorators (`@pl.inline`)
        return calls | {m.group(1) for m in re.finditer(r"(?<![@\w.])pl\.([a-z_][a-z0-9_]*)\b(?![.(])", self.text)}


class Lines:
    """A block of statements being written, with an indentation."""

    def __init__(self, indent: int):
        self.out: list[str] = []
        self.indent = indent

    def add(self, line: str, extra: int = 0) -> None:
        self.out.append(" " * (self.indent + extra) + line)

    def text(self) -> str:
        return "\n".join(self.out) + "\n"


@st.composite
def sizes(draw):
    rows = draw(st.sampled_from([8, 16]))
    tile = draw(st.sampled_from([t for t in (4, 8, 16) if rows % t == 0 and t <= rows]))
    cols = draw(st.sampled_from([16, 32, 64]))
    k = draw(st.sampled_from([c for c in (8, 16, 32) if cols % c == 0 and c < cols] or [cols]))
    return {"ROWS": rows, "TILE": tile, "COLS": cols, "K": k}


def _positive(a: str) -> str:
    return f"pl.add(pl.mul({a}, {a}), 1.0)"


# ---------------------------------------------------------------------------------------------
# February: tensor ops on views


@st.composite
def feb_kernel(draw) -> Kernel:
    s = draw(sizes())
    xdt = draw(st.sampled_from(FLOATS))
    wdt = draw(st.sampled_from(("BF16", "FP16")))
    runtime_rows = draw(st.booleans())
    idioms: list[str] = []
    helpers: set[str] = set()
    wide: list[int] = []
    rows = "rows" if runtime_rows else "ROWS"
    body = Lines(16)
    names = ["v0"]
    first = f"pl.view(x, [TILE, COLS], [b, 0])"
    body.add(f"v0 = {first}" if xdt == "FP32" else f"v0 = pl.cast({first}, target_type=pl.FP32)")
    counter = [1]

    def pick():
        return draw(st.sampled_from(names))

    def new():
        name = f"v{counter[0]}"
        counter[0] += 1
        return name

    families = _families("feb")
    inputs: dict = {}
    verify_inputs: dict = {}
    steps = draw(st.integers(STEPS_MIN, STEPS_MAX))
    for _ in range(steps):
        kind = draw(st.sampled_from(_kinds(["binary", "scalar", "unary", "rowred", "colexp", "matmul", "cast", "read",
                                     "pieces", "window", "carried", "branch", "rebind", "masked", "reshape",
                                     "namespaced", "helper", "wide"], families)))
        idioms.append(kind)
        a, b2 = pick(), pick()
        v = new()
        if kind in families:
            _produce(families[kind], draw, body, "feb", a, b2, v, "b", inputs, verify_inputs, idioms)
        elif kind == "binary":
            op = draw(st.sampled_from(["add", "sub", "mul", "div", "maximum", "minimum"]))
            rhs = _positive(b2) if op == "div" else b2
            body.add(f"{v} = pl.{op}({a}, {rhs})")
        elif kind == "scalar":
            op = draw(st.sampled_from(["add", "sub", "mul", "div"]))
            body.add(f"{v} = pl.{op}({a}, {draw(st.sampled_from(['0.5', '2.0', '-1.0', '3.0']))})")
        elif kind == "unary":
            op = draw(st.sampled_from(["exp", "neg", "rsqrt", "recip", "sqrt", "log", "abs", "relu"]))
            arg = _positive(a) if op in ("rsqrt", "recip", "sqrt", "log") else (f"pl.mul({a}, 0.125)" if op == "exp" else a)
            body.add(f"{v} = pl.{op}({arg})")
        elif kind == "rowred":
            red = draw(st.sampled_from(["row_sum", "row_max", "row_min"]))
            exp = draw(st.sampled_from(["row_expand_sub", "row_expand_add", "row_expand_mul", "row_expand_div"]))
            src = _positive(b2) if exp == "row_expand_div" else b2
            body.add(f"r{v} = pl.{red}({src})")
            body.add(f"{v} = pl.{exp}({a}, r{v})")
        elif kind == "colexp":
            op = draw(st.sampled_from(["col_expand_mul", "col_expand_sub", "col_expand_div"]))
            body.add(f"g{v} = pl.view(gamma, [1, COLS], [0, 0])")
            g = _positive(f"g{v}") if op == "col_expand_div" else f"g{v}"
            body.add(f"{v} = pl.{op}({a}, {g})")
        elif kind == "matmul":
            trans = draw(st.sampled_from(["", "b", "a"]))
            idioms[-1] = f"matmul{('_' + trans + '_trans') if trans else ''}"
            out_kw = draw(st.sampled_from(["", ", out_dtype=pl.FP32"]))
            body.add(f"acc{v} = pl.create_tensor([TILE, COLS], dtype=pl.FP32)")
            body.add(f"acc{v} = pl.mul(acc{v}, 0.0)")
            body.add("for k0 in pl.range(0, COLS, K):")
            if trans == "a":
                body.add(f"lhs = pl.cast(pl.view(xt, [K, TILE], [k0, b]), target_type=pl.{wdt})", 4)
                body.add(f"acc{v} = pl.add(acc{v}, pl.matmul(lhs, pl.view(w, [K, COLS], [k0, 0]), a_trans=True{out_kw}))", 4)
            elif trans == "b":
                body.add(f"lhs = pl.cast(pl.view({a}, [TILE, K], [0, k0]), target_type=pl.{wdt})", 4)
                body.add(f"acc{v} = pl.add(acc{v}, pl.matmul(lhs, pl.view(wt, [COLS, K], [0, k0]), b_trans=True{out_kw}))", 4)
            else:
                body.add(f"lhs = pl.cast(pl.view({a}, [TILE, K], [0, k0]), target_type=pl.{wdt})", 4)
                body.add(f"acc{v} = pl.add(acc{v}, pl.matmul(lhs, pl.view(w, [K, COLS], [k0, 0]){out_kw}))", 4)
            body.add(f"{v} = acc{v}")
        elif kind == "cast":
            through = draw(st.sampled_from(CAST_THROUGH[:-1]))
            idioms[-1] = f"cast_{through}"
            body.add(f"{v} = pl.cast(pl.cast({a}, target_type=pl.{through}), target_type=pl.FP32)")
        elif kind == "read":
            body.add(f"n{v} = pl.tensor.read(lens, [b, 0])")
            body.add(f"{v} = pl.mul({a}, n{v})")
        elif kind == "pieces":
            body.add(f"p{v} = pl.create_tensor([TILE, COLS], dtype=pl.FP32)")
            body.add("for c0 in pl.range(0, COLS, K):")
            body.add(f"p{v} = pl.assemble(p{v}, pl.exp(pl.mul(pl.view({a}, [TILE, K], [0, c0]), 0.25)), [0, c0])", 4)
            body.add(f"{v} = pl.add(p{v}, {b2})")
        elif kind == "window":  # a window of a window, read at a constant-arithmetic offset
            body.add(f"h{v} = pl.view(x, [TILE, COLS], [b, 0])")
            body.add(f"q{v} = pl.view(h{v}, [TILE, COLS // 2], [0, COLS // 2])")
            cast = f"pl.cast(q{v}, target_type=pl.FP32)" if xdt != "FP32" else f"q{v}"
            body.add(f"side = pl.assemble(side, pl.exp(pl.mul({cast}, 0.5)), [b, 0])")
            body.add(f"side = pl.assemble(side, pl.neg({cast}), [b, COLS // 2])")
            body.add(f"{v} = pl.mul({a}, 1.0)")
        elif kind == "carried":  # a loop that carries its value through init_values / yield
            body.add(f"for i, (c{v},) in pl.range(2, init_values=({a},)):")
            body.add(f"n{v} = pl.add(c{v}, 1.0)", 4)
            body.add(f"c{v}_out = pl.yield_(n{v})", 4)
            body.add(f"{v} = c{v}_out")
        elif kind == "branch":
            body.add("if b == 0:")
            body.add(f"{v} = pl.add({a}, 1.0)", 4)
            body.add("else:")
            body.add(f"{v} = pl.sub({a}, 1.0)", 4)
        elif kind == "rebind":  # a name re-bound with another dtype, then back
            body.add(f"{v} = pl.cast({a}, target_type=pl.BF16)")
            body.add(f"{v} = pl.cast({v}, target_type=pl.FP32)")
        elif kind == "reshape":
            body.add(f"s{v} = pl.reshape({a}, [TILE * 2, COLS // 2])")
            body.add(f"{v} = pl.reshape(pl.mul(s{v}, 2.0), [TILE, COLS])")
        elif kind == "namespaced":
            op = draw(st.sampled_from(["add", "sub", "mul", "maximum"]))
            body.add(f"{v} = pl.tensor.{op}({a}, {b2})")
        elif kind == "helper":
            helpers.add(_helper("Tensor"))
            body.add(f"{v} = scale_shift({a})")
        elif kind == "wide":  # a row statistic of a wide input: from a few KB up to over Vec's 192 KB
            wide.append(draw(st.sampled_from(WIDE)))
            idioms[-1] = f"wide_{wide[0]}"
            body.add(f"w{v} = pl.view(xw, [TILE, WIDE], [b, 0])")
            body.add(f"{v} = pl.row_expand_add({a}, pl.row_max(w{v}))")
        else:  # masked: a window whose valid columns are a constant half
            body.add(f"m{v} = pl.view(x, [TILE, COLS], [b, 0], valid_shape=[TILE, COLS // 2])")
            cast = f"pl.cast(m{v}, target_type=pl.FP32)" if xdt != "FP32" else f"m{v}"
            body.add(f"side = pl.assemble(side, {cast}, [b, 0])")
            body.add(f"{v} = pl.mul({a}, 1.0)")
        names.append(v)
    if not any(line.lstrip().startswith("side = ") for line in body.out):
        body.add("side = pl.assemble(side, pl.neg(v0), [b, 0])")
    body.add(f"out = pl.assemble(out, {names[-1]}, [b, 0])")
    if wide:
        s["WIDE"] = wide[0]
    head = _module(s, "feb")
    params = (f"        self,\n"
              f"        x: pl.Tensor[[{rows}, COLS], pl.{xdt}],\n"
              f"        xt: pl.Tensor[[COLS, {rows}], pl.{wdt}],\n"
              f"        w: pl.Tensor[[COLS, COLS], pl.{wdt}],\n"
              f"        wt: pl.Tensor[[COLS, COLS], pl.{wdt}],\n"
              f"        gamma: pl.Tensor[[1, COLS], pl.FP32],\n"
              f"        lens: pl.Tensor[[{rows}, 1], pl.INT32],\n"
              f"        out: pl.Out[pl.Tensor[[{rows}, COLS], pl.FP32]],\n"
              f"        side: pl.Out[pl.Tensor[[{rows}, COLS], pl.FP32]],\n"
              + (f"        xw: pl.Tensor[[{rows}, WIDE], pl.FP32],\n" if wide else "")
              + "".join(f"        {name}: {ann},\n" for name, ann in sorted(inputs.items())))
    function = (f"    @pl.function\n    def main(\n{params}    ) -> pl.Tensor[[{rows}, COLS], pl.FP32]:\n"
                f"        with pl.auto_incore():\n"
                f"            for b in pl.parallel(0, {rows}, TILE, chunk=1):\n")
    text = head + "".join(sorted(helpers)) + _program(function + body.text() + "        return out\n", runtime_rows, "Feb")
    return Kernel("feb", _verify_line(text, verify_inputs), idioms)


def _families(era: str) -> dict:
    """The registered productions of an era (kernelgen/families), by name."""
    return {p.name: p for p in for_era(era)}


def _kinds(builtin: list[str], families: dict) -> list[str]:
    """What a body step may be: the era's own kinds and its families' productions. Under
    KERNELGEN_FOCUS (families, comma-separated) the focused productions make most steps."""
    if focus() and families:
        return ["binary", *families]
    return [*builtin, *families]


def _produce(production, draw, body: "Lines", era: str, a: str, b: str, v: str, row0: str,
             inputs: dict, verify_inputs: dict, idioms: list) -> None:
    ctx = Ctx(era, draw, body.add, a, b, v, row0)
    production.fn(ctx)
    inputs.update(ctx.inputs)
    verify_inputs.update(ctx.verify_inputs)
    idioms.extend(ctx.idioms)


def _extra_params(inputs: dict, sep: str) -> str:
    return "".join(f"{sep}{name}: {ann}" for name, ann in sorted(inputs.items()))


def _helper(kind: str) -> str:
    """An `@pl.inline` helper of the module, on a [TILE, COLS] FP32 value of that kind."""
    ann = f"pl.{kind}[[TILE, COLS], pl.FP32]"
    return (f"@pl.inline\ndef scale_shift(t: {ann}) -> {ann}:\n"
            f"    r: {ann} = pl.add(pl.mul(t, 0.5), 1.0)\n"
            f"    return r\n\n\n")


def _module(s: dict, era: str) -> str:
    return ("import pypto.language as pl\n\n"
            + "".join(f"{k} = {v}\n" for k, v in s.items()) + "\n\n")


def _program(functions: str, runtime_rows: bool, stem: str) -> str:
    if not runtime_rows:
        return f"@pl.program\nclass {stem}Kernel:\n" + functions
    indented = "".join(("    " + line if line.strip() else line) for line in functions.splitlines(True))
    return (f"def build_{stem.lower()}_program(rows: int = ROWS):\n"
            f"    @pl.program\n    class {stem}Kernel:\n" + indented + f"\n    return {stem}Kernel\n")


def _verify_line(text: str, verify_inputs: dict | None = None) -> str:
    # sequence lengths, indices and the like are read as scalars: keep them small and in range
    ranges = dict(verify_inputs or {})
    if re.search(r"\blens\b", text):
        ranges.setdefault("lens", "1:4")
    if not ranges:
        return text
    line = "# pypto-migrate: verify " + " ".join(f"--input {k}={v}" for k, v in sorted(ranges.items()))
    return text.replace("import pypto.language as pl\n", f"import pypto.language as pl\n\n{line}\n", 1)


# ---------------------------------------------------------------------------------------------
# 2026-03: tiles, loads and stores


@st.composite
def mar_kernel(draw) -> Kernel:
    s = draw(sizes())
    xdt = draw(st.sampled_from(FLOATS))
    wdt = draw(st.sampled_from(("BF16", "FP16")))
    shape = draw(st.sampled_from(["functions", "auto_incore", "incore"]))
    idioms = [shape]
    helpers: set[str] = set()
    wide: list[int] = []
    body = Lines(8 if shape == "functions" else 16)
    row0 = "0" if shape == "functions" else "b"
    names = ["v0"]
    load = f"pl.load(x, [{row0}, 0], [TILE, COLS], target_memory={VEC})"
    body.add(f"v0 = {load}" if xdt == "FP32" else f"v0 = pl.cast({load}, target_type=pl.FP32)")
    counter = [1]

    def pick():
        return draw(st.sampled_from(names))

    def ns():
        return draw(st.sampled_from(["pl.", "pl.tile."]))

    families = _families("mar")
    inputs: dict = {}
    verify_inputs: dict = {}
    steps = draw(st.integers(STEPS_MIN, STEPS_MAX))
    for _ in range(steps):
        kind = draw(st.sampled_from(_kinds(["binary", "scalar", "unary", "rowred", "colexp", "matmul", "cast", "carried",
                                     "branch", "tilens", "rebind", "reshape", "full", "tileread", "namespaced",
                                     "helper", "wide"], families)))
        idioms.append(kind)
        a, b2 = pick(), pick()
        v = f"v{counter[0]}"
        counter[0] += 1
        if kind in families:
            _produce(families[kind], draw, body, "mar", a, b2, v, row0, inputs, verify_inputs, idioms)
        elif kind == "binary":
            op = draw(st.sampled_from(["add", "sub", "mul", "div", "maximum", "minimum"]))
            if op == "div":
                body.add(f"d{v} = {_positive(b2)}")
                body.add(f"{v} = pl.div({a}, d{v})")
            else:
                body.add(f"{v} = {ns()}{op}({a}, {b2})")
        elif kind == "scalar":
            op = draw(st.sampled_from(["add", "sub", "mul", "div"]))
            body.add(f"{v} = pl.{op}({a}, {draw(st.sampled_from(['0.5', '2.0', '-1.0', '3.0']))})")
        elif kind == "tilens":
            op = draw(st.sampled_from(["adds", "subs", "muls", "divs", "maxs", "mins"]))
            body.add(f"{v} = pl.tile.{op}({a}, {draw(st.sampled_from(['0.5', '2.0', '3.0']))})")
        elif kind == "unary":
            op = draw(st.sampled_from(["exp", "neg", "rsqrt", "recip", "sqrt", "log", "abs", "relu"]))
            if op in ("rsqrt", "recip", "sqrt", "log"):
                body.add(f"p{v} = {_positive(a)}")
                body.add(f"{v} = {ns()}{op}(p{v})")
            elif op == "exp":
                body.add(f"{v} = {ns()}exp(pl.mul({a}, 0.125))")
            else:
                body.add(f"{v} = {ns()}{op}({a})")
        elif kind == "rowred":
            red = draw(st.sampled_from(["row_sum", "row_max", "row_min"]))
            exp = draw(st.sampled_from(["row_expand_sub", "row_expand_add", "row_expand_mul", "row_expand_div"]))
            src = b2
            if exp == "row_expand_div":
                body.add(f"q{v} = {_positive(b2)}")
                src = f"q{v}"
            body.add(f"t{v} = pl.create_tile([TILE, COLS], dtype=pl.FP32, target_memory={VEC})")
            body.add(f"r{v} = {ns()}{red}({src}, t{v})")
            body.add(f"{v} = {ns()}{exp}({a}, r{v})")
        elif kind == "colexp":
            op = draw(st.sampled_from(["col_expand_mul", "col_expand_sub", "col_expand_div"]))
            body.add(f"g{v} = pl.load(gamma, [0, 0], [1, COLS], target_memory={VEC})")
            if op == "col_expand_div":
                body.add(f"h{v} = {_positive(f'g{v}')}")
                body.add(f"{v} = pl.col_expand_div({a}, h{v})")
            else:
                body.add(f"{v} = {ns()}{op}({a}, g{v})")
        elif kind == "matmul":
            acc_kind = draw(st.sampled_from(["vec", "matmul_acc"]))
            idioms[-1] = f"matmul_{acc_kind}"
            lhs_src = draw(st.sampled_from(["input", "vec"]))
            idioms.append(f"lhs_{lhs_src}")

            def operands(k0: str, indent: int) -> None:
                if lhs_src == "input":
                    body.add(f"lm = pl.load(xb, [{row0}, {k0}], [TILE, K], target_memory={MAT})", indent)
                else:
                    body.add(f"lc = pl.cast(pl.load(x32, [{row0}, {k0}], [TILE, K], target_memory={VEC}), "
                             f"target_type=pl.{wdt})", indent)
                    body.add(f"lm = pl.move(lc, target_memory={MAT})", indent)
                body.add("lt = pl.move(lm, target_memory=pl.MemorySpace.Left)", indent)
                body.add(f"rm = pl.load(w, [{k0}, 0], [K, COLS], target_memory={MAT})", indent)
                body.add("rt = pl.move(rm, target_memory=pl.MemorySpace.Right)", indent)

            if acc_kind == "vec":
                body.add(f"acc{v} = pl.create_tile([TILE, COLS], dtype=pl.FP32, target_memory={VEC})")
                body.add(f"acc{v} = pl.mul(acc{v}, 0.0)")
                body.add("for k0 in pl.range(0, COLS, K):")
                operands("k0", 4)
                body.add(f"acc{v} = pl.add(acc{v}, pl.matmul(lt, rt))", 4)
                body.add(f"{v} = pl.add({a}, acc{v})")
            else:
                operands("0", 0)
                body.add(f"first{v} = pl.matmul(lt, rt)")
                body.add(f"for k0, (acc{v},) in pl.range(K, COLS, K, init_values=(first{v},)):")
                operands("k0", 4)
                body.add(f"nxt{v} = pl.matmul_acc(acc{v}, lt, rt)", 4)
                body.add(f"acc{v}_out = pl.yield_(nxt{v})", 4)
                body.add(f"{v} = pl.add({a}, pl.move(acc{v}_out, target_memory={VEC}))")
        elif kind == "cast":
            through = draw(st.sampled_from(CAST_THROUGH[:-1]))
            idioms[-1] = f"cast_{through}"
            body.add(f"c{v} = pl.cast({a}, target_type=pl.{through})")
            body.add(f"{v} = pl.cast(c{v}, target_type=pl.FP32)")
        elif kind == "carried":
            body.add(f"for i, (c{v},) in pl.range(2, init_values=({a},)):")
            body.add(f"n{v} = pl.add(c{v}, 1.0)", 4)
            body.add(f"c{v}_out = pl.yield_(n{v})", 4)
            body.add(f"{v} = c{v}_out")
        elif kind == "branch":
            cond = "b == 0" if shape != "functions" else "TILE > 4"
            body.add(f"if {cond}:")
            body.add(f"{v} = pl.add({a}, 1.0)", 4)
            body.add("else:")
            body.add(f"{v} = pl.sub({a}, 1.0)", 4)
        elif kind == "reshape":
            body.add(f"s{v} = pl.reshape({a}, [TILE * 2, COLS // 2])")
            body.add(f"m{v} = pl.mul(s{v}, 2.0)")
            body.add(f"{v} = pl.reshape(m{v}, [TILE, COLS])")
        elif kind == "full":
            body.add(f"f{v} = pl.tile.full([TILE, COLS], dtype=pl.FP32, value=0.5)")
            body.add(f"{v} = pl.add({a}, f{v})")
        elif kind == "tileread":
            body.add(f"s{v} = pl.tile.read({a}, [0, 0])")
            body.add(f"{v} = pl.mul({b2}, s{v})")
        elif kind == "namespaced":
            op = draw(st.sampled_from(["add", "sub", "mul", "maximum", "minimum"]))
            body.add(f"{v} = pl.tile.{op}({a}, {b2})")
        elif kind == "helper":
            helpers.add(_helper("Tile"))
            body.add(f"{v} = scale_shift({a})")
        elif kind == "wide":
            wide.append(draw(st.sampled_from(WIDE)))
            idioms[-1] = f"wide_{wide[0]}"
            body.add(f"w{v} = pl.load(xw, [{row0}, 0], [TILE, WIDE], target_memory={VEC})")
            body.add(f"t{v} = pl.create_tile([TILE, WIDE], dtype=pl.FP32, target_memory={VEC})")
            body.add(f"r{v} = pl.row_max(w{v}, t{v})")
            body.add(f"{v} = pl.row_expand_add({a}, r{v})")
        else:  # rebind: a name re-bound with another dtype
            body.add(f"{v} = pl.cast({a}, target_type=pl.BF16)")
            body.add(f"{v} = pl.cast({v}, target_type=pl.FP32)")
        names.append(v)
    body.add(f"out = pl.store({names[-1]}, [{row0}, 0], out)")
    params = (f"x: pl.Tensor[[ROWS, COLS], pl.{xdt}], xb: pl.Tensor[[ROWS, COLS], pl.{wdt}], "
              f"x32: pl.Tensor[[ROWS, COLS], pl.FP32], w: pl.Tensor[[COLS, COLS], pl.{wdt}], "
              f"gamma: pl.Tensor[[1, COLS], pl.FP32]" + (", xw: pl.Tensor[[ROWS, WIDE], pl.FP32]" if wide else "")
              + _extra_params(inputs, ", "))
    args = "x, xb, x32, w, gamma" + (", xw" if wide else "") + "".join(f", {name}" for name in sorted(inputs))
    if wide:
        s["WIDE"] = wide[0]
    ret = "pl.Tensor[[ROWS, COLS], pl.FP32]"
    if shape == "functions":
        sig_out = "out: pl.Out[pl.Tensor[[TILE, COLS], pl.FP32]]"
        kernel = (f"    @pl.function(type=pl.FunctionType.InCore)\n"
                  f"    def kernel(self, {params.replace('[[ROWS, COLS], pl.' + xdt + ']', '[[TILE, COLS], pl.' + xdt + ']', 1)}, {sig_out}) -> pl.Tensor[[TILE, COLS], pl.FP32]:\n"
                  + body.text() + "        return out\n\n")
        # the kernel reads its first TILE rows: the orchestration hands it row windows of x and out
        orch = (f"    @pl.function(type=pl.FunctionType.Orchestration)\n"
                f"    def main(self, {params}, out: pl.Out[{ret}]) -> {ret}:\n"
                f"        for b in pl.range(0, ROWS, TILE):\n"
                f"            xs = pl.slice(x, [TILE, COLS], [b, 0])\n"
                f"            os = pl.slice(out, [TILE, COLS], [b, 0])\n"
                f"            os = self.kernel({args.replace('x, ', 'xs, ', 1)}, os)\n"
                f"            out = pl.assemble(out, os, [b, 0])\n"
                f"        return out\n")
        functions = kernel + orch
    elif shape == "auto_incore":
        functions = (f"    @pl.function\n    def main(self, {params}, out: pl.Out[{ret}]) -> {ret}:\n"
                     f"        with pl.auto_incore():\n"
                     f"            for b in pl.parallel(0, ROWS, TILE, chunk=1):\n" + body.text() + "        return out\n")
    else:
        functions = (f"    @pl.function\n    def main(self, {params}, out: pl.Out[{ret}]) -> {ret}:\n"
                     f"        for b in pl.range(0, ROWS, TILE):\n"
                     f"            with pl.incore():\n" + body.text() + "        return out\n")
    text = _module(s, "mar") + "".join(sorted(helpers)) + _program(functions, False, "Mar")
    return Kernel("mar", _verify_line(text, verify_inputs) if verify_inputs else text, idioms)


# ---------------------------------------------------------------------------------------------
# Spring 2026: tensor-level code in kernel scopes, the forms the 2026-08 step rewrites


@st.composite
def spring_kernel(draw) -> Kernel:
    s = draw(sizes())
    xdt = draw(st.sampled_from(FLOATS))
    wdt = draw(st.sampled_from(("BF16", "FP16")))
    # April's scopes, and May's: `pl.at` at the core-group level, its chunked loops under
    # `optimizations=[pl.auto_chunk]` (the compiler of 2026-05-26 refuses chunk= elsewhere)
    scope = draw(st.sampled_from(["incore", "auto_incore", "at", "at_auto_chunk"]))
    subscripts = draw(st.booleans())
    plain_out = draw(st.booleans())
    idioms = [scope] + (["subscripts"] if subscripts else []) + (["plain_out"] if plain_out else [])
    body = Lines(16)
    names = ["v0"]
    pre: list[str] = []
    side: list[str] = []
    cube: list[str] = []

    def window(t: str, rows: str, cols: str, r0: str, c0: str) -> str:
        if subscripts:
            return f"{t}[{r0}:{r0} + {rows}, {c0}:{c0} + {cols}]" if c0 != "0" or cols != "COLS" else f"{t}[{r0}:{r0} + {rows}, :]"
        return f"pl.slice({t}, [{rows}, {cols}], [{r0}, {c0}])"

    first = window("x", "TILE", "COLS", "b", "0")
    body.add(f"v0 = {first}" if xdt == "FP32" else f"v0 = pl.cast({first}, target_type=pl.FP32)")
    counter = [1]

    def pick():
        return draw(st.sampled_from(names))

    families = _families("spring")
    inputs: dict = {}
    verify_inputs: dict = {}
    steps = draw(st.integers(STEPS_MIN, STEPS_MAX))
    for _ in range(steps):
        kind = draw(st.sampled_from(_kinds(["binary", "scalar", "unary", "rowred", "colexp", "matmul", "cast", "branch",
                                     "scalarread", "tilecode", "cube"], families)))
        idioms.append(kind)
        a, b2 = pick(), pick()
        v = f"v{counter[0]}"
        counter[0] += 1
        if kind in families:
            _produce(families[kind], draw, body, "spring", a, b2, v, "b", inputs, verify_inputs, idioms)
        elif kind == "binary":
            op = draw(st.sampled_from(["add", "sub", "mul", "div", "maximum"]))
            rhs = _positive(b2) if op == "div" else b2
            body.add(f"{v} = pl.{op}({a}, {rhs})")
        elif kind == "scalar":
            op = draw(st.sampled_from(["add", "sub", "mul", "div"]))
            body.add(f"{v} = pl.{op}({a}, {draw(st.sampled_from(['0.5', '2.0', '-1.0']))})")
        elif kind == "tensorns":
            op = draw(st.sampled_from(["add_scalar", "sub_scalar", "mul_scalar", "div_scalar"]))
            body.add(f"{v} = pl.tensor.{op}({a}, 2.0)")
        elif kind == "unary":
            op = draw(st.sampled_from(["exp", "neg", "rsqrt", "recip", "sqrt", "log", "abs"]))
            arg = _positive(a) if op in ("rsqrt", "recip", "sqrt", "log") else (f"pl.mul({a}, 0.125)" if op == "exp" else a)
            body.add(f"{v} = pl.{op}({arg})")
        elif kind == "rowred":
            red = draw(st.sampled_from(["row_sum", "row_max"]))
            exp = draw(st.sampled_from(["row_expand_sub", "row_expand_mul", "row_expand_add"]))
            body.add(f"r{v} = pl.{red}({b2})")
            body.add(f"{v} = pl.{exp}({a}, r{v})")
        elif kind == "colexp":
            op = draw(st.sampled_from(["col_expand_mul", "col_expand_sub"]))
            body.add(f"g{v} = {window('gamma', '1', 'COLS', '0', '0')}")
            body.add(f"{v} = pl.{op}({a}, g{v})")
        elif kind == "matmul":
            trans = draw(st.sampled_from(["", "b"]))
            idioms[-1] = "matmul" + ("_b_trans" if trans else "")
            body.add(f"acc{v} = pl.create_tensor([TILE, COLS], dtype=pl.FP32)")
            body.add(f"acc{v} = pl.mul(acc{v}, 0.0)")
            body.add("for k0 in pl.range(0, COLS, K):")
            body.add(f"lhs = pl.cast({window(a, 'TILE', 'K', '0', 'k0')}, target_type=pl.{wdt})", 4)
            if trans:
                body.add(f"acc{v} = pl.add(acc{v}, pl.matmul(lhs, {window('wt', 'COLS', 'K', '0', 'k0')}, b_trans=True, out_dtype=pl.FP32))", 4)
            else:
                body.add(f"acc{v} = pl.add(acc{v}, pl.matmul(lhs, {window('w', 'K', 'COLS', 'k0', '0')}, out_dtype=pl.FP32))", 4)
            body.add(f"{v} = acc{v}")
        elif kind == "cast":
            through = draw(st.sampled_from(("BF16", "FP16", "INT32")))
            idioms[-1] = f"cast_{through}"
            body.add(f"c{v} = pl.cast({a}, target_type=pl.{through})")
            body.add(f"{v} = pl.cast(c{v}, target_type=pl.FP32)")
        elif kind == "branch":
            body.add("if b == 0:")
            body.add(f"{v} = pl.add({a}, 1.0)", 4)
            body.add("else:")
            body.add(f"{v} = pl.sub({a}, 1.0)", 4)
        elif kind == "scalarread" and scope in ("incore", "at"):  # a scalar read in orchestration, used in the kernel
            pre.append(f"n{v} = pl.tensor.read(lens, [b, 0])")
            body.add(f"{v} = pl.mul({a}, n{v})")
        elif kind == "tilecode" and not side:  # tile code beside the tensor code, with a valid region
            side.append(v)
            idioms[-1] = "tilecode"
            body.add(f"t{v} = pl.load(x32, [b, 0], [TILE, COLS], valid_shapes=[TILE, COLS])")
            body.add(f"m{v} = pl.maximum(t{v}, 0.5)")
            body.add(f"s{v} = pl.create_tile([TILE, COLS], dtype=pl.FP32, target_memory={VEC})")
            body.add(f"r{v} = pl.row_sum(m{v}, s{v})")
            body.add(f"side = pl.store(pl.row_expand_sub(m{v}, r{v}), [b, 0], side)")
            body.add(f"{v} = pl.mul({a}, 1.0)")
        elif kind == "cube" and not cube:  # a tile matmul through Mat, Left/Right and Acc, M = TILE rows
            cube.append(v)
            kdim = draw(st.sampled_from(["K", "COLS"]))
            idioms[-1] = f"cube_{kdim}"
            body.add(f"lm{v} = pl.load(xb, [b, 0], [TILE, {kdim}], target_memory={MAT})")
            body.add(f"lt{v} = pl.move(lm{v}, target_memory=pl.MemorySpace.Left)")
            body.add(f"wm{v} = pl.load(w, [0, 0], [{kdim}, COLS], target_memory={MAT})")
            body.add(f"wr{v} = pl.move(wm{v}, target_memory=pl.MemorySpace.Right)")
            body.add(f"p{v} = pl.matmul(lt{v}, wr{v})")
            body.add(f"proj = pl.store(pl.move(p{v}, target_memory={VEC}), [b, 0], proj)")
            body.add(f"{v} = pl.add({a}, 0.5)")
        else:
            idioms[-1] = "scalar"
            body.add(f"{v} = pl.mul({a}, 2.0)")
        names.append(v)
    body.add(f"out = pl.assemble(out, {names[-1]}, [b, 0])")
    ret = "pl.Tensor[[ROWS, COLS], pl.FP32]"
    out_ann = ret if plain_out else f"pl.Out[{ret}]"
    params = (f"x: pl.Tensor[[ROWS, COLS], pl.{xdt}], w: pl.Tensor[[COLS, COLS], pl.{wdt}], "
              f"wt: pl.Tensor[[COLS, COLS], pl.{wdt}], gamma: pl.Tensor[[1, COLS], pl.FP32], out: {out_ann}"
              + (", lens: pl.Tensor[[ROWS, 1], pl.INT32]" if pre else "")
              + (f", x32: pl.Tensor[[ROWS, COLS], pl.FP32], side: {out_ann}" if side else "")
              + (f", xb: pl.Tensor[[ROWS, COLS], pl.{wdt}], proj: {out_ann}" if cube else "")
              + _extra_params(inputs, ", "))
    if scope in ("incore", "at"):
        head = ("        for b in pl.range(0, ROWS, TILE):\n"
                + "".join(f"            {line}\n" for line in pre)
                + ("            with pl.incore():\n" if scope == "incore" else "            with pl.at(level=pl.Level.CORE_GROUP):\n"))
    elif scope == "at_auto_chunk":
        head = ("        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.auto_chunk]):\n"
                "            for b in pl.parallel(0, ROWS, TILE, chunk=1):\n")
    else:
        head = ("        with pl.auto_incore():\n"
                "            for b in pl.parallel(0, ROWS, TILE, chunk=1):\n")
    functions = (f"    @pl.function(type=pl.FunctionType.Opaque)\n    def main(self, {params}) -> {ret}:\n"
                 + head + body.text() + "        return out\n")
    text = _verify_line(_module(s, "spring") + _program(functions, False, "Spring"), verify_inputs)
    return Kernel("spring", text, idioms)


# ---------------------------------------------------------------------------------------------
# 2026-08: code the head compiler (e2d0f78ae) accepts as written, `@pl.jit` kernels included

AUG_SHAPES = ("jit_at", "jit_incore", "program_incore", "program_at")


@st.composite
def aug_kernel(draw) -> Kernel:
    """A kernel written for pypto 2026-08: a `@pl.jit` entry with `pl.at(level=CORE_GROUP)`
    scopes or calling a `@pl.jit.incore` kernel, or a `@pl.program` class (InCore kernel and
    Orchestration entry, or an Opaque entry with `pl.at` scopes). The body is tile code (loads,
    stores, scratch tiles, Mat/Left/Right matmuls) or tensor-level code, which head lowers
    itself (subscripts or `pl.slice` windows, tensor matmuls with `matmul_acc`, `out[...] = v`).
    Tensor bodies draw the family productions registered for `aug_tensor`, tile bodies those of
    `aug`. The migration of such a kernel to 2026-08 is the kernel itself, byte for byte."""
    s = draw(sizes())
    xdt = draw(st.sampled_from(FLOATS))
    wdt = draw(st.sampled_from(("BF16", "FP16")))
    shape = draw(st.sampled_from(AUG_SHAPES))
    tensor = draw(st.booleans())
    subscripts = tensor and draw(st.booleans())
    era = "aug_tensor" if tensor else "aug"  # whose family productions the body draws
    split = shape in ("jit_incore", "program_incore")  # the body is a kernel function of its own
    row0 = "0" if split else "b"
    body = Lines({"jit_at": 12, "jit_incore": 4, "program_incore": 8, "program_at": 16}[shape])
    idioms = [shape, "tensor" if tensor else "tile"] + (["subscripts"] if subscripts else [])
    helpers: set[str] = set()
    counter = [1]

    def window(t: str, rows: str, cols: str, r0: str, c0: str) -> str:
        if subscripts:
            rs = f"{r0}:{r0} + {rows}" if r0 != "0" else f"0:{rows}"
            cs = ":" if c0 == "0" and cols == "COLS" else f"{c0}:{c0} + {cols}" if c0 != "0" else f"0:{cols}"
            return f"{t}[{rs}, {cs}]"
        return f"pl.slice({t}, [{rows}, {cols}], [{r0}, {c0}])"

    def load(t: str, rows: str, cols: str, r0: str, c0: str, mem: str = VEC) -> str:
        # Vec is load's default at 2026-08: the tutorials leave it out, the library writes it
        spelled = "" if mem == VEC and draw(st.booleans()) else f", target_memory={mem}"
        return f"pl.load({t}, [{r0}, {c0}], [{rows}, {cols}]{spelled})"

    def read(t: str, rows: str, cols: str, r0: str, c0: str) -> str:
        return window(t, rows, cols, r0, c0) if tensor else load(t, rows, cols, r0, c0)

    def ns() -> str:
        return draw(st.sampled_from(["pl.", "pl.tensor." if tensor else "pl.tile."]))

    def scratch(v: str) -> str:
        body.add(f"t{v} = pl.create_tile([TILE, COLS], dtype=pl.FP32, target_memory={VEC})")
        return f"t{v}"

    def pick():
        return draw(st.sampled_from(names))

    first = read("x", "TILE", "COLS", row0, "0")
    body.add(f"v0 = {first}" if xdt == "FP32" else f"v0 = pl.cast({first}, target_type=pl.FP32)")
    names = ["v0"]
    families = _families(era)
    inputs: dict = {}
    verify_inputs: dict = {}
    uses_wt = [False]
    other_layout: set[str] = set()  # values moved back from a cube buffer, and what is made of them
    steps = draw(st.integers(STEPS_MIN, STEPS_MAX))
    for _ in range(steps):
        kind = draw(st.sampled_from(_kinds(["binary", "scalar", "scalarns", "unary", "rowred", "colred", "colexp",
                                            "matmul", "cast", "carried", "rebound", "branch", "full", "read",
                                            "helper"], families)))
        idioms.append(kind)
        a, b2 = pick(), pick()
        # A tile back from a cube buffer keeps the cube's layout, which ops reading the ND layout
        # refuse at 2026-08 (row_expand_add, gather_compare: "requires src0 effective blayout to
        # be row_major"): the era's code reads the row-major first value instead
        a, b2 = (names[0] if n in other_layout else n for n in (a, b2))
        v = f"v{counter[0]}"
        counter[0] += 1
        start = len(body.out)
        if kind in families:
            _produce(families[kind], draw, body, era, a, b2, v, row0, inputs, verify_inputs, idioms)
        elif kind == "binary":
            op = draw(st.sampled_from(["add", "sub", "mul", "div", "maximum", "minimum"]))
            if op == "div":
                body.add(f"d{v} = {_positive(b2)}")
                body.add(f"{v} = {ns()}div({a}, d{v})")
            else:
                body.add(f"{v} = {ns()}{op}({a}, {b2})")
        elif kind == "scalar":
            op = draw(st.sampled_from(["add", "sub", "mul", "div"]))
            body.add(f"{v} = pl.{op}({a}, {draw(st.sampled_from(['0.5', '2.0', '-1.0', '3.0']))})")
        elif kind == "scalarns":  # the scalar forms of the namespaces (adds, maximums: new at 2026-08 but for tile's)
            ops = ["adds", "subs", "muls", "divs"] + (["maximums", "minimums"] if not tensor else [])
            op = draw(st.sampled_from(ops))
            idioms[-1] = f"scalarns_{op}"
            body.add(f"{v} = pl.{'tensor' if tensor else 'tile'}.{op}({a}, {draw(st.sampled_from(['0.5', '2.0', '3.0']))})")
        elif kind == "unary":
            op = draw(st.sampled_from(["exp", "neg", "rsqrt", "recip", "sqrt", "log", "abs", "sin", "cos"]))
            idioms[-1] = f"unary_{op}"
            if op in ("rsqrt", "recip", "sqrt", "log"):
                body.add(f"p{v} = {_positive(a)}")
                body.add(f"{v} = {ns()}{op}(p{v})")
            elif op == "exp":
                body.add(f"{v} = {ns()}exp(pl.mul({a}, 0.125))")
            else:
                body.add(f"{v} = {ns()}{op}({a})")
        elif kind == "rowred":
            red = draw(st.sampled_from(["row_sum", "row_max", "row_min"]))
            exp = draw(st.sampled_from(["row_expand_sub", "row_expand_add", "row_expand_mul", "row_expand_div",
                                        "row_expand_max", "row_expand_min"]))
            src = b2
            if exp == "row_expand_div":
                body.add(f"q{v} = {_positive(b2)}")
                src = f"q{v}"
            if tensor:
                body.add(f"r{v} = {ns()}{red}({src})")
            else:
                body.add(f"r{v} = {ns()}{red}({src}, {scratch(v)})")
            body.add(f"{v} = {ns()}{exp}({a}, r{v})")
        elif kind == "colred":  # column statistics, new at 2026-08
            red = draw(st.sampled_from(["col_sum", "col_max", "col_min"]))
            exp = draw(st.sampled_from(["col_expand_sub", "col_expand_add", "col_expand_mul", "col_expand_max",
                                        "col_expand_min"]))
            idioms[-1] = f"colred_{red}"
            if red == "col_sum" and not tensor and draw(st.booleans()):
                body.add(f"r{v} = {ns()}col_sum({b2}, {scratch(v)})")
            else:
                body.add(f"r{v} = {ns()}{red}({b2})")
            body.add(f"{v} = {ns()}{exp}({a}, r{v})")
        elif kind == "colexp":
            op = draw(st.sampled_from(["col_expand_mul", "col_expand_sub", "col_expand_add", "col_expand_div"]))
            body.add(f"g{v} = {read('gamma', '1', 'COLS', '0', '0')}")
            if op == "col_expand_div":
                body.add(f"h{v} = {_positive(f'g{v}')}")
                body.add(f"{v} = {ns()}col_expand_div({a}, h{v})")
            else:
                body.add(f"{v} = {ns()}{op}({a}, g{v})")
        elif kind == "matmul" and tensor:  # whole windows handed to matmul: head stages them itself
            trans = draw(st.booleans())
            uses_wt[0] |= trans
            idioms[-1] = "matmul_b_trans" if trans else "matmul"

            def rhs(k0: str) -> str:
                return (window("wt", "COLS", "K", "0", k0) + ", b_trans=True") if trans else window("w", "K", "COLS", k0, "0")

            body.add(f"acc{v} = pl.matmul({window('xb', 'TILE', 'K', row0, '0')}, {rhs('0')}, out_dtype=pl.FP32)")
            body.add("for k0 in pl.range(K, COLS, K):")
            body.add(f"acc{v} = pl.matmul_acc(acc{v}, {window('xb', 'TILE', 'K', row0, 'k0')}, {rhs('k0')})", 4)
            body.add(f"{v} = pl.add({a}, acc{v})")
        elif kind == "matmul":  # operands through Mat into Left/Right, accumulated in Acc through init_values

            def operands(k0: str, indent: int) -> None:
                body.add(f"lm = {load('xb', 'TILE', 'K', row0, k0, MAT)}", indent)
                body.add("lt = pl.move(lm, target_memory=pl.MemorySpace.Left)", indent)
                body.add(f"rm = {load('w', 'K', 'COLS', k0, '0', MAT)}", indent)
                body.add("rt = pl.move(rm, target_memory=pl.MemorySpace.Right)", indent)

            operands("0", 0)
            body.add(f"first{v} = pl.matmul(lt, rt)")
            body.add(f"for k0, (acc{v},) in pl.range(K, COLS, K, init_values=(first{v},)):")
            operands("k0", 4)
            body.add(f"nxt{v} = pl.matmul_acc(acc{v}, lt, rt)", 4)
            body.add(f"acc{v}_out = pl.yield_(nxt{v})", 4)
            body.add(f"{v} = pl.add({a}, pl.move(acc{v}_out, target_memory={VEC}))")
        elif kind == "cast":
            through = draw(st.sampled_from(("BF16", "FP16", "INT32")))
            idioms[-1] = f"cast_{through}"
            body.add(f"c{v} = pl.cast({a}, target_type=pl.{through})")
            body.add(f"{v} = pl.cast(c{v}, target_type=pl.FP32)")
        elif kind == "carried":  # the explicit spelling: init_values and yield_
            body.add(f"for i, (c{v},) in pl.range(2, init_values=({a},)):")
            body.add(f"n{v} = pl.add(c{v}, 1.0)", 4)
            body.add(f"c{v}_out = pl.yield_(n{v})", 4)
            body.add(f"{v} = c{v}_out")
        elif kind == "rebound":  # the idiomatic spelling: a name re-bound in the loop is carried
            body.add(f"{v} = pl.mul({a}, 1.0)")
            body.add("for i in pl.range(2):")
            body.add(f"{v} = pl.add({v}, {b2})", 4)
        elif kind == "branch":
            body.add(f"if {'TILE > 4' if split else 'b == 0'}:")
            body.add(f"{v} = pl.add({a}, 1.0)", 4)
            body.add("else:")
            body.add(f"{v} = pl.sub({a}, 1.0)", 4)
        elif kind == "full":
            # `pl.full` makes a Tensor: a tile body names the tile one
            fn = draw(st.sampled_from(["pl.full", "pl.tensor.full"])) if tensor else "pl.tile.full"
            body.add(f"f{v} = {fn}([TILE, COLS], dtype=pl.FP32, value=0.5)")
            body.add(f"{v} = pl.add({a}, f{v})")
        elif kind == "read" and not tensor:
            body.add(f"s{v} = pl.tile.read({a}, [0, 0])")
            body.add(f"{v} = pl.mul({b2}, s{v})")
        elif kind == "helper" and not shape.startswith("jit"):
            helpers.add(_helper("Tensor" if tensor else "Tile"))
            # inlined at each call, its result name takes the operand's type: a second call on a
            # tile of another layout would be refused ("Cannot reassign"); `a` is row-major (above)
            body.add(f"{v} = scale_shift({a})")
        else:
            idioms[-1] = "scalar"
            body.add(f"{v} = pl.mul({a}, 2.0)")
        added = "\n".join(body.out[start:])
        if re.search(r"MemorySpace\.(Mat|Acc)\b", added) or any(re.search(rf"\b{n}\b", added) for n in other_layout):
            other_layout.add(v)  # its layout is the cube's, and an op on it keeps that layout
        names.append(v)
    last = names[-1]
    if tensor and draw(st.booleans()):
        body.add(f"out[{row0}:{row0} + TILE, :] = {last}" if row0 != "0" else f"out[0:TILE, :] = {last}")
    elif tensor:
        body.add(f"out = pl.assemble(out, {last}, [{row0}, 0])")
    elif draw(st.booleans()):
        body.add(f"out = pl.store({last}, [{row0}, 0], out)")
    else:
        body.add(f"pl.store({last}, [{row0}, 0], out)")
    others = (f"xb: pl.Tensor[[ROWS, COLS], pl.{wdt}], w: pl.Tensor[[COLS, COLS], pl.{wdt}], "
              + (f"wt: pl.Tensor[[COLS, COLS], pl.{wdt}], " if uses_wt[0] else "")
              + "gamma: pl.Tensor[[1, COLS], pl.FP32]" + _extra_params(inputs, ", "))
    passed = "xb, w, " + ("wt, " if uses_wt[0] else "") + "gamma" + "".join(f", {name}" for name in sorted(inputs))
    full = "pl.Tensor[[ROWS, COLS], pl.FP32]"
    part = "pl.Tensor[[TILE, COLS], pl.FP32]"
    params = f"x: pl.Tensor[[ROWS, COLS], pl.{xdt}], {others}, out: pl.Out[{full}]"
    kparams = f"x: pl.Tensor[[TILE, COLS], pl.{xdt}], {others}, out: pl.Out[{part}]"
    loop = draw(st.sampled_from(["range", "parallel"]))
    at = "with pl.at(level=pl.Level.CORE_GROUP" + draw(st.sampled_from([")", ', name_hint="tile_body")'])) + ":"
    dispatch = ("xs = pl.slice(x, [TILE, COLS], [b, 0])\n"
                "os = pl.slice(out, [TILE, COLS], [b, 0])\n"
                f"os = {{callee}}(xs, {passed}, os)\n"
                "out = pl.assemble(out, os, [b, 0])\n")
    if shape == "jit_at":
        functions = (f"@pl.jit\ndef main({params}):\n"
                     f"    for b in pl.{loop}(0, ROWS, TILE):\n        {at}\n" + body.text() + "    return out\n")
    elif shape == "jit_incore":
        functions = (f"@pl.jit.incore\ndef kernel({kparams}):\n" + body.text() + "    return out\n\n\n"
                     f"@pl.jit\ndef main({params}):\n    for b in pl.{loop}(0, ROWS, TILE):\n"
                     + _indent(dispatch.format(callee="kernel"), 8) + "    return out\n")
    elif shape == "program_incore":
        functions = (f"@pl.program\nclass AugKernel:\n"
                     f"    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, {kparams}) -> {part}:\n"
                     + body.text() + "        return out\n\n"
                     f"    @pl.function(type=pl.FunctionType.Orchestration)\n    def main(self, {params}) -> {full}:\n"
                     f"        for b in pl.{loop}(0, ROWS, TILE):\n"
                     + _indent(dispatch.format(callee="self.kernel"), 12) + "        return out\n")
    else:
        functions = (f"@pl.program\nclass AugKernel:\n"
                     f"    @pl.function(type=pl.FunctionType.Opaque)\n    def main(self, {params}) -> {full}:\n"
                     f"        for b in pl.{loop}(0, ROWS, TILE):\n            {at}\n" + body.text() + "        return out\n")
    text = _module(s, "aug") + "".join(sorted(helpers)) + functions
    return Kernel("aug", _verify_line(text, verify_inputs), idioms)


def _indent(lines: str, n: int) -> str:
    return "".join(" " * n + line for line in lines.splitlines(True))


STRATEGIES = {"feb": feb_kernel, "mar": mar_kernel, "spring": spring_kernel, "aug": aug_kernel}


def kernels(era: str | None = None):
    """A strategy of kernels of one era, or of any era."""
    if era:
        return STRATEGIES[era]()
    return st.one_of(*(STRATEGIES[e]() for e in ERAS))
