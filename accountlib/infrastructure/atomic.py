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

__all__ = ["write_text_atomically", "write_csv_atomically", "sha256_of", "finite_decimal", "read_csv"]


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


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def finite_decimal(text: str, where: str) -> Decimal:
    try:
        value = Decimal(text)
    except (InvalidOperation, TypeError):
        raise ValueError(f"{where}: {text!r} is not a decimal number") from None
    if not value.is_finite():
        raise ValueError(f"{where}: {text!r} is not finite")
    return value


def read_csv(path: Path, header) -> list[list[str]]:
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
