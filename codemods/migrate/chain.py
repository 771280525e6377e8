"""Version steps: which of them a file needs, and a migration through them in order.

A step is a folder of rules (`codemods/rules/2026-08/`) and the API table they migrate to
(`codemods/rules/api/pypto-2026-08.toml`). Kernels written on any day are migrated to a target by the
steps from the first one they need up to the target's, each step's rules run against that
step's table and its output strict-checked against it, as `ng update` runs each version's
migrations in turn. A rule fires only where its old form is, so a file written between two
steps needs no step of its own: the rules whose old forms it holds fire, the others are silent.

Which step a file starts at is read off the code and the steps' API tables (`first_step`),
unless `--from` says it: no list of forms is kept by hand. Only names are read, with Python's
own parser; nothing here imports LibCST, so that a run served from the cache stays light.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import NamedTuple

from ..check.results import Finding, Result
from ..rulebook.evidence import later_signature
from ..rulebook.loading import ApiTable, Rule, load_api, steps as all_steps
from ..syntax.memo import per_file
from ..text.long_diff import line_opcodes
from . import stages
from .collector import cycle_collector_off
from .presumption import presumed_current
from .parsing import accepted, ast_children


class Step(NamedTuple):
    name: str  # `2026-03`
    rules: tuple[Rule, ...]  # the selected rules of this step
    api: ApiTable
    # The file names nothing older than the target, whose step this is: it is taken to be written
    # for the target's pypto unless one of the step's evidence rules acts (`_current`).
    presumed: bool = False


def forms(text: str, module: str = "pypto.language", expected_failures: bool = True) -> set[str]:
    """The module's members a text uses, as paths after the module (`view`, `tile.maxs`), and
    the keywords of its calls (`parallel(chunk=)`); empty for text Python cannot parse. Without
    `expected_failures`, what a test expects to be refused (`with pytest.raises(...)`) is left out."""
    # A big file's syntax tree is a million objects: the cycle collector, going over them as
    # they are made, took four times as long as the parse.
    with cycle_collector_off():
        return set(_read_forms(text, module, expected_failures))


@lru_cache(maxsize=4)  # the chain asks of one text twice (its first step, what dates it)
def _read_forms(text: str, module: str, expected_failures: bool = True) -> frozenset[str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    accepted(text)
    if not expected_failures:
        for node in _walk(tree):
            if type(node) is ast.With and _expects_failure(node):
                node.body = []
    head, _, last = module.rpartition(".")
    names: dict[str, str] = {}  # a local name -> the path it stands for ("" = the module itself)
    # One walk sorts out the few kinds of node read below (exact types: every node is asked).
    imports, named, calls, functions = [], [], [], []
    for node in _walk(tree):
        kind = type(node)
        if kind is ast.Attribute or kind is ast.Name:
            named.append(node)
        elif kind is ast.Call:
            calls.append(node)
        elif kind is ast.Import or kind is ast.ImportFrom:
            imports.append(node)
        elif kind is ast.FunctionDef:
            functions.append(node)
    for node in imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module and alias.asname:
                    names[alias.asname] = ""
                elif alias.name.startswith(module + ".") and alias.asname:
                    names[alias.asname] = alias.name[len(module) + 1:]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                bound = alias.asname or alias.name
                if node.module == head and alias.name == last:
                    names[bound] = ""
                elif node.module == module:
                    names[bound] = alias.name
                elif node.module and node.module.startswith(module + "."):
                    names[bound] = f"{node.module[len(module) + 1:]}.{alias.name}"
    found: set[str] = set()
    for node in named:
        path = _path(node, names, module)
        if path:
            found.add(path)
    for node in calls:
        callee = _path(node.func, names, module)
        if callee:
            found.update(f"{callee}({kw.arg}=)" for kw in node.keywords if kw.arg)
            # the arity of every call, keywords or not (`pl.rem(a, b, tmp)`: c39's took two)
            if not any(isinstance(a, ast.Starred) for a in node.args):
                found.add(f"{callee}(#{len(node.args)})")
    if any(_stores_by_subscript(node, names, module) for node in functions):
        found.add(SUBSCRIPT_STORE)
    return frozenset(found)


def _expects_failure(node: ast.With) -> bool:
    """`with pytest.raises(E):` (or `raises(E)`, `self.assertRaises(E)`): a test's proof that
    its body is refused. What is written there is meant to be rejected, by any version."""
    for item in node.items:
        call = item.context_expr
        if isinstance(call, ast.Call):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("raises", "assertRaises", "assertRaisesRegex"):
                return True
    return False


@lru_cache(maxsize=2)  # asked after the target's step and again after the chain, of one text
def expected_failures(text: str) -> tuple[tuple[int, int], ...]:
    """The lines (first, last) of what a test expects to be refused: the bodies under
    `_expects_failure`, and a module-level kernel used only there (`@pl.jit def k(...)` whose
    `k.lower()` a test expects to raise)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    blocks = [n for n in _walk(tree) if type(n) is ast.With and n.body and _expects_failure(n)]
    spans = [(n.body[0].lineno, n.end_lineno or n.lineno) for n in blocks]
    if not spans:
        return ()
    inside = {id(x) for n in blocks for x in ast.walk(n)}
    used_in, used_out = set(), set()
    for x in ast.walk(tree):
        if type(x) is ast.Name and isinstance(x.ctx, ast.Load):
            (used_in if id(x) in inside else used_out).add(x.id)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in used_in and node.name not in used_out:
            spans.append((min([d.lineno for d in node.decorator_list] + [node.lineno]), node.end_lineno or node.lineno))
    return tuple(spans)


