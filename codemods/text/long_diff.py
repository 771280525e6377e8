"""Diffs of long texts in near-linear time, anchored on lines that occur once on each side.

difflib's SequenceMatcher finds the longest matching block of the whole range, then of each
side of it, and so on. On long code that repeats itself (a kernel file of a hundred similar
functions) each line has hundreds of equal lines to try at every step, and the search turns
quadratic: half a minute for the diff of a 2 MB kernel file, more than the migration. Here
the lines that occur exactly once in each text are matched first (the longest chain of them
in the same order on both sides, as patience diff does), the ranges between two anchors are
anchored again on what is unique within them, and SequenceMatcher only runs on ranges that
are short or have nothing unique left. `diffs` uses this above a size real kernels never
reach; below it, difflib's own diff stays as it was. `line_opcodes` is the same for the maps
of lines between two texts (a later step's input to the file, an output to its input).
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator

Opcode = tuple[str, int, int, int, int]
SHORT = 2_000  # lines per side below which SequenceMatcher is fast whatever the text
# Pairs of equal lines above which SequenceMatcher's search gives way to the anchored one:
# the real corpus has at most 5,000; one kernel 16 times over has 55,000 (a tenth of a second).
PAIRS = 100_000


class AnchoredMatcher(difflib.SequenceMatcher):
    """A SequenceMatcher whose opcodes come from the anchored search (its grouping of
    opcodes into hunks is difflib's own)."""

    def __init__(self, a: list[str], b: list[str]) -> None:
        super().__init__(None, a, b, autojunk=False)

    def get_opcodes(self) -> list[Opcode]:
        if self.opcodes is None:
            found: list[Opcode] = []
            _match(self.a, self.b, 0, len(self.a), 0, len(self.b), found)
            self.opcodes = found or [("equal", 0, 0, 0, 0)]
        return self.opcodes


def line_opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """`SequenceMatcher(None, a, b, autojunk=False).get_opcodes()` where its search is cheap
    (the same opcodes, so real kernels map their lines as they always did), anchored where
    it is not: its search is quadratic in the copies of a repeated function, and the line
    maps of a generated kernel file took longer than its migration."""
    if equal_pairs(a, b, autojunk=False) <= PAIRS:
        return difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return AnchoredMatcher(a, b).get_opcodes()


def equal_pairs(a: list[str], b: list[str], autojunk: bool) -> int:
    """The pairs of equal lines, one of each side, that SequenceMatcher's search looks at
    (with `autojunk`, not those of a line it takes for junk): what its time grows with."""
    in_b = Counter(b)
    if autojunk and len(b) >= 200:  # difflib's rule: more than 1% of b's lines is junk
        popular = len(b) // 100 + 1
        in_b = Counter({line: n for line, n in in_b.items() if n <= popular})
    return sum(n * in_b[line] for line, n in Counter(a).items() if line in in_b)


def _match(a, b, alo: int, ahi: int, blo: int, bhi: int, out: list[Opcode]) -> None:
    cheap = ahi - alo <= SHORT and bhi - blo <= SHORT and equal_pairs(a[alo:ahi], b[blo:bhi], False) <= PAIRS
    anchors = [] if cheap else _anchors(a, b, alo, ahi, blo, bhi)
    if not anchors:
        matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            _add(out, tag, alo + i1, alo + i2, blo + j1, blo + j2)
        return
    i, j = alo, blo
    for ai, bj in anchors:
        if i < ai or j < bj:
            _match(a, b, i, ai, j, bj, out)
        _add(out, "equal", ai, ai + 1, bj, bj + 1)
        i, j = ai + 1, bj + 1
    if i < ahi or j < bhi:
        _match(a, b, i, ahi, j, bhi, out)


def _anchors(a, b, alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Pairs (i, j) of equal lines of the ranges: the longest chain increasing on both sides
    (patience sorting over j, in order of i) of the lines unique on both sides or, where none
    is (a function repeated names and all), of the lines as frequent on both sides, the k-th
    of one side paired with the k-th of the other."""
    in_a = Counter(a[alo:ahi])
    in_b = Counter(b[blo:bhi])
    pairs = _pairs(a, b, alo, ahi, blo, bhi, in_a, in_b, once=True)
    if not pairs:
        pairs = _pairs(a, b, alo, ahi, blo, bhi, in_a, in_b, once=False)
    tops: list[int] = []  # tops[k]: the smallest j ending a chain of length k + 1
    top_at: list[int] = []  # index in pairs of that chain's last pair
    before: list[int] = []  # for each pair, the index of the pair before it in its chain
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tops, j)
        before.append(top_at[k - 1] if k else -1)
        if k == len(tops):
            tops.append(j)
            top_at.append(n)
        else:
            tops[k], top_at[k] = j, n
    chain, n = [], top_at[-1] if top_at else -1
    while n >= 0:
        chain.append(pairs[n])
        n = before[n]
    return chain[::-1]


def _pairs(a, b, alo, ahi, blo, bhi, in_a: Counter, in_b: Counter, once: bool) -> list[tuple[int, int]]:
    where_b: dict[str, list[int]] = {}
    for j in range(blo, bhi):
        line = b[j]
        if in_a[line] == in_b[line] and (in_b[line] == 1 or not once):
            where_b.setdefault(line, []).append(j)
    taken: Counter = Counter()
    pairs = []
    for i in range(alo, ahi):
        line = a[i]
        if line in where_b:
            pairs.append((i, where_b[line][taken[line]]))
            taken[line] += 1
    return pairs


def _add(out: list[Opcode], tag: str, i1: int, i2: int, j1: int, j2: int) -> None:
    """Append, joining runs of the same kind so that the opcodes read as difflib's do: no two
    equal runs side by side, and a deletion next to an insertion is one replacement."""
    if i1 == i2 and j1 == j2:
        return
    if out:
        last, pi1, pi2, pj1, pj2 = out[-1]
        if (last == "equal") == (tag == "equal"):
            i1, j1 = pi1, pj1
            out.pop()
            if tag != "equal":
                tag = "replace" if i2 > i1 and j2 > j1 else ("delete" if j2 == j1 else "insert")
    out.append((tag, i1, i2, j1, j2))


def hunk_lines(groups: Iterable[list[Opcode]], a: list[str], b: list[str]) -> Iterator[str]:
    """The hunks of a unified diff, header and lines, from grouped opcodes."""
    for group in groups:
        first, last = group[0], group[-1]
        yield f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            yield from ("-" + line for line in a[i1:i2])
            yield from ("+" + line for line in b[j1:j2])


def _span(start: int, stop: int) -> str:
    """A hunk's range: its first line (1-based) and length; an empty range names the line
    before it, and a length of one is left out."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"
