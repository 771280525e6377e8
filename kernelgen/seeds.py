"""Real kernels as the generator's seeds: the kernels of ../shared/corpus, cut out of their files
and mutated so that they stay valid in their own era.

The corpus is read at run time, relative to the checkout (`../shared/corpus`), and nothing of it
is ever written into the repository: a failure met on a mutant is printed with its seed's path
and its mutations, and its fixture is written by hand (docs/fuzz.md). Without the corpus the
seed eras say so and make nothing.

A *unit* is one thing a compiler builds, as a module of its own: a module-level `@pl.program`
class, a module-level builder (a function that defines a program and takes no argument it
lacks a default for), an entry `@pl.jit` function, or a program class or jit entry defined in a
test function, hoisted to module level. The module-level statements it needs come with it
(imports, constants, helpers, transitively), and for a hoisted one the statements of its
enclosing functions that bind names it reads. Everything else of the file (tests, `__main__`,
harness calls) is left behind, so that a unit compiles with nothing but pypto beside it.

Mutations edit the unit's text at the AST's positions (the rest of the text, comments and
layout included, stays the authors'):
- `scale`: a size (an integer literal that is a power of two, 8 or more) doubled or halved
  wherever it is written, or every such size at once: shapes and constants scaled consistently;
- `dtype`: a float dtype (`pl.FP32`, `pl.FP16`, `pl.BF16`) changed everywhere, or at one place;
- `bound`: a `pl.range`/`pl.parallel` loop's extent halved (a partial write of the output);
- `direction`: `pl.Out[...]` made `pl.InOut[...]` or back;
- `rename`: a local name of a function renamed throughout it;
- `swap`: an elementwise op swapped within its family (`add`/`sub`/`mul`/`maximum`/`minimum`,
  `exp`/`abs`/`neg`);
- spring only, `runtime`: a loop's extent made a runtime one bounded by a constant
  (`valid_len = min(T, n - i)`), and `scalar`: a loop variable used as an op's scalar.
The mutant's own compiler is the judge of whether a mutation kept it valid: what it refuses
is counted apart (`source-refused`), as for generated kernels.
"""

from __future__ import annotations

import ast
import random
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"

# era -> the folders of its seeds, under ../shared/corpus
SEED_DIRS = {
    "aug-real": ("pypto/2026-08-21",),
    "spring-real": ("pypto/2026-05-26", "pypto-lib/2026-05-25"),
}
# Files that are not kernels: pytest plumbing, the system tests' harness.
SKIP_NAMES = ("conftest.py", "__init__.py")
SKIP_PARTS = ("harness",)

FLOAT_DTYPES = ("FP32", "FP16", "BF16")
SWAPS = (("add", "sub", "mul", "maximum", "minimum"), ("exp", "abs", "neg"))


@dataclass(frozen=True)
class Unit:
    era: str
    where: str  # corpus-relative path :: unit name (line)
    text: str


def corpus_dirs(era: str) -> list[Path]:
    return [CORPUS / d for d in SEED_DIRS[era] if (CORPUS / d).is_dir()]


@lru_cache(maxsize=4)
def units(era: str) -> tuple[Unit, ...]:
    """Every unit of the era's seed folders, in path order (empty without the corpus)."""
    found = []
    for folder in corpus_dirs(era):
        for path in sorted(folder.rglob("*.py")):
            if path.name in SKIP_NAMES or any(p in SKIP_PARTS for p in path.parts):
                continue
            try:
                source = path.read_text(encoding="utf-8")
                tree = ast.parse(source)
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                continue
            rel = path.relative_to(CORPUS)
            for name, line, text in extract(source, tree):
                if not free_names(text):
                    found.append(Unit(era, f"{rel}::{name}:{line}", text))
    return tuple(found)


def free_names(text: str) -> set[str]:
    """Names a unit reads that nothing in it binds (a test's `self.m`, a pytest parameter): such
    a unit cannot build alone, and is left out before its compiler is asked. A coarse reading
    (any binding anywhere counts), which the compiler corrects."""
    import builtins

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return {"<syntax>"}
    bound = set(dir(builtins))
    read = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            (read if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            bound.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in n.names}
            if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] in LOCAL_MODULES:
                read.add(n.module)
    return read - bound


# Modules of the corpus's own test trees: not importable from a unit standing alone.
LOCAL_MODULES = ("harness", "examples", "tests", "conftest", "_sig_closure_fixture")


# ---------------------------------------------------------------------------------------------
# Cutting units out of a module


def _decorator_name(d: ast.expr) -> str:
    return ast.unparse(d.func if isinstance(d, ast.Call) else d)


def _is_program(node: ast.AST) -> bool:
    return isinstance(node, ast.ClassDef) and any(_decorator_name(d).split(".")[-1] == "program"
                                                  for d in node.decorator_list)


