"""The differential run on one kernel: its own era's compiler, the tool to each target, the
target's compiler, `verify`, a second run. Each (kernel, target) gets one `Verdict`.

Categories of a verdict, in the order they are decided:
- `source-refused`: the source's own compiler refuses it (a fault of the generator, not of
  the tool; counted apart);
- `internal`: the tool raised, or its compile worker reported an error of its own;
- `silent`: the target's compiler refuses the migration at a line with no open review marker
  (or names no line, or crashes);
- `verify`: `verify` says the migration computes something else (or cannot run it);
- `second-run`: migrating the migration changes it again;
- `marked`: refused, but every refusal stands under an open `# pypto-migrate: review` marker;
- `accepted`: none of the above.

Code written for the target itself (an `aug` kernel at 2026-08, a `mar` one at 2026-03: the
target's compiler is the source's own and accepted it) must come out byte for byte: any edit
is `harm`, and nothing else is asked. Code written for a later pypto than the target (an `aug`
kernel at 2026-03) that uses a `pl` name the target's API lacks must never be moved back: an
edit other than review markers is `harm`; left so, it is `newer` (a success) when a finding says
the code is newer than the target, `unsaid` (a failure) when none does. Such a kernel with no
name of its own era (`pl.exp` of a Tensor in an InCore function reads the same in February) is
judged as any other migration.
"""

from __future__ import annotations

import ast
import re
import traceback
from dataclasses import dataclass, field

from . import tool
from .compilers import CompilerGone, Compilers
from .gen import SOURCE_COMPILER, Kernel

CATEGORIES = ("accepted", "marked", "newer", "silent", "verify", "internal", "second-run", "harm", "unsaid",
              "source-refused")
SUCCESSES = ("accepted", "marked", "newer", "source-refused")
NEWER = re.compile(r"later pypto|newer than the target")  # how the tool says code is past the target


@dataclass
class Verdict:
    era: str
    target: str
    category: str
    detail: str = ""
    migrated: str = ""
    markers: int = 0
    findings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.category not in SUCCESSES

    def key(self) -> str:
        """The failure class: category and the message with its numbers and names blurred."""
        return f"{self.era}>{self.target} {self.category}: {blur(self.detail)}"


def blur(message: str) -> str:
    first = message.strip().splitlines()[0] if message.strip() else ""
    first = re.sub(r"/[^\s:'\"]+\.py(:\d+)*", "FILE", first)
    first = re.sub(r"'[A-Za-z_][A-Za-z0-9_]*'", "'NAME'", first)
    first = re.sub(r"`[^`]*`", "`X`", first)
    first = re.sub(r"np\.\w+\([^)]*\)", "VALUE", first)
    first = re.sub(r"\b(tensor|tile)\.[a-z_]+", r"\1.OP", first)
    first = re.sub(r"-?\b\d+(\.\d+)?(e-?\d+)?\b", "N", first)
    first = re.sub(r"\bv\d+\w*|\b(acc|first|nxt|lhs|rhs|c|n|r|g|h|q|m|p|t|d)v\d+\w*", "NAME", first)
    return first[:160]


def _errors(reply: dict) -> list[tuple[int | None, str]]:
    found = [(e.get("line"), e.get("message", "")) for e in reply.get("errors", [])]
    found += [(None, f"structure: {s.get('function', '')}: {s.get('message', s)}") for s in reply.get("structure", [])]
    return found


def source_ok(kernel: Kernel, compilers: Compilers) -> tuple[bool | None, str]:
    """Whether the source's own compiler accepts it (None: no compiler for that era here)."""
    name = SOURCE_COMPILER[kernel.era]
    if name is None or not compilers.have(name):
        return None, ""
    if name == "2026-05-26":
        reply = compilers.get(name).check_source(kernel.text)
        if "rc" not in reply:
            return False, reply.get("crash") or reply.get("internal") or str(reply)
        return reply["rc"] == 0, reply.get("message", "")
    reply = compilers.get(name).compile_target(kernel.text, name)
    errors = _errors(reply)
    if "internal" in reply or "crash" in reply:
        return False, reply.get("internal") or reply.get("crash")
    return not errors, "; ".join(m for _, m in errors)


