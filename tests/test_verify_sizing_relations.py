"""The relations `verify`'s sizing reads off a kernel's code, and its search across a package
of modules (issue 29, item 6: the DeepSeek-V4 layers of the May library). Each test is one cause
found on those files, on a kernel written here:
- a sliced subscript of a parameter (`base[N:N + PAD]`) is a window inside it;
- a padded load's valid region stays inside its tensor, and loads at `3 * N` (code unrolled over
  a size) keep N above 3;
- a window at a position read at run time keeps room for the offsets verify draws;
- a slice `x[:, LO:HI]` keeps an element;
- a conditional constant (`CHUNK = 64 if T >= 64 else 128`) chooses a tile, it guards nothing;
- a call of another kernel hands whole tensors over: their dims do not meet one another;
- across modules: a constant each module defines alike, handed from kernel to kernel, moves as
  one; a package too costly even at the smallest sizes found is refused at once, named; a tile's
  row count only kernel bodies read moves with the chunk it divides.
"""

from __future__ import annotations

import ast
import time

import pytest

from codemods.interp import execute, package, sizing
from codemods.interp.execute import Settings
from codemods.interp.ops import OLD, Machine
from codemods.interp.sizing_check import cost_arrays
from codemods.interp.verify import EQUIVALENT, SETUP, verify

WINDOWS = '''\
import pypto.language as pl

T = 512
MIX = 24
N = 4
PAD = 8
MAX_SEQ = 4096
S = 128
R = 64
HIDDEN = 4096


@pl.jit
def k(
    base: pl.Tensor[[MIX], pl.FP32],
    logits: pl.Tensor[[T, N * N], pl.FP32],
    freqs: pl.Tensor[[MAX_SEQ, R], pl.FP32],
    x: pl.Tensor[[T, HIDDEN], pl.FP32],
    pos: pl.Scalar[pl.INT32],
    out: pl.Out[pl.Tensor[[T, HIDDEN], pl.FP32]],
):
    b = base[N:N + PAD]
    r0 = pl.load(logits, [0, 0 * N], [16, PAD], valid_shapes=[16, N])
    r3 = pl.load(logits, [0, 3 * N], [16, PAD], valid_shapes=[16, N])
    rows = pl.slice(freqs, [S, R], [pos, 0])
    out = pl.assemble(out, x, [0, 0])
    return out
'''


def model(text: str, known: dict | None = None) -> sizing.Sizes:
    return sizing.Sizes(ast.parse(text), {}, known)


def test_a_sliced_subscript_of_a_parameter_is_a_window_inside_it():
    m = model(WINDOWS)
    assert m.holds({"MIX": 16})  # N + PAD = 12 fits, and 16 keeps the multiples the statement implies
    assert not m.holds({"MIX": 8})  # base[4:12] would reach past a tensor of 8


def test_a_padded_loads_valid_region_stays_inside_and_unrolled_windows_keep_their_count():
    m = model(WINDOWS)
    # Loads at 0 * N .. 3 * N of an N * N row: their valid N columns fit while N > 3 (a window of
    # PAD = 8 at 3 * N = 12 reaches past the 16 columns already at the file's own sizes).
    assert not m.holds({"N": 2})
    assert any(m.keys[a] == "3" and m.keys[b] == "N" for a, b in m.below)


def test_a_window_at_a_run_time_position_keeps_room_for_the_drawn_offsets():
    m = model(WINDOWS)
    assert m.holds({"S": 1024})
    assert not m.holds({"S": 4096})  # pos (0..3 by default) + 4096 rows would reach past 4096


def test_a_slice_keeps_at_least_one_element():
    text = '''\
import pypto.language as pl
from cfg import M

HEAD = 512
NOPE = M.nope
T = 1024


@pl.jit
def k(x: pl.Tensor[[T, HEAD], pl.FP32], out: pl.Out[pl.Tensor[[T, HEAD], pl.FP32]]):
    out = pl.assemble(out, x[:, NOPE:HEAD], [0, 0])
    return out
'''
    m = model(text, known={"NOPE": 448})  # NOPE is a size of its own, computed by the config
    assert m.holds({"HEAD": 1024})
    assert not m.holds({"HEAD": 256})  # x[:, 448:256] holds nothing


