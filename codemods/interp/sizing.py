"""Small sizes for `verify`, chosen from how a kernel's own code uses its integer constants.

A real kernel's module constants (`HIDDEN = 7168`, `K_CHUNK = 512`, a builder's `batch: int =
16`, `D = M.hidden_size` of an imported config) make the interpreter run for minutes. Its code
implies relations between them that the result's meaning depends on; they are read off the
code, each kept only where it holds at the file's own sizes:
- a loop `range(start, stop, step)` of known bounds: the step divides the extent, at least
  min(trips, 2) trips, and a `chunk=` divides the trip count (or exceeds it, as it did);
- `a // b` and `a % b` (also ceil division `(a + b - 1) // b`): b divides a, a // b >= min(its
  value, 2);
- a window of `view`/`slice`/`load` fits the tensor it is cut from, its offset at the largest
  value its loops reach (an offset read at run time counts as 0); a valid region fits its window;
- a reshape keeps the element count of its source;
- two sizes that meet in one statement of a kernel (with the dims of the tensors it names and
  the values of the locals it reads) stay multiples of each other;
- a comparison of two sizes keeps its truth (a capacity guard); a difference stays positive;
- no size goes below 2 (a dimension of 1 broadcasts and hides a transposed operand).
The sizes a shape, a window or a loop reads are then divided by their prime factors, all
together first (which keeps every ratio), then one (or two tied ones) at a time, while every
relation holds; the cheapest state on the way is the choice, and constants computed from
others follow. Nothing here is keyed on a name: a constant is a size because the code computes
with it.
"""

from __future__ import annotations

import ast
import itertools
import math

from dataclasses import dataclass, field

from .sizing_check import Relations, cost_arrays
from .sizing_descent import descend as _descend, primes as _primes
from .sources import builders

_PURE = {"min": min, "max": max, "abs": abs, "int": int, "len": len}
_LOOPS = {"range", "parallel", "unroll", "pipeline"}
_SAFE_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Call, ast.operator,
               ast.unaryop, ast.Tuple, ast.List)
# Below this estimated cost (elements of the entry's tensors plus weighted loop trips) a file
# runs at its own sizes in a few seconds (this project's fixtures: 0.2 to 0.6 million), so they
# are kept; the real DeepSeek parts cost 500 to 1200 million.
SMALL = 1_000_000
_FLOOR_FROM, _FLOOR = 16, 4  # a package's counts of 16 or more stay at least 4 (`Sizes.floor`)
PACKAGE_LIMIT = 8e7  # past this cost a package's run takes more than 10 s (see verify._package_candidates)
_ARRAYS_FROM = 64  # tensors and loop nests past which `cost` is computed over arrays
_VALUES_KEPT = 4096  # states whose values `Sizes.values` keeps
_TRIP_WEIGHT = 4096  # one trip of a loop body (a few ops of Python) costs about as much as this many elements


@dataclass
class Choice:
    """The sizes `verify` runs at: `sets` as `--set` values, from smallest to largest candidate."""

    candidates: list[dict[str, int]] = field(default_factory=list)
    own_cost: float = 0.0
    model: "Sizes | None" = None

    @property
    def sets(self) -> dict[str, int]:
        return self.candidates[0] if self.candidates else {}


_WALKS: dict[int, tuple[ast.AST, list]] = {}  # a node -> its walk, for one `Sizes` (a package's tree is walked by many passes)


def _walk(node: ast.AST) -> list:
    hit = _WALKS.get(id(node))
    if hit is None or hit[0] is not node:
        hit = _WALKS[id(node)] = (node, list(ast.walk(node)))
    return hit[1]


def _pure(node: ast.AST) -> bool:
    """Arithmetic over names and numbers only (calls to min/max/abs/int): safe to evaluate."""
    for n in _walk(node):
        if not isinstance(n, _SAFE_NODES):
            return False
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _PURE and not n.keywords):
            return False
        if isinstance(n, ast.Constant) and not isinstance(n.value, (int, float)):
            return False
    return True


def _code(node: ast.expr):
    text = ast.unparse(node)
    code = compile(ast.fix_missing_locations(ast.Expression(ast.parse(text, mode="eval").body)), "<size>", "eval")
    _TEXT[code] = text
    return code


_TEXT: dict = {}  # a size's code -> its text, to compute many of them in one piece of code


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _assignment(node: ast.stmt) -> tuple[str, ast.expr] | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        return node.target.id, node.value
    return None