def _walk(tree: ast.AST):
    """`ast.walk`, in its order, without its generators per node (a big file has a million)."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        yield node
        todo.extend(ast_children(node))


SUBSCRIPT_STORE = "[]="  # the form `out[r0:r1, :] = v` of `forms`: a store into a Tensor parameter's window


def _stores_by_subscript(function: ast.FunctionDef, names: dict[str, str], module: str) -> bool:
    """Does a pl function assign to a window of one of its Tensor parameters?"""
    if not any(_path(d.func if isinstance(d, ast.Call) else d, names, module) for d in function.decorator_list):
        return False
    tensors = {a.arg for a in [*function.args.args, *function.args.kwonlyargs]
               if isinstance(a.annotation, ast.Subscript)
               and _path(a.annotation.value, names, module) in ("Tensor", "Out", "InOut")}
    return any(any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in tensors
                   for t in n.targets) for n in _assignments(function))


def _assignments(function: ast.FunctionDef):
    """The `=` statements in a function, at any depth (nested functions' too): an assignment is
    a statement, so only the lists of statements are gone through, not every expression."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if type(node) is ast.Assign:
            yield node
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, name, None)
            if type(inner) is list:
                stack.extend(inner)


def _path(node: ast.AST, names: dict[str, str], module: str) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.reverse()
    if node.id in names:
        base = names[node.id]
        return ".".join(p for p in (base, *parts) if p)
    dotted = ".".join((node.id, *parts))
    if dotted.startswith(module + "."):
        return dotted[len(module) + 1:]
    return ""


def first_step(text: str, tables: list[ApiTable]) -> int:
    """The index of the first step (tables oldest first) the text needs.

    Read off the tables alone. A step is skipped only for a file that uses a name its version
    lacks and a later version has, or lists as removed (`pl.at`; `pl.chunked_loop_optimizer`,
    which came and went between the two), and no name the step's own table lists as removed
    (`pl.view`): such code was written after that version. Everything else runs the step:
    its rules fire only on their old forms, so a step run on code already past it changes
    nothing, where skipping it on a guess leaves what its compiler rejects. A name no table
    knows (a typo, a placeholder) is evidence of neither. Where names settle nothing, what
    the step's version rejects is weighed (`_past`)."""
    found = forms(text, tables[0].module) if tables else set()
    for i, table in enumerate(tables[:-1]):
        if any(table.lists_removed(key) for key in _names(found)):
            return i
        if _later_names(found, table, tables[i + 1:]):
            continue
        if _past(text, table, tables[-1]):
            continue
        return i
    return len(tables) - 1


def _later_names(found: set[str], table: ApiTable, later: list[ApiTable]) -> bool:
    """Does the text use a name the table's version lacks and a later table has or lists as
    removed, or pass an op a keyword its signature there lacks and a later one has
    (`pl.matmul_acc(..., b_trans=True)`: c39's took no transposes)?"""
    keys = _names(found)
    return any(not table.exists(key) and key not in table.ops and _known(t, key) for key in keys for t in later) \
        or any(_later_keyword(path, table, later) for path in found if "(" in path) \
        or (SUBSCRIPT_STORE in found and not table.subscript_store and any(t.subscript_store for t in later))


