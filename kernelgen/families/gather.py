"""Index gathers and scatters at tensor level, and the tensor markers (no_dep), in the spring
era's kernel scopes (measured with the compiler of 2026-05-26, 2026-11-28).

`pl.tensor.gather` takes its input and index from global memory (the lowering refuses a
computed value), with keywords only; so the production asks for a [TILE, COLS] source and an
INT32 index in [0, COLS). `pl.tensor.scatter` writes a window of the value at indices of a
window of an INT32 input, `scatter_update` rows of one value into another. `pl.tensor.no_dep`
passes its tensor on.
"""

from __future__ import annotations

from . import Ctx, production


def _index(ctx: Ctx, rows: str) -> str:
    name = ctx.input(ctx.fresh("gi"), "COLS", "INT32", rows=rows)
    ctx.verify_inputs[name] = "0:15"  # COLS is 16 at the least
    return name


@production("gather_index", eras=("spring",))
def gather_index(ctx: Ctx) -> None:
    op = ctx.one_of(["gather", "scatter", "scatter_update", "no_dep"])
    ctx.idioms.append(f"tensor_{op}")
    if op == "gather":
        src = ctx.input(ctx.fresh("gs"), "COLS", "FP32", rows="TILE")
        idx = _index(ctx, "TILE")
        g = ctx.fresh("g")
        ctx.add(f"{g} = pl.tensor.gather({src}, dim=-1, index={idx})")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {g})")
    elif op == "scatter":
        idx = _index(ctx, "ROWS")
        ctx.add(f"{ctx.v} = pl.tensor.scatter({ctx.a}, dim=-1, index={ctx.read(idx)}, src={ctx.b})")
    elif op == "scatter_update":  # rows of b replaced by a's rows: an index [1, TILE] of rows in [0, 4)
        name = ctx.input(ctx.fresh("ri"), "TILE", "INT32")
        ctx.verify_inputs[name] = "0:3"
        ns = ctx.one_of(["pl.", "pl.tensor."])
        ctx.add(f"{ctx.v} = {ns}scatter_update({ctx.b}, -2, {ctx.read(name, rows='1', cols='TILE')}, {ctx.a})")
    else:
        ctx.add(f"{ctx.v} = pl.add(pl.tensor.no_dep({ctx.a}), 0.5)")


@production("gather_tile", eras=("aug",))
def gather_tile(ctx: Ctx) -> None:
    """The tile gathers and scatters of e2d0f78ae (measured 2026-11-28 in an InCore function):
    tile.gather / tile.scatter by flat INT32 indices, scatter_update of rows, mgather of rows
    from global memory, gather_row of one row into a tile."""
    op = ctx.one_of(["gather", "scatter", "scatter_update", "mgather", "gather_row"])
    ctx.idioms.append(f"tile_{op}")
    if op == "gather":
        idx = ctx.read(_index(ctx, "ROWS"))
        ctx.add(f"{ctx.v} = pl.tile.gather({ctx.a}, {idx}, {ctx.scratch()})")
    elif op == "scatter":
        idx = ctx.read(_index(ctx, "ROWS"))
        ctx.add(f"{ctx.v} = pl.tile.scatter({ctx.b}, {ctx.a}, {idx})")
    elif op == "scatter_update":  # rows of b replaced by a's rows: an index [1, TILE] of rows in [0, 4)
        name = ctx.input(ctx.fresh("ri"), "TILE", "INT32")
        ctx.verify_inputs[name] = "0:3"
        ns = ctx.one_of(["pl.", "pl.tile."])
        idx = ctx.read(name, rows="1", cols="TILE")
        ctx.add(f"{ctx.v} = {ns}scatter_update({ctx.b}, -2, {idx}, {ctx.a})")
    elif op == "mgather":
        mem = ctx.input(ctx.fresh("gm"), "COLS", "FP32")
        name = ctx.input(ctx.fresh("ri"), "1", "INT32")
        ctx.verify_inputs[name] = "0:7"  # ROWS is 8 at the least
        ns = ctx.one_of(["pl.", "pl.tile."])
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {ns}mgather({mem}, {ctx.read(name, cols='1')}))")
    else:
        src = ctx.input(ctx.fresh("gm"), "COLS", "FP32")
        ns = ctx.one_of(["pl.", "pl.tile."])
        row = ctx.one_of(["0", "1"])
        ctx.add(f"{ctx.v} = {ns}gather_row({ctx.a}, {src}, [{row}, 0], [{ctx.row0}, 0], [1, COLS])")


