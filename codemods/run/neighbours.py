"""The modules beside a kernel file that it imports (`from decode_indexer_compressor import
indexer_compressor`), transitively, as texts: a kernel of another module may write a tensor the
file's entry hands it, and the migration reads what it does there (PTO142). Resolved as verify
resolves a package (`interp.package.folder_imports`: a flat module of the file's own folder).
What cannot be read or parsed is left out, and the migration then knows as little as before.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from ..interp.package import folder_imports
from ..text.sources import FileProblem, decode, read_bytes

MAX_MODULES = 64  # a folder of more is not one package; past it the rest is not read
MAX_BYTES = 2_000_000


def neighbours(path: Path | None, data: bytes) -> dict[str, str]:
    """Module name -> text of each module of `path`'s folder that the file imports, transitively."""
    if path is None or b"pypto" not in data or b"import" not in data:
        return {}
    folder = str(Path(path).resolve().parent)
    found: dict[str, str] = {}
    todo = [data]
    while todo and len(found) < MAX_MODULES:
        try:
            tree = ast.parse(todo.pop())
        except (SyntaxError, ValueError):
            continue
        for name, _ in folder_imports(tree, folder):
            if name in found or (Path(folder) / f"{name}.py").resolve() == Path(path).resolve():
                continue
            try:
                raw = read_bytes(Path(folder) / f"{name}.py", MAX_BYTES)
                found[name] = decode(raw)
            except (FileProblem, UnicodeDecodeError, ValueError):
                continue
            todo.append(raw)
    return dict(sorted(found.items()))


def keyed(data: bytes, texts: dict[str, str]) -> bytes:
    """What the cache's content key hashes: the file's bytes, and its neighbours' when it has any
    (a neighbour changed is another migration of the file)."""
    if not texts:
        return data
    digest = hashlib.sha256()
    for name, text in texts.items():
        digest.update(name.encode() + b"\0" + text.encode("utf-8", "surrogatepass") + b"\0")
    return data + b"\0neighbours\0" + digest.hexdigest().encode()