def _jit_kind(node: ast.AST) -> str | None:
    """'' for a plain `@pl.jit` (an entry), the suffix (`incore`, `inline`, `host`...) otherwise."""
    if not isinstance(node, ast.FunctionDef):
        return None
    for d in node.decorator_list:
        parts = _decorator_name(d).split(".")
        if "jit" in parts:
            rest = parts[parts.index("jit") + 1:]
            return rest[0] if rest else ""
    return None


def _is_entry(node: ast.AST) -> bool:
    return _jit_kind(node) in ("", "host")


def _is_builder(node: ast.AST) -> bool:
    """A module-level function that defines a program and can be called with no argument."""
    if not isinstance(node, ast.FunctionDef) or node.name.startswith("test"):
        return False
    a = node.args
    if len(a.defaults) < len(a.posonlyargs) + len(a.args) or any(d is None for d in a.kw_defaults):
        return False
    return any(_is_program(n) for n in ast.walk(node)) and any(isinstance(n, ast.Return) for n in ast.walk(node))


def _is_main_guard(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _segment(lines: list[str], node: ast.stmt) -> str:
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return textwrap.dedent("".join(lines[start - 1:node.end_lineno]))


def _closure(pool: list[ast.stmt], wanted: set[str], before: int | None = None) -> list[ast.stmt]:
    """The statements of `pool` that bind the names read, transitively (a name's last binding
    before `before`, the unit's line, when one is given)."""
    chosen: list[ast.stmt] = []
    todo, done = set(wanted), set()
    while todo:
        name = todo.pop()
        done.add(name)
        binders = [s for s in pool if name in _bound(s) and (before is None or s.lineno < before)]
        for s in binders[-1:]:
            if s not in chosen:
                chosen.append(s)
                todo |= _read(s) - done
    return sorted(chosen, key=lambda s: s.lineno)


def extract(source: str, tree: ast.Module):
    """(name, line, text) of each unit of a module."""
    lines = source.splitlines(True)
    module_pool = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign,
                                                           ast.FunctionDef, ast.ClassDef))
                   and not _is_program(s) and not _is_builder(s) and not _is_entry(s)
                   and not (isinstance(s, ast.FunctionDef) and s.name.startswith("test"))]
    module_names = {n for s in module_pool for n in _bound(s)}

    def assemble(unit: ast.stmt, hoisted: list[ast.stmt]) -> str:
        wanted = _read(unit) | {n.id for d in getattr(unit, "decorator_list", []) for n in ast.walk(d)
                                if isinstance(n, ast.Name)}
        local = _closure(hoisted, wanted, unit.lineno)
        for s in local:
            wanted |= _read(s)
        wanted -= {n for s in local for n in _bound(s)} - module_names
        parts = [_segment(lines, s) for s in _closure(module_pool, wanted)]
        parts += [_segment(lines, s) for s in local]
        parts.append(_segment(lines, unit))
        return "\n\n".join(p.rstrip("\n") + "\n" for p in parts)

    for stmt in tree.body:
        if _is_program(stmt) or _is_builder(stmt) or _is_entry(stmt):
            yield stmt.name, stmt.lineno, assemble(stmt, [])

    def nested(body: list[ast.stmt], hoisted: list[ast.stmt]):
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and not _is_program(stmt) and _jit_kind(stmt) is None:
                inner = [s for s in stmt.body if isinstance(s, (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef,
                                                                 ast.Import, ast.ImportFrom))]
                yield from nested(stmt.body, hoisted + inner)
            elif hoisted and (_is_program(stmt) or _is_entry(stmt)):
                pool = [s for s in hoisted if s is not stmt and not _is_program(s) and not _is_entry(s)]
                yield stmt.name, stmt.lineno, assemble(stmt, pool)

    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and not _is_program(stmt) and not _is_builder(stmt) \
                and _jit_kind(stmt) is None and not _is_main_guard(stmt):
            yield from nested(stmt.body, [s for s in stmt.body if isinstance(s, (ast.Assign, ast.AnnAssign,
                                                                                  ast.FunctionDef, ast.Import,
                                                                                  ast.ImportFrom))])


# ---------------------------------------------------------------------------------------------
# Mutations: edits at AST positions


