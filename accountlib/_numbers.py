"""Parsing and validating the numbers callers hand to :mod:`accountlib`.

Every public function converts its numeric arguments through these helpers, so
that bad input fails early with a :class:`ValueError` that names the argument,
says what was wrong, and lists what is accepted.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import mpmath

_ACCEPTED = "an int, a Fraction, a float, an mpmath mpf, or a string such as '11/10000' or '2.5e-3'"


def as_fraction(value, name: str) -> Fraction:
    """Return ``value`` as an exact :class:`~fractions.Fraction`.

    Accepts ints, ``Fraction``, ``Decimal``, finite floats and mpmath ``mpf``
    (converted exactly from their binary value) and strings holding a decimal
    or a fraction. Booleans, NaN, infinities and anything else raise
    ``ValueError`` naming ``name``.

    >>> as_fraction("11/10000", "rho")
    Fraction(11, 10000)
    >>> as_fraction("2.5", "sigma2")
    Fraction(5, 2)
    """
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number ({_ACCEPTED}); got the bool {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, str):
        text = value.strip()
        try:
            if "/" in text:
                return Fraction(text)
            return Fraction(Decimal(text))
        except (ValueError, ZeroDivisionError, InvalidOperation):
            raise ValueError(f"{name} could not be read as a number: {value!r} (accepted: {_ACCEPTED})") from None
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{name} must be finite; got {value!r}")
        return Fraction(value)
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be finite; got {value!r}")
        man, exp = value.man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
    if isinstance(value, numbers.Real):  # float, numpy floating
        as_float = float(value)
        if not math.isfinite(as_float):
            raise ValueError(f"{name} must be finite; got {value!r}")
        return Fraction(as_float)
    raise ValueError(f"{name} must be a number ({_ACCEPTED}); got {type(value).__name__} {value!r}")


def as_positive_fraction(value, name: str) -> Fraction:
    """Like :func:`as_fraction`, and the value must be strictly positive."""
    result = as_fraction(value, name)
    if result <= 0:
        raise ValueError(f"{name} must be > 0; got {value!r}")
    return result


def fraction_to_mpf(value: Fraction) -> mpmath.mpf:
    """The nearest ``mpf`` to ``value`` at the current working precision."""
    return mpmath.mpf(value.numerator) / value.denominator


def as_int(value, name: str) -> int:
    """Return ``value`` as an ``int``; reject bools, non-integral numbers and other types."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
            return int(value)
        raise ValueError(f"{name} must be an integer; got {type(value).__name__} {value!r}")
    return int(value)


def as_dps(value, name: str = "dps") -> int:
    """Validate a working precision in decimal digits (an int between 5 and 100000)."""
    dps = as_int(value, name)
    if not 5 <= dps <= 100_000:
        raise ValueError(f"{name} must be between 5 and 100000 decimal digits; got {dps}")
    return dps


def decimal_string(value, digits: int = 30) -> str:
    """``value`` (float, mpf, Fraction-free number) as a decimal string with ``digits`` significant digits."""
    with mpmath.workdps(digits + 10):
        return mpmath.nstr(mpmath.mpf(value), digits, strip_zeros=False, min_fixed=-4, max_fixed=6)
