"""The independent strict check: migrated fixtures pass, originals and broken migrations fail."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.check.strict import check_module
from conftest import FIXTURES

DEEPSEEK = sorted(p.name for p in (FIXTURES / "2026-03" / "before").glob("deepseek_v3_2_*.py"))
KERNELS = DEEPSEEK + ["edge_capacity.py", "edge_regions.py"]


def violations(text: str, api) -> list[tuple[int, str]]:
    module = cst.parse_module(text)
    found = check_module(module, api)
    pos = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return [(pos[v.node].start.line, v.message) for v in found]


@pytest.mark.parametrize("name", KERNELS)
def test_migrated_fixtures_obey_the_target_api(name, api):
    assert violations((FIXTURES / "2026-03" / "after" / name).read_text(), api) == []


@pytest.mark.parametrize("name", DEEPSEEK)
def test_originals_are_rejected_as_the_compiler_would(name, api):
    messages = [m for _, m in violations((FIXTURES / "2026-03" / "before" / name).read_text(), api)]
    assert "Unknown tensor operation: view (removed; use pl.slice)" in messages
    # A create_tensor inside a kernel is accepted by the target (ConvertTensorToTileOps lowers it;
    # measured by benchmarks/measure_api.py), so it is no violation.
    assert not any(m.startswith("pl.create_tensor inside a kernel") for m in messages)
    if "front" in name:  # the review's own example: an rsqrt of a Tensor
        assert "The operator tile.rsqrt requires argument to be a TileType, but got TensorType" in messages


def test_the_review_error_after_view_to_slice_only(run_rules, api):
    """After only the rename, the kernel still fails where the review saw it fail."""
    text = (FIXTURES / "2026-03" / "before" / "deepseek_v3_2_decode_front.py").read_text()
    renamed = run_rules(text, ("PTO001",)).output
    found = violations(renamed, api)
    line = 1 + renamed.splitlines().index("                    inv_rms = pl.rsqrt(pl.add(pl.mul(sq_sum, hidden_inv), EPS))")
    assert (line, "The operator tile.rsqrt requires argument to be a TileType, but got TensorType") in found
    assert any("row_expand_mul requires argument 1 to be a TileType" in m for _, m in found)


MUTATIONS = [
    # (what a careless hand-migration does, text replaced, replacement, expected message start)
    ("slice left in a kernel", "x_chunk = pl.cast(pl.load(hidden_states, [b0, k0], [BATCH_TILE, K_CHUNK], target_memory=pl.MemorySpace.Vec), target_type=pl.FP32)",
     "x_chunk = pl.cast(pl.slice(hidden_states, [BATCH_TILE, K_CHUNK], [b0, k0]), target_type=pl.FP32)",
     "The operator tile.add requires argument 2 to be a TileType or a scalar, but got TensorType"),
    ("scratch tile dropped", "pl.row_sum(pl.mul(q_a, q_a), q_sq_tmp)", "pl.row_sum(pl.mul(q_a, q_a))", "tile pl.row_sum needs its scratch tile"),
    ("operand not moved to Left", "pl.matmul(pl.move(pl.move(q_normed_bf16, target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Left)",
     "pl.matmul(pl.move(q_normed_bf16, target_memory=pl.MemorySpace.Mat)", "matmul operand in Mat"),
    ("vector op on a Mat load", "gamma = pl.load(input_rms_weight, [0, k0], [1, K_CHUNK], target_memory=pl.MemorySpace.Vec)",
     "gamma = pl.load(input_rms_weight, [0, k0], [1, K_CHUNK], target_memory=pl.MemorySpace.Mat)", "vector op pl.col_expand_mul reads a tile in Mat"),
    ("shape arithmetic in a tile shape", "[1, ROPE_DIM_HALF], target_memory=pl.MemorySpace.Vec)\n                        cos_hi",
     "[1, ROPE_DIM // 2], target_memory=pl.MemorySpace.Vec)\n                        cos_hi", "tile shape ROPE_DIM // 2 is not a compile-time constant"),
    ("tensor.read left in a kernel", "pl.tile.read(seq_lens_tile, [b0 + r, 0])", "pl.tensor.read(seq_lens, [b0 + r, 0])", "pl.tensor.read inside a kernel"),
    ("store replaced by assemble", "q_proj = pl.store(q_acc, [b0, q0], q_proj)", "q_proj = pl.assemble(q_proj, q_acc, [b0, q0])",
     "The operator tensor.assemble requires argument 2 to be a TensorType, but got TileType"),
    ("a tile name reused across kernels", "scores_2 = pl.reshape(", "scores = pl.reshape(", "tile name scores of kernel 1 is bound again in kernel 2"),
    ("store with the old shapes argument", "q_proj = pl.store(q_acc, [b0, q0], q_proj)",
     "q_proj = pl.store(q_acc, [b0, q0], [BATCH_TILE, Q_OUT_CHUNK], q_proj)",
     "store() takes 3 positional arguments (tile, offsets, output_tensor) but 4 were given"),
    ("transpose without its axes", "q_proj = pl.store(q_acc, [b0, q0], q_proj)",
     "q_proj = pl.store(pl.transpose(q_acc), [b0, q0], q_proj)",
     "transpose() missing 2 required positional arguments: 'axis1' and 'axis2'"),
]


@pytest.mark.parametrize("what,old,new,expected", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_broken_migrations_are_caught(what, old, new, expected, api):
    text = (FIXTURES / "2026-03" / "after" / "deepseek_v3_2_decode_front.py").read_text()
    assert old in text, "the mutation must apply"
    if what == "a tile name reused across kernels":
        text = text.replace("scores_2", "scores")
    else:
        text = text.replace(old, new, 1)
    messages = [m for _, m in violations(text, api)]
    assert any(m.startswith(expected) for m in messages), messages


def test_tile_op_in_orchestration(api):
    text = """import pypto.language as pl


