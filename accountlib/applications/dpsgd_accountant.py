"""A certified drop-in for Google's ``dp_accounting``: a ``PrivacyAccountant`` for DP-SGD events.

Optional extra ``accountant`` (``pip install 'accountlib[accountant]'``, which installs ``dp-accounting``). The
discrete-Gaussian accountant is its sibling module `accountant`; this one accepts the events of DP-SGD:

* ``PoissonSampledDpEvent(q, GaussianDpEvent(z))`` — one step at rate q with noise multiplier z;
* ``GaussianDpEvent(z)`` — the same with q = 1;
* ``SelfComposedDpEvent``, ``ComposedDpEvent`` of those, and ``NoOpDpEvent``.

Anything else is refused through dp_accounting's own ``CompositionErrorDetails`` (``supports`` is False,
``compose`` raises its ``UnsupportedEventError``). The composition is accounted exactly by
:class:`accountlib.theory.dpsgd_accounting.DPSGDComposition` under ``ADD_OR_REMOVE_ONE`` (both directions, the
worse one); ``REPLACE_ONE`` is refused. ``get_epsilon`` returns the upper end of the certified ε interval and
``get_delta`` the certified upper bound on δ(ε), both rounded up to floats: each errs towards less privacy, and
both run unchanged inside ``dp_accounting.mechanism_calibration.calibrate_dp_mechanism``. An ε beyond the
largest accounted (200 for a run of several steps with some q < 1; a Gaussian run, every q = 1, is in closed form up
to 1e6) is ``inf``, and ``get_delta`` above 200 answers δ(200), an upper bound (δ decreases in ε).

Events outside the accepted ranges are accounted by a valid upper bound: a noise multiplier below 0.05 gives
ε = inf (δ = 1), one above 1000 counts as 1000, a rate below 1e-8 as 1e-8, a rate of 0 as no step
(the Opacus drop-in's module docstring gives the reasons: more noise, and a lower rate, are post-processings).
The steps, counted over all events, are not capped where every event is a ``GaussianDpEvent`` (q = 1: the closed
form); where some event has q < 1, more than 1e9 of them in all is refused in one line naming the events
(``ValueError`` from ``get_epsilon`` and ``get_delta``: no bound short of ε = inf is certified for such a run).
A target δ of 0 gives ε = inf, one of 1 or more ε = 0, a negative or nan one is refused in one line, on every path
alike, as in the Opacus drop-in; a target ε is a number ≥ 0 (one rule for both drop-ins' targets:
:mod:`.dpsgd_targets`).
Where every accepted noise multiplier meets the target, ``calibrate_dp_mechanism`` ends at the floor 0.05 (ε is inf
below it), the answer of the library's own calibration; the Opacus drop-in raises there instead, since Opacus's search
could not end (its module docstring says why).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import mpmath

try:
    from dp_accounting import dp_event
    from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(f"accountlib.applications.dpsgd_accountant needs dp_accounting: pip install "
                      f"'accountlib[accountant]' ({error})", name=error.name) from error

from ..engine.subsampled_gaussian import Q_RANGE, STEPS_RANGE, Z_RANGE, gaussian_profile
from ..infrastructure.interval_ends import round_up_to_float, upper_end
from ..infrastructure.numbers import ResourceLimitError
from ..theory.dpsgd_accounting import MAX_DPSGD_EPSILON, DPSGDComposition
from ..theory.dpsgd_arguments import dpsgd_abs_tol, dpsgd_rel_tol
from .dpsgd_targets import epsilon_without_accounting, exact_target_epsilon
from .dpsgd_upper import certified_upper_epsilon, gaussian_upper_epsilon, total_variation_bound

__all__ = ["CertifiedDPSGDAccountant"]


class CertifiedDPSGDAccountant(PrivacyAccountant):
    """dp_accounting's ``PrivacyAccountant`` interface, certified, for DP-SGD (Poisson-subsampled Gaussian) events.

    ``epsilon_tol`` is the width of the certified ε interval; ``rel_tol`` the relative accuracy of each δ.

    >>> from dp_accounting import GaussianDpEvent, PoissonSampledDpEvent, SelfComposedDpEvent
    >>> accountant = CertifiedDPSGDAccountant()
    >>> _ = accountant.compose(SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0)), 1000))
    >>> 1.828 < accountant.get_epsilon(1e-5) < 1.829
    True
    """

    def __init__(self, neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE, *,
                 epsilon_tol: float = 1e-6, rel_tol: float = 1e-6):
        super().__init__(neighboring_relation)
        if neighboring_relation != NeighboringRelation.ADD_OR_REMOVE_ONE:
            raise ValueError(f"neighboring_relation must be ADD_OR_REMOVE_ONE (this accountant accounts DP-SGD under "
                             f"add/remove-one); got {neighboring_relation}")
        self._groups: dict[tuple[float, float], int] = {}  # (q, z) → steps
        self._run: DPSGDComposition | None = None  # the groups as a run, its contours kept between questions
        self._no_noise = False
        self._gaussian_mu2 = Fraction(0)  # Σ count/z² over the events with q = 1, exactly (no cap on z)
        self._all_gaussian = True  # every event so far has q = 1: the Gaussian mechanism, in closed form
        self._epsilon_tol = dpsgd_abs_tol(epsilon_tol, "epsilon_tol")  # refused here, not at the first question
        self._rel_tol = dpsgd_rel_tol(rel_tol, "rel_tol")

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
        if isinstance(event, dp_event.PoissonSampledDpEvent) and isinstance(event.event, dp_event.GaussianDpEvent):
            q, z = event.sampling_probability, event.event.noise_multiplier
        elif isinstance(event, dp_event.GaussianDpEvent):
            q, z = 1.0, event.noise_multiplier
        else:
            return self.CompositionErrorDetails(
                invalid_event=event, error_message=f"{type(event).__name__} is not supported: this accountant "
                "accounts exactly for DP-SGD, PoissonSampledDpEvent(GaussianDpEvent) and GaussianDpEvent, composed "
                "or self-composed")
        try:
            q, z = float(q), float(z)
        except (TypeError, ValueError):
            return self.CompositionErrorDetails(invalid_event=event, error_message="q and z must be numbers")
        if not (math.isfinite(q) and 0 <= q <= 1):
            return self.CompositionErrorDetails(
                invalid_event=event, error_message=f"sampling_probability must be in [0, 1]; got {q!r}")
        if math.isnan(z) or z < 0:
            return self.CompositionErrorDetails(
                invalid_event=event, error_message=f"noise_multiplier must be a number >= 0; got {z!r}")
        if math.isinf(z):  # refused, not read as "no step": an infinite variance is no Gaussian to account
            return self.CompositionErrorDetails(
                invalid_event=event, error_message="noise_multiplier must be finite (inf, were it noise, would leak "
                "nothing: leave the event out, or compose a NoOpDpEvent); got inf")
        if do_compose and count > 0 and q > 0:
            if z < Z_RANGE[0]:
                self._no_noise = True
            else:
                key = (max(q, Q_RANGE[0]), min(z, Z_RANGE[1]))
                self._groups[key] = self._groups.get(key, 0) + count
                self._run = None
                if q == 1:
                    self._gaussian_mu2 += count / Fraction(z) ** 2
                else:
                    self._all_gaussian = False
        return None

    def _composition(self) -> DPSGDComposition | None:
        """The events as a DP-SGD run (None before any step), kept until the next event composed; more steps in all than a run accounts
        (:data:`~accountlib.engine.subsampled_gaussian.STEPS_RANGE`, 1e9) refused in one line naming the events."""
        if not self._groups:
            return None
        total = sum(self._groups.values())
        if total > STEPS_RANGE[1]:
            events = ", ".join(f"{_event_name(q, z)} × {n:,}" for (q, z), n in sorted(self._groups.items())[:3])
            more = ", …" if len(self._groups) > 3 else ""
            raise ValueError(f"the events composed hold {total:,} steps in all ({events}{more}); this accountant "
                             f"accounts at most {STEPS_RANGE[1]:,} where some PoissonSampledDpEvent has a "
                             "sampling_probability < 1 (GaussianDpEvent alone has no cap: it is in closed form)")
        if self._run is None:  # built once per set of events: its contours answer the next ε or δ asked
            self._run = DPSGDComposition(schedule=[(q, z, n) for (q, z), n in self._groups.items()])
        return self._run

    def _uncapped_gaussian(self) -> Fraction | None:
        """z² = 1/μ² of the Gaussian mechanism the events compose to where every event has q = 1 and some z exceeds
        1000 (the cap of a DP-SGD run, :data:`~accountlib.engine.subsampled_gaussian.Z_RANGE`) or the steps number
        more than a run accounts (1e9): the closed form
        (:func:`~accountlib.engine.subsampled_gaussian.gaussian_profile`) has no cap, so such z is accounted as it is,
        not as 1000 (a calibration needing z ≈ 4e9 finds it), and any count of steps. None otherwise."""
        if not self._all_gaussian or not self._groups:
            return None
        if max(z for _, z in self._groups) < Z_RANGE[1] and sum(self._groups.values()) <= STEPS_RANGE[1]:
            return None
        return 1 / self._gaussian_mu2

    def get_epsilon(self, target_delta: float) -> float:
        """The upper end of the certified ε interval for ``target_delta``, rounded up to a float; ``inf`` where ε is not
        certified at or below the largest ε accounted (200 for a run of several steps with some q < 1), as
        dp_accounting's own accountants answer when they find no finite ε. On every path alike (the Opacus drop-in's
        rule too: :func:`~accountlib.applications.dpsgd_targets.epsilon_without_accounting`): δ = 0 gives ``inf``,
        δ ≥ 1 gives 0, a negative or nan δ is refused in one line; a δ below 1e-300 gives what is certified there
        (the closed form of a Gaussian run, else ``inf``)."""
        edge = epsilon_without_accounting(target_delta)
        if edge == 0.0:
            return 0.0
        if self._no_noise:
            return math.inf
        if not self._groups:
            return 0.0
        if edge is not None:
            return edge
        z_squared = self._uncapped_gaussian()
        if z_squared is not None:
            return gaussian_upper_epsilon(z_squared, target_delta, self._epsilon_tol)
        return certified_upper_epsilon(self._composition(), target_delta, self._epsilon_tol)  # inf: none certified

    def get_delta(self, target_epsilon: float) -> float:
        """A certified upper bound on δ(target_epsilon) (its value plus its error bound, rounded up to a float).

        ``target_epsilon`` is a number ≥ 0, read exactly as the library reads a user's number (a float is the decimal it
        prints as; a string such as ``"1"`` the number it holds), ``inf`` giving 0 (the loss is finite); a negative,
        nan or non-number value is refused in one line, on every path alike
        (:func:`~accountlib.applications.dpsgd_targets.exact_target_epsilon`)."""
        epsilon = exact_target_epsilon(target_epsilon)  # converted and checked before any comparison
        if self._no_noise:
            return 1.0
        if not self._groups or epsilon == math.inf:
            return 0.0
        z_squared = self._uncapped_gaussian()
        if z_squared is not None:
            return min(1.0, round_up_to_float(gaussian_profile(z_squared, _float_below(epsilon)).upper))
        run = self._composition()
        epsilon = min(epsilon, MAX_DPSGD_EPSILON)  # δ decreases in ε: its value at the largest accounted bounds it
        try:
            point = run.delta(epsilon, rel_tol=self._rel_tol, best_effort=True)  # flagged: still a bound
        except (ArithmeticError, ResourceLimitError):  # beyond the inversion's reach (a tiny rate, few steps)
            return min(1.0, round_up_to_float(total_variation_bound(run)))  # δ(ε) ≤ δ(0), the total variation
        with mpmath.workdps(40):
            return min(1.0, round_up_to_float(upper_end(point.delta, point.error_bound)))


def _event_name(q: float, z: float) -> str:
    """The dp_accounting event of one step at rate q with noise multiplier z, as its constructor reads."""
    return f"GaussianDpEvent({z:g})" if q == 1 else f"PoissonSampledDpEvent({q:g}, GaussianDpEvent({z:g}))"


def _float_below(epsilon: Fraction) -> float:
    """The largest float ≤ ``epsilon`` (δ decreases in ε: δ there bounds δ(ε) from above)."""
    value = float(min(epsilon, Fraction(sys.float_info.max)))
    return value if Fraction(value) <= epsilon else math.nextafter(value, -math.inf)
