"""A certified drop-in for Google's ``dp_accounting``: a ``PrivacyAccountant`` for discrete Gaussian mechanisms.

Optional extra ``accountant`` (``pip install 'accountlib[accountant]'``, which installs ``dp-accounting``).

:class:`CertifiedDiscreteGaussianAccountant` accepts discrete Gaussian events — dp_accounting's own
``DiscreteGaussianDpEvent`` where the installed dp_accounting has one (its main branch), else
:class:`DiscreteGaussianDpEvent` defined here with the same fields — inside ``ComposedDpEvent`` and
``SelfComposedDpEvent``, and ``NoOpDpEvent``; any other event is refused through dp_accounting's own
``CompositionErrorDetails`` (so ``supports`` is False and ``compose`` raises its ``UnsupportedEventError``).
``get_delta`` returns a certified upper bound on the exact δ(ε) of the composition (the engine's value plus its
error bound, rounded up to a float), ``get_epsilon`` the upper end of the certified ε interval
(:func:`accountlib.theory.accounting.epsilon`, rounded up): each errs towards less privacy. It runs unchanged
inside ``dp_accounting.calibrate_dp_mechanism``.

From a float σ to an exact budget: a float is an exact binary rational, so σ² and ρ = 1/σ² are exact
rationals — the accountant computes the privacy of exactly the mechanism with that σ, with no rounding in
either direction (there is no safe direction to round without a monotonicity theorem for discrete Gaussians).
The price is the lattice: several distinct σ with long binary expansions may need a lattice beyond the
engine's limits, which is refused with the engine's own one-line error; one σ composed any number of times
(the case of calibration) is always one term.

Neighbouring relations. An event's ``sensitivity`` C is, as in dp_accounting's events (its
``DiscreteLaplaceDpEvent``: "if the L_1 norm of the values are bounded ||v_i||_1 <= C, the sensitivity is C"),
the bound on one record's contribution v_i to the released sum. Adding or removing a record, or replacing it by
the special zero record (``ADD_OR_REMOVE_ONE``, ``REPLACE_SPECIAL``), moves the sum by v_i: a shift of at most C.
Replacing it by any other record (``REPLACE_ONE``) moves it by v_i − v'_i: a shift of at most 2C, attained by
contributions of both signs, so this accountant composes each event at shift 2C there (erring towards less
privacy; Dwork & Roth 2014, Def. 3.1 with neighbours at Hamming distance one). A counting query — each
contribution 0 or 1 — moves by at most 1 under either relation, so its replace-one δ is its add/remove one: give
it to an ``ADD_OR_REMOVE_ONE`` accountant rather than pay the doubled shift.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

try:
    import attr
    from dp_accounting import dp_event
    from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(f"accountlib.applications.accountant needs dp_accounting: pip install "
                      f"'accountlib[accountant]' ({error})", name=error.name) from error

from ..infrastructure.interval_ends import round_up_to_float, upper_end
from ..infrastructure.numbers import as_bounded_float, as_fraction, as_probability, as_rel_tol
from ..theory.accounting import epsilon as certified_epsilon
from ..theory.composition import BUDGET_RANGE, MAX_EPSILON, MAX_SENSITIVITY, Composition
from ..theory.targets import SMALLEST_EPSILON_WIDTH, as_epsilon_width, as_target_delta

__all__ = ["CertifiedDiscreteGaussianAccountant", "DiscreteGaussianDpEvent", "exact_budget", "SHIFT_PER_SENSITIVITY"]


if hasattr(dp_event, "DiscreteGaussianDpEvent"):  # dp_accounting's own, where it has one
    DiscreteGaussianDpEvent = dp_event.DiscreteGaussianDpEvent
else:
    @attr.s(frozen=True, slots=True, auto_attribs=True)
    class DiscreteGaussianDpEvent(dp_event.DpEvent):
        """The discrete Gaussian mechanism: a query of integer sensitivity ``sensitivity`` released with noise
        N_Z(0, σ²) (σ² the square of ``sigma``), as in the 2020 Census TopDown algorithm."""

        sigma: float
        sensitivity: int = 1


_DISCRETE = tuple({DiscreteGaussianDpEvent, getattr(dp_event, "DiscreteGaussianDpEvent", DiscreteGaussianDpEvent)})


SHIFT_PER_SENSITIVITY = {NeighboringRelation.ADD_OR_REMOVE_ONE: 1, NeighboringRelation.REPLACE_SPECIAL: 1,
                         NeighboringRelation.REPLACE_ONE: 2}
"""How far neighbouring data move a query of sensitivity C, in units of C, under each relation (module docstring):
the integer shift the composition is computed at."""


SIGMA_RANGE = (1e-150, 1e150)
"""The σ accounted: ρ = 1/σ² within the library's budget range [1e-300, 1e300] (BUDGET_RANGE)."""


def exact_budget(sigma) -> Fraction:
    """ρ = 1/σ² as an exact rational (a float σ is an exact binary rational; nothing is rounded), σ in
    :data:`SIGMA_RANGE`."""
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, Fraction)):
        raise ValueError(f"sigma must be a number; got {sigma!r}")
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0; got {sigma!r}")
    rho = 1 / as_fraction(sigma, "sigma", floats="binary") ** 2
    if not BUDGET_RANGE[0] <= rho <= BUDGET_RANGE[1]:
        raise ValueError(f"sigma must be in [{SIGMA_RANGE[0]:g}, {SIGMA_RANGE[1]:g}] (its budget 1/sigma² within "
                         f"[1e-300, 1e300]); got {sigma!r}")
    return rho