class _Text:
    """A text and its AST, edited by (node span -> new text) replacements applied together."""

    def __init__(self, text: str):
        self.text = text
        self.tree = ast.parse(text)
        self.lines = text.splitlines(True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.edits: list[tuple[int, int, str]] = []

    def offset(self, line: int, col: int) -> int:
        # ast columns count UTF-8 bytes
        return self.starts[line - 1] + len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def replace(self, node: ast.AST, new: str) -> None:
        start, end = self.span(node)
        self.edits.append((start, end, new))

    def insert_before(self, stmt: ast.stmt, line: str) -> None:
        start = self.offset(stmt.lineno, stmt.col_offset)
        self.edits.append((start, start, f"{line}\n{' ' * stmt.col_offset}"))

    def result(self) -> str:
        out = self.text
        seen: list[tuple[int, int]] = []
        for start, end, new in sorted(self.edits, key=lambda e: -e[0]):
            if any(start < e and s < end for s, e in seen):  # overlapping: the outer one was taken
                continue
            seen.append((start, end))
            out = out[:start] + new + out[end:]
        return out


def _sizes(tree: ast.AST) -> list[ast.Constant]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is int
            and n.value >= 8 and n.value & (n.value - 1) == 0]


def _pl_attr(node: ast.AST, names) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in names and isinstance(node.value, ast.Name) \
        and node.value.id == "pl"


def m_scale(t: _Text, rng: random.Random) -> str | None:
    sizes = _sizes(t.tree)
    if not sizes:
        return None
    factor = rng.choice((2, 0.5))
    if rng.random() < 0.5:
        chosen = {rng.choice(sizes).value}
        what = f"scale {next(iter(chosen))} x{factor}"
    else:
        chosen = {n.value for n in sizes}
        what = f"scale all x{factor}"
    for n in sizes:
        if n.value in chosen:
            t.replace(n, str(int(n.value * factor)))
    return what


def m_dtype(t: _Text, rng: random.Random) -> str | None:
    uses = [n for n in ast.walk(t.tree) if _pl_attr(n, FLOAT_DTYPES)]
    if not uses:
        return None
    old = rng.choice(uses).attr
    new = rng.choice([d for d in FLOAT_DTYPES if d != old])
    if rng.random() < 0.7:
        for n in uses:
            if n.attr == old:
                t.replace(n, f"pl.{new}")
        return f"dtype {old}->{new}"
    one = rng.choice([n for n in uses if n.attr == old])
    t.replace(one, f"pl.{new}")
    return f"dtype {old}->{new} at line {one.lineno}"


def _loops(tree: ast.AST) -> list[ast.Call]:
    return [n.iter for n in ast.walk(tree) if isinstance(n, ast.For) and isinstance(n.iter, ast.Call)
            and _pl_attr(n.iter.func, ("range", "parallel")) and n.iter.args]


