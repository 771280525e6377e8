"""`Sizes.holds` over arrays: a search for small sizes checks a package of a dozen modules'
relations (thousands) tens of thousands of times; one NumPy pass per kind of relation
replaces a Python loop over each. Same answers as the loops in `sizing.Sizes.holds`."""

from __future__ import annotations

import numpy as np


class Relations:
    def __init__(self, model) -> None:
        ix = lambda pairs, n: np.array(pairs, dtype=np.intp).reshape(-1, n)  # noqa: E731
        self.positive = np.array(model.positive, dtype=np.intp)
        self.divides = ix(model.divides, 2)
        self.at_least = ix(model.at_least, 3)
        self.below = ix(model.below, 2)
        self.fits = ix(model.fits, 3)
        self.same = ix(model.same, 2)
        rules = model.loop_rules
        self.loops = ix([r[:3] for r in rules], 3)
        self.exact = np.array([bool(r[4]) for r in rules], dtype=bool)
        self.least = np.array([r[5] for r in rules], dtype=np.int64)
        chunked = [(i, r[3], r[6]) for i, r in enumerate(rules) if r[6] is not None]
        self.chunk_rule = np.array([i for i, _, _ in chunked], dtype=np.intp)
        self.chunk = np.array([c for _, c, _ in chunked], dtype=np.intp)
        self.whole = np.array([w for _, _, (w, _) in chunked], dtype=bool)
        self.short = np.array([s for _, _, (_, s) in chunked], dtype=bool)

    def holds(self, values: list[int]) -> bool | None:
        """None where a value does not fit in 64 bits (the loops decide then)."""
        try:
            v = np.array(values, dtype=np.int64)
        except OverflowError:
            return None
        if (v[self.positive] < 1).any():
            return False
        a, b = v[self.divides[:, 0]], v[self.divides[:, 1]]
        if (b <= 0).any() or (a % b).any():
            return False
        a, b, k = v[self.at_least[:, 0]], v[self.at_least[:, 1]], self.at_least[:, 2]
        if (b <= 0).any() or (a // b < k).any():
            return False
        if (v[self.below[:, 0]] >= v[self.below[:, 1]]).any():
            return False
        if (v[self.fits[:, 0]] + v[self.fits[:, 1]] > v[self.fits[:, 2]]).any():
            return False
        if (v[self.same[:, 0]] != v[self.same[:, 1]]).any():
            return False
        start, stop, step = v[self.loops[:, 0]], v[self.loops[:, 1]], v[self.loops[:, 2]]
        if (step == 0).any():
            return False
        extent = stop - start
        trips = np.maximum(0, -(-extent // step))
        if ((self.exact & (extent % step != 0)) | (trips < self.least)).any():
            return False
        if len(self.chunk):
            t, c = trips[self.chunk_rule], v[self.chunk]
            if (c <= 0).any():
                return False
            c = np.where(c > 0, c, 1)
            if ((self.whole & ((t % c != 0) | (t < c))) | (self.short & (t >= c))).any():
                return False
        return True

    def violated(self, values: list[int]) -> set[int]:
        """The terms of every relation these values break (empty: they all hold)."""
        try:
            v = np.array(values, dtype=np.int64)
        except OverflowError:
            return set()
        out: list[np.ndarray] = [self.positive[v[self.positive] < 1]]
        a, b = v[self.divides[:, 0]], v[self.divides[:, 1]]
        out.append(self.divides[(b <= 0) | (a % np.where(b > 0, b, 1) != 0)].ravel())
        a, b, k = v[self.at_least[:, 0]], v[self.at_least[:, 1]], self.at_least[:, 2]
        out.append(self.at_least[(b <= 0) | (a // np.where(b > 0, b, 1) < k)][:, :2].ravel())
        out.append(self.below[v[self.below[:, 0]] >= v[self.below[:, 1]]].ravel())
        out.append(self.fits[v[self.fits[:, 0]] + v[self.fits[:, 1]] > v[self.fits[:, 2]]].ravel())
        out.append(self.same[v[self.same[:, 0]] != v[self.same[:, 1]]].ravel())
        start, stop, step = v[self.loops[:, 0]], v[self.loops[:, 1]], v[self.loops[:, 2]]
        safe = np.where(step != 0, step, 1)
        extent = stop - start
        trips = np.maximum(0, -(-extent // safe))
        bad = (step == 0) | (self.exact & (extent % safe != 0)) | (trips < self.least)
        if len(self.chunk):
            t, c = trips[self.chunk_rule], v[self.chunk]
            cs = np.where(c > 0, c, 1)
            worse = (c <= 0) | (self.whole & ((t % cs != 0) | (t < cs))) | (self.short & (t >= cs))
            bad[self.chunk_rule[worse]] = True
            out.append(self.chunk[worse])
        out.append(self.loops[bad].ravel())
        return {int(i) for part in out for i in part}


def cost_arrays(model, values: list[int], trip_weight: float) -> float:
    """`Sizes.cost` over arrays, for a package's hundreds of tensors and loops (same figure, in
    floating point)."""
    if getattr(model, "_cost_ix", None) is None:
        one = len(model.terms)  # an extra value of 1 pads the shorter shapes and nests
        rank = max((len(d) for d in model.tensors), default=1)
        shapes = np.array([list(d) + [one] * (rank - len(d)) for d in model.tensors] or [[one]], dtype=np.intp)
        depth = max((len(n) for n in model.nests), default=1)
        loops = np.array([[list(t) for t in n] + [[one - 1, one, one]] * (depth - len(n)) for n in model.nests]
                         or [[[one - 1, one, one]]], dtype=np.intp)
        model._cost_ix = (shapes, loops, bool(model.tensors), bool(model.nests))
    shapes, loops, any_tensor, any_nest = model._cost_ix
    v = np.array(list(values) + [1], dtype=np.float64)
    elements = np.prod(np.maximum(v[shapes], 1.0), axis=1).sum() if any_tensor else 0.0
    trips = 0.0
    if any_nest:
        start, stop, step = v[loops[..., 0]], v[loops[..., 1]], v[loops[..., 2]]
        # a padding loop (its stop is the extra value) makes one trip
        pad = loops[..., 1] == len(values)
        n = np.where(step > 0, np.maximum(1.0, np.ceil((stop - start) / np.where(step > 0, step, 1.0))), 1.0)
        n = np.where(pad, 1.0, n)
        trips = np.prod(n, axis=1).sum()
    return float(elements + trip_weight * trips)
