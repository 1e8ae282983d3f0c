"""Parsing and validating the numbers callers hand to :mod:`accountlib`.

Every public function converts its numeric arguments through these helpers, so
that bad input fails early with a :class:`ValueError` that names the argument,
says what was wrong, and lists what is accepted.
"""

from __future__ import annotations

import math
import numbers
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import mpmath

_ACCEPTED = "an int, a Fraction, a float, an mpmath mpf, or a string such as '11/10000' or '2.5e-3'"

MAX_EXPONENT = 1000
"""Decimal exponents beyond ±MAX_EXPONENT (and integers of more than MAX_EXPONENT digits) are refused at
once: turning ``1e999999999`` into an exact fraction would build a billion-digit integer."""


def _check_magnitude(value: Fraction, name: str, original) -> Fraction:
    """Refuse fractions whose numerator or denominator has more than ~MAX_EXPONENT decimal digits."""
    limit = int(MAX_EXPONENT * 3.33) + 8  # bits
    bits = max(value.numerator.bit_length(), value.denominator.bit_length())
    if bits > limit:
        shown = (repr(original) if isinstance(original, str) and len(original) <= 60 or bits <= 200
                 else f"a fraction whose numerator or denominator has about {int(bits * 0.30103) + 1} digits")
        raise ValueError(f"{name} is out of the supported range (magnitudes between 1e-{MAX_EXPONENT} and "
                         f"1e{MAX_EXPONENT}, at most about {MAX_EXPONENT} digits); got {shown}")
    return value


def _decimal_to_fraction(value: Decimal, name: str, original) -> Fraction:
    if not value.is_finite():
        raise ValueError(f"{name} must be finite; got {original!r}")
    if value and abs(value.adjusted()) > MAX_EXPONENT or len(value.as_tuple().digits) > MAX_EXPONENT:
        raise ValueError(f"{name} is out of the supported range (magnitudes between 1e-{MAX_EXPONENT} and "
                         f"1e{MAX_EXPONENT}, at most {MAX_EXPONENT} digits); got {original!r}")
    return Fraction(value)


