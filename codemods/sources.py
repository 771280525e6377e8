"""Reading and writing kernel files without losing a byte.

Text is decoded strictly as UTF-8 with newlines untouched (CRLF stays CRLF) and a BOM kept
as the first character, so that output == input wherever no rule fired. Writes are atomic:
a temporary file in the same folder, fsync, then rename over the original, keeping its mode.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class FileProblem(Exception):
    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def read_text(path: Path) -> str:
    return decode(read_bytes(path))


def read_bytes(path: Path, limit: int = 0) -> bytes:
    """The file's bytes; a file over `limit` bytes (0: no limit) is refused before it is read."""
    try:
        if limit:
            size = path.stat().st_size
            if size > limit:
                raise FileProblem(
                    f"{size_text(size)}, over the size limit of {size_text(limit)}; skipped, left as it was "
                    "(--max-file-size raises the limit; migrating takes about 1 GB of memory per MB of source)"
                )
        return path.read_bytes()
    except OSError as exc:
        raise FileProblem(f"cannot read: {exc.strerror or exc}") from exc


def parse_size(text: str) -> int:
    """`2MB`, `500kB`, `3M`, `1048576`: a size in bytes (decimal units; 0 means no limit)."""
    number = text.strip().upper().removesuffix("B").strip()
    factor = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}.get(number[-1:], 1)
    if factor > 1:
        number = number[:-1]
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"{text!r} is not a size (write e.g. 2MB, 500kB, 0 for no limit)") from None
    if value < 0:
        raise ValueError(f"{text!r}: a size cannot be negative")
    return int(value * factor)


def size_text(size: int) -> str:
    for unit, factor in (("MB", 1_000_000), ("kB", 1_000)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}".replace(".0 ", " ")
    return f"{size} bytes"


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FileProblem(f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded", line, column) from exc


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text`; on any failure the original is left as it was."""
    info = path.stat()
    if not os.access(path, os.W_OK):
        # The OS decides, as for Black, Ruff or `sed -i`: a user who may not write the file is
        # refused. A replace by rename would get past the file's own mode, so ask first.
        raise FileProblem("file is read-only; not written")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".pypto-migrate", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(info.st_mode))
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise FileProblem(f"cannot write: {exc.strerror or exc}") from exc
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
