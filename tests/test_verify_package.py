"""`verify` of a kernel file that calls kernels of the modules beside it (issue 29, item 6): the
real DeepSeek-V4 files import kernels from sibling modules, each built at its own module
constants, and all of them sized from one config module. Verify chooses small sizes across
the modules (the config's values, each module's tiles), keeps the relations every module's
code implies and those between a call's tensors and the called kernel's parameters, says
them per module, and `--set module.NAME=VALUE` gives one.

The package here (a config module, a module of tiles, the kernel file) is written for these tests.
"""

from __future__ import annotations

import ast
import time

import pytest

from codemods.interp import execute, package, sizing
from codemods.interp.execute import Settings
from codemods.interp.ops import OLD, Machine
from codemods.interp.verify import EQUIVALENT, MISMATCH, SETUP, verify
from conftest import pypto

CONFIG = '''\
from dataclasses import dataclass


@dataclass(frozen=True)
class Cfg:
    hidden: int
    head_dim: int
    rope_dim: int

    @property
    def nope_dim(self) -> int:
        return self.head_dim - self.rope_dim


BIG = Cfg(hidden=4096, head_dim=128, rope_dim=64)
BATCH = 256
'''

# A module of its own tiles: its K_CHUNK steps over the hidden size the config gives it.
TILES = '''\
import pypto.language as pl

from config import BIG as M, BATCH

B = BATCH
D = M.hidden
K_CHUNK = 512


@pl.jit.inline
def scale_rows(x: pl.Tensor[[B, D], pl.FP32], out: pl.Out[pl.Tensor[[B, D], pl.FP32]]):
    for k0 in pl.range(0, D, K_CHUNK):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:, k0 : k0 + K_CHUNK] = pl.mul(x[:, k0 : k0 + K_CHUNK], {factor})
    return out
'''

# The kernel file: the same sizes read from the config under names of its own, a size the
# config computes (NOPE, a property), a tile of its own, and a call of the other module's kernel.
LAYER = '''\
import pypto.language as pl

from config import BIG as M, BATCH
from tiles import scale_rows

ROWS = BATCH
HIDDEN = M.hidden
HEAD_DIM = M.head_dim
NOPE = M.nope_dim
ROW_TILE = 16


@pl.jit
def layer(
    x: pl.Tensor[[ROWS, HIDDEN], pl.FP32],
    y: pl.Out[pl.Tensor[[ROWS, HIDDEN], pl.FP32]],
    z: pl.Out[pl.Tensor[[ROWS, NOPE], pl.FP32]],
):
    y = scale_rows(x, y)
    for r0 in pl.range(0, ROWS, ROW_TILE):
        with pl.at(level=pl.Level.CORE_GROUP):
            z[r0 : r0 + ROW_TILE, :] = pl.add(y[r0 : r0 + ROW_TILE, 0:NOPE], y[r0 : r0 + ROW_TILE, HEAD_DIM - NOPE : HEAD_DIM])
    return y, z
'''


def write(folder, factor: str = "2.0"):
    folder.mkdir()
    (folder / "config.py").write_text(CONFIG)
    (folder / "tiles.py").write_text(TILES.format(factor=factor))
    (folder / "layer.py").write_text(LAYER)
    return folder / "layer.py"


@pytest.fixture
def pair(tmp_path):
    return write(tmp_path / "original"), write(tmp_path / "migrated")


def sources(original, migrated):
    return (str(original), original.read_text()), (str(migrated), migrated.read_text())


def test_a_kernel_calling_a_sibling_modules_kernel_is_verified_at_small_sizes_per_module(pair, api):
    started = time.perf_counter()
    verdict = verify(*sources(*pair), Settings(), api, "2026-08")
    assert verdict.code == EQUIVALENT, verdict.message  # before: exit 2, "verify those modules one by one"
    assert time.perf_counter() - started < 10
    # The sizes are said where they live: the config's values and the other module's tile.
    assert verdict.sizes["config.BIG.hidden"] < 4096 and verdict.sizes["config.BATCH"] < 256, verdict.sizes
    assert "config.BIG.nope_dim" not in verdict.sizes  # computed by the config from the two it reads