def m_bound(t: _Text, rng: random.Random) -> str | None:
    loops = _loops(t.tree)
    if not loops:
        return None
    call = rng.choice(loops)
    stop = call.args[1] if len(call.args) >= 2 else call.args[0]
    if isinstance(stop, ast.Constant) and type(stop.value) is int:
        if stop.value < 2:
            return None
        t.replace(stop, str(stop.value // 2))
    else:
        t.replace(stop, f"{ast.unparse(stop)} // 2" if len(call.args) == 1 else f"({ast.unparse(stop)}) // 2")
    return f"bound halved at line {call.lineno}"


def m_direction(t: _Text, rng: random.Random) -> str | None:
    uses = [n for n in ast.walk(t.tree) if isinstance(n, ast.Subscript) and _pl_attr(n.value, ("Out", "InOut"))]
    if not uses:
        return None
    one = rng.choice(uses)
    new = "InOut" if one.value.attr == "Out" else "Out"
    t.replace(one.value, f"pl.{new}")
    return f"{one.value.attr}->{new} at line {one.lineno}"


def m_rename(t: _Text, rng: random.Random) -> str | None:
    functions = [f for f in ast.walk(t.tree) if isinstance(f, ast.FunctionDef)]
    rng.shuffle(functions)
    for f in functions:
        params = {a.arg for a in f.args.args + f.args.kwonlyargs}
        # `_` renamed would read as IR's reserved `__` delimiter
        stored = sorted({n.id for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                        - params - {"_"})
        if not stored:
            continue
        name = rng.choice(stored)
        new = rng.choice((f"{name}_r", f"r_{name}", f"{name}2"))
        taken = {n.id for n in ast.walk(t.tree) if isinstance(n, ast.Name)}
        if new in taken:
            continue
        for n in ast.walk(f):
            if isinstance(n, ast.Name) and n.id == name:
                t.replace(n, new)
        return f"rename {name}->{new} in {f.name}"
    return None


def m_swap(t: _Text, rng: random.Random) -> str | None:
    calls = [(n.func, fam) for n in ast.walk(t.tree) if isinstance(n, ast.Call) for fam in SWAPS
             if isinstance(n.func, ast.Attribute) and n.func.attr in fam
             and ast.unparse(n.func.value) in ("pl", "pl.tile", "pl.tensor")]
    if not calls:
        return None
    func, fam = rng.choice(calls)
    new = rng.choice([o for o in fam if o != func.attr])
    t.replace(func, f"{ast.unparse(func.value)}.{new}")
    return f"{func.attr}->{new} at line {func.lineno}"


def m_runtime(t: _Text, rng: random.Random) -> str | None:
    """A loop `for i in pl.range(0, N, T)` whose body reads the constant T as an extent: the
    extent becomes `valid_len = min(T, N - i)` in the windows' valid shapes (spring code's idiom)."""
    choices = []
    for loop in ast.walk(t.tree):
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call) \
                and _pl_attr(loop.iter.func, ("range", "parallel")) and len(loop.iter.args) == 3:
            step = ast.unparse(loop.iter.args[2])
            uses = [n for n in ast.walk(loop) if isinstance(n, ast.keyword) and n.arg in ("valid_shape", "valid_shapes")]
            slices = [c for c in ast.walk(loop) if isinstance(c, ast.Call) and _pl_attr(c.func, ("slice", "load"))
                      and len(c.args) >= 2 and step in ast.unparse(c.args[1]) and not c.keywords]
            if slices and not uses:
                choices.append((loop, step, slices))
    if not choices:
        return None
    loop, step, slices = rng.choice(choices)
    stop = ast.unparse(loop.iter.args[1])
    i = loop.target.id
    first = loop.body[0]
    t.insert_before(first, f"valid_len = min({step}, {stop} - {i})")
    call = rng.choice(slices)
    shape = ast.unparse(call.args[1])
    valid = shape.replace(step, "valid_len", 1)
    kw = "valid_shapes" if call.func.attr == "load" else "valid_shape"
    t.replace(call, f"{ast.unparse(call)[:-1]}, {kw}={valid})")
    return f"runtime extent min({step}, {stop} - {i}) at line {call.lineno}"


def m_scalar(t: _Text, rng: random.Random) -> str | None:
    """A float scalar operand of an op inside a loop replaced by the loop variable."""
    choices = []
    for loop in ast.walk(t.tree):
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call) \
                and _pl_attr(loop.iter.func, ("range", "parallel")):
            for c in ast.walk(loop):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and len(c.args) == 2 \
                        and c.func.attr in ("add", "sub", "mul", "adds", "subs", "muls", "maximum", "maxs") \
                        and isinstance(c.args[1], ast.Constant) and isinstance(c.args[1].value, float):
                    choices.append((loop.target.id, c.args[1]))
    if not choices:
        return None
    name, const = rng.choice(choices)
    t.replace(const, name)
    return f"loop variable {name} as a scalar at line {const.lineno}"


MUTATIONS = {"scale": m_scale, "dtype": m_dtype, "bound": m_bound, "direction": m_direction, "rename": m_rename,
             "swap": m_swap}
SPRING_MUTATIONS = dict(MUTATIONS, runtime=m_runtime, scalar=m_scalar)


def mutate(text: str, era: str, rng: random.Random, count: int) -> tuple[str, list[str]]:
    """`count` mutations drawn in turn, each on the text the last one left (skipping those that
    find nothing to change)."""
    table = SPRING_MUTATIONS if era == "spring-real" else MUTATIONS
    said = []
    for _ in range(count * 3):
        if len(said) >= count:
            break
        kind = rng.choice(sorted(table))
        try:
            t = _Text(text)
        except SyntaxError:
            break
        what = table[kind](t, rng)
        if what is None:
            continue
        new = t.result()
        try:
            ast.parse(new)
        except SyntaxError:
            continue
        if new != text:
            text = new
            said.append(what)
    return text, said


# ---------------------------------------------------------------------------------------------
# A shard of a seed era


def drawn(era: str, n: int, seed: int, part: int = 0, parts: int = 1, on_seed=None):
    """Kernels to judge, n mutants at most: the shard's share of the era's units in an order
    drawn from `seed`, each unit first as it is (`on_seed(kernel, unit)` says whether its own compiler
    accepted it: a unit that does not build alone, or that its authors wrote to be refused, is
    no seed), then one mutant of it with one to three mutations, and round again while n is
    not reached. Yields (kernel, unit, mutations)."""
    from .gen import Kernel

    pool = [u for i, u in enumerate(units(era)) if i % parts == part]
    rng = random.Random(seed)
    rng.shuffle(pool)
    good: dict[Unit, bool] = {}
    seen: set[str] = set()
    made = 0
    for _ in range(4):  # rounds over the pool
        for unit in pool:
            if made >= n:
                return
            if unit not in good:
                good[unit] = bool(on_seed(Kernel(era, unit.text, ["seed"]), unit)) if on_seed else True
            if not good[unit]:
                continue
            text, said = mutate(unit.text, era, rng, rng.choice((1, 1, 2, 3)))
            if not said or text in seen:
                continue
            seen.add(text)
            made += 1
            yield Kernel(era, text, [s.split()[0] for s in said]), unit, said
        if not any(good.values()):
            return