@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[4, 4], pl.FP32]) -> pl.Tensor[[4, 4], pl.FP32]:
        t = pl.load(x, [0, 0], [4, 4], target_memory=pl.MemorySpace.Vec)
        x = pl.store(pl.exp(t), [0, 0], x)
        return x
"""
    messages = [m for _, m in violations(text, api)]
    assert "tile op pl.load in orchestration: it belongs inside a kernel region" in messages
    assert "tile op pl.exp in orchestration: it belongs inside a kernel region" in messages


def test_planner_strict_check_and_interpreter_agree_on_vector_ops(run_rules, api):
    """Which ops are vector ops comes from the API table, so all three flag a broadcast on Mat."""
    text = """import pypto.language as pl


@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        with pl.auto_incore():
            for b in pl.parallel(0, 8, 4, chunk=1):
                t = pl.load(x, [b, 0], [4, 16], target_memory=pl.MemorySpace.Mat)
                v = pl.load(x, [b, 0], [4, 1], target_memory=pl.MemorySpace.Vec)
                out = pl.store(pl.row_expand_mul(t, v), [b, 0], out)
        return out
"""
    result = run_rules(text)
    # The target compiler accepts a vector op on a Mat tile (measured): nothing is written into
    # code it accepts, the strict check and the interpreter still say what the idioms file says.
    assert result.output == text
    assert not any(f.rule == "PTO015" for f in result.findings)
    assert any("vector op pl.row_expand_mul reads a tile in Mat" in m for _, m in violations(text, api))
    from codemods.interp.execute import Settings
    from codemods.interp.verify import MISMATCH, verify

    verdict = verify(("a.py", text), ("b.py", text), Settings(), api, api.step)
    assert verdict.code == MISMATCH and "vector op pl.row_expand_mul reads a tile in Mat" in verdict.message


# The target's own forms that the 2026-08 table once called errors (issue 36): each a kernel of
# its own, checked by the strict check and, where it is installed, by e2d0f78ae itself.
HEAD_FORMS = {
    # store(tile, offsets, output_tensor, shapes): the ND partition shape after the tensor
    "store_with_shapes": """
    @pl.function(type=pl.FunctionType.InCore)
    def store_with_shapes(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out, [16, 64])
        return out
