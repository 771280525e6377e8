"""Comments found without the tokenizer: the same places and texts as `tokenize` finds."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

from codemods.syntax.comments import comments

ROOT = Path(__file__).resolve().parent.parent

TRICKY = [
    'x = "# not a comment"  # a comment\n',
    "s = '''\n# inside a string\n''' # after it\n",
    's = """a \\""" # still inside""" # outside\n',
    "r = r'\\' # inside' # outside\n",
    "f = f\"{x!r:>{w}} # in\" + b'#' # out\n",
    "y = 1 + \\\n    2  # after a continuation\n",
    "z = 'a' 'b#' # two strings\r\n# a CRLF line\r\n",
    "w = rb'''#''' + Rb\"#\"  # prefixes\n",
    "# the last line has no newline",
    "def f():\n    '''doc # in doc'''\n    return 1  # pypto-migrate: review PTO001: why\n",
    "é = 'ü'  # after two-byte letters\n",
]


def _tokenized(text: str) -> list[tuple[int, int, str]]:
    return [(t.start[0], t.start[1], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("text", TRICKY)
def test_as_the_tokenizer_finds_them(text):
    compile(text, "<text>", "exec")
    assert list(comments(text)) == _tokenized(text)


def test_only_those_holding_a_word():
    text = "a = 1  # plain\nb = '# pypto-migrate'  # pypto-migrate: review PTO001\n"
    assert list(comments(text, "pypto-migrate")) == [(2, 23, "# pypto-migrate: review PTO001")]


def test_every_fixture_and_module_of_the_tool():
    checked = 0
    for path in sorted([*(ROOT / "fixtures").rglob("*.py"), *(ROOT / "codemods").rglob("*.py")]):
        text = path.read_text(encoding="utf-8")
        assert list(comments(text)) == _tokenized(text), path
        checked += 1
    assert checked > 100