def as_fraction(value, name: str) -> Fraction:
    """Return ``value`` as an exact :class:`~fractions.Fraction`.

    Accepts ints, ``Fraction``, ``Decimal``, mpmath ``mpf`` (converted exactly
    from its binary value), finite floats — read as the shortest decimal they
    print as, so ``0.1`` is 1/10 and not the 53-bit fraction 3602879701896397/2^55
    — and strings holding a decimal or a fraction. Booleans, NaN, infinities,
    magnitudes beyond 10^±``MAX_EXPONENT`` and anything else raise
    ``ValueError`` naming ``name``.

    >>> as_fraction("11/10000", "rho")
    Fraction(11, 10000)
    >>> as_fraction("2.5", "sigma2")
    Fraction(5, 2)
    >>> as_fraction(0.1, "rho")
    Fraction(1, 10)
    """
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number ({_ACCEPTED}); got the bool {value!r}")
    if isinstance(value, Fraction):
        return _check_magnitude(value, name, value)
    if isinstance(value, numbers.Integral):
        return _check_magnitude(Fraction(int(value)), name, value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 4 * MAX_EXPONENT:
            raise ValueError(f"{name} is too long to be read as a number ({len(text)} characters)")
        try:
            if "/" in text:
                numerator, denominator = text.split("/", 1)
                if not re.fullmatch(r"\s*[+-]?\d+\s*", numerator) or not re.fullmatch(r"\s*\d+\s*", denominator):
                    raise ValueError
                return _check_magnitude(Fraction(text), name, value)
            return _decimal_to_fraction(Decimal(text), name, value)
        except (ValueError, ZeroDivisionError, InvalidOperation) as error:
            if "out of the supported range" in str(error) or "must be finite" in str(error):
                raise
            raise ValueError(f"{name} could not be read as a number: {value!r} (accepted: {_ACCEPTED})") from None
    if isinstance(value, Decimal):
        return _decimal_to_fraction(value, name, value)
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be finite; got {value!r}")
        man, exp = value.man_exp
        if value and abs(int(exp) + int(man).bit_length()) > MAX_EXPONENT * 3.33:
            raise ValueError(f"{name} is out of the supported range (magnitudes between 1e-{MAX_EXPONENT} and "
                             f"1e{MAX_EXPONENT}); got {value!r}")
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
    if isinstance(value, numbers.Real):  # float, numpy floating: read as the decimal it prints as
        as_float = float(value)
        if not math.isfinite(as_float):
            raise ValueError(f"{name} must be finite; got {value!r}")
        return Fraction(repr(as_float))
    raise ValueError(f"{name} must be a number ({_ACCEPTED}); got {type(value).__name__} {value!r}")


def as_positive_fraction(value, name: str) -> Fraction:
    """Like :func:`as_fraction`, and the value must be strictly positive."""
    result = as_fraction(value, name)
    if result <= 0:
        shown = decimal_string(value, 6) if isinstance(value, Fraction) else repr(value)
        raise ValueError(f"{name} must be > 0; got {shown}")
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
    """``value`` (float, mpf, Fraction-free number) as a decimal string with ``digits`` significant digits.

    A NaN or infinite value raises ``ArithmeticError``: such a number is never printed as a result.
    """
    with mpmath.workdps(digits + 10):
        number = mpmath.mpf(value.numerator) / value.denominator if isinstance(value, Fraction) else mpmath.mpf(value)
        if not mpmath.isfinite(number):
            raise ArithmeticError(f"refusing to print a non-finite result ({number})")
        return mpmath.nstr(number, digits, strip_zeros=False, min_fixed=-4, max_fixed=6)


def as_float(value, name: str) -> float:
    """``value`` (validated by :func:`as_fraction`) as a finite float; beyond float64's range raises ValueError."""
    try:
        result = float(as_fraction(value, name))
    except OverflowError:
        raise ValueError(f"{name} is too large for this computation (above 1.8e308); got {value!r}") from None
    return result


def as_nonnegative_float(value, name: str) -> float:
    """``value`` as a finite float ≥ 0 (read by :func:`as_float`); NaN, infinities, negatives, bools and
    non-numbers raise ``ValueError`` naming ``name``.

    >>> as_nonnegative_float("1/4", "rho")
    0.25
    """
    try:
        result = as_float(value, name)
    except ValueError as error:
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r} ({error})") from None
    if result < 0:
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    return result


def as_bounded_float(value, name: str, *, smallest: float | None = None, largest: float | None = None,
                     strict: bool = True) -> float:
    """``value`` (read by :func:`as_float`) as a finite float in the accepted range: > ``smallest`` (≥ when
    ``strict`` is False) and ≤ ``largest``; anything else raises ``ValueError`` naming ``name``, the value and the
    range. The one range check behind the theory layer's arguments (orders, scales, shifts, noise multipliers).

    >>> as_bounded_float("1/2", "sigma", smallest=0, largest=1e100)
    0.5
    """
    low = "" if smallest is None else f"{'>' if strict else '>='} {smallest:g}"
    high = "" if largest is None else f"<= {largest:g}"
    accepted = " and ".join(part for part in (low, high) if part) or "finite"
    try:
        result = as_float(value, name)
    except ValueError as error:
        detail = "" if isinstance(value, numbers.Real) else f" ({error})"
        raise ValueError(f"{name} must be a finite number {accepted}; got {value!r}{detail}") from None
    if smallest is not None and (result <= smallest if strict else result < smallest) \
            or largest is not None and result > largest:
        raise ValueError(f"{name} must be a finite number {accepted}; got {value!r}")
    return result


def as_scale(value, name: str) -> float:
    """A positive parameter of a noise distribution (a scale, a budget, an order): a float in [1e-100, 1e100]."""
    value = as_bounded_float(value, name, smallest=0)
    if not 1e-100 <= value <= 1e100:
        raise ValueError(f"{name} must be between 1e-100 and 1e100; got {value!r}")
    return value


def as_count(n, name: str, largest: int = 10**6) -> int:
    """A positive whole number (a number of releases or compositions) up to ``largest``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or not math.isfinite(n) \
            or int(n) != n or not 1 <= n <= largest:
        raise ValueError(f"{name} must be a positive integer (at most {largest:g}); got {n!r}")
    return int(n)


def as_shift(s, name: str = "s") -> float:
    """A query change (sensitivity) s, |s| ≤ 1e8, as its absolute value (the noise is symmetric)."""
    s = as_bounded_float(s, name)
    if abs(s) > 1e8:
        raise ValueError(f"{name} must be at most 1e8 in absolute value; got {s!r}")
    return abs(s)


def as_choice(value, name: str, choices) -> str:
    """``value`` if it is one of the strings ``choices``, else ``ValueError`` naming ``name`` and the choices."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}")
    return value


