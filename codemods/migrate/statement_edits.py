"""What the engine writes besides a rule's node replacements: statements and review markers.

Statements a rule inserts are parsed from their text; prepended to a body they go after its
docstring (and, in a module, after its imports); a review marker is a comment line above
the statement it is about, written once per rule (`codemods.check.findings` reads them back).
"""

from __future__ import annotations

import libcst as cst

from ..check.findings import MARKER


def parse_statements(text: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(text + "\n").body)


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
