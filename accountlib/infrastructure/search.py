"""The one bisection of :mod:`accountlib`: every calibration and every inversion searches with it.

Infrastructure layer (no privacy knowledge). A search here looks for the boundary between the two sides of a
monotone question asked of a number — "does the target hold at this noise?", "is δ(ε) at most this δ?" — and
returns a bracket [low, high] with ``low`` on the low side and ``high`` on the high side.

* :func:`bisect` — the float (or mpf, or integer) bisection: a predicate that says on which side a point lies, a
  midpoint rule (:func:`arithmetic`, :func:`geometric`, :func:`integer`) and a stopping rule (``until`` the bracket
  is narrow enough, or a number of ``steps``). The float inverses of the library (a μ-GDP ε for a δ, a DP-SGD noise
  multiplier, a sieve radius, the census give-back) are this function with their own predicate.
* :func:`widen` — the bracket's expansion before a bisection: the high end multiplied until it is on the high side
  (the low end following it, or staying).
* :func:`certified_bisect` — the certified search: the question has three answers, ``"holds"``, ``"fails"`` and
  ``"undecided"`` (a certified bound too wide to decide), each carried with its certificate; only decided points move
  the bracket's ends, and what an undecided midpoint does is the caller's rule
  (:func:`~accountlib.theory.calibration.calibrate` counts it as a failure on its grid;
  :func:`~accountlib.theory.accounting.epsilon` looks for decided points on each side).

Each function evaluates exactly the points its loop names, in order, so a search written with it visits the same
points as the loop it replaced.

>>> low, high = bisect(lambda x: x * x >= 2, 1.0, 2.0, until=lambda lo, hi: hi - lo <= 1e-12)
>>> low < 2 ** 0.5 <= high and high - low <= 1e-12
True
"""

from __future__ import annotations

import math

__all__ = ["arithmetic", "geometric", "integer", "bisect", "widen", "certified_bisect", "HOLDS", "FAILS",
           "UNDECIDED"]

HOLDS, FAILS, UNDECIDED = "holds", "fails", "undecided"
"""The three answers of a certified question (:func:`certified_bisect`)."""


def arithmetic(low, high):
    """(low + high)/2: the midpoint of floats, mpf numbers or exact rationals."""
    return (low + high) / 2


def geometric(low, high):
    """√(low·high) in float64: the midpoint on a logarithmic scale (both ends > 0)."""
    return math.sqrt(low * high)


def integer(low, high):
    """⌊(low + high)/2⌋: the midpoint on an integer grid."""
    return (low + high) // 2


def bisect(on_high_side, low, high, *, midpoint=arithmetic, until=None, steps: int | None = None, record=None):
    """Narrow [``low``, ``high``] around the boundary of a monotone predicate; returns the final (low, high).

    Parameters
    ----------
    on_high_side : ``point -> bool``, True when ``point`` lies on ``high``'s side of the boundary.
    low, high : the bracket (``low`` on the low side, ``high`` on the high side; not evaluated here).
    midpoint : how the next point is chosen (:func:`arithmetic`, :func:`geometric`, :func:`integer`).
    until : ``(low, high) -> bool``, True when the bracket is narrow enough (checked before each step).
    steps : the most midpoints evaluated (with or without ``until``; at least one of the two is required).
    record : called with (low, high) after each step (a caller that remembers its brackets).

    >>> bisect(lambda k: k * k >= 50, 0, 100, midpoint=integer, until=lambda lo, hi: hi - lo <= 1)
    (7, 8)
    """
    if until is None and steps is None:
        raise ValueError("bisect needs a stopping rule: until, steps or both")
    done = 0
    while (steps is None or done < steps) and (until is None or not until(low, high)):
        middle = midpoint(low, high)
        if on_high_side(middle):
            high = middle
        else:
            low = middle
        done += 1
        if record is not None:
            record(low, high)
    return low, high


def widen(on_high_side, low, high, *, factor=2, move_low: bool = True, limit=None):
    """Multiply ``high`` by ``factor`` until it lies on the high side; the old ``high`` becomes the new ``low`` when
    ``move_low`` (else ``low`` stays). ``limit(high)`` may raise to stop a search that runs away. Returns the bracket.

    >>> widen(lambda x: x >= 20, 1, 2)
    (16, 32)
    """
    while not on_high_side(high):
        low, high = (high, high * factor) if move_low else (low, high * factor)
        if limit is not None:
            limit(high)
    return low, high


def certified_bisect(status, low, high, *, midpoint=arithmetic, until, undecided):
    """The certified search: narrow [``low``, ``high``] with a three-answer question until ``until(low, high)``.

    ``status(point)`` returns (answer, certificate), the answer :data:`HOLDS` (the point is on the high side,
    certified), :data:`FAILS` (on the low side, certified) or :data:`UNDECIDED`. A decided midpoint moves the end of
    its side; at an undecided one, ``undecided(low, high, point)`` returns the new ends as ((low, certificate or
    None), (high, certificate or None)) — None keeps that end's certificate — or None to stop the search there.
    ``low`` and ``high`` are given as (point, certificate) pairs, and so are the ends returned.

    >>> ends = certified_bisect(lambda x: ("holds" if x >= 3 else "fails", x), (0, None), (8, None),
    ...                         midpoint=integer, until=lambda lo, hi: hi - lo <= 1, undecided=None)
    >>> ends
    ((2, 2), (3, 3))
    """
    (lo, lo_cert), (hi, hi_cert) = low, high
    while not until(lo, hi):
        middle = midpoint(lo, hi)
        answer, certificate = status(middle)
        if answer == HOLDS:
            hi, hi_cert = middle, certificate
        elif answer == FAILS:
            lo, lo_cert = middle, certificate
        else:
            moved = undecided(lo, hi, middle) if undecided is not None else None
            if moved is None:
                break
            (lo, new_lo_cert), (hi, new_hi_cert) = moved
            lo_cert = lo_cert if new_lo_cert is None else new_lo_cert
            hi_cert = hi_cert if new_hi_cert is None else new_hi_cert
    return (lo, lo_cert), (hi, hi_cert)
