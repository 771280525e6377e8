"""Values a loop hands on, Tensors bound inside a kernel, masked pieces stored, casts without a
path: the failure classes `make fuzz` shrank into fixtures/fuzz/, written by hand here as
before/after pairs (the lines below were written from the target API, not copied from output),
each verified equal by the interpreter and left alone by a second run."""

from __future__ import annotations

from codemods.interp.execute import Settings
from codemods.interp.verify import EQUIVALENT, verify
from conftest import upgrade

HEAD = '''import pypto.language as pl

ROWS = 8
TILE = 4
COLS = 16


@pl.program
class Example:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
        side: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, ROWS, TILE, chunk=1):
'''
TAIL = "        return out\n"


def kernel(*lines: str) -> str:
    return HEAD + "".join(f"                {line}\n" for line in lines) + TAIL


def migrated(run_rules, api, source: str) -> list[str]:
    result = run_rules(source)
    assert not [f for f in result.findings if f.level == "error"], (result.findings, result.output)
    verdict = verify(("before.py", source), ("after.py", result.output), Settings(), api, "2026-03")
    assert verdict.code == EQUIVALENT, f"{verdict.message}\n{result.output}"
    assert run_rules(result.output).output == result.output, "a second run must change nothing"
    return [line.strip() for line in result.output.splitlines()]


def test_a_tile_a_loop_hands_on_is_stored_after_the_loop(run_rules, api):
    # the yield's binding is the loop's value after it: a Tile here, so its assemble becomes a store
    # (was: left an assemble of a Tile, "tensor.assemble requires second argument to be a TensorType")
    lines = migrated(run_rules, api, kernel(
        "v0 = pl.view(x, [TILE, COLS], [b, 0])",
        "for i, (acc,) in pl.range(2, init_values=(v0,)):",
        "    nxt = pl.add(acc, 1.0)",
        "    acc_out = pl.yield_(nxt)",
        "v1 = acc_out",
        "side = pl.assemble(side, pl.neg(v0), [b, 0])",
        "out = pl.assemble(out, v1, [b, 0])",
    ))
    assert "for i, (acc,) in pl.range(2, init_values=(v0,)):" in lines
    assert "out = pl.store(v1, [b, 0], out)" in lines


def test_a_tensor_a_loop_carries_is_loaded_as_its_init_value(run_rules, api):
    # a tile-only op reads the carried name: what is loaded is the init value, before the loop
    # (was: `acc_tile = pl.load(acc, ...)` at the kernel's start, reading a name bound only by the loop)
    source = '''import pypto.language as pl

TILE = 4
COLS = 16


@pl.program
class Example:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[TILE, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[TILE, COLS], pl.FP32]],
    ) -> pl.Tensor[[TILE, COLS], pl.FP32]:
        with pl.incore():
            for i, (acc,) in pl.range(2, init_values=(x,)):
                nxt = pl.neg(acc)
                acc_out = pl.yield_(nxt)
            out = pl.assemble(out, acc_out, [0, 0])
        return out
'''
    lines = migrated(run_rules, api, source)
    assert "x_tile = pl.load(x, [0, 0], [TILE, COLS], target_memory=pl.MemorySpace.Vec)" in lines
    assert "for i, (acc,) in pl.range(2, init_values=(x_tile,)):" in lines
    assert "nxt = pl.neg(acc)" in lines
    assert "out = pl.store(acc_out, [0, 0], out)" in lines
    assert not any(line.startswith("acc_tile") for line in lines)


