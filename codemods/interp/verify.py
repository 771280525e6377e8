"""`pypto-migrate verify`: does a migration compute what the original computed?

Both programs are built at the same small sizes and run on the same inputs, the original
in the old profile and the migration in the strict one, each with its own uninitialised
memory; every Tensor they may write (returned, Out, InOut) is compared with its dtype's
tolerance. Exit codes: 0 equivalent, 1 a mismatch or an execution error, 2 sizes that do
not fit the kernel (a name --set does not know, a guard refusing them), 3 equivalent on the
valid region only, where the original masked the rest with `valid_shape`.
"""

from __future__ import annotations

import ast
import re
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..rulebook.loading import ApiTable
from . import execute
from .execute import Settings
from . import package, sizing
from .memory import NotModelled
from .sources import CannotLoad, NotAKernel, SetupError, SizeError, builders, module_names
from .ops import HEAD, OLD, STRICT, Machine
from .values import KernelError

EQUIVALENT, MISMATCH, SETUP, MASKED = 0, 1, 2, 3


@dataclass
class Verdict:
    code: int
    message: str
    sizes: dict[str, int] = field(default_factory=dict)  # the sizes verify chose itself (not --set)


def verify(original: tuple[str, str], migrated: tuple[str, str], settings: Settings, api: ApiTable,
           target: str | None = None, progress=None) -> Verdict:
    """`original` and `migrated` are (path, text) pairs; `api` is the oldest step's table (the
    original runs with the old meaning), the migration runs with the meaning of the `target`
    version (its table's `profile`; None: the newest step).

    Where the file's own sizes are too large to run, smaller ones are chosen from the code
    (`sizing`); `--set` names stay as given. `progress`, a callable taking a line, hears which
    sizes and, when a run takes more than a moment, which stage is running."""
    trees = []
    for path, text in (original, migrated):
        try:
            trees.append(ast.parse(text, path))
        except SyntaxError as exc:
            return Verdict(SETUP, f"{path}:{exc.lineno or 1}:{exc.offset or 1}: not Python: {exc.msg}")
    for (path, _), tree in zip((original, migrated), trees):
        problem = _not_a_kernel(tree)
        if problem:
            return Verdict(SETUP, f"{path}: {problem}")
    settings = settings.merged_over(original[1])
    say = progress or (lambda line: None)
    failed_at = None
    with _Heartbeat(say) as beat:
        beat.stage = "choosing sizes from the code"
        try:
            candidates = _candidates(trees, settings, original, migrated, api)
        except SizeError as exc:
            return Verdict(SETUP, str(exc))
        for i, (sizes, sets) in enumerate(candidates):
            if sizes:
                say("verify: sizes chosen from the code (the file's own are too large to run): "
                    + _said(sizes) + "; --set NAME=VALUE overrides")
            verdict, original_failed = _verify_at(original, migrated, _with(settings, sets), api, target, beat)
            verdict.sizes = sizes
            where = verdict.message.split(": ", 1)[0]
            slow = time.monotonic() - beat.started > _RETRY_WITHIN_S
            if not (original_failed and sizes and i + 1 < len(candidates)) or where == failed_at or slow:
                return verdict  # a failure at the same place at larger sizes is not the sizes' doing
            failed_at = where
            say(f"verify: the original does not run at these sizes ({verdict.message}); trying larger ones")
    return verdict


