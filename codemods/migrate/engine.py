"""Migrate one source text: one LibCST traversal per phase serves every selected rule.

Data flows one way: text -> CST -> rules (edits, statement edits, flags) -> new tree and
its text -> CPython's parser checks the text -> findings read off the new tree and text
(`codemods.check.findings`).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple
from collections.abc import Callable
from functools import lru_cache

import libcst as cst

from ..text.diffs import restore_untouched
from ..check.strict import rejects_any
from ..check.findings import MARKER, scan
from ..syntax.codegen import CodegenError, code_for_node
from ..syntax.memo import forget, per_file
from ..syntax.positions import Printed, code_starts_and_texts, standalone
from ..syntax.rewrite import rewrite
from ..syntax.trusted import parse_module
from ..check.results import Edit, EngineError, Result, SourceError
from ..rulebook.loading import ApiTable, Rule
from ..syntax.traversal import STATEMENT_TYPES, ancestors, made_from, statements_below
from . import stages
from .collector import cycle_collector_off
from .context import Context
from .parsing import check_python, parse, reason
from .statement_edits import Preparsed, prepend_statements, with_markers
from ..steps import make_transform

BOM = "\ufeff"


Hook = Callable[[cst.CSTNode, cst.CSTNode, Context], cst.CSTNode | None]


class _Dispatcher(cst.CSTTransformer):
    def __init__(self, module: cst.Module, rules: tuple[Rule, ...], api: ApiTable, text: str | None = None) -> None:
        super().__init__()
        self.ctx = Context(module, api, text)
        self.touched: list[tuple[Rule, cst.CSTNode]] = []
        # Before/after of each touched node, for reports; None or a `_Later`: read off the code
        # generation of the phase's input or output tree, which places the edits anyway.
        self._texts: list[tuple[str | None, str | _Later]] = []
        self.marked = False  # a review marker was written (a change that touches no node)
        self._orphans: list[list[cst.EmptyLine]] = []  # comments of removed statements, per open block
        self.leave: dict[str, list[tuple[Rule, Hook]]] = {}
        self.visit: dict[str, list[Callable[[cst.CSTNode, Context], None]]] = {}
        transforms = [make_transform(rule, api) for rule in rules]
        for rule, transform in zip(rules, transforms):
            begin = getattr(transform, "begin", None)
            if begin is not None:
                begin(self.ctx)
            idle = getattr(transform, "idle", None)
            if idle is not None and idle():
                continue  # a rule that says its hooks have nothing to do at any node
            for attr in _hooks(type(transform)):
                kind, _, node_type = attr.partition("_")
                if not node_type[:1].isupper():
                    continue
                if kind == "leave" and node_type:
                    self.leave.setdefault(node_type, []).append((rule, getattr(transform, attr)))
                elif kind == "visit" and node_type:
                    self.visit.setdefault(node_type, []).append(getattr(transform, attr))
        self.enter = self._subtrees_to_enter(module, transforms)
        self._transforms = transforms
        self._statements = Preparsed([text for edits in self.ctx.statement_edits.values()
                                      for _, where, text in edits if where != "remove"])

    def release(self) -> None:
        """Drop the rules' state once the traversal is done. A rule's decisions are callbacks that
        close over the rule, a reference cycle through everything it planned: left to the cycle
        collector (off while a file is migrated), each phase's trees lived to the end of the file
        and the collection after it went over millions of objects (a second of a 0.7 MB file)."""
        for transform in self._transforms:
            vars(transform).clear()
        self._transforms = []
        self.leave, self.visit = {}, {}

    def _touch(self, rule: Rule, node: cst.CSTNode, before: str | None, after: str | _Later) -> None:
        self.touched.append((rule, node))
        self._texts.append((before, after if isinstance(after, _Later) else after.strip()))

    def _after(self, result) -> str | _Later:
        """The code of a hook's result; a `_Later` where the nodes print alone as in the output
        tree, whose code generation then gives their text (a wrapped loop is not printed twice)."""
        if isinstance(result, cst.FlattenSentinel):
            nodes = tuple(result.nodes)
        elif isinstance(result, cst.CSTNode) and not isinstance(result, cst.Annotation):
            nodes = (result,)
        else:
            return self._code(result)
        if not all(standalone(type(n)) for n in nodes):
            return self._code(result)
        return _Later(nodes)

    def later(self) -> list[cst.CSTNode]:
        """The result nodes whose text is to be read off the output's code generation."""
        return [n for _, now in self._texts if isinstance(now, _Later) for n in now.nodes]

    def _before(self, node) -> str | None:
        """The code of a node of the phase's input tree; None: read off the code generation
        that places the phase's edits (a loop a rule wraps is not printed twice more)."""
        return None if standalone(type(node)) else self._code(node)

    def texts(self, printed: dict[int, str], printed_after: dict[int, str], output: Printed | None = None
              ) -> list[tuple[str, str]]:
        """Before and after of each touched node, `printed` filling the befores left open and
        `printed_after` the afters (a node not found there, replaced again, is printed alone).
        `output`: the output printed whole, where it was."""
        out, relined = [], _Relined(output, self._code)
        for (_, node), (was, now) in zip(self.touched, self._texts):
            if was is None:  # a node printed only inside its parent was not recorded: print it alone
                was = printed[id(node)] if id(node) in printed else self._code(node)
            if isinstance(now, _Later):
                now = "".join(printed_after[id(n)] if id(n) in printed_after else relined.text(n) for n in now.nodes).strip()
            out.append((was.strip(), now))
        return out

    def _code(self, node) -> str:
        if isinstance(node, cst.FlattenSentinel):
            return "".join(self._code(n) for n in node.nodes)
        if isinstance(node, cst.RemovalSentinel):
            return ""
        if isinstance(node, cst.Annotation):  # alone it has no `:` or `->` to print
            node = node.annotation
        try:
            return code_for_node(node, self.ctx.module)
        except CodegenError:  # a node that prints only inside its parent: no text, never a failed file
            return ""

    def _subtrees_to_enter(self, module: cst.Module, transforms: list) -> set[int] | None:
        """The nodes below which some hook may act: the traversal skips every other subtree,
        which LibCST then neither rebuilds nor calls back for (most of a file, trivia first).
        A kind says where its hooks may act with `interest(ctx)`; without it, all is entered."""
        if self.visit or not all(hasattr(t, "interest") for t in transforms):
            return None
        wanted = {id(n) for n in self.ctx.statement_edits} | {id(n) for n in self.ctx.node_flags}
        for transform in transforms:
            wanted.update(id(n) for n in transform.interest(self.ctx))
        return ancestors(module, wanted)

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Exact types (LibCST's node classes are final): `isinstance` on them goes through
        # ABCMeta, and these run for every node the traversal enters.
        if type(node) in _BLOCKS:
            self._orphans.append([])
        if type(node) in STATEMENT_TYPES:
            self.ctx.open_statements.append(node)
        for hook in self.visit.get(type(node).__name__, ()):
            hook(node, self.ctx)
        return self.enter is None or id(node) in self.enter

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[override]
        try:
            return self._leave(original, updated)
        finally:
            if self.ctx.open_statements and self.ctx.open_statements[-1] is original:
                self.ctx.open_statements.pop()

    def _leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        for rule, hook in self.leave.get(type(original).__name__, ()):
            try:
                result = hook(original, updated, self.ctx)
            except (SourceError, RecursionError):
                raise
            except Exception as exc:  # a bug in a rule must not look like the user's fault
                line, column = self.ctx.position(original)
                raise EngineError(f"engine error: rule {rule.id} failed here: {type(exc).__name__}: {exc}", line, column) from exc
            if result is not None and result is not updated:
                self._touch(rule, original, self._before(original), self._after(result))
                updated = result
        if type(updated) in STATEMENT_TYPES:
            flags = [(rule, original, message) for rule, message in self.ctx.node_flags.get(original, ())]
            flags += self.ctx.flags
            self.ctx.flags = []
            if flags:
                marked = with_markers(updated, flags)
                if marked is not updated:
                    updated, self.marked = marked, True
        edits = self.ctx.statement_edits.get(original)
        if edits:
            updated = self._apply_statement_edits(original, updated, edits)
        if type(original) in STATEMENT_TYPES:
            updated = self._adopt_orphans(updated)
        elif type(original) in _BLOCKS:
            orphans = self._orphans.pop()
            if orphans:  # the block's last statement went: its comments stay at the block's end
                updated = updated.with_changes(footer=[*orphans, *updated.footer])
        return updated

    def _adopt_orphans(self, updated):
        """A removed statement's comments and blank lines go to the next statement of its block."""
        if not self._orphans or not self._orphans[-1]:
            return updated
        if isinstance(updated, cst.RemovalSentinel):
            return updated
        lines, self._orphans[-1] = self._orphans[-1], []
        if isinstance(updated, cst.FlattenSentinel):
            first, *rest = list(updated.nodes)
            return cst.FlattenSentinel([first.with_changes(leading_lines=[*lines, *first.leading_lines]), *rest])
        return updated.with_changes(leading_lines=[*lines, *updated.leading_lines])

    def _apply_statement_edits(self, original, updated, edits):
        before, after, prepend, remove = [], [], [], False
        for rule, where, text in edits:
            self._touch(rule, original, self._before(original) if where == "remove" else "", "" if where == "remove" else text)
            if where == "remove":
                remove = True
            elif where == "prepend":
                prepend.extend(self._statements.statements(text))
            else:
                (before if where == "before" else after).extend(self._statements.statements(text))
        if prepend:
            updated = prepend_statements(updated, prepend)
        if not (before or after or remove):
            return updated
        if before and not remove:
            # The statement's own comments and blank lines stay above everything inserted;
            # review markers stay right above the statement they are about.
            lines = list(updated.leading_lines)
            split = len(lines)
            while split and lines[split - 1].comment and MARKER.search(lines[split - 1].comment.value):
                split -= 1
            before[0] = before[0].with_changes(leading_lines=[*lines[:split], *before[0].leading_lines])
            updated = updated.with_changes(leading_lines=lines[split:])
        middle = [] if remove else [updated]
        if remove:
            kept = [line for line in updated.leading_lines if not (line.comment and MARKER.search(line.comment.value))]
            target = before[0] if before else None
            if target is not None:
                before[0] = target.with_changes(leading_lines=[*kept, *target.leading_lines])
            elif self._orphans:
                self._orphans[-1].extend(kept)
        if not (before or after):
            return cst.RemovalSentinel.REMOVE
        return cst.FlattenSentinel([*before, *middle, *after])


_BLOCKS = frozenset({cst.IndentedBlock, cst.Module})


class _Relined:
    """The code of a statement a rule made that the output holds with other leading lines only
    (a review marker written above it, a block unwrapped around it that gave it its comments):
    a statement's code is its leading lines' and then the rest's, so the rest is read off the
    output's print of the statement that holds the same fields, and this one's lines put before
    it. Anything else, or without the output printed whole, is printed alone."""

    def __init__(self, output: Printed | None, code: Callable[[cst.CSTNode], str]) -> None:
        self.output, self.code = output, code
        self.by_body: dict[int, cst.CSTNode] | None = None

    def text(self, node) -> str:
        if self.output is not None and type(node) in STATEMENT_TYPES:
            if self.by_body is None:  # the output's statements by the body each holds
                self.by_body = {id(s.body): s for s in statements_below(self.output.module)}
            other = self.by_body.get(id(node.body))
            if other is not None and other is not node and type(other) is type(node) and all(
                    getattr(other, name) is getattr(node, name) for name in _but_lines(type(node))):
                whole = self.output.texts([other]).get(id(other))
                lines = self._lines(other)
                if whole is not None and whole.startswith(lines):
                    return self._lines(node) + whole[len(lines):]
        return self.code(node)

    def _lines(self, statement) -> str:
        return "".join(self.code(line) for line in statement.leading_lines)


@lru_cache(maxsize=None)
def _but_lines(kind: type) -> tuple[str, ...]:
    """A statement class's fields but its leading lines."""
    return tuple(f.name for f in dataclasses.fields(kind) if f.name != "leading_lines")


class _Later(NamedTuple):
    """An edit's after-text still to be read off the output tree's code generation."""

    nodes: tuple[cst.CSTNode, ...]


@lru_cache(maxsize=None)
def _hooks(kind: type) -> tuple[str, ...]:
    return tuple(attr for attr in dir(kind) if attr.startswith(("leave_", "visit_")))


def migrate(
    text: str, rules: tuple[Rule, ...], api: ApiTable, known_ids: frozenset[str], strict: bool = False,
    staged: bool = False, handed: Handed | None = None, hand_on: bool = False, net_source: str | None = None,
) -> Result:
    """Apply `rules` to one file's text. Raises SourceError for bad input, EngineError for bad rules.

    With `strict`, the output is also checked against the target API by `codemods.check.strict`,
    which did not write it; what it finds is reported as errors at the output's lines. With
    `staged` (a narrowed rule set), a changed output is checked against the input
    (`codemods.check.introduced`) on the trees the migration built: `Result.introduced`,
    `Result.still_rejected`. `handed`: the text's own tree (and print), where the caller has
    it: the output of the version step before, handed on with `hand_on` as `Result.handed`.
    The text is then not parsed (nor printed) again. `net_source`: the text the safety net holds
    the output against (default: `text`; "": no net, for a version step that is not the last,
    whose output the last step's net sees through the file's own text).
    """
    # The file's answers and trees are dropped before the collector is back on (see `collector`).
    with cycle_collector_off(), per_file():
        return _migrate(text, rules, api, known_ids, strict, staged, handed, hand_on, net_source)


class Handed(NamedTuple):
    """What one version step hands the next (`Result.handed`): its output's tree, and that
    tree printed whole where the last phase printed it so (None: not)."""

    tree: cst.Module
    printed: Printed | None = None


def _migrate(text: str, rules: tuple[Rule, ...], api: ApiTable, known_ids: frozenset[str], strict: bool,
             staged: bool = False, handed: Handed | None = None, hand_on: bool = False,
             net_source: str | None = None) -> Result:
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom):]
    if api.module.split(".")[0] not in body:
        # Without the word "pypto" nothing can name the module, and no marker can stand:
        # no rule has anything to do. Still a file that is not Python is reported.
        check_python(body)
        return Result(text, text)
    stages.stage("parsing")
    module = handed.tree if handed is not None else parse(body)
    done = _phases(module, body, rules, api, handed.printed if handed is not None else None, hand_on)
    had = None  # a staged run's input errors, read while the input's tree and print are at hand
    if staged and done.output is not None:
        from ..check.introduced import input_errors

        had = input_errors(module, body, api, done.printed)
    done = done._replace(printed=None)
    checked: tuple[str, cst.Module] | None = None  # the output and its tree, where the loop below checked it
    for _ in range(2):
        # A migration can leave code the target rejects where it changed a value's kind (a Tile
        # handed over as a Tensor is read by a tile op of a region that had nothing to fix): the
        # phases run again on their output until it holds no rejection they can remove, so that
        # a second run of the tool has nothing left to do.
        if done.output is None or not any(r.phase >= 1 for r in rules):
            break
        again_module = _output_tree(done)
        if again_module is None:
            break  # said below, as the engine error it is
        stages.stage("checking")
        if not rejects_any(again_module, api):
            checked = (done.output, again_module)
            break
        again = _phases(again_module, done.output, rules, api, done.out_print, hand_on)
        if again.output is None or again.output == done.output:
            break
        done = _Done(done.roundtrip, again.output, done.edits + again.edits, done.touched | again.touched,
                     again.kernels, again.over_budget, again.tree, out_print=again.out_print)
    if done.output is None:
        out_module, output = module, done.roundtrip
    else:
        # Only the output's text and tree leave the phases: the other trees they built (and
        # what was remembered about them) are freed, which bounds the peak.
        del module
        reused = checked[1] if checked is not None and checked[0] == done.output else _output_tree(done)
        forget(keep=reused)  # what the check above found in the output is the findings' to read
        output = done.output
        try:
            out_module = reused if reused is not None else parse_module(output)
        except cst.ParserSyntaxError as exc:
            raise EngineError(
                f"engine error: rule(s) {', '.join(sorted(done.touched))} produced code that does not parse ({reason(exc)}); "
                "the file was left as it was",
                exc.editor_line,
                exc.editor_column,
            )
    roundtrip = done.roundtrip
    if roundtrip != body:
        restored = restore_untouched(body, roundtrip, output)
        if restored != output:
            output, out_module = restored, parse(restored, "output")
    caught: list = []
    against = body if net_source is None else net_source.lstrip("\ufeff")
    if had is None and against and output != against:
        # The safety net of a full run: what no rule looks for, caught before anything is written
        from .safety_net import guard

        guarded, caught = guard(against, output, out_module, rules, api)
        if guarded != output:
            output, out_module = guarded, parse(guarded, "output")
    stages.stage("checking")
    findings, reviewed = scan(out_module, output, api, known_ids, strict)
    if caught:
        findings = sorted(findings + caught, key=lambda f: (f.line, f.column, f.rule))
    introduced, left = [], 0
    if had is not None and output != body:
        from ..check.introduced import staged_check

        introduced, left = staged_check(body, had, output, out_module, api)
    handing = None
    if hand_on:
        printed = done.out_print if done.out_print is not None and done.out_print.module is out_module else None
        handing = Handed(out_module, printed)
    return Result(text, bom + output, done.edits, findings, reviewed, done.kernels, done.over_budget, introduced, left,
                  handing)


