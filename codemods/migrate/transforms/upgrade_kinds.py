"""The rule kinds of the 2026-08 upgrade step (type-directed and flags), by name."""

from __future__ import annotations

from .upgrade_chunk import AutoChunk
from .upgrade_silent import LogicalNot, OutParams, SubscriptKeepRank

KINDS = {
    "upgrade-subscript-keep-rank": SubscriptKeepRank,
    "upgrade-logical-not": LogicalNot,
    "upgrade-out-params": OutParams,
    "upgrade-auto-chunk": AutoChunk,
}