def _not_a_kernel(tree: ast.Module) -> str | None:
    """Why this module cannot be run as a kernel, from its text alone (None: it may be one)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("program", "jit") or (
                isinstance(node, ast.Name) and node.id in ("program", "jit")):
            return None
    return "not a kernel file: it defines no @pl.program class, builder function or @pl.jit function"


_RETRY_WITHIN_S = 5.0  # larger sizes are tried only when the smallest ran quickly


def _imports_only_pl(node: ast.stmt) -> bool:
    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
    return all(n.split(".")[0] in ("pypto", "__future__", "os", "sys", "math", "typing") for n in names)


def _candidates(trees: list[ast.Module], settings: Settings, original, migrated, api) -> list[tuple[dict, dict]]:
    """Sizes to run at, smallest first: (what to say, the `--set` values that apply them)."""
    fixed = {}
    for name, value in settings.sets.items():
        try:
            fixed[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            pass
    both = None
    for tree in trees:
        names = module_names(tree) | _builder_parameters(tree)
        both = names if both is None else both & names
    known, kernels, namespaces = None, set(), {}
    if any(isinstance(n, (ast.Import, ast.ImportFrom)) and not _imports_only_pl(n) for n in trees[0].body):
        # Sizes computed from what the module imports (`D = M.hidden_size`): their values once it ran.
        known, kernels, namespaces = execute.module_values(original[0], original[1], Machine(OLD, api, 0, "zero"))
    if kernels or any("." in name for name in fixed):
        return _package_candidates(trees, fixed, both, namespaces, original, migrated)
    choice = sizing.choose(trees[0], fixed, both, known)
    return [(sizes, sizes) for sizes in choice.candidates] or [({}, {})]


def _package_candidates(trees, fixed, both, namespaces, original, migrated) -> list[tuple[dict, dict]]:
    """Its kernels call kernels of the modules beside it, built at those modules' own sizes:
    the sizes are chosen across all of them (`package`), each module's constants applied to it."""
    whole = package.build(original[0], trees[0], namespaces)
    other = package.siblings(migrated[0], trees[1])
    allowed = {m for m in whole.display if whole.origin.get(m, ("", ""))[0] == "" and m in both} | whole.sources
    for module, tree in package.siblings(original[0], trees[0]).items():
        if module in other:
            allowed |= {whole.assigned[module][n] for n in module_names(tree) & module_names(other[module])}
    merged = {}
    for name, value in fixed.items():
        target = whole.merged(name)
        if target is None:
            raise SizeError(f"{original[0]}: --set {name}: no module constant of that name in the file or the modules "
                            "it imports from its folder")
        merged[target] = value
    choice = sizing.choose(whole.tree, merged, allowed, whole.known, descend=True)
    model = choice.model
    if choice.candidates and not fixed and (cost := model.cost(choice.candidates[0])) > sizing.PACKAGE_LIMIT:
        # Measured on the DeepSeek-V4 layers: at a cost of 6e7 a package runs in 3 to 7 s, from
        # 1e8 in 12 to 50 s; better no verdict, said at once, than one past any patience.
        raise SizeError(f"{original[0]}: the smallest sizes verify finds across the modules it imports still cost "
                        f"{cost:.2g} (its limit: {sizing.PACKAGE_LIMIT:.0e}); give small sizes with --set "
                        "(`--set module.NAME=VALUE` for a module's constant)")
    out = []
    for sizes in choice.candidates or [{}]:
        # A conditional constant (`128 if T >= 64 else 256`) keeps the value chosen for it even
        # where the test's truth changed.
        sets = whole.runtime_sets(model.env(sizes), {**model.own, **whole.known}, model.conditional) \
            if model is not None and sizes else {}
        shown = {whole.display.get(k, k): v for k, v in sizes.items()}
        out.append((shown, sets))
    return out


def _builder_parameters(tree: ast.Module) -> set[str]:
    found = set(builders(tree))
    return {a.arg for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in found
            for a in n.args.args + n.args.kwonlyargs}


def _said(sizes: dict) -> str:
    """The kernel file's sizes first, then each module's it imports (`module.NAME=VALUE`)."""
    mine = [f"{k}={v}" for k, v in sizes.items() if "." not in k]
    by_module: dict[str, list[str]] = {}
    for k, v in sizes.items():
        if "." in k:
            by_module.setdefault(k.split(".")[0], []).append(f"{k}={v}")
    return " ".join(mine + [w for m in sorted(by_module) for w in by_module[m]])


def _with(settings: Settings, sizes: dict[str, int]) -> Settings:
    # A module's size given as `module.NAME` reached `sizes` through the package's choice.
    given = {k: v for k, v in settings.sets.items() if "." not in k}
    return replace(settings, sets={**{k: str(v) for k, v in sizes.items()}, **given})


