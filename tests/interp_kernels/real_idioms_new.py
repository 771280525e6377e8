"""The constructs of the real DeepSeek kernels, migrated by hand to the 2026-03 API."""

import pypto.language as pl

ROWS = 8
WIDTH = 16
DEPTH = 2
TOPK = 4
CHUNK = 8
LIMIT_BYTES = 4096


def build_real_idioms_program(rows: int = ROWS, width: int = WIDTH, depth: int = DEPTH):
    ROWS_CFG = rows
    WIDTH_CFG = width
    DEPTH_CFG = depth
    BLOCKS = (WIDTH_CFG + CHUNK - 1) // CHUNK
    if ROWS_CFG * WIDTH_CFG * 4 > LIMIT_BYTES:
        raise ValueError(f"working set {ROWS_CFG * WIDTH_CFG * 4} bytes exceeds {LIMIT_BYTES}")

    @pl.program
    class RealIdioms:
        @pl.function(type=pl.FunctionType.Opaque)
        def real_idioms(
            self,
            x: pl.Tensor[[ROWS_CFG, WIDTH_CFG], pl.BF16],
            cube: pl.Tensor[[DEPTH_CFG, ROWS_CFG, WIDTH_CFG], pl.BF16],
            w: pl.Tensor[[WIDTH_CFG, WIDTH_CFG], pl.BF16],
            lens: pl.Tensor[[ROWS_CFG], pl.INT32],
            pick_t: pl.Tensor[[1], pl.INT32],
            out: pl.Tensor[[ROWS_CFG, WIDTH_CFG], pl.FP32],
        ) -> pl.Tensor[[ROWS_CFG, WIDTH_CFG], pl.FP32]:
            pick = pl.tensor.read(pick_t, [0])
            plane = pl.create_tensor([ROWS_CFG, WIDTH_CFG], dtype=pl.FP32)
            for r in pl.parallel(0, ROWS_CFG, 1, chunk=4):  # outside auto_incore: orchestration, tensor ops
                row = pl.cast(pl.slice(cube, [1, WIDTH_CFG], [pick, r, 0]), target_type=pl.FP32)
                plane = pl.assemble(plane, row, [r, 0])
            proj = pl.matmul(pl.cast(plane, target_type=pl.BF16), w)

            for r in pl.range(ROWS_CFG):
                n = pl.tensor.read(lens, [r])
                keep = pl.min(TOPK, n)
                with pl.auto_incore():
                    with pl.incore():
                        proj_row = pl.load(proj, [r, 0], [1, WIDTH_CFG], target_memory=pl.MemorySpace.Vec)
                        x_row = pl.load(x, [r, 0], [1, WIDTH_CFG], target_memory=pl.MemorySpace.Vec)
                        acc: pl.Tile[[1, WIDTH_CFG], pl.FP32] = pl.tile.full([1, WIDTH_CFG], dtype=pl.FP32, value=0.0)
                        for j in pl.range(keep - 1, -1, -1):
                            v = pl.tile.read(proj_row, [0, j])
                            if v > 0.0:
                                acc = pl.add(acc, proj_row)
                            else:
                                acc = pl.sub(acc, pl.cast(x_row, target_type=pl.FP32))
                        scaled = pl.cast(pl.cast(acc, target_type=pl.FP8E4M3FN), target_type=pl.FP32)
                        plane_row = pl.reshape(pl.load(plane, [r, 0], [1, WIDTH_CFG]), [1, WIDTH_CFG])
                        gate = pl.exp(pl.neg(plane_row))
                        out = pl.store(pl.col_expand_mul(scaled, pl.recip(pl.add(gate, 1.0))), [r, 0], out)

            with pl.auto_incore():
                for b in pl.parallel(0, BLOCKS, 1, chunk=2):
                    c0 = b * CHUNK
                    part = pl.load(out, [0, c0], [ROWS_CFG, CHUNK], target_memory=pl.MemorySpace.Vec,
                                   valid_shapes=[ROWS_CFG, CHUNK])
                    out = pl.store(pl.mul(part, 2.0), [0, c0], out)
            return out

    return RealIdioms


def build_tensor_specs(rows: int = ROWS):
    import torch  # never imported: only the builder runs

    return [torch.zeros(rows)]
