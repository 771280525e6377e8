"""Rules and the API table, loaded from the TOML files under `codemods/rules/`.

Everything a rule *is* lives in data; the Python side only knows rule kinds
(see `codemods.migrate.transforms`). Loading validates eagerly so that a broken rule file
is reported with its path when the tool starts, not halfway through a repository.
"""

from __future__ import annotations

import os
import re
try:  # the same parser compiled (mypyc): a run reads some seventy rule files, at a third of the cost
    import tomli as toml
except ImportError:  # pragma: no cover - the standard library's, when tomli is not installed
    import tomllib as toml
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, NamedTuple

SAFETY_CLASSES = ("safe", "review")
_ID = re.compile(r"^PTO\d{3}$")
_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
_FILE_NAME = re.compile(r"^(PTO\d{3})-([a-z][a-z0-9-]*)\.toml$")


_NONE: Mapping = MappingProxyType({})  # an Op's empty roles, spaces or places: shared, so read-only


class RuleFileError(Exception):
    """A rule or API-table file that cannot be used; the message names the file."""


class Example(NamedTuple):
    before: str
    after: str


@dataclass(frozen=True, eq=False)  # identity: rules and tables are cached per process
class Rule:
    """One rule file of `codemods/rules/STEP/`: what it fixes, why, how safely, and its examples."""

    id: str
    name: str
    summary: str
    why: str
    safety: str
    kind: str
    params: dict[str, Any]
    examples: tuple[Example, ...]
    unchanged: tuple[str, ...]
    path: Path
    phase: int = 1  # 0: restructures kernel regions, before the type-directed rules plan
    what: str = ""  # what it does, in one line of Markdown (docs/rules.md's table, `rules ID`)
    idioms: tuple[int, ...] = ()  # the sections of pypto-migration-idioms.md it carries out
    requires: tuple[str, ...] = ()  # rules whose edits its own edits rely on (names they define)
    rejects: str = ""  # the target compiler's message where the old form is; the rule fires only there
    step: str = ""  # the version step it belongs to: the name of its folder (`2026-03`)
    # A diagnostic about this step's compiler only (its buffer figures): not run when a later
    # step is the target, whose compiler decides otherwise and whose own rules say so.
    target_only: bool = False
    # A check of whatever the target is (a name the target does not have): it runs at the
    # target's step, with the target's table, and not at the steps on the way there.
    at_target: bool = False
    # Its old form is one that code written for the step's own pypto does not hold (a name or
    # keyword removed by then, an output left a plain Tensor): where it acts, the file is of an
    # earlier day, and the step's other rules act on it too. A file that reached the target's
    # step past every earlier one, with no such evidence, is taken to be written for the target
    # and left as it is (`migrate.chain`).
    evidence: bool = False

    def describe(self) -> str:
        return f"{self.id} {self.name}"


