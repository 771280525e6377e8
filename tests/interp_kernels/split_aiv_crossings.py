"""Crossings named in a task-parallel pl.split_aiv region: a vector value gathered to the cube
(pl.aic_gather), the product sharded back (pl.tile.aiv_shard); accepted by e2d0f78ae, 2026-11-28."""

import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            rt = pl.move(pl.load(w, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Right)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                v0 = pl.load(x, [0, 0], [16, 32], target_memory=pl.MemorySpace.Vec)
                v1 = pl.cast(pl.mul(v0, 0.5), target_type=pl.BF16)
                g = pl.aic_gather(v1)
            lt = pl.move(pl.move(g, target_memory=pl.MemorySpace.Mat), target_memory=pl.MemorySpace.Left)
            mm = pl.matmul(lt, rt)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                v2 = pl.tile.aiv_shard(mm)
                out = pl.store(v2, [0, 0], out)
        return out
