"""The keywords of the tensor-level pl.matmul that its tile form lacks, and what becomes of them.

The tile matmul takes its two operands only (the API table's `tile_params`; the compiler:
`matmul() got an unexpected keyword argument 'b_trans'`). Inside a kernel, where the operands
become tiles, `a_trans=True`/`b_trans=True` are carried out by the move that puts the operand
into Left/Right (`transpose=True`), `out_dtype=pl.FP32` is what the cube unit gives anyway,
and a literal False asks for nothing: all of these are dropped. Anything else (another
out_dtype, a flag held in a variable) stays, and the planner flags it.
"""

from __future__ import annotations

import libcst as cst

from ..rulebook.loading import Op
from ..syntax.nodes import attr_name
from ..model.values import MATMUL_ACC_DTYPE


def tile_matmul_keywords(spec: Op, kw: dict[str, cst.BaseExpression]) -> tuple[tuple[str, ...], tuple[bool, bool]]:
    """(the keywords to drop, (transpose the left operand, transpose the right one))."""
    keep = spec.tile_params or ()
    drop: list[str] = []
    flips = [False, False]
    for name, value in kw.items():
        if name in keep:
            continue
        literal = value.value if isinstance(value, cst.Name) and value.value in ("True", "False") else None
        if name in ("a_trans", "b_trans") and literal is not None:
            drop.append(name)
            flips[0 if name == "a_trans" else 1] = literal == "True"
        elif name == "c_matrix_nz" and literal == "False":
            drop.append(name)
        elif name == "out_dtype" and attr_name(value) == MATMUL_ACC_DTYPE:
            drop.append(name)
    return tuple(drop), (flips[0], flips[1])