def test_the_sizes_keep_the_relations_of_every_module_and_between_them(pair, api):
    original, _ = pair
    text = original.read_text()
    _, _, namespaces = execute.module_values(str(original), text, Machine(OLD, api, 0, "zero"))
    whole = package.build(str(original), ast.parse(text), namespaces)
    choice = sizing.choose(whole.tree, {}, None, whole.known)
    assert choice.candidates
    sets = whole.runtime_sets(choice.model.env(choice.candidates[0]), whole.known)
    value = lambda name, own: int(sets.get(name, own))  # noqa: E731
    hidden, k_chunk = value("HIDDEN", 4096), value("tiles.K_CHUNK", 512)
    assert value("tiles.D", 4096) == hidden and value("tiles.B", 256) == value("ROWS", 256)  # one config, one size
    assert hidden % k_chunk == 0 and hidden // k_chunk >= 2  # the other module's loop: whole steps, two at least
    head_dim, nope = value("HEAD_DIM", 128), value("NOPE", 64)
    assert 0 < nope < head_dim <= hidden  # the property follows the sizes it is computed from
    assert value("ROWS", 256) % value("ROW_TILE", 16) == 0


def test_a_migration_that_breaks_the_other_module_is_caught(tmp_path, api):
    """Each run imports its own folder's modules, at the chosen sizes."""
    original, migrated = write(tmp_path / "original"), write(tmp_path / "migrated", factor="3.0")
    verdict = verify(*sources(original, migrated), Settings(), api, "2026-08")
    assert verdict.code == MISMATCH and "`y`" in verdict.message, verdict.message


def test_set_names_a_size_of_another_module_or_of_the_config(pair, api):
    verdict = verify(*sources(*pair), Settings(sets={"tiles.K_CHUNK": "64"}), api, "2026-08")
    assert verdict.code == EQUIVALENT, verdict.message
    assert "tiles.K_CHUNK" not in verdict.sizes  # given, not chosen
    assert verdict.sizes["config.BIG.hidden"] % 64 == 0
    verdict = verify(*sources(*pair), Settings(sets={"config.BIG.hidden": "1024"}), api, "2026-08")
    assert verdict.code == EQUIVALENT and "config.BIG.hidden" not in verdict.sizes, verdict.message
    # A size of the kernel file read from the config gives the config's value.
    verdict = verify(*sources(*pair), Settings(sets={"HIDDEN": "1024"}), api, "2026-08")
    assert verdict.code == EQUIVALENT and "config.BIG.hidden" not in verdict.sizes, verdict.message
    verdict = verify(*sources(*pair), Settings(sets={"tiles.NO_SUCH": "4"}), api, "2026-08")
    assert verdict.code == SETUP and "tiles.NO_SUCH" in verdict.message, verdict.message


def test_the_command_says_the_sizes_of_each_module(pair, tmp_path):
    done = pypto("verify", *pair, "--target", "2026-08", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    said = next(line for line in done.stderr.splitlines() if "sizes chosen" in line)
    assert "config.BIG.hidden=" in said and "config.BATCH=" in said, said


def test_an_out_parameter_neither_side_writes_is_not_an_output_that_differs():
    """The DeepSeek-V4 attention's migration declares `cmp_kv` InOut; at inputs where the branch
    writing it is not taken, neither run writes it, and both hold what the host gave."""
    import numpy as np

    from codemods.interp.values import Tensor
    from codemods.interp.verify import compare

    data = np.zeros((2, 2), dtype=np.float32)
    written = Tensor(data + 1, np.ones((2, 2), dtype=bool), "out")
    untouched = Tensor(data, np.zeros((2, 2), dtype=bool), "cache")
    assert compare({"out": written}, {"out": written, "cache": untouched}, False).code == EQUIVALENT
    touched = Tensor(data, np.ones((2, 2), dtype=bool), "cache")
    assert compare({"out": written}, {"out": written, "cache": touched}, False).code == MISMATCH
