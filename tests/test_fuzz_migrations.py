"""Random old-style kernels: each migration must pass the strict profile and mean the same.

Hypothesis writes small kernels from the constructs the DeepSeek layers use (slices feeding
vector and tile-only ops, norm weights passed whole, row reductions, zeroed accumulators fed
by matmuls over K chunks, scalar reads, piecewise assembly) in random order and nesting;
every one is migrated with all rules and verified with the interpreter.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemods.interp.execute import Settings
from codemods.interp.verify import EQUIVALENT, verify

HEAD = '''import pypto.language as pl

ROWS = 8
COLS = 16
TILE = 4
K = 8


@pl.program
class Fuzz:
    @pl.function
    def fuzz(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        w: pl.Tensor[[COLS, COLS], pl.BF16],
        gamma: pl.Tensor[[1, COLS], pl.FP32],
        lens: pl.Tensor[[ROWS, 1], pl.INT32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        side: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        with pl.auto_incore():
'''
LOOP = "            for b in pl.parallel(0, ROWS, TILE, chunk=1):\n"
TAIL = "        return out\n"
IND = " " * 16
# Outside any chunked loop (wrapped into pl.incore()), and a second kernel that reuses the
# first one's tile names (renamed) and halves the columns with shape arithmetic (hoisted).
PROLOGUE = [
    "head = pl.view(x, [1, COLS], [0, 0])",
    "side = pl.assemble(side, pl.exp(head), [0, 0])",
]
SECOND = [
    "v0 = pl.view(x, [TILE, COLS // 2], [b, COLS // 2])",
    "side = pl.assemble(side, pl.neg(v0), [b, 0])",
]


@st.composite
def kernels(draw):
    """A kernel body as lines; every value v0, v1, ... is a [TILE, COLS] FP32 tensor in the old API."""
    lines = ["v0 = pl.view(x, [TILE, COLS], [b, 0])"]
    n = 1

    def some():
        return f"v{draw(st.integers(0, n - 1))}"

    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["binary", "scalar", "unary", "norm", "gamma", "matmul", "read", "pieces", "half"]))
        a, b = some(), some()
        if kind == "binary":
            op = draw(st.sampled_from(["add", "sub", "mul", "maximum"]))
            lines.append(f"v{n} = pl.{op}({a}, {b})")
        elif kind == "scalar":
            op = draw(st.sampled_from(["add", "mul", "sub"]))
            lines.append(f"v{n} = pl.{op}({a}, {draw(st.sampled_from(['0.5', '2.0', '-1.0']))})")
        elif kind == "unary":
            op = draw(st.sampled_from(["exp", "neg", "rsqrt", "recip"]))
            arg = f"pl.add(pl.mul({a}, {a}), 1.0)" if op in ("rsqrt", "recip") else a
            lines.append(f"v{n} = pl.{op}({arg})")
        elif kind == "norm":
            reduce = draw(st.sampled_from(["row_sum", "row_max"]))
            lines.append(f"v{n} = pl.row_expand_sub({a}, pl.{reduce}({b}))")
        elif kind == "gamma":
            lines.append(f"v{n} = pl.col_expand_mul({a}, gamma)")
        elif kind == "matmul":
            lines += [
                f"acc{n} = pl.create_tensor([TILE, COLS], dtype=pl.FP32)",
                f"acc{n} = pl.mul(acc{n}, 0.0)",
                "for k0 in pl.range(0, COLS, K):",
                f"    part = pl.cast(pl.view({a}, [TILE, K], [0, k0]), target_type=pl.BF16)",
                f"    acc{n} = pl.add(acc{n}, pl.matmul(part, pl.view(w, [K, COLS], [k0, 0])))",
                f"v{n} = acc{n}",
            ]
        elif kind == "read":
            lines.append(f"v{n} = pl.mul({a}, pl.tensor.read(lens, [b, 0]))")
        elif kind == "pieces":
            lines += [
                f"p{n} = pl.create_tensor([TILE, COLS], dtype=pl.FP32)",
                "for c0 in pl.range(0, COLS, K):",
                f"    p{n} = pl.assemble(p{n}, pl.exp(pl.view(x, [TILE, K], [b, c0])), [0, c0])",
                f"v{n} = pl.add(p{n}, {a})",
            ]
        else:  # a view of the input's other half, read row by row
            lines += [
                f"h{n} = pl.view(x, [TILE, COLS], [b, 0])",
                f"v{n} = pl.mul({a}, 1.0)",
                "for r in pl.range(0, TILE, 1):",
                f"    out = pl.assemble(out, pl.view(h{n}, [1, COLS], [r, 0]), [b + r, 0])",
            ]
        n += 1
    lines.append(f"out = pl.assemble(out, v{n - 1}, [b, 0])")
    text = HEAD
    if draw(st.booleans()):
        text += "".join(f"            {line}\n" for line in PROLOGUE)
    text += LOOP + "".join(f"{IND}{line}\n" for line in lines)
    if draw(st.booleans()):
        text += LOOP + "".join(f"{IND}{line}\n" for line in SECOND)
    return text + TAIL


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(), st.integers(0, 3))
def test_random_kernels_migrate_to_equivalent_strict_kernels(run_rules, api, source, seed):
    result = run_rules(source)
    assert not [f for f in result.findings if f.level == "error"], (result.findings, result.output)
    settings_ = Settings(inputs={"lens": (0, 3)}, seed=seed)
    verdict = verify(("fuzz.py", source), ("fuzz-migrated.py", result.output), settings_, api, api.step)
    assert verdict.code == EQUIVALENT, f"{verdict.message}\n--- migrated ---\n{result.output}"
    assert run_rules(result.output).output == result.output, "a second run must change nothing"
