"""The rule kinds of the 2026-08 upgrade step (type-directed and flags), by name."""

from __future__ import annotations

from .chunk import AutoChunk
from .cube import L0Operand, ShapeMismatch
from .cond import FloatCondition
from .typed import (AxisReduction, BoolCondition, FlatOffset, IndexOperand, RemScratch,
                            RowScratch, SameDtypeCast, SelScratch)
from .flags import DropKeyword, TensorLayout, UpgradeFlag
from .rebind import RebindNewType
from .outputs import OutParams
from .silent import LogicalNot, SubscriptKeepRank
from .yields import YieldBinding
from .acc import AccBranchMerge, AccMoveLayout
from .ksplit import TensorKSplit
from .slices import SliceBound, SliceFullRank
from .stores import MixedStores
from .stripmine import StripMine
from .orchestration import OrchestrationCompute
from .fold import ConstantDivision
from .jitmeta import JitAliasMetadata
from .names import JitUndefinedAnnotation

KINDS = {
    "upgrade-subscript-keep-rank": SubscriptKeepRank,
    "upgrade-logical-not": LogicalNot,
    "upgrade-out-params": OutParams,
    "upgrade-auto-chunk": AutoChunk,
    "upgrade-axis-reduction": AxisReduction,
    "upgrade-same-dtype-cast": SameDtypeCast,
    "upgrade-rem-scratch": RemScratch,
    "upgrade-row-scratch": RowScratch,
    "upgrade-bool-condition": BoolCondition,
    "upgrade-float-condition": FloatCondition,
    "upgrade-index-operand": IndexOperand,
    "upgrade-sel-scratch": SelScratch,
    "upgrade-flat-offset": FlatOffset,
    "upgrade-rebind-new-type": RebindNewType,
    "upgrade-flag": UpgradeFlag,
    "keyword-drop": DropKeyword,
    "upgrade-tensor-layout": TensorLayout,
    "upgrade-l0-operand": L0Operand,
    "upgrade-slice-shape": SliceBound,
    "upgrade-mixed-stores": MixedStores,
    "upgrade-jit-alias-metadata": JitAliasMetadata,
    "upgrade-jit-undefined-annotation": JitUndefinedAnnotation,
    "upgrade-shape-mismatch": ShapeMismatch,
    "upgrade-yield-binding": YieldBinding,
    "upgrade-slice-full-rank": SliceFullRank,
    "upgrade-acc-branch-merge": AccBranchMerge,
    "upgrade-acc-move-layout": AccMoveLayout,
    "upgrade-tensor-k-split": TensorKSplit,
    "upgrade-strip-mine": StripMine,
    "upgrade-orchestration-compute": OrchestrationCompute,
    "upgrade-constant-division": ConstantDivision,
}
