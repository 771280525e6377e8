"""PTO142 across modules (issue 29, item 6): an entry hands a tensor to a kernel of a module
beside it (`from writer import bump`), and that kernel writes it. At 2026-08 a plain
`pl.Tensor` parameter is not copied back to the host, so the entry's parameter must become
`pl.InOut` (or `pl.Out`) from what the OTHER module's kernel does to it, as it does for a
callee of the same file. Where the neighbour cannot be read, the migration knows as little as
before. The modules here are written for these tests.
"""

from __future__ import annotations

from conftest import pypto

# A kernel that adds to one row of its state (read and written in part) and writes out whole.
WRITER = '''\
import pypto.language as pl

R = 16
C = 64


@pl.jit.inline
def bump(x: pl.Tensor[[R, C], pl.FP32], state: pl.Tensor[[R, C], pl.FP32], out: pl.Tensor[[R, C], pl.FP32]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="bump"):
        state[0:1, :] = pl.add(state[0:1, :], x[0:1, :])
        out[:, :] = pl.mul(x, 2.0)
    return out
'''

ENTRY = '''\
import pypto.language as pl

from writer import bump

R = 16
C = 64


@pl.jit
def entry(x: pl.Tensor[[R, C], pl.FP32], state: pl.Tensor[[R, C], pl.FP32], out: pl.Tensor[[R, C], pl.FP32]):
    out = bump(x, state, out)
    return out
'''


def _package(folder, writer: str = WRITER):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "writer.py").write_text(writer)
    (folder / "entry.py").write_text(ENTRY)
    return folder / "entry.py"


def _migrated(entry) -> str:
    """The diff of a dry run on the entry file alone (its neighbour is read, not migrated)."""
    out = entry.parent.parent / "entry.diff"
    done = pypto("run", "--target", "2026-08", "--no-cache", "--diff-file", out, entry.name, cwd=entry.parent)
    assert done.returncode in (0, 1), done.stderr
    return out.read_text() if out.exists() else ""


def test_the_entry_keeps_what_a_neighbours_kernel_writes(tmp_path):
    diff = _migrated(_package(tmp_path / "pkg"))
    assert "+def entry(x: pl.Tensor[[R, C], pl.FP32], state: pl.InOut[pl.Tensor[[R, C], pl.FP32]], " \
           "out: pl.Out[pl.Tensor[[R, C], pl.FP32]]):" in diff, diff


def test_a_neighbour_that_does_not_parse_changes_nothing_of_today(tmp_path):
    entry = _package(tmp_path / "pkg", writer="def bump(:\n")
    diff = _migrated(entry)
    assert "state: pl.InOut" not in diff and "state: pl.Out" not in diff


def test_the_same_text_from_stdin_has_no_neighbours(tmp_path):
    entry = _package(tmp_path / "pkg")
    done = pypto("run", "--target", "2026-08", "--no-cache", "-", cwd=tmp_path, input=entry.read_text())
    assert "state: pl.InOut" not in done.stdout


def test_a_changed_neighbour_is_another_migration_of_the_file_for_the_cache(tmp_path):
    entry = _package(tmp_path / "pkg")
    first = pypto("run", "--target", "2026-08", "--diff-file", str(tmp_path / "a.diff"), "entry.py", cwd=entry.parent)
    assert first.returncode in (0, 1), first.stderr
    (entry.parent / "writer.py").write_text(WRITER.replace("state[0:1, :] = pl.add(state[0:1, :], x[0:1, :])\n", ""))
    second = pypto("run", "--target", "2026-08", "--diff-file", str(tmp_path / "b.diff"), "entry.py", cwd=entry.parent)
    assert second.returncode in (0, 1), second.stderr
    assert "state: pl.InOut" in (tmp_path / "a.diff").read_text()
    assert "state: pl.InOut" not in (tmp_path / "b.diff").read_text()


def test_the_migrated_package_verifies_equal_at_2026_08(tmp_path):
    original = _package(tmp_path / "original")
    migrated = _package(tmp_path / "migrated")
    written = pypto("run", "--write", "--target", "2026-08", "--no-cache", ".", cwd=migrated.parent)
    assert written.returncode in (0, 1), written.stderr
    assert "state: pl.InOut" in migrated.read_text()
    done = pypto("verify", original, migrated, "--target", "2026-08", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_import_cycle_among_the_neighbours_ends_and_decides_the_same(tmp_path):
    # writer imports helper, which imports writer back: each is read once on the way, and what
    # bump does to its parameters is read all the same.
    cyclic = WRITER.replace("import pypto.language as pl\n", "import pypto.language as pl\n\nfrom helper import twice\n", 1)
    entry = _package(tmp_path / "pkg", writer=cyclic)
    (entry.parent / "helper.py").write_text(
        "import pypto.language as pl\n\nfrom writer import bump\n\n\ndef twice(v):\n    return 2 * v\n")
    diff = _migrated(entry)
    assert "state: pl.InOut" in diff and "out: pl.Out" in diff, diff


def test_each_file_of_a_folder_comes_out_as_when_run_alone(tmp_path):
    # Within one process a neighbour module is read once for every file importing it.
    entry = _package(tmp_path / "pkg")
    (entry.parent / "second.py").write_text(ENTRY.replace("def entry(", "def second("))
    together = pypto("run", "--target", "2026-08", "--no-cache", "--jobs", "1", "--diff-file", tmp_path / "all.diff",
                     ".", cwd=entry.parent)
    assert together.returncode in (0, 1), together.stderr
    alone = [_migrated_named(entry.parent / name, tmp_path / f"{name}.diff") for name in ("entry.py", "second.py")]
    assert (tmp_path / "all.diff").read_text() == "".join(alone)


def _migrated_named(path, out) -> str:
    done = pypto("run", "--target", "2026-08", "--no-cache", "--diff-file", out, path.name, cwd=path.parent)
    assert done.returncode in (0, 1), done.stderr
    return out.read_text()


def test_a_file_that_names_no_module_of_its_folder_is_not_parsed_for_imports(tmp_path, monkeypatch):
    # The parse of a big file for its imports cost a tenth of its migration: a text that names
    # no module beside it cannot import one, and is not parsed; one that names one is, and only
    # an import of it (not a mention in a string) makes it a neighbour.
    from codemods.run import neighbours as nb

    entry = _package(tmp_path / "pkg")
    parsed = []
    real_parse = nb.ast.parse
    monkeypatch.setattr(nb.ast, "parse", lambda raw, *a, **k: parsed.append(raw) or real_parse(raw, *a, **k))
    monkeypatch.setattr(nb, "_SCANNED", {})
    alone = ENTRY.replace("from writer import bump\n", "")
    assert dict(nb.neighbours(entry, alone.encode())) == {} and parsed == []
    mentioned = alone + '\nNOTE = "the writer module is not imported"\n'
    assert dict(nb.neighbours(entry, mentioned.encode())) == {} and len(parsed) == 1
    found = nb.neighbours(entry, ENTRY.encode())
    # the entry is parsed; the writer, which names no other module of the folder, is not
    assert list(found) == ["writer"] and found["writer"] == WRITER and len(parsed) == 2
    # the file's own name is no neighbour, however often it says it
    assert dict(nb.neighbours(entry, (alone + "# entry entry\n").encode())) == {} and len(parsed) == 2
