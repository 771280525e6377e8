"""The search of `sizing` across a package of modules: from where the largest-first walk ends,
the cheapest move while one saves enough. Among many modules the walk stalls where sizes tie
(a constant each module defines alike, handed from kernel to kernel) and leaves tiles small
under loops it made long; a move here is a size and what ties to it, divided by a prime or
multiplied back towards the file's own value."""

from __future__ import annotations

import numpy as np

from .sizing_check import Relations

_DESCENT_GAIN = 0.02  # a move saves at least this share of the cost (fewer, larger steps)


def primes(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def _tied(model, state: dict[str, int], name: str, p: int, names: set, up: bool = False) -> dict[str, int] | None:
    """`name` divided by `p` together with every size an equality ties it to, through as many
    equalities as it takes (a constant each module of a package defines alike, handed from
    kernel to kernel: `CMP_MAX_BLOCKS = 64` in three modules moves as one); None where the
    relations refuse it. `up`: multiplied instead, back towards the file's own sizes."""
    same = model._relations.same
    moving = {name}

    def moves(n: str) -> bool:
        return state[n] * p <= model.base[n] and model.base[n] % (state[n] * p) == 0 if up else \
            state[n] % p == 0 and state[n] // p >= 2

    held: set[str] = set()  # moved along, then found to be what broke an equality: held back
    for _ in range(2 * len(names)):
        trial = {**state, **{n: state[n] * p if up else state[n] // p for n in moving}}
        values = model.values(trial)
        if values is None:
            return None
        v = np.array(values, dtype=object)
        broken = same[v[same[:, 0]] != v[same[:, 1]]] if len(same) else same
        if len(broken):
            # What the two sides of an equality read apart (`B * CMP_MAX_BLOCKS` against
            # `B * other.CMP_MAX_BLOCKS`) is what it ties; what both read stays.
            reads = {n for a, b in broken.tolist() for n in model.reads(a) ^ model.reads(b)}
        else:
            if model.holds(trial):
                return trial
            # A chunk that must keep dividing the size it cuts moves with it.
            reads = {n for i in model._relations.violated(values) for n in model.reads(i)}
        more = {n for n in reads if n in names and n not in moving | held and moves(n)}
        if not more:
            # What the relations read is all moving already: a size tied in along the way (a
            # ratio two modules share, one as a literal) is what breaks them; it stays instead.
            back = reads & moving - held - {name}
            if not back:
                return None
            moving -= back
            held |= back
            continue
        moving |= more
    return None


def descend(model, state: dict[str, int], names: list[str]) -> list[dict[str, int]]:
    """From `state`, the move (a size and those tied to it, divided by a prime) that makes the
    kernel cheapest, while one makes it cheaper: where the largest-first walk ends among many
    modules' tiles and loops, a smaller tile costs more trips than it saves elements."""
    if getattr(model, "_relations", None) is None:
        model._relations = Relations(model)
    allowed, path, cost = set(names), [], model.cost(state)
    # A move starts at a size the cost reads (a dim, a loop bound); those only relations read
    # move when a move ties them in.
    priced = {i for dims in model.tensors for i in dims} | {i for nest in model.nests for loop in nest for i in loop}
    starts = [n for n in names if any(n in model.reads(i) for i in priced)]
    # Only the moves that saved something last time are tried again, until none of them saves
    # enough; then every move once more. A move refused or of no use mostly stays so, and a
    # package has a hundred sizes: each pass over all of them took seconds.
    hopeful: list[str] | None = None
    while True:
        best, best_cost, saving = None, cost, []
        for name in starts if hopeful is None else hopeful:
            # Down by the smallest prime, or back up towards the file's own size (a tile the
            # walk made small, under loops it made long).
            steps = [(p, False) for p in primes(state[name])[:1] if state[name] >= 4]
            steps += [(p, True) for p in primes(model.base[name] // state[name])[:1]]
            for p, up in steps:
                trial = _tied(model, state, name, p, allowed, up)
                if trial is not None and (c := model.cost(trial)) < cost:
                    saving.append(name)
                    if c < best_cost:
                        best, best_cost = trial, c
        if best is None or best_cost > cost * (1 - _DESCENT_GAIN):
            if hopeful is None:
                return path
            hopeful = None  # the few gave out: all of them once more
            continue
        state, cost = best, best_cost
        hopeful = list(dict.fromkeys(saving))
        path.append(dict(state))
