"""`pl.auto_incore()` and loop `chunk=` (removed by pypto #1819/#1895): the tiling by hand.

Inside an auto-chunk scope (`pl.auto_incore()`, or the intermediate
`pl.at(..., optimization=pl.chunked_loop_optimizer)` / `optimizations=[pl.auto_chunk]`) the
compiler outlined each full chunk of a chunked `pl.parallel` loop into a kernel. The hand
form the library's authors wrote (pypto-lib 1b9a997d) says the same:

    for r0 in pl.parallel(start, stop, step * C):       # one kernel per chunk
        with pl.at(level=pl.Level.CORE_GROUP):
            for r in pl.range(r0, r0 + step * C, step):  # the chunk's iterations
                body

A trip count not provably a multiple of C ends the inner loop at `pl.min(r0 + step * C, stop)`
(the old `leading_full` policy ran the remainder too). Perfectly nested chunked loops keep
their parallel loops outside and their ranges inside one `pl.at`, as the old interchange did.
`chunk=` elsewhere (a sequential loop, a loop already in a kernel) outlined nothing: it is
dropped. The scope itself goes; the statements it held stay where they were.
"""

from __future__ import annotations

import libcst as cst

from ...syntax.nodes import statements
from ...syntax.traversal import statements_below, walk
from .base import Upgrade, keyword, positional
from .infer import number
from .outline import Outliner, scalar_names
from ..registry import kind

LOOPS = ("parallel", "range", "unroll")
CHUNK_KWS = ("chunk", "chunk_policy")