def test_a_tensor_bound_inside_the_kernel_is_loaded_where_it_is_read(run_rules):
    # a value the kernel binds (here by a tensor op) is loaded after its binding, not at the kernel's start
    source = kernel(
        "v0 = pl.view(x, [TILE, COLS], [b, 0])",
        "t = pl.tensor.add(v0, v0)",
        "v2 = pl.add(v0, t)",
        "out = pl.assemble(out, v2, [b, 0])",
    )
    lines = [line.strip() for line in run_rules(source).output.splitlines()]
    bound = next(i for i, line in enumerate(lines) if line.startswith("t = "))
    # once `pl.tensor.add` of a Tile takes its tile form (PTO024), `t` is a Tile itself: no load
    # of it at all, and above all none before the line that binds it
    assert lines[bound] == "t = pl.add(v0, v0)"
    assert not [i for i, line in enumerate(lines) if "pl.load(t," in line and i < bound]
    assert lines.index("v2 = pl.add(v0, t)") > bound


def test_a_masked_piece_is_stored_only_over_its_valid_region(run_rules, api):
    # the old assemble wrote only the view's valid region and kept what `side` held beside it
    # (was: a store of the whole tile, its padding over the columns written before)
    lines = migrated(run_rules, api, kernel(
        "side = pl.assemble(side, pl.neg(pl.view(x, [TILE, COLS], [b, 0])), [b, 0])",
        "m = pl.view(x, [TILE, COLS], [b, 0], valid_shape=[TILE, COLS // 2])",
        "side = pl.assemble(side, m, [b, 0])",
        "out = pl.assemble(out, pl.mul(pl.view(x, [TILE, COLS], [b, 0]), 1.0), [b, 0])",
    ))
    assert "COLS_HALF = COLS // 2" in lines
    assert "side = pl.store(pl.slice(m, [TILE, COLS_HALF], [0, 0]), [b, 0], side)" in lines


def test_a_masked_piece_of_runtime_extent_is_flagged(run_rules):
    source = kernel(
        "n = pl.tensor.read(x, [0, 0])",
        "m = pl.view(x, [TILE, COLS], [b, 0], valid_shape=[TILE, n])",
        "side = pl.assemble(side, m, [b, 0])",
        "out = pl.assemble(out, pl.neg(pl.view(x, [TILE, COLS], [b, 0])), [b, 0])",
    )
    result = run_rules(source)
    marker = [f for f in result.findings if f.rule == "PTO003"]
    assert marker and "valid region [TILE, n]" in marker[0].message


CAST = '''import pypto.language as pl


@pl.program
class Example:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.{src}], out: pl.Out[pl.Tensor[[16, 64], pl.{dst}]]) -> pl.Tensor[[16, 64], pl.{dst}]:
        t = pl.load(x, [0, 0], [16, 64], target_memory=pl.MemorySpace.Vec)
        out = pl.store(pl.cast(t, target_type=pl.{dst}), [0, 0], out)
        return out
'''


def test_a_cast_without_a_path_goes_through_a_dtype_that_keeps_every_value():
    # e2d0f78ae on a2a3: no int8 -> fp32 or int8 -> int32 path; int8 -> fp16 and fp16 -> both exist (measured)
    for dst in ("FP32", "INT32"):
        out = upgrade(CAST.format(src="INT8", dst=dst)).output
        assert f"pl.cast(pl.cast(t, target_type=pl.FP16), target_type=pl.{dst})" in out
        assert upgrade(out).output == out


def test_a_cast_with_a_path_or_without_an_exact_route_is_not_rewritten():
    text = CAST.format(src="FP32", dst="INT8")  # a path exists
    assert upgrade(text).output == text
    result = upgrade(CAST.format(src="FP16", dst="INT64"))  # no path, and FP16 holds no INT64 values exactly
    assert "pl.cast(t, target_type=pl.INT64)" in result.output
    assert "review PTO128: a cast from FP16 to INT64 has no native path" in result.output


def test_the_cast_table_reaches_the_rule_through_the_api_table():
    from codemods.rulebook.loading import load_api

    table = load_api(None, "2026-08")
    assert "FP32" not in table.cast_paths["INT8"] and "FP16" in table.cast_paths["INT8"]
    assert not load_api(None, "2026-03").cast_paths  # c39 refused none of these casts
