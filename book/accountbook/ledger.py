"""The reproduction ledger: every number a paper reports, beside the number we computed.

Chapters call :func:`record` for each claim they reproduce, and
:func:`not_reproducible` for a claim that cannot be tested here. Records live in
``results/ledger.json``, written only by a run that asks for it (:data:`RESULTS_VARIABLE`: the book build at the
chapters' default parameters, ``python -m accountbook.claim_checks``, a sweep into its own folder); any other
execution of a chapter computes and judges its claims but stores them nowhere. The file is a JSON list of objects with the keys ``id``,
``source``, ``paper``, ``ours``, ``tolerance``, ``verdict`` and ``reason``, plus
``basis``, ``quote``, ``tolerance_reason``, ``checks`` and ``note`` where they
apply. A record with an existing ``id`` is replaced, so re-running a chapter
updates its claims instead of duplicating them; but a record that says the same
as the stored one (the same verdict and texts, each value within its tolerance
of the stored value: :func:`says_the_same`) is kept, and the file is not
written, so that running the chapters on another machine, whose float64 results
differ in their last bits, leaves the ledger unchanged. The book's ledger page
renders the file.

Where the compared value comes from (``basis``)
-------------------------------------------------
* ``"paper"`` (default) — printed in one of the two papers. ``source`` names the
  paper and a locator (section, table, figure, equation, appendix, ...) and
  ``quote`` holds the sentence or table cell the value is read from, verbatim.
* ``"authors' released data"`` — published by the authors outside the paper
  text (e.g. their released result files).
* ``"official publication"`` — printed by the data's publisher outside the papers (the Census Bureau's signed
  privacy certificates of the 2020 redistricting data, in the chapter "The redistricting data, exactly"). ``source`` names the document.
* ``"derived here"`` — not printed anywhere; an independent value worked out in
  the book (by hand, in closed form, or by a second method) that ours is
  checked against. ``source`` says how.

Verdicts
--------
The verdict is computed, never asserted:

* ``"pass"`` — ``ours`` is within the tolerance of the compared value;
* ``"fail"`` — it is not (and no checked explanation was given);
* ``"explained"`` — it is not, the caller gave an ``explanation`` *and* one or
  more ``check`` entries that test the explanation itself, and every check
  passes. An explanation without a check, or with a failing one, stays
  ``"fail"``;
* ``"not reproducible here"`` — recorded with :func:`not_reproducible` when the
  claim cannot be tested on what we have (another machine's timing, data we do
  not have, a check that could not fail on our data); ``reason`` says why.

Every entry carries a ``reason``: the comparison that decided its verdict.

Tolerances
----------
``tolerance`` is either a number (absolute) or one of

* ``"printed"`` — ours must round to the paper's printed digits: the allowed
  difference is half a unit in the last printed digit of ``paper`` (given as a
  string, e.g. ``"8.34e-6"``);
* ``"exact"`` — equal, for counts and exact rationals;
* ``"rel:1e-6"`` — relative to the paper's value;
* ``"abs:1e-9"`` — absolute;
* ``"bound"`` — the paper states an upper bound (``paper="<1e-50"``) and
  ours must lie below it, or a lower bound (``paper=">0"``, e.g. the sign of
  an effect) and ours must lie above it.

A tolerance other than ``"printed"``, ``"exact"`` or ``"bound"`` needs a written
``tolerance_reason``; :func:`audit` reports entries without one.

Claims as data
--------------
What a claim says — its source, basis, the paper's value, the quote, the tolerance and its reason, the
explanation of a difference with the claim, expected value and tolerance of each check of it, and for a
claim that cannot be tested here the reason — lives in ``accountbook/data/claims.toml``, one table per id.
A chapter passes only what it computed to :func:`reproduce`::

    ledger.reproduce({"sieve.§4.nodes_13_13": count}, checks={"sieve.§4.nodes_13_13": [count_at_1e25]})
    ledger.reproduce(not_reproducible=["sieve.abstract.speedup_1824"])

Claims that no chapter computes (bounds the papers state, closed forms against a second computation, the
census results the sweep stored) are computed and recorded the same way by :mod:`accountbook.claim_checks`
(``python -m accountbook.claim_checks``).

A field the data file leaves out because it is computed (a value derived in the book, a tolerance from the
seed spread) is passed with the value, as a dict ``{"ours": ..., "paper": ...}``; a ``{name}`` in a text of
the data file is filled from the dict's ``"fields"``. :func:`claim` returns one claim's data, for a chapter
that prints the paper's value beside ours.
"""