""",
    # a tile matmul may name its accumulator's own dtype
    "matmul_out_dtype": """
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_out_dtype(self, a: pl.Tensor[[16, 32], pl.BF16], b: pl.Tensor[[32, 64], pl.BF16],
                         out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)
        tb = pl.load(b, [0, 0], [32, 64], target_memory=pl.MemorySpace.Mat)
        c: pl.Tile[[16, 64], pl.FP32] = pl.matmul(ta, tb, out_dtype=pl.FP32)
        out = pl.store(c, [0, 0], out)
        return out
""",
    # a tile comparison's mask packs 8 elements a byte, rows rounded up to 32 bytes
    "packed_masks": """
    @pl.function(type=pl.FunctionType.InCore)
    def packed_masks(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32],
                     out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        b: pl.Tile[[16, 16], pl.FP32] = pl.load(y, [0, 0], [16, 16])
        lt: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmp(a, b, cmp_type=2)
        gt0: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(a, 0.0, cmp_type=4)
        eq: pl.Tile[[16, 32], pl.UINT8] = pl.cmp(a, b, cmp_type=0)
        ne0: pl.Tile[[16, 32], pl.UINT8] = pl.cmps(a, 1.0, cmp_type=1)
        tmp: pl.Tile[[1, 32], pl.UINT8] = pl.tile.create([1, 32], dtype=pl.UINT8)
        picked: pl.Tile[[16, 16], pl.FP32] = pl.tile.sel(lt, a, b, tmp)
        out = pl.store(picked, [0, 0], out)
        return out
""",
    # into Mat, mgather's index is a GM Tensor
    "mgather_into_mat": """
    @pl.function(type=pl.FunctionType.InCore)
    def mgather_into_mat(self, mem: pl.Tensor[[64, 32], pl.FP16], idx: pl.Tensor[[1, 16], pl.INT32],
                         out: pl.Out[pl.Tensor[[16, 32], pl.FP16]]) -> pl.Tensor[[16, 32], pl.FP16]:
        rows: pl.Tile[[16, 32], pl.FP16] = pl.tile.mgather(mem, idx, target_memory=pl.MemorySpace.Mat)
        out = pl.store(rows, [0, 0], out)
        return out
""",
    # without shape=, a reinterpreted view scales its contiguous axis by the byte ratio
    "reinterpret_narrower": """
    @pl.function(type=pl.FunctionType.InCore)
    def reinterpret_narrower(self, x: pl.Tensor[[16, 16], pl.FP32],
                             out: pl.Out[pl.Tensor[[16, 32], pl.INT16]]) -> pl.Tensor[[16, 32], pl.INT16]:
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        v: pl.Tile[[16, 32], pl.INT16] = pl.reinterpret_view(t, pl.INT16)
        out = pl.store(v, [0, 0], out)
        return out
""",
    # row_expand_add on Tiles takes an optional scratch tile
    "row_expand_add_tmp": """
    @pl.function(type=pl.FunctionType.InCore)
    def row_expand_add_tmp(self, x: pl.Tensor[[16, 64], pl.FP32], r: pl.Tensor[[16, 1], pl.FP32],
                           out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        v: pl.Tile[[16, 1], pl.FP32] = pl.load(r, [0, 0], [16, 1])
        tmp: pl.Tile[[16, 64], pl.FP32] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        b = pl.row_expand_add(a, v, tmp)
        c = pl.tile.row_expand_add(b, v, tmp)
        out = pl.store(c, [0, 0], out)
        return out
""",
    # a tensor may still say it is row-major; the DN shorthand is what the parser refuses
    "nd_tensor_param": """
    @pl.function(type=pl.FunctionType.InCore)
    def nd_tensor_param(self, x: pl.Tensor[[16, 64], pl.FP16, pl.ND], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]) -> pl.Tensor[[16, 64], pl.FP16]:
        t: pl.Tile[[16, 64], pl.FP16] = pl.load(x, [0, 0], [16, 64])
        out = pl.store(t, [0, 0], out)
        return out
