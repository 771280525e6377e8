"""The constructs of the real DeepSeek kernels, old API (written for the interpreter's tests)."""

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
    if ROWS_CFG * WIDTH_CFG * 4 > LIMIT_BYTES:  # a capacity guard, as the real builders have
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
            for r in pl.parallel(0, ROWS_CFG, 1, chunk=4):
                row = pl.cast(pl.view(cube, [1, WIDTH_CFG], [pick, r, 0]), target_type=pl.FP32)
                plane = pl.assemble(plane, row, [r, 0])
            # a matmul of Tensors in orchestration
            proj = pl.matmul(pl.cast(plane, target_type=pl.BF16), w)

            for r in pl.range(ROWS_CFG):
                n = pl.tensor.read(lens, [r])
                keep = pl.min(TOPK, n)
                with pl.auto_incore():
                    acc = pl.create_tensor([1, WIDTH_CFG], dtype=pl.FP32)
                    acc = pl.mul(acc, 0.0)
                    for j in pl.range(keep - 1, -1, -1):
                        v = pl.tensor.read(proj, [r, j])
                        if v > 0.0:
                            acc = pl.add(acc, pl.view(proj, [1, WIDTH_CFG], [r, 0]))
                        else:
                            acc = pl.sub(acc, pl.view(x, [1, WIDTH_CFG], [r, 0]))
                    scaled = pl.cast(pl.cast(acc, target_type=pl.FP8E4M3FN), target_type=pl.FP32)
                    gate = pl.exp(pl.neg(pl.view(plane, [1, WIDTH_CFG], [r, 0])))
                    out = pl.assemble(out, pl.col_expand_mul(scaled, pl.recip(pl.add(gate, 1.0))), [r, 0])

            with pl.auto_incore():
                for b in pl.parallel(0, BLOCKS, 1, chunk=2):
                    c0 = b * CHUNK
                    part = pl.view(out, [ROWS_CFG, CHUNK], [0, c0], valid_shape=[ROWS_CFG, CHUNK])
                    out = pl.assemble(out, pl.mul(part, 2.0), [0, c0])
            return out

    return RealIdioms


def build_tensor_specs(rows: int = ROWS):
    import torch  # never imported: only the builder runs

    return [torch.zeros(rows)]
