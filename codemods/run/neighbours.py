"""The modules beside a kernel file that it imports (`from decode_indexer_compressor import
indexer_compressor`), transitively, as texts: a kernel of another module may write a tensor the
file's entry hands it, and the migration reads what it does there (PTO142). Resolved as verify
resolves a package (`interp.package.folder_imports`: a flat module of the file's own folder).
What cannot be read or parsed is left out, and the migration then knows as little as before.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

from ..interp.package import folder_imports
from ..text.sources import FileProblem, decode, read_bytes

MAX_MODULES = 64  # a folder of more is not one package; past it the rest is not read
MAX_BYTES = 2_000_000


class Neighbours(dict):
    """Module name -> text; `digest` gives each module a hash of its text and of the digests of
    the neighbours it imports: what a module's kernels do is a function of it alone, so a
    process migrating a folder reads each module once, whichever file imports it."""

    digest: dict[str, str]


def neighbours(path: Path | None, data: bytes) -> Neighbours:
    """Module name -> text of each module of `path`'s folder that the file imports, transitively."""
    found = Neighbours()
    found.digest = {}
    if path is None or b"pypto" not in data or b"import" not in data:
        return found
    own = Path(path).resolve()
    folder = str(own.parent)
    imports: dict[str | None, list[str]] = {}
    todo: list[tuple[str | None, bytes]] = [(None, data)]
    while todo and len(found) < MAX_MODULES:
        module, raw = todo.pop()
        named = _imported_names(raw, folder, own.stem if module is None else module)
        if named is None:
            continue
        imports[module] = []
        for name in named:
            file = own.parent / f"{name}.py"
            if file.resolve() == own:
                continue
            imports[module].append(name)
            if name in found:
                continue
            try:
                text = read_bytes(file, MAX_BYTES)
                found[name] = decode(text)
            except (FileProblem, UnicodeDecodeError, ValueError):
                continue
            todo.append((name, text))
    ordered = Neighbours(sorted(found.items()))
    ordered.digest = {}

    def digest(name: str, open_: frozenset) -> tuple[str, bool]:
        """(the digest, whether no import cycle was met on the way: only then is it the module's
        own, kept; inside a cycle it depends on where the cycle was entered)."""
        if name in ordered.digest:
            return ordered.digest[name], True
        h = hashlib.sha256(name.encode() + b"\0" + ordered[name].encode("utf-8", "surrogatepass"))
        clean = True
        for dep in sorted(set(imports.get(name, ())) & set(ordered)):
            if dep in open_ | {name}:
                h.update(b"\0cycle:" + dep.encode())
                clean = False
            else:
                d, c = digest(dep, open_ | {name})
                h.update(b"\0" + d.encode())
                clean = clean and c
        if clean or not open_:
            ordered.digest[name] = h.hexdigest()
        return h.hexdigest(), clean

    for name in ordered:
        digest(name, frozenset())
    return ordered


_SCANNED: dict[tuple[bytes, str], list[str] | None] = {}  # (a module's bytes, its folder) -> what it imports there
_SCANNED_KEPT = 1024


def _imported_names(raw: bytes, folder: str, own: str) -> list[str] | None:
    """The modules of `folder` that a module's top level imports; None where it does not parse.
    Kept per process: each file of a folder reads the same neighbours, each a parse. `own`: the
    module's own name, which importing would not add a neighbour."""
    if not _may_import(raw, folder, own):
        return []
    key = (raw, folder)
    if key not in _SCANNED:
        if len(_SCANNED) >= _SCANNED_KEPT:
            _SCANNED.clear()
        try:
            _SCANNED[key] = [name for name, _ in folder_imports(ast.parse(raw), folder)]
        except (SyntaxError, ValueError):
            _SCANNED[key] = None
    return _SCANNED[key]


_FEW = 64  # past this many modules in a folder, a text is parsed rather than searched for each name


def _may_import(raw: bytes, folder: str, own: str) -> bool:
    """Whether the text could import a module of the folder: it names one, as a word or inside
    one (an import names it literally). A file that names none, a lone kernel above all, is not
    parsed for its imports: that parse cost as much as a tenth of a big file's migration.
    Where the answer is not cheap (a non-ASCII name, which the parser would normalize; a folder
    of many modules), yes."""
    try:
        names = [entry[:-3] for entry in os.listdir(folder) if entry.endswith(".py")]
    except OSError:
        return True
    names = [name for name in names if name != own and name.isidentifier()]
    if len(names) > _FEW or not raw.isascii() or not all(name.isascii() for name in names):
        return True
    return any(name.encode() in raw for name in names)


def keyed(data: bytes, texts: Neighbours) -> bytes:
    """What the cache's content key hashes: the file's bytes, and its neighbours' when it has any
    (a neighbour changed is another migration of the file)."""
    if not texts:
        return data
    digest = hashlib.sha256()
    for name, text in texts.items():
        digest.update(name.encode() + b"\0" + text.encode("utf-8", "surrogatepass") + b"\0")
    return data + b"\0neighbours\0" + digest.hexdigest().encode()