class Op(NamedTuple):
    """One op of the target API: what kinds of values it takes and gives."""

    name: str
    kind: str  # tensor-only | tile-only | unified | scalar | removed
    params: tuple[str, ...] = ()
    roles: Mapping[str, str] = _NONE
    result: str = ""
    replacement: str = ""
    note: str = ""
    space: Mapping[str, str] = _NONE
    scratch: str = ""
    unit: str = ""  # "vector": its tile operands must be in Vec; "cube": matmul
    reads_acc: tuple[str, ...] = ()  # parameters that may be Acc tiles all the same
    required: int = 0  # positional arguments it cannot do without (0: not stated)
    like: str = ""  # the parameter whose shape and dtype the result takes ("": the first operand)
    shape: str = ""  # how the result's shape follows (codemods.model.results)
    dtype: str = ""  # how the result's dtype follows
    tile_params: tuple[str, ...] | None = None  # a unified op whose tile form takes fewer parameters
    # ... and one whose tensor form does (row_expand_add's `tmp` is for Tiles only at 2026-08)
    tensor_params: tuple[str, ...] | None = None
    # Measured on the compiler (benchmarks/measure_api.py): where a first operand of each kind
    # is accepted, "kernel" and/or "orchestration"; absent: everywhere its roles allow.
    accepts: Mapping[str, tuple[str, ...]] = _NONE
    on_tile: str = ""  # the result's kind when a scalar op is given a Tile (pl.min(tile, axis=0))
    rejects: str = ""  # the compiler's message where it rejects the op (see `accepts`)
    tile_form: str = ""  # a tensor-only op's counterpart on Tiles where it has another name (add_scalar: tile.adds)
    nd: tuple[str, ...] = ()  # operands that must be in the ND (row_major) block layout at this version
    # Roles that hold in one form only, chosen by a keyword's value: {"target_memory=Mat": {idx: "tensor"}}
    # (tile.mgather takes a Tile index into Vec, a GM Tensor index into Mat).
    roles_when: Mapping[str, Mapping[str, str]] = _NONE
    # Positional counts an earlier pypto's form of the op took (pre-c39 `pl.store(tile, offsets,
    # shapes, output_tensor)`): a later signature taking as many is no evidence of later code.
    earlier_arity: tuple[int, ...] = ()

    def roles_for(self, keywords: Mapping[str, str]) -> Mapping[str, str]:
        """The roles of the form the call's keywords choose (`keywords`: name -> the value's last
        name or literal text, `target_memory` -> "Mat")."""
        roles = self.roles
        for condition, changed in self.roles_when.items():
            key, _, value = condition.partition("=")
            if keywords.get(key) == value:
                roles = {**roles, **changed}
        return roles

    def accepted(self, kind: str, in_kernel: bool) -> bool:
        where = self.accepts.get(kind)
        return where is None or ("kernel" if in_kernel else "orchestration") in where

    def may_read_acc(self, index: int) -> bool:
        # an accumulating cube op's own accumulator (`space = { acc = "Acc" }`) is in Acc by definition
        return index < len(self.params) and (self.params[index] in self.reads_acc or self.space.get(self.params[index]) == "Acc")


@dataclass(frozen=True, eq=False)
class ApiTable:
    """What one pypto version's API accepts (`codemods/rules/api/pypto-STEP.toml`), as the rules read it."""

    module: str
    version: str
    ops: dict[str, Op]
    memory_limits: dict[str, int]
    dtype_bytes: dict[str, float]
    # The names the target accepts after `pl.` ("") and after `pl.tile.`/`pl.tensor.`; empty: not checked.
    namespaces: dict[str, frozenset[str]] = field(default_factory=dict)
    step: str = ""  # the version step this table is the target of (`2026-03`)
    # The meaning the reference interpreter gives code of this version (`codemods.interp`):
    # "strict" (Tensors and Tiles apart), "head" (also logical `not`, rank-keeping subscripts,
    # output parameters). Inherited through `base`, so a next step means what its base did
    # until its table says otherwise.
    profile: str = "strict"
    tensor_kernels: bool = False  # tensor-level ops inside a kernel are lowered by the compiler
    kernel_needs_output: bool = False  # an outlined kernel must return something (`model/outputs.py`)
    subscript_store: bool = False  # `out[r0:r1, :] = v` writes a window of a Tensor parameter
    literal_follows_operand: bool = False  # `pl.sub(x_bf16, 1.0)` stays BF16: a literal takes its operand's dtype
    # Layouts a `pl.Tensor[...]` annotation may no longer name, and the parser's message: {"DN": "..."}
    refused_tensor_layouts: dict[str, str] = field(default_factory=dict)
    # The tile casts the target's backend has a path for, measured (`[casts]`): source dtype ->
    # the dtypes it casts to; a source not listed is not known. `exact`: source dtype -> the
    # dtypes that hold every one of its values (a cast there loses nothing). Empty: not checked.
    cast_arch: str = ""
    cast_paths: dict[str, frozenset[str]] = field(default_factory=dict)
    exact_casts: dict[str, frozenset[str]] = field(default_factory=dict)

    def removed(self) -> dict[str, Op]:
        return {n: op for n, op in self.ops.items() if op.kind == "removed"}

    def lists_removed(self, op: str) -> bool:
        """Does the table say `pl.<op>` was removed by this version (`view` at 2026-03)?"""
        return op in self.ops and self.ops[op].kind == "removed"

    def offers(self, op: str) -> bool:
        """Can code of this version call `pl.<op>`: a name it has, not one it lists removed?"""
        return self.exists(op) and not self.lists_removed(op)

    def exists(self, op: str) -> bool:
        """Does `pl.<op>` name something of the target (`tile.adds` yes, `block.adds` no)?"""
        if not self.namespaces:
            return True
        space, _, name = op.rpartition(".")
        if space in self.namespaces:
            return name in self.namespaces[space]
        return op.split(".")[0] in self.namespaces.get("", frozenset())  # `FunctionType.InCore`, `MemorySpace.Vec`