class CertifiedDiscreteGaussianAccountant(PrivacyAccountant):
    """dp_accounting's ``PrivacyAccountant`` interface, certified, for compositions of discrete Gaussians.

    ``rel_tol`` is the relative accuracy of each δ, ``epsilon_tol`` the width of the certified ε interval.

    >>> from dp_accounting import SelfComposedDpEvent
    >>> accountant = CertifiedDiscreteGaussianAccountant()
    >>> _ = accountant.compose(SelfComposedDpEvent(DiscreteGaussianDpEvent(sigma=4.0), 10))
    >>> round(accountant.get_delta(1.0), 6), round(accountant.get_epsilon(1e-6), 6)
    (0.060473, 3.745924)
    """

    def __init__(self, neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE, *,
                 rel_tol: float = 1e-9, epsilon_tol: float = 1e-9):
        if neighboring_relation not in SHIFT_PER_SENSITIVITY:
            raise ValueError(f"neighboring_relation must be one of {', '.join(r.name for r in SHIFT_PER_SENSITIVITY)} "
                             f"(the shift of a query of sensitivity C: C, C, 2C); got {neighboring_relation!r}")
        super().__init__(neighboring_relation)
        self._shift = SHIFT_PER_SENSITIVITY[neighboring_relation]
        self._terms: dict[tuple[Fraction, int], int] = {}  # (ρ, sensitivity) → count
        # checked here, in this constructor's terms, not at the first get_epsilon in the library's
        self._rel_tol = as_rel_tol(rel_tol, "rel_tol")
        try:
            self._epsilon_tol = as_epsilon_width(epsilon_tol, "epsilon_tol")
        except ValueError:
            raise ValueError(f"epsilon_tol (the width of the certified ε interval) must be a number in "
                             f"[{SMALLEST_EPSILON_WIDTH:g}, 0.5]; got {epsilon_tol!r}") from None
        self._pair = None

    def _maybe_compose(self, event, count: int, do_compose: bool):
        if isinstance(event, dp_event.NoOpDpEvent):
            return None
        if isinstance(event, dp_event.SelfComposedDpEvent):
            return self._maybe_compose(event.event, event.count * count, do_compose)
        if isinstance(event, dp_event.ComposedDpEvent):
            for e in event.events:
                result = self._maybe_compose(e, count, do_compose)
                if result is not None:
                    return result
            return None
        if isinstance(event, _DISCRETE):
            sensitivity = getattr(event, "sensitivity", 1)
            try:
                rho = exact_budget(event.sigma)
                largest = MAX_SENSITIVITY // self._shift  # the shift composed, sensitivity·shift, at most 1e6
                if (isinstance(sensitivity, bool) or not isinstance(sensitivity, int)
                        or not 1 <= sensitivity <= largest):
                    doubled = " under REPLACE_ONE (composed at twice the sensitivity)" if self._shift == 2 else ""
                    raise ValueError(f"sensitivity must be a whole number in 1..{largest}{doubled}; got "
                                     f"{sensitivity!r}")
            except ValueError as error:
                return self.CompositionErrorDetails(invalid_event=event, error_message=str(error))
            if do_compose and count > 0:
                key = (rho, sensitivity * self._shift)
                self._terms[key] = self._terms.get(key, 0) + count
                self._pair = None
            return None
        return self.CompositionErrorDetails(
            invalid_event=event, error_message=f"{type(event).__name__} is not supported: this accountant "
            "accounts exactly for discrete Gaussian events (DiscreteGaussianDpEvent), composed or self-composed")

    def _composition(self) -> Composition | None:
        if not self._terms:
            return None
        if self._pair is None:
            rhos, shifts = [], []
            for (rho, s), n in self._terms.items():  # n copies (a sum of discrete Gaussians is not one)
                rhos += [rho] * n
                shifts += [s] * n
            self._pair = Composition(rhos, sensitivities=shifts)
        return self._pair

    def get_delta(self, target_epsilon: float) -> float:
        """A certified upper bound on δ(target_epsilon) (the exact value plus its error bound, rounded up)."""
        pair = self._composition()
        if pair is None:
            return 0.0
        target_epsilon = as_bounded_float(target_epsilon, "target_epsilon", smallest=0, largest=MAX_EPSILON,
                                          strict=False)  # δ(0): the total variation distance
        (point,) = pair.delta([Fraction(target_epsilon)], rel_tol=self._rel_tol)
        return min(1.0, round_up_to_float(upper_end(point.delta, point.error_bound)))

    def get_epsilon(self, target_delta: float) -> float:
        """The upper end of the certified ε interval for target_delta (the composition is (ε, δ)-DP), rounded up."""
        pair = self._composition()
        if pair is None:
            return 0.0
        target_delta = as_probability(target_delta, "target_delta")
        # the range epsilon accepts, [1e-300, 1), checked here so that the message names this method's argument
        exact_delta = as_target_delta(Fraction(target_delta), "target_delta")
        interval = certified_epsilon(pair, exact_delta, abs_tol=self._epsilon_tol)
        upper = interval.upper
        value = float(upper)
        return value if as_fraction(value, "epsilon", floats="binary") >= upper else math.nextafter(value, math.inf)

