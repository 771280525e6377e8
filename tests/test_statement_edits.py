"""The statements a rule inserts, parsed in batches: each text gives what it gives alone."""

import libcst as cst
import pytest

from codemods.migrate.statement_edits import Preparsed, parse_statements

ONE_LINE = [
    "a_tile = pl.load(a, [0, 0], [16, 128], target_memory=pl.MemorySpace.Vec)",
    "out = pl.store(a_tile, [0, 0], out)",
    "x = 1; y = 2",
    "if flag: z = 3",
    "s = 'a # not a comment'  # a comment",
    "t = 'back\\\\slash'",
]
BLOCKS = [
    "u = pl.create_tensor([\n16, 128], dtype=pl.FP32)",
    "v = 1\nw = 2",
    "with pl.incore():\n    q = 1",
]


def _same(got: list, text: str) -> None:
    alone = parse_statements(text)
    assert len(got) == len(alone)
    assert all(g.deep_equals(a) for g, a in zip(got, alone)), text


@pytest.mark.parametrize("texts", [ONE_LINE, BLOCKS, ONE_LINE + BLOCKS, BLOCKS[::-1] + ONE_LINE[::-1]])
def test_each_text_gives_the_statements_it_gives_alone(texts):
    ready = Preparsed(texts)
    for text in texts:
        _same(ready.statements(text), text)


def test_a_text_inserted_twice_is_two_trees():
    text = ONE_LINE[0]
    ready = Preparsed([text, text])
    first, second = ready.statements(text), ready.statements(text)
    assert first[0] is not second[0] and first[0].deep_equals(second[0])


def test_a_line_that_runs_on_into_the_next_leaves_each_text_to_parse_alone():
    # Joined, "f(" and "1)" would make one statement of two texts: the count says so.
    texts = ["a = f(", "1)", "b = 2"]
    ready = Preparsed(texts)
    assert ready._ready == {}
    _same(ready.statements("b = 2"), "b = 2")
    with pytest.raises(cst.ParserSyntaxError):
        ready.statements("a = f(")


def test_a_comment_alone_is_not_taken_for_a_statement():
    texts = ["# pypto-migrate: a note", "c = 3"]
    ready = Preparsed(texts)
    _same(ready.statements("c = 3"), "c = 3")
    assert ready.statements("# pypto-migrate: a note") == []
