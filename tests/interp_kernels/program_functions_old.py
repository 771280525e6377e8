"""A module-level program, old API: one Opaque function doing everything with tensor ops."""

import pypto.language as pl

M = 4
N = 8


@pl.program
class ProgramFunctions:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(
        self,
        a: pl.Tensor[[M, N], pl.FP32],
        b: pl.Tensor[[M, N], pl.FP32],
        k: pl.Scalar[pl.INT32],
        out: pl.Out[pl.Tensor[[M, N], pl.FP32]],
    ) -> pl.Tensor[[M, N], pl.FP32]:
        total: pl.Tensor[[M, N], pl.FP32] = pl.create_tensor([M, N], dtype=pl.FP32)
        total = pl.mul(total, 0.0)
        for i in pl.range(3):
            if i == k:
                total = pl.tensor.add(total, a)
            else:
                total = pl.add(total, b)
        gram: pl.Tensor[[N, N], pl.FP32] = pl.matmul(a, b, a_trans=True)
        total = pl.add(total, pl.view(gram, [M, N], [0, 0]))
        out = pl.assemble(out, pl.mul(total, pl.tensor.read(a, [0, 1])), [0, 0])
        return out
