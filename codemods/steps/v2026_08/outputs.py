"""The third silent change of 2026-08 (PTO142): a Tensor parameter a function writes must be
`pl.Out` (written only) or `pl.InOut` (also read); left plain, an orchestration output is not
copied back to the host. A declared `Out` is not copied in at 2026-08, so one the function reads
before a whole write becomes `InOut`.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...syntax.nodes import code
from ...syntax.traversal import content, walk
from .base import Upgrade, argument, decorated_as, keyword, positional
from .cover import _covers, constant_window, covers, covers_subscript, windows_cover
from .infer import Site
from ..registry import kind

# What a neighbour module's kernel does to its parameters (`OutParams._imported`), per process:
# keyed by the module's digest (its text and its own neighbours'), so a folder's modules are
# read once, whichever of its files imports them.
_READ: dict = {}
_READ_KEPT = 512

WRITES = {"store": (2, "output_tensor"), "assemble": (0, "target"), "write": (0, "dst"), "store_scalar": (0, "tensor"),
          "setval": (0, "tile")}


@kind("upgrade-out-params")
class OutParams(Upgrade):
    """Parameters a function writes become `pl.Out` (never read) or `pl.InOut` (also read)."""

    def begin(self, ctx) -> None:
        self.directions: dict[str, dict[str, str]] = {}
        self._first: dict[str, dict[str, tuple[bool, bool]]] = {}  # function -> param -> (read first, whole)
        self._open: set = set()
        self._rebinds: dict = {}  # function -> its parameters re-bound to a new value (site, name)
        self._imported_names: dict | None = None
        self._neighbours: dict = {}  # neighbour module -> this kind's decisions there (`_neighbour`)
        super().begin(ctx)
        by_function = self.sites_by_function()
        # A method is named with its class: the test files of a compiler hold many classes, each
        # with its own `kernel`, and `self.kernel(...)` calls the one of the caller's class.
        self._keys = _qualified(ctx.module)
        self._by_key = {self._key(f): f for f in reversed(self.info.functions)}
        for func in self.info.functions:
            self.directions[self._key(func)] = _declared(func, self.info.ops)
        known: dict = {}
        for _ in range(4):  # a callee's decided directions make its callers' writes
            decided = {self._key(f): self._decided(f, by_function.get(f, []), known) for f in self.info.functions}
            if decided == getattr(self, "_last", None):
                break
            self._last = decided
            for name, found in decided.items():
                self.directions[name] = {**self.directions[name], **{p: d for p, (d, _) in found.items()}}
        # In a file that nothing dates before the target, a direction its author wrote, or left
        # plain in a kernel, is theirs; only an entry's plain output is an old form of itself.
        # Code of an earlier day, when a declared Out still came in with what the caller passed,
        # is re-decided whole: there a read of an Out asks InOut.
        redecide = not ctx.presumed
        # One analysis, two rules: PTO142 retypes the plain outputs (`directions = "plain"`),
        # PTO187 the declared ones that c39 code reads first (`directions = "declared"`).
        declared_rule = self.params.get("directions") == "declared"
        for func in self.info.functions:
            if decorated_as(func, self.info, "jit.inline"):
                continue  # measured at e2d0f78ae: an inlined helper's directions change nothing (same IR)
            decided = self._last.get(self._key(func), {})
            for param in func.params.params:
                found = decided.get(param.name.value)
                if found is None or param.annotation is None:
                    continue
                if declared_rule:
                    if found[1] == "Out-read" and redecide:
                        # 2026-08: "Reading an Out parameter before writing it reads undefined memory"
                        self.rewrite(param.annotation.annotation.value, lambda a: a.with_changes(attr=cst.Name("InOut")))
                elif found[1] == "plain" and (redecide or self._entry(func, by_function)):
                    wrapper = found[0]
                    self.rewrite(param.annotation, lambda a, w=wrapper: a.with_changes(
                        annotation=cst.Subscript(cst.Attribute(cst.Name(self.info.alias), cst.Name(w)),
                                                 [cst.SubscriptElement(cst.Index(a.annotation))])))
            retyped = {p for p, (_, how) in decided.items() if how == "plain" and (redecide or self._entry(func, by_function))}
            declared = {p for p, d in _declared(func, self.info.ops).items() if d != "In"}
            for site, param in self._rebinds.get(func, []):
                # An output its author declared, in code that knew what that means, is theirs.
                mine = (redecide and param in declared) if declared_rule else \
                    (param in retyped or (redecide and param not in declared))
                if mine:
                    self.flag(site, f"`{param}` is an output parameter rebound to a new value: at 2026-08 that value is "
                                    f"dropped (OutParamWriteDropped); write through it (`{param}[...] = ...`, pl.assemble, "
                                    "pl.store) instead")

    def scan(self, site: Site) -> None:
        pass

    def _decided(self, func: cst.FunctionDef, sites: list[Site], known: dict) -> dict[str, tuple[str, bool]]:
        """`_decide`, again only where what it read of the directions has changed since: a round
        after the first changes few functions' (each a walk of its body; a file of many kernels
        took a second a round). A function kept writes what it wrote, in the same order."""
        hit = known.get(func)
        if hit is not None and all(self._lookup(*key) == value for key, value in hit[0].items()):
            _, decided, first, rebinds = hit
            self._first[self._key(func)] = first
            self._rebinds[func] = rebinds
            return decided
        self._reads: dict[tuple[str, str], object] = {}
        decided = self._decide(func, sites)
        known[func] = (self._reads, decided, self._first[self._key(func)], self._rebinds[func])
        return decided

    def _direction(self, which: str, name: str):
        """What `_decide` reads of the round so far, kept as read (`_decided`)."""
        value = self._reads[(which, name)] = self._lookup(which, name)
        return value

    def _lookup(self, which: str, name: str):
        """A function's directions ("in"), or how it writes its parameters ("first")."""
        return self.directions.get(name) if which == "in" else self._first.get(name, {})

    def _decide(self, func: cst.FunctionDef, sites: list[Site]) -> dict[str, tuple[str, bool]]:
        plain = {p.name.value for p in func.params.params
                 if p.annotation is not None and self.info.ops.get(_head(p.annotation.annotation)) == "Tensor"}
        outputs = {p for p, d in (self._direction("in", self._key(func)) or {}).items() if d != "In"}
        declared_out = {p.name.value for p in func.params.params if p.annotation is not None
                        and self.info.ops.get(_head(p.annotation.annotation)) == "Out"}
        written: set[str] = set()
        covered: set[str] = set()  # written whole by one write: Out keeps no element the caller passed
        read: set[str] = set()  # read before a whole write has surely happened (in order of execution)
        done: dict[str, cst.CSTNode] = {}  # param -> the top-level statement after which it is written whole
        rebinds = []
        parts: dict[str, list] = {}  # param -> the constant windows written in part so far, surely run
        order = {id(site.statement): i for i, site in enumerate(sites)}  # the walk's order is the text's
        # `flat = pl.reshape(y, [n])`: a view of the whole of y under another name (the May library
        # writes its outputs so); binding it reads nothing, and what goes through it goes to y
        alias: dict[str, str] = {}
        viewed: dict[str, Site] = {}  # param -> where a whole view of it was first bound
        # `part = pl.slice(out, ...)`: a window of an output under a name of its own (handed to a
        # kernel that writes it, assembled back); what is read through it is read from the param
        sliced: dict[str, str] = {}
        self._windows = {}  # window name -> its slice call, for a whole write that puts it back
        checked = plain | declared_out  # the parameters whose reads decide In or InOut
        for site in sites:
            destinations = set()
            written_here = set()  # handed to a write: the binding of its result is no rebind
            whole_here = set()
            for node in site.of(cst.Call):  # only a call writes
                for param, arg, reads, whole in self._writes(node, site, sites):
                    param = alias.get(param, param)
                    written_here.add(id(arg))
                    written.add(param)
                    if whole:
                        covered.add(param)
                        whole_here.add(param)
                    if not reads:
                        destinations.add(id(arg))
            targets = set()
            for node in site.of(cst.Return):  # handing the parameter back (alone or in a tuple) is not reading it
                if isinstance(node.value, cst.Name):
                    targets.add(id(node.value))
                elif isinstance(node.value, cst.Tuple):
                    targets.update(id(e.value) for e in node.value.elements if isinstance(e.value, cst.Name))
            if isinstance(site.statement, cst.SimpleStatementLine):
                for small in site.statement.body:
                    for t in getattr(small, "targets", ()) or ([small.target] if hasattr(small, "target") else []):
                        target = t.target if isinstance(t, cst.AssignTarget) else t
                        if isinstance(target, cst.Name):
                            targets.add(id(target))
                            if not self._written_into(small.value, target.value):  # `flat = pl.assemble(flat, ...)` keeps it
                                alias.pop(target.value, None)
                            whole_view = self._whole_view(small.value, plain | outputs | declared_out, alias)
                            if whole_view is not None:
                                alias[target.value] = whole_view[0]
                                targets.add(id(whole_view[1]))
                                viewed.setdefault(whole_view[0], site)
                            window = self._window(small.value, plain | outputs | declared_out, alias)
                            if window is not None:
                                sliced[target.value] = window[0]
                                self._windows[target.value] = small.value
                                targets.add(id(window[1]))
                                viewed.setdefault(window[0], site)
                            elif not any(n.value == target.value and id(n) in written_here
                                         for n in site.of(cst.Name)):
                                sliced.pop(target.value, None)  # re-bound to a value of its own
                            if target.value in plain | outputs and not _view(small.value, self.info) and not any(
                                    n.value == target.value and id(n) in written_here for n in site.of(cst.Name)) \
                                    and not self._handed_back(small.value, target.value):
                                rebinds.append((site, target.value))
                        elif isinstance(target, (cst.Tuple, cst.List)):
                            # `w, i = self.route(x, w, i)`: names bound, not read
                            targets.update(id(e.value) for e in target.elements if isinstance(e.value, cst.Name))
                        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                            param = alias.get(target.value.value, target.value.value)
                            written.add(param)
                            if covers_subscript(site, self.info, target, sites):
                                covered.add(param)
                                whole_here.add(param)
                            else:
                                window = constant_window(site, self.info, target)
                                if window is not None:
                                    parts.setdefault(param, []).append(window)
                                    if windows_cover(parts[param]):
                                        # the parts written so far make the whole: a read after this
                                        # statement reads what the function wrote
                                        covered.add(param)
                                        done.setdefault(param, site.statement)
                            targets.add(id(target.value))
            returned = self._assembled_back(site, sliced)
            handed, not_read = destinations | targets, destinations | targets | returned
            for node in site.of(cst.Name):  # only a name reads a parameter
                param = alias.get(node.value, node.value)
                if node.value in sliced and id(node) not in not_read:
                    param = sliced[node.value]
                if param in checked and id(node) not in handed and not _after(site, done.get(param), order):
                    read.add(param)
            if not any(isinstance(p, (cst.If, cst.While, cst.Else)) for p in site.parents):
                for param in whole_here:
                    # once the outermost loop or scope around a whole write ends, every element is
                    # written, and a later read reads what the function wrote
                    done.setdefault(param, site.parents[0] if site.parents else site.statement)
        for param, site in viewed.items():
            # Binding the view reads nothing when the function then writes the whole (through it or
            # not); otherwise it stands for a read, as the whole tensor is handed on with the part
            # the function did not write (a KV cache written at one slot).
            if param not in covered and not _after(site, done.get(param), order):
                read.add(param)
        self._rebinds[func] = rebinds  # (a copy per function was the square of their number)
        self._first[self._key(func)] = {p: (p in read, p in covered) for p in written}
        decided = {p: ("InOut" if p in read or p not in covered else "Out", "plain") for p in written & plain}
        decided.update({p: ("InOut", "Out-read") for p in declared_out & read})
        return decided

    def _whole_view(self, value, params: set[str], alias: dict[str, str]) -> tuple[str, cst.Name] | None:
        """(parameter, its name in the call) when `value` is `pl.reshape(p, shape)` of a parameter
        (or of a view of one): the same storage, whole, under a new shape."""
        if not isinstance(value, cst.Call) or (self.info.op(value) or "").rpartition(".")[2] != "reshape":
            return None
        args = positional(value)
        source = args[0].value if args else None
        if not isinstance(source, cst.Name):
            return None
        param = alias.get(source.value, source.value)
        return (param, source) if param in params else None

    def _destination(self, op: str):
        """(position, name) of the tensor operand `op` writes through and hands back: the stores
        above, or a tile op the table says gives back its tensor operand (`like`, as tile.mscatter)."""
        where = WRITES.get(op.rpartition(".")[2])
        spec = self.api.ops.get(op)
        if where is None and spec is not None and spec.kind == "tile-only" and spec.result == "tensor" \
                and spec.roles.get(spec.like) == "tensor":
            where = (spec.params.index(spec.like), spec.like)
        return where

    def _window(self, value, params: set[str], alias: dict[str, str]) -> tuple[str, cst.Name] | None:
        """(parameter, its name in the call) when `value` is `pl.slice(p, shape, offsets)` of a parameter."""
        if not isinstance(value, cst.Call) or (self.info.op(value) or "").rpartition(".")[2] != "slice":
            return None
        args = positional(value)
        source = args[0].value if args else None
        if not isinstance(source, cst.Name):
            return None
        param = alias.get(source.value, source.value)
        return (param, source) if param in params else None

    def _assembled_back(self, site, sliced: dict[str, str]) -> set[int]:
        """The window names handed whole to `pl.assemble(p, part, ...)` of the parameter they were
        taken from: putting a window back where it came from reads nothing of what the caller passed."""
        back = set()
        for node in site.of(cst.Call):
            if (self.info.op(node) or "").rpartition(".")[2] == "assemble":
                target, source = argument(node, 0, "target"), argument(node, 1, "source")
                if isinstance(target, cst.Name) and isinstance(source, cst.Name) and sliced.get(source.value) == target.value:
                    back.add(id(source))
        return back

    def _written_into(self, value, name: str) -> bool:
        """`value` writes into the tensor `name` names and hands it back (pl.assemble, pl.store)."""
        if not isinstance(value, cst.Call):
            return False
        where = self._destination(self.info.op(value) or "")
        destination = argument(value, *where) if where is not None else None
        return isinstance(destination, cst.Name) and destination.value == name

    def _handed_back(self, value, name: str) -> bool:
        """`p = f(..., p)`: does `f` hand back the buffer it was given as p (measured at e2d0f78ae:
        an inline function writing through its parameter and returning it, or a reshape of it, writes
        the caller's buffer, and the rebinding only names it again)? A function of another file is
        taken to: passing the output in and rebinding it to the result is that idiom."""
        if not isinstance(value, cst.Call) or self.info.op(value) is not None or not isinstance(value.func, cst.Name):
            return False
        func = self._by_key.get(value.func.value)
        params = [p.name.value for p in func.params.params if p.name.value != "self"] if func is not None else []
        passed = [params[i] if i < len(params) else None for i, a in enumerate(positional(value))
                  if isinstance(a.value, cst.Name) and a.value.value == name]
        passed += [a.keyword.value for a in value.args
                   if a.keyword is not None and isinstance(a.value, cst.Name) and a.value.value == name]
        if not passed:
            return False
        if func is None:
            return True
        if func in self._open:
            return False  # a recursive call: no proof
        self._open.add(func)
        try:
            return any(q is not None and _returns_own(func, q, self.info, self._handed_back) for q in passed)
        finally:
            self._open.discard(func)

    def _writes(self, node, site, sites):
        """(parameter name, argument node, read too, written whole) of each tensor the call writes."""
        if not isinstance(node, cst.Call):
            return
        op = self.info.op(node)
        if op is not None:
            name = op.rpartition(".")[2]
            where = self._destination(op)
            if where is not None:
                arg = argument(node, *where)
                if isinstance(arg, cst.Name):
                    yield arg.value, arg, False, self._whole(node, name, arg.value, site, sites)
            return
        callee = self._callee(node, site)
        directions = self._direction("in", callee)
        func = self._by_key.get(callee)
        if directions is not None and func is not None:
            first = self._direction("first", callee)
            declared = _declared(func, self.info.ops)
            params = [p.name.value for p in func.params.params if p.name.value != "self"]
        elif isinstance(node.func, cst.Name) and (found := self._imported(callee)) is not None:
            params, directions, first, declared = found
        else:
            return

        def effect(param):
            # (reads what the caller passed, writes it whole): measured in the callee where it writes
            # the parameter; an InOut the callee was written with is taken to read
            if param in first and declared.get(param) != "InOut":
                reads, whole = first[param]
                return reads, whole or directions[param] == "Out"
            return directions[param] == "InOut", directions[param] == "Out"

        for i, a in enumerate(positional(node)):
            if i < len(params) and directions.get(params[i], "In") != "In" and isinstance(a.value, cst.Name):
                yield a.value.value, a.value, *effect(params[i])
        for a in node.args:
            if a.keyword is not None and directions.get(a.keyword.value, "In") != "In" and isinstance(a.value, cst.Name):
                yield a.value.value, a.value, *effect(a.keyword.value)

    def _imported(self, name: str):
        """(parameter names, directions, how it writes its parameters, declared directions) of a
        kernel function `name` the file imports from a module beside it (`from m import name`):
        what that module's own migration decides for it, read off the module's text (the
        original or its migration: the directions come out the same). None where it cannot be
        read. Plain data: no tree of another module outlives its reading."""
        imported = self._imports().get(name)
        if imported is None:
            return None
        module, original = imported
        done = self._neighbours
        if (module, original) not in done:
            within = getattr(self.ctx, "within", frozenset())
            digest = getattr(self.ctx.neighbours, "digest", {}).get(module)
            key = (self.rule.id, id(self.api), module, original, within, digest)
            kept = _READ.get(key) if digest is not None else None
            if kept is not None and kept[0] is self.api:  # the table itself is kept: its id is not reused
                done[module, original] = kept[1]
            else:
                done[module, original] = found = self._neighbour(module, original, within)
                if digest is not None:
                    if len(_READ) >= _READ_KEPT:
                        _READ.clear()
                    _READ[key] = (self.api, found)
        return done[module, original]

    def _imports(self) -> dict[str, tuple[str, str]]:
        """Local name -> (neighbour module, its name there) of the file's top-level imports."""
        if getattr(self, "_imported_names", None) is None:
            self._imported_names = {}
            texts = getattr(self.ctx, "neighbours", None) or {}
            for statement in self.ctx.module.body:
                for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                    if not isinstance(small, cst.ImportFrom) or small.relative or not isinstance(small.module, cst.Name) \
                            or small.module.value not in texts or isinstance(small.names, cst.ImportStar):
                        continue
                    for alias in small.names:
                        if isinstance(alias.name, cst.Name):
                            local = alias.asname.name.value if alias.asname is not None else alias.name.value
                            self._imported_names[local] = (small.module.value, alias.name.value)
        return self._imported_names

    def _neighbour(self, module: str, name: str, within: frozenset):
        """This kind run (deciding only) over the part of a neighbour module that `name` is (the
        function and those of its module it calls): `_imported`'s answer; None where the module
        cannot be parsed, or is on the way here already (an import cycle)."""
        if module in within:
            return None
        try:
            tree = cst.parse_module(_reached(self.ctx.neighbours[module].lstrip("\ufeff"), name))
        except (cst.ParserSyntaxError, RecursionError, ValueError, SyntaxError):
            return None
        ctx = type(self.ctx)(tree, self.api)
        ctx.neighbours, ctx.within = self.ctx.neighbours, within | {module}
        other = OutParams(self.rule, self.api)
        other.begin(ctx)
        func, directions = other._by_key.get(name), other.directions.get(name)
        if func is None or directions is None:
            return None
        params = [p.name.value for p in func.params.params if p.name.value != "self"]
        return params, dict(directions), dict(other._first.get(name, {})), _declared(func, other.info.ops)

    def _entry(self, func: cst.FunctionDef, by_function) -> bool:
        """Is it a program's host entry (`@pl.jit`, an Orchestration function), whose parameters'
        directions say what is copied back to the host? Code written after c39 that leaves a
        kernel's written parameter plain is its author's choice (pypto's own tests of 2026-08 do,
        in InCore and Opaque functions): only an entry's plain output is the old form."""
        sites = by_function.get(func)
        ftype = sites[0].ftype if sites else ""
        return ftype in ("jit", "Orchestration") and not decorated_as(func, self.info, "jit.inline")

    def _key(self, func: cst.FunctionDef) -> str:
        return self._keys.get(id(func), func.name.value)

    def _callee(self, call: cst.Call, site) -> str | None:
        """The key of the function a call names: `self.f(...)` the method of the caller's class,
        `f(...)` a function of the module (or one it imports)."""
        if isinstance(call.func, cst.Name):
            return call.func.value
        if isinstance(call.func, cst.Attribute):
            own = self._key(site.function)
            if isinstance(call.func.value, cst.Name) and call.func.value.value == "self" and "." in own:
                return f"{own.rpartition('.')[0]}.{call.func.attr.value}"
            return call.func.attr.value
        return None

    def _whole(self, call, name: str, param: str, site, sites) -> bool:
        if keyword(call, "atomic") is not None or (name == "store" and argument(call, 3, "shapes") is not None):
            return False  # an accumulation reads what is there; a narrowed store writes less than its tile
        if name == "store":
            return covers(site, self.info, argument(call, 0, "tile"), argument(call, 1, "offsets"), param, sites)
        if name == "assemble":
            source, offsets = argument(call, 1, "source"), argument(call, 2, "offset")
            return covers(site, self.info, source, offsets, param, sites) or self._window_back(source, offsets, param, site, sites)
        return False

    def _window_back(self, source, offsets, param: str, site, sites) -> bool:
        """`pl.assemble(p, part, offsets)` of a window `part = pl.slice(p, shape, ...)`, whatever the
        kernel it went through made of its type: it writes `shape` at `offsets`."""
        window = self._windows.get(source.value) if isinstance(source, cst.Name) else None
        shape = argument(window, 1, "shape") if window is not None else None
        if not isinstance(shape, (cst.List, cst.Tuple)) or not isinstance(offsets, (cst.List, cst.Tuple)) \
                or len(shape.elements) != len(offsets.elements):
            return False
        return _covers(site, self.info, [(o.value, code(s.value)) for o, s in zip(offsets.elements, shape.elements)],
                       param, sites)