def _namespaced(ops: dict[str, Op], namespaces: dict[str, frozenset[str]]) -> None:
    """`pl.tile.X` and `pl.tensor.X`: the op X held to one kind, unless the table says more."""
    for space, kind, role in (("tile", "tile-only", "tile"), ("tensor", "tensor-only", "tensor")):
        for name in namespaces.get(space, ()):
            key = f"{space}.{name}"
            if key in ops:
                continue
            base = ops.get(name)
            if base is None or base.kind in ("removed", "scalar") or (base.kind != "unified" and base.kind != kind):
                ops[key] = Op(name=key, kind=kind, result=space)
                continue
            params = base.params
            if space == "tensor" and base.scratch:  # the tensor form needs no scratch tile
                params = tuple(p for p in params if p != base.scratch)
            elif space == "tile" and base.tile_params is not None:
                params = base.tile_params
            if space == "tensor" and base.tensor_params is not None:
                params = base.tensor_params
            roles = {p: (role if r == "value" else r) for p, r in base.roles.items() if p in params}
            result = space if base.result in ("same", "") else base.result
            ops[key] = Op(key, kind, params, roles, result, space=dict(base.space), scratch=base.scratch if base.scratch in params else "",
                          unit=base.unit, reads_acc=base.reads_acc, required=base.required,
                          like=base.like, shape=base.shape, dtype=base.dtype,
                          tile_form=base.tile_form if space == "tensor" else "", nd=base.nd if space == "tile" else ())


def default_rules_dir() -> Path:
    """PYPTO_MIGRATE_RULES, else the rules shipped inside the package.

    The rules are package data (`codemods/rules/`), found through importlib.resources from
    the package itself: never from `sys.prefix`, which in the compile worker is the
    compiler's environment, not the tool's."""
    env = os.environ.get("PYPTO_MIGRATE_RULES")
    if env:
        return Path(env)
    return _packaged_rules()


@lru_cache(maxsize=1)
def _packaged_rules() -> Path:
    from importlib.resources import files

    shipped = files("codemods") / "rules"
    if isinstance(shipped, Path):
        return shipped
    return _extracted(shipped)  # pragma: no cover - a zip import (zipapp): copied out once per process


def _extracted(tree) -> Path:  # pragma: no cover - see _packaged_rules
    import atexit
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="pypto-migrate-rules-"))
    atexit.register(shutil.rmtree, root, True)

    def copy(node, to: Path) -> None:
        for child in node.iterdir():
            if child.is_dir():
                (to / child.name).mkdir()
                copy(child, to / child.name)
            elif child.name.endswith(".toml"):
                (to / child.name).write_bytes(child.read_bytes())

    copy(tree, root)
    return root


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return toml.load(fh)
    except (OSError, toml.TOMLDecodeError) as exc:
        raise RuleFileError(f"{path}: {exc}") from exc


def _require(data: dict[str, Any], key: str, path: Path, kind: type = str) -> Any:
    if key not in data:
        raise RuleFileError(f"{path}: missing required key '{key}'")
    value = data[key]
    if not isinstance(value, kind):
        raise RuleFileError(f"{path}: '{key}' must be a {kind.__name__}")
    return value


