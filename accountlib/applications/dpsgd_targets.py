"""The targets a DP-SGD drop-in is asked at, read by one rule for both drop-ins: the target δ of ``get_epsilon`` and the
target ε of ``get_delta``.

Applications layer of :mod:`accountlib`, used by the dp_accounting drop-in (:mod:`.dpsgd_accountant`) and the Opacus
one (:mod:`.opacus_accountant`). A target is converted to an exact number *before* it is compared with anything, as
the library reads a user's number: a float is the decimal it prints as (0.1 is 1/10, 1.0 is 1); an int, ``Fraction``,
``Decimal``, numpy number (a 0-d array too) or a string holding a decimal or a fraction (``"1"``, ``"1e-5"``,
``"1/3"``) the number it holds (:func:`~accountlib.infrastructure.numbers.as_fraction`). The rules:

* **target δ** (:func:`epsilon_without_accounting`): a number ≥ 0, ``inf`` included. δ = 0 gives ε = ``inf`` (the
  Gaussian noise of DP-SGD gives no finite ε with δ = 0); δ ≥ 1 gives ε = 0 (every mechanism is (0, 1)-DP); δ in
  (0, 1) is the run's to account, and one below 1e-300 (:data:`~accountlib.theory.targets.SMALLEST_DELTA`, the
  smallest accounted) is answered by what is certified there: the closed form of a Gaussian run (every q = 1), else
  ``inf``.
* **target ε** (:func:`exact_target_epsilon`): a number ≥ 0, ``inf`` included (δ(inf) = 0: the privacy loss is
  finite). δ at a negative ε is not what a privacy guarantee reads (the Gaussian closed form would answer it with
  δ(|ε|), far too small), so a negative ε is refused.

A negative, nan or non-number target (a bool, ``None``, a list, ``"x"``) is refused in one line naming the argument
(``target_delta``, ``target_epsilon``) and what is accepted, on every path of both drop-ins alike.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

from ..infrastructure.numbers import as_fraction

__all__ = ["epsilon_without_accounting", "exact_target_delta", "exact_target_epsilon"]


def _exact_at_least_zero(value, name: str, accepted: str) -> Fraction | float:
    """``value`` as an exact Fraction (a float read as the decimal it prints as), or ``inf``; a negative, nan or
    non-number value refused in one line naming ``name`` and saying what is ``accepted``."""
    if getattr(value, "ndim", None) == 0 and not isinstance(value, numbers.Number):
        try:
            value = value[()]  # a 0-d array: the scalar it holds (numpy.float32 read at its own precision)
        except (TypeError, IndexError, KeyError):
            pass  # refused below if it is no number
    try:
        as_float = float(value)
    except (TypeError, ValueError, OverflowError):  # "1/3", or an exact number beyond the floats: read exactly below
        as_float = None
    if as_float == math.inf:
        return math.inf
    try:
        exact = None if as_float != as_float else as_fraction(value, name, floats="decimal")  # nan refused
    except TypeError:
        exact = None
    except ValueError as error:
        if "out of the supported range" in str(error):  # a number beyond what the library reads (1e-1000 to 1e1000):
            raise ValueError(str(error)) from None      # its own one line, naming the argument and that range
        exact = None
    if exact is None or exact < 0:
        raise ValueError(f"{name} must be a number >= 0 ({accepted}); got {value!r}")
    return exact


def exact_target_delta(delta) -> Fraction | float:
    """A target δ exactly (module docstring): a Fraction, or ``inf``; refused in one line naming ``target_delta``.

    >>> exact_target_delta(1e-5), exact_target_delta("1"), exact_target_delta(float("inf"))
    (Fraction(1, 100000), Fraction(1, 1), inf)
    """
    return _exact_at_least_zero(delta, "target_delta", "0 gives inf, 1 or more gives 0")


def exact_target_epsilon(epsilon) -> Fraction | float:
    """A target ε exactly (module docstring): a Fraction, or ``inf``; refused in one line naming ``target_epsilon``.

    >>> exact_target_epsilon(0.1), exact_target_epsilon("1"), exact_target_epsilon(-0.0)
    (Fraction(1, 10), Fraction(1, 1), Fraction(0, 1))
    >>> exact_target_epsilon(-1.0)
    Traceback (most recent call last):
    ...
    ValueError: target_epsilon must be a number >= 0 (inf allowed); got -1.0
    """
    return _exact_at_least_zero(epsilon, "target_epsilon", "inf allowed")


def epsilon_without_accounting(delta) -> float | None:
    """The ε both drop-ins answer for a target δ that needs no accounting (module docstring): ``inf`` at δ = 0, 0 at
    δ ≥ 1, ``inf`` included; None for δ in (0, 1), which the run's accounting answers. A negative, nan or non-number δ
    is refused in one line naming ``target_delta``.

    >>> epsilon_without_accounting(0.0), epsilon_without_accounting(1.0), epsilon_without_accounting(1e-5)
    (inf, 0.0, None)
    """
    exact = exact_target_delta(delta)
    if exact == 0:
        return math.inf
    return 0.0 if exact >= 1 else None