def _reached(text: str, name: str) -> str:
    """A neighbour module's text with only the function `name` and the module's functions and
    classes it calls (by name, transitively) kept, and its imports and constants: the rest
    (golden references, test harnesses and entries, most of a model file) is blanked out, as
    LibCST parses slowly. Lines keep their numbers."""
    tree = ast.parse(text)
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    keep, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n in defs and n not in keep:
            keep.add(n)
            todo.extend(c.id for c in ast.walk(defs[n]) if isinstance(c, ast.Name))
    lines = text.splitlines(keepends=True)
    for node in tree.body:
        dropped = getattr(node, "name", None) in defs and node.name not in keep
        if dropped or isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for i in range(first - 1, node.end_lineno or node.lineno):
                lines[i] = "\n"
    return "".join(lines)


def _after(site: Site, done, order: dict) -> bool:
    """Does `site` run after the statement `done` (one of the function's, not under an `if`) has finished?"""
    if done is None or site.statement is done or done in site.parents:
        return False
    return order.get(id(site.statement), -1) > order.get(id(done), 1 << 60)


def _returns_own(func: cst.FunctionDef, param: str, info, handed_back) -> bool:
    """Does every `return` of func hand back `param`'s buffer (the name, or a view or store chain of it)?"""
    names = {param}
    for node in _in_order(func):  # bindings in order of the text: views and stores of the buffer
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            op = info.op(node.value)
            args = positional(node.value) if isinstance(node.value, cst.Call) else []
            kind = op.rpartition(".")[2] if op else ""
            source = args[2].value if kind == "store" and len(args) > 2 else args[0].value if args else None
            if kind in ("reshape", "slice", "view", "assemble", "store") and isinstance(source, cst.Name) \
                    and source.value in names:
                names.add(node.targets[0].target.value)
            elif any(handed_back(node.value, n) for n in names):
                names.add(node.targets[0].target.value)  # `p = g(..., p)` with g handing p back
            else:
                names.discard(node.targets[0].target.value)  # re-bound to a value of its own
    returns = [n for n in walk(func) if isinstance(n, cst.Return)]
    return bool(returns) and all(isinstance(r.value, cst.Name) and r.value.value in names for r in returns)


def _qualified(module: cst.Module) -> dict[int, str]:
    """id(function) -> `Class#n.name` for the methods of the module's classes, at any depth."""
    out: dict[int, str] = {}
    classes = [node for node in walk(module) if isinstance(node, cst.ClassDef)]
    for n, node in enumerate(classes):
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                # numbered: a test module defines `class Before:` in one test after another
                out[id(stmt)] = f"{node.name.value}#{n}.{stmt.name.value}"
    return out


def _in_order(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(content(n)))


def _view(value, info) -> bool:
    """A reshape/slice/transpose re-binds a name to a view of storage it already names: no copy is dropped."""
    op = info.op(value)
    return op is not None and op.rpartition(".")[2] in ("reshape", "transpose", "slice", "view")


def _head(annotation):
    return annotation.value if isinstance(annotation, cst.Subscript) else annotation


def _declared(func: cst.FunctionDef, ops) -> dict[str, str]:
    out = {}
    for p in func.params.params:
        head = ops.get(_head(p.annotation.annotation)) if p.annotation is not None else None
        out[p.name.value] = head if head in ("Out", "InOut") else "In"
    return out