def _later_keyword(path: str, table: ApiTable, later: list[ApiTable]) -> bool:
    """`op(kw=)` of `forms`: a keyword the table's signature of op lacks (where the table knows
    its parameters) and a later table's has; `op(#n)`: more positional arguments than the
    table's signature takes and a later one's does (`pl.tile.rem(a, b, tmp)`)."""
    op, _, rest = path.partition("(")
    if rest.startswith("#"):  # `op(#n)`: n positional arguments
        return later_signature(op, table, later, arity=int(rest[1:-1]))
    return later_signature(op, table, later, keyword=rest[:-2])


def written_after(text: str, names: list[str], end: int, rules_dir=None) -> bool:
    """Was the text written for a pypto later than the step `names[end - 1]`? Said by names alone
    (`pl.at`, `@pl.jit`, `pl.tile.sin`) and never where it uses a name that step lists as removed:
    the weighing of rejections (`_past`) chooses between steps on the way to a target, and code
    it would call later but that names nothing newer is what a user of the older pypto writes."""
    if end >= len(names):
        return False
    tables = [load_api(rules_dir, name) for name in names]
    found = forms(text, tables[0].module)
    target = tables[end - 1]
    return not any(target.lists_removed(key) for key in _names(found)) and _later_names(found, target, tables[end:])


def _past(text: str, table: ApiTable, target: ApiTable) -> bool:
    """Was the text written for a pypto between the step's version and the target's? The
    evidence is what the step's version rejects: forms the target accepts (tensor-level
    `pl.rsqrt` in a kernel, which c39 refused and later versions lower) against forms the
    target rejects too (the four-argument `pl.store`). More of the first: written later, and
    the step would rewrite what the target takes as it is (pypto-lib's April kernels: 54
    against 4, the 4 a `create_tensor(valid_shape=)` the later step migrates). Otherwise
    written for the step's own version, with errors of that version's users (pypto's own c39
    files that still pass the old `pl.store`: 0 against 19): the step runs. Asked only of a
    text whose names are no evidence either way."""
    from ..check.strict import StrictChecker  # here: a warm run never imports LibCST
    from .parsing import parse

    try:
        module = parse(text)
    except Exception:  # the engine reports it, with its line
        return False
    here = {id(v.node) for v in StrictChecker(module, table).run() if v.rejects}
    if not here:
        return False
    there = {id(v.node) for v in StrictChecker(module, target).run() if v.rejects}
    return len(here - there) > len(here & there)


def written_for(text: str, rules_dir=None) -> str:
    """The newest step whose API has every `pl` name the text uses (a migration to 2026-03
    still says `pl.auto_incore`, which 2026-08 removed): the meaning to run it with."""
    names = all_steps(rules_dir)
    tables = [load_api(rules_dir, name) for name in names]
    found = _names(forms(text, tables[0].module)) if tables else set()
    for name, table in zip(reversed(names), reversed(tables)):
        if not any(table.lists_removed(key) or (table.namespaces and not table.exists(key) and _known_anywhere(tables, key))
                   for key in found):
            return name
    return names[0]


def _known_anywhere(tables: list[ApiTable], key: str) -> bool:
    return any(_known(t, key) for t in tables)


def _known(table: ApiTable, key: str) -> bool:
    """Does the table have `pl.<key>`, or say that it was removed by then?"""
    return bool(table.namespaces) and (table.exists(key) or key in table.ops)


def _names(found: set[str]) -> set[str]:
    """The names a text's forms use, as the tables key them: `tile.adds`, `tensor.read`, or the
    member of the module itself (`view`, `block`, `at`); keywords (`range(chunk=)`) are no names."""
    keys = set()
    for path in found:
        if "(" in path or path == SUBSCRIPT_STORE:
            continue
        space, _, name = path.partition(".")
        keys.add(path if space in ("tile", "tensor") and name and "." not in name else space)
    return keys


Migrate = Callable[..., Result]


class StepError(ValueError):
    """A --target or --from that names no step; the message lists the steps there are."""


def check_step(name: str, rules_dir=None, what: str = "target") -> str:
    names = all_steps(rules_dir)
    if name not in names:
        raise StepError(f"unknown {what} {name!r}; the steps are {', '.join(names)}")
    return name