class Sizes:
    """The integer constants of one kernel file and the relations its code puts between them."""

    def __init__(self, tree: ast.Module, fixed: dict[str, int], known: dict[str, int] | None = None,
                 package: bool = False):
        _WALKS.clear()
        self.fixed = fixed
        self.package = package  # the modules of a package as one: see `choose`'s `descend`
        self.chain: list[tuple[str, object]] = []  # (name, code) in the order the module computes them
        self.base: dict[str, int] = {}  # name -> its literal at the file's own sizes
        # Sizes the module computes in ways not read here (`128 if T >= 64 else 256`, a config
        # value): a size of their own, which must be given at run time even where it did not move.
        self.pinned: set[str] = set()
        known = known or {}
        assigned: set[str] = set()
        for node in tree.body:
            got = _assignment(node)
            if got is None:
                continue
            name, value = got
            outside = {n.id for n in _walk(value) if isinstance(n, ast.Name)} - assigned - set(_PURE)
            assigned.add(name)
            if not _pure(value) or outside:
                # `D = M.hidden_size` (M imported): a base size of its own, of the value the
                # module computed, which --set replaces as any module constant.
                if _int(known.get(name)) is not None and known[name] >= 2 and name not in fixed:
                    self.base[name] = known[name]
                    self.pinned.add(name)
                    self.chain.append((name, _code(ast.Constant(known[name]))))
                continue
            literal = _int(value.value) if isinstance(value, ast.Constant) else None
            if literal is not None and literal >= 2 and name not in fixed:
                self.base[name] = literal
            self.chain.append((name, _code(value)))
        found = builders(tree)
        builder = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and found and n.name == found[0]), None)
        if builder is not None:
            args = builder.args.args + builder.args.kwonlyargs
            defaults = [None] * (len(builder.args.args) - len(builder.args.defaults)) + builder.args.defaults
            defaults += builder.args.kw_defaults
            for arg, default in zip(args, defaults):
                if default is None or not _pure(default):
                    continue
                literal = _int(default.value) if isinstance(default, ast.Constant) else None
                if literal is not None and literal >= 2 and arg.arg not in fixed:
                    self.base[arg.arg] = literal
                self.chain.append((arg.arg, _code(default)))
            for node in builder.body:
                got = _assignment(node)
                if got is not None and _pure(got[1]):
                    self.chain.append((got[0], _code(got[1])))
        self.own = self.env(self.base)
        self._collect(tree)
        _WALKS.clear()

    # -- evaluation ---------------------------------------------------------------------------------------------

    def env(self, values: dict[str, int]) -> dict:
        env = dict(self.fixed)
        if getattr(self, "_chain_code", None) is None or self._chain_code[0] != len(self.chain):
            # The whole chain as one piece of code: a search computes it thousands of times.
            lines = []
            for i, (name, code) in enumerate(self.chain):
                if name in self.fixed:
                    continue
                lines += [f"try:\n    {name} = __values[{name!r}] if {name!r} in __values else ({_TEXT[code]})",
                          f"except __E:\n    __pop({name!r})"]  # not a size this module can compute alone
            self._chain_code = (len(self.chain), compile("\n".join(lines) or "pass", "<chain>", "exec"))
        glob = {"__builtins__": _PURE, "__values": values, "__E": Exception, "__pop": lambda n: env.pop(n, None)}
        exec(self._chain_code[1], glob, env)
        return env

    def _value(self, code, env):
        try:
            return eval(code, {"__builtins__": _PURE}, env)
        except Exception:
            return None

    # -- what the code implies ----------------------------------------------------------------------------------

    def _known(self, node: ast.expr) -> bool:
        if not _pure(node):
            return False
        names = {n.id for n in _walk(node) if isinstance(n, ast.Name) and not (n.id in _PURE)}
        return bool(names) and all(isinstance(_int(self.own.get(n)), int) for n in names) or (
            not names and isinstance(node, ast.Constant))

    def _collect(self, tree: ast.Module) -> None:
        self.terms: list = []  # (code, own value) of every size the code states
        self.keys: list[str] = []  # and its text
        seen: dict[str, int] = {}

        def term(node: ast.expr) -> int | None:
            if not self._known(node):
                return None
            key = ast.unparse(node)
            if key in seen:
                return seen[key]
            code = _code(node)
            value = _int(self._value(code, self.own))
            if value is None:
                return None
            seen[key] = len(self.terms)
            self.terms.append((code, value))
            self.keys.append(key)
            return seen[key]

        self.divides: list[tuple[int, int]] = []  # (a, b): b divides a
        self.at_least: list[tuple[int, int, int]] = []  # (a, b, k): a // b >= k
        self.below: list[tuple[int, int]] = []  # (a, b): a < b
        self.positive: list[int] = []
        self.loops: list[tuple[int, int, int, int | None]] = []  # (start, stop, step, chunk)
        nests: list[tuple[list[int], ...]] = []
        self.tensors: list[list[int]] = []

        def ratio(a: int | None, b: int | None) -> None:
            if a is None or b is None:
                return
            x, y = self.terms[a][1], self.terms[b][1]
            if y > 0 and x % y == 0:
                self.divides.append((a, b))
            if y > 0 and x // y >= 1:
                self.at_least.append((a, b, min(x // y, 2)))

        # The test of a module constant's conditional value (`D_CHUNK = 128 if T >= 128 else
        # 256`) chooses a tile, no guard: the constant is a size of its own (pinned), given at
        # run time, so the test's truth may change.
        choosing = set()
        self.conditional: set[str] = set()
        for node in tree.body:
            got = _assignment(node)
            for e in _walk(got[1]) if got and got[0] in self.pinned else ():
                if isinstance(e, ast.IfExp):
                    self.conditional.add(got[0])
                    choosing.update(id(c) for c in _walk(e.test))
        for node in _walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                term(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Mod)):
                a, b = node.left, node.right
                ceil = (isinstance(a, ast.BinOp) and isinstance(a.op, ast.Sub) and isinstance(a.left, ast.BinOp)
                        and isinstance(a.left.op, ast.Add) and ast.dump(a.left.right) == ast.dump(b))
                if ceil:
                    a = a.left.left
                ratio(term(a), term(b))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
                t = term(node)
                if t is not None and self.terms[t][1] >= 1:
                    self.positive.append(t)
            elif isinstance(node, ast.Slice) and node.lower is not None and node.upper is not None:
                # `x[:, NOPE_HEAD_DIM:HEAD_DIM]`: a slice keeps at least one element
                t = term(ast.BinOp(node.upper, ast.Sub(), node.lower))
                if t is not None and self.terms[t][1] >= 1:
                    self.positive.append(t)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 and id(node) not in choosing:
                a, b = term(node.left), term(node.comparators[0])
                if a is not None and b is not None:
                    x, y = self.terms[a][1], self.terms[b][1]
                    if x < y:
                        self.below.append((a, b))
                    elif y < x:
                        self.below.append((b, a))
            elif _is_loop(node):
                args = list(node.args) + [None] * (3 - len(node.args))
                if len(node.args) == 1:
                    start, stop, step = ast.Constant(0), node.args[0], ast.Constant(1)
                else:
                    start, stop, step = args[0], args[1], args[2] or ast.Constant(1)
                chunk = next((k.value for k in node.keywords if k.arg == "chunk"), None)
                ids = term(start), term(stop), term(step), term(chunk) if chunk is not None else None
                if None not in ids[:3] and (chunk is None or ids[3] is not None):
                    self.loops.append(ids)
        self.nests = _nests(tree, term)
        for node in _walk(tree):
            dims = _tensor_dims(node)
            if dims is not None:
                ids = [term(d) for d in dims]
                if all(i is not None for i in ids):
                    self.tensors.append(ids)
        # Two sizes that meet in one statement of the kernel (a tile's shape and the offsets
        # beside it, with the dims of the tensor it is cut from) keep being multiples of each
        # other; sizes that never meet are free of each other, whatever their values.
        for group, shaped in _meetings(tree, term):
            for a in group:
                for b in group:
                    x, y = self.terms[a][1], self.terms[b][1]
                    if self.package and _apart(a, b, shaped):
                        continue  # among many modules' shapes, dims of one shape that merely divide
                    if y >= 2 and x > y and x % y == 0:
                        self.divides.append((a, b))
                        self.at_least.append((a, b, 1))
        for a, b in _slots(tree):
            # `blk * BLOCK_SIZE + (pos % WIN)`: a slot taken modulo WIN within a block of
            # BLOCK_SIZE rows stays inside the block while WIN <= BLOCK_SIZE.
            ids = term(a), term(b)
            if None not in ids and self.terms[ids[1]][1] >= self.terms[ids[0]][1] >= 1:
                self.at_least.append((ids[1], ids[0], 1))
        self.fits = []  # (offset, extent, dim): offset + extent <= dim, a window inside its tensor
        self.same = []  # (a, b): a == b, the element counts of a reshape's source and result
        found: list = []
        # Windows at `3 * HC_MULT` (the code unrolled over a size, one window per value of the
        # literal): the size stays above the literal, or the last windows fall outside.
        offsets = [e for node in _walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                   and node.func.attr in _WINDOWS and len(node.args) >= 3
                   and isinstance(node.args[_WINDOWS[node.func.attr][1]], ast.List)
                   for e in node.args[_WINDOWS[node.func.attr][1]].elts]
        for offset in offsets:
            for n in _walk(offset):
                if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
                    for c, x in ((n.left, n.right), (n.right, n.left)):
                        if isinstance(c, ast.Constant) and _int(c.value) is not None and c.value >= 1 and \
                                isinstance(x, ast.Name):
                            lo, hi = term(c), term(x)
                            if lo is not None and hi is not None and self.terms[lo][1] < self.terms[hi][1]:
                                self.below.append((lo, hi))
        for offset, extent, dim in _windows(tree, found):
            ids = term(offset), term(extent), term(dim)
            if ids[0] is None and None not in ids[1:]:
                # An offset of run-time values (a position parameter): the window fits at 0, and
                # where the file's sizes leave room, at the offsets verify draws.
                for at in (0, _RUNTIME_OFFSET):
                    low = term(ast.Constant(at))
                    if self.terms[low][1] + self.terms[ids[1]][1] <= self.terms[ids[2]][1]:
                        self.fits.append((low, ids[1], ids[2]))
                continue
            if None not in ids and self.terms[ids[0]][1] + self.terms[ids[1]][1] <= self.terms[ids[2]][1]:
                self.fits.append(ids)
        for a, b in found + _calls(tree):
            ids = term(a), term(b)
            if None not in ids and self.terms[ids[0]][1] == self.terms[ids[1]][1]:
                self.same.append(ids)
        self.divides = sorted(set(self.divides))
        self.at_least = sorted(set(self.at_least))
        self.below = sorted(set(self.below))
        self.loop_rules = []
        for start, stop, step, chunk in self.loops:
            s0, e0, st0 = (self.terms[i][1] for i in (start, stop, step))
            if st0 == 0:
                continue
            trips = max(0, -(-(e0 - s0) // st0))
            c0 = self.terms[chunk][1] if chunk is not None else None
            self.loop_rules.append((start, stop, step, chunk, (e0 - s0) % st0 == 0, min(trips, 2),
                                    None if not c0 else (trips % c0 == 0 and trips >= c0, trips < c0)))

    def floor(self) -> None:
        """A count of 16 or more stays at least 4: among many modules a relation between two
        counts may live where no code reads it (the top-6 of 16 experts a router picks, as
        data another module indexes with), and a count of 2 or 3 would reverse it."""
        one = next((i for i, (_, v) in enumerate(self.terms) if v == 1 and self.keys[i] == "1"), None)
        if one is None:
            one = len(self.terms)
            self.terms.append((_code(ast.Constant(1)), 1))
            self.keys.append("1")
        for i in self.shaped():
            if self.terms[i][1] >= _FLOOR_FROM:
                self.at_least.append((i, one, _FLOOR))
        self.at_least = sorted(set(self.at_least))
        self._relations = None

    def used(self) -> set[int]:
        """The sizes some relation or the cost reads."""
        out = {i for pair in self.divides + self.below for i in pair} | {i for a, b, _ in self.at_least for i in (a, b)}
        out |= set(self.positive) | {i for triple in self.fits for i in triple} | {i for pair in self.same for i in pair}
        out |= {i for rule in self.loop_rules for i in rule[:4] if isinstance(i, int) and not isinstance(i, bool)}
        out |= {i for dims in self.tensors for i in dims} | {i for nest in self.nests for loop in nest for i in loop}
        return out

    def tied_to(self, names: set[str]) -> set[str]:
        """The constants a divisibility or ratio relation puts, by name alone, beside a size of
        `names` (`RECV_TILE` in `D_OUT_CHUNK % RECV_TILE`); not what the sides compute from (a
        capacity's safety factor)."""
        out: set[str] = set()
        for a, b in self.divides + [(a, b) for a, b, _ in self.at_least]:
            for side, other in ((a, b), (b, a)):
                if self.keys[side] in self.base and self.reads(other) & names:
                    out.add(self.keys[side])
        return out

    def shaped(self) -> set[int]:
        """The sizes a tensor's shape, a window or a loop reads."""
        out = {i for triple in self.fits for i in triple} | {i for pair in self.same for i in pair}
        out |= {i for rule in self.loop_rules for i in rule[:4] if isinstance(i, int) and not isinstance(i, bool)}
        return out | {i for dims in self.tensors for i in dims} | {i for nest in self.nests for loop in nest for i in loop}

    def reads(self, i: int) -> set[str]:
        """The names term i depends on, through the constants computed from others (a size the
        user gave cuts the chain: what its default was computed from no longer matters)."""
        if not hasattr(self, "_reads"):
            self._reads: dict[int, set[str]] = {}
            self._computed = {}
            for name, code in self.chain:
                self._computed[name] = set() if name in self.fixed else set(code.co_names)
        if i not in self._reads:
            seen, todo = set(), list(self.terms[i][0].co_names)
            while todo:
                n = todo.pop()
                if n not in seen:
                    seen.add(n)
                    todo.extend(self._computed.get(n, ()))
            self._reads[i] = seen
        return self._reads[i]

    # -- a candidate's check and cost ---------------------------------------------------------------------------

    def values(self, sizes: dict[str, int]) -> list | None:
        # A search asks for one state's values three times over (its relations, its ties, its
        # cost): the last states' are kept. The list is read, never changed, by every caller.
        key = tuple(sorted(sizes.items()))
        memo = self.__dict__.setdefault("_values_memo", {})
        if key in memo:
            return memo[key]
        if len(memo) >= _VALUES_KEPT:
            memo.clear()
        memo[key] = out = self._values(sizes)
        return out

    def _values(self, sizes: dict[str, int]) -> list | None:
        env = self.env(sizes)
        if getattr(self, "_all", None) is None or self._all[0] != len(self.terms):
            # Every term in one expression: a search evaluates them thousands of times.
            listed = ast.List([ast.parse(k, mode="eval").body for k in self.keys], ast.Load())
            self._all = (len(self.terms), compile(ast.fix_missing_locations(ast.Expression(listed)), "<sizes>", "eval"))
        try:
            out = eval(self._all[1], {"__builtins__": _PURE}, env)
        except Exception:
            return None  # one term that cannot be computed at these sizes
        return out if set(map(type, out)) <= {int} else None  # int, not bool

    def holds(self, sizes: dict[str, int]) -> bool:
        # A dimension of 1 broadcasts against anything and hides a transposed or mismatched
        # operand: no size goes below 2.
        if any(v < 2 for v in sizes.values()):
            return False
        v = self.values(sizes)
        if v is None:
            return False
        if getattr(self, "_relations", None) is None:
            self._relations = Relations(self)
        fast = self._relations.holds(v)
        if fast is not None:
            return fast
        if any(v[i] < 1 for i in self.positive):
            return False
        if any(v[b] <= 0 or v[a] % v[b] for a, b in self.divides):
            return False
        if any(v[b] <= 0 or v[a] // v[b] < k for a, b, k in self.at_least):
            return False
        if any(v[a] >= v[b] for a, b in self.below):
            return False
        if any(v[o] + v[e] > v[d] for o, e, d in self.fits) or any(v[a] != v[b] for a, b in self.same):
            return False
        for start, stop, step, chunk, exact, least, chunked in self.loop_rules:
            if v[step] == 0:
                return False
            extent = v[stop] - v[start]
            trips = max(0, -(-extent // v[step]))
            if exact and extent % v[step] or trips < least:
                return False
            if chunked is not None:
                whole, short = chunked
                c = v[chunk]
                if c <= 0 or (whole and (trips % c or trips < c)) or (short and trips >= c):
                    return False
        return True

    def why_not(self, sizes: dict[str, int], moved: str) -> set[str] | None:
        """The names the relations `sizes` breaks read (`sizes` the state `holds` refused, which
        differs from one that held in `moved` alone): until one of them changes, `moved` cannot
        move so. None where that cannot be told (a term not computed, relations not checked by
        arrays)."""
        if sizes[moved] < 2:
            return set()
        v = self.values(sizes)
        relations = getattr(self, "_relations", None)
        if v is None or relations is None or relations.holds(v) is not False:
            return None
        broken = relations.violated(v)
        return set().union(*(self.reads(i) for i in broken)) if broken else None

    def cost(self, sizes: dict[str, int]) -> float:
        v = self.values(sizes)
        if v is None:
            return math.inf
        if len(self.tensors) + len(self.nests) > _ARRAYS_FROM:
            return cost_arrays(self, v, _TRIP_WEIGHT)
        elements = sum(math.prod(max(v[i], 1) for i in dims) for dims in self.tensors)
        trips = 0
        for nest in self.nests:
            n = 1
            for start, stop, step in nest:
                n *= max(1, -(-(v[stop] - v[start]) // v[step])) if v[step] > 0 else 1
            trips += n
        return elements + _TRIP_WEIGHT * trips

def _meetings(tree: ast.Module, term) -> list[set[int]]:
    """Per statement of a kernel function: the sizes it names (names, literals, the loop bounds
    of a `for`), with the dims of every tensor it names whose shape is known in that function
    (a `pl.Tensor[[...]]` parameter, a `pl.create_tensor([...])`/`create_tile` result)."""
    groups = []
    for fn in _walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and any(_pl_decorator(d) for d in fn.decorator_list)):
            continue
        shapes: dict[str, list[ast.expr]] = {}
        for arg in fn.args.args + fn.args.kwonlyargs:
            dims = None
            for node in _walk(arg.annotation) if arg.annotation is not None else ():
                dims = dims or _tensor_dims(node)
            if dims:
                shapes[arg.arg] = dims
        for node in _walk(fn):
            got = _assignment(node) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if got and isinstance(got[1], ast.Call) and isinstance(got[1].func, ast.Attribute) and \
                    got[1].func.attr.startswith("create") and got[1].args and isinstance(got[1].args[0], ast.List):
                shapes[got[0]] = list(got[1].args[0].elts)
        values: dict[str, ast.expr | None] = {}  # a local's one value (None: assigned more than once)
        for node in _walk(fn):
            got = _assignment(node) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if got and got[0] not in shapes:
                values[got[0]] = got[1] if got[0] not in values else None
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                values[node.target.id] = None
        for node in _walk(fn):
            if isinstance(node, ast.For):
                parts = [node.iter]
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)):
                parts = [node]
            else:
                continue
            group = set()
            # A call of another kernel hands whole tensors over, cutting no window: their dims
            # meet the callee's parameters' (`_calls`), not one another's.
            handed = isinstance(getattr(node, "value", None), ast.Call) and isinstance(node.value.func, ast.Name)
            # A local's value meets where the local is read (`row0 = b * MAX_SEQ + s0` then a
            # window at row0): one level, as the code wrote it.
            parts += [values[n.id] for part in list(parts) for n in _walk(part)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and values.get(n.id) is not None
                      and not isinstance(values[n.id], ast.Call)]
            shaped = []  # the dims of one shape: they meet what the statement cuts, not one another
            for part in parts:
                for n in _walk(part):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                        group.add(term(n))
                        if n.id in shapes and not handed and n is not getattr(node, "targets", [None])[0]:
                            dims = {term(d) for d in shapes[n.id]}
                            group.update(dims)
                            shaped.append(dims)
                    elif isinstance(n, ast.Constant) and _int(n.value) is not None and n.value >= 2:
                        group.add(term(n))
                    elif isinstance(n, ast.List):
                        dims = {term(e) for e in n.elts}
                        group.update(dims)
                        shaped.append(dims)
            group.discard(None)
            if len(group) >= 2:
                groups.append((group, shaped))
    return groups


def _slots(tree: ast.Module) -> list[tuple[ast.expr, ast.expr]]:
    """(M, B) of every `k * B + (x % M)` in a kernel (a local holding `x % M` written out, one
    level): a position modulo M placed in a block of B."""
    out = []
    for fn in _walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and any(_pl_decorator(d) for d in fn.decorator_list)):
            continue
        values: dict[str, ast.expr | None] = {}
        for node in _walk(fn):
            got = _assignment(node) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if got:
                values[got[0]] = got[1] if got[0] not in values else None
        for node in _walk(fn):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
                continue
            for left, right in ((node.left, node.right), (node.right, node.left)):
                if isinstance(right, ast.Name) and values.get(right.id) is not None:
                    right = values[right.id]
                if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mult) and isinstance(right, ast.BinOp) \
                        and isinstance(right.op, ast.Mod):
                    out.extend((right.right, factor) for factor in (left.left, left.right) if isinstance(factor, ast.Name))
    return out


def _apart(a: int, b: int, shaped: list[set[int]]) -> bool:
    """Two sizes a statement names only as dims of one shape (`create_tensor([N, BLOCK, D])`)."""
    return any(a in dims and b in dims for dims in shaped) and not any(
        (a in dims) != (b in dims) for dims in shaped)


def _shapes(fn: ast.FunctionDef) -> dict[str, list[ast.expr]]:
    """The tensors of known shape in a kernel function: its annotated parameters and what it
    creates with a literal shape."""
    shapes: dict[str, list[ast.expr]] = {}
    for arg in fn.args.args + fn.args.kwonlyargs:
        for node in _walk(arg.annotation) if arg.annotation is not None else ():
            dims = _tensor_dims(node)
            if dims and arg.arg not in shapes:
                shapes[arg.arg] = dims
    for node in _walk(fn):
        got = _assignment(node) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if got and isinstance(got[1], ast.Call) and isinstance(got[1].func, ast.Attribute) and \
                got[1].func.attr.startswith("create") and got[1].args and isinstance(got[1].args[0], ast.List):
            shapes.setdefault(got[0], list(got[1].args[0].elts))
    return shapes


def _calls(tree: ast.Module) -> list[tuple[ast.expr, ast.expr]]:
    """A kernel calling another kernel of the module (`indexer_compressor(x, kv, ...)`, a
    sibling's kernel in a merged package) hands it tensors whose dims are the callee's
    parameters' dims: (the caller's dim, the callee's) of each."""
    kernels = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and any(_pl_decorator(d) for d in n.decorator_list)}
    params = {name: _shapes(fn) for name, fn in kernels.items()}
    out = []
    for fn in kernels.values():
        shapes = _shapes(fn)
        for node in _walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in kernels):
                continue
            callee = kernels[node.func.id]
            names = [a.arg for a in callee.args.args]
            given = list(zip(names, node.args)) + [(k.arg, k.value) for k in node.keywords if k.arg]
            for param, arg in given:
                want = params[node.func.id].get(param)
                have = shapes.get(arg.id) if isinstance(arg, ast.Name) else None
                if want and have and len(want) == len(have):
                    out.extend(zip(have, want))
    return out


_RUNTIME_OFFSET = 3  # the largest integer input verify draws by default (execute.make_inputs)
_WINDOWS = {"view": (1, 2), "slice": (1, 2), "load": (2, 1)}  # op: (shape argument, offsets argument)


def _windows(tree: ast.Module, reshapes: list | None = None) -> list[tuple[ast.expr, ast.expr, ast.expr]]:
    """Every window a kernel cuts from a tensor of known shape (`pl.view`/`pl.slice`/`pl.load`),
    per dimension: (the largest offset its loops reach, the window's extent, the dim). The
    offset is the offsets argument with the function's locals written out and each loop
    variable at its last value; offsets read at run time (a sequence length) are not sizes."""
    out = []
    for fn in _walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and any(_pl_decorator(d) for d in fn.decorator_list)):
            continue
        shapes: dict[str, list[ast.expr]] = {}
        for arg in fn.args.args + fn.args.kwonlyargs:
            for node in _walk(arg.annotation) if arg.annotation is not None else ():
                dims = _tensor_dims(node)
                if dims and arg.arg not in shapes:
                    shapes[arg.arg] = dims
        params = set(shapes)
        bound: dict[str, ast.expr | None] = {}  # a name's one value in this function (None: several)

        def bind(name: str, value: ast.expr) -> None:
            bound[name] = value if name not in bound else None

        for node in _walk(fn):
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and _is_loop(node.iter):
                bind(node.target.id, _last(node.iter))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                got = _assignment(node)
                if got is None:
                    continue
                name, value = got
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr.startswith(
                        "create") and value.args and isinstance(value.args[0], ast.List):
                    shapes.setdefault(name, list(value.args[0].elts))
                    continue
                if name in shapes:
                    continue  # a tensor re-bound (`t = pl.assemble(t, ...)`) keeps its shape
                bind(name, value)
        for node in _walk(fn):
            if (reshapes is not None and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "reshape" and len(node.args) >= 2 and isinstance(node.args[0], ast.Name)
                    and node.args[0].id in shapes and isinstance(node.args[1], ast.List)):
                # A reshape keeps the element count: the product of the dims on both sides.
                product = lambda dims: ast.parse(" * ".join(f"({ast.unparse(d)})" for d in dims), mode="eval").body  # noqa: E731
                reshapes.append((product(shapes[node.args[0].id]), product(node.args[1].elts)))
            # A parameter's subscript (`hc_base[HC_MULT:HC_MULT + HC_PAD]`); a scratch tensor's dims
            # are bounded by what the code writes into it, which is not read here.
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in params:
                out.extend(_subscript_windows(node, shapes[node.value.id], bound))
                continue
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _WINDOWS
                    and len(node.args) >= 3 and isinstance(node.args[0], ast.Name) and node.args[0].id in shapes):
                continue
            at_shape, at_offsets = _WINDOWS[node.func.attr]
            window, offsets = node.args[at_shape], node.args[at_offsets]
            dims = shapes[node.args[0].id]
            if not (isinstance(window, ast.List) and isinstance(offsets, ast.List)):
                continue
            valid = next((k.value for k in node.keywords if k.arg in ("valid_shape", "valid_shapes")), None)
            if isinstance(valid, ast.List) and len(valid.elts) == len(window.elts):
                out.extend((ast.Constant(0), v, e) for v, e in zip(valid.elts, window.elts))  # a valid region inside its window
            if len(window.elts) != len(dims) or len(offsets.elts) != len(dims):
                continue
            valid = valid.elts if isinstance(valid, ast.List) and len(valid.elts) == len(dims) else [None] * len(dims)
            for extent, offset, dim, region in zip(window.elts, offsets.elts, dims, valid):
                written = _inline(offset, bound)
                # An offset read at run time is at least 0: the window alone still fits.
                known = written is not None and _pure(written)
                out.append((written if known else ast.Constant(0), extent, dim))
                if not known:
                    # Where the file's sizes leave room, room stays for the offsets verify draws
                    # (integer inputs default to 0..3): a window at a position read at run time.
                    out.append((ast.Constant(_RUNTIME_OFFSET), extent, dim))
                if region is not None:
                    # A padded window may reach past its tensor; its valid region may not.
                    out.append((written if known else ast.Constant(0), region, dim))
    return out


