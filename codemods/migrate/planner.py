"""Type inference over kernel functions, and the migration it calls for: the driver.

One flow-sensitive walk per `@pl.function` infers what each value is (Tensor, Tile,
Scalar; shape, dtype, memory space) as it will be *after* migration, and records, keyed by
the original CST nodes, every conversion the strict 2026-03 API demands inside kernel
regions. The rule kinds in `codemods.migrate.transforms` apply those decisions during the engine's
one traversal; nothing here edits code. Code that is already migrated plans nothing, which
is what makes a second run a no-op.

The Planner is assembled from mixins, each one concern: `model.inference` (what each value
is), `decisions` (what that calls for, written into the Plan), `handoffs` (values crossing a
kernel's boundary), `prescan` (what each name of a region is used for), `selection` (which
edits a rejection needs), `model.shapes` (shape arithmetic hoisted into constants). This
module walks the statements: blocks, branches, assignments, annotations, regions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from contextlib import contextmanager

import libcst as cst

from ..check.strict import rejected_within
from ..model.aliases import scope_of
from ..model.annotations import differences, fully_known
from ..model.constants import closure_dtypes
from ..model.extents import runtime_names
from ..model.inference import Inference, Site
from ..model.kernels import (CARRIED, COUNTER, KernelFunction, OpIndex, Region, find_regions, kernel_functions, loop_targets,
                             module_alias, parameter_value, scope_kind)
from ..model.liveness import Liveness
from ..model.shapes import ShapeConstants
from ..model.values import SCALAR, SCALAR_VAL, TENSOR, TILE, UNKNOWN, UNKNOWN_VAL, VEC, Val, join
from ..rulebook.loading import ApiTable
from ..syntax.nodes import statements
from .decisions import Decisions, statement
from .handoffs import HandOffs
from .plan import Plan, RegionPlan
from .prescan import RegionScan
from .selection import RejectionScope


class Planner(HandOffs, Decisions, Inference, RegionScan, RejectionScope, ShapeConstants):
    """The driver: walks each kernel function's statements, keeping the environment of names,
    and plans each kernel region (quietly where the target accepts it)."""

    def __init__(self, module: cst.Module, api: ApiTable, text: str | None = None) -> None:
        self.module = module
        self.api = api
        self.index = OpIndex(module, api.module)
        self.ops = self.index.ops
        self.plan = Plan()
        self.hoisted: dict[tuple[str, str], str] = {}  # (level, expression) -> its constant's name
        self.bound_hoists: set[tuple[int, tuple[str, str]]] = set()  # (id of module or builder, key) bound there
        # Every identifier-like word of the file: a superset of its names, so fresh names never clash.
        # (`text`: the module's code, when the caller has it already.)
        self.taken: set[str] = set(re.findall(r"[A-Za-z_]\w*", module.code if text is None else text))
        # First do no harm: only code the target rejects is rewritten. A kernel region holding
        # no rejection is still planned (its tiles count in the capacity report) but quietly:
        # nothing it decides reaches the file, and what it sees goes nowhere either.
        self.hot = rejected_within(module, api)
        self._quiet = False
        self._in_region = False
        self._tile_binds: dict[int, set[str]] = defaultdict(set)  # statement id -> names it binds to a Tile
        # `@pl.inline` helpers of the module: the compiler parses a helper's body at each call, with
        # the arguments' types; what each call gave its annotations is gathered here.
        self.helpers = inline_helpers(module, self.ops)
        self._inline_site: InlineSite | None = None
        self._inline_sites: dict[str, list[InlineSite]] = defaultdict(list)

    # -- entry ---------------------------------------------------------------------------
    def run(self) -> Plan:
        self.plan.alias = module_alias(self.ops)
        for kf in kernel_functions(self.module, self.ops):
            self.function(kf)
        self._retype_helpers()
        return self.plan

    def function(self, kf: KernelFunction) -> None:
        self.kf = kf
        self.consts = kf.constants
        self._locals = set(scope_of(kf.node))
        self._closure_types = closure_dtypes(kf.builder, kf.constants, self.module)
        self.env_numbers = {n: c.value for n, c in kf.constants.items()}
        self.runtime = runtime_names(kf.node)
        self.live = Liveness(statements(kf.node))
        regions = find_regions(kf.node, self.ops, self.env_numbers)
        self.plan.regions.extend(r for r, _ in regions)
        plans = []
        self._in_region = True
        for r, body in regions:
            with self._muted(id(r.node) not in self.hot):
                plans.append(self._prescan(r, body))
        self._in_region = False
        for p in plans:
            p.function = kf.node.name.value
        self.plan.region_plans.extend(plans)
        self._decide_renames(plans)
        self.by_node = {p.region.node: p for p in plans}
        env: dict[str, Val] = {}
        for param in [*kf.node.params.posonly_params, *kf.node.params.params, *kf.node.params.kwonly_params]:
            annotation = param.annotation.annotation if param.annotation is not None else None
            env[param.name.value] = parameter_value(annotation, self.ops)
        self.escaped: dict[str, Region] = {}
        whole = self.by_node.get(kf.node)  # a kernel function: its body is the region
        if whole is not None:
            self._region(whole, env)
        else:
            self._block(statements(kf.node), env, None, None)
        for p in plans:
            with self._muted(not self._migrates(p)):
                self._capacity(p)

    def _migrates(self, rp: RegionPlan) -> bool:
        return id(rp.region.node) in self.hot

    @contextmanager
    def _muted(self, quiet: bool):
        """While `quiet`, decisions, edits and flags go to a scratch plan that is dropped."""
        if not quiet or self._quiet:
            yield
            return
        kept = self.plan.decisions, self.plan.statements, self.plan.flags
        self.plan.decisions, self.plan.statements, self.plan.flags = defaultdict(dict), [], []
        self._quiet = True
        try:
            yield
        finally:
            self.plan.decisions, self.plan.statements, self.plan.flags = kept
            self._quiet = False


    # -- statements ----------------------------------------------------------------------
    def _block(self, stmts, env: dict[str, Val], rp: RegionPlan | None, scope) -> None:
        for s in stmts:
            if rp is not None:
                self._reload_if_used(s, env, rp)
            self._statement(s, env, rp, scope)

    def _statement(self, s, env, rp, scope) -> None:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                (self._annotated if isinstance(small, cst.AnnAssign) else self._small)(small, s, env, rp)
        elif isinstance(s, cst.With):
            inner = self.by_node.get(s)
            if inner is not None:
                self._region(inner, env)
            else:
                auto = any(scope_kind(item.item, self.ops) == "auto_incore" for item in s.items)
                self._block(statements(s), env, rp, s if auto else scope)
        elif isinstance(s, cst.For):
            for name, how, start in loop_targets(s, self.ops):
                if how == COUNTER:
                    env[name] = SCALAR_VAL.but(dtype="INDEX")
                else:  # a carried value starts as its init value; an unpacked one is not known
                    env[name] = env.get(start.value, UNKNOWN_VAL) if type(start) is cst.Name else UNKNOWN_VAL
                if rp is not None:
                    if how == CARRIED and start is not None:
                        rp.carried_init[name] = (start, s)
                    else:
                        rp.bound.add(name)
                    if env[name].is_tile:  # the loop binds it to a Tile: its readers take part in a rejection with it
                        self._tile_binds[id(s)].add(name)
            self._expr(s.iter, env, Site(s, rp))
            if _auto_incore(scope, self.ops):  # only auto_incore splits chunked loops (measured)
                self._hoist_loop_bounds(s)
            inner = self.by_node.get(s)
            if inner is not None:
                self._region(inner, env)
            else:
                self._block(statements(s), env, rp, scope)
        elif isinstance(s, cst.If):
            self._expr(s.test, env, Site(s, rp))
            then_env, else_env = dict(env), dict(env)
            self._block(statements(s), then_env, rp, scope)
            if s.orelse is not None:
                self._block(statements(s.orelse), else_env, rp, scope)
            for name in set(then_env) | set(else_env):
                a, b = then_env.get(name), else_env.get(name)
                env[name] = join(a, b) if a is not None and b is not None else (a or b)
                if a is not None and b is not None and a.kind == b.kind == SCALAR and a.dtype:
                    # c39 types what an if hands on by its first branch (measured: `f: pl.Scalar[pl.BOOL]
                    # = pl.yield_(1)` there and `f = pl.yield_(0)` in the else is a BOOL, the other way an INDEX)
                    env[name] = env[name].but(dtype=a.dtype)
        elif isinstance(s, cst.While):
            self._expr(s.test, env, Site(s, rp))
            self._block(statements(s), env, rp, scope)

    def _small(self, small, stmt, env, rp) -> None:
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            # A hand-off buffer's pieces and a folded view belong with the tiles they are read as.
            if rp is not None and name in rp.handoff and self._handoff_statement(small, stmt, name, env, rp):
                self._tile_binds[id(stmt)].add(name)
                self._rewritten(small.value, env.get(name), env, Site(stmt, rp, name, True))
                return
            if rp is not None and name in rp.fold_only and self._fold_view(small, stmt, name, env, rp):
                self._tile_binds[id(stmt)].add(name)
                self._rewritten(small.value, env.get(name), env, Site(stmt, rp, name, True))
                return
            value = self._expr(small.value, env, Site(stmt, rp, name, True))
            before = env.get(name)
            if (rp is not None and value.is_tile and before is not None and before.is_tensor
                    and name in (rp.stored | rp.hoisted) and name not in rp.handoff and before.shape == value.shape and value.shape):
                # A Tensor the kernel also writes piecewise stays a Tensor: a whole update is stored into it.
                self.plan.decisions["handoff-buffer"][small] = ("whole", self._zeros(value), name)
                return
            env[name] = value
            if rp is not None:
                rp.bound.add(name)
            if rp is not None and value.is_tile:
                rp.tile_vars.add(name)
                self._tile_binds[id(stmt)].add(name)
        elif isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            if small.value is not None:
                self._expr(small.value, env, Site(stmt, rp))
            if isinstance(small, cst.Assign) and self._call_op(small.value) == "yield_":
                # `a_out, b_out = pl.yield_(a, b)`: each result binding is what the loop hands on in
                # its place (the value yielded there), as the loop's header names are
                names = small.targets[0].target if len(small.targets) == 1 else None
                yielded = self._yielded
                if type(names) in (cst.Tuple, cst.List) and len(names.elements) == len(yielded):
                    for element, value in zip(names.elements, yielded):
                        if type(element.value) is cst.Name:
                            env[element.value.value] = value
                            if rp is not None:
                                rp.bound.add(element.value.value)
        elif isinstance(small, (cst.Expr, cst.Return)):
            if small.value is not None:
                value = self._expr(small.value, env, Site(stmt, rp))
                if type(small) is cst.Return and self._inline_site is not None:
                    self._inline_site.returns.append(value)

    def _annotated(self, small: cst.AnnAssign, stmt, env, rp) -> None:
        """`x: pl.Tensor[[M, N], pl.FP32] = value`: the compiler checks the annotation against the
        value's type, so where migration turns the value into a Tile the annotation follows it."""
        if small.value is None or not isinstance(small.target, cst.Name):
            return self._small(small, stmt, env, rp)
        name = small.target.value
        declared = parameter_value(small.annotation.annotation, self.ops)
        if rp is not None and name in rp.handoff:
            self._expr(small.value, env, Site(stmt, rp))
            self._flag("untyped-value", stmt, f"{name} is assembled piecewise under an annotation: hand it off by hand")
            env[name] = declared
            return None
        # The annotated form is planned as the plain assignment it annotates; every decision is
        # keyed by the value's own nodes or by the statement, which both forms share.
        self._small(cst.Assign([cst.AssignTarget(small.target)], small.value), stmt, env, rp)
        value = env.get(name, UNKNOWN_VAL)
        if value.kind == declared.kind == SCALAR and declared.dtype:  # `n: pl.Scalar[pl.INT32] = ...` holds an INT32
            env[name] = value = value.but(dtype=declared.dtype)
        if self._inline_site is not None:  # a helper's body typed for one call: judged over all its calls
            self._inline_site.annotations.append((small.annotation, declared, value, stmt))
            if value.kind == UNKNOWN and declared.kind in (TENSOR, TILE):
                env[name] = declared
            return None
        if value.kind == UNKNOWN and declared.kind in (TENSOR, TILE):
            value = declared  # what the annotation says is what the compiler will hold it to
            env[name] = value
            if rp is not None and value.is_tile:
                rp.tile_vars.add(name)
        elif self._annotation_disagrees(small, stmt, name, declared, value):
            pass
        elif value.is_tile and declared.is_tensor:
            shape, dtype = declared.shape or value.shape, declared.dtype or value.dtype
            if shape is None or dtype is None:
                self._flag("untyped-value", stmt, f"{name} becomes a Tile but its annotation says Tensor; "
                           f"annotate it pl.Tile[[shape], dtype] by hand")
            elif rp is not None or id(stmt) in self.hot:
                self.plan.decisions["retype-annotation"][small.annotation] = (self._shape_text(shape), dtype)
        return None

    def _annotation_disagrees(self, small: cst.AnnAssign, stmt, name: str, declared: Val, value: Val) -> bool:
        """An annotation whose shape or dtype the value's certainly does not match: the compiler
        rejects it, so it is written from the value's type where that is known, else flagged."""
        ann = small.annotation.annotation
        if not (isinstance(ann, cst.Subscript) and self.ops.get(ann.value) in ("Tensor", "Tile")):
            return False  # pl.Out[...] and the like: not an annotation of a local's own type
        found = [d for d in differences(name, declared, value, self.env_numbers) if " but expression has type " not in d]
        if not found:
            return False
        if fully_known(value, self.env_numbers):
            self.plan.decisions["retype-annotation"][small.annotation] = ("exact", value.kind, self._shape_text(value.shape), value.dtype)
        else:
            self._flag("untyped-value", stmt, f"{found[0]}: correct the annotation by hand")
        return True

    # -- @pl.inline helpers ----------------------------------------------------------------
    def _inline_call(self, node: cst.Call, env, sc: Site) -> Val:
        """A call of an `@pl.inline` helper: c39 parses the helper's body in place, with its
        arguments' types (its parameter annotations are not checked, its locals' are). The body
        is typed for this call (nothing decided inside it), and the call is what it returns."""
        helper = self.helpers[node.func.value]
        params = [*helper.params.posonly_params, *helper.params.params]
        vals = [self._expr(a.value, env, sc.inner()) for a in node.args]
        if (any(a.keyword is not None or a.star for a in node.args) or len(vals) != len(params)
                or helper.params.star_arg is not cst.MaybeSentinel.DEFAULT or self._inline_site is not None):
            return UNKNOWN_VAL  # not a call c39 inlines as written, or a helper calling a helper
        site = InlineSite(sc.region, sc.node, self._quiet)
        henv: dict[str, Val] = {}
        for param, v in zip(params, vals):
            declared = parameter_value(param.annotation.annotation if param.annotation else None, self.ops)
            henv[param.name.value] = v if v.kind != UNKNOWN else declared
            site.annotations.append((param.annotation, declared, henv[param.name.value], None))
        in_region, escaped, local = self._in_region, self.escaped, self._locals
        self._inline_site, self._in_region, self.escaped, self._locals = site, False, {}, set(scope_of(helper))
        try:
            with self._muted(True):
                self._block(statements(helper), henv, None, None)
        finally:
            self._inline_site, self._in_region, self.escaped, self._locals = None, in_region, escaped, local
        if helper.returns is not None:
            returned = parameter_value(helper.returns.annotation, self.ops)
            result = site.returns[0] if site.returns else UNKNOWN_VAL
            for other in site.returns[1:]:
                result = join(result, other)
            site.annotations.append((helper.returns, returned, result, None))
        else:
            result = site.returns[0] if len(site.returns) == 1 else UNKNOWN_VAL
        self._inline_sites[node.func.value].append(site)
        return result.but(space=VEC) if result.is_tile and result.space is None else result

    def _retype_helpers(self) -> None:
        """Each `pl.Tensor` annotation of a helper that every call gives a Tile, at least one in
        code being migrated, says `pl.Tile`: its locals' because c39 checks them at each
        inlining, its parameters' and result's so that the helper says what it now takes. A
        local that one call makes a Tile and another a Tensor is flagged: no one annotation fits."""
        for name, sites in self._inline_sites.items():
            # A call in a migrated region whose statement keeps its edits: the code there becomes
            # what the plan typed. Elsewhere in a region, what the plan typed a Tile may stay a Tensor.
            live = [site.region is not None and not site.quiet and id(site.statement) in site.region.kept for site in sites]
            if not any(live):
                continue
            seen: dict[int, list] = {}
            for site, made in zip(sites, live):
                for annotation, declared, value, stmt in site.annotations:
                    if annotation is not None and declared.is_tensor:
                        if value.is_tile and not made and site.region is not None:
                            value = UNKNOWN_VAL  # typed a Tile, but this call's code may stay as it is
                        seen.setdefault(id(annotation), [annotation, declared, stmt, []])[3].append(value)
            for annotation, declared, stmt, values in seen.values():
                if len(values) == len(sites) and all(v.is_tile for v in values):
                    shape, dtype = declared.shape or values[0].shape, declared.dtype or values[0].dtype
                    if shape is not None and dtype is not None:
                        self.plan.decisions["retype-annotation"][annotation] = (self._shape_text(shape), dtype)
                    elif stmt is not None:
                        self.plan.flags.append(("untyped-value", stmt, f"the value of this local of @pl.inline {name} "
                                                "becomes a Tile but its annotation says Tensor; annotate it "
                                                "pl.Tile[[shape], dtype] by hand"))
                elif stmt is not None and any(v.is_tile for v in values):
                    self.plan.flags.append(("untyped-value", stmt, f"@pl.inline {name} is called with a Tile and "
                                            "with a Tensor: c39 checks this annotation at each call, and no one "
                                            "annotation fits both; split the helper or drop the annotation"))

    def _region(self, rp: RegionPlan, env: dict[str, Val]) -> None:
        outer = self._in_region
        self._in_region = True
        try:
            if not self._migrates(rp) or self._quiet:
                with self._muted(True):
                    self._region_body(rp, env)
            else:
                kept = self.plan.decisions, self.plan.statements, self.plan.flags
                scratch = defaultdict(dict), [], []
                self.plan.decisions, self.plan.statements, self.plan.flags = scratch
                try:
                    self._region_body(rp, env)
                finally:
                    self.plan.decisions, self.plan.statements, self.plan.flags = kept
                self._keep(rp, *scratch)
        finally:
            self._in_region = outer

    def _region_body(self, rp: RegionPlan, env: dict[str, Val]) -> None:
        local = dict(env)
        self._block(rp.body, local, rp, rp.region.scope)
        live = self.live.live_after(rp.region.node)
        for name, value in local.items():
            if value.is_tile and name in live and self._hand_off(rp, name, value, env):
                env[name] = Val(TENSOR, value.shape, value.dtype)
            elif value.is_tile and self._quiet:
                # Left as it is, the region's values keep the kinds the code gives them.
                env[name] = Val(TENSOR, value.shape, value.dtype)
            elif value.is_tile and name not in env:
                self.escaped[name] = rp.region
            elif not value.is_tile:
                env[name] = value
        for tensor, (tile, share) in rp.preamble.items():
            v = env.get(tensor) or UNKNOWN_VAL
            text = statement("load", name=tile, tensor=tensor, offsets=self._zeros(v), shape=self._shape_text(v.shape))
            self._edit(share, "prepend", rp.region.node, text)


class InlineSite:
    """One call of an `@pl.inline` helper: what each annotation of the helper (parameters, locals,
    result) met there, and where the call is."""

    def __init__(self, region, statement, quiet: bool) -> None:
        self.region = region  # the RegionPlan of a call in a kernel region, else None
        self.statement = statement
        self.quiet = quiet  # in a region the target accepts as it is
        self.annotations: list[tuple] = []  # (Annotation node or None, declared Val, Val met, statement or None)
        self.returns: list[Val] = []


def inline_helpers(module: cst.Module, ops) -> dict[str, cst.FunctionDef]:
    """The module's functions decorated `@pl.inline`, by name."""
    found = {}
    for statement in module.body:
        if type(statement) is cst.FunctionDef and any(ops.get(d.decorator) == "inline" for d in statement.decorators):
            found[statement.name.value] = statement
    return found


def plan_module(module: cst.Module, api: ApiTable, text: str | None = None) -> Plan:
    return Planner(module, api, text).run()


def _auto_incore(scope, ops) -> bool:
    """Whether a planner scope is a `with pl.auto_incore():` (or a `pl.at` asking for chunked loops)."""
    return isinstance(scope, cst.With) and any(scope_kind(item.item, ops) == "auto_incore" for item in scope.items)
