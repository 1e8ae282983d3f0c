"""The number policy of :mod:`accountlib`: how numbers are read, checked and written, in one place.

Infrastructure layer (no privacy knowledge). Four parts:

* **Reading** — :func:`as_fraction`, the one number → ``Fraction`` converter. Its rule for floats is explicit and every
  caller names it: ``floats="decimal"`` reads a float as the shortest decimal that prints as it (``0.1`` is 1/10:
  what a person who typed 0.1 meant — budgets, ε, tolerances given by a user), ``floats="binary"`` as the exact
  binary rational it holds (``0.1`` is 3602879701896397/2^55: what a computed float is — an engine's value, a
  bound, a σ from another library). Strings, ints, ``Fraction``, ``Decimal`` and mpmath ``mpf`` (its binary value)
  are read exactly under both rules. :func:`exact_rational` is the binary rule for computed results, unbounded.
* **Checking** — one validator per kind of argument (:func:`as_rel_tol` and :func:`as_abs_tol` for the two kinds
  of tolerance, :func:`as_probability`, :func:`as_scale`, ...), each error one line naming the argument, what was
  wrong and what is accepted.
* **Writing certified numbers** — one rule, for printing and storing alike: a certified number (a value and a bound
  on its error) is never written with a digit its bound does not support. With its bound beside it (stored files,
  the command line's JSON) the value keeps one decade below the bound and the bound absorbs the rounding
  (:func:`certified_decimal`); alone (a chapter's prose or table) it keeps the digits every number within the bound
  shares (:func:`certified_digits`); an upper bound alone is rounded up (:func:`rounded_up`, :func:`below`).
* **Resource limits** — the ``ACCOUNTLIB_MAX_*`` environment variables, read once (:func:`resource_limit`).
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


def _decimal_to_fraction(value: Decimal, name: str, original, bounded: bool = True) -> Fraction:
    if not value.is_finite():
        raise ValueError(f"{name} must be finite; got {original!r}")
    if bounded and (value and abs(value.adjusted()) > MAX_EXPONENT or len(value.as_tuple().digits) > MAX_EXPONENT):
        raise ValueError(f"{name} is out of the supported range (magnitudes between 1e-{MAX_EXPONENT} and "
                         f"1e{MAX_EXPONENT}, at most {MAX_EXPONENT} digits); got {original!r}")
    return Fraction(value)


FLOAT_RULES = ("decimal", "binary")
"""How :func:`as_fraction` reads a float: as the shortest decimal it prints as, or as its exact binary value."""


def as_fraction(value, name: str, *, floats: str, bounded: bool = True) -> Fraction:
    """Return ``value`` as an exact :class:`~fractions.Fraction`: the library's one number→Fraction converter.

    Parameters
    ----------
    value : an int, ``Fraction``, ``Decimal``, mpmath ``mpf`` (read exactly, from its binary value), a finite float
        (Python or numpy) or a string holding a decimal or a fraction (``"11/10000"``, ``"2.5e-3"``).
    name : the argument's name, for the one-line error.
    floats : the rule for floats, named by every caller. ``"decimal"``: the shortest decimal the float prints as
        (``repr``), so ``0.1`` is 1/10 — what a person who typed 0.1 meant (user input); a numpy float narrower than
        float64 prints at its own precision, so ``numpy.float32(0.1)`` is 1/10 too, not 0.100000001490116…. ``"binary"``: the exact
        rational it holds, so ``0.1`` is 3602879701896397/2^55 — what a computed float is.
    bounded : refuse magnitudes beyond 10 to the power ``MAX_EXPONENT`` (or below its inverse) and strings of more than
        4 × ``MAX_EXPONENT`` characters
        (a user's ``1e999999999`` would build a billion-digit integer); False for computed values (an mpf δ of
        1e-545925 is read as it is).

    Booleans, NaN, infinities, values out of range and anything else raise ``ValueError`` naming ``name``.

    >>> as_fraction("11/10000", "rho", floats="decimal")
    Fraction(11, 10000)
    >>> as_fraction(0.1, "rho", floats="decimal"), as_fraction(0.5, "rho", floats="binary")
    (Fraction(1, 10), Fraction(1, 2))
    >>> as_fraction(0.1, "bound", floats="binary") == Fraction(3602879701896397, 2**55)
    True
    """
    if floats not in FLOAT_RULES:
        raise ValueError(f"floats must be one of {', '.join(FLOAT_RULES)}; got {floats!r}")
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number ({_ACCEPTED}); got the bool {value!r}")
    if isinstance(value, Fraction):
        return _check_magnitude(value, name, value) if bounded else value
    if isinstance(value, numbers.Integral):
        return _check_magnitude(Fraction(int(value)), name, value) if bounded else Fraction(int(value))
    if isinstance(value, str):
        text = value.strip()
        if bounded and len(text) > 4 * MAX_EXPONENT:
            raise ValueError(f"{name} is too long to be read as a number ({len(text)} characters)")
        try:
            if "/" in text:
                numerator, denominator = text.split("/", 1)
                if not re.fullmatch(r"\s*[+-]?\d+\s*", numerator) or not re.fullmatch(r"\s*\d+\s*", denominator):
                    raise ValueError
                return _check_magnitude(Fraction(text), name, value) if bounded else Fraction(text)
            return _decimal_to_fraction(Decimal(text), name, value, bounded)
        except (ValueError, ZeroDivisionError, InvalidOperation) as error:
            if "out of the supported range" in str(error) or "must be finite" in str(error):
                raise
            raise ValueError(f"{name} could not be read as a number: {value!r} (accepted: {_ACCEPTED})") from None
    if isinstance(value, Decimal):
        return _decimal_to_fraction(value, name, value, bounded)
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be finite; got {value!r}")
        man, exp = value.man_exp  # the binary value as it is (mpmath.mpf(value) would round it to the precision)
        if bounded and value and abs(int(exp) + int(man).bit_length()) > MAX_EXPONENT * 3.33:
            raise ValueError(f"{name} is out of the supported range (magnitudes between 1e-{MAX_EXPONENT} and "
                             f"1e{MAX_EXPONENT}); got {value!r}")
        return Fraction(int(man)) * Fraction(2) ** int(exp) if exp >= 0 else Fraction(int(man), 2 ** -int(exp))
    if isinstance(value, numbers.Real):  # float, numpy floating: by the rule the caller names
        as_float = float(value)
        if not math.isfinite(as_float):
            raise ValueError(f"{name} must be finite; got {value!r}")
        if floats == "decimal" and getattr(value, "itemsize", 8) < 8 and hasattr(value, "dtype"):
            return Fraction(str(value))  # numpy float32/float16: the shortest decimal of its own precision ("0.1")
        return Fraction(repr(as_float)) if floats == "decimal" else Fraction(as_float)
    raise ValueError(f"{name} must be a number ({_ACCEPTED}); got {type(value).__name__} {value!r}")


def exact_rational(value) -> Fraction:
    """A computed number (an mpf, float, Fraction or int: an engine's value, a bound) as the exact rational it holds:
    :func:`as_fraction` with ``floats="binary"``, unbounded. A non-number raises ``TypeError``, a NaN or infinity
    ``ArithmeticError`` (a result that is not finite is never stored or printed).

    >>> exact_rational(0.5), exact_rational(mpmath.mpf(3) / 4)
    (Fraction(1, 2), Fraction(3, 4))
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Rational, float, mpmath.mpf)):
        raise TypeError(f"expected an int, Fraction, float or mpmath mpf; got {type(value).__name__} {value!r}")
    if isinstance(value, (float, mpmath.mpf)) and not mpmath.isfinite(value):
        raise ArithmeticError(f"refusing to store a non-finite result ({value})")
    return as_fraction(value, "value", floats="binary", bounded=False)