def as_probability(value, name: str = "delta") -> float:
    """``value`` as a float strictly between 0 and 1 (a privacy δ; read by :func:`as_float`); anything
    else — 0, 1, NaN, bools, non-numbers, a value that rounds to 0 as a float — raises ``ValueError``
    naming ``name``.

    >>> as_probability(1e-10, "delta")
    1e-10
    """
    try:
        result = as_float(value, name)
    except ValueError as error:
        raise ValueError(f"{name} must be in (0, 1), a number strictly between 0 and 1; got {value!r} ({error})") from None
    if not 0 < result < 1:
        raise ValueError(f"{name} must be in (0, 1), a number strictly between 0 and 1; got {value!r}")
    return result


class ResourceLimitError(ValueError):
    """A request would need more nodes, precision or memory than the documented limit allows."""


def env_limit(name: str, default: int) -> int:
    """A documented resource limit, overridden by the environment variable ``name`` when set."""
    import os

    text = os.environ.get(name)
    if text is None:
        return default
    accepted = f"a whole number between 1 and 1e18 (default {default:g})"
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"the environment variable {name} must be {accepted}; got {text!r}") from None
    if not (math.isfinite(value) and 1 <= value <= 1e18):
        raise ValueError(f"the environment variable {name} must be {accepted}; got {text!r}")
    return int(value)


_RESOURCE_LIMITS: dict[str, int] = {}


def resource_limit(name: str, default: int) -> int:
    """The resource limit ``name`` (an ``ACCOUNTLIB_MAX_*`` variable, :func:`env_limit`), read from the environment
    once, on first use, and remembered (as mpmath reads its environment once): a calibration that builds hundreds of
    engines reads each variable once. :func:`reread_resource_limits` forgets what was read.

    >>> resource_limit("ACCOUNTLIB_MAX_NODE_BITS", 10**8) == resource_limit("ACCOUNTLIB_MAX_NODE_BITS", 10**8)
    True
    """
    value = _RESOURCE_LIMITS.get(name)
    if value is None:  # an invalid variable raises at each use until it is fixed; only valid limits are kept
        value = _RESOURCE_LIMITS[name] = env_limit(name, default)
    return value


def reread_resource_limits() -> None:
    """Forget the resource limits read so far: the next use of each reads its environment variable again (after a
    change to ``os.environ``, in a notebook or a test)."""
    _RESOURCE_LIMITS.clear()


