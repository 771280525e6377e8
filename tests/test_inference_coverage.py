"""Inference coverage (codemods/migrate/coverage.py): which kernel expressions count, and what
the model misses of each, on a kernel written for this test."""

from __future__ import annotations

import textwrap

from codemods.migrate.coverage import measure, missing
from codemods.model.values import SCALAR, TENSOR, TILE, UNKNOWN, Val
from codemods.rulebook.loading import load_api, steps

KERNEL = textwrap.dedent('''\
    import pypto.language as pl
    from sizes import EXTERNAL

    ROWS = 16
    COLS = 64


    @pl.program
    class Demo:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor[[ROWS, COLS], pl.FP32],
                   out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
            tile = pl.load(a, offsets=[0, 0], shapes=[ROWS, COLS])
            doubled = pl.add(tile, tile)
            scaled = pl.mul(doubled, EXTERNAL)
            mystery = helper(doubled)
            for i in pl.range(2):
                first = pl.tile.read(scaled, [i, 0])
            out = pl.store(scaled, [0, 0], out)
            return out
''')


def tables():
    return [load_api(None, s) for s in steps()]


def test_counts_names_calls_and_subscripts_in_kernel_code_only():
    step, entries = measure(KERNEL, tables())
    assert step == steps()[0]  # written for c39: the planner types it
    texts = [e.text for e in entries]
    # the load, its tensor, the two shape constants given by keyword; the add and its two
    # operands; the mul, its tile and the imported value; the unknown helper's call and its
    # operand; the read, its tile and the loop counter; the store, its tile and tensor; the return
    assert len(entries) == 19, texts
    # not counted: callees, annotations, decorators, targets, `pl.range(2)` (a construct), pl.FP32
    assert not any(t in ("pl.range(2)", "helper", "pl.load", "pl.FP32", "Demo") for t in texts)


def test_figure_and_unknown_list():
    _, entries = measure(KERNEL, tables())
    unknown = {(e.line, e.text, e.missing) for e in entries if e.missing}
    # an imported value is a scalar whose Python type the file does not say; a call of a
    # function nobody defines is of no known kind
    assert unknown == {(15, "EXTERNAL", "dtype"), (16, "helper(doubled)", "kind")}
    known = [e for e in entries if not e.missing]
    assert len(known) == 17
    described = {e.text: e.described for e in entries}
    assert described["pl.load(a, offsets=[0, 0], shapes=[ROWS, COLS])"] == "Tile [ROWS, COLS] FP32 in Vec"
    assert described["pl.tile.read(scaled, [i, 0])"] == "Scalar ? FP32"
    assert described["i"] == "Scalar ? INDEX"
    assert described["out"] == "Tensor [ROWS, COLS] FP32"


def test_what_known_means():
    assert missing(None) == "untyped"
    assert missing(Val(UNKNOWN)) == "kind"
    assert missing(Val(TILE, ("8", "8"), "FP32")) == "space"
    assert missing(Val(TILE, ("8", "8"), "FP32"), space=False) == ""
    assert missing(Val(TENSOR, None, "BF16")) == "shape"
    assert missing(Val(SCALAR)) == "dtype"
    assert missing(Val(SCALAR, None, "INDEX")) == ""
