"""The compiler's buffer sharing, rule by rule: each case a small kernel and the Vec bytes the
pypto compiler's memory report gives for it (measured with pypto c39fe714a, the numbers below
written down from its report). The tool must reproduce each number; under CI the compiler is
run on each case as well, so a compiler that changed its mind shows here first."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from codemods.migrate.report import report_module

PROGRAM = '''import pypto.language as pl


@pl.program
class Case:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 256], pl.FP32],
        c: pl.Tensor[[64, 256], pl.BF16],
        o: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
    ) -> pl.Tensor[[64, 256], pl.FP32]:
{body}
        return o
'''

VEC = "target_memory=pl.MemorySpace.Vec"
LOAD_A = f"pl.load(a, [0, 0], [64, 256], {VEC})"
LOAD_C = f"pl.load(c, [0, 0], [64, 256], {VEC})"
K = 1024

CASES = {
    # x dies when y is made; z (same shape) takes x's buffer, w takes y's; casts never share.
    "a value takes a dead buffer of its shape; a cast never does": (f"""
        x = {LOAD_A}
        y = pl.add(x, x)
        z = pl.mul(y, y)
        w = pl.exp(z)
        v = pl.cast(w, target_type=pl.BF16)
        u = pl.cast(v, target_type=pl.FP32)
        o = pl.store(u, [0, 0], o)
    """, 224 * K),
    # t is as large as the dead x but [128, 128], not [64, 256]: a buffer of its own.
    "the shapes must be the same, not only the sizes": (f"""
        x = {LOAD_A}
        y = pl.add(x, x)
        t = pl.load(a, [0, 0], [128, 128], {VEC})
        o = pl.store(y, [0, 0], o)
    """, 192 * K),
    # Only the kernel's body and loops directly in it share: r and s, two loops deep, do not.
    "values two loops deep keep a buffer each": (f"""
        x = {LOAD_A}
        y = pl.add(x, x)
        for i in pl.range(2):
            p = {LOAD_A}
            q = pl.add(p, p)
            for j in pl.range(2):
                r = {LOAD_A}
                s = pl.add(r, r)
                o = pl.store(s, [0, 0], o)
            o = pl.store(q, [0, 0], o)
        o = pl.store(y, [0, 0], o)
    """, 320 * K),
    # r is y seen as [256, 64]: y's buffer; the scratch tile takes x's; the row sum is 256 B.
    "a reshape is a view of its source's buffer": (f"""
        x = {LOAD_A}
        y = pl.add(x, x)
        s = pl.create_tile([64, 256], dtype=pl.FP32, {VEC})
        t = pl.row_sum(y, s)
        r = pl.reshape(y, [256, 64])
        q = pl.exp(r)
        o = pl.store(t, [0, 0], o)
    """, 192 * K + 256),
    # acc takes the buffer of t, which died; the loop still carries acc's first buffer.
    "a loop-carried value keeps its first buffer beside the shared one": (f"""
        t = {LOAD_A}
        u = pl.exp(t)
        acc = pl.mul(u, 0.0)
        for i in pl.range(4):
            x = {LOAD_A}
            acc = pl.add(acc, x)
        o = pl.store(acc, [0, 0], o)
    """, 256 * K),
    # BF16 times a Python float is FP32: m needs 64 KB, not 32.
    "a half-precision tile times a float is FP32": (f"""
        x = {LOAD_C}
        m = pl.mul(x, 0.0)
        o = pl.store(m, [0, 0], o)
    """, 96 * K),
    # Buffers start 32-byte aligned; the last one ends where it ends: 32 + 32 + 16.
    "the last buffer is not padded": (f"""
        p = pl.create_tile([1, 4], dtype=pl.FP32, {VEC})
        q = pl.mul(p, 0.0)
        r = pl.add(p, q)
        o = pl.store(r, [0, 0], o)
    """, 80),
}


def program(body: str) -> str:
    return PROGRAM.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))


def tool_vec(text: str, api) -> int:
    (kernel,) = report_module(cst.parse_module(text), "case.py", api).kernels
    return next(u.bytes for u in kernel.usage if u.space == "Vec")


@pytest.mark.parametrize("case", CASES)
def test_tool_reproduces_the_compilers_figure(case, api):
    body, expected = CASES[case]
    assert tool_vec(program(body), api) == expected


@pytest.mark.parametrize("case", CASES)
def test_the_compiler_still_gives_that_figure(case, tmp_path):
    """Each number above, from the real compiler's memory report (to the report's rounding)."""
    from needs import pypto_or_skip

    pypto_or_skip()
    from codemods.compiler.bridge import compile_source

    body, expected = CASES[case]
    path = tmp_path / "case.py"
    path.write_text(program(body), encoding="utf-8")
    result = compile_source(path, None, "passes")
    assert not result.errors, [e.message for e in result.errors]
    (vec,) = [m for m in result.memory if m.space == "Vec"]
    assert abs(vec.used - expected) <= vec.precision, f"compiler {vec.used} B, written down {expected} B"