def load_rule(path: Path) -> Rule:
    data = _read_toml(path)
    rule_id = _require(data, "id", path)
    if not _ID.match(rule_id):
        raise RuleFileError(f"{path}: id '{rule_id}' is not of the form PTO000")
    name = _require(data, "name", path)
    if not _NAME.match(name):
        raise RuleFileError(f"{path}: name '{name}' must be lowercase words joined by '-'")
    if path.name != f"{rule_id}-{name}.toml":
        raise RuleFileError(f"{path}: the file of rule {rule_id} ({name}) is named {rule_id}-{name}.toml")
    safety = _require(data, "safety", path)
    if safety not in SAFETY_CLASSES:
        raise RuleFileError(f"{path}: safety must be one of {', '.join(SAFETY_CLASSES)}")
    examples = tuple(
        Example(_require(ex, "before", path), _require(ex, "after", path))
        for ex in data.get("example", [])
    )
    unchanged = tuple(_require(ex, "code", path) for ex in data.get("unchanged", []))
    if not examples:
        raise RuleFileError(f"{path}: a rule needs at least one [[example]]")
    requires = data.get("requires", [])
    if not isinstance(requires, list) or not all(isinstance(r, str) and _ID.match(r) for r in requires):
        raise RuleFileError(f"{path}: 'requires' must be a list of rule ids")
    idioms = data.get("idioms", [])
    if not isinstance(idioms, list) or not all(isinstance(i, int) for i in idioms):
        raise RuleFileError(f"{path}: 'idioms' must be a list of section numbers")
    return Rule(
        id=rule_id,
        name=name,
        summary=_require(data, "summary", path),
        why=_require(data, "why", path).strip(),
        rejects=data.get("rejects", ""),
        safety=safety,
        kind=_require(data, "kind", path),
        params=data.get("params", {}),
        examples=examples,
        unchanged=unchanged,
        path=path,
        phase=int(data.get("phase", 1)),
        what=str(data.get("what", "")),
        idioms=tuple(idioms),
        requires=tuple(requires),
        step=path.parent.name,
        target_only=bool(data.get("target_only", False)),
        at_target=bool(data.get("at_target", False)),
        evidence=bool(data.get("evidence", False)),
    )


def load_rules(rules_dir: Path | None = None, through: str | None = None) -> tuple[Rule, ...]:
    """Every step's rules, in id order; with `through`, those of the steps up to that one: a
    run to a step reads no later step's rule (their ids are `rule_files`')."""
    return _load_rules(rules_dir or default_rules_dir(), through)


@lru_cache(maxsize=16)
def _load_rules(rules_dir: Path, through: str | None) -> tuple[Rule, ...]:
    every = rule_files(rules_dir)
    files = every
    if through is not None:
        order = steps(rules_dir)
        later = set(order[order.index(through) + 1:]) if through in order else set()
        files = tuple(f for f in every if f.step not in later)
    rules = tuple(_rule_at(f.path) for f in files)
    ids = {f.id for f in every}
    for rule in rules:
        for need in rule.requires:
            if need not in ids:
                raise RuleFileError(f"{rule.path}: requires unknown rule {need}")
    return rules


class RuleFile(NamedTuple):
    """A rule as its file's name and folder say: `2026-03/PTO001-view-to-slice.toml`."""

    id: str
    name: str
    step: str
    path: Path


def rule_files(rules_dir: Path | None = None) -> tuple[RuleFile, ...]:
    """Every rule file, in id order, read off the folder listing: the ids a marker or
    `--select` may name, without reading a rule (`load_rule` holds each file to its name)."""
    return _rule_files(rules_dir or default_rules_dir())


@lru_cache(maxsize=8)
def _rule_files(rules_dir: Path) -> tuple[RuleFile, ...]:
    # One folder per version step (`2026-03/`), each file named for its rule.
    paths = sorted(rules_dir.glob("*/PTO*.toml"), key=lambda p: p.name)
    if not paths:
        raise RuleFileError(f"{rules_dir}: no rule files (STEP/PTO*.toml)")
    files: list[RuleFile] = []
    seen: dict[str, Path] = {}
    for path in paths:
        named = _FILE_NAME.match(path.name)
        if named is None:
            raise RuleFileError(f"{path}: a rule file is named for its rule: ID-NAME.toml (PTO001-view-to-slice.toml)")
        for key in named.groups():
            if key in seen:
                raise RuleFileError(f"{path}: '{key}' is already used by {seen[key]}")
            seen[key] = path
        files.append(RuleFile(named[1], named[2], path.parent.name, path))
    return tuple(files)