from __future__ import annotations

import fcntl
import json
import tomllib
import math
import os
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from accountlib.infrastructure.atomic import write_text_atomically
from accountlib.infrastructure.numbers import as_fraction

__all__ = [
    "reproduce", "claim", "claims", "record", "not_reproducible", "remove", "load", "ledger_path", "recording_path",
    "RESULTS_VARIABLE",
    "printed_tolerance", "judge", "audit", "VERDICTS", "BASES", "CLAIMS_PATH",
]

_FIELDS = ("id", "source", "paper", "ours", "tolerance", "verdict")
VERDICTS = ("pass", "fail", "explained", "not reproducible here")
BASES = ("paper", "authors' released data", "official publication", "derived here")
NOT_REPRODUCIBLE = "not reproducible here"

# a source that quotes a paper must say where: section, table, figure, equation, ...
_LOCATOR = re.compile(
    r"§|\b(Table|Figure|Fig\.|Appendix|Eq\.|Equation|Lemma|Prop\.|Proposition|Theorem|Corollary|"
    r"Example|Algorithm|Abstract|abstract|Section|Definition|Remark)\b|\(\d+(\.\d+)*\)"
)
_NOT_IN_REPOSITORY = re.compile(r"\b(MATH|DESIGN|TOOLCHAIN)\.md\b")
_SELF_EVIDENT = ("printed", "exact", "bound")
CLAIMS_PATH = Path(__file__).parent / "data" / "claims.toml"
_CLAIM_KEYS = {"source", "basis", "paper", "compared", "quote", "tolerance", "tolerance_reason", "explanation", "checks",
               "reason"}
_COMPUTABLE = ("paper", "tolerance", "tolerance_reason")  # may come from the chapter when the data file omits them
_claims_cache: dict = {}


def claims(path: Path | None = None) -> dict[str, dict]:
    """Every claim of the data file (``accountbook/data/claims.toml``), by id."""
    path = Path(path) if path else CLAIMS_PATH
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _claims_cache:
        with open(path, "rb") as handle:
            table = tomllib.load(handle).get("claims", {})
        for name, data in table.items():
            unknown = set(data) - _CLAIM_KEYS
            if unknown:
                raise ValueError(f"claim {name!r} in {path.name}: unknown keys {sorted(unknown)}")
        _claims_cache.clear()
        _claims_cache[key] = table
    return _claims_cache[key]


def claim(id: str, path: Path | None = None) -> dict:
    """One claim of the data file (a copy); an unknown id raises ValueError."""
    table = claims(path)
    if id not in table:
        raise ValueError(f"unknown claim {id!r}: no such id in {Path(path or CLAIMS_PATH).name}")
    return json.loads(json.dumps(table[id]))


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _filled(text, fields: dict, id: str):
    """``text`` with each ``{name}`` of ``fields`` filled in (texts without fields are left alone)."""
    if text is None or not fields:
        return text
    return _PLACEHOLDER.sub(lambda m: str(fields[m.group(1)]) if m.group(1) in fields else m.group(0), str(text))


def _computed(id: str, given, allowed: tuple, what: str) -> dict:
    """What a chapter passed for one claim or check: a bare value is ``ours``; a dict may add computed fields."""
    if isinstance(given, dict):
        unknown = set(given) - {"ours", "fields", *allowed}
        if unknown:
            raise ValueError(f"claim {id!r}: {what} has unknown keys {sorted(unknown)} (allowed: ours, fields, "
                             f"{', '.join(allowed)})")
        given = dict(given)
    else:
        given = {"ours": given}
    if given.get("ours") is None and what != "not reproducible":
        raise ValueError(f"claim {id!r}: {what} has no computed value (ours)")
    return given