@kind("upgrade-auto-chunk")
class AutoChunk(Upgrade):
    # the pl.at text each chunk's kernel gets (None: the plain CORE_GROUP one), and whether it
    # came from a split scope, whose chunks keep an inner loop even of one iteration
    _at: str | None = None
    _split = False

    def begin(self, ctx) -> None:
        super().begin(ctx)
        for func in self.info.functions:
            self._walk(statements(func), func, auto=False, kernel=False)

    def scan(self, site) -> None:
        pass

    def _scope(self, node: cst.With) -> str | None:
        """'auto' for an auto-chunk scope, 'kernel' for pl.incore / a plain pl.at, 'split' for an
        auto-chunk pl.at that also carries other optimizations (not ours to restructure)."""
        for item in node.items:
            call = item.item
            op = self.info.op(call)
            if op == "auto_incore":
                return "auto"
            if op == "incore":
                return "kernel"
            if op == "at":
                single = keyword(call, "optimization")
                many = keyword(call, "optimizations")
                if single is not None and self.info.ops.get(single.value) == "chunked_loop_optimizer":
                    return "split" if keyword(call, "split") is not None else "auto"
                if many is not None and isinstance(many.value, cst.List):
                    entries = [self.info.ops.get(e.value) for e in many.value.elements]
                    if "auto_chunk" in entries:
                        return "auto" if len(entries) == 1 else "split"
                return "kernel"
        return None

    def _walk(self, body, func, auto: bool, kernel: bool) -> None:
        for statement in body:
            if isinstance(statement, cst.With):
                scope = self._scope(statement)
                if scope in ("auto", "split") and self.info.op(statement.items[0].item) == "at" and not self._has_chunks(statement):
                    # nothing to chunk: the scope was a kernel all along (pypto-lib 1b9a997d kept the pl.at
                    # and dropped pl.auto_chunk from its optimizations)
                    self.rewrite(statement.items[0].item, self._drop_auto_chunk)
                    self._walk(statements(statement), func, auto, True)
                    continue
                if scope == "auto":
                    if kernel:
                        self.rewrite(statement, _unwrap)
                    else:  # what the scope outlined besides its chunked loops gets a pl.at of its own
                        outline = self._outliner(func)
                        self.rewrite(statement, lambda new, o=outline: _unwrap(o.block(new)))
                    self._at = self._carried(statement.items[0].item)
                    self._walk(statements(statement), func, True, kernel)
                    self._at = None
                    continue
                if scope == "split" and all(isinstance(b, cst.For) and self._tileable(b) for b in statements(statement)):
                    # the scope's other optimizations go onto the pl.at of each chunk (pypto-lib 1b9a997d)
                    at = self._drop_auto_chunk(statement.items[0].item)
                    self.rewrite(statement, _unwrap)
                    self._at, self._split = self.text(at), True
                    self._walk(statements(statement), func, True, kernel)
                    self._at, self._split = None, False
                    continue
                if scope == "split":
                    self._flag_at(statement, "an auto-chunk pl.at with other optimizations: tile its chunked loops by hand "
                                             "(pl.parallel over chunks, pl.at inside, pl.range over a chunk) and keep the "
                                             "other optimizations on that pl.at")
                self._walk(statements(statement), func, auto, kernel or scope in ("kernel", "split"))
                continue
            if auto and not kernel and isinstance(statement, (cst.For, cst.While, cst.If)) and self._shares(statement):
                # chunked loops inside it are kernels of their own: it stays in the orchestration
                # function, its other compute statements grouped into kernels around them
                outline = self._outliner(func)
                self.rewrite(statement, lambda new, o=outline: o.block(_drop_chunk(new) if isinstance(new, cst.For) else new))
                for part in (statement.body, getattr(statement, "orelse", None)):
                    if part is not None:
                        self._walk(statements(part) if not isinstance(part, cst.If) else [part], func, auto, kernel)
                continue
            if isinstance(statement, cst.For):
                chunk = self._chunked(statement)
                if chunk is not None:
                    self._loop(statement, func, auto and not kernel)
                    inner = statement
                    if auto and not kernel and self.info.op(statement.iter) == "parallel":
                        while True:  # the nest's inner chunked loops are the outer one's to place
                            body = statements(inner)
                            if len(body) == 1 and isinstance(body[0], cst.For) and self._tileable(body[0]):
                                inner = body[0]
                            else:
                                break
                        self._walk(statements(inner), func, auto, True)
                        continue
                self._walk(statements(statement), func, auto, kernel)
                continue
            for attr in ("body", "orelse"):
                part = getattr(statement, attr, None)
                if part is not None and not isinstance(statement, cst.SimpleStatementLine):
                    self._walk(statements(part) if not isinstance(part, cst.If) else [part], func, auto, kernel)

    def _shares(self, node) -> bool:
        """Does a chunked parallel loop stand inside `node` other than as its perfect nest? The
        old compiler then made one kernel of the whole nest and warned that the inner chunked
        loops shared it (pypto #931); each was meant as a kernel (pypto-lib's authors split
        them so, 1b9a997d), and one kernel of a whole layer overflows the buffers now."""
        inner = node
        while isinstance(inner, cst.For) and self._tileable(inner):
            body = statements(inner)
            if len(body) == 1 and isinstance(body[0], cst.For) and self._tileable(body[0]):
                inner = body[0]
            else:
                break
        parts = [inner.body, getattr(inner, "orelse", None)]
        # a loop is a statement: looked for among the statements alone, not every node
        return any(type(n) is cst.For and self._tileable(n) for part in parts if part is not None
                   for n in statements_below(part))

    def _outliner(self, func) -> Outliner:
        cache = self.__dict__.setdefault("_outliners", {})
        if func not in cache:
            cache[func] = Outliner(self.info.alias, scalar_names(self.info, func))
        return cache[func]

    def _has_chunks(self, node) -> bool:
        return any(isinstance(n, cst.For) and self._chunked(n) is not None for n in walk(node))

    def _drop_auto_chunk(self, call: cst.Call) -> cst.Call:
        args = []
        for a in call.args:
            name = a.keyword.value if a.keyword is not None else None
            if name == "optimization":  # pl.chunked_loop_optimizer, the only optimizer there was
                continue
            if name == "optimizations" and isinstance(a.value, cst.List):
                kept = [e for e in a.value.elements if "auto_chunk" not in self.text(e.value)]
                if not kept:
                    continue
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                a = a.with_changes(value=a.value.with_changes(elements=kept))
            args.append(a)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return call.with_changes(args=args)

    def _carried(self, call: cst.Call) -> str | None:
        """An auto-chunk `pl.at`'s own keywords besides its level and optimizer (a `name_hint=`
        names the kernels in dumps and profiles): the pl.at each chunk's kernel gets; None where
        it has none (or the scope was `pl.auto_incore()`), and the plain one serves."""
        if self.info.op(call) != "at":
            return None
        kept = self._drop_auto_chunk(call)
        others = [a for a in kept.args if a.keyword is None or a.keyword.value != "level"]
        return self.text(kept) if others else None

    def _flag_at(self, statement, message: str) -> None:
        self.ctx.flag_at(self.rule, statement, message)

    def _chunked(self, loop: cst.For):
        call = loop.iter
        if not isinstance(call, cst.Call) or (self.info.op(call) or "").rpartition(".")[2] not in LOOPS:
            return None
        chunk = keyword(call, "chunk")
        return chunk.value if chunk is not None else None

    def _tileable(self, loop: cst.For) -> bool:
        return (self._chunked(loop) is not None and self.info.op(loop.iter) == "parallel"
                and keyword(loop.iter, "init_values") is None and isinstance(loop.target, cst.Name))

    def _loop(self, loop: cst.For, func, outlined: bool) -> None:
        if not outlined or self.info.op(loop.iter) != "parallel":
            self.rewrite(loop, _drop_chunk)  # nothing was outlined: the keyword meant nothing
            return
        if not self._tileable(loop):
            self._flag_at(loop, "a chunked pl.parallel with init_values (or a tuple target) under an auto-chunk scope: "
                                "tile it by hand (pl.parallel over chunks, pl.at inside, pl.range over a chunk)")
            self.rewrite(loop, _drop_chunk)
            return
        nest = [loop]
        while True:
            body = statements(nest[-1])
            if len(body) == 1 and isinstance(body[0], cst.For) and self._tileable(body[0]):
                nest.append(body[0])
            else:
                break
        at = self._at or self.pl("pl.at(level=pl.Level.CORE_GROUP)")
        if len(nest) == 1 and self.text(keyword(loop.iter, "chunk").value) == "1" and not self._split:
            self.rewrite(loop, lambda new, at=at: self._one_per_kernel(new, at))  # each iteration its own kernel
            return
        headers = [self._header(func, n) for n in nest]
        self.rewrite(loop, lambda new, h=headers, depth=len(nest), at=at: self._tiled(new, h, depth, at))

    def _header(self, func, loop: cst.For) -> tuple[str, str, str]:
        """(outer loop line, inner loop line, variable) of one chunked loop."""
        call = loop.iter
        args = [self.text(a.value) for a in positional(call)]
        start, stop, step = ("0", args[0], "1") if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else "1")
        chunk = self.text(keyword(call, "chunk").value)
        var = loop.target.value
        outer_var = self._fresh_in(func, f"{var}0")
        span = _product(step, chunk, self.info)
        exact = number(f"(({stop}) - ({start})) % ({step} * {chunk})", self.info) == 0
        end = f"{outer_var} + {span}" if exact else f"pl.min({outer_var} + {span}, {stop})"
        outer_args = f"{stop}, {span}" if start == "0" and len(args) == 1 else f"{start}, {stop}, {span}"
        inner = f"{outer_var}, {end}" + (f", {step}" if step != "1" else "")
        return (self.pl(f"for {outer_var} in pl.parallel({outer_args}):"), self.pl(f"for {var} in pl.range({inner}):"), var)

    def _one_per_kernel(self, new: cst.For, at: str) -> cst.For:
        skeleton = cst.parse_statement(f"with {at}:\n    pass\n")
        return _drop_chunk(new).with_changes(body=new.body.with_changes(body=[skeleton.with_changes(body=new.body)]))

    def _fresh_in(self, func, base: str) -> str:
        class _Site:
            function = func
        return self.fresh(_Site, base)

    def _tiled(self, new: cst.For, headers, depth: int, at: str) -> cst.For:
        inner = new
        for _ in range(depth - 1):
            inner = inner.body.body[0]
        lines, indent = [], ""
        for outer, _, _ in headers:
            lines.append(indent + outer)
            indent += "    "
        lines.append(indent + f"with {at}:")
        indent += "    "
        for _, loop, _ in headers:
            lines.append(indent + loop)
            indent += "    "
        lines.append(indent + "pass")
        skeleton = cst.parse_statement("\n".join(lines) + "\n")
        return _fill(skeleton, inner.body).with_changes(leading_lines=new.leading_lines)


def _product(step: str, chunk: str, info) -> str:
    if step == "1":
        return chunk
    n = number(f"({step}) * ({chunk})", info)
    return str(n) if n is not None and step.isdigit() and chunk.isdigit() else f"{step} * {chunk}"


def _fill(node, body):
    """The skeleton with its innermost `pass` body replaced by `body`."""
    inner = node.body.body[0] if isinstance(node.body, cst.IndentedBlock) else None
    if isinstance(inner, (cst.For, cst.With)):
        return node.with_changes(body=node.body.with_changes(body=[_fill(inner, body)]))
    return node.with_changes(body=body)


def _drop_chunk(loop: cst.For) -> cst.For:
    call = loop.iter
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value in CHUNK_KWS)]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return loop.with_changes(iter=call.with_changes(args=args))


def _unwrap(node: cst.With):
    body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
    if not body:
        return cst.RemovalSentinel.REMOVE
    body[0] = body[0].with_changes(leading_lines=[*node.leading_lines, *body[0].leading_lines])
    return cst.FlattenSentinel(body)
