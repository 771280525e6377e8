"""LibCST's parser, without checking again each node it builds from code it has just parsed.

Every LibCST node checks its fields as it is made (`CSTNode.__post_init__` runs `_validate`):
is this whitespace whitespace, are these parentheses paired. A node the parser makes from
source it accepted passes by construction, and on a big file the checks are a tenth of the
parse (0.25 of 2.6 s for 0.7 MB); LibCST's own comment on `__post_init__` says as much. While
`parse_module` here runs, the hook does nothing, and LibCST's is put back after. The nodes the
rules build are checked as always.

The hook belongs to the class, so another thread that made nodes meanwhile would go unchecked:
with any other thread alive, the parse is LibCST's own. Without the hook where this module
expects it (another LibCST), likewise.
"""

from __future__ import annotations

import threading

import libcst as cst

_LIBCSTS = cst.CSTNode.__dict__.get("__post_init__")


def _unchecked(self) -> None:
    return None


def parse_module(text: str) -> cst.Module:
    """`libcst.parse_module(text)`: the same tree, or the same exception."""
    if _LIBCSTS is None or threading.active_count() != 1 or cst.CSTNode.__dict__.get("__post_init__") is not _LIBCSTS:
        return cst.parse_module(text)
    cst.CSTNode.__post_init__ = _unchecked
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = _LIBCSTS
