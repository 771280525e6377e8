"""Shape arithmetic hoisted into a named constant (PTO010, `model/shapes.py`) is bound in every
scope that reads it. A builder's parameters are its own locals: an expression of them that two
builders both read needs a binding in each, not only in the first the planner met (the safety
net found such reads unbound in a generated file of many builders, issue 29 item 5)."""

from __future__ import annotations

import pytest

from codemods.migrate.safety_net import unbound_reads
from codemods.rulebook.loading import load_rules
from codemods.run.runner import Job, migrate_text

BUILDER = '''\
def build_{name}(cols: int = COLS):
    @pl.program
    class {cls}:
        @pl.function
        def run(
            self,
            a: pl.Tensor[[ROWS, cols + EXTRA], pl.FP32],
            out: pl.Out[pl.Tensor[[ROWS, cols + EXTRA], pl.FP32]],
        ) -> pl.Tensor[[ROWS, cols + EXTRA], pl.FP32]:
            with pl.auto_incore():
                for r in pl.parallel(0, ROWS, 4, chunk=1):
                    part = pl.view(a, [4, cols + EXTRA], [r, 0])
                    out = pl.assemble(out, pl.{op}(part, part), [r, 0])
            return out

    return {cls}
'''

SOURCE = "import pypto.language as pl\n\nROWS = 16\nCOLS = 64\nEXTRA = 32\n\n\n" + "\n\n".join(
    BUILDER.format(name=name, cls=name.title(), op=op) for name, op in (("first", "add"), ("second", "mul"), ("third", "sub")))


def _builders(output: str) -> list[list[str]]:
    """The lines of each top-level builder of `output`."""
    found: list[list[str]] = []
    for line in output.splitlines():
        if line.startswith("def "):
            found.append([])
        if found:
            found[-1].append(line)
    return found


@pytest.mark.parametrize("target", ["2026-03", "2026-08"])
def test_each_builder_binds_the_constant_it_reads(target):
    result = migrate_text(SOURCE, Job(tuple(r.id for r in load_rules()), target=target))
    builders = _builders(result.output)
    assert len(builders) == 3
    for lines in builders:
        # one binding, first in the builder's body, under the same name in each (a local of each)
        assert lines[1] == "    cols_plus_extra = cols + EXTRA", lines[:3]
        assert sum("cols_plus_extra =" in line for line in lines) == 1
        assert any("[4, cols_plus_extra]" in line for line in lines)
    assert unbound_reads(result.output) == []
    assert not [f for f in result.findings if f.rule == "API"]
    assert "review" not in result.output


def test_a_module_constant_is_bound_once_for_every_builder():
    """The same arithmetic of module constants only is one module-level binding all builders read."""
    source = SOURCE.replace("cols + EXTRA", "COLS + EXTRA")
    result = migrate_text(source, Job(tuple(r.id for r in load_rules()), target="2026-03"))
    assert result.output.count("COLS_PLUS_EXTRA = COLS + EXTRA") == 1
    assert result.output.count("[4, COLS_PLUS_EXTRA]") == 3
    assert unbound_reads(result.output) == []