def _merge(id: str, data: dict, given: dict, keys) -> dict:
    """The data file's fields completed by the computed ones; each needed exactly once."""
    merged = {}
    for key in keys:
        if key in data and key in given:
            raise ValueError(f"claim {id!r}: {key!r} is in the data file; the chapter must not pass it")
        if key in given:
            merged[key] = given[key]
        elif key in data:
            merged[key] = data[key]
    return merged


def reproduce(values: dict | None = None, *, checks: dict | None = None, not_reproducible=(),
              path: Path | None = None, claims_path: Path | None = None) -> list[dict]:
    """Record the claims of ``values`` (id → what we computed) and ``not_reproducible`` (ids, or id → what we
    measured nonetheless), everything else read from the data file; returns the stored entries.

    ``values[id]`` is ``ours``, or a dict with ``"ours"`` and the computed fields the data file leaves out
    (``"paper"``, ``"tolerance"``, ``"tolerance_reason"``) and ``"fields"`` for the ``{name}`` in its texts.
    A claim whose data has ``compared`` (one recorded as not reproducible until our runs can test it) is
    compared with that value instead of the printed ``paper``.
    ``checks[id]`` gives ``ours`` of each check of the claim's explanation, in the data file's order (a bare
    value for a single check); an item may be a dict ``{"ours", "expected"}`` when the expected value is
    computed. An unknown id, a missing value or a missing check raises ValueError.

    >>> import tempfile, pathlib
    >>> where = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> reproduce({"unifying.4.4.nu_star": "6.013052641"}, path=where)[0]["verdict"]
    'pass'
    """
    values = dict(values or {})
    checks = dict(checks or {})
    table = claims(claims_path)
    if isinstance(not_reproducible, (str, bytes)):
        not_reproducible = [not_reproducible]
    not_reproducible = (dict(not_reproducible) if isinstance(not_reproducible, dict)
                        else {name: None for name in not_reproducible})
    for name in (*values, *checks, *not_reproducible):
        if name not in table:
            raise ValueError(f"unknown claim {name!r}: no such id in {Path(claims_path or CLAIMS_PATH).name}")
    for name in checks:
        if name not in values:
            raise ValueError(f"claim {name!r}: checks given but no value for the claim itself")
    both = set(values) & set(not_reproducible)
    if both:
        raise ValueError(f"claims {sorted(both)} are given both a value and as not reproducible")
    # validate everything before recording anything
    prepared = []
    for name, given in values.items():
        data = table[name]
        given = _computed(name, given, _COMPUTABLE, "the value")
        fields = given.get("fields") or {}
        merged = _merge(name, data, given, _COMPUTABLE)
        if "compared" in data:  # a claim recorded as not reproducible until it can be tested: this is its test
            merged["paper"] = data["compared"]
        for key in ("paper", "tolerance"):
            if key not in merged:
                raise ValueError(f"claim {name!r}: no {key!r}: the data file has none, so the chapter must pass it")
        wanted = data.get("checks", [])
        got = checks.get(name, [])
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        if len(got) != len(wanted):
            raise ValueError(f"claim {name!r}: {len(wanted)} check value(s) expected (the data file's checks), "
                             f"got {len(got)}")
        judged = []
        for spec, item in zip(wanted, got):
            item = _computed(name, item, ("expected",), "a check")
            merged_check = _merge(name, spec, item, ("expected",))
            if "expected" not in merged_check:
                raise ValueError(f"claim {name!r}: check {spec['claim']!r} has no expected value in the data file, "
                                 "so the chapter must pass it")
            judged.append({"claim": _filled(spec["claim"], fields, name), "expected": merged_check["expected"],
                           "ours": item["ours"], "tolerance": spec["tolerance"]})
        prepared.append(("record", name, dict(
            source=_filled(data["source"], fields, name), paper=merged["paper"], ours=given["ours"],
            tolerance=merged["tolerance"], basis=data.get("basis", "paper"), quote=data.get("quote"),
            tolerance_reason=_filled(merged.get("tolerance_reason"), fields, name),
            explanation=_filled(data.get("explanation"), fields, name), check=judged or None)))
    for name, given in not_reproducible.items():
        data = table[name]
        if "reason" not in data:
            raise ValueError(f"claim {name!r}: the data file gives no reason why it cannot be reproduced here")
        given = _computed(name, given, ("paper",), "not reproducible")
        fields = given.get("fields") or {}
        merged = _merge(name, data, given, ("paper",))
        if "paper" not in merged:
            raise ValueError(f"claim {name!r}: no 'paper': the data file has none, so the chapter must pass it")
        prepared.append(("not_reproducible", name, dict(
            source=_filled(data["source"], fields, name), paper=merged["paper"], ours=given.get("ours"),
            basis=data.get("basis", "paper"), quote=data.get("quote"),
            reason=_filled(data["reason"], fields, name))))
    out = []
    for kind, name, arguments in prepared:
        if kind == "record":
            out.append(record(name, path=path, **arguments))
        else:
            out.append(globals()["not_reproducible"](name, path=path, **arguments))
    return out