""",
}
# Each form's neighbour that e2d0f78ae refuses, and what the strict check says of it.
HEAD_REFUSED = {
    "store_with_shapes": ("pl.store(t, [0, 0], out, [16, 64])", "pl.store(t, [0, 0], [16, 64], out)",
                          "The operator tensor.store requires argument 3 to be a TensorType, but got a list"),
    "matmul_out_dtype": ("out_dtype=pl.FP32", "out_dtype=pl.BF16", "pl.matmul: out_dtype=BF16 is not supported for Tile operands"),
    "packed_masks": ("lt: pl.Tile[[16, 32]", "lt: pl.Tile[[16, 16]",
                     "Type annotation for 'lt' has shape dimension 1 = 16 but expression has shape dimension 1 = 32"),
    "nd_tensor_param": ("pl.FP16, pl.ND]", "pl.FP16, pl.DN]", "pl.Tensor[..., pl.DN] is not supported"),
}


def rejections(text: str, api) -> list[str]:
    """What the strict check says the target refuses (not the idioms' advice)."""
    return [v.message for v in check_module(cst.parse_module(text), api) if v.rejects]


def head_program(*names: str, replace: tuple[str, str] = ("", "")) -> str:
    body = "".join(HEAD_FORMS[n] for n in names).replace(*replace)
    return f"import pypto.language as pl\n\n\n@pl.program\nclass HeadForms:{body}"


def test_the_targets_own_forms_are_no_errors():
    from codemods.rulebook.loading import load_api

    head = load_api(None, "2026-08")
    for name in HEAD_FORMS:
        assert rejections(head_program(name), head) == [], name


@pytest.mark.parametrize("name", sorted(HEAD_REFUSED))
def test_their_refused_neighbours_stay_errors(name):
    from codemods.rulebook.loading import load_api

    old, new, message = HEAD_REFUSED[name]
    text = head_program(name, replace=(old, new))
    assert new in text
    assert any(m.startswith(message) for m in rejections(text, load_api(None, "2026-08")))


def test_the_newest_compiler_agrees(tmp_path):
    """e2d0f78ae accepts every form above and refuses each neighbour, at the line the strict check names."""
    from codemods.compiler.bridge import compile_source
    from needs import head_python

    python = head_python()
    path = tmp_path / "forms.py"
    path.write_text(head_program(*HEAD_FORMS))
    accepted = compile_source(path, None, "parse", target="2026-08", python=python)
    assert accepted.ok and accepted.programs == ["HeadForms"], accepted.errors
    for name, (old, new, _) in sorted(HEAD_REFUSED.items()):
        text = head_program(name, replace=(old, new))
        path.write_text(text)
        refused = compile_source(path, None, "parse", target="2026-08", python=python)
        line = 1 + next(i for i, s in enumerate(text.splitlines()) if new in s)
        assert [e.line for e in refused.errors] == [line], (name, refused.errors)


def test_a_jit_entry_s_dn_annotation_is_refused_however_jit_is_imported():
    """A `@pl.jit` function's annotations are parsed as a `@pl.function`'s: the DN shorthand on a
    tensor is refused at 2026-08 (pypto #2250), and accepted by c39, also where `jit` comes from
    its own module (pypto's own test of 2026-08 writes `from pypto.jit.decorator import jit`)."""
    from codemods.rulebook.loading import load_api

    for head in ("import pypto.language as pl\n", "import pypto.language as pl\nfrom pypto.jit.decorator import jit\n"):
        deco = "@pl.jit" if "decorator" not in head else "@jit"
        text = head + f'''

{deco}
def k(a: pl.Tensor[[64, 128], pl.FP16, pl.DN], c: pl.Out[pl.Tensor[[64, 128], pl.FP16]]):
    t = pl.load(a, [0, 0], [64, 128])
    pl.store(t, [0, 0], c)
    return c
'''
        assert any(m.startswith("pl.Tensor[..., pl.DN] is not supported") for m in rejections(text, load_api(None, "2026-08")))
        assert rejections(text, load_api(None, "2026-03")) == []
        assert rejections(text.replace("pl.DN]", "pl.ND]"), load_api(None, "2026-08")) == []
