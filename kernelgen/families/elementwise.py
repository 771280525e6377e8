"""Elementwise tile ops: unary, tile-and-tile, tile-and-scalar, activations, remainders, bitwise
and shifts, compare and select, in `pl.` and `pl.tile.`.

What each era's compiler accepts (measured, a kernel per form through the pass pipeline):
- c39fe714a (`mar`): `pl.adds/subs/muls/divs/maxs/mins`; rem/rems, sel with no scratch tile and
  xor/xors with one; `pl.tile.add(t, 2.0)` is refused (a Tile right operand only); no cos, sin,
  fmod, fmods, maximums, minimums.
- e2d0f78ae (`aug`): `pl.tile.adds/...`, `pl.maximums`, `pl.maximum(t, 2.0)`, `pl.add(t, 2.0)`,
  cos/sin (FP32), fmod/fmods; rem/rems/sel/sels/xor/xors take a scratch tile; no `pl.adds`,
  `pl.maxs`, `pl.tile.maxs`; `pl.tile.maximum(t, 2.0)` is refused.
Bitwise ops want integer data: they run on an INT32 input of small non-negative values (so that
arithmetic and logical right shifts agree), `not_` on an INT16 cast of it. Remainders run on
positive operands, where `%` and C's fmod agree. A compare's mask is only read by sel/sels.
"""

from __future__ import annotations

from . import Ctx, production

UNARY = ("abs", "exp", "log", "neg", "recip", "relu", "rsqrt", "sqrt")
POSITIVE_ONLY = ("log", "recip", "rsqrt", "sqrt")
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum")
SCALARS = ("0.5", "2.0", "3.0", "-1.5")


def _ns(ctx: Ctx) -> str:
    return ctx.one_of(["pl.", "pl.tile."])


def _positive(ctx: Ctx, x: str) -> str:
    name = ctx.fresh("p")
    ctx.add(f"{name} = {ctx.positive(x)}")
    return name


@production("ew_unary", eras=("mar", "aug"))
def unary(ctx: Ctx) -> None:
    ops = UNARY + (("cos", "sin") if ctx.era == "aug" else ())
    op = ctx.one_of(ops)
    x = ctx.a
    if op in POSITIVE_ONLY:
        x = _positive(ctx, x)
    elif op == "exp":
        x = f"pl.mul({x}, 0.125)"
    ctx.add(f"{ctx.v} = {_ns(ctx)}{op}({x})")


@production("ew_binary", eras=("mar", "aug"))
def binary(ctx: Ctx) -> None:
    op = ctx.one_of(BINARY + (("fmod",) if ctx.era == "aug" else ()))
    rhs = _positive(ctx, ctx.b) if op in ("div", "fmod") else ctx.b
    ctx.add(f"{ctx.v} = {_ns(ctx)}{op}({ctx.a}, {rhs})")


@production("ew_scalar", eras=("mar", "aug"))
def with_scalar(ctx: Ctx) -> None:
    """A tile and a scalar: the `s` ops, and (2026-08) the unified ops given a scalar."""
    if ctx.era == "mar":
        form = ctx.one_of([f"{ns}{op}" for ns in ("pl.", "pl.tile.")
                           for op in ("adds", "subs", "muls", "divs", "maxs", "mins")])
    else:
        form = ctx.one_of([*(f"pl.tile.{op}" for op in ("adds", "subs", "muls", "divs", "maximums", "minimums",
                                                         "fmods", "add", "sub", "mul", "div")),
                           *(f"pl.{op}" for op in ("maximums", "minimums", "fmods", "fmod", "add", "sub", "mul",
                                                   "div", "maximum", "minimum"))])
    scalar = ctx.one_of(SCALARS)
    if form.endswith(("fmod", "fmods", "div", "divs")):
        scalar = scalar.lstrip("-")
    ctx.add(f"{ctx.v} = {form}({ctx.a}, {scalar})")


