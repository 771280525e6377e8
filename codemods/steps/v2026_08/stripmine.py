"""A Vec tile larger than the whole Vec buffer, in a run of column-wise statements
(e2d0f78ae: "Vec buffer usage (N bytes) exceeds platform limit"; not in the catalogue).

At 2026-03 an overflowing kernel compiled and the memory report said so; at e2d0f78ae
AllocateMemoryAddr stops the pipeline. Where one tile alone is larger than the buffer, or the
operands one op reads at once are, no memory reuse can save it: the kernel is refused,
whatever else it holds.

Many such tiles are made and consumed column by column: a wide row block loaded, cast and
stored back, a pad zero-filled, a row sum over a wide tile. A maximal run of consecutive
statements that only do that (create_tile, load, reshape, cast, element-wise ops with scalars,
then `pl.store` or `pl.row_sum` of the run's values) computes the same when it walks the
columns in chunks: the run becomes a `pl.range` over column offsets (the chunk width a
constant beside the program, a divisor of the extent at any size), each load and store
offset moves by the chunk's start, and each row sum adds its chunk's sum into an accumulator
that starts at zero. Where any value of the run is read after it, or the run holds anything
else, nothing is rewritten: a value larger than the buffer gets a marker, and so does the line
the compiler names for it (the builder's `def`, the program class or the jit function).
"""

from __future__ import annotations

import libcst as cst

from ...model.capacity import kb
from ...model.values import SCALAR, TENSOR, TILE, VEC
from ...syntax.nodes import code, codes, statements
from ...syntax.traversal import statements_below, walk
from .base import Upgrade, binding, in_kernel, keyword, positional
from .infer import number
from .budget import RunBytes
from .widths import ChunkWidths
from ..registry import kind

UNARY = {"cast", "exp", "neg", "abs", "sqrt", "rsqrt", "recip", "relu", "log"}
BINARY = {"add", "sub", "mul", "div", "maximum", "minimum", "adds", "subs", "muls", "divs", "maxs", "mins"}
KEYWORDS = {"load": {"target_memory", "valid_shape"}, "create_tile": {"dtype", "target_memory"},
            "cast": {"target_type", "mode"}, "slice": {"valid_shape", "drop_dims"}}
BUDGET_SHARE = 4  # a chunked run may take a quarter of the buffer: the kernel holds other tiles too
MIN_CHUNK = 16


class _Edits:
    """How one statement's chunk is written (node -> text with {start}/{width}), and the
    values its calls make."""

    def __init__(self) -> None:
        self.texts: dict = {}
        self.made: list[tuple[tuple[str, ...], str]] = []


class _Run:
    def __init__(self) -> None:
        self.columns: str | None = None  # the column extent every value of the run shares, spaces dropped
        self.written: str | None = None  # the same, as the source writes it
        self.values: dict[str, tuple[str, ...]] = {}  # run value -> its shape
        self.members: list = []  # (site, _Edits, accumulator or None)
        self.accumulators: dict[str, tuple[str, str]] = {}  # name -> (rows, dtype)
        self.made: list[tuple[tuple[str, ...], str]] = []  # (shape, dtype) of every value a call makes
        self.loaded: set[str] = set()  # the tensors the run loads from
        self.stored: set[str] = set()  # and those it stores to