def _verify_at(original, migrated, settings: Settings, api: ApiTable, target: str | None, beat) -> tuple[Verdict, bool]:
    """The verdict at these sizes, and whether it is the original that failed (then larger
    sizes, if verify chose these, may run where these do not)."""
    try:
        goal = _target_api(api, target)
        # Across versions the parameters' directions changed meaning: each written one is compared.
        across = goal.profile != STRICT
        beat.stage = f"running the original {original[0]} (old profile)"
        try:
            first = _run(original, OLD, settings, api, seed=2 * settings.seed + 1, parameters=across)
        except _Failed as failed:
            verdict = _failure(failed)
            if isinstance(failed.__cause__, CannotLoad):
                verdict.code = SETUP  # the original itself cannot be run here (a module it imports is missing)
            # Only what sizes decide (a window out of bounds, a shape, a guard) may pass at larger
            # ones; an op the interpreter lacks fails at any.
            return verdict, isinstance(failed.__cause__, (KernelError, SizeError))
        inputs, outputs_a, masked = first
        beat.stage = f"running the migration {migrated[0]} ({goal.profile} profile)"
        second = _run(migrated, goal.profile, settings, goal, seed=2 * settings.seed + 2,
                      inputs=inputs, parameters=across)
        _, outputs_b, _ = second
    except _Failed as failed:
        return _failure(failed), False
    beat.stage = "comparing the outputs"
    if settings.poison == "nan":
        for label, outputs in (("original", outputs_a), ("migration", outputs_b)):
            for name, t in sorted(outputs.items()):
                bad = ~np.isfinite(t.data.astype(np.float64)) & t.written
                if bad.any():
                    at = [int(i) for i in np.argwhere(bad)[0]]
                    return Verdict(MISMATCH, f"NaN reached `{name}` at {at} in the {label}: memory was read before it was "
                                             "written; a zero-init by multiplying by 0.0 does not clear NaN or Inf garbage "
                                             "(pl.tile.full(shape, dtype, value=0.0) does)"), False
    return compare(outputs_a, outputs_b, masked), False


def _written(t) -> bool:
    written = getattr(t, "written", None)
    return written is None or bool(np.asarray(written).any())


def _failure(failed: "_Failed") -> Verdict:
    return Verdict(SETUP if isinstance(failed.__cause__, (SizeError, NotAKernel, NotModelled)) else MISMATCH, str(failed))


class _Heartbeat:
    """Says which stage is running once a run has taken more than a moment, then every few seconds."""

    FIRST, EVERY = 2.0, 10.0

    def __init__(self, say) -> None:
        self.say, self.stage, self.started = say, "", time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        wait = self.FIRST
        while not self._stop.wait(wait):
            self.say(f"verify: {self.stage}, {time.monotonic() - self.started:.0f} s")
            wait = self.EVERY


class _Failed(Exception):
    pass


def _target_api(api: ApiTable, target: str | None) -> ApiTable:
    """The migration runs against the ops of its target: at 2026-08 the row/col expands, fillpad
    and friends take Tensors as well as Tiles (the 2026-03 table has them tile-only)."""
    from ..rulebook.loading import load_api, newest_step

    target = target or newest_step()
    return api if target == api.step else load_api(None, target)


def _run(source: tuple[str, str], profile: str, settings: Settings, api: ApiTable, seed: int, inputs=None,
         parameters: bool = False):
    path, text = source
    machine = Machine(profile, api, seed, settings.poison)
    try:
        program = execute.load(path, text, settings, machine)
        if inputs is None:
            inputs = execute.make_inputs(program.specs, settings, program.namespace)
        elif set(inputs) != set(program.specs):
            raise SetupError(f"{path}: parameters {sorted(program.specs)} differ from the original's {sorted(inputs)}")
        outputs = execute.run(program, inputs, parameters)
    except KernelError as exc:
        raise _Failed(f"{_where(exc, path)}: {exc} ({profile} profile)") from exc
    except SetupError as exc:
        raise _Failed(str(exc)) from exc
    except TypeError as exc:
        unmodelled = _unmodelled(exc)
        if unmodelled is None:  # the kernel's own Python failed
            raise _Failed(f"{_where(exc, path)}: {type(exc).__name__}: {exc} ({profile} profile)") from exc
        raise _Failed(f"{_where(exc, path)}: {unmodelled} ({profile} profile)") from exc
    except Exception as exc:  # the kernel's own Python failed
        raise _Failed(f"{_where(exc, path)}: {type(exc).__name__}: {exc} ({profile} profile)") from exc
    return inputs, outputs, machine.masked


