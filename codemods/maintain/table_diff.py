"""The catalogue of changes between two API tables: what a step to the newer one must handle.

Either table may be measured (`measure`) or written by hand (`codemods/rules/api/pypto-STEP.toml`,
its `base` merged in). Ops are compared by the names a kernel calls (`maxs`, `tile.maxs`);
an op is live where the table has it and does not mark it removed. What it finds:

- removed ops, and of those the renamed ones: the newer table names the successor
  (`replacement`), or one op appeared in the same namespace with the same parameters and a
  name like the old one (`tile.maxs` → `tile.maximums`, `tensor.add_scalar` → `tensor.adds`);
- per op live in both: parameters renamed (one gone and one come with like names:
  `valid_shapes` → `valid_shape`, or at the same place among as many required ones),
  removed, added, moved to another position, more or fewer required; a changed kind,
  result, or dtype and shape rule;
- enum members, memory limits and dtype sizes that changed, appeared or went.

A rename with the same parameters and a keyword rename are *mechanical*: `stubs` writes a
rule record for each. The rest needs a person, and the catalogue says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from ..rulebook.loading import _table_data  # the one reading of a table with its `base`

# Below this a removed name and a new one are not taken for a rename (`add_scalar` → `adds`
# is 0.57; `incore` → `at` 0.25).
SIMILAR = 0.5


@dataclass(frozen=True)
class Change:
    """One line of the catalogue. `mechanical` changes get a rule stub (`stubs.py`)."""

    area: str  # op-removed | op-renamed | op-added | keyword-renamed | keyword-removed | keyword-added | signature | kind | result | dtype | shape | enum | memory | dtype-size
    name: str  # the op (`tile.maxs`), enum (`BackendType`), memory space or dtype
    old: str = ""
    new: str = ""
    detail: str = ""
    mechanical: bool = False

    def line(self) -> str:
        arrow = f"{self.old} → {self.new}" if self.old and self.new else self.old or self.new
        head = f"{self.area:16} {self.name}"
        text = f"{head}: {arrow}" if arrow else head
        if self.detail:
            text += f" ({self.detail})"
        return ("[mechanical] " if self.mechanical else "             ") + text


@dataclass
class Catalogue:
    old: str
    new: str
    changes: list[Change] = field(default_factory=list)

    def of(self, area: str) -> list[Change]:
        return [c for c in self.changes if c.area == area]

    def text(self) -> str:
        counts: dict[str, int] = {}
        for c in self.changes:
            counts[c.area] = counts.get(c.area, 0) + 1
        mechanical = sum(c.mechanical for c in self.changes)
        lines = [f"# {self.old} → {self.new}: {len(self.changes)} changes, {mechanical} mechanical",
                 "# " + ", ".join(f"{area} {n}" for area, n in counts.items())]
        lines.extend(c.line() for c in self.changes)
        return "\n".join(lines) + "\n"


class Table:
    """A table's ops as plain data, read with its base: name -> entry, and what is live."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = _table_data(path)
        self.version = str(data.get("version", path.stem))
        self.ops: dict[str, dict] = {name: dict(spec) for name, spec in data.get("ops", {}).items()}
        self.namespaces: dict[str, set[str]] = {k: set(v) for k, v in data.get("namespaces", {}).items()}
        self.enums: dict[str, list[str]] = {k: list(v) for k, v in data.get("enums", {}).items()}
        self.memory: dict[str, float] = dict(data.get("memory_limits", {}))
        self.dtypes: dict[str, float] = dict(data.get("dtype_bytes", {}))

    def live(self, name: str) -> bool:
        spec = self.ops.get(name)
        if spec is not None:
            return spec.get("kind") != "removed"
        if not self.namespaces:
            return False
        space, _, base = name.rpartition(".")
        return base in self.namespaces.get(space, ())

    def names(self) -> set[str]:
        """Every op name the table knows of, live or removed (the namespaces' lowercase names
        too: a hand table lists more names than it describes)."""
        found = set(self.ops)
        for space, names in self.namespaces.items():
            found.update(f"{space}.{n}" if space else n for n in names if n[:1].islower())
        return found

    def params(self, name: str) -> list[str] | None:
        spec = self.ops.get(name)
        if spec is None or "params" not in spec:
            return None
        return list(spec["params"]) + list(spec.get("keyword_only", ()))


def _similar(a: str, b: str) -> float:
    return SequenceMatcher(None, a.rpartition(".")[2], b.rpartition(".")[2]).ratio()


def _space(name: str) -> str:
    return name.rpartition(".")[0]


