"""Certified ends of an interval, kept on their side of the exact value.

Infrastructure layer of :mod:`accountlib`. A certified value ``v`` with error bound ``b`` stands for the interval
[v − b, v + b]; deciding a target or handing a bound on as a float must not let the working precision's
round-to-nearest move an end inwards: at mpmath's 53 bits, 1e-6 + 6e-23 rounds to nearest and can land below the
sum, so a check ``v + b ≤ allowed`` could pass for a point above ``allowed`` (:func:`upper_end`,
:func:`lower_end`: exact sums; :func:`round_up_to_float`: the float above).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from .numbers import as_fraction

__all__ = ["upper_end", "lower_end", "round_up_to_float"]


def upper_end(value, bound) -> mpmath.mpf:
    """``value + bound`` exactly (an ``mpf`` with as many bits as it needs): the upper end of a certified interval,
    never rounded down by the working precision (at 53 bits, 1e-6 + 6e-23 rounds to nearest and can land below
    the sum, so a check ``value + bound ≤ allowed`` could pass for a point that is above ``allowed``)."""
    return mpmath.fadd(value, bound, exact=True)


def round_up_to_float(value) -> float:
    """The smallest float ≥ ``value`` (an ``mpf`` or a ``Fraction``, compared exactly; 5e-324 for a positive value
    below every float, ``inf`` beyond them): a certified upper bound handed on as a float.

    >>> with mpmath.workdps(30):
    ...     third = mpmath.mpf(1) / 3  # above the float 1/3, which is rounded down
    >>> round_up_to_float(mpmath.mpf("1e-400")), round_up_to_float(third) > 1 / 3, round_up_to_float(Fraction(1, 3)) > 1 / 3
    (5e-324, True, True)
    >>> round_up_to_float(mpmath.mpf("1e-1000000000")), round_up_to_float(-mpmath.mpf("1e-1000000000"))  # at once
    (5e-324, -0.0)
    """
    rounded = float(value)
    if math.isinf(rounded):
        return rounded
    if rounded == 0:  # |value| ≤ 2^-1075: no exact Fraction needed (an mpf δ of 1e-1e9 has a billion-digit one)
        return 5e-324 if value > 0 else rounded  # ±0.0, as float() rounds it
    exact = as_fraction(value, "bound", floats="binary", bounded=False)  # a computed number, as it is
    return rounded if Fraction(rounded) >= exact else math.nextafter(rounded, math.inf)


def lower_end(value, bound) -> mpmath.mpf:
    """``value − bound`` exactly: the lower end of a certified interval, never rounded up (:func:`upper_end`)."""
    return mpmath.fsub(value, bound, exact=True)
