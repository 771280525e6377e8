"""PTO142's narrowing, PTO153's `pl.full`, PTO165 and PTO166 on small kernels: each fires where
e2d0f78ae rejects the code (or drops a write) and stays silent where it was measured to accept it."""

from __future__ import annotations

from conftest import upgrade


def _upgrade(text: str):
    return upgrade(text)


def _markers(output: str, rule: str) -> list[str]:
    lines = output.splitlines()
    return [lines[i + 1].strip() for i, line in enumerate(lines) if f"review {rule}:" in line]


HEAD = """import pypto.language as pl

from config import WIDTH

N = 16
"""


def test_fill_with_an_imported_trip_count_becomes_one_init():
    # WIDTH comes from another module: the rewrite is accepted and means the same either way
    source = HEAD + """

@pl.jit
def k(w: pl.Tensor[[WIDTH, N], pl.FP32], out: pl.Out[pl.Tensor[[4, WIDTH], pl.FP32]]):
    table = pl.create_tensor([4, WIDTH], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.range(4):
            for c in pl.range(WIDTH):
                pl.write(table, [r, c], 0.0)
        for e in pl.range(WIDTH):
            pl.write(table, [1, e], pl.read(w, [e, 0]))
    with pl.at(level=pl.Level.CORE_GROUP):
        for t in pl.range(4):
            for e in pl.range(WIDTH):
                pl.write(out, [t, e], pl.read(table, [t, e]))
    return out
"""
    result = _upgrade(source)
    assert "        table[:, :] = pl.full([4, WIDTH], dtype=pl.FP32, value=0.0)\n        for e in pl.range(WIDTH):" in result.output
    assert "pl.write(table, [r, c], 0.0)" not in result.output
    assert _upgrade(result.output).output == result.output


def test_fill_read_in_its_own_scope_is_flagged_at_the_scatter():
    source = HEAD + """

@pl.jit
def k(w: pl.Tensor[[8, N], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.range(4):
            for c in pl.range(8):
                pl.write(out, [r, c], 0.0)
        for e in pl.range(8):
            pl.write(out, [1, e], pl.read(out, [0, e]) + pl.read(w, [e, 0]))
    return out
"""
    result = _upgrade(source)
    assert _markers(result.output, "PTO165") == ["pl.write(out, [1, e], pl.read(out, [0, e]) + pl.read(w, [e, 0]))"]
    assert "pl.full" not in result.output


def test_scatter_beside_a_write_through_rebinding_is_flagged_at_the_scatter():
    # `w = pl.assemble(w, ...)` names the same GM tensor: e2d0f78ae refuses the pl.write beside it
    # ("mixes MTE3 and scalar stores", measured at the pl.write's line)
    source = HEAD + """

@pl.jit
def k(p: pl.Tensor[[4, 8], pl.FP32], w: pl.InOut[pl.Tensor[[4, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.range(4):
            for c in pl.range(8):
                pl.write(w, [r, c], pl.read(p, [r, c]))
            w = pl.assemble(w, pl.mul(w[r : r + 1, 0:8], 2.0), [r, 0])
    return w
"""
    result = _upgrade(source)
    assert _markers(result.output, "PTO165") == ["pl.write(w, [r, c], pl.read(p, [r, c]))"]
    assert _upgrade(result.output).output == result.output


def test_scatter_only_and_fill_only_are_left_alone():
    source = HEAD + """

@pl.jit
def k(w: pl.Tensor[[8, N], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]], z: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for e in pl.range(8):
            pl.write(out, [1, e], pl.read(w, [e, 0]))
        for r in pl.range(4):
            for c in pl.range(8):
                pl.write(z, [r, c], 0.0)
    return out
"""
    assert "PTO165" not in _upgrade(source).output


def test_alias_of_an_untracked_full_is_not_rewritten_when_it_is_written_in_place():
    source = HEAD + """

@pl.jit.inline
def use(cos: pl.Tensor[[1, N], pl.FP32], out: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[0:1, :] = pl.add(cos[0:1, :], 1.0)
    return out


@pl.jit
def k(out: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
    c = pl.create_tensor([1, N], dtype=pl.FP32)
    base = pl.full([1, N], dtype=pl.FP32, value=2.0)
    c = base
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.write(c, [0, 0], 5.0)
    out = use(c, out)
    return out
"""
    result = _upgrade(source)
    assert "    c = base\n" in result.output  # a write through c also changed base: two constants would differ


def test_same_type_rebinding_in_a_kernel_scope_is_not_flagged():
    # measured: in a pl.at scope pl.full and the ops on it are Tensors; the compiler accepts this
    source = HEAD + """

@pl.jit
def k(x: pl.Tensor[[1, N], pl.BF16], out: pl.Out[pl.Tensor[[1, N], pl.BF16]]):
    t = pl.create_tensor([1, N], dtype=pl.BF16)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.cast(pl.add(pl.full([1, N], dtype=pl.FP32, value=0.0), pl.cast(x, target_type=pl.FP32)), target_type=pl.BF16)
        out[0:1, :] = t
    return out
"""
    assert "PTO153" not in _upgrade(source).output


def test_output_rebound_to_a_call_that_hands_it_back_is_not_flagged():
    source = HEAD + """

@pl.jit.inline
def fresh(x: pl.Tensor[[4, N], pl.FP32], y: pl.Tensor[[4, N], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        z = pl.add(x, 1.0)
    return z


@pl.jit.inline
def through(x: pl.Tensor[[4, N], pl.FP32], y: pl.InOut[pl.Tensor[[4, N], pl.FP32]]):
    y_flat = pl.reshape(y, [4 * N])
    with pl.at(level=pl.Level.CORE_GROUP):
        y[0:4, :] = pl.add(x, 1.0)
    y = pl.reshape(y_flat, [4, N])
    return y


@pl.jit
def k(x: pl.Tensor[[4, N], pl.FP32], a: pl.Tensor[[4, N], pl.FP32], b: pl.Tensor[[4, N], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a[0:4, :] = pl.add(x, 2.0)
    a = fresh(x, a)
    b = through(x, b)
    return a
"""
    # the entry's plain outputs are the old form PTO142 retypes; of the two re-bindings only
    # the one to a value of its own drops what the function wrote
    assert _markers(_upgrade(source).output, "PTO142") == ["a = fresh(x, a)"]


def test_a_declared_output_rebound_in_code_of_2026_08_is_its_author_s():
    """pypto's own tests of 2026-08 rebind their `pl.Out` (`out = pl.add(a, a)`): e2d0f78ae warns
    and accepts it, and the direction and the binding are the author's. No marker."""
    source = HEAD + """

@pl.jit
def k(x: pl.Tensor[[4, N], pl.FP32], a: pl.Out[pl.Tensor[[4, N], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.add(x, 1.0)
    return a
"""
    assert _markers(_upgrade(source).output, "PTO142") == []