def test_a_conditional_constant_chooses_a_tile_and_guards_nothing():
    text = '''\
import pypto.language as pl

T = 512
CHUNK = 64 if T >= 64 else 128
HIDDEN = 8192


@pl.jit
def k(x: pl.Tensor[[T, HIDDEN], pl.FP32], out: pl.Out[pl.Tensor[[T, HIDDEN], pl.FP32]]):
    for c0 in pl.range(0, HIDDEN, CHUNK):
        out[:, c0 : c0 + CHUNK] = pl.mul(x[:, c0 : c0 + CHUNK], 2.0)
    return out
'''
    m = model(text, known={"CHUNK": 64})
    assert "CHUNK" in m.conditional  # given at run time, whatever the test's truth at the sizes chosen
    assert not any({m.keys[a], m.keys[b]} == {"T", "64"} for a, b in m.below)
    choice = sizing.choose(ast.parse(text), {}, None, {"CHUNK": 64})
    assert choice.sets.get("T", 512) < 64 and "CHUNK" in choice.sets, choice.sets


def test_a_call_of_another_kernel_does_not_make_its_tensors_dims_meet():
    text = '''\
import pypto.language as pl

A = 4096
B = 64


@pl.jit.inline
def inner(a: pl.Tensor[[A], pl.FP32], b: pl.Tensor[[B], pl.FP32]):
    return a


@pl.jit
def k(a: pl.Tensor[[A], pl.FP32], b: pl.Tensor[[B], pl.FP32]):
    a = inner(a, b)
    return a
'''
    m = model(text)
    assert not [(m.keys[x], m.keys[y]) for x, y in m.divides if {m.keys[x], m.keys[y]} == {"A", "B"}]


# A package of three modules, each defining its own BLOCKS alike (a pool size handed on with
# the cache from kernel to kernel), all sized from one config: the DeepSeek-V4 layers' shape.
CONFIG = '''\
BATCH = 64
HIDDEN = 512
'''

POOL = '''\
import pypto.language as pl

from config import BATCH, HIDDEN

BLOCKS = 64
ROWS = BATCH * BLOCKS


@pl.jit.inline
def gather(cache: pl.Tensor[[ROWS, HIDDEN], pl.FP32], out: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.FP32]]):
    for b in pl.range(BATCH):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[b : b + 1, :] = pl.mul(cache[b * BLOCKS : b * BLOCKS + 1, :], {factor})
    return out
'''

MIDDLE = '''\
import pypto.language as pl

from config import BATCH, HIDDEN
from pool import gather

BLOCKS = 64
ROWS = BATCH * BLOCKS


@pl.jit.inline
def middle(cache: pl.Tensor[[ROWS, HIDDEN], pl.FP32], out: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.FP32]]):
    out = gather(cache, out)
    return out
'''

LAYER = '''\
import pypto.language as pl

from config import BATCH, HIDDEN
from middle import middle

BLOCKS = 64
ROWS = BATCH * BLOCKS


@pl.jit
def layer(cache: pl.Tensor[[ROWS, HIDDEN], pl.FP32], out: pl.Out[pl.Tensor[[BATCH, HIDDEN], pl.FP32]]):
    out = middle(cache, out)
    return out
'''


def write(folder, factor: str = "2.0"):
    folder.mkdir()
    (folder / "config.py").write_text(CONFIG)
    (folder / "pool.py").write_text(POOL.format(factor=factor))
    (folder / "middle.py").write_text(MIDDLE)
    (folder / "layer.py").write_text(LAYER)
    return folder / "layer.py"


def sources(original, migrated):
    return (str(original), original.read_text()), (str(migrated), migrated.read_text())


@pytest.fixture
def pair(tmp_path):
    return write(tmp_path / "original"), write(tmp_path / "migrated")


