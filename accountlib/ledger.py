"""The reproduction ledger: every number a paper reports, beside the number we computed.

Chapters call :func:`record` for each claim they reproduce. Records live in
``results/ledger.json`` (a JSON list of objects with keys ``id``, ``source``,
``paper``, ``ours``, ``tolerance``, ``verdict`` and, where useful, ``note``);
a record with an existing ``id`` is replaced, so re-running a chapter updates
its claims instead of duplicating them. The book's ledger page renders the file
as one table.

The verdict is computed, never asserted: ``"pass"`` when ``ours`` is within the
tolerance of the paper's value, ``"fail"`` otherwise, and ``"explained"`` only
when the caller gives ``explanation`` for a difference (the text goes into
``note``).

Tolerances
----------
``tolerance`` is either a number (absolute) or one of

* ``"printed"`` — ours must round to the paper's printed digits: the allowed
  difference is half a unit in the last printed digit of ``paper`` (given as a
  string, e.g. ``"8.34e-6"``);
* ``"rel:1e-6"`` — relative to the paper's value;
* ``"abs:1e-9"`` — absolute;
* ``"bound"`` — the paper states an upper bound (``paper="<1e-50"``) and
  ours must lie below it, or a lower bound (``paper=">0"``, e.g. the sign of
  an effect) and ours must lie above it.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

__all__ = ["record", "load", "ledger_path", "printed_tolerance", "judge"]

_FIELDS = ("id", "source", "paper", "ours", "tolerance", "verdict")


def ledger_path() -> Path:
    """Where the ledger lives: ``$ACCOUNTLIB_RESULTS/ledger.json`` if set, else
    ``results/ledger.json`` in the nearest folder above the working directory
    that holds the book (``_toc.yml``), else ``./results/ledger.json``."""
    override = os.environ.get("ACCOUNTLIB_RESULTS")
    if override:
        return Path(override) / "ledger.json"
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder / "results" / "ledger.json"
    return here / "results" / "ledger.json"


def printed_tolerance(paper: str) -> float:
    """Half a unit in the last digit printed in ``paper`` (e.g. ``"8.34e-6"`` → 5e-9).

    >>> printed_tolerance("72.21")
    0.005
    >>> printed_tolerance("8.34e-6")
    5e-09
    """
    exponent = Decimal(paper.strip()).as_tuple().exponent
    return float(Decimal(5) * Decimal(10) ** (exponent - 1))


def judge(paper, ours, tolerance) -> tuple[str, str]:
    """Return ``(verdict, tolerance_text)`` for one claim; see the module docstring."""
    if tolerance == "bound":
        text = str(paper).strip()
        if text.startswith((">", "≥")):
            limit = _exact(text.lstrip(">≥ ").strip())
            return ("pass" if _exact(ours) > limit else "fail"), "lower bound"
        limit = _exact(text.lstrip("<≤ ").strip())
        return ("pass" if _exact(ours) < limit else "fail"), "upper bound"
    if tolerance == "printed":
        allowed = printed_tolerance(str(paper))
        text = f"printed digits (±{allowed:.3g})"
    elif isinstance(tolerance, str) and tolerance.startswith("rel:"):
        allowed = float(tolerance[4:]) * abs(float(_exact(paper)))
        text = f"relative {float(tolerance[4:]):.3g}"
    elif isinstance(tolerance, str) and tolerance.startswith("abs:"):
        allowed = float(tolerance[4:])
        text = f"absolute {allowed:.3g}"
    elif isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool):
        allowed = float(tolerance)
        text = f"absolute {allowed:.3g}"
    else:
        raise ValueError(
            f"tolerance must be a number, 'printed', 'bound', 'rel:X' or 'abs:X'; got {tolerance!r}"
        )
    difference = abs(_exact(ours) - _exact(paper))  # exact rational arithmetic: "3/22" and decimals alike
    # a hair of slack so that an exact tie at half a unit (ours rounds either way) still passes
    verdict = "pass" if difference <= Fraction(allowed) * (1 + Fraction(1, 10**9)) else "fail"
    return verdict, text


def _exact(value) -> Fraction:
    """A number, a decimal or fraction string, or an mpf, as an exact Fraction."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ValueError(f"cannot judge a non-finite value {value!r}")
        return Fraction(value)
    return Fraction(str(value).strip())


def _jsonable(value):
    """Numbers stay JSON numbers when a float holds them exactly enough; otherwise a string."""
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return value
    text = str(value)
    try:
        as_float = float(text)
    except ValueError:
        return text
    return as_float if repr(as_float) == text else text


def load(path: Path | None = None) -> list[dict]:
    """All records, in the order they were first recorded."""
    path = Path(path) if path else ledger_path()
    if not path.is_file():
        return []
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def record(
    id: str,
    *,
    source: str,
    paper,
    ours,
    tolerance,
    explanation: str | None = None,
    path: Path | None = None,
) -> dict:
    """Record one reproduced claim and return the stored entry.

    Parameters
    ----------
    id : a stable identifier such as ``"sieve.A1.lambda4.sigma2=1"``.
    source : paper and location, e.g. ``"Sieve paper, Appendix A.1"``.
    paper : the paper's value, as printed (a string keeps its printed digits).
    ours : our computed value (float, mpf, or a decimal string).
    tolerance : see the module docstring.
    explanation : when given and the comparison fails, the verdict is
        ``"explained"`` and this text is stored as the note.
    """
    if not id or not isinstance(id, str):
        raise ValueError(f"id must be a non-empty string; got {id!r}")
    verdict, tolerance_text = judge(paper, ours, tolerance)
    entry = {
        "id": id,
        "source": source,
        "paper": _jsonable(paper),
        "ours": _jsonable(ours),
        "tolerance": tolerance_text,
        "verdict": verdict,
    }
    if explanation:
        entry["note"] = explanation
        if verdict == "fail":
            entry["verdict"] = "explained"
    path = Path(path) if path else ledger_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # chapters run in parallel under papermill sweeps
        entries = load(path)
        for index, existing in enumerate(entries):
            if existing["id"] == id:
                entries[index] = entry
                break
        else:
            entries.append(entry)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".ledger-", suffix=".json")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(entries, out, indent=1, ensure_ascii=False)
            out.write("\n")
        os.replace(temporary, path)
    return entry
