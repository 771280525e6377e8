"""`wrap-incore`: tile code left in orchestration is given a kernel region of its own.

`pl.auto_incore()` outlines only chunked `pl.parallel` loops long enough to be outlined;
anything else under it stays in orchestration, which runs no tile ops. A run of such
statements that computes is wrapped in `with pl.incore():` (idiom 16). This restructures
regions, so the rule runs in phase 0, before the type-directed rules plan the result.
"""

from __future__ import annotations

import libcst as cst

from ..kernels import OpIndex, find_regions, kernel_functions, module_alias
from ..syntax import statements, walk
from ..rulebook import ApiTable, Rule

# Statements made only of these stay in orchestration: they create hand-off tensors or
# compute scalars, which orchestration does.
ORCHESTRATION_OPS = {"create_tensor", "tensor.read", "read", "min", "max", "range", "parallel", "unroll"}


class WrapIncore:
    def __init__(self, rule: Rule, api: ApiTable) -> None:
        self.rule, self.api = rule, api

    def begin(self, ctx) -> None:
        ops = OpIndex(ctx.module, self.api.module).ops
        self.ops = ops
        self.runs: dict[cst.With, list[tuple[int, int]]] = {}
        self.alias = module_alias(ops)
        for kf in kernel_functions(ctx.module, ops):
            env = {n: c.value for n, c in kf.constants.items()}
            regions = {r.node for r, _ in find_regions(kf.node, ops, env)}
            self._scan(statements(kf.node), regions, inside=False, ctx=ctx)

    def _scan(self, stmts, regions, inside: bool, ctx) -> None:
        for s in stmts:
            if s in regions:
                continue
            if isinstance(s, cst.With):
                names = [self.ops.get(item.item) for item in s.items]
                if "incore" in names:
                    continue
                if "auto_incore" in names and not inside:
                    self._runs_of(s, regions, ctx)
                self._scan(statements(s), regions, inside or "auto_incore" in names, ctx)
            elif isinstance(s, (cst.For, cst.If, cst.While)):
                self._scan(statements(s), regions, inside, ctx)

    def _runs_of(self, scope: cst.With, regions, ctx) -> None:
        body = statements(scope)
        runs, start, last = [], None, None
        for i, s in enumerate(body + [None]):
            kind = "end" if s is None or s in regions else self._kind(s)
            if kind == "pl":
                start = i if start is None else start
                last = i
            elif kind != "neutral" and start is not None:
                if any(self._computes(x) for x in body[start:last + 1]):
                    runs.append((start, last + 1))
                start = None
        if runs:
            self.runs[scope] = runs
            for a, b in runs:
                self._flag_escapes(body, a, b, ctx)

    def _calls(self, node):
        return (self.ops[n] for n in walk(node) if isinstance(n, cst.Call) and n in self.ops)

    def _kind(self, s) -> str:
        """"pl": it uses pl ops a kernel runs; "orchestration": only ops orchestration runs;
        "neutral": no pl op at all (plain Python), which joins a run without starting one."""
        calls = list(self._calls(s))
        if not calls:
            return "neutral"
        return "orchestration" if all(op in ORCHESTRATION_OPS for op in calls) else "pl"

    def _computes(self, s) -> bool:
        return any(op not in ORCHESTRATION_OPS and op not in ("slice", "view") for op in self._calls(s))

    def _flag_escapes(self, body, a: int, b: int, ctx) -> None:
        """A value made in the new block and used after it would be a Tile crossing a kernel boundary."""
        made = {}
        for s in body[a:b]:
            for small in getattr(s, "body", ()) if isinstance(s, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                    made[small.targets[0].target.value] = s
        later = {n.value for s in body[b:] for n in walk(s) if isinstance(n, cst.Name)}
        for name, s in made.items():
            if name in later and not self._is_tensor_result(s):
                ctx.flag_at(self.rule, s, f"{name} is made in the new pl.incore() block and used after it; a Tile "
                            "cannot leave a kernel: store it into a Tensor created before the block")

    def _is_tensor_result(self, s) -> bool:
        value = s.body[0].value if s.body and isinstance(s.body[0], cst.Assign) else None
        return isinstance(value, cst.Call) and self.ops.get(value) in ("assemble", "store")

    def leave_With(self, original, updated, ctx):
        runs = self.runs.get(original)
        if not runs:
            return None
        body = list(updated.body.body)
        out, at = [], 0
        for a, b in runs:
            out.extend(body[at:a])
            first = body[a]
            block = cst.IndentedBlock(body=[first.with_changes(leading_lines=[]), *body[a + 1:b]])
            call = cst.Call(func=cst.parse_expression(f"{self.alias}.incore"))
            out.append(cst.With(items=[cst.WithItem(call)], body=block, leading_lines=first.leading_lines))
            at = b
        out.extend(body[at:])
        return updated.with_changes(body=updated.body.with_changes(body=out))