def test_a_constant_each_module_defines_alike_moves_as_one(pair, api):
    started = time.perf_counter()
    verdict = verify(*sources(*pair), Settings(), api, "2026-08")
    assert verdict.code == EQUIVALENT, verdict.message
    assert time.perf_counter() - started < 10
    blocks = [verdict.sizes.get(name, 64) for name in ("BLOCKS", "middle.BLOCKS", "pool.BLOCKS")]
    assert len(set(blocks)) == 1 and blocks[0] < 64, verdict.sizes  # three equal pools, smaller together


def test_the_array_cost_of_a_package_is_the_loops_cost(pair, api):
    original, _ = pair
    text = original.read_text()
    _, _, namespaces = execute.module_values(str(original), text, Machine(OLD, api, 0, "zero"))
    whole = package.build(str(original), ast.parse(text), namespaces)
    m = sizing.Sizes(whole.tree, {}, whole.known, package=True)
    for sizes in ({}, {name: max(2, value // 4) for name, value in m.base.items()}):
        values = m.values(sizes)
        if values is None:
            continue
        looped = sum(__import__("math").prod(max(values[i], 1) for i in dims) for dims in m.tensors)
        trips = 0
        for nest in m.nests:
            n = 1
            for start, stop, step in nest:
                n *= max(1, -(-(values[stop] - values[start]) // values[step])) if values[step] > 0 else 1
            trips += n
        assert cost_arrays(m, values, sizing._TRIP_WEIGHT) == looped + sizing._TRIP_WEIGHT * trips


def test_a_package_too_costly_at_the_smallest_sizes_found_is_refused_at_once(pair, api, monkeypatch):
    monkeypatch.setattr(sizing, "PACKAGE_LIMIT", 1.0)
    verdict = verify(*sources(*pair), Settings(), api, "2026-08")
    assert verdict.code == SETUP and "still cost" in verdict.message and "--set" in verdict.message, verdict.message
    # Sizes given by hand are run as given.
    verdict = verify(*sources(*pair), Settings(sets={"config.BATCH": "4", "config.HIDDEN": "32"}), api, "2026-08")
    assert verdict.code == EQUIVALENT, verdict.message


# A tile's row count that only the kernel body reads (its loop runs a number of times read at run
# time: no priced shape or loop names it), in one statement with a column chunk: the chunk stays
# a multiple of it. The search moves it with the chunk, or the chunk (and the size it steps over)
# stops at the row count (expert_routed's RECV_TILE and D_OUT_CHUNK in the May library).
ROW_TIED = '''\
import pypto.language as pl

B = 128
D = 8192
ROW_TILE = 32
D_CHUNK = 512


@pl.jit
def rows(x: pl.Tensor[[B, D], pl.FP32], counts: pl.Tensor[[1], pl.INT32], y: pl.InOut[pl.Tensor[[B, D], pl.FP32]]):
    n_rows = pl.read(counts, [0])
    n_tiles = (n_rows + ROW_TILE - 1) // ROW_TILE
    for t in pl.range(n_tiles):
        t0 = t * ROW_TILE
        for d0 in pl.range(0, D, 16 * D_CHUNK):
            with pl.at(level=pl.Level.CORE_GROUP):
                y[t0 : t0 + ROW_TILE, d0 : d0 + D_CHUNK] = pl.mul(x[t0 : t0 + ROW_TILE, d0 : d0 + D_CHUNK], 2.0)
    return y
'''


def test_a_row_count_only_the_body_reads_moves_with_the_chunk_it_divides():
    choice = sizing.choose(ast.parse(ROW_TIED), {}, None, None, descend=True)
    model, chosen = choice.model, choice.candidates[0]
    assert "ROW_TILE" in model.tied_to({"D", "D_CHUNK"})
    assert chosen["D_CHUNK"] < 32 and chosen["ROW_TILE"] < 32, chosen
    assert chosen["D_CHUNK"] % chosen["ROW_TILE"] == 0 and model.holds({**model.base, **chosen})
    # The fallback is the largest state on the search's path a package runs at in seconds.
    assert all(model.cost(c) <= sizing.PACKAGE_LIMIT for c in choice.candidates)

# The old four-argument store of a window wider than its tile (a row_max result stored as if it
# were [16, 8]; the library's quantisation kernels did so): the migration stores the [16, 1] the
# op gives, under a review marker. What the original copied from past the tile is undefined.
PAST_THE_TILE = '''\
import pypto.language as pl


@pl.program
class RowMax:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[16, 8], pl.FP32],
        tmp: pl.Tensor[[16, 8], pl.FP32],
        out: pl.Out[pl.Tensor[[16, 8], pl.FP32]],
    ) -> pl.Tensor[[16, 8], pl.FP32]:
        x_t: pl.Tile[[16, 8], pl.FP32] = pl.load(x, [0, 0], [16, 8])
        t_t: pl.Tile[[16, 8], pl.FP32] = pl.load(tmp, [0, 0], [16, 8])
        m_t: pl.Tile[[16, {cols}], pl.FP32] = pl.row_max(x_t, t_t)
        out = pl.store(m_t, [0, 0], {store})
        return out
'''


def test_a_store_past_its_tile_is_held_to_the_tile_only(api):
    original = ("old.py", PAST_THE_TILE.format(cols=8, store="[16, 8], out"))
    migrated = ("new.py", PAST_THE_TILE.format(cols=1, store="out"))
    verdict = verify(original, migrated, Settings(), api, "2026-03")
    assert verdict.code == 3 and "`out` differ" in verdict.message, verdict.message  # before: exit 2, not modelled
    broken = ("new.py", PAST_THE_TILE.format(cols=1, store="out").replace("pl.row_max", "pl.row_min"))
    assert verify(original, broken, Settings(), api, "2026-03").code == 1  # column 0 is still held


def test_a_slot_taken_modulo_a_window_stays_inside_its_block():
    text = '''\
import pypto.language as pl

WIN = 128
BLOCK = 128
B = 64
HEAD = 512


@pl.jit
def k(kv: pl.Tensor[[B, HEAD], pl.FP32], table: pl.Tensor[[B], pl.INT32], pos: pl.Scalar[pl.INT32],
      cache: pl.InOut[pl.Tensor[[B * BLOCK, HEAD], pl.FP32]]):
    slot = pos % WIN
    for b in pl.range(B):
        blk = pl.read(table, [b])
        cache = pl.assemble(cache, kv[b : b + 1, :], [blk * BLOCK + slot, 0])
    return cache
'''
    m = model(text)
    assert m.holds({"WIN": 64, "BLOCK": 128}) and m.holds({"WIN": 64, "BLOCK": 64})
    assert not m.holds({"WIN": 128, "BLOCK": 64})  # slot 100 of a 64-row block lands in the next one


# An entry whose state tensor only a called kernel writes (in the May library, a kernel of
# another module), left a plain parameter: at 2026-08 the host does not read it back.
PLAIN_STATE = '''\
import pypto.language as pl


@pl.jit.inline
def bump(x: pl.Tensor[[16, 16], pl.FP32], state: pl.Tensor[[16, 16], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP):
        state[:, :] = pl.mul(x[:, :], 2.0)
    return state


@pl.jit
def entry(x: pl.Tensor[[16, 16], pl.FP32], state: {annotation}):
    state = bump(x, state)
    return state
'''


def test_a_written_parameter_left_plain_is_named_as_the_cause_of_the_mismatch(api):
    plain = PLAIN_STATE.format(annotation="pl.Tensor[[16, 16], pl.FP32]")
    verdict = verify(("old.py", plain), ("new.py", plain), Settings(), api, "2026-08")
    assert verdict.code == 1 and "`state` a plain parameter" in verdict.message and "pl.InOut" in verdict.message, \
        verdict.message
    declared = PLAIN_STATE.format(annotation="pl.InOut[pl.Tensor[[16, 16], pl.FP32]]")
    assert verify(("old.py", plain), ("new.py", declared), Settings(), api, "2026-08").code == EQUIVALENT