def steps_for(text: str, rules: tuple[Rule, ...], target: str, start: str = "", rules_dir=None,
              neighbours: Iterable[str] = ()) -> list[Step]:
    """The steps that take this text to `target`: from `start` (--from) or the first one the
    code needs, never past the target's own step (so `--target 2026-03` is that step alone)."""
    names = list(all_steps(rules_dir))
    end = names.index(target) + 1
    tables = [load_api(rules_dir, name) for name in names[:end]]
    if not start and written_after(text, names, end, rules_dir):
        # Code of a later pypto is never moved back: no rule rewrites it, and the target's own
        # checks (PTO020) say which names the target lacks and which target the code is for.
        checks = tuple(r for r in rules if r.at_target and r.step in names[:end])
        return [Step(target, checks, tables[-1])]
    if start:
        first = min(names.index(start), end - 1)
    else:
        first = first_step(text, tables) if end > 1 else 0
    # Nothing in the text older than the target: written for it, as far as anything says, unless
    # a rule that only old code triggers acts (`_current`). An explicit --from says otherwise.
    # A module it imports from its folder (`neighbours`: their texts) was written with it, for one
    # pypto: one of them dated dates the file too (the May library's moe.py and its hc_pre).
    presumed = not start and end > 1 and not any(older_forms(t, tables[-1], tables[:-1]) for t in (text, *neighbours))
    chosen = []
    for name, table in zip(names[first:end], tables[first:]):
        mine = tuple(r for r in rules if r.step == name and (name == target or not (r.target_only or r.at_target)))
        if name == target:  # an earlier step's check of the target, with the target's table
            mine += tuple(r for r in rules if r.at_target and r.step in names[:end - 1])
        if mine or name == target:  # a step none of whose rules is selected is not run, but the target's check is
            chosen.append(Step(name, mine, table, presumed and name == target))
    return chosen


def older_forms(text: str, table: ApiTable, earlier: list[ApiTable]) -> set[str]:
    """The forms of the text that date it before the table's version: a name the table lists as
    removed (`pl.incore` at 2026-08), a name it lacks that an earlier table has, and a keyword
    or a number of arguments an earlier table's signature of an op takes and the table's does
    not (`pl.load(..., valid_shapes=)`). A name no table knows is evidence of nothing."""
    found = forms(text, table.module, expected_failures=False)
    old: set[str] = set()
    for key in _names(found):
        if table.lists_removed(key) or (table.namespaces and not table.exists(key) and key not in table.ops
                                        and any(_known(t, key) for t in earlier)):
            old.add(key)
    for path in found:
        op, _, rest = path.partition("(")
        spec = table.ops.get(op) if rest else None
        if spec is None or not spec.params or spec.kind == "removed":
            continue
        if rest.startswith("#"):  # more positional arguments than the table's op takes
            n = int(rest[1:-1])
            if n > len(spec.params) and any(n <= len(getattr(t.ops.get(op), "params", ())) for t in earlier):
                old.add(path)
        elif rest[:-2] not in spec.params and any(rest[:-2] in getattr(t.ops.get(op), "params", ()) for t in earlier):
            old.add(path)
    return old


def _acted(result: Result, rules: set[str] | None = None, dating: Callable[[int], bool] = lambda _: True) -> bool:
    """Did the step make an edit or a marker (of one of `rules`, where given) at a line that dates?"""
    return any((rules is None or e.rule in rules) and dating(e.line) for e in result.edits) \
        or any(f.level == "review" and (rules is None or f.rule in rules) and dating(f.line) for f in result.findings)


def _current(text: str, results: list[Result], steps: list[Step]) -> bool:
    """Is the file the target's own code: did no step before the target's act on it (its
    version rejected nothing), and no evidence rule of the target's step (an edit or a marker
    of its own)? Then nothing dates it before the target, and what the other rules would do is
    not a migration: code written for the target is never rewritten on a guess. What a test
    expects to be refused dates nothing: it is written to be refused."""
    spans = expected_failures(text)

    def dating(line: int) -> bool:
        return not any(a <= line <= b for a, b in spans)

    # an earlier step's markers stand at lines of its output, which `dating` does not place
    if any(any(dating(e.line) for e in r.edits) or any(f.level == "review" for f in r.findings) for r in results[:-1]):
        return False
    evidence = {r.id for r in steps[-1].rules if r.evidence}
    return not _acted(results[-1], evidence, dating)