def _output_tree(done: _Done) -> cst.Module | None:
    """The tree of the phases' output, as the findings and the re-run read it: the tree the
    last phase built, once CPython's parser accepts its code (LibCST's parser would build the
    same tree again, `tests/test_engine.py` holds them equal on every fixture and the corpus).
    None: the output does not parse, an engine error."""
    try:
        check_python(done.output, "output")
    except SourceError:
        return None
    return done.tree


class _Done(NamedTuple):
    """What the phases leave behind: text and figures, and the tree of the output."""

    roundtrip: str  # the code LibCST makes of the input (restored later where no rule wrote)
    output: str | None  # None: nothing changed
    edits: list[Edit]
    touched: set[str]
    kernels: int
    over_budget: int
    tree: cst.Module | None = None  # the tree whose code is `output`
    printed: Printed | None = None  # the input's tree printed whole, where a phase printed it
    out_print: Printed | None = None  # `tree` printed whole, where the caller asked for it (`print_out`)


def _phases(module: cst.Module, body: str, rules: tuple[Rule, ...], api: ApiTable, input_printed: Printed | None = None,
            print_out: bool = False) -> _Done:
    """Each phase is one traversal serving all of its rules. Rules that restructure kernel
    regions run first; the type-directed ones then plan on the restructured tree, used as
    the transform left it, as is the output's tree the findings are read from (the caller
    has CPython's parser check its text: the safety check of every rule). `input_printed`: the
    input printed whole, where the caller has that print; `print_out`: the output is printed
    whole too (`_Done.out_print`), for a next step to start from."""
    tree, text_of_tree = module, None
    roundtrip = None
    edits: list[Edit] = []
    touched: set[str] = set()
    plan = None
    phases = sorted({r.phase for r in rules})
    printed_tree: Printed | None = input_printed  # `tree` printed whole by the phase before, when it was
    input_print: Printed | None = None  # the input printed whole (a staged run places its errors with it)
    for n, phase in enumerate(phases, 1):
        stages.stage(f"rewriting, pass {n} of {len(phases)}")
        # The planner takes the words of the tree's code; for the input those of the file
        # itself (LibCST's round trip can lose whitespace, never a word).
        dispatcher = _Dispatcher(tree, tuple(r for r in rules if r.phase == phase), api, text_of_tree or body)
        new_tree = rewrite(tree, dispatcher)
        dispatcher.release()
        plan = dispatcher.ctx._plan or plan
        if not (dispatcher.touched or dispatcher.marked):
            continue  # nothing written: the tree is as it was
        # One code generation of the phase's input places its edits (and, for the input
        # itself, is the round trip); the previous phase's output, printed whole, is that input.
        nodes = [node for _, node in dispatcher.touched]
        unprinted = [node for node, (was, _) in zip(nodes, dispatcher._texts) if was is None]
        stages.stage(f"printing, pass {n} of {len(phases)}")
        if printed_tree is None or printed_tree.module is not tree:
            printed_tree = Printed(tree)
        source = printed_tree
        before, where, printed = printed_tree.code, printed_tree.starts(nodes), printed_tree.texts(unprinted)
        # The phase's output shares most statements with its input: their text is copied from it.
        output = None  # the output printed whole, where it is
        if phase == phases[-1] and not print_out:
            new_text, _, printed_after = code_starts_and_texts(new_tree, (), dispatcher.later(), printed_tree)
        else:  # printed whole: the next phase edits it
            printed_tree = Printed(new_tree, printed_tree)
            new_text, printed_after = printed_tree.code, printed_tree.texts(dispatcher.later())
            output = printed_tree
        edits += [  # a node a rule rebuilt as it was is no edit (PTO183 re-wrote a block of statements it left alone)
            Edit(rule.id, *where[id(node)], rule.safety, was, now)
            for (rule, node), (was, now) in zip(dispatcher.touched, dispatcher.texts(printed, printed_after, output))
            if was != now
        ]
        touched.update(rule.id for rule, _ in dispatcher.touched)
        if tree is module:
            roundtrip, input_print = before, source
        if new_text != before:
            made_from(new_tree, tree)
            tree, text_of_tree = new_tree, new_text
    kernels = len(plan.region_plans) if plan is not None else 0
    over = sum(rp.over_limit for rp in plan.region_plans) if plan is not None else 0
    out_print = printed_tree if print_out and printed_tree is not None and printed_tree.module is tree else None
    return _Done(roundtrip if roundtrip is not None else module.code, text_of_tree, edits, touched, kernels, over,
                 tree if text_of_tree is not None else None, input_print, out_print)
