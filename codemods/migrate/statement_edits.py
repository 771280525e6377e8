"""What the engine writes besides a rule's node replacements: statements and review markers.

Statements a rule inserts are parsed from their text; prepended to a body they go after its
docstring (and, in a module, after its imports); a review marker is a comment line above
the statement it is about, written once per rule (`codemods.check.findings` reads them back).
"""

from __future__ import annotations

import libcst as cst

from ..check.findings import MARKER
from ..syntax.trusted import parse_module


def parse_statements(text: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(text + "\n").body)


_CUT = "__pypto_migrate_cut__"


class Preparsed:
    """The statements of many texts from one parse: a phase inserts a hundred statements in a
    DeepSeek file, and LibCST's parser costs as much to start as to read a short line.

    Each text is parsed once per time it is inserted (a node must not stand in two places of a
    tree: analyses know nodes by identity). Texts of one line are one statement each, and are
    parsed together as they are; others are parsed together with a line between them that
    says where one ends. A text whose later lines are indented may open a block, whose
    indentation LibCST reads relative to the first block of its module: it is parsed alone, as
    is everything of a batch that does not parse into as many statements as it has texts."""

    def __init__(self, texts: list[str]) -> None:
        self._ready: dict[str, list[list[cst.BaseStatement]]] = {}
        lines = [t for t in texts if _one_line(t)]
        self._batch(lines, "".join(f"{t}\n" for t in lines), cut=False)
        others = [t for t in texts if not _one_line(t) and _CUT not in t
                  and not any(line[:1] in (" ", "\t") for line in t.split("\n")[1:])]
        self._batch(others, "".join(f"{t}\n{_CUT}\n" for t in others), cut=True)

    def _batch(self, batch: list[str], joined: str, cut: bool) -> None:
        if not batch:
            return
        try:
            body = parse_module(joined).body
        except cst.ParserSyntaxError:
            return
        if cut:
            pieces: list[list[cst.BaseStatement]] = [[]]
            for statement in body:
                if _is_cut(statement):
                    pieces.append([])
                else:
                    pieces[-1].append(statement)
            pieces.pop()  # after the last cut
        else:
            pieces = [[statement] for statement in body]
        if len(pieces) != len(batch):
            return  # a text ran on into the next (an open bracket): each is parsed alone
        for text, statements in zip(batch, pieces):
            self._ready.setdefault(text, []).append(statements)

    def statements(self, text: str) -> list[cst.BaseStatement]:
        ready = self._ready.get(text)
        return ready.pop() if ready else parse_statements(text)


def _one_line(text: str) -> bool:
    """Whether the text is one line holding a statement: it parses to that one statement."""
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#") and not any(c in text for c in "\n\r\\")


def _is_cut(statement) -> bool:
    return (type(statement) is cst.SimpleStatementLine and len(statement.body) == 1
            and type(statement.body[0]) is cst.Expr and type(statement.body[0].value) is cst.Name
            and statement.body[0].value.value == _CUT)


def prepend_statements(node, statements):
    """Put statements first in a body, after a docstring if there is one."""
    if isinstance(node, cst.Module):
        body = list(node.body)
        at = 0
        while at < len(body) and _is_preamble(body[at]):
            at += 1
        return node.with_changes(body=[*body[:at], *statements, *body[at:]])
    block = node.body
    body = list(block.body)
    at = 1 if body and _is_docstring(body[0]) else 0
    return node.with_changes(body=block.with_changes(body=[*body[:at], *statements, *body[at:]]))


def _is_docstring(statement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_preamble(statement) -> bool:
    return _is_docstring(statement) or (
        isinstance(statement, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body)
    )


def with_markers(statement, flags) -> cst.CSTNode:
    """Write `# pypto-migrate: review ID: why` above the statement, once per rule."""
    present = set()
    for empty in statement.leading_lines:
        m = empty.comment and MARKER.search(empty.comment.value)
        if m:
            present.update(i.strip() for i in m.group("ids").split(","))
    lines = list(statement.leading_lines)
    for rule, _node, message in flags:
        if rule.id in present:
            continue
        present.add(rule.id)
        # a message quoting code spread over lines (an operand written over five) stays one comment line
        one_line = " ".join(message.split())
        lines.append(cst.EmptyLine(comment=cst.Comment(f"# pypto-migrate: review {rule.id}: {one_line}")))
    if len(lines) == len(statement.leading_lines):
        return statement  # every rule already has its marker here
    return statement.with_changes(leading_lines=lines)
