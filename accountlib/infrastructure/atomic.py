"""Files that are either absent or whole: atomic writes, content hashes, checked CSV reading.

Infrastructure layer of :mod:`accountlib` (no privacy knowledge). Every result file of a sweep or a chapter
is written through :func:`write_text_atomically`: a temporary file in the same folder, flushed and
``fsync``-ed, then ``os.replace``-d over the target, so a crash leaves the old file or the new one, never
half of one.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import tempfile
from decimal import Decimal, InvalidOperation
from pathlib import Path

__all__ = ["write_text_atomically", "write_csv_atomically", "sha256_of", "finite_decimal", "read_csv", "read_capped",
           "append_line", "CHUNK"]


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` so that ``path`` either does not exist or holds the whole file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        os.fchmod(handle, 0o644)  # world-readable, like any result file (mkstemp creates 0600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def write_csv_atomically(path: Path, header, rows) -> None:
    """Write a CSV atomically (see :func:`write_text_atomically`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    write_text_atomically(path, buffer.getvalue())


CHUNK = 1 << 20


def read_capped(path: Path, limit: int, *, opener=None) -> bytes:
    """The bytes of ``path``, or ``ValueError`` as soon as more than ``limit`` bytes have been read.

    The cap counts the bytes actually read, not the size the file reports, so a device (/dev/zero), a pipe or
    a FIFO cannot bypass it; ``opener`` (``gzip.open``, say) makes it count decompressed bytes. A FIFO with no
    writer reads as empty instead of blocking.
    """
    path = Path(path)
    if opener is None:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            if hasattr(os, "set_blocking"):
                os.set_blocking(descriptor, True)  # non-blocking only for the open (a FIFO without a writer)
            handle = os.fdopen(descriptor, "rb")
        except BaseException:
            os.close(descriptor)
            raise
    else:
        handle = opener(path, "rb")
    chunks, total = [], 0
    with handle:
        while True:
            chunk = handle.read(min(CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise ValueError(f"larger than the limit of {limit:,} bytes (read {total:,} bytes and stopped)")
    return b"".join(chunks)


def append_line(path: Path, line: str) -> None:
    """Append ``line`` to ``path`` as one whole line: if the file does not end with a newline (a writer was killed
    mid-line), a newline is written first, so a torn line is never glued to the next record. One ``write`` on an
    ``O_APPEND`` descriptor."""
    path = Path(path)
    text = line.rstrip("\n") + "\n"
    with open(path, "a+b") as handle:
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                text = "\n" + text
        handle.write(text.encode("utf-8"))


def sha256_of(path: Path) -> str:
    """The SHA-256 hex digest of the file at ``path``."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def finite_decimal(text: str, where: str) -> Decimal:
    """``text`` as a finite ``Decimal``; anything else raises ``ValueError`` naming ``where``."""
    try:
        value = Decimal(text)
    except (InvalidOperation, TypeError):
        raise ValueError(f"{where}: {text!r} is not a decimal number") from None
    if not value.is_finite():
        raise ValueError(f"{where}: {text!r} is not finite")
    return value


def read_csv(path: Path, header) -> list[list[str]]:
    """The rows below the header of the CSV file at ``path``, as lists of strings; a missing or unreadable file, a
    header other than ``header`` or a row of the wrong length raises ``ValueError`` naming the file (and line)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: unreadable ({type(error).__name__})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != tuple(header):
        raise ValueError(f"{path}: the header is not {','.join(header)}")
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}: line {n} has {len(row)} fields, expected {len(header)}")
    return rows[1:]
