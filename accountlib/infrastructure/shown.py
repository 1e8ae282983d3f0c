"""How a message shows a number: a user's value as given (:func:`~accountlib.infrastructure.shown.shown_value`), a certified bound rounded up
(:func:`~accountlib.infrastructure.shown.bound_text`). Infrastructure layer of :mod:`accountlib`."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

import mpmath

from .numbers import decimal_string

__all__ = ["shown_value", "bound_text"]


def shown_value(value: Fraction, digits: int = 40) -> str:
    """A user's number, as a message shows it: its exact decimal where that ends within ``digits`` significant digits
    (so ``5000.0000001`` is not shown as the 5000.00 that hides why it was refused), else ``digits`` of them.

    >>> shown_value(Fraction(50000000001, 10**7)), shown_value(Fraction(-1, 8)), shown_value(Fraction(1, 3), 6)
    ('5000.0000001', '-0.125', '0.333333')
    """
    rest = value.denominator
    for p in (2, 5):
        while rest % p == 0:
            rest //= p
    if rest == 1 and value.denominator.bit_length() <= 8 * digits:  # a terminating decimal, not absurdly long
        with localcontext() as context:
            context.prec = 4 * digits + len(str(abs(value.numerator)))
            exact = (Decimal(value.numerator) / Decimal(value.denominator)).normalize()
        if len(exact.as_tuple().digits) <= digits:
            return format(exact, "f") if -7 < exact.adjusted() < digits else str(exact)  # 1E-31, not 0.000…1
    return decimal_string(value, digits)


def bound_text(bound) -> str:
    """A certified error bound as a message prints it: rounded *up* to two significant digits (any exponent; the
    printed number is still a bound).

    >>> bound_text(mpmath.mpf("1.8201e-11")), bound_text(mpmath.mpf("4.73e-10855191")), bound_text(0)
    ('1.9e-11', '4.8e-10855191', '0')
    """
    with mpmath.workdps(30):
        b = mpmath.mpf(bound)
        if b <= 0:
            return "0"
        place = int(mpmath.floor(mpmath.log10(b))) - 1
        mantissa = int(mpmath.ceil(b / mpmath.mpf(10) ** place))
        if mantissa >= 100:
            mantissa, place = mantissa // 10 + (mantissa % 10 > 0), place + 1
        if mantissa < 10:  # log10 rounded across a power of ten
            mantissa, place = mantissa * 10, place - 1
        return f"{mantissa // 10}.{mantissa % 10}e{place + 1:+03d}"