def as_positive_fraction(value, name: str, *, floats: str) -> Fraction:
    """Like :func:`as_fraction` (``floats`` its rule for floats), and the value must be strictly positive."""
    result = as_fraction(value, name, floats=floats)
    if result <= 0:
        shown = decimal_string(value, 6) if isinstance(value, Fraction) else repr(value)
        raise ValueError(f"{name} must be > 0; got {shown}")
    return result


def fraction_to_mpf(value: Fraction, rounding: str = "n") -> mpmath.mpf:
    """``value`` as an ``mpf`` at the current working precision: the nearest (``rounding="n"``), or rounded down
    (``"d"``, towards zero) or up (``"u"``, away from zero) — mpmath's rounding modes, for a bound that must stay on
    one side of the exact value.

    >>> with mpmath.workdps(5):
    ...     low, high = fraction_to_mpf(Fraction(1, 3), "d"), fraction_to_mpf(Fraction(1, 3), "u")
    >>> 3 * low < 1 < 3 * high
    True
    """
    return mpmath.fdiv(value.numerator, value.denominator, rounding=rounding)


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
    """``value`` (read by :func:`as_fraction`; a float is itself) as a finite float; beyond float64's range raises
    ValueError."""
    try:
        result = float(as_fraction(value, name, floats="binary"))
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
    """A tolerance as a float in [smallest, largest]; NaN, infinities, bools and out-of-range values raise. A user's
    number, read by :func:`as_fraction`'s decimal rule (a float32 ``1e-12`` is the 1e-12 it prints as, not the
    9.9999999960e-13 it holds; a Python float is itself either way)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str, Decimal)):
        raise ValueError(f"{name} must be a number in [{smallest:g}, {largest:g}]; got {value!r}")
    try:
        result = float(as_fraction(value, name, floats="decimal"))
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
    """The one validator of an absolute tolerance: a float in [SMALLEST_ABS_TOL, LARGEST_TOL] = [1e-60, 0.5] (an
    error bound on a probability; an ε interval's width: :func:`accountlib.theory.targets.as_epsilon_width`)."""
    return as_tolerance(value, name, smallest=SMALLEST_ABS_TOL, largest=LARGEST_TOL)


SMALLEST_RESOLUTION = 1e-9
"""The finest relative grid step of a calibration (``resolution``)."""


def as_resolution(value, name: str = "resolution") -> float:
    """The one validator of a calibration's resolution, the grid step relative to the zCDP calibration: a float in
    [SMALLEST_RESOLUTION, LARGEST_TOL] = [1e-9, 0.5]."""
    return as_tolerance(value, name, smallest=SMALLEST_RESOLUTION, largest=LARGEST_TOL)


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

# -- writing certified numbers: the digits their bounds support ------------------------------------------------------
# A certified number is a value and a bound: the true number lies within the bound of the value. Written with all
# the digits of its binary value, it would show digits that no certificate supports and that another CPU (whose SIMD
# kernels round the last bits differently) writes otherwise. Two forms of the one rule: with its bound
# (certified_decimal: stored files, the command line) and alone (certified_digits: a chapter's prose and tables).

def floor_log10(x: Fraction) -> int:
    """⌊log10 x⌋ for x > 0, exactly (no float logarithm, so exact powers of ten land in their own decade)."""
    # a first guess from the bit lengths (no decimal string of a 10,000-digit numerator), then exact steps
    k = math.floor((x.numerator.bit_length() - x.denominator.bit_length()) * 0.30102999566398120)
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


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


def _positive_bound(bound, what: str = "bound") -> Fraction:
    exact = as_fraction(bound, what, floats="binary", bounded=False)
    if exact <= 0:
        raise ValueError(f"{what} must be positive; got {bound!r}")
    return exact


def _scientific(mantissa: int, place: int) -> str:
    """``mantissa × 10^place`` in Python's float style: ``'4.1e-25'``, ``'1.0e+00'``."""
    digits = str(abs(mantissa))
    sign = "-" if mantissa < 0 else ""
    exponent = place + len(digits) - 1
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def certified_digits(value, bound) -> str:
    """The decimal string of ``value`` keeping only the digits its error bound supports.

    The true number lies within ``bound`` of ``value``. The string is ``value`` rounded (half to even) at the
    finest decimal place where both ends of [value − bound, value + bound] round alike, so every number in the
    interval, the true one included, rounds to exactly this string: the digits are certified, and a machine
    whose last float64 bits differ (within the bound) cannot print other digits, except where the true value
    lies within the bound of a rounding boundary, and then the fewer digits it prints are certified too.
    Fixed notation for magnitudes 1e-4 to 1e15 when the last digit is at or after the units, else scientific.

    >>> certified_digits(1.7831993350417527031e-12, 4.1e-25)   # relative 2.3e-13: twelve digits
    '1.78319933504e-12'
    >>> certified_digits(26.340588852722323, 1e-12)
    '26.34058885272'
    >>> certified_digits("0.04", "0.006")      # 0.034 .. 0.046: only the first decimal is certain
    '0.0'
    >>> certified_digits(1234, 3)               # 1231 .. 1237
    '1.2e+03'
    >>> certified_digits(-0.5, 0.01)
    '-0.5'
    >>> certified_digits(1.0, 0)
    Traceback (most recent call last):
    ...
    ValueError: bound must be positive; got 0
    """
    x = as_fraction(value, "value", floats="binary", bounded=False)
    b = _positive_bound(bound)
    lo, hi = x - b, x + b
    top = floor_log10(max(abs(lo), abs(hi))) + 2  # at 10^top every point of the interval rounds to 0
    finest = None
    for place in range(top, floor_log10(b) - 1, -1):  # no finer place can hold an interval of width 2b
        unit = Fraction(10) ** place
        if round(lo / unit) == round(hi / unit):
            finest = place
    mantissa = round(x / Fraction(10) ** finest)
    if mantissa == 0:
        return "0" if finest >= 0 else "0." + "0" * -finest
    exponent = finest + len(str(abs(mantissa))) - 1
    if finest <= 0 and -4 <= exponent < 15:
        decimals = -finest
        text = str(abs(mantissa)).rjust(decimals + 1, "0")
        whole, fraction = text[:len(text) - decimals], text[len(text) - decimals:]
        return ("-" if mantissa < 0 else "") + whole + ("." + fraction if decimals else "")
    return _scientific(mantissa, finest)


def rounded_up(bound) -> str:
    """An upper bound, rounded up to two significant digits, as the string to print after ``<``.

    >>> rounded_up(4.0001e-25)
    '4.1e-25'
    >>> rounded_up(mpmath.mpf("9.96e-14"))
    '1.0e-13'
    >>> rounded_up(0.25)
    '2.5e-01'
    >>> rounded_up(1e-13)   # the float nearest 1e-13 lies just above it; its exact value is rounded up
    '1.1e-13'
    """
    b = _positive_bound(bound)
    place = floor_log10(b) - 1
    mantissa = -((-b) // Fraction(10) ** place)  # ⌈b / 10^place⌉: 10..100
    if mantissa == 100:
        mantissa, place = 10, place + 1
    return _scientific(int(mantissa), place)


def below(residue, bound) -> str:
    """``"< bound"`` when |residue| < bound: how a check prints a rounding residue that differs between machines.

    The bound is the claim; a residue at or above it raises, so the check still fails.

    >>> below(1.3e-14, 1e-13)
    '< 1e-13'
    >>> below(-2.5e-14, 2e-13)
    '< 2e-13'
    >>> below(3e-13, 1e-13)
    Traceback (most recent call last):
    ...
    ValueError: the residue 3e-13 is not below the bound 1e-13 it is printed with
    """
    size = abs(as_fraction(residue, "residue", floats="binary", bounded=False))
    limit = _positive_bound(bound)
    shown = f"{float(limit):g}"
    if not size < limit:
        raise ValueError(f"the residue {float(residue):.3g} is not below the bound {shown} it is printed with")
    return f"< {shown}"
