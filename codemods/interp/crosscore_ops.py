"""Cross-core tile transfer (e2d0f78ae): the cube (AIC) and vector (AIV) functions of a Group
hand tiles to each other through a ring buffer.

`tpush_to_aiv(tile, split=)` (cube -> vector) and `tpush_to_aic` (vector -> cube) queue a copy
of the tile; `tpop_from_aic` / `tpop_from_aiv` take the oldest one of their direction, in Vec
on the vector side and in Mat on the cube side; `tfree_*` release a slot. The pipe set-up
(`aic/aiv_initialize_pipe`, `reserve_buffer`, `import_peer_buffer`) carries no values. A Group
calls its AIC function before its AIV one, so a C2V push precedes its pop when the program runs
in order; a pop of an empty pipe is a kernel that would hang. Only split=0 (no lane split) is
modelled.

`for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE)` runs its body on both AIV lanes with the
full tiles; what they compute is lane-uniform unless it reads `aiv_id`, so the body runs once,
for lane 0. `pl.aiv_shard` (C->V) and `pl.aic_gather` (V->C) name a crossing and, in a NONE
region, keep the shape: the value itself. The data-parallel modes (halves per lane) are not
modelled.
"""

from __future__ import annotations

from collections import deque

from .ops import Machine
from .values import KernelError, Tile


def _pipes(m: Machine) -> dict:
    if not hasattr(m, "pipes"):
        m.pipes = {"aiv": deque(), "aic": deque()}  # keyed by the consumer
    return m.pipes


def _split(op: str, split) -> None:
    if int(split or 0) != 0:
        raise KernelError(f"{op}: split={split} (a lane split) is not modelled by the interpreter")


def push(m: Machine, to: str, tile, *, split=0, id=None, lane_stride=None, aiv_idx=None, span=None):
    op = f"tpush_to_{to}"
    if not isinstance(tile, Tile):
        raise KernelError(f"{op} pushes a Tile")
    _split(op, split)
    m._in_kernel(op)
    m._same_kernel(op, [tile])
    _pipes(m)[to].append(tile.data.copy())


def pop(m: Machine, frm: str, *, shape=None, dtype=None, split=0, id=None, lane_stride=None, aiv_idx=None, span=None):
    op = f"tpop_from_{frm}"
    _split(op, split)
    m._in_kernel(op)
    queue = _pipes(m)["aiv" if frm == "aic" else "aic"]
    if not queue:
        raise KernelError(f"{op} with nothing pushed: the kernel would wait forever")
    data = queue.popleft()
    if shape is not None and tuple(int(s) for s in shape) != data.shape:
        raise KernelError(f"{op}: shape {list(shape)} but the pushed tile is {list(data.shape)}")
    if dtype is not None and dtype.np != data.dtype:
        raise KernelError(f"{op}: dtype {dtype} but the pushed tile is {data.dtype}")
    return m._tile(data, "Vec" if frm == "aic" else "Mat")


def nothing(*_, **__):
    return None


def split_aiv(m: Machine, n=2, mode="NONE", **_):
    if str(mode).rsplit(".", 1)[-1] != "NONE":
        raise KernelError(f"pl.split_aiv(mode={mode}) (each lane a half) is not modelled by the interpreter")
    if m.strict and m.kernel is None:
        raise KernelError("pl.split_aiv opens a region inside a CORE_GROUP scope (pl.at)")
    yield 0


def crossing(m: Machine, op: str, x, span=None):
    m._kernel_local(op, [x])
    return x


def install(pl, m: Machine) -> None:
    ops = {
        "tpush_to_aiv": lambda tile, **kw: push(m, "aiv", tile, **kw),
        "tpush_to_aic": lambda tile, **kw: push(m, "aic", tile, **kw),
        "tpop_from_aic": lambda **kw: pop(m, "aic", **kw),
        "tpop_from_aiv": lambda **kw: pop(m, "aiv", **kw),
    }
    for name, fn in ops.items():
        setattr(pl, name, fn)
        setattr(pl.tile, name, fn)
    pl.system = getattr(pl, "system", None) or type(pl)("pypto.language.system")
    for name in ("tfree_to_aic", "tfree_to_aiv", "aic_initialize_pipe", "aiv_initialize_pipe", "reserve_buffer",
                 "import_peer_buffer"):
        setattr(pl, name, nothing)
        setattr(pl.system, name, nothing)
    for name, fn in ops.items():
        setattr(pl.system, name, fn)
    pl.split_aiv = lambda *a, **k: split_aiv(m, *a, **k)
    for op in ("aiv_shard", "aic_gather"):
        fn = (lambda op: lambda x, span=None: crossing(m, op, x))(op)
        setattr(pl, op, fn)
        setattr(pl.tile, op, fn)
        setattr(pl.tensor, op, fn)