def _subscript_windows(node: ast.Subscript, dims: list[ast.expr], bound: dict) -> list[tuple]:
    """The windows of a sliced subscript (`base[HC_MULT:HC_MULT + HC_PAD]`): per sliced
    dimension, its stop (with the loop variables at their last value) inside the dim."""
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if len(parts) > len(dims):
        return []
    out = []
    for part, dim in zip(parts, dims):
        if isinstance(part, ast.Slice) and part.upper is not None and part.step is None:
            stop = _inline(part.upper, bound)
            if stop is not None and _pure(stop):
                out.append((ast.Constant(0), stop, dim))
    return out


def _last(call: ast.Call) -> ast.expr | None:
    """The largest value a `pl.range`-like loop variable takes, as an expression of its bounds."""
    args = call.args
    if len(args) == 1:
        start, stop, step = ast.Constant(0), args[0], ast.Constant(1)
    elif len(args) in (2, 3):
        start, stop, step = args[0], args[1], args[2] if len(args) == 3 else ast.Constant(1)
    else:
        return None
    if isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub):
        return start  # counting down: it starts at its largest
    text = f"({ast.unparse(start)}) + (({ast.unparse(stop)}) - ({ast.unparse(start)}) - 1) // ({ast.unparse(step)}) * ({ast.unparse(step)})"
    return ast.parse(text, mode="eval").body


