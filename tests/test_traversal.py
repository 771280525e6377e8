"""The fast tree walks and positions stand in for LibCST's own: they must agree with it exactly."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods.syntax.positions import Printed, code_and_starts, code_starts_and_texts, standalone
from codemods.syntax.traversal import STATEMENT_TYPES, TRIVIA, children, content, own_and_nested, walk
from conftest import FIXTURES

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Every kind of node: f-strings with format specs, match, decorators, lambdas, walrus, star
# expressions, try/except*, async, type annotations, comments everywhere.
SOURCES = [
    *sorted(FIXTURES.rglob("*.py")),
    *(STDLIB / name for name in ("typing.py", "dataclasses.py", "argparse.py", "asyncio/tasks.py", "string.py", "pprint.py")),
]
EXTRA = '''
async def f(x, /, y: int = 1, *a, k=2, **kw) -> "T":
    async with a as (b, c), d:
        async for i in x[1:2, ::3]:
            print(f"{x!r:>{y}} {y=} {'nested'}", *a, **kw)
    match x:
        case [1, *rest] | {"k": _} if (n := len(rest)) > 0:
            return lambda q=1: q ** -n
        case Point(x=0) as p:
            pass
    try:
        raise ValueError from None
    except* (TypeError, ValueError) as e:  # comment
        del e
    finally:
        global G
    return [i async for i in y if i] + {k: v for k, v in kw.items()}.keys() @ (1 if y else 2)
'''


def _modules():
    for path in SOURCES:
        yield path.name, cst.parse_module(path.read_text(encoding="utf-8"))
    yield "extra", cst.parse_module(EXTRA)


@pytest.mark.parametrize("name,module", list(_modules()), ids=lambda v: v if isinstance(v, str) else "")
def test_children_are_libcsts_children_and_content_drops_only_trivia(name, module):
    stack = [module]
    while stack:
        node = stack.pop()
        theirs = node.children
        ours = children(node)
        assert len(ours) == len(theirs) and all(a is b for a, b in zip(ours, theirs)), type(node).__name__
        kept = [c for c in theirs if type(c) not in TRIVIA]
        assert [id(c) for c in content(node)] == [id(c) for c in kept], type(node).__name__
        stack.extend(theirs)


@pytest.mark.parametrize("name,module", list(_modules()), ids=lambda v: v if isinstance(v, str) else "")
def test_trivia_hold_no_names_calls_or_statements(name, module):
    everything = list(_all(module))
    for node in everything:
        if type(node) in TRIVIA:
            assert all(type(n) in TRIVIA for n in _all(node)), type(node).__name__
    assert {id(n) for n in walk(module)} == {id(n) for n in everything if type(n) not in TRIVIA}


def test_own_and_nested_splits_at_statements():
    module = cst.parse_module(EXTRA)
    func = module.body[0]
    own, nested = own_and_nested(func)
    assert func in own and all(type(n) not in STATEMENT_TYPES for n in own[1:])
    assert [type(s).__name__ for s in nested] == ["With", "Match", "TryStar", "SimpleStatementLine"]


@pytest.mark.parametrize("name,module", list(_modules()), ids=lambda v: v if isinstance(v, str) else "")
def test_starts_are_positionproviders_starts(name, module):
    nodes = list(_all(module))
    text, found = code_and_starts(module, nodes)
    assert text == module.code
    theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node in nodes:
        if node not in theirs:  # a node generated as plain text (some whitespace): no position either way
            assert id(node) not in found, type(node).__name__
            continue
        start = theirs[node].start
        assert found[id(node)] == (start.line, start.column + 1), type(node).__name__


def _all(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


@pytest.mark.parametrize("name,module", list(_modules()), ids=lambda v: v if isinstance(v, str) else "")
def test_texts_from_the_one_code_generation_are_code_for_node(name, module):
    """The before-texts of edits are read off the code generation that places them: for
    every node that prints alone as inside its parent, exactly what code_for_node makes
    (nested blocks included, where the surrounding indentation must be left out)."""
    nodes = [n for n in _all(module) if standalone(type(n)) and n is not module]
    # every fixture has statements and functions; a kernel that only hands its parameter back
    # has no call (fixtures/fuzz's NZ pass-through)
    assert {type(n).__name__ for n in nodes} >= {"SimpleStatementLine", "FunctionDef"}
    text, found, texts = code_starts_and_texts(module, nodes[:50], nodes)
    assert text == module.code and len(found) > 0
    for node in nodes:
        if id(node) not in texts:  # whitespace the parent writes as plain text: the engine prints it alone
            assert isinstance(node, (cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.Newline)), type(node).__name__
            continue
        assert texts[id(node)] == module.code_for_node(node), type(node).__name__


@pytest.mark.parametrize("name,module", list(_modules()), ids=lambda v: v if isinstance(v, str) else "")
def test_a_printed_tree_answers_as_a_code_generation_asked_in_advance(name, module):
    """`Printed` records every node but trivia (the next phase's edits are not known when the
    previous phase's output is printed; no rule edits a comma or a space); asked later, it
    answers exactly as `code_starts_and_texts`, and says nothing of trivia."""
    every = list(_all(module))
    nodes = [n for n in every if type(n) not in TRIVIA]
    assert len(nodes) < len(every)
    assert Printed(module).starts([n for n in every if type(n) in TRIVIA]) == {}
    alone = [n for n in nodes if standalone(type(n)) and n is not module]
    text, found, texts = code_starts_and_texts(module, nodes, alone)
    printed = Printed(module)
    assert printed.code == text == module.code
    assert printed.starts(nodes) == found
    assert printed.texts(alone) == texts


def test_binders_are_every_statement_that_binds_a_name_however_deep():
    import libcst as cst

    from codemods.model.extents import binders, runtime_names
    from codemods.syntax.nodes import code
    from codemods.syntax.traversal import walk

    module = cst.parse_module(
        "def k(n: pl.Scalar[pl.INDEX], m: int):\n"
        "    a = 1\n"
        "    if a: b = 2; c += 1\n"
        "    for i in pl.range(n):\n"
        "        with pl.at():\n"
        "            d: int = f(lambda e: e)\n"
        "    def inner():\n"
        "        x[j] = 0\n"
        "    return [y for y in z]\n"
    )
    function = module.body[0]
    found = binders(function)
    # the statements a full walk of the function finds, no more (comprehension and lambda names bind nothing here)
    expected = [n for n in walk(function) if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For))]
    assert sorted(map(code, found)) == sorted(map(code, expected)) and len(found) == 6
    assert runtime_names(function) == {"n", "a", "b", "c", "i", "d", "x", "j"}


def test_what_a_walk_finds_is_the_memos_answer():
    """The walks compute a node's content themselves where nothing is kept yet (no memo call
    per node), and keep it where `content` looks: in the file's table from its first walk on."""
    from codemods.syntax.memo import per_file
    from codemods.syntax.traversal import content_into, known_content

    module = cst.parse_module("x = f(a, b)\n")
    call = module.body[0].body[0].value
    with per_file():
        known = known_content()
        assert known == {}
        found = content_into(call, known)
        assert [type(n).__name__ for n in found] == ["Name", "Arg", "Arg"]
        assert content(call) is found
        assert known_content() is known
