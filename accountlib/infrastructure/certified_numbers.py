"""Certified numbers as decimal strings: only the digits their bounds support.

Infrastructure layer of :mod:`accountlib`. A certified number is a value and a bound: the true number lies within
the bound of the value. Stored or printed with all the digits of its binary value, it would show digits that
no certificate supports and that another CPU (whose SIMD kernels round the last bits differently) prints
otherwise. :func:`certified_decimal` keeps one decade below the bound and widens the bound by the rounding, so
two correct machines store intervals that overlap (and usually the same strings).
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import mpmath

__all__ = ["certified_decimal", "exact_rational", "as_string", "floor_log10"]


def floor_log10(x: Fraction) -> int:
    """⌊log10 x⌋ for x > 0, exactly (no float logarithm, so exact powers of ten land in their own decade)."""
    # a first guess from the bit lengths (no decimal string of a 10,000-digit numerator), then exact steps
    k = math.floor((x.numerator.bit_length() - x.denominator.bit_length()) * 0.30102999566398120)
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


def exact_rational(value) -> Fraction:
    """An mpf, float, Fraction or int as the exact rational it holds (no rounding to 53 bits)."""
    if isinstance(value, bool):
        raise TypeError(f"expected a number; got {value!r}")
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ArithmeticError(f"refusing to store a non-finite result ({value})")
        return Fraction(value)
    if not isinstance(value, mpmath.mpf):
        raise TypeError(f"expected an int, Fraction, float or mpmath mpf; got {type(value).__name__} {value!r}")
    # read the binary value as it is: mpmath.mpf(value) would round it to the working precision (53 bits by default)
    if not mpmath.isfinite(value):
        raise ArithmeticError(f"refusing to store a non-finite result ({value})")
    man, exp = value.man_exp
    return Fraction(man) * Fraction(2) ** exp if exp >= 0 else Fraction(man, 2 ** -exp)


def _round_up_2(x: Fraction) -> Fraction:
    """x > 0 rounded up to two significant decimal digits."""
    e = floor_log10(x) - 1
    step = Fraction(10) ** e
    r = math.ceil(x / step) * step
    return r if r >= x else r + step


def as_string(x: Fraction, exponent: int) -> str:
    """The decimal x = n·10^exponent written out exactly (plain or scientific, whichever is shorter)."""
    n = x / Fraction(10) ** exponent
    assert n.denominator == 1
    return "0" if n == 0 else str(Decimal(f"{int(n)}E{exponent}"))  # built from a string: exact in any context


def certified_decimal(value, bound, *, probability: bool = True) -> tuple[str, str]:
    """(value, bound) as decimal strings that carry only the digits the bound supports.

    The true number lies within ``bound`` of ``value``. The value is rounded to the nearest multiple of
    10^(⌊log10 bound⌋ − 1) (one decade below the bound), the rounding is added to the bound, a probability
    is clamped into [0, 1] (the true value lies in [0, 1], so the interval stays valid), and the bound is
    rounded up to two significant digits. The stored interval contains the original one.

    >>> certified_decimal(0.123456789, 1.5e-6)
    ('0.1234568', '0.0000016')
    >>> certified_decimal(-5.1e-32, 1.49e-26)
    ('0', '1.5E-26')
    >>> with mpmath.workdps(40):
    ...     third = mpmath.mpf(1) / 3
    >>> certified_decimal(third, mpmath.mpf("1e-30"))  # all 40 digits are read, not a 53-bit rounding
    ('0.3333333333333333333333333333333', '1.1E-30')
    """
    x, b = exact_rational(value), exact_rational(bound)
    if b <= 0:
        raise ValueError(f"bound must be positive; got {bound!r}")
    exponent = floor_log10(b) - 1
    step = Fraction(10) ** exponent
    rounded = round(x / step) * step
    new_bound = _round_up_2(b + abs(x - rounded))
    if probability and x < 0:  # the true value is in [0, x + b]: within b of 0
        rounded, new_bound = Fraction(0), _round_up_2(b)
    elif probability and x > 1:  # in [x − b, 1]: within b of 1
        rounded, new_bound = Fraction(1), _round_up_2(b)
    bound_exponent = floor_log10(new_bound) - 1
    return as_string(rounded, exponent), as_string(new_bound, bound_exponent)