def _inline(node: ast.expr, bound: dict, depth: int = 0) -> ast.expr | None:
    """`node` with each local name replaced by its one value (None where a name has several)."""
    if depth > 8:
        return None

    class Inline(ast.NodeTransformer):
        failed = False

        def visit_Name(self, n):
            if n.id not in bound:
                return n
            value = bound[n.id]
            inner = _inline(value, bound, depth + 1) if value is not None else None
            if inner is None:
                self.failed = True
                return n
            return inner

    t = Inline()
    copy = ast.parse(ast.unparse(node), mode="eval").body
    result = t.visit(copy)
    return None if t.failed else result


def _pl_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    while isinstance(target, ast.Attribute):
        if isinstance(target.value, ast.Name) and target.value.id == "pl":
            return True
        target = target.value
    return False


def _is_loop(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return isinstance(f, ast.Attribute) and f.attr in _LOOPS and isinstance(f.value, ast.Name) and f.value.id == "pl"


def _tensor_dims(node: ast.AST) -> list[ast.expr] | None:
    """The shape of a `pl.Tensor[[d0, d1], dtype]` annotation."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "Tensor"):
        return None
    index = node.slice
    if isinstance(index, ast.Tuple) and index.elts and isinstance(index.elts[0], (ast.List, ast.Tuple)):
        return list(index.elts[0].elts)
    return None


def _nests(tree: ast.Module, term) -> list[list[tuple[int, int, int]]]:
    """Every loop with the bounds of the loops around it (those of known bounds): how many times
    each body runs is the product of their trips."""
    out = []

    def walk(node: ast.AST, outer: list) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.For, ast.AsyncFor)) and _is_loop(child.iter) or (
                    isinstance(child, ast.For) and isinstance(child.iter, ast.Call)
                    and isinstance(child.iter.func, ast.Name) and child.iter.func.id == "range"):
                call = child.iter
                if len(call.args) == 1:
                    ids = (term(ast.Constant(0)), term(call.args[0]), term(ast.Constant(1)))
                elif len(call.args) >= 2:
                    ids = (term(call.args[0]), term(call.args[1]),
                           term(call.args[2]) if len(call.args) > 2 else term(ast.Constant(1)))
                else:
                    ids = (None,)
                inner = outer + [ids] if None not in ids else outer
                if inner:
                    out.append(inner)
                walk(child, inner)
            else:
                walk(child, outer)

    walk(tree, [])
    return out


def _group_move(model: Sizes, state: dict[str, int], names: list[str]) -> dict[str, int] | None:
    """Halve every size but those read by a relation the halving breaks, until all hold."""
    moving = {n for n in names if state[n] % 2 == 0 and state[n] >= 4}
    if getattr(model, "_relations", None) is None:
        model._relations = Relations(model)
    while len(moving) > 1:
        trial = {**state, **{n: state[n] // 2 for n in moving}}
        values = model.values(trial)
        if values is None:
            return None
        broken = model._relations.violated(values)
        if not broken:
            return trial if model.holds(trial) and model.cost(trial) < model.cost(state) else None
        stuck = set().union(*(model.reads(i) for i in broken)) & moving
        if not stuck:
            return None
        moving -= stuck
    return None


def choose(tree: ast.Module, fixed: dict[str, int], allowed: set[str] | None = None,
           known: dict[str, int] | None = None, descend: bool = False) -> Choice:
    """Candidate sizes, smallest first, then the states the search passed through on the way
    (fallbacks, should the original kernel refuse the smallest). Empty when the file's own sizes
    are already small. `fixed` are the sizes the user gave; `allowed` the names both files have.
    `descend` (a package of modules) goes on from the walk's end by the cheapest moves: there the
    walk stalls where many modules' sizes tie; a single file's sizes, measured with the walk
    alone, stay as they were."""
    model = Sizes(tree, fixed, known, package=descend)
    if descend:
        model.floor()
    own_cost = model.cost({})
    if own_cost <= SMALL or not model.base:
        return Choice([], own_cost, model)
    # Only what a shape, a window or a loop reads is a size; a constant that is only compared
    # (a capacity guard's limit) keeps its value.
    shaped = set().union(*(model.reads(i) for i in model.shaped())) if model.shaped() else set()
    names = [n for n in model.base if (allowed is None or n in allowed) and n in shaped]
    state = {n: model.base[n] for n in names}
    if not model.holds(state):
        return Choice([], own_cost, model)
    path = [dict(state)]
    # First all sizes together, which keeps every ratio between them; then one at a time.
    while True:
        trial = {n: v // 2 if v % 2 == 0 else v for n, v in state.items()}
        if trial == state or not model.holds(trial) or model.cost(trial) >= model.cost(state):
            break
        state = trial
        path.append(dict(state))
    # Then one size at a time, the largest first, divided by its smallest prime factor that
    # keeps every relation; the cheapest state on the way is the choice (a smaller tile can
    # mean more trips of the loop around it).
    moved = True
    # A size whose every move broke relations stays where it is until a size those relations
    # read has moved: trying it again before would break them again (the same values). Among a
    # package's hundred sizes most tries were such.
    stuck: dict[str, set[str]] = {}

    def moved_to(new: dict[str, int]) -> None:
        changed = {n for n in new if new[n] != state[n]}
        for n in [n for n, why in stuck.items() if n in changed or why & changed]:
            del stuck[n]

    while moved:
        moved = False
        for name in sorted(names, key=lambda n: -state[n]):
            if name in stuck:
                continue
            trial, why = None, set()
            for p in _primes(state[name]):
                t = {**state, name: state[name] // p}
                if model.holds(t):
                    trial = t
                    break
                broke = model.why_not(t, name)
                why = why | broke if why is not None and broke is not None else None
            if trial is not None:
                moved_to(trial)
                state = trial
                path.append(dict(state))
                moved = True
                break
            if why is not None:
                stuck[name] = why
        if not moved:
            # All sizes together but those a broken relation reads: the sizes that meet one
            # another across many statements (a package of modules) keep their ratios.
            trial = _group_move(model, state, names)
            if trial is not None:
                moved_to(trial)
                state = trial
                path.append(dict(state))
                moved = True
        if not moved:
            # Two sizes tied by an equality (a reshape's HC_DIM = HC_MULT * D) move together.
            for a, b in itertools.combinations(sorted(names, key=lambda n: -state[n]), 2):
                p = next((q for q in _primes(state[a]) if state[b] % q == 0), None)
                if p is not None and model.holds(t := {**state, a: state[a] // p, b: state[b] // p}):
                    moved_to(t)
                    state = t
                    path.append(dict(state))
                    moved = True
                    break
    costs = [model.cost(s) for s in path]
    cheapest = min(range(len(path)), key=lambda i: (costs[i], -i))
    path = path[:cheapest + 1]
    if descend:
        # A constant no priced shape or loop reads (a tile's row count, in kernel bodies only)
        # may still be tied to sizes that are (`D_OUT_CHUNK` a multiple of `RECV_TILE`): the
        # search moves it where a move of theirs ties it in, or they could not move at all.
        tied = model.tied_to(set(names)) & set(model.base) - set(names)
        tied = sorted(n for n in tied if allowed is None or n in allowed)
        path += _descend(model, {**{n: model.base[n] for n in tied}, **path[-1]}, names + tied)
    def changed(state: dict[str, int]) -> dict[str, int]:
        """The sizes that moved and matter: one that no size of the kernel depends on (a module
        default a given builder parameter replaces) stays as the file has it."""
        moved = {n: v for n, v in state.items() if v != model.base[n] or n in model.conditional}
        if all(n in model.conditional for n in moved):
            return {}
        def matters(name: str) -> bool:
            return any(name in model.reads(i) for i in model.used())

        return {n: v for n, v in moved.items() if matters(n)}
    picks = [path[-1]]
    if descend:
        # Among many modules the path is long and its middle may be far past any patience: the
        # fallback is the largest state on it a package runs at in a few seconds.
        s = next((s for s in path if model.cost(s) <= PACKAGE_LIMIT), path[-1])
        if s not in picks:
            picks.append(s)
    for fraction in () if descend else (0.5,):  # a larger fallback along the way
        s = path[int((len(path) - 1) * fraction)]
        if s not in picks:
            picks.append(s)
    return Choice([changed(s) for s in picks if changed(s)], own_cost, model)