def judge(kernel: Kernel, target: str, compilers: Compilers, source: tuple[bool | None, str] | None = None) -> Verdict:
    era = kernel.era
    ok, why = source if source is not None else source_ok(kernel, compilers)
    if ok is False:
        return Verdict(era, target, "source-refused", why)
    try:
        migration = tool.migrate(kernel.text, target)
    except Exception as exc:  # noqa: BLE001 - the tool's own failure is the finding
        return Verdict(era, target, "internal", f"migrate raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}")
    out = migration.output
    markers = out.count(tool.REVIEW)
    if target == SOURCE_COMPILER[era]:  # written for this target, and its compiler accepted it
        if out != kernel.text:
            return Verdict(era, target, "harm", _first_change(kernel.text, out), out, markers, migration.said)
        return Verdict(era, target, "accepted", migrated=out, findings=migration.said)
    newer = newer_names(kernel.text, target, SOURCE_COMPILER[era])
    if newer:
        if tool.without_markers(out) != tool.without_markers(kernel.text):
            detail = _first_change(tool.without_markers(kernel.text), tool.without_markers(out))
            return Verdict(era, target, "harm", f"moved back: {detail}", out, markers, migration.said)
        if not any(NEWER.search(said) for said in migration.said):
            return Verdict(era, target, "unsaid", f"uses {', '.join(sorted(newer))} of a later pypto; no finding says so",
                           out, markers, migration.said)
        return Verdict(era, target, "newer", migrated=out, markers=markers, findings=migration.said)
    verdict = Verdict(era, target, "accepted", migrated=out, markers=markers, findings=migration.errors)
    if compilers.have(target):
        try:
            reply = compilers.get(target).compile_target(out, target)
        except CompilerGone as exc:
            return Verdict(era, target, "internal", str(exc), out, markers)
        if "internal" in reply:
            return Verdict(era, target, "internal", f"compile worker: {reply['internal']}", out, markers)
        if "crash" in reply:
            return Verdict(era, target, "silent", f"compiler crash: {reply['crash']}", out, markers)
        errors = _errors(reply)
        unmarked = [(line, msg) for line, msg in errors if line is None or not tool.marked(out, line)]
        if unmarked:
            line, msg = unmarked[0]
            return Verdict(era, target, "silent", f"{msg} (line {line})", out, markers)
        if errors:
            verdict.category = "marked"
            verdict.detail = errors[0][1]
    try:
        equal, said = tool.verify(kernel.text, out, target)
    except Exception as exc:  # noqa: BLE001
        return Verdict(era, target, "internal", f"verify raised {type(exc).__name__}: {exc}", out, markers)
    if not equal:
        return Verdict(era, target, "verify", said, out, markers)
    try:
        again = tool.migrate(out, target).output
    except Exception as exc:  # noqa: BLE001
        return Verdict(era, target, "internal", f"second run raised {type(exc).__name__}: {exc}", out, markers)
    if again != out:
        return Verdict(era, target, "second-run", _first_change(out, again), out, markers)
    return verdict


def _first_change(a: str, b: str) -> str:
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {i}: {_edit(x.strip(), y.strip())}"
    return "the line count changed"


def _edit(x: str, y: str, context: int = 12) -> str:
    """What changed in a line, with a little of what stands around it: a long signature line
    whose annotation changed names its failure class by the change, not by its dtypes."""
    head = 0
    while head < min(len(x), len(y)) and x[head] == y[head]:
        head += 1
    tail = 0
    while tail < min(len(x), len(y)) - head and x[len(x) - 1 - tail] == y[len(y) - 1 - tail]:
        tail += 1
    start = max(0, head - context)
    return f"{x[start:len(x) - tail]!r} -> {y[start:len(y) - tail]!r}"


def newer_names(text: str, target: str, own: str | None) -> set[str]:
    """The `pl` members a text uses (`at`, `jit`, `tile.sin`) that the target's API table lacks
    and the table of the source's own version has: evidence it was written after the target."""
    if own not in tool.TARGETS or tool.TARGETS.index(own) <= tool.TARGETS.index(target):
        return set()
    there, here = tool.api(target), tool.api(own)
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and here.subscript_store and not there.subscript_store:
            # a store by subscript into a Tensor parameter (`out[0:T, :] = v`)
            tensors = {a.arg for a in node.args.args if isinstance(a.annotation, ast.Subscript)
                       and ast.unparse(a.annotation.value) in ("pl.Tensor", "pl.Out", "pl.InOut")}
            if any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                                                    and t.value.id in tensors for t in n.targets)
                   for n in ast.walk(node)):
                found.add("[]=")
        if isinstance(node, ast.Call):
            # a keyword the target's signature lacks and the source's version has (`b_trans=`),
            # or more positional arguments than the target's signature takes (`rem(a, b, tmp)`)
            name = ast.unparse(node.func)
            op = name[3:] if name.startswith("pl.") else ""
            old, new = there.ops.get(op), here.ops.get(op)
            n = len(node.args)
            if old is not None and old.params and new is not None and len(old.params) < n <= len(new.params) \
                    and not any(isinstance(a, ast.Starred) for a in node.args):
                found.add(f"{op}(#{n})")
            for kw in node.keywords:
                if old is not None and old.params and new is not None and kw.arg \
                        and kw.arg not in old.params and kw.arg in new.params:
                    found.add(f"{op}({kw.arg}=)")
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not parts or not isinstance(node, ast.Name) or node.id != "pl":
            continue
        parts.reverse()
        key = ".".join(parts[:2]) if parts[0] in ("tile", "tensor") and len(parts) > 1 else parts[0]
        if not there.exists(key) and here.exists(key):
            found.add(key)
    return found


def judge_all(kernel: Kernel, compilers: Compilers) -> list[Verdict]:
    source = source_ok(kernel, compilers)
    return [judge(kernel, target, compilers, source) for target in kernel.targets]