def diff(old_path: Path, new_path: Path) -> Catalogue:
    old, new = Table(old_path), Table(new_path)
    cat = Catalogue(old.version, new.version)
    before = {n for n in old.names() if old.live(n)}
    after = {n for n in new.names() if new.live(n)}
    gone, come = sorted(before - after), sorted(after - before)
    claimed: set[str] = set()
    for name in gone:
        successor, why = _successor(name, old, new, come, claimed)
        if successor is None:
            note = new.ops.get(name, {}).get("note", "")
            cat.changes.append(Change("op-removed", name, detail=note or "no successor found"))
            continue
        claimed.add(successor)
        same = old.params(name) is not None and old.params(name) == new.params(successor)
        unknown = old.params(name) is None or new.params(successor) is None
        detail = why + ("" if same else ", parameters unknown" if unknown
                        else f", parameters ({', '.join(old.params(name))}) → ({', '.join(new.params(successor))})")
        cat.changes.append(Change("op-renamed", name, name, successor, detail, mechanical=same))
    for name in come:
        if name not in claimed:
            cat.changes.append(Change("op-added", name, new=_signature(new, name)))
    for name in sorted(before & after):
        _compare_op(cat, name, old, new)
    _compare_enums(cat, old, new)
    for area, a, b in (("memory", old.memory, new.memory), ("dtype-size", old.dtypes, new.dtypes)):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                cat.changes.append(Change(area, key, _text(a.get(key)), _text(b.get(key)),
                                          "new" if key not in a else "gone" if key not in b else ""))
    return cat


def _text(value) -> str:
    return "" if value is None else str(value)


def _signature(table: Table, name: str) -> str:
    params = table.params(name)
    return f"({', '.join(params)})" if params is not None else ""


def _successor(name: str, old: Table, new: Table, come: list[str], claimed: set[str]) -> tuple[str | None, str]:
    said = new.ops.get(name, {}).get("replacement")
    if said and new.live(said):
        return said, "the newer table's replacement"
    params = old.params(name)
    best, score = None, SIMILAR
    for candidate in come:
        if candidate in claimed or _space(candidate) != _space(name):
            continue
        if params is None or new.params(candidate) != params:
            continue
        ratio = _similar(name, candidate)
        if ratio >= score:
            best, score = candidate, ratio
    return best, (f"same parameters, names {score:.2f} alike" if best else "")


def _compare_op(cat: Catalogue, name: str, old: Table, new: Table) -> None:
    a, b = old.ops.get(name), new.ops.get(name)
    if a is None or b is None:
        return
    for key in ("kind", "result", "dtype", "shape"):
        if key in a and key in b and a[key] != b[key]:
            cat.changes.append(Change(key, name, str(a[key]), str(b[key])))
    pa, pb = old.params(name), new.params(name)
    if pa is None or pb is None or pa == pb:
        if pa is not None and pb is not None and a.get("required") != b.get("required"):
            cat.changes.append(Change("signature", name, f"{a.get('required')} required", f"{b.get('required')} required"))
        return
    removed = [p for p in pa if p not in pb]
    added = [p for p in pb if p not in pa]
    renamed = []
    # A parameter gone and one come are a rename where the names are alike, or where they
    # stand at the same place among as many required ones (the DSL wrappers' `input` for the
    # IR builder's `tile`); with more or fewer required, the call itself changed.
    same_arity = a.get("required") == b.get("required")
    for p in list(removed):
        at = pa.index(p)
        match = next((q for q in added if _similar(p, q) >= 0.8
                      or (pb.index(q) == at and (same_arity and at < int(a.get("required", 0)) or _similar(p, q) >= SIMILAR))), None)
        if match is not None:
            renamed.append((p, match))
            removed.remove(p)
            added.remove(match)
    for p, q in renamed:
        cat.changes.append(Change("keyword-renamed", name, p, q, mechanical=True))
    for p in removed:
        # Not mechanical: what the value meant must go somewhere (`move(transpose=)`,
        # `parallel(chunk=)`), or a person decides it never mattered (a `keyword-drop` record).
        cat.changes.append(Change("keyword-removed", name, p, detail=f"({', '.join(pa)}) → ({', '.join(pb)})"))
    for p in added:
        cat.changes.append(Change("keyword-added", name, new=p,
                                  detail="required" if pb.index(p) < int(b.get("required", 0)) else "optional"))
    # A keyword rename leaves positional calls alone; a parameter that moved breaks them
    # (`load`'s target_memory: 4th at c39's wrapper, 5th at e2d0f78ae's).
    names = dict(renamed)
    moved = [f"{names.get(p, p)} {i} → {pb.index(names.get(p, p))}" for i, p in enumerate(pa)
             if names.get(p, p) in pb and pb.index(names.get(p, p)) != i]
    if moved:
        cat.changes.append(Change("signature", name, f"({', '.join(pa)})", f"({', '.join(pb)})",
                                  "positions moved: " + ", ".join(moved)))


def _compare_enums(cat: Catalogue, old: Table, new: Table) -> None:
    for enum in sorted(set(old.enums) | set(new.enums)):
        a, b = old.enums.get(enum), new.enums.get(enum)
        if a is None or b is None:
            cat.changes.append(Change("enum", enum, "" if a is None else "present", "" if b is None else "present",
                                      "new" if a is None else "gone"))
            continue
        gone, come = [m for m in a if m not in b], [m for m in b if m not in a]
        if gone:
            cat.changes.append(Change("enum", enum, ", ".join(gone), detail="members gone"))
        if come:
            cat.changes.append(Change("enum", enum, new=", ".join(come), detail="members new"))