def as_tolerance(value, name: str, *, smallest: float, largest: float) -> float:
    """A tolerance as a float in [smallest, largest]; NaN, infinities, bools and out-of-range values raise."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str, Decimal)):
        raise ValueError(f"{name} must be a number in [{smallest:g}, {largest:g}]; got {value!r}")
    try:
        result = float(as_fraction(value, name))
    except (ValueError, OverflowError):
        raise ValueError(f"{name} must be a finite number in [{smallest:g}, {largest:g}]; got {value!r}") from None
    if not smallest <= result <= largest:
        shown = f"{result:g}" if isinstance(value, (Fraction, Decimal)) else repr(value)  # no Fraction(3, 5) shown
        raise ValueError(f"{name} must be in [{smallest:g}, {largest:g}]; got {shown}")
    return result


SMALLEST_REL_TOL = 1e-30
"""The finest relative tolerance accepted anywhere (``rel_tol``, ``--rel-tol``): error_bound ≤ rel_tol·value."""
SMALLEST_ABS_TOL = 1e-60
"""The finest absolute tolerance accepted anywhere (``abs_tol``, ``--abs-tol``): error_bound ≤ abs_tol (the engine
is then built for Δ = abs_tol/4 ≥ 2.5e-61)."""
LARGEST_TOL = 0.5
"""The coarsest tolerance of either kind."""


def as_rel_tol(value, name: str = "rel_tol") -> float:
    """The one validator of a relative tolerance: a float in [SMALLEST_REL_TOL, LARGEST_TOL] = [1e-30, 0.5].

    Called once, at the public boundary (Composition.delta, engine.front.tail_probabilities, the command line); the
    tolerance then travels as a relative one down to :class:`accountlib.engine.front.CertifiedTails`.
    """
    return as_tolerance(value, name, smallest=SMALLEST_REL_TOL, largest=LARGEST_TOL)


def as_abs_tol(value, name: str = "abs_tol") -> float:
    """The one validator of an absolute tolerance: a float in [SMALLEST_ABS_TOL, LARGEST_TOL] = [1e-60, 0.5]."""
    return as_tolerance(value, name, smallest=SMALLEST_ABS_TOL, largest=LARGEST_TOL)


class PreciseNumber(mpmath.mpf):
    """An mpmath ``mpf`` that formats like a float: a value outside float64's range (a gap of 1e-400, say) is
    returned as one of these instead of a float that would print as 0 or inf.

    Compares and computes like any ``mpf``; ``format(x, ".2e")`` works as for a float
    (through ``Decimal`` when the value lies outside float64's range), and ``float(x)``
    gives the float64 value (0.0 when it underflows, so prefer the number itself).
    """

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        if self == 0 or 1e-300 < abs(self) < 1e300:
            return format(float(self), spec)
        return format(Decimal(mpmath.nstr(self, 40, min_fixed=1, max_fixed=0)), spec)

    # Arithmetic with a plain float or int gives a float when the result is safely inside float64's range
    # (so code written for float bounds keeps working), and an mpf otherwise; with an mpf it gives an mpf.
    def _mixed(self, result, other):
        if result is NotImplemented or isinstance(other, bool) or not isinstance(other, (float, int)):
            return result
        if result == 0 or 1e-300 < abs(result) < 1e300:
            return float(result)
        return result

    def _plain(self) -> mpmath.mpf:
        return mpmath.mpf(self._mpf_)  # the same number as a plain mpf (no subclass dispatch)

    def __add__(self, other):
        return self._mixed(self._plain() + other, other)

    def __radd__(self, other):
        return self._mixed(other + self._plain(), other)

    def __sub__(self, other):
        return self._mixed(self._plain() - other, other)

    def __rsub__(self, other):
        return self._mixed(other - self._plain(), other)

    def __mul__(self, other):
        return self._mixed(self._plain() * other, other)

    def __rmul__(self, other):
        return self._mixed(other * self._plain(), other)

    def __truediv__(self, other):
        return self._mixed(self._plain() / other, other)

    def __rtruediv__(self, other):
        return self._mixed(other / self._plain(), other)


class ErrorBound(PreciseNumber):
    """A certified error bound: a :class:`PreciseNumber` (it cannot underflow or overflow), ≥ 0 and finite."""


def float_or_precise(value):
    """``value`` (an mpf or float) as a float when float64 holds it to full relative precision (0, or a
    magnitude in [1e-300, 1e300]), else as a :class:`PreciseNumber`: a positive quantity is never returned
    as 0.0, and a finite one never as inf. NaN raises ``ArithmeticError``."""
    if isinstance(value, float) and math.isnan(value) or not mpmath.isfinite(value):
        raise ArithmeticError(f"refusing to return a non-finite result ({value})")
    if value == 0 or 1e-300 <= abs(value) <= 1e300:
        return float(value)
    with mpmath.workdps(max(mpmath.mp.dps, 30)):
        return PreciseNumber(value)


def error_bound(value) -> ErrorBound:
    """``value`` (float, int, Fraction, mpf) as an :class:`ErrorBound`; a negative, NaN or infinite
    bound raises ``ArithmeticError`` (a bound that cannot be certified is an error, never output)."""
    if isinstance(value, Fraction):
        with mpmath.workdps(40):
            value = mpmath.mpf(value.numerator) / value.denominator
    if isinstance(value, float) and math.isnan(value) or not mpmath.isfinite(value):
        raise ArithmeticError(f"the error bound could not be certified (it is {value}); no result is returned")
    if value < 0:
        raise ArithmeticError(f"an error bound came out negative ({value}); no result is returned")
    with mpmath.workdps(40):
        return ErrorBound(value)