def _out(ctx: Ctx, stem: str, direction: str = "Out") -> str:
    """An extra output [TILE, COLS] FP32 of the production's own (verify compares it); InOut
    where only some of it is written (what an Out holds elsewhere is not copied in)."""
    name = ctx.fresh(stem)
    ctx.inputs[name] = f"pl.{direction}[pl.Tensor[[TILE, COLS], pl.FP32]]"
    return name


@production("gather_paged", eras=("aug",))
def gather_paged(ctx: Ctx) -> None:
    """Tensor-level gathers in a tile kernel (e2d0f78ae): paged_gather of a pool's rows through a
    block table into Vec, gather_row into a tensor accumulator, each assembled into an output of
    its own (a tile cannot read them: "cannot mix Tensor and Tile arguments"); mscatter of a tile
    into an output at flat indices; dump_tag of an
    input (accepted in an InCore function; bare pl.dump_tag only in orchestration); gatherb of
    32-byte blocks by constant byte offsets."""
    # A body that is a kernel function of its own (row0 "0": the era calls it once per row block,
    # handing only `out` back) cannot write an output of its own: e2d0f78ae wants every InOut
    # argument's post-call value read (InOutUseDiscipline, measured); a body in a pl.at scope can.
    own_outputs = ["paged_gather", "gather_row", "mscatter"] if ctx.row0 != "0" else []
    op = ctx.one_of([*own_outputs, "dump_tag", "gatherb"])
    ctx.idioms.append(f"tensor_{op}")
    if op == "paged_gather":  # blocks of 4 rows: a block table of 2 over a pool of ROWS >= 8 rows
        pool = ctx.input(ctx.fresh("pp"), "COLS", "FP32")
        idx = ctx.input(ctx.fresh("pi"), "TILE", "INT32", rows="1")
        table = ctx.input(ctx.fresh("pt"), "2", "INT32", rows="1")
        ctx.verify_inputs.update({idx: "0:7", table: "0:1"})
        out, p = _out(ctx, "po"), ctx.fresh("p")
        ns = ctx.one_of(["pl.", "pl.tensor."])
        ctx.add(f"{p} = {ns}paged_gather({pool}, {idx}, {table}, block_size=4, size=COLS, max_indices=TILE, "
                "space=pl.MemorySpace.Vec)")
        ctx.add(f"{out} = pl.assemble({out}, pl.add({p}, 1.0), [0, 0])")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, 1.0)")
    elif op == "gather_row":
        src = ctx.input(ctx.fresh("pp"), "COLS", "FP32")
        out, acc = _out(ctx, "po"), ctx.fresh("acc")
        ctx.add(f"{acc} = pl.full([TILE, COLS], dtype=pl.FP32, value=0.0)")
        ctx.add(f"{acc} = pl.tensor.gather_row({acc}, {src}, [1, 0], [{ctx.row0}, 0], [1, COLS])")
        ctx.add(f"{out} = pl.assemble({out}, {acc}, [0, 0])")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, 1.0)")
    elif op == "mscatter":  # a's elements at flat indices of an output (the ones written are compared)
        idx = ctx.read(_index(ctx, "ROWS"))
        out = _out(ctx, "po", "InOut")
        ns = ctx.one_of(["pl.", "pl.tile."])
        ctx.add(f"{out} = {ns}mscatter({ctx.a}, {idx}, {out})")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, 1.0)")
    elif op == "dump_tag":
        src = ctx.input(ctx.fresh("pp"), "COLS", "FP32")
        ctx.add(f"pl.tensor.dump_tag({src})")
        ctx.add(f"{ctx.v} = pl.add({ctx.a}, {ctx.read(src)})")
    else:  # FP32: 8 elements a block, 8 offsets a row (the minimum, "a positive multiple of 8")
        offs = ctx.fresh("o")
        ctx.add(f"{offs} = pl.tile.full([TILE, 8], dtype=pl.UINT32, value={ctx.one_of(['0', '32', '64'])})")
        g = ctx.fresh("gb")
        ctx.add(f"{g} = pl.tile.gatherb({ctx.a}, {offs})")
        ctx.add(f"{ctx.v} = pl.add({ctx.b}, pl.tile.slice({g}, [TILE, COLS], [0, 0]))")
