"""The rules' documentation, as plain text: `rules`, `rules ID`, and the rule table of docs/rules.md.

Shaped like Ruff's rule pages (what it does, why, example before and after, fix safety) and
printed as it is, never through a console that reads `[b, 0]` as markup. The table in
docs/rules.md is generated from the rule files between two marker comments; `python -m
codemods.cli.ruledocs docs/rules.md` rewrites it, and a test fails while it is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..check.findings import MARKER
from ..rulebook.loading import Rule

BEGIN = "<!-- rules-table: generated from codemods/rules/*.toml by `python -m codemods.cli.ruledocs docs/rules.md`; do not edit by hand -->"
END = "<!-- rules-table end -->"

SAFETY = {
    "safe": "Safe: the rewrite keeps what the kernel computes, so `run --write` applies it without asking; "
            "its examples are migrated twice and run through `verify` by the test suite.",
    "review": "Needs review: the rewrite is applied, and a `# pypto-migrate: review {id}: ...` marker above the "
              "line asks a person to decide; `check` fails until the marker is changed to `reviewed {id}`.",
    "flag": "Needs review, no fix: the rule never changes code. It writes a `# pypto-migrate: review {id}: ...` "
            "marker above the line, and `check` fails until a person has decided and changed it to `reviewed {id}`.",
}


def fixes(rule: Rule) -> bool:
    """Does the rule change code, or only flag it? Read off its examples."""
    for ex in rule.examples:
        after = [line for line in ex.after.splitlines() if not MARKER.search(line)]
        if after != ex.before.splitlines():
            return True
    return False


def safety_class(rule: Rule) -> str:
    return rule.safety if rule.safety == "safe" or fixes(rule) else "flag"


def find(rules: tuple[Rule, ...], key: str) -> Rule | None:
    """A rule by id or name, in any case (`pto006`, `Matmul-Operands`)."""
    key = key.strip().lower()
    return next((r for r in rules if key in (r.id.lower(), r.name)), None)


def _sentence(text: str) -> str:
    return text if text.endswith((".", ")")) else text + "."


def _code(text: str) -> str:
    return "```python\n" + text.strip("\n") + "\n```"


def render(rule: Rule, examples: bool = True) -> str:
    """One rule's page, in Markdown that reads as plain text."""
    out = [f"# {rule.name} ({rule.id})", "", f"Fix: {safety_class(rule)}"]
    if rule.step:
        out += [f"Step: {rule.step} (`--target {rule.step}` and later apply it)"]
    out += ["", "## What it does", _sentence(rule.summary)]
    if rule.what:
        out += ["", _sentence(rule.what)]
    out += ["", "## Why", rule.why]
    if rule.rejects:
        out += ["", f"The target compiler's rejection it removes (it fires only where that would happen): {rule.rejects}."]
    if rule.requires:
        out += ["", f"It relies on {', '.join(rule.requires)}: selecting it brings them along, and ignoring one of them leaves it out too."]
    if rule.idioms:
        out += ["", f"Idiom{'s' * (len(rule.idioms) > 1)} {', '.join(map(str, rule.idioms))} of pypto-migration-idioms.md."]
    if examples:
        for i, ex in enumerate(rule.examples, 1):
            title = "## Example" if len(rule.examples) == 1 else f"## Example {i}"
            out += ["", title, "Before:", _code(ex.before), "", "After:", _code(ex.after)]
        for code in rule.unchanged:
            out += ["", "## Left as it is", _code(code)]
    else:
        out += ["", f"(`pypto-migrate rules {rule.id}` shows its examples.)"]
    out += ["", "## Fix safety", SAFETY[safety_class(rule)].format(id=rule.id)]
    return "\n".join(out) + "\n"


def listing(rules: tuple[Rule, ...]) -> str:
    rows = [("id", "step", "name", "safety", "summary")] + [(r.id, r.step, r.name, safety_class(r), r.summary) for r in rules]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "".join(f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d:<{widths[3]}}  {e}\n" for a, b, c, d, e in rows)


def markdown_table(rules: tuple[Rule, ...]) -> str:
    """The rules as a Markdown table; a `step` column when they belong to more than one step."""
    several = len({r.step for r in rules}) > 1
    head = "| id | step | name | safety | idiom | what it does |" if several else "| id | name | safety | idiom | what it does |"
    out = [head, "| --- " * head.count(" | ") + "| --- |"]
    for r in rules:
        idioms = f" {', '.join(map(str, r.idioms))} " if r.idioms else " "
        step = f" {r.step} |" if several else ""
        out.append(f"| {r.id} |{step} {r.name} | {safety_class(r)} |{idioms}| {r.what or r.summary} |")
    return "\n".join(out) + "\n"



def with_table(readme: str, rules: tuple[Rule, ...]) -> str:
    """The page with its generated table replaced; ValueError without the markers."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the page has no rule-table markers ({BEGIN} ... {END})")
    return readme[: start + len(BEGIN)] + "\n" + markdown_table(rules) + readme[end:]


def main(argv: list[str]) -> int:
    from ..rulebook.loading import load_rules

    path = Path(argv[0] if argv else "docs/rules.md")
    text = path.read_text(encoding="utf-8")
    new = with_table(text, load_rules())
    if new != text:
        path.write_text(new, encoding="utf-8")
        print(f"{path}: rule table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
