"""The pattern language: what matches, what does not, and layout-keeping replacement."""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.rulebook.pattern import PatternError, compile_call, match_call, render_call


def call(code: str) -> cst.Call:
    node = cst.parse_expression(code)
    assert isinstance(node, cst.Call)
    return node


def rewrite(match: str, replace: str, code: str) -> str | None:
    m, r = compile_call(match), compile_call(replace)
    node = call(code)
    bound = match_call(m, node)
    if bound is None:
        return None
    return cst.Module([]).code_for_node(render_call(r, bound, node, node.func.value))


@pytest.mark.parametrize(
    "code,fits",
    [
        ("pl.view(t, s, o)", True),
        ("pl.view(t, s, o, valid_shape=v)", True),
        ("pl.view(t, s)", False),  # too few positionals
        ("pl.view(t, s, o, extra)", False),  # too many positionals
        ("pl.view(*args)", False),  # a splat is no single argument
        ("pl.view(t, s, **kw)", False),
    ],
)
def test_positional_arity(code, fits):
    assert (match_call(compile_call("pl.view($a, $b, $c, **$kw)"), call(code)) is not None) is fits


def test_keywords_required_literal_and_rest():
    m = compile_call("pl.cast($x, target_type=pl.FP32)")
    assert match_call(m, call("pl.cast(y, target_type=pl.FP32)")) is not None
    assert match_call(m, call("pl.cast(y, target_type = pl.FP32 )")) is not None  # whitespace aside
    assert match_call(m, call("pl.cast(y, target_type=pl.BF16)")) is None
    assert match_call(m, call("pl.cast(y)")) is None
    assert match_call(m, call("pl.cast(y, target_type=pl.FP32, mode=1)")) is None  # no **$kw


def test_rest_of_positionals():
    out = rewrite("pl.f(*$args, **$kw)", "pl.g(*$args, **$kw)", "pl.f(a, *more, k=1, **opts)")
    assert out == "pl.g(a, *more, k=1, **opts)"


def test_argument_swap_keeps_each_slot_layout():
    code = "pl.slice(\n    src,  # source\n    [M, N],\n    [i, 0],\n)"
    out = rewrite("pl.slice($src, $shape, $off)", "pl.load($src, $off, $shape, target_memory=pl.MemorySpace.Vec)", code)
    assert out == "pl.load(\n    src,  # source\n    [i, 0],\n    [M, N],\n    target_memory=pl.MemorySpace.Vec,\n)"


def test_replacement_uses_the_files_alias():
    m, r = compile_call("pl.slice($a, $s, $o)"), compile_call("pl.load($a, $o, $s, target_memory=pl.MemorySpace.Mat)")
    node = call("lang.slice(x, [1], [0])")
    out = render_call(r, match_call(m, node), node, node.func.value)
    assert cst.Module([]).code_for_node(out) == "lang.load(x, [0], [1], target_memory=lang.MemorySpace.Mat)"


def test_dropping_an_argument_keeps_trailing_comma_style():
    out = rewrite("pl.create_tensor($s, dtype=$d, valid_shape=$v)", "pl.create_tensor($s, dtype=$d)",
                  "pl.create_tensor([M, N], dtype=pl.FP32, valid_shape=[v, N])")
    assert out == "pl.create_tensor([M, N], dtype=pl.FP32)"


@pytest.mark.parametrize(
    "bad",
    ["view($a)", "np.view($a)", "pl.view($a", "pl.view", "pl.view(*x)", "pl.view(**x)", "pl.view($a) + 1"],
)
def test_bad_patterns_are_rejected(bad):
    with pytest.raises(PatternError):
        compile_call(bad)