def _results_folder(value: str) -> Path:
    """``$ACCOUNTLIB_RESULTS`` checked: an absolute path of a folder (existing or not), so that a chapter
    running in ``notebooks/`` and a test in the repository root mean the same place."""
    text = value.strip()
    folder = Path(text)
    if not text or not folder.is_absolute():
        raise ValueError(f"ACCOUNTLIB_RESULTS must be the absolute path of a folder for ledger.json; got {value!r}")
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"ACCOUNTLIB_RESULTS must name a folder, not a file; got {value!r}")
    return folder


RESULTS_VARIABLE = "ACCOUNTLIB_RESULTS"
"""The environment variable naming the folder whose ``ledger.json`` the chapters record in. Only a run that sets it
records: the book build at the chapters' default parameters (``make book``, and ``make test``'s one default
execution of each chapter) sets it to the repository's ``results``, a sweep to a folder of its own. Every other
execution — a chapter run in ``make lab``, with papermill, with an exercise's changed parameters — leaves it unset
and writes no ledger at all, so that a reader's run never changes the committed results."""


def ledger_path() -> Path:
    """Where the ledger is read from: ``$ACCOUNTLIB_RESULTS/ledger.json`` if set (an absolute folder path; anything
    else raises ValueError), else
    ``results/ledger.json`` in the nearest folder above the working directory
    that holds the book (``_toc.yml``), else ``./results/ledger.json``."""
    override = os.environ.get(RESULTS_VARIABLE)
    if override is not None:
        return _results_folder(override) / "ledger.json"
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder / "results" / "ledger.json"
    return here / "results" / "ledger.json"


def recording_path() -> Path | None:
    """Where :func:`record`, :func:`reproduce` and :func:`remove` write when given no ``path``:
    ``$ACCOUNTLIB_RESULTS/ledger.json`` when that variable is set (see :data:`RESULTS_VARIABLE`), else None:
    nowhere (the entries are computed, judged and returned, but not stored)."""
    return ledger_path() if os.environ.get(RESULTS_VARIABLE) is not None else None


def printed_tolerance(paper: str) -> float:
    """Half a unit in the last digit printed in ``paper`` (e.g. ``"8.34e-6"`` → 5e-9).

    >>> printed_tolerance("72.21")
    0.005
    >>> printed_tolerance("8.34e-6")
    5e-09
    """
    try:
        exponent = Decimal(str(paper).strip()).as_tuple().exponent
    except InvalidOperation:
        raise ValueError(
            f"paper must be a decimal string such as '8.34e-6' for tolerance 'printed'; got {paper!r}"
        ) from None
    return float(Decimal(5) * Decimal(10) ** (exponent - 1))


def _show(value: Fraction) -> str:
    return f"{float(value):.3g}"


