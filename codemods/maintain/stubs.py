"""Rule stubs: a rule record (the format of `codemods/rules/STEP/PTO*.toml`) for each mechanical change
of a catalogue, with an example and an unchanged case, for a maintainer to finish and move
into the new step's folder.

An op renamed with the same parameters becomes an `op-rename` record; the renamed keywords
of one op become one `keyword-rename` record. The examples call the op with every required
parameter and each renamed one by keyword, so that the record's kind can show its edit
without knowing the op's meaning; `why` says what was measured and leaves the upstream
change and the compiler's message to the maintainer (`TODO`).
"""

from __future__ import annotations

import re
from pathlib import Path

from .table_diff import Catalogue, Change, Table

HEADER = ("# A stub written by `pypto-migrate api diff --stubs` from the catalogue of {old} → {new}.\n"
          "# Check `why`, `safety` and the examples against the compiler, then move it into codemods/rules/STEP/.\n")


def _name(prefix: str, op: str) -> str:
    return prefix + "-" + re.sub(r"[^a-z0-9]+", "-", op.lower()).strip("-")


def _toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _code(lines: list[str]) -> str:
    return "'''\nimport pypto.language as pl\n\n" + "\n".join(lines) + "\n'''"


def _call(op: str, args: list[str]) -> str:
    return f"y = pl.{op}({', '.join(args)})"


def _record(rule_id: str, name: str, summary: str, why: str, what: str, kind: str, params: list[str],
            before: list[str], after: list[str], unchanged: list[str], cat: Catalogue) -> str:
    return "\n".join([
        HEADER.format(old=cat.old, new=cat.new).rstrip("\n"),
        f"id = {_toml(rule_id)}",
        f"name = {_toml(name)}",
        f"summary = {_toml(summary)}",
        f'why = """\n{why}\n"""',
        'safety = "safe"',
        f"what = {_toml(what)}",
        f"kind = {_toml(kind)}",
        "",
        "[params]",
        *params,
        "",
        "[[example]]",
        f"before = {_code(before)}",
        f"after = {_code(after)}",
        "",
        "[[unchanged]]",
        f"code = {_code(unchanged)}",
        "",
    ])


def _op_rename(change: Change, rule_id: str, old: Table, cat: Catalogue) -> tuple[str, str]:
    params = old.params(change.old) or []
    required = int(old.ops.get(change.old, {}).get("required", len(params)))
    args = params[:required]
    name = _name("rename", change.old)
    why = (f"`pl.{change.old}` is gone from {cat.new} and `pl.{change.new}` takes the same parameters "
           f"({', '.join(params)}); {change.detail}.\nTODO: the upstream change, and the message {cat.new} gives for the old name.")
    return name, _record(
        rule_id, name, f"pl.{change.old} was renamed pl.{change.new}", why,
        f"`pl.{change.old}(...)` → `pl.{change.new}(...)`", "op-rename",
        [f"renames = {{ {_toml(change.old)} = {_toml(change.new)} }}"],
        [_call(change.old, args)], [_call(change.new, args)], [_call(change.new, args)], cat)


def _keyword_renames(op: str, changes: list[Change], rule_id: str, old: Table, cat: Catalogue) -> tuple[str, str]:
    params = old.params(op) or []
    required = int(old.ops.get(op, {}).get("required", len(params)))
    renames = {c.old: c.new for c in changes}
    # Every required parameter and every renamed one, by keyword: a call either version parses.
    wanted = [p for p in params if params.index(p) < required or p in renames]
    before = [f"{p}={p}" for p in wanted]
    after = [f"{renames.get(p, p)}={p}" for p in wanted]
    unchanged = [p for p in params[:required] if p not in renames]
    name = _name("keywords", op)
    pairs = ", ".join(f"{a}= → {b}=" for a, b in renames.items())
    why = (f"The parameters of `pl.{op}` were renamed between {cat.old} and {cat.new}: {pairs}; "
           f"their places and the others are unchanged.\nTODO: the upstream change, and the message {cat.new} gives "
           "for the old keyword.")
    return name, _record(
        rule_id, name, f"pl.{op}'s keywords were renamed: {pairs}", why,
        f"`pl.{op}(..., {next(iter(renames))}=v)` → `pl.{op}(..., {next(iter(renames.values()))}=v)`", "keyword-rename",
        [f"ops = [{_toml(op)}]", "renames = { " + ", ".join(f"{a} = {_toml(b)}" for a, b in renames.items()) + " }"],
        [_call(op, before)], [_call(op, after)], [_call(op, unchanged)], cat)


def write_stubs(cat: Catalogue, old: Table, folder: Path, first_id: int = 900) -> list[Path]:
    """One record per mechanical change (keyword renames of one op together), numbered from
    `first_id`; the paths written, in the catalogue's order."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    number = first_id
    keywords: dict[str, list[Change]] = {}
    records: list[tuple[str, str]] = []
    for change in cat.changes:
        if not change.mechanical:
            continue
        if change.area == "op-renamed":
            records.append(_op_rename(change, f"PTO{number:03d}", old, cat))
            number += 1
        elif change.area == "keyword-renamed":
            keywords.setdefault(change.name, []).append(change)
    for op, changes in keywords.items():
        records.append(_keyword_renames(op, changes, f"PTO{number:03d}", old, cat))
        number += 1
    for name, text in records:
        rule_id = re.search(r'^id = "(PTO\d+)"', text, re.M).group(1)
        path = folder / f"{rule_id}-{name}.toml"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
