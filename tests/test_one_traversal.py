"""One traversal per phase serves every selected rule, and the planner runs once per file.

Rules are data; the cost of a run must not grow with their number. Counted here on a real
migration with all rules: each phase is one LibCST transform pass, however many rules it
holds, and the type-directed rules share one plan of the input.
"""

from __future__ import annotations

import pytest

from codemods.migrate import engine, planner
from conftest import FIXTURES


@pytest.mark.parametrize("name", ["deepseek_v3_2_decode_front.py", "deepseek_v3_2_prefill_back.py"])
def test_one_pass_per_phase_and_one_plan(name, rules, api, run_rules, monkeypatch):
    passes: list[int] = []
    plans: list[int] = []

    class Counting(engine._Dispatcher):
        def __init__(self, module, chosen, *args, **kwargs):
            passes.append(len(chosen))
            super().__init__(module, chosen, *args, **kwargs)

    real_plan = planner.plan_module
    monkeypatch.setattr(engine, "_Dispatcher", Counting)
    monkeypatch.setattr(planner, "plan_module", lambda *a, **k: plans.append(1) or real_plan(*a, **k))
    text = (FIXTURES / "2026-03" / "before" / name).read_text(encoding="utf-8")
    result = run_rules(text)
    assert result.output == (FIXTURES / "2026-03" / "after" / name).read_text(encoding="utf-8")
    step = [r for r in rules if r.step == api.step]  # run_rules migrates the default target's step
    phases = {r.phase for r in step}
    assert len(passes) == len(phases) and sum(passes) == len(step), passes
    assert len(plans) == 1