def _compare(paper, ours, tolerance) -> tuple[str, str, str]:
    """``(verdict, tolerance_text, reason)`` for one comparison; see the module docstring."""
    if tolerance == "bound":
        text = str(paper).strip()
        if text.startswith((">", "≥")):
            limit = _exact(text.lstrip(">≥ ").strip())
            ok = _exact(ours) > limit
            return ("pass" if ok else "fail"), "lower bound", f"ours {_show(_exact(ours))} {'>' if ok else '≤'} {_show(limit)}"
        limit = _exact(text.lstrip("<≤ ").strip())
        ok = _exact(ours) < limit
        return ("pass" if ok else "fail"), "upper bound", f"ours {_show(_exact(ours))} {'<' if ok else '≥'} {_show(limit)}"
    if tolerance == "exact":
        ok = _exact(ours) == _exact(paper)
        return ("pass" if ok else "fail"), "exact", "equal" if ok else f"{ours} ≠ {paper}"
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
            "tolerance must be a number, 'printed', 'exact', 'bound', 'rel:X' or 'abs:X'; "
            f"got {tolerance!r}"
        )
    if not math.isfinite(allowed) or allowed < 0:
        raise ValueError(f"tolerance must be finite and non-negative; got {tolerance!r}")
    difference = abs(_exact(ours) - _exact(paper))  # exact rational arithmetic: "3/22" and decimals alike
    # a hair of slack so that an exact tie at half a unit (ours rounds either way) still passes
    ok = difference <= Fraction(allowed) * (1 + Fraction(1, 10**9))
    reason = f"|ours − value| = {_show(difference)} {'≤' if ok else '>'} {allowed:.3g}"
    return ("pass" if ok else "fail"), text, reason


def judge(paper, ours, tolerance) -> tuple[str, str]:
    """Return ``(verdict, tolerance_text)`` for one claim; see the module docstring."""
    verdict, text, _ = _compare(paper, ours, tolerance)
    return verdict, text


