"""A kernel c39fe714a outlines must hand something back. Each kernel below was judged by that
compiler (its parser and CCE pass pipeline; 2026-11-26): the strict check refuses exactly the
ones it refused, with "InCore function has no return statement" (no line in the compiler's
message; the check names one). The 2026-08 table does not ask it: e2d0f78ae takes an InCore
function without a return, and has no `pl.incore()`."""

from __future__ import annotations

import pytest

from codemods.rulebook.loading import load_api
from test_strict import violations

HEAD = '''import pypto.language as pl

R = 8
C = 16


@pl.program
class P:
'''

SIGNATURE = ("    @pl.function\n    def main(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]])"
             " -> pl.Tensor[[R, C], pl.FP32]:\n")
LOAD = "t = pl.load(x, [0, 0], [R, C], target_memory=pl.MemorySpace.Vec)"


def _opaque(*lines: str) -> str:
    return HEAD + SIGNATURE + "".join(f"        {line}\n" for line in lines)


def _kernel_function(kind: str, body: list[str], returns: bool) -> str:
    ret = " -> pl.Tensor[[R, C], pl.FP32]" if returns else ""
    call = "        out = self.k(x, out)\n        return out\n"
    return (HEAD + f"    @pl.function(type=pl.FunctionType.{kind})\n"
            f"    def k(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]){ret}:\n"
            + "".join(f"        {line}\n" for line in body)
            + "\n    @pl.function(type=pl.FunctionType.Orchestration)\n"
            "    def main(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]])"
            " -> pl.Tensor[[R, C], pl.FP32]:\n" + call)


ACCEPTED = {
    "stores into an Out it returns": _opaque("with pl.incore():", f"    {LOAD}", "    out = pl.store(pl.add(t, t), [0, 0], out)",
                                             "return out"),
    "stores into an Out it never returns": _opaque("with pl.incore():", f"    {LOAD}",
                                                   "    out = pl.store(pl.add(t, t), [0, 0], out)", "return x"),
    "stores into a Tensor nothing reads": _opaque("tmp = pl.create_tensor([R, C], dtype=pl.FP32)", "with pl.incore():",
                                                  f"    {LOAD}", "    tmp = pl.store(pl.add(t, t), [0, 0], tmp)", "return out"),
    "stores under another name": _opaque("with pl.incore():", f"    {LOAD}", "    o2 = pl.store(pl.add(t, t), [0, 0], out)",
                                         "return out"),
    "a store as a statement": _opaque("with pl.incore():", f"    {LOAD}", "    pl.store(pl.add(t, t), [0, 0], out)", "return out"),
    "in a loop": _opaque("for i in pl.range(2):", "    with pl.incore():", f"        {LOAD}",
                         "        out = pl.store(pl.add(t, t), [0, 0], out)", "return out"),
    "a Tensor read after it": _opaque("with pl.incore():", "    y = pl.add(x, x)", "out = pl.assemble(out, y, [0, 0])", "return out"),
    "an AIC function without a return": _kernel_function("AIC", [LOAD, "pl.store(t, [0, 0], out)"], returns=False),
    "an AIV function without a return": _kernel_function("AIV", [LOAD, "pl.store(t, [0, 0], out)"], returns=False),
    "an InCore function with a return": _kernel_function("InCore", [LOAD, "out = pl.store(t, [0, 0], out)", "return out"],
                                                         returns=True),
}

REFUSED = {
    "tiles only": (_opaque("with pl.incore():", f"    {LOAD}", "    u = pl.add(t, t)", "return out"), 11),
    "a Tensor op nothing reads": (_opaque("with pl.incore():", "    y = pl.add(x, x)", "return out"), 11),
    "a scalar read of a tile": (_opaque("with pl.incore():", f"    {LOAD}", "    s = pl.tile.read(pl.add(t, t), [0, 0])",
                                        "return out"), 11),
    "the first of two blocks": (_opaque("with pl.incore():", f"    {LOAD}", "    u = pl.add(t, t)", "with pl.incore():",
                                        "    t2 = pl.load(x, [0, 0], [R, C], target_memory=pl.MemorySpace.Vec)",
                                        "    out = pl.store(t2, [0, 0], out)", "return out"), 11),
    "a load whose tile is dropped": (_opaque("with pl.incore():", f"    pl.load(x, [0, 0], [R, C], target_memory=pl.MemorySpace.Vec)",
                                             "return out"), 11),
    "a loop of loads": (_opaque("with pl.incore():", "    for i in pl.range(2):", f"        {LOAD}", "return out"), 11),
    "an InCore function without a return": (_kernel_function("InCore", [LOAD, "pl.store(t, [0, 0], out)"], returns=False), 10),
}

NEEDS = "no return statement"


@pytest.mark.parametrize("name", ACCEPTED)
def test_a_kernel_that_hands_something_back_passes(name, api):
    assert not [m for _, m in violations(ACCEPTED[name], api) if NEEDS in m]


@pytest.mark.parametrize("name", REFUSED)
def test_a_kernel_that_hands_nothing_back_is_refused_where_it_starts(name, api):
    text, line = REFUSED[name]
    found = [(at, m) for at, m in violations(text, api) if NEEDS in m]
    assert [at for at, _ in found] == [line]


@pytest.mark.parametrize("name", REFUSED)
def test_not_asked_at_2026_08(name):
    text, _ = REFUSED[name]
    assert not [m for _, m in violations(text, load_api(None, "2026-08")) if NEEDS in m]


@pytest.mark.parametrize("line", ["    u = helper(t)", "    self.counts[0] = 1", "    y = [v for v in (t,)]",
                                  "    u = pl.scatter_rows(t, x)"])
def test_what_the_check_cannot_see_through_counts_as_handing_back(line, api):
    # A helper may store, an attribute may be read later, a comprehension binds in its own
    # scope, an op the table does not know may write memory: the check keeps quiet rather
    # than guess (c39's parser refuses these forms anyway, and says so itself).
    text = _opaque("with pl.incore():", f"    {LOAD}", line, "return out")
    assert not [m for _, m in violations(text, api) if NEEDS in m]


def test_a_file_taken_on_to_2026_08_is_not_told_what_only_c39_wants(rules):
    # The file goes through the 2026-03 step on its way; that step's check finds the kernel,
    # but the 2026-08 compiler takes it: the finding is not carried to the end.
    from codemods.run.runner import Job, migrate_text

    text, line = REFUSED["an InCore function without a return"]
    ids = tuple(r.id for r in rules)
    at_03 = migrate_text(text, Job(rule_ids=ids, target="2026-03"))
    at_08 = migrate_text(text, Job(rule_ids=ids, target="2026-08"))
    assert [f.line for f in at_03.findings if NEEDS in f.message] == [line]
    assert not [f for f in at_08.findings if NEEDS in f.message]