def migrate_steps(text: str, steps: list[Step], known_ids: frozenset[str], strict: bool, migrate: Migrate,
                  staged: bool = False) -> Result:
    """Run the steps in order on a text: one Result, its edits placed in the input, its
    findings in the output. What a step's strict check finds on its own output is kept only
    where a later step left the line as it was: a later step's rules may have rewritten it.
    `staged` (narrowed rules): the output is checked against the input with the target's
    table, by the engine where one step runs (it holds both trees), else on the texts."""
    if len(steps) == 1:
        step = steps[0]
        stages.step(step.name)
        def run(presumed: bool) -> Result:
            with presumed_current(presumed):
                if staged:
                    return migrate(text, step.rules, step.api, known_ids, strict=strict, staged=True)
                return migrate(text, step.rules, step.api, known_ids, strict=strict)

        result = run(step.presumed)
        if step.presumed:
            if _current(text, [result], steps):
                return Result(text, text)
            # dated by one of the step's own evidence rules: the step again, as for old code
            result = run(False)
        return result
    from ..model.outputs import NO_RETURN  # here: a warm run imports this module, and LibCST with it never

    results: list[Result] = []
    current, handed = text, None
    # The answers about a step's output tree (its op index, parents, the text of its nodes, kept
    # by `syntax.memo`) last into the next step, which starts from that tree; each step's engine
    # drops the rest once its phases are done. Answers that depend on a step's table say its step.
    with cycle_collector_off(), per_file():
        for n, step in enumerate(steps, 1):
            stages.step(step.name)
            # The output's tree goes on to the next step, which then does not parse the text again
            # (the engine's output tree is the parse of its output: tests/test_output_tree.py).
            # The safety net runs once, on the last step's output against the file's own text: a
            # read an earlier step left unbound is no less the migration's for being handed on.
            # a step before the target's that acted dates the file: the target's rules act whole
            def run(presumed: bool) -> Result:
                with presumed_current(presumed):
                    return migrate(current, step.rules, step.api, known_ids, strict=strict, handed=handed,
                                   hand_on=n < len(steps), net_source="" if n < len(steps) else text)

            presumed = step.presumed and not any(_acted(r) for r in results)
            result = run(presumed)
            if presumed and not _current(text, [*results, result], steps):
                # dated by one of the step's own evidence rules: the step again, as for old code
                # (its input tree is as it was handed: a migration builds new nodes, never edits)
                result = run(False)
            handed, result.handed = result.handed, None
            results.append(result)
            current = result.output
        del handed
    if steps[-1].presumed and _current(text, results, steps):
        return Result(text, text)
    final = results[-1]
    edits = list(results[0].edits)
    for i in range(1, len(results)):
        back = _back_map(results[i].source, text) if results[i].edits else {}
        edits += [e._replace(line=back.get(e.line, e.line)) for e in results[i].edits]
    findings = list(final.findings)
    seen = {(f.line, f.message) for f in findings}
    for i, result in enumerate(results[:-1]):
        errors = [f for f in result.findings if f.level == "error" and f.rule == "API"]
        if not errors:
            continue
        forward = _unchanged_lines(result.output, final.output)
        for f in errors:
            if NO_RETURN in f.message and not steps[-1].api.kernel_needs_output:
                continue  # only that step's compiler wants a kernel to return something
            line = forward.get(f.line)
            if line is not None and (line, f.message) not in seen:
                seen.add((line, f.message))
                findings.append(Finding(f.rule, line, f.column, f"at {steps[i].name}: {f.message}", f.level))
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    # The capacity figures are those of the step that still checks them (none, past a step
    # whose diagnostics are its own: see Rule.target_only).
    planned = [r for r, step in zip(results, steps) if r.kernels and any(not x.target_only for x in step.rules
                                                                         if x.params.get("plan") == "capacity")]
    last = planned[-1] if planned else final
    introduced, left = [], 0
    if staged and final.output != text:
        from ..check.introduced import narrowed_check

        introduced, left = narrowed_check(text.lstrip("\ufeff"), final.output.lstrip("\ufeff"), steps[-1].api)
    return Result(text, final.output, edits, findings, final.reviewed, last.kernels, last.over_budget, introduced, left)


def _unchanged_lines(a: str, b: str) -> dict[int, int]:
    """Lines of `a` that `b` still holds as they were: 1-based line in a -> line in b."""
    if a == b:
        return {n: n for n in range(1, a.count("\n") + 2)}
    out: dict[int, int] = {}
    for tag, i1, i2, j1, _j2 in line_opcodes(a.splitlines(), b.splitlines()):
        if tag == "equal":
            out.update({i1 + k + 1: j1 + k + 1 for k in range(i2 - i1)})
    return out


def _back_map(b: str, a: str) -> dict[int, int]:
    """Each line of `b` (a later step's input) to the line of `a` (the file) it came from, or
    the first line of the block a step rewrote."""
    out: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in line_opcodes(a.splitlines(), b.splitlines()):
        for k in range(j2 - j1):
            out[j1 + k + 1] = i1 + k + 1 if tag == "equal" else min(i1 + 1, i2) if i2 > i1 else i1 + 1
    return out
