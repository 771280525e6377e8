"""The same program in the 2026-03 API: InCore kernels called from an Orchestration function,
loop-carried tiles through init_values and pl.yield_, subscripts, explicit pl.tile ops."""

import pypto.language as pl

M = 4
N = 8


@pl.program
class ProgramFunctions:
    @pl.function(type=pl.FunctionType.InCore)
    def accumulate(
        self,
        a: pl.Tensor[[M, N], pl.FP32],
        b: pl.Tensor[[M, N], pl.FP32],
        k: pl.Scalar[pl.INT32],
        total: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        a_t: pl.Tile[[M, N], pl.FP32] = pl.load(a, [0, 0], [M, N])
        b_t: pl.Tile[[M, N], pl.FP32] = pl.load(b, [0, 0], [M, N])
        init: pl.Tile[[M, N], pl.FP32] = pl.tile.full([M, N], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(3, init_values=(init,)):
            if i == k:
                nxt: pl.Tile[[M, N], pl.FP32] = pl.yield_(pl.tile.add(acc, a_t))
            else:
                nxt: pl.Tile[[M, N], pl.FP32] = pl.yield_(pl.add(acc, b_t))
            summed: pl.Tile[[M, N], pl.FP32] = pl.yield_(nxt)
        total = pl.store(summed, [0, 0], total)
        return total

    @pl.function(type=pl.FunctionType.InCore)
    def finish(
        self,
        total: pl.Tensor[[M, N], pl.FP32],
        gram: pl.Tensor[[M, N], pl.FP32],
        s: pl.Scalar[pl.FP32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        t = pl.load(total, [0, 0], [M, N])
        g = pl.load(gram, [0, 0], [M, N])
        out = pl.store(pl.tile.muls(pl.add(t, g), s), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[M, N], pl.FP32],
        b: pl.Tensor[[M, N], pl.FP32],
        k: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        total: pl.Tensor[[M, N], pl.FP32] = pl.create_tensor([M, N], dtype=pl.FP32)
        total = self.accumulate(a, b, k, total)
        gram: pl.Tensor[[N, N], pl.FP32] = pl.matmul(a, b, a_trans=True)
        out = self.finish(total, gram[0:M, 0:N], a[0, 1], out)
        return out