@lru_cache(maxsize=None)
def _rule_at(path: Path) -> Rule:
    # Kept per file for the process: each read of a rule file costs a TOML parse, and the
    # options, the runner and the report ask for the same rules.
    return load_rule(path)


STEP = re.compile(r"^\d{4}-\d{2}$")
@lru_cache(maxsize=8)
def steps(rules_dir: Path | None = None) -> tuple[str, ...]:
    """The version steps, oldest first: the folders of rules that have an API table beside them."""
    rules_dir = rules_dir or default_rules_dir()
    found = sorted(p.name for p in rules_dir.iterdir() if p.is_dir() and STEP.match(p.name)) if rules_dir.is_dir() else []
    missing = [s for s in found if not (rules_dir / "api" / f"pypto-{s}.toml").is_file()]
    if missing:
        raise RuleFileError(f"{rules_dir}: step {', '.join(missing)} has rules but no api/pypto-STEP.toml")
    return tuple(found)


def newest_step(rules_dir: Path | None = None) -> str:
    """The step `run` and `check` migrate to without --target: the pypto users have today."""
    names = steps(rules_dir)
    if not names:
        raise RuleFileError(f"{rules_dir or default_rules_dir()}: no version step (STEP/ with api/pypto-STEP.toml)")
    return names[-1]


def oldest_step(rules_dir: Path | None = None) -> str:
    """The first step: its table lists what the oldest code used and that version removed."""
    return steps(rules_dir)[0]


