"""What a run of PTO181's column-wise statements holds in Vec: the bytes of a tile, of one op's
operands together, and whether the run fits the buffer as it is (then no chunking is needed).
"""

from __future__ import annotations

import libcst as cst

from ...model.values import TILE
from ...syntax.nodes import code
from ...syntax.traversal import walk
from .base import positional
from .infer import number


class RunBytes:
    def __init__(self, info, api, limit: int) -> None:
        self.info, self.api, self.limit = info, api, limit
        self._at_once: dict[int, tuple] = {}  # id(site) -> read_at_once: a run's statements are asked again

    def fits(self, function, run) -> bool:
        """Does every tile of the run, and every op's operands together, fit the buffer (all
        sizes known)? Then no run inside it overflows for certain either."""
        sizes = [self.of(shape, dtype, function) for shape, dtype in run.made]
        return bool(sizes) and None not in sizes and max(max(sizes), self.operands(function, run)) <= self.limit

    def operands(self, function, run) -> int:
        """The most bytes one op of the run reads at once: its tile operands are resident
        together, so no memory reuse brings a kernel under this."""
        return max((self.read_at_once(function, site)[0] for site, _, _ in run.members), default=0)

    def read_at_once(self, function, site) -> tuple[int, object, list[str]]:
        """The most bytes one call of the statement reads at once (its distinct tile operands),
        that call, and its operands as written."""
        hit = self._at_once.get(id(site))
        if hit is not None and hit[0] is site:
            return hit[1]
        found = self._at_once_of(function, site)
        self._at_once[id(site)] = (site, found)
        return found

    def _at_once_of(self, function, site) -> tuple[int, object, list[str]]:
        most, call, names = 0, None, []
        # A simple statement's nodes are its own, in the order a walk takes them: its calls are at hand.
        calls = site.of(cst.Call) if type(site.statement) is cst.SimpleStatementLine else \
            [n for n in walk(site.statement) if type(n) is cst.Call]
        for node in calls:
            total, seen = 0, []
            for arg in positional(node):
                val = self.info.type_of(arg.value, site.env)
                if val.kind != TILE or not val.shape:
                    continue
                key = code(arg.value)  # spelled only for a tile: a print of its own for most operands
                if key in seen:
                    continue
                seen.append(key)
                total += self.of(val.shape, val.dtype, function) or 0
            if total > most:
                most, call, names = total, node, seen
        return most, call, names

    def of(self, shape, dtype, function) -> int | None:
        size = self.api.dtype_bytes.get(dtype or "")
        dims = [number(d, self.info, function) for d in shape]
        if size is None or None in dims:
            return None
        total = size
        for d in dims:
            total *= d
        return int(total)
