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
    scaled = _scaled_down(value, bound) if probability else None
    if scaled is not None:  # a number beyond 1e-1000: the same digits from 10^-K-scaled balls (see _scaled_down)
        (x, b), shift = scaled
        first, second = certified_decimal(x, b, probability=False)
        return _shifted(first, shift), _shifted(second, shift)
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




_SCALED_FROM = 1000
"""Beyond 1e-1000, :func:`certified_decimal` scales value and bound by 10^-K in arb balls before its exact
decimal arithmetic: exact fractions of 1e-800000 take minutes (quadratic gcds of million-digit integers)."""


def _scaled_down(value, bound):
    """((x', b'), K) with x' = value·10^-K and b' ≥ bound·10^-K + (the rounding of x'), exact rationals of modest
    size, so that [x' ± b']·10^K contains [value ± bound]; None when the exact path is cheap (bound ≥ 1e-1000),
    or when value is not certainly in [0, 10^(K+60)) (a value near 1 with a tiny bound has as many digits as the
    bound says: no scaling helps)."""
    if not isinstance(value, mpmath.mpf) or not isinstance(bound, mpmath.mpf) or not mpmath.isfinite(value) \
            or not mpmath.isfinite(bound) or bound <= 0 or value < 0:
        return None
    b_man, b_exp = bound.man_exp
    shift = math.floor((int(b_man).bit_length() + int(b_exp)) * 0.30102999566398120) - 2  # K: 10^K ≲ bound
    if shift > -_SCALED_FROM:
        return None
    from flint import arb, ctx, fmpz

    saved = ctx.prec
    ctx.prec = 320
    try:
        def scaled(number):
            if number == 0:
                return arb(0)
            man, exp = number.man_exp
            return arb(fmpz(int(man))) * arb(2) ** fmpz(int(exp)) * arb(10) ** fmpz(-shift)

        x, b = scaled(value), scaled(bound)
        if not x < 10**60:  # more than 60 digits above the bound's decade: the exact path
            return None
        def rational(number) -> Fraction:
            man, exp = (int(part) for part in number.man_exp())
            return Fraction(man) * Fraction(2) ** exp if exp >= 0 else Fraction(man, 2 ** -exp)

        mid = rational(x.mid())
        widened = rational((b + x.rad()).upper()) + rational(x.rad().upper())
    finally:
        ctx.prec = saved
    return (mid, widened), shift


def _shifted(text: str, shift: int) -> str:
    """The decimal string ``text`` times 10^shift, exactly (built from a string, like :func:`as_string`)."""
    number = Decimal(text)
    if number == 0:
        return "0"
    sign, digits, exponent = number.as_tuple()
    return str(Decimal(f"{'-' if sign else ''}{''.join(map(str, digits))}E{exponent + shift}"))