def _table_data(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A table's data, with what it inherits: `base = "pypto-2026-03.toml"` takes every key of
    that table and lets this one replace them; an op's entry is merged key by key, so that
    what the base table says of an op (its roles, its result) holds unless this one says
    otherwise. `namespaces` lists replace the base's whole."""
    if path in seen:
        raise RuleFileError(f"{path}: 'base' makes a cycle")
    data = _read_toml(path)
    base_name = data.pop("base", None)
    if base_name is None:
        return data
    if not isinstance(base_name, str):
        raise RuleFileError(f"{path}: 'base' must be the file name of another table")
    base = _table_data(path.parent / base_name, (*seen, path))
    merged = {**base, **{k: v for k, v in data.items() if k not in ("ops", "namespaces", "memory_limits", "dtype_bytes")}}
    for key in ("memory_limits", "dtype_bytes", "namespaces"):
        merged[key] = {**base.get(key, {}), **data.get(key, {})}
    ops = {name: dict(spec) for name, spec in base.get("ops", {}).items()}
    for name, spec in data.get("ops", {}).items():
        if spec.get("kind") == "removed":
            ops[name] = dict(spec)  # nothing of the old op holds once it is gone
        else:
            ops[name] = {**ops.get(name, {}), **spec}
    merged["ops"] = ops
    return merged


@lru_cache(maxsize=16)
def load_api(rules_dir: Path | None, step: str) -> ApiTable:
    """The API table of a step (`2026-03`), the target of that step's rules."""
    path = (rules_dir or default_rules_dir()) / "api" / f"pypto-{step}.toml"
    if not path.is_file():
        raise RuleFileError(f"{path}: no API table for step {step}")
    data = _table_data(path)
    ops: dict[str, Op] = {}
    for name, spec in _require(data, "ops", path, dict).items():
        ops[name] = Op(
            name=name,
            kind=_require(spec, "kind", path),
            params=tuple(spec.get("params", ())),
            roles=dict(spec.get("roles", {})),
            result=spec.get("result", ""),
            replacement=spec.get("replacement", ""),
            note=spec.get("note", ""),
            space=dict(spec.get("space", {})),
            scratch=spec.get("scratch", ""),
            unit=spec.get("unit", ""),
            reads_acc=tuple(spec.get("reads_acc", ())),
            required=int(spec.get("required", 0)),
            accepts={k: tuple(v) for k, v in spec.get("accepts", {}).items()},
            on_tile=spec.get("on_tile", ""),
            rejects=spec.get("rejects", ""),
            like=str(spec.get("like", "")),
            shape=str(spec.get("shape", "")),
            dtype=str(spec.get("dtype", "")),
            tile_params=tuple(spec["tile_params"]) if "tile_params" in spec else None,
            tensor_params=tuple(spec["tensor_params"]) if "tensor_params" in spec else None,
            roles_when={k: dict(v) for k, v in spec.get("roles_when", {}).items()},
            earlier_arity=tuple(int(n) for n in spec.get("earlier_arity", ())),
            tile_form=str(spec.get("tile_form", "")),
            nd=tuple(spec.get("nd", ())),
        )
    namespaces = {space: frozenset(names) for space, names in data.get("namespaces", {}).items()}
    _namespaced(ops, namespaces)
    return ApiTable(
        module=_require(data, "module", path),
        version=_require(data, "version", path),
        ops=ops,
        memory_limits=dict(data.get("memory_limits", {})),
        dtype_bytes=dict(data.get("dtype_bytes", {})),
        namespaces=namespaces,
        step=step,
        profile=str(data.get("profile", "strict")),
        tensor_kernels=bool(data.get("tensor_kernels", False)),
        kernel_needs_output=bool(data.get("kernel_needs_output", False)),
        subscript_store=bool(data.get("subscript_store", False)),
        literal_follows_operand=bool(data.get("literal_follows_operand", False)),
        refused_tensor_layouts=dict(data.get("refused_tensor_layouts", {})),
        cast_arch=str(data.get("casts", {}).get("arch", "")),
        cast_paths={k: frozenset(v) for k, v in data.get("casts", {}).get("paths", {}).items()},
        exact_casts={k: frozenset(v) for k, v in data.get("casts", {}).get("exact", {}).items()},
    )


class Selection(NamedTuple):
    rules: tuple[Rule, ...]
    notes: tuple[str, ...] = ()  # what the rules' `requires` added or left out, and why


class Chosen(NamedTuple):
    """The rules a run uses, by id: each is read from its file when first asked, so that a
    run to one step reads no other step's rules."""

    ids: tuple[str, ...]
    rules_dir: Path | None = None

    def rule(self, rule_id: str) -> Rule:
        """One chosen rule (one file read)."""
        for f in rule_files(self.rules_dir):
            if f.id == rule_id:
                return _rule_at(f.path)
        raise KeyError(rule_id)

    def every(self) -> tuple[Rule, ...]:
        """Every chosen rule, in id order (every step's file read)."""
        return tuple(r for r in load_rules(self.rules_dir) if r.id in self.ids)


def select_rules(
    rules: tuple[Rule, ...], select: list[str] | None, ignore: list[str] | None
) -> tuple[Rule, ...]:
    return choose_rules(rules, select, ignore).rules


def choose_rules(rules: tuple[Rule, ...], select: list[str] | None, ignore: list[str] | None) -> Selection:
    """Pick rules by id or name (any case); unknown names raise ValueError listing the known ones.

    A chosen rule brings the rules it requires along; a rule whose requirement is ignored is
    left out too, since its edits would name what nothing defines. Each such step is a note.
    """
    by_key = {r.id.lower(): r for r in rules} | {r.name: r for r in rules}

    def resolve(keys: list[str]) -> set[str]:
        unknown = [k for k in keys if k.lower() not in by_key]
        if unknown:
            known = ", ".join(f"{r.id} ({r.name})" for r in rules)
            raise ValueError(f"unknown rule {', '.join(unknown)}; known rules: {known}")
        return {by_key[k.lower()].id for k in keys}

    named = {r.id: r for r in rules}
    chosen = resolve(select) if select else set(named)
    excluded = resolve(ignore or [])
    chosen -= excluded
    notes: list[str] = []
    changed = True
    while changed:  # excluded only grows and nothing excluded comes back: this ends
        changed = False
        for rule in rules:
            if rule.id not in chosen:
                continue
            for need in rule.requires:
                if need in excluded:
                    chosen.discard(rule.id)
                    excluded.add(rule.id)
                    notes.append(f"{rule.describe()} is left out too: it relies on {named[need].describe()}, which is not selected")
                    changed = True
                    break
                if need not in chosen:
                    chosen.add(need)
                    notes.append(f"{named[need].describe()} comes along: {rule.describe()} relies on it")
                    changed = True
    return Selection(tuple(r for r in rules if r.id in chosen), tuple(notes))
