"""A cube (AIC) function pushing its matmul result to a vector (AIV) function of the same
Group, with the pipe set-up e2d0f78ae demands (accepted by it, 2026-11-28)."""

import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, x: pl.Tensor[[16, 32], pl.BF16], y: pl.Tensor[[32, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        xm = pl.load(x, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)
        ym = pl.load(y, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        xl = pl.move(xm, target_memory=pl.MemorySpace.Left)
        yr = pl.move(ym, target_memory=pl.MemorySpace.Right)
        z = pl.matmul(xl, yr)
        peer = pl.import_peer_buffer(name="c2v_buf", peer_func="vec")
        pl.aic_initialize_pipe(peer, pl.const(0, pl.INT32), dir_mask=1, slot_size=2048)
        pl.tpush_to_aiv(z, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def vec(self, x: pl.Tensor[[16, 32], pl.BF16], y: pl.Tensor[[32, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf = pl.reserve_buffer(name="c2v_buf", size=16384, base=0x1000)
        pl.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=2048)
        zv: pl.Tile[[16, 32], pl.FP32, pl.MemorySpace.Vec] = pl.tpop_from_aic(split=0)
        w = pl.add(zv, 1.0)
        out = pl.store(w, [0, 0], out)
        pl.tfree_to_aic(zv)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def group(self, x: pl.Tensor[[16, 32], pl.BF16], y: pl.Tensor[[32, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        self.cube(x, y, out)
        self.vec(x, y, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 32], pl.BF16], y: pl.Tensor[[32, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        out = self.group(x, y, out)
        return out
