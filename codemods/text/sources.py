"""Reading and writing kernel files without losing a byte.

Text is decoded strictly as UTF-8 with newlines untouched (CRLF stays CRLF) and a BOM kept
as the first character, so that output == input wherever no rule fired. Writes are atomic:
a temporary file in the same folder, fsync, then rename over the original, keeping its mode.
A symlink is written through: its target is replaced and the link stays, as Black and Ruff
do. Only regular files are read: a named pipe would block a read forever.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class FileProblem(Exception):
    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def display_path(path: Path) -> str:
    """How a file is named to the user: relative to the current folder when under it."""
    name = os.fspath(path)
    if not os.path.isabs(name) and not (rel := os.path.normpath(name)).startswith(".."):
        return Path(rel).as_posix()  # what relpath gives, without asking for the current folder
    rel = os.path.relpath(path)
    return Path(rel).as_posix() if not rel.startswith("..") else Path(os.path.abspath(path)).as_posix()


def not_regular(path: Path) -> str | None:
    """Why `path` is no file to process (a symlink loop, a FIFO, a device), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return _os_reason(path, exc)
    return None if stat.S_ISREG(mode) else _kind(mode)


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return f"not a regular file ({what})"
    return "not a regular file"


def _os_reason(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return "broken symlink"
    return (exc.strerror or str(exc)).lower()


def read_text(path: Path) -> str:
    return decode(read_bytes(path))


def read_bytes(path: Path, limit: int = 0) -> bytes:
    """The file's bytes; a file over `limit` bytes (0: no limit) is refused before it is read."""
    try:
        # O_NONBLOCK: opening a named pipe must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FileProblem(f"cannot read: {_os_reason(path, exc)}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"cannot read: {_kind(info.st_mode)}")
        if limit and info.st_size > limit:
            raise FileProblem(
                f"{size_text(info.st_size)}, over the size limit of {size_text(limit)}; skipped, left as it was "
                "(--max-file-size raises the limit; migrating takes about 1 GB of memory per MB of source)"
            )
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError as exc:
        raise FileProblem(f"cannot read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


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
    """Replace `path` (its target, for a symlink) with `text`; on any failure it is left as it was."""
    try:
        path = Path(os.path.realpath(path, strict=True))
        info = path.stat()
    except OSError as exc:
        raise FileProblem(f"cannot write: {_os_reason(path, exc)}") from exc
    if not os.access(path, os.W_OK):
        # The OS decides, as for Black, Ruff or `sed -i`: a user who may not write the file is
        # refused. A replace by rename would get past the file's own mode, so ask first.
        raise FileProblem("file is read-only; not written")
    try:
        import tempfile  # only to write: a read-only run never pays for it

        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".pypto-migrate", dir=path.parent)
    except OSError as exc:
        # The rename needs a new entry in the folder: a read-only folder refuses it.
        reason = "permission denied: its folder is read-only to this user" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) \
            else (exc.strerror or str(exc)).lower()
        raise FileProblem(f"cannot write: {reason}; left as it was") from exc
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