@production("ew_activation", eras=("mar", "aug"))
def activation(ctx: Ctx) -> None:
    op = ctx.one_of(["lrelu", "prelu", "expands"])
    ns = _ns(ctx)
    if op == "lrelu":
        ctx.add(f"{ctx.v} = {ns}lrelu({ctx.a}, {ctx.one_of(['0.1', '0.25'])})")
    elif op == "prelu":
        tmp = ctx.scratch()
        ctx.add(f"{ctx.v} = {ns}prelu({ctx.a}, {ctx.b}, {tmp})")
    else:
        filled = ctx.fresh("f")
        ctx.add(f"{filled} = {ns}expands({ctx.a}, {ctx.one_of(SCALARS)})")
        ctx.add(f"{ctx.v} = pl.add({ctx.b}, {filled})")


@production("ew_rem", eras=("mar", "aug"))
def remainder(ctx: Ctx) -> None:
    op = ctx.one_of(["rem", "rems"])
    ns = _ns(ctx)
    lhs = _positive(ctx, ctx.a)
    rhs = _positive(ctx, ctx.b) if op == "rem" else ctx.one_of(["1.5", "2.0"])
    tmp = f", {ctx.scratch()}" if ctx.era == "aug" else ""  # 2026-08: TREM's scratch tile
    ctx.add(f"{ctx.v} = {ns}{op}({lhs}, {rhs}{tmp})")


def _int_input(ctx: Ctx) -> str:
    """A [TILE, COLS] INT32 tile of 0..255 from an extra input."""
    ctx.input("xi", "COLS", "INT32")
    ctx.verify_inputs["xi"] = "0:255"
    name = ctx.fresh("i")
    ctx.add(f"{name} = {ctx.read('xi')}")
    return name


@production("ew_bitwise", eras=("mar", "aug"))
def bitwise(ctx: Ctx) -> None:
    op = ctx.one_of(["and_", "or_", "xor", "shl", "shr", "ands", "ors", "xors", "shls", "shrs", "not_"])
    ns = _ns(ctx)
    i = _int_input(ctx)
    r = ctx.fresh("r")
    if op == "not_":
        h = ctx.fresh("h")
        ctx.add(f"{h} = pl.cast({i}, target_type=pl.INT16)")
        ctx.add(f"{r} = {ns}not_({h})")
    elif op.endswith("s"):
        amount = ctx.one_of(["1", "2", "3"]) if op.startswith("sh") else ctx.one_of(["5", "12", "96"])
        tmp = f", {ctx.scratch(dtype='INT32')}" if op == "xors" else ""
        ctx.add(f"{r} = {ns}{op}({i}, {amount}{tmp})")
    else:
        rhs = ctx.fresh("j")
        ctx.add(f"{rhs} = {ns}ands({i}, 3)")  # 0..3: a shift amount too
        tmp = f", {ctx.scratch(dtype='INT32')}" if op == "xor" else ""
        ctx.add(f"{r} = {ns}{op}({i}, {rhs}{tmp})")
    f = ctx.fresh("c")
    ctx.add(f"{f} = pl.cast({r}, target_type=pl.FP32)")
    ctx.add(f"{ctx.v} = pl.add({ctx.a}, {f})")


@production("ew_select", eras=("mar", "aug"))
def select(ctx: Ctx) -> None:
    ns = _ns(ctx)
    mask = ctx.fresh("m")
    cmp_type = ctx.one_of(["0", "1", "2", "3", "4", "5"])
    if ctx.one_of(["cmp", "cmps"]) == "cmp":
        ctx.add(f"{mask} = {ns}cmp({ctx.a}, {ctx.b}, cmp_type={cmp_type})")
    else:
        ctx.add(f"{mask} = {ns}cmps({ctx.a}, {ctx.one_of(['0.0', '0.5'])}, cmp_type={cmp_type})")
    if ctx.era == "mar":  # c39's sels(lhs, rhs, select_mode) chooses by a target-defined mode: left out
        ctx.add(f"{ctx.v} = {ns}sel({mask}, {ctx.a}, {ctx.b})")
        return
    tmp = ctx.scratch()
    if ctx.one_of(["sel", "sels"]) == "sel":
        ctx.add(f"{ctx.v} = {ns}sel({mask}, {ctx.a}, {ctx.b}, {tmp})")
    else:
        ctx.add(f"{ctx.v} = {ns}sels({mask}, {ctx.a}, {tmp}, {ctx.one_of(SCALARS)})")
