"""What the model finds of a file's kernels, asked by several passes of the same tree."""

import libcst as cst

from codemods.model.kernels import OpIndex, kernel_functions
from codemods.syntax.memo import per_file

SOURCE = '''import pypto.language as pl
N = 4

def build(m=N * 2):
    k = m + 1

    @pl.function
    def kernel(x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        return x
    return kernel
'''


def test_the_kernels_of_a_tree_are_found_once_per_op_index():
    module = cst.parse_module(SOURCE)
    with per_file():
        ops = OpIndex(module, "pypto.language").ops
        first = kernel_functions(module, ops)
        assert kernel_functions(module, ops) is first
        (kf,) = first
        assert kf.node.name.value == "kernel" and kf.builder.name.value == "build"
        assert {n: c.value for n, c in kf.constants.items()} == {"N": 4, "m": 8, "k": 9}
        other = dict(ops)  # another index of the same tree: asked again, not taken from the first
        assert kernel_functions(module, other) is not first
        assert kernel_functions(module, other) == first
    assert kernel_functions(module, ops) is not first  # outside the file's block, nothing is kept
