"""The engine's safety net (codemods/migrate/safety_net.py): an output that reads a name it does
not bind on some path, or re-binds a name with a type the target refuses, is marked at its
line and reported as an error before anything is written."""

from __future__ import annotations

import textwrap

from codemods.check.findings import MARKER
from codemods.migrate.parsing import parse
from codemods.migrate.safety_net import guard, unbound_reads
from codemods.rulebook.loading import load_api, load_rules

SOURCE = textwrap.dedent('''\
    import pypto.language as pl


    @pl.function
    def kernel(a: pl.Tensor[[16, 64], pl.FP32], flag: pl.Scalar[pl.BOOL]) -> pl.Tensor[[16, 64], pl.FP32]:
        b = pl.add(a, a)
        if flag:
            c = pl.mul(b, 2.0)
        else:
            c = b
        return c
''')


def test_unbound_reads_follow_every_path():
    text = textwrap.dedent('''\
        def f(a):
            if a:
                x = 1
            for i in range(a):
                y = i
            with open(a) as fh:
                z = fh
            return x + y + z + nowhere
    ''')
    found = {(p.line, p.key[1], p.message.split(" ", 3)[-1]) for p in unbound_reads(text)}
    assert found == {(8, "x", "here but is not bound on every path that reaches it"),
                     (8, "y", "here but is not bound on every path that reaches it"),
                     (8, "nowhere", "but nothing defines it")}


def test_a_loop_with_init_values_binds_its_names_after_it():
    text = textwrap.dedent('''\
        import pypto.language as pl


        def f(n, x0):
            for (x,) in pl.while_(init_values=(x0,)):
                pl.cond(x < n)
                x_out = pl.yield_(x + 1)
            for i in pl.range(n):
                y = pl.yield_(i)
            return x_out + x + y
    ''')
    assert [p.key[1] for p in unbound_reads(text)] == ["y"]  # a loop without init_values may bind nothing


def test_an_output_reading_a_name_bound_on_one_branch_only_is_marked():
    output = SOURCE.replace("        c = b\n", "        d = b\n")  # as if a rule renamed one binding only
    api = load_api(None, "2026-03")
    rules = tuple(load_rules(None, "2026-03"))
    guarded, errors = guard(SOURCE, output, parse(output), rules, api)
    lines = guarded.splitlines()
    marker = lines.index("    return c") - 1
    assert MARKER.search(lines[marker]) and "c is read here but is not bound on every path" in lines[marker]
    assert [(e.line, e.level) for e in errors] == [(marker + 2, "error")]
    # what the input did itself is the user's: no marker
    assert guard(output, output, parse(output), rules, api) == (output, [])


def test_an_output_re_binding_a_name_with_a_refused_type_is_marked():
    source = textwrap.dedent('''\
        import pypto.language as pl


        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]]) -> pl.Tensor[[16, 64], pl.BF16]:
                x = pl.load(a, [0, 0], [16, 64])
                y = pl.cast(x, pl.BF16)
                out = pl.store(y, [0, 0], out)
                return out
    ''')
    output = source.replace("y = pl.cast", "x = pl.cast").replace("pl.store(y,", "pl.store(x,")
    api = load_api(None, "2026-08")
    rules = tuple(r for r in load_rules(None, "2026-08") if r.id.startswith("PTO1"))
    guarded, errors = guard(source, output, parse(output), rules, api)
    lines = guarded.splitlines()
    at = lines.index("        x = pl.cast(x, pl.BF16)")
    assert MARKER.search(lines[at - 1]).group("ids") == "PTO153"
    assert [(e.rule, e.line, e.level) for e in errors] == [("PTO153", at + 1, "error")]
    # at 2026-03 (no rule says the target refuses it) the same output is left as it is
    march = tuple(load_rules(None, "2026-03"))
    assert guard(source, output, parse(output), march, load_api(None, "2026-03")) == (output, [])
    # a re-binding already under a marker (the rule flagged it) is neither marked again nor reported twice
    again, errors = guard(guarded, guarded, parse(guarded), rules, api)
    assert (again, errors) == (guarded, [])


def test_a_full_run_marks_what_a_rule_left_unbound():
    """Through the engine: a rule whose replacement reads a name nothing binds (a stand-in for
    rules that together drop a binding) gets its output marked, and the error reported."""
    import dataclasses

    from codemods.migrate.engine import migrate

    api = load_api(None, "2026-03")
    view = next(r for r in load_rules(None, "2026-03") if r.id == "PTO001")
    broken = dataclasses.replace(view, params={**view.params, "replace": "pl.slice(ghost, $shape, $offset, **$kw)"})
    text = textwrap.dedent('''\
        import pypto.language as pl


        @pl.function
        def kernel(a: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            part = pl.view(a, [16, 64], [0, 0])
            return part
    ''')
    result = migrate(text, (broken,), api, frozenset({"PTO001", "API"}))
    lines = result.output.splitlines()
    at = lines.index("    part = pl.slice(ghost, [16, 64], [0, 0])")
    assert lines[at - 1] == "    # pypto-migrate: review API: ghost is read but nothing defines it"
    assert ("API", at + 1, "error") in {(f.rule, f.line, f.level) for f in result.findings}
    assert any(f.level != "error" and f.line == at for f in result.findings)  # the marker, read back as a review item
