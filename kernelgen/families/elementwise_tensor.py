"""Elementwise tensor ops: `pl.X` on Tensors and `pl.tensor.X`.

- `spring` (the compiler of 2026-05-26, inside a kernel scope): the unary ops but relu (its
  `pl.relu` is tile-only), cos/sin, tensor-and-tensor and tensor-and-scalar arithmetic,
  `pl.tensor.adds/subs/muls/divs`, expands, and cmp, whose result is a 0/1 Tensor of the
  operand's dtype. It refuses bitwise ops, fmod and `*_scalar` on Tensors.
- `feb` (no compiler; the interpreter's old profile): the `add_scalar` family, renamed
  `adds` & co. by pypto #433 on 2026-03-10, and the four arithmetic ops of `pl.tensor`.
"""

from __future__ import annotations

from . import Ctx, production

UNARY = ("abs", "exp", "log", "neg", "recip", "rsqrt", "sqrt", "cos", "sin")
POSITIVE_ONLY = ("log", "recip", "rsqrt", "sqrt")
SCALARS = ("0.5", "2.0", "3.0", "-1.5")


def _positive(ctx: Ctx, x: str) -> str:
    name = ctx.fresh("p")
    ctx.add(f"{name} = {ctx.positive(x)}")
    return name


@production("ew_tensor", eras=("spring",))
def tensor_ops(ctx: Ctx) -> None:
    ns = ctx.one_of(["pl.", "pl.tensor."])
    kind = ctx.one_of(["unary", "binary", "scalar", "expands", "cmp"])
    if kind == "unary":
        op = ctx.one_of(UNARY)
        x = _positive(ctx, ctx.a) if op in POSITIVE_ONLY else (f"pl.mul({ctx.a}, 0.125)" if op == "exp" else ctx.a)
        ctx.add(f"{ctx.v} = {ns}{op}({x})")
    elif kind == "binary":
        op = ctx.one_of(["add", "sub", "mul", "div", "maximum", "minimum"])
        rhs = _positive(ctx, ctx.b) if op == "div" else ctx.b
        ctx.add(f"{ctx.v} = {ns}{op}({ctx.a}, {rhs})")
    elif kind == "scalar":
        form = ctx.one_of([*(f"{ns}{op}" for op in ("add", "sub", "mul", "div", "maximum", "minimum")),
                           *(f"pl.tensor.{op}" for op in ("adds", "subs", "muls", "divs"))])
        ctx.add(f"{ctx.v} = {form}({ctx.a}, {ctx.one_of(SCALARS)})")
    elif kind == "expands":
        filled = ctx.fresh("f")
        ctx.add(f"{filled} = {ns}expands({ctx.a}, {ctx.one_of(SCALARS)})")
        ctx.add(f"{ctx.v} = pl.add({ctx.b}, {filled})")
    else:
        mask = ctx.fresh("m")
        rhs = ctx.b if ctx.one_of(["tensor", "scalar"]) == "tensor" else ctx.one_of(["0.0", "0.5"])
        ctx.add(f"{mask} = {ns}cmp({ctx.a}, {rhs}, cmp_type={ctx.one_of(['0', '1', '2', '3', '4', '5'])})")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {mask})")


@production("ew_feb_scalar", eras=("feb",))
def feb_scalar(ctx: Ctx) -> None:
    ns = ctx.one_of(["pl.", "pl.tensor."])
    op = ctx.one_of(["add_scalar", "sub_scalar", "mul_scalar", "div_scalar", "add", "sub", "mul", "div"])
    if op.endswith("_scalar"):
        ctx.add(f"{ctx.v} = {ns}{op}({ctx.a}, {ctx.one_of(SCALARS)})")
    else:
        rhs = _positive(ctx, ctx.b) if op == "div" else ctx.b
        ctx.add(f"{ctx.v} = pl.tensor.{op}({ctx.a}, {rhs})")