_CALL_ERROR = re.compile(r"^(?:(?P<owner>\w+)\.)?(?P<op>\w+)\(\) (?P<what>got an unexpected keyword argument .*|takes .*|missing .*)$")


def _unmodelled(exc: TypeError) -> str | None:
    """A call of a pl op the interpreter's signature does not take (a keyword or an argument count
    its model of the op lacks), said as such: which op, what the interpreter cannot run. None for a
    TypeError of the kernel's own Python."""
    m = _CALL_ERROR.match(str(exc))
    frames = list(traceback.walk_tb(exc.__traceback__))
    if m is None:
        return None
    inside = bool(frames) and frames[-1][0].f_code.co_filename.startswith(str(Path(__file__).parent))
    if m.group("owner") != "Machine" and not inside:
        return None
    return (f"pl.{m.group('op')}: the interpreter does not model this call ({m.group('op')}() {m.group('what')}); "
            "verify cannot run it")


def _where(exc: BaseException, path: str) -> str:
    """file:line of the innermost frame in the kernel file."""
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == path:
            line = lineno
    return f"{path}:{line}" if line else path


def compare(a: dict, b: dict, masked: bool) -> Verdict:
    # A parameter one side declares Out/InOut and neither writes (a branch not taken at these
    # inputs) holds what the host gave it, as the other side's parameter does.
    a = {k: t for k, t in a.items() if k in b or _written(t)}
    b = {k: t for k, t in b.items() if k in a or _written(t)}
    if set(a) != set(b):
        return Verdict(MISMATCH, f"outputs differ: original writes {sorted(a)}, migration writes {sorted(b)}")
    worst = 0.0
    masked_notes = []
    for name in sorted(a):
        x, y = a[name], b[name]
        if x.shape != y.shape:
            return Verdict(MISMATCH, f"`{name}`: shape {list(x.shape)} became {list(y.shape)}")
        dtype = x.dtype
        u, v = x.data.astype(np.float64), y.data.astype(np.float64)
        with np.errstate(invalid="ignore"):
            close = np.isclose(u, v, rtol=dtype.rtol, atol=dtype.atol, equal_nan=True)
        if close.all():
            finite = np.isfinite(u) & np.isfinite(v)
            worst = max(worst, float(np.max(np.abs(u[finite] - v[finite]), initial=0.0)))  # inf - inf is no error
            continue
        differ = ~close
        if masked and not (differ & x.written).any():
            rows = np.nonzero(differ.reshape(differ.shape[0], -1).any(axis=1))[0]
            masked_notes.append(f"rows {rows.min()}..{rows.max()} of `{name}` differ, masked before")
            valid = close | ~x.written
            finite = valid & np.isfinite(u) & np.isfinite(v) & x.written
            worst = max(worst, float(np.max(np.abs(u[finite] - v[finite]), initial=0.0)))  # inf - inf is no error
            continue
        candidates = np.argwhere(differ & x.written)  # an element the original wrote says the most
        at = tuple(int(i) for i in (candidates if len(candidates) else np.argwhere(differ))[0])
        why = (f"; the migration leaves `{name}` a plain parameter that its kernels (or the kernels it calls) write: "
               "at the target the host does not read it back; declare it pl.InOut (pl.Out if never read)"
               if getattr(y, "not_copied_back", False) else "")
        return Verdict(MISMATCH, f"mismatch in `{name}` at {list(at)}: original {x.data[at]!r}, migrated {y.data[at]!r} "
                                 f"({int(differ.sum())} of {differ.size} elements differ){why}")
    if masked_notes:
        return Verdict(MASKED, "valid region equivalent; " + "; ".join(masked_notes))
    return Verdict(EQUIVALENT, f"equivalent: {len(a)} outputs, max abs err {worst:.3g}")
