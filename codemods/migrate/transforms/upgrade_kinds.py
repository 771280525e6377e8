"""The rule kinds of the 2026-08 upgrade step (type-directed and flags), by name."""

from __future__ import annotations

from .upgrade_chunk import AutoChunk
from .upgrade_cube import L0Operand, ShapeMismatch
from .upgrade_cond import FloatCondition
from .upgrade_typed import (AxisReduction, BoolCondition, FlatOffset, IndexOperand, RemScratch,
                            RowScratch, SameDtypeCast, SelScratch)
from .upgrade_flags import DropKeyword, TensorLayout, UpgradeFlag
from .upgrade_rebind import RebindNewType
from .upgrade_outputs import OutParams
from .upgrade_silent import LogicalNot, SubscriptKeepRank
from .upgrade_yield import YieldBinding
from .upgrade_acc import AccBranchMerge, AccMoveLayout
from .upgrade_ksplit import TensorKSplit
from .upgrade_slices import SliceBound, SliceFullRank
from .upgrade_stores import MixedStores
from .upgrade_stripmine import StripMine
from .upgrade_orchestration import OrchestrationCompute
from .upgrade_fold import ConstantDivision
from .upgrade_jitmeta import JitAliasMetadata
from .upgrade_names import JitUndefinedAnnotation

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