def _exact(value) -> Fraction:
    """A number, a decimal or fraction string, or an mpf, as an exact Fraction."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or value is None:
        raise ValueError(f"cannot judge {value!r}: give a number or a decimal/fraction string")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValueError(f"cannot judge a non-finite value {value!r}")
        return as_fraction(value, "value", floats="binary", bounded=False)
    try:  # anything else (a string, an mpf) as the decimal it prints as
        return as_fraction(str(value).strip(), "value", floats="binary", bounded=False)
    except ValueError:
        raise ValueError(f"cannot judge {value!r}: give a number or a decimal/fraction string") from None


def _jsonable(value):
    """Numbers stay JSON numbers when a float holds them exactly enough; otherwise a string."""
    if value is None or (isinstance(value, (int, float, str)) and not isinstance(value, bool)):
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


def _checked(check) -> list[dict]:
    """Judge the checks of an explanation: each ``{"claim", "expected", "ours", "tolerance"}``."""
    checks = [check] if isinstance(check, dict) else list(check or [])
    judged = []
    for item in checks:
        if not isinstance(item, dict) or not {"claim", "expected", "ours", "tolerance"} <= set(item):
            raise ValueError(
                "check must be a dict (or a list of dicts) with keys 'claim', 'expected', 'ours', "
                f"'tolerance'; got {item!r}"
            )
        verdict, text, reason = _compare(item["expected"], item["ours"], item["tolerance"])
        judged.append({
            "claim": str(item["claim"]), "expected": _jsonable(item["expected"]),
            "ours": _jsonable(item["ours"]), "tolerance": text, "verdict": verdict, "reason": reason,
        })
    return judged


def _validate(id, source, basis):
    if not id or not isinstance(id, str):
        raise ValueError(f"id must be a non-empty string; got {id!r}")
    if not source or not isinstance(source, str):
        raise ValueError(f"source must be a non-empty string naming where the value comes from; got {source!r}")
    if basis not in BASES:
        raise ValueError(f"basis must be one of {BASES}; got {basis!r}")
    if _NOT_IN_REPOSITORY.search(source):
        raise ValueError(f"source must cite the papers or the book, not a developers' note; got {source!r}")
    if basis == "paper" and not _LOCATOR.search(source):
        raise ValueError(
            "source must locate the value in the paper (section §, Table, Figure, Appendix, equation, ...) "
            f"when basis is 'paper'; got {source!r}"
        )


# a number inside a reason ("|ours − value| = 3.2e-09 ≤ 5e-09"): reasons are compared without their numbers,
# which only restate ``ours`` (compared within its tolerance) and the tolerance (compared as text)
_NUMBER = re.compile(r"[-+−]?(?:\d+(?:[.,]\d*)?|\.\d+)(?:[eE][-+]?\d+)?")

# A bound ("<1e-50", ">0") has no tolerance of its own: what it says is the side of the limit ours lies on. A
# value on the same side counts as the same when it moved by less than this fraction of the larger of |limit| and
# |ours|. Bounds are where the book compares rounding residues and calibration residues (ε_0 − ε(z) ≈ 1e-9, a
# difference of numbers near 3), whose digits differ between machines by tens of percent; a tenth of the limit
# absorbs that and still rewrites any value that moved towards the limit by a tenth of it.
BOUND_AGREEMENT = Fraction(1, 10)


def _allowed(paper, ours, tolerance) -> Fraction:
    """How far ``ours`` may move and still say the same thing: the tolerance's allowed difference (0 for
    ``"exact"``; for ``"bound"`` see ``BOUND_AGREEMENT``)."""
    if tolerance == "bound":
        limit = _exact(str(paper).strip().lstrip("<>≤≥ ").strip())
        return BOUND_AGREEMENT * max(abs(limit), abs(_exact(ours)))
    if tolerance == "exact":
        return Fraction(0)
    if tolerance == "printed":
        return Fraction(printed_tolerance(str(paper)))
    if isinstance(tolerance, str) and tolerance.startswith("rel:"):
        return as_fraction(float(tolerance[4:]), "tolerance", floats="binary") * abs(_exact(paper))
    if isinstance(tolerance, str) and tolerance.startswith("abs:"):
        return as_fraction(float(tolerance[4:]), "tolerance", floats="binary")
    return as_fraction(float(tolerance), "tolerance", floats="binary")


def _same_value(old, new, allowed: Fraction) -> bool:
    if old == new:
        return True
    try:
        return abs(_exact(new) - _exact(old)) <= allowed
    except ValueError:
        return False


def _same_text(old, new) -> bool:
    return _NUMBER.sub("#", str(old)) == _NUMBER.sub("#", str(new))


def says_the_same(stored: dict, entry: dict, allowed=None) -> bool:
    """Whether ``entry`` says what the ``stored`` record says: the same fields, verdicts and texts (a reason
    compared without its numbers), and each value (``ours``, and ``ours`` of each check) within its tolerance of
    the stored one: ``allowed`` holds the allowed differences, the claim's first and then each check's (from
    :func:`_allowed`; without it every value must be equal). Then :func:`record` keeps the stored record, so
    that re-running a chapter on a machine whose float64 rounding differs leaves the ledger file unchanged.
    """
    if set(stored) != set(entry):
        return False
    allowed = list(allowed) if allowed is not None else [Fraction(0)] * (1 + len(entry.get("checks", [])))
    for key in entry:
        if key == "ours":
            if not _same_value(stored[key], entry[key], allowed[0]):
                return False
        elif key == "reason":
            if not _same_text(stored[key], entry[key]):
                return False
        elif key == "checks":
            if len(stored[key]) != len(entry[key]) or len(allowed) != 1 + len(entry[key]):
                return False
            for old, new, tolerance in zip(stored[key], entry[key], allowed[1:]):
                if set(old) != set(new) or not _same_value(old.get("ours"), new.get("ours"), tolerance):
                    return False
                if any((old[k] != new[k]) if k != "reason" else not _same_text(old[k], new[k])
                       for k in new if k != "ours"):
                    return False
        elif stored[key] != entry[key]:
            return False
    return True


def _store(entry: dict, path: Path | None, allowed=None) -> dict:
    """Store ``entry`` (replacing the record with its id) and return the stored record. A record that
    :func:`says_the_same` is kept as it is and the file is not written at all. Without ``path`` the entry goes
    to :func:`recording_path`; where that is None it is returned and stored nowhere."""
    path = Path(path) if path else recording_path()
    if path is None:
        return entry
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # chapters run in parallel under papermill sweeps
        entries = load(path)
        for index, existing in enumerate(entries):
            if existing["id"] == entry["id"]:
                if existing == entry or says_the_same(existing, entry, allowed):
                    return existing
                entries[index] = entry
                break
        else:
            entries.append(entry)
        write_text_atomically(path, json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    return entry


def record(
    id: str,
    *,
    source: str,
    paper,
    ours,
    tolerance,
    explanation: str | None = None,
    path: Path | None = None,
    basis: str = "paper",
    quote: str | None = None,
    tolerance_reason: str | None = None,
    check=None,
) -> dict:
    """Record one reproduced claim and return the stored entry.

    Parameters
    ----------
    id : a stable identifier such as ``"sieve.A1.lambda4.sigma2=1"``.
    source : paper and locator, e.g. ``"Sieve paper, Appendix A.1"``; for another
        ``basis``, where the value comes from.
    paper : the compared value, as printed (a string keeps its printed digits).
    ours : our computed value (int, float, mpf, or a decimal/fraction string).
    tolerance : see the module docstring.
    explanation : why ours differs, when it does. It makes a failing comparison
        ``"explained"`` only together with a passing ``check``.
    basis : ``"paper"``, ``"authors' released data"``, ``"official publication"`` or ``"derived here"``.
    quote : the paper's words the value is read from, verbatim.
    tolerance_reason : why the tolerance is wider or narrower than the printed
        digits (needed for numeric, ``rel:`` and ``abs:`` tolerances).
    check : a computed test of the explanation: a dict ``{"claim": text,
        "expected": value, "ours": value, "tolerance": tolerance}`` or a list
        of them, each judged like the claim itself and stored in ``checks``.

    >>> import tempfile, pathlib
    >>> where = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> record("x", source="Paper §1", paper="0.19", ours=0.1896, tolerance="printed", path=where)["verdict"]
    'pass'
    >>> record("y", source="Paper §2", paper="6.013", ours=6.053, tolerance="printed", path=where,
    ...        explanation="ours maximises another quantity",
    ...        check={"claim": "the other quantity peaks at 6.013", "expected": "6.013", "ours": 6.0131,
    ...               "tolerance": "printed"})["verdict"]
    'explained'
    """
    _validate(id, source, basis)
    verdict, tolerance_text, reason = _compare(paper, ours, tolerance)
    entry = {
        "id": id,
        "source": source,
        "paper": _jsonable(paper),
        "ours": _jsonable(ours),
        "tolerance": tolerance_text,
        "verdict": verdict,
        "basis": basis,
    }
    if quote:
        entry["quote"] = " ".join(str(quote).split())
    if tolerance_reason:
        entry["tolerance_reason"] = tolerance_reason
    checks = _checked(check)
    if checks:
        entry["checks"] = checks
    if explanation:
        entry["note"] = explanation
    if verdict == "fail" and explanation:
        if not checks:
            reason += "; the explanation given has no computed check, so the difference stays unexplained"
        elif all(c["verdict"] == "pass" for c in checks):
            entry["verdict"] = "explained"
            reason = f"{reason}; explained: {explanation} Checked: " + "; ".join(
                f"{c['claim']}: {c['reason']} ({c['verdict']})" for c in checks)
        else:
            reason += "; the explanation's check fails: " + "; ".join(
                f"{c['claim']}: {c['reason']} ({c['verdict']})" for c in checks if c["verdict"] != "pass")
    entry["reason"] = reason
    allowed = [_allowed(paper, ours, tolerance)] + [_allowed(c["expected"], c["ours"], c["tolerance"])
                                              for c in ([check] if isinstance(check, dict) else list(check or []))]
    return _store(entry, path, allowed)


def remove(ids, path: Path | None = None) -> list[str]:
    """Delete the records with these ids (e.g. after a claim's id was renamed); returns the ids removed."""
    ids = {ids} if isinstance(ids, str) else set(ids)
    path = Path(path) if path else recording_path()
    if path is None or not path.is_file():
        return []
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        entries = load(path)
        kept = [e for e in entries if e["id"] not in ids]
        write_text_atomically(path, json.dumps(kept, indent=1, ensure_ascii=False) + "\n")
    return [e["id"] for e in entries if e["id"] in ids]


def not_reproducible(
    id: str,
    *,
    source: str,
    paper,
    reason: str,
    ours=None,
    path: Path | None = None,
    basis: str = "paper",
    quote: str | None = None,
) -> dict:
    """Record a claim that cannot be tested here, with the ``reason``; verdict ``"not reproducible here"``.

    ``ours`` may hold what we measured nonetheless (e.g. our own timing), for
    the reader; it is not compared.

    >>> import tempfile, pathlib
    >>> where = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> not_reproducible("t", source="Paper §1", paper="1,000 CPU hours", reason="the prior code is not available",
    ...                  path=where)["verdict"]
    'not reproducible here'
    """
    _validate(id, source, basis)
    if not reason or not isinstance(reason, str):
        raise ValueError(f"reason must say why the claim cannot be reproduced here; got {reason!r}")
    entry = {
        "id": id,
        "source": source,
        "paper": _jsonable(paper),
        "ours": _jsonable(ours),
        "tolerance": "not compared",
        "verdict": NOT_REPRODUCIBLE,
        "basis": basis,
    }
    if quote:
        entry["quote"] = " ".join(str(quote).split())
    entry["reason"] = reason
    return _store(entry, path)


def _normalise(text: str) -> str:
    """Paper text and quotes compared without markup: TeX dollars, braces, thin spaces, whitespace."""
    text = re.sub(r"\\[,;! ]", "", str(text))
    text = text.replace("$", "").replace("{", "").replace("}", "").replace("\\", "")
    return " ".join(text.split())


def audit(entries: list[dict] | None = None, papers: list[str] | None = None, claims_table: dict | None = None) \
        -> list[str]:
    """Every way the ledger's entries fall short of the rules in the module docstring, as sentences.

    ``papers`` are the papers' texts; when given, each quote attributed to a
    paper must occur in one of them (markup aside). ``claims_table`` (by default the data file's claims when
    the committed ledger is audited, i.e. ``entries`` is None) is compared with the entries: a claim no
    chapter recorded and an entry without a claim are reported.
    """
    if entries is None:
        entries = load()
        claims_table = claims() if claims_table is None else claims_table
    corpus = [_normalise(p) for p in (papers or [])]
    problems = []
    if claims_table is not None:
        recorded = {entry.get("id") for entry in entries}
        problems += [f"{name}: a claim in the data file that no chapter recorded (nor python -m "
                     "accountbook.claim_checks, for the claims no chapter computes)" for name in claims_table
                     if name not in recorded]
        problems += [f"{name}: a ledger entry without a claim in the data file" for name in recorded
                     if name not in claims_table]
    seen = set()
    for entry in entries:
        name = entry.get("id", "?")
        if name in seen:
            problems.append(f"{name}: duplicate id")
        seen.add(name)
        missing = [key for key in (*_FIELDS, "reason") if key not in entry]
        if missing:
            problems.append(f"{name}: missing {missing}")
            continue
        basis = entry.get("basis", "paper")
        if entry["verdict"] not in VERDICTS:
            problems.append(f"{name}: unknown verdict {entry['verdict']!r}")
        if basis not in BASES:
            problems.append(f"{name}: unknown basis {basis!r}")
        if _NOT_IN_REPOSITORY.search(entry["source"]):
            problems.append(f"{name}: source cites a developers' note: {entry['source']!r}")
        if basis == "paper":
            if not _LOCATOR.search(entry["source"]):
                problems.append(f"{name}: source has no locator in the paper: {entry['source']!r}")
            if not entry.get("quote"):
                problems.append(f"{name}: basis 'paper' but no quote of the paper's words")
            elif corpus and _normalise(entry["quote"]) not in " ".join(corpus) and not any(
                _normalise(entry["quote"]) in c for c in corpus):
                problems.append(f"{name}: quote not found in the papers: {entry['quote']!r}")
        if entry["verdict"] == NOT_REPRODUCIBLE:
            continue
        tolerance = str(entry["tolerance"])
        if tolerance != "absolute 0" and not tolerance.startswith(("printed", "exact", "upper bound", "lower bound")) \
                and not entry.get(
                "tolerance_reason"):
            problems.append(f"{name}: tolerance '{tolerance}' is not the printed digits and has no tolerance_reason")
        paper = entry["paper"]
        if (isinstance(paper, int) or (isinstance(paper, str) and re.fullmatch(r"-?\d+", paper.strip()))) and \
                tolerance not in ("exact", "absolute 0"):
            problems.append(f"{name}: the count {paper} must be compared exactly, not with '{tolerance}'")
        if entry["verdict"] == "explained":
            checks = entry.get("checks") or []
            if not checks or any(c.get("verdict") != "pass" for c in checks):
                problems.append(f"{name}: 'explained' without a passing computed check")
    return problems