@kind("upgrade-strip-mine")
class StripMine(Upgrade):
    def begin(self, ctx) -> None:
        super().begin(ctx)
        self.limit = self.api.memory_limits.get("Vec")
        if not self.limit:
            return
        self.chunked: set[int] = set()
        self.widths = ChunkWidths(ctx, self.rule)
        self.bytes = RunBytes(self.info, self.api, self.limit)
        for function, sites in self.sites_by_function().items():
            by_statement = {id(s.statement): s for s in sites}
            bodies = {id(p): p for s in sites if in_kernel(s, self.info) for p in (function, *s.parents)}
            for body in bodies.values():
                self._body(function, [by_statement.get(id(st)) for st in statements(body)])
            self._flag_rest(function, sites)

    def scan(self, site) -> None:
        pass

    def _body(self, function, sites) -> None:
        i = 0
        while i < len(sites):
            run = self._run(sites, i)
            if run is not None and (self.bytes.fits(function, run) or self._apply(function, run)):
                i += len(run.members)  # no part of it can overflow for certain, or chunked
            else:
                i += 1

    def _run(self, sites, start) -> _Run | None:
        run = _Run()
        for site in sites[start:]:
            if site is None or not in_kernel(site, self.info) or not self._member(site, run):
                break
        return run if run.members else None

    # -- what a run may hold --------------------------------------------------------------
    def _member(self, site, run: _Run) -> bool:
        name, value = binding(site.statement)
        if name is None or not isinstance(value, cst.Call) or name in run.accumulators \
                or not isinstance(site.statement.body[0], cst.Assign):  # an annotation would keep the whole shape
            return False
        op = (self.info.op(value) or "").rpartition(".")[2]
        edits = _Edits()
        if op == "store":
            args = positional(value)
            # `t = pl.store(v, offsets, t)`: the tensor is carried from chunk to chunk
            if len(args) != 3 or len(value.args) != 3 or not isinstance(args[2].value, cst.Name) \
                    or args[2].value.value != name or name in run.values \
                    or self._shape(args[0].value, site, run, edits) is None or not self._shift(args[1].value, edits):
                return False
            run.stored.add(name)
            return self._add(run, site, edits, None)
        if op == "row_sum":
            args = positional(value)
            if len(args) != 2 or len(value.args) != 2 or not isinstance(args[1].value, cst.Name) \
                    or args[1].value.value not in run.values:
                return False
            shape = self._shape(args[0].value, site, run, edits)
            dtype = self.info.type_of(args[0].value, site.env).dtype
            if shape is None or len(shape) != 2 or dtype != "FP32" or name in run.values:
                return False  # chunk sums are added in the input's dtype: FP32 only, where that is exact enough
            run.accumulators[name] = (shape[0], dtype)
            return self._add(run, site, edits, name)
        shape = self._shape(value, site, run, edits)
        if shape is None:
            return False
        run.values[name] = shape
        return self._add(run, site, edits, None)

    @staticmethod
    def _add(run: _Run, site, edits, accumulator) -> bool:
        run.made += edits.made
        run.members.append((site, edits, accumulator))
        return True

    def _shape(self, expr, site, run: _Run, edits) -> tuple[str, ...] | None:
        """The shape of a column-wise value of the run (recording how its chunk is written)."""
        if isinstance(expr, cst.Name):
            return run.values.get(expr.value)
        if not isinstance(expr, cst.Call):
            return None
        shape = self._call_shape(expr, site, run, edits)
        if shape is not None:
            edits.made.append((shape, self.info.type_of(expr, site.env).dtype))
        return shape

    def _call_shape(self, expr, site, run: _Run, edits) -> tuple[str, ...] | None:
        op = (self.info.op(expr) or "").rpartition(".")[2]
        args = positional(expr)
        allowed = KEYWORDS.get(op, set())
        if any(a.star or (a.keyword is not None and a.keyword.value not in allowed) for a in expr.args):
            return None
        if op == "create_tile":
            memory = keyword(expr, "target_memory")
            if len(args) != 1 or memory is None or not code(memory.value).endswith("Vec"):
                return None
            return self._columns(args[0].value, run, edits)
        if op == "load":
            memory = keyword(expr, "target_memory")
            if len(args) != 3 or not isinstance(args[0].value, cst.Name) or args[0].value.value in run.values \
                    or site.env.get(args[0].value.value) is None or site.env[args[0].value.value].kind != TENSOR \
                    or (memory is not None and not code(memory.value).endswith("Vec")) or not self._shift(args[1].value, edits):
                return None
            run.loaded.add(args[0].value.value)
            valid = keyword(expr, "valid_shape")
            if valid is not None and self._columns(valid.value, run, edits) is None:
                return None
            return self._columns(args[2].value, run, edits)
        if op == "slice":  # of a tensor, in a kernel: the load of a tensor-level kernel
            if len(args) != 3 or not isinstance(args[0].value, cst.Name) or args[0].value.value in run.values \
                    or site.env.get(args[0].value.value) is None or site.env[args[0].value.value].kind != TENSOR \
                    or not self._shift(args[2].value, edits):
                return None
            valid, dropped = keyword(expr, "valid_shape"), keyword(expr, "drop_dims")
            if valid is not None and self._columns(valid.value, run, edits) is None:
                return None
            shape = self._columns(args[1].value, run, edits)
            drop = [number(d, self.info) for d in codes(dropped.value)] if dropped is not None else []
            if shape is None or None in drop or len(shape) - 1 in drop:
                return None
            run.loaded.add(args[0].value.value)
            return tuple(d for i, d in enumerate(shape) if i not in drop)
        if op == "reshape":
            if len(args) != 2 or self._shape(args[0].value, site, run, edits) is None:
                return None
            return self._columns(args[1].value, run, edits)
        if op in UNARY and len(args) == 1:
            return self._shape(args[0].value, site, run, edits)
        if op in BINARY and len(args) == 2:
            shapes = [self._shape(a.value, site, run, edits) for a in args]
            known = [s for s in shapes if s is not None]
            if not known or any(s is None and not self._scalar(a.value, site) for s, a in zip(shapes, args)):
                return None
            return known[0] if all(s == known[0] for s in known) else None
        return None

    def _columns(self, node, run: _Run, edits) -> tuple[str, ...] | None:
        """A shape literal whose last extent is the run's column extent, chunked in the edit."""
        shape = codes(node)
        if not shape:
            return None
        last = shape[-1].replace(" ", "")
        if run.columns is None:
            run.columns, run.written = last, shape[-1]
        if last != run.columns:
            return None
        edits.texts[node.elements[-1].value] = "{width}"
        return shape

    def _shift(self, offsets, edits) -> bool:
        """An offset list literal: its last offset moves by the chunk's start."""
        if not isinstance(offsets, (cst.List, cst.Tuple)) or not offsets.elements:
            return False
        last = offsets.elements[-1].value
        text = code(last)
        edits.texts[last] = "{start}" if text == "0" else f"{text} + {{start}}" if _atomic(last) else f"({text}) + {{start}}"
        return True

    def _scalar(self, expr, site) -> bool:
        if isinstance(expr, (cst.Integer, cst.Float)):
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, (cst.Integer, cst.Float)):
            return True
        return isinstance(expr, cst.Name) and self.info.type_of(expr, site.env).kind == SCALAR

    # -- the rewrite ----------------------------------------------------------------------
    def _apply(self, function, run: _Run) -> bool:
        kept = self._kernel_result(run)
        if kept is None and not any(acc for _, _, acc in run.members) and not any(
                (self.info.op(binding(s.statement)[1]) or "").endswith("store") for s, _, _ in run.members):
            return False  # nothing leaves the run: no point in chunking it
        sizes = [self.bytes.of(shape, dtype, function) for shape, dtype in run.made]
        columns = number(run.columns, self.info, function)
        if not sizes or None in sizes or not columns:
            return False  # a size not known here: the overflow is not certain (`_body` asked `RunBytes.fits` first)
        if self._escapes(function, run, kept) or run.loaded & run.stored:
            return False  # a tensor read and written by the run: chunk k would read what chunk k-1 wrote
        chunks = 1
        while columns % (chunks * 2) == 0 and columns // chunks > MIN_CHUNK \
                and sum(sizes) // chunks > self.limit // BUDGET_SHARE:
            chunks *= 2
        if sum(sizes) // chunks > self.limit // BUDGET_SHARE:
            return False
        width = self.widths.define(function, run.written, columns // chunks)
        if width is None:
            return False
        first = run.members[0][0]
        start = self.fresh(first, "c0")
        # A zero made from a created tile has the layout of the row sums it is added to; a
        # `pl.tile.full` [R, 1] is row-major, and e2d0f78ae cannot add the two (measured).
        lines = [self.pl(f"{acc} = pl.tile.expands(pl.create_tile([{rows}, 1], dtype=pl.{dtype}, "
                         f"target_memory=pl.MemorySpace.Vec), 0.0)")
                 for acc, (rows, dtype) in run.accumulators.items()]
        lines.append(self.pl(f"for {start} in pl.range(0, {run.written}, {width}):"))
        for site, edits, acc in run.members:
            last = kept if site is run.members[-1][0] else None
            lines += ["    " + line for line in self._chunked(site, edits, acc, start, width, last)]
        if kept is not None:
            # the value the kernel hands on is written into a GM tensor chunk by chunk
            name, shape, dtype = kept
            scope = first.parents[-1]
            self.ctx.insert(self.rule, "before", scope, self.pl(
                f"{name} = pl.create_tensor([{', '.join(shape)}], dtype=pl.{dtype})\n"))
        self.ctx.insert(self.rule, "before", first.statement, "\n".join(lines) + "\n")
        for site, _, _ in run.members:
            self.ctx.insert(self.rule, "remove", site.statement)
            self.chunked.add(id(site.statement))
        return True

    # -- what is left: a marker where a person must choose the chunks --------------------
    def _flag_rest(self, function, sites) -> None:
        top = None  # the line the compiler names for the function: found once, marked once
        for site in sites:
            name, value = binding(site.statement)
            if name is None or id(site.statement) in self.chunked or not in_kernel(site, self.info):
                continue
            val = self.info.type_of(value, site.env)
            op = (self.info.op(value) or "").rpartition(".")[2] if isinstance(value, cst.Call) else ""
            on_vec = (val.kind == TILE and val.space in (None, VEC) and op not in ("load", "move")) or \
                (val.kind == TILE and op in ("load", "move") and val.space == VEC) or \
                (val.kind == TENSOR and op in UNARY | BINARY)
            size = self.bytes.of(val.shape, val.dtype, function) if on_vec and val.shape else None
            if size is not None and size > self.limit:
                what = f"`{name}` ([{', '.join(val.shape)}] {val.dtype}, {kb(size)})"
                alone = True
                self.flag(site, f"{what} is larger than the whole Vec buffer ({kb(self.limit)}): e2d0f78ae stops at "
                                "AllocateMemoryAddr (\"Vec buffer usage exceeds platform limit\"); split it into chunks "
                                "that fit (its columns or rows in a pl.range)")
            else:
                # Each tile fits, but one op reads tiles that are resident together and do not:
                # no memory reuse brings that op under the buffer either.
                if not (isinstance(value, cst.Call) and sum(1 for a in value.args if a.keyword is None) >= 2):
                    continue  # one tile operand at most: its own size was checked above
                size, call, operands = self.bytes.read_at_once(function, site)
                if size <= self.limit or call is None or len(operands) < 2 or any(
                        (self.bytes.of(v.shape, v.dtype, function) or 0) > self.limit
                        for v in (self.info.type_of(cst.parse_expression(o), site.env) for o in operands) if v.shape):
                    continue  # one operand alone is too large: flagged where it is made
                op = (self.info.op(call) or "?").rpartition(".")[2]
                what = f"the operands of pl.{op} ({', '.join(f'`{o}`' for o in operands)}: {kb(size)} together)"
                alone = False
                self.flag(site, f"{what} are more than the whole Vec buffer ({kb(self.limit)}): e2d0f78ae stops at "
                                "AllocateMemoryAddr (\"Vec buffer usage exceeds platform limit\"); split the op's "
                                "operands into chunks that fit (their columns or rows in a pl.range)")
            if top is None:
                # a function is a statement: looked for among the statements alone, not every node
                top = next((t for t in self.ctx.module.body
                            if t is function or any(n is function for n in statements_below(t))), function)
                if top is not function:
                    self.ctx.flag_at(self.rule, top, f"e2d0f78ae names this line for a Vec overflow in "
                                                     f"`{function.name.value}`: {what} "
                                                     f"{'alone exceeds' if alone else 'exceed'} the buffer "
                                                     f"({kb(self.limit)}); see the PTO181 marker at `{name}`")

    def _kernel_result(self, run: _Run):
        """(name, shape, dtype) of the value a run hands out of its kernel scope, when the run
        is the whole body of a `pl.at` and ends in that value: written into a GM tensor
        allocated before the scope, chunk by chunk, it means what the scope's output meant."""
        last_site = run.members[-1][0]
        name, value = binding(last_site.statement)
        scope = last_site.parents[-1] if last_site.parents else None
        if name not in run.values or run.accumulators or not isinstance(scope, cst.With) \
                or (self.info.op(scope.items[0].item) or "").rpartition(".")[2] != "at" \
                or [id(s) for s in statements(scope)] != [id(site.statement) for site, _, _ in run.members]:
            return None
        dtype = self.info.type_of(value, last_site.env).dtype
        if dtype is None or any(site.parents != last_site.parents for site, _, _ in run.members):
            return None
        return name, run.values[name], dtype

    def _escapes(self, function, run: _Run, kept=None) -> bool:
        """Is a value of the run named anywhere outside it (but the one its kernel hands on)?
        Then its chunks are not enough."""
        inside = {id(n) for site, _, _ in run.members for n in walk(site.statement)}
        names = set(run.values) - ({kept[0]} if kept else set())
        for node in walk(function.body):
            if type(node) is cst.Name and node.value in names and id(node) not in inside:
                return True
        for acc in run.accumulators:  # read before its own row sum, an accumulator would see the zero
            for site, _, mine in run.members:
                if mine != acc and any(type(n) is cst.Name and n.value == acc for n in walk(site.statement)):
                    return True
        return False

    def _chunked(self, site, edits, acc, start, width, kept=None) -> list[str]:
        texts = {node: text.format(start=start, width=width) for node, text in edits.texts.items()}
        statement = site.statement.visit(_Replace(texts)).with_changes(leading_lines=[])
        text = code(statement).rstrip("\n")
        name, value = binding(statement)
        if acc is not None:
            head, _, tail = text.partition(code(value))
            text = head + self.pl(f"pl.add({acc}, ") + code(value) + ")" + tail
        elif kept is not None:
            head, _, tail = text.partition(code(value))
            offsets = ", ".join(["0"] * (len(kept[1]) - 1) + [start])
            text = head + self.pl(f"pl.assemble({name}, ") + code(value) + f", [{offsets}])" + tail
        # Continuation lines keep their absolute indentation; the engine shifts the inserted
        # block as a whole to the loop's depth.
        first, *rest = text.split("\n")
        return [first.lstrip(), *rest]


class _Replace(cst.CSTTransformer):
    def __init__(self, texts) -> None:
        self.texts = texts

    def on_leave(self, original, updated):
        text = self.texts.get(original)
        return cst.parse_expression(text) if text is not None else updated


def _atomic(node) -> bool:
    return isinstance(node, (cst.Name, cst.Integer, cst.Attribute, cst.Call, cst.Subscript))
