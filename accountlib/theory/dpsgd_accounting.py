"""Certified accounting for DP-SGD: δ(ε), ε(δ), f(α) and the smallest noise multiplier of a Poisson-subsampled
Gaussian run, under add/remove-one neighbours.

Theory layer of :mod:`accountlib`. A run is a schedule of groups (q_g, z_g, T_g): T_g steps at sampling rate q_g with
noise multiplier z_g (sensitivity 1, the clipping norm). Each step is dominated by the pair (P, Q) with
P = (1 − q)N(0, z²) + qN(1, z²) and Q = N(0, z²) (Koskela, Jälkö & Honkela 2020; Zhu, Dong & Wang 2022, Prop. 30):
removing an example compares P with Q, adding one compares Q with P, and a neighbouring pair of datasets stays in
one direction for the whole run. So the run is (ε, δ)-DP for

    δ(ε) = max(δ_remove(ε), δ_add(ε)),

each direction's profile composed over all steps. Every number here is certified by
:mod:`accountlib.engine.subsampled_gaussian` (a Laplace inversion of the composed moment-generating function, every
error term bounded), and every result states the relation: add or remove one example, the worse direction.

* :meth:`DPSGDComposition.delta` — δ(ε) with ``error_bound ≤ rel_tol·δ``;
* :meth:`DPSGDComposition.epsilon` — the certified interval [lower, upper] for ε(δ): (upper, δ)-DP holds, and
  (lower, δ)-DP certainly fails; δ(ε) decreases strictly where it is positive, so the interval is found by bisection
  on one contour;
* :meth:`DPSGDComposition.tradeoff` — f(α), the symmetric trade-off function of the run (the largest trade-off
  function below both directions' curves), from the profile by the duality
  f(α) = sup_{ε ≥ 0} max(1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) (Dong, Roth & Su 2022, Prop. 2.12, for the
  symmetrised curve), bracketed by concavity in t = e^ε;
* :func:`calibrate_noise_multiplier` — the smallest z on a grid of relative step 1e-5 at which every target holds,
  with a certified failure one step below. Adding noise is a post-processing of both laws of the pair, so δ(ε)
  decreases as z grows (data processing) and the bisection's answer is the smallest on the grid, not only a local
  one.

The modules beside this one, by job: :mod:`.dpsgd_arguments` (the arguments, checked), :mod:`.dpsgd_results` (the
result types, each stating the relation), :mod:`.dpsgd_tradeoff` (f(α) from the profile, bracketed by concavity),
:mod:`.dpsgd_noise_calibration` (the grid search of the calibration), :mod:`.dpsgd_epsilon_search` (the ε search's
guesses, and its certified interval where no inversion is in reach). Their result types and
:data:`~accountlib.theory.dpsgd_results.RELATION` are re-exported here. Tolerances are checked by the library's one
validator of their kind (``rel_tol`` by :func:`~accountlib.infrastructure.numbers.as_rel_tol`, ``abs_tol`` by
:func:`~accountlib.infrastructure.numbers.as_abs_tol`, ``resolution`` by :func:`~accountlib.infrastructure.numbers.as_resolution`); one finer than float64 certifies here
(:data:`~accountlib.theory.dpsgd_arguments.FINEST_TOLERANCE`, 1e-12) is refused at once.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import mpmath

from ..engine.subsampled_gaussian import ProfileBound, StepGroup, gaussian_profile, loss_supremum, one_step_profile
from ..engine.subsampled_gaussian_integral import OneStepIntegral
from ..engine.subsampled_gaussian_bounds import total_variation_upper
from ..engine.subsampled_gaussian_inversion import MAX_NODES, certified_profile, integrals_for
from ..infrastructure.numbers import LARGEST_TOL, ResourceLimitError, as_fraction, as_resolution, error_bound
from ..infrastructure.search import FAILS, HOLDS, UNDECIDED, arithmetic, certified_bisect
from ..infrastructure.shown import bound_text
from .accounting import as_points
from .composition import DeltaPoint
from .dpsgd_arguments import (MAX_DPSGD_EPSILON, MAX_GROUPS, as_schedule, as_step_group,
                              calibration_problem, dpsgd_abs_tol, dpsgd_rel_tol, exact_alpha, exact_epsilon,
                              target_delta)
from .dpsgd_epsilon_search import (EPSILON_TOLERANCES, NoContourInReach, ball_upper, bounded_delta_point,
                                   bounded_epsilon, contour_serves, delta_estimate, delta_lower_bound,
                                   delta_within_cap, first_profile, gaussian_epsilon_guess, interval_shown,
                                   saddle_epsilon, width_shown)
from .dpsgd_noise_calibration import smallest_noise_multiplier
from .dpsgd_results import (RELATION, DPSGDCalibration, DPSGDDeltaPoint, DPSGDEpsilonInterval,
                            DPSGDTradeoffPoint, EpsilonOutOfRange)
from .dpsgd_tradeoff import TRADEOFF_MAX_NODES, tradeoff_point, tradeoff_refusal

__all__ = ["DPSGDComposition", "calibrate_noise_multiplier",
           # re-exported from the modules that own them
           "DPSGDDeltaPoint", "DPSGDEpsilonInterval", "DPSGDTradeoffPoint", "DPSGDCalibration", "RELATION",
           "EpsilonOutOfRange",
           "MAX_DPSGD_EPSILON", "MAX_GROUPS"]

class DPSGDComposition:
    """A DP-SGD run: the Poisson-subsampled Gaussian (sensitivity 1) composed over its steps, add/remove-one.

    Either ``DPSGDComposition(q, noise_multiplier, steps)`` or ``DPSGDComposition(schedule=[(q, z, steps), ...])``
    (groups with the same q and z are merged). q and the noise multiplier are used as the float64 numbers they
    are: the accounting is exact for exactly that mechanism.

    Parameters
    ----------
    q : number
        The sampling rate, in [1e-8, 1] (a user's number: 0.01 is the decimal it prints as, used as its float).
    noise_multiplier : number
        z, in [0.05, 1000]: the noise is N(0, z²) times the clipping norm.
    steps : int
        The number of steps, 1 to 1e9.
    schedule : list of (q, noise_multiplier, steps), optional
        Groups of steps instead of the three above (at most 1000 distinct (q, z) groups).

    Attributes
    ----------
    groups : tuple of StepGroup
        The run's groups, merged.
    relation : str
        :data:`~accountlib.theory.dpsgd_results.RELATION`, the neighbouring relation of every result.

    >>> run = DPSGDComposition(0.01, 1.0, 1000)
    >>> e = run.epsilon(1e-5, abs_tol=1e-6)
    >>> 1.82 < e.lower < e.upper < 1.84 and e.width <= 1e-6
    True
    """

    def __init__(self, q=None, noise_multiplier=None, steps=None, *, schedule=None):
        if schedule is not None:
            if q is not None or noise_multiplier is not None or steps is not None:
                raise ValueError("give either q, noise_multiplier and steps, or schedule, not both")
            self.groups = as_schedule(schedule)
        else:
            if q is None or noise_multiplier is None or steps is None:
                raise ValueError("q, noise_multiplier and steps are all needed (or a schedule of (q, noise_multiplier,"
                                 " steps) triples)")
            self.groups = (as_step_group(q, noise_multiplier, steps),)
        self.relation = RELATION
        # every q = 1: the Gaussian mechanism of μ² = Σ T_g/z_g², in closed form (z² = 1/μ² exactly)
        self._gaussian_z2 = (1 / sum(Fraction(g.steps) / Fraction(g.z) ** 2 for g in self.groups)
                             if all(g.q == 1 for g in self.groups) else None)
        self._integrals: dict = {}
        self._contours: dict = {}

    def __repr__(self) -> str:
        parts = ", ".join(f"(q={g.q:g}, z={g.z:g}, steps={g.steps})" for g in self.groups)
        return f"DPSGDComposition([{parts}])"

    @property
    def steps(self) -> int:
        """The number of steps of the run, all groups together."""
        return sum(g.steps for g in self.groups)

    @property
    def schedule(self) -> tuple:
        """The run's groups as (q, z, steps) triples of floats and ints."""
        return tuple((g.q, g.z, g.steps) for g in self.groups)

    def calibrate(self, target, *, resolution=1e-5, rel_tol: float = 1e-9) -> "DPSGDCalibration":
        """The smallest noise multiplier meeting ``target`` for this run's sampling rates and steps, the ratios of its
        groups' noise multipliers kept (the answer is the first group's multiplier):
        :func:`calibrate_noise_multiplier` on this schedule. The run's own multipliers only set those ratios.

        >>> c = DPSGDComposition(0.01, 1.0, 1000).calibrate((2.0, 1e-5), resolution=1e-3)
        >>> c.proven_smallest
        True
        """
        first = self.groups[0].z
        return calibrate_noise_multiplier(schedule=[(g.q, g.z / first, g.steps) for g in self.groups], target=target,
                                          resolution=resolution, rel_tol=rel_tol)

    def scaled(self, factor: float) -> "DPSGDComposition":
        """The same schedule with every noise multiplier multiplied by ``factor``."""
        return DPSGDComposition(schedule=[(g.q, g.z * factor, g.steps) for g in self.groups])

    # -- one direction ------------------------------------------------------------------------------------------
    @property
    def _has_closed_form(self) -> bool:
        return self._gaussian_z2 is not None or (len(self.groups) == 1 and self.groups[0].steps == 1)

    def _closed_form(self, direction: str, epsilon) -> ProfileBound:
        """One direction's δ(ε) in closed form (arb): a run whose every q is 1 (the Gaussian mechanism,
        :func:`~accountlib.engine.subsampled_gaussian.gaussian_profile`), or a single step
        (:func:`~accountlib.engine.subsampled_gaussian.one_step_profile`); valid for every ε ≥ 0."""
        if self._gaussian_z2 is not None:
            return gaussian_profile(self._gaussian_z2, epsilon, direction)
        g = self.groups[0]
        return one_step_profile(g.q, g.z, epsilon, direction)

    def _direction(self, direction: str, epsilon: float, rel_tol: float, spent: list | None = None) -> ProfileBound:
        """One direction's δ(ε); a nearby contour of this rel_tol (or finer, in a trade-off search) reused if it meets it."""
        if self._has_closed_form:
            return self._closed_form(direction, epsilon)
        key = (direction, rel_tol)
        finer = [v for k, v in self._contours.items() if k[0] == direction and k[1] <= rel_tol] if spent is not None else []
        built_at, contour = min(finer, key=lambda v: abs(v[0] - epsilon), default=self._contours.get(key, (math.inf, None)))
        reused = None
        if contour is not None and abs(built_at - epsilon) <= 0.5 * (1 + abs(epsilon)):
            reused = contour.delta(epsilon)  # a nearby ε: the same nodes, if they are accurate enough there
            if reused.upper == 0 or reused.error_bound <= rel_tol * reused.value:
                return reused
        left = MAX_NODES if spent is None else TRADEOFF_MAX_NODES - sum(spent)
        bound, contour = certified_profile(self.groups, direction, epsilon, rel_tol, self._integrals,
                                           max_nodes=left, spent=spent)
        if contour is not None and bound.upper > 0:
            self._contours[key] = (epsilon, contour)
        if reused is not None and reused.upper - reused.lower < bound.upper - bound.lower:
            return reused  # past float64's floor, nodes built nearby may do better: never worse than asked alone
        return bound

    def chernoff_log_bound(self, direction: str, epsilon: float) -> float:
        """A cheap certified upper bound on one direction's δ(ε), no inversion: the log of the Chernoff bound
        C_λ M(λ) e^{−λε} at a few λ (0 when none is below 1; −inf when the add loss cannot exceed ε)."""
        if epsilon >= loss_supremum(self.groups, direction) * (1 + 1e-12):
            return -math.inf
        best = 0.0
        orders = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
        if direction == "remove":  # small orders too: where the noise is small, only they have a finite moment
            orders = (0.01, 0.03, 0.1, 0.25) + orders
        for lam in orders:
            try:
                w = -lam if direction == "add" else lam + 1
                log_m = math.fsum(g.steps * self._integral(g).log_real(w)[2] for g in self.groups)
            except (ArithmeticError, OverflowError, ResourceLimitError):
                continue
            best = min(best, lam * math.log(lam) - (1 + lam) * math.log1p(lam) + log_m - lam * epsilon)
        return best

    def _integral(self, g: StepGroup) -> OneStepIntegral:
        if (g.q, g.z) not in self._integrals:
            self._integrals[(g.q, g.z)] = OneStepIntegral(g.q, g.z)
        return self._integrals[(g.q, g.z)]

    def _direction_exact(self, direction: str, epsilon, rel_tol: float, spent: list | None = None) -> ProfileBound:
        """One direction's δ at an exact ε (a float, or a Fraction that may lie between two floats ε⁻ < ε < ε⁺: δ is
        decreasing, so δ(ε) ∈ [lower at ε⁺, upper at ε⁻])."""
        as_float = float(epsilon)
        nearest = as_fraction(as_float, "epsilon", floats="binary")  # the float's own value
        exact = as_fraction(epsilon, "epsilon", floats="binary")  # a Fraction, or a float computed here
        if nearest == exact:
            return self._direction(direction, as_float, rel_tol, spent)
        below = as_float if nearest < exact else math.nextafter(as_float, -math.inf)
        above = math.nextafter(below, math.inf)
        lo_bound = self._direction(direction, above, rel_tol, spent)
        hi_bound = self._direction(direction, below, rel_tol, spent)
        return ProfileBound(as_float, direction, lo_bound.lower, hi_bound.upper, hi_bound.budget, hi_bound.nodes)

    def delta_bracket(self, epsilon, rel_tol: float, spent: list | None = None, settled: float = 0.0) -> DPSGDDeltaPoint:
        """δ(ε) for both directions, the worse one stated, with the bound the contours reach for ``rel_tol`` (never
        refused for a wider one: a calibration then finds the target undecided there).

        Parameters
        ----------
        epsilon : float or Fraction
            ε exactly: a float is its own binary value (a point computed here), a Fraction may lie between two floats
            (δ is then bracketed by its values at both).
        rel_tol : float
            The relative accuracy aimed at, already checked.
        spent : list, optional
            A trade-off search's node counts so far, appended to (its contours within ``TRADEOFF_MAX_NODES``).
        settled : float
            An absolute width that is enough (a trade-off search's): the add direction is not inverted where its
            Chernoff bound, capped at 1, leaves δ within it of the remove direction's lower end.

        Returns
        -------
        DPSGDDeltaPoint
        """
        remove = self._direction_exact("remove", epsilon, rel_tol, spent)
        with mpmath.workdps(40):
            add_cap = self.chernoff_log_bound("add", float(epsilon) * (1 - 1e-15))
            cheap = min(mpmath.exp(add_cap), 1)  # δ ≤ 1 whatever the direction
            if add_cap == -math.inf or cheap <= remove.lower and remove.lower > 0 or cheap - remove.lower <= settled:
                add = None  # the add direction is certainly below the remove direction's lower end
            else:
                add = self._direction_exact("add", epsilon, rel_tol, spent)
            if add is None:
                add_interval = (mpmath.mpf(0), cheap if add_cap > -math.inf else mpmath.mpf(0))
                lower, upper = remove.lower, max(remove.upper, add_interval[1])
                dominant = "remove" if add_interval[1] <= remove.lower else "both"
            else:
                lower, upper = max(remove.lower, add.lower), max(remove.upper, add.upper)
                dominant = ("remove" if remove.lower > add.upper else "add" if add.lower > remove.upper else "both")
                add_interval = (add.lower, add.upper)
            value = (lower + upper) / 2
            bound = (upper - lower) / 2 * (1 + mpmath.mpf(10) ** -20) + abs(value) * mpmath.mpf(10) ** -38
            eps = as_fraction(epsilon, "epsilon", floats="binary")
            shown = mpmath.mpf(eps.numerator) / eps.denominator
        meets = bound <= rel_tol * value
        return DPSGDDeltaPoint(epsilon=shown, delta=value, error_bound=error_bound(bound), meets_tolerance=bool(meets),
                               shortfall=None if meets else "precision", relation=RELATION, dominant=dominant,
                               remove=(remove.lower, remove.upper), add=add_interval)

    # -- δ(ε) ---------------------------------------------------------------------------------------------------
    def delta(self, epsilon, *, rel_tol: float = 1e-6, best_effort: bool = False):
        """δ(ε) of the run at ``epsilon`` (a number or a list), each with ``error_bound ≤ rel_tol·δ``; the relation is
        add/remove-one, the worse direction (``RELATION``). ε is taken exactly (between two floats, δ is bracketed by
        its values at both). The relative accuracy float64 can certify is about T·1e-13 (1e-9 at T = 10,000): a
        ``rel_tol`` below 1e-12 is refused at once (``ResourceLimitError``), as is one whose first contour would need
        more than 400,000 nodes (planned before any node is computed) unless the bounds that need no inversion
        (:meth:`delta_from_bounds`: a tiny sampling rate over few steps) already meet it, the refusal naming the
        interval they give; one the run cannot reach raises a one-line
        ArithmeticError naming the bound reached (after one contour: a wider one is not tried where rounding alone
        misses, since it grows with the nodes). With ``best_effort=True`` (the rule of
        :func:`accountlib.theory.accounting.delta`) the bound certified within the node cap is returned instead, flagged:
        ``meets_tolerance`` False and ``shortfall`` "precision", or "node cap" where the tolerance was loosened
        100-fold until the contour fit the cap.

        Parameters
        ----------
        epsilon : number or list of numbers
            ε in [0, 200], exactly (a float is the decimal it prints as).
        rel_tol : float
            The relative accuracy, in [1e-12, 0.5] (:func:`~accountlib.theory.dpsgd_arguments.dpsgd_rel_tol`).
        best_effort : bool
            Return a flagged result instead of raising where ``rel_tol`` is missed.

        Returns
        -------
        DPSGDDeltaPoint or list of DPSGDDeltaPoint
            One result for one ε, a list for a list; each with ``delta``, ``error_bound``, ``relation``, the
            ``dominant`` direction and both directions' intervals.

        >>> run = DPSGDComposition(0.01, 1.0, 1000)
        >>> near, far = run.delta([1.0, 2.0])
        >>> far.delta + far.error_bound < near.delta - near.error_bound
        True
        """
        rel_tol = dpsgd_rel_tol(rel_tol)
        if not isinstance(best_effort, bool):
            raise ValueError(f"best_effort must be True or False; got {best_effort!r}")
        points, single = as_points(epsilon, "epsilon")
        results = []
        for e in points:
            eps = exact_epsilon(e)
            point, shortfall = delta_within_cap(self, eps, rel_tol, best_effort)
            missed = point.delta > 0 and point.error_bound > rel_tol * point.delta
            if missed and not best_effort:
                raise ArithmeticError(f"rel_tol: could not certify {rel_tol:g} at epsilon = {float(eps):g} for {self!r}"
                                      f" ({shortfall}): the bound certified when it stopped is "
                                      f"{bound_text(point.error_bound / point.delta)} relative (float64 certifies about "
                                      "T·1e-13, less where δ is far below the inversion's nodes); loosen rel_tol, or "
                                      "pass best_effort=True for the flagged result")
            if missed or shortfall == "node cap":
                point = dataclasses.replace(point, meets_tolerance=False, shortfall=shortfall)
            elif not point.meets_tolerance:  # judged by the bracket against the half it aimed at: met rel_tol itself
                point = dataclasses.replace(point, meets_tolerance=True, shortfall=None)
            results.append(point)
        return results[0] if single else results

    def delta_from_bounds(self, eps, rel_tol: float) -> DPSGDDeltaPoint:
        """δ(ε) from the bounds that need no inversion, as a result (``meets_tolerance`` against ``rel_tol``): for the
        runs no contour reaches (a tiny sampling rate over few steps, or z near 0.05); ``eps`` in [0, 200] and
        ``rel_tol`` checked as by :meth:`delta` (:func:`~accountlib.theory.dpsgd_epsilon_search.bounded_delta_point`).

        >>> p = DPSGDComposition(1e-8, 1.0, 10).delta_from_bounds(0.0, 0.5)
        >>> p.meets_tolerance and 1e-8 < p.delta + p.error_bound < 2.1e-8
        True
        """
        return bounded_delta_point(self, exact_epsilon(eps), dpsgd_rel_tol(rel_tol))

    # -- f(α) ---------------------------------------------------------------------------------------------------
    def tradeoff(self, alpha, *, abs_tol: float = 1e-9, best_effort: bool = False):
        """β = f(α) of the run's symmetric trade-off function at ``alpha`` in [0, 1] (a number or a list), each with
        ``error_bound ≤ abs_tol``, add/remove-one.

        f(α) = sup_{ε ≥ 0} max(1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) with δ the worse direction's profile
        (module docstring). Each branch is the supremum of a concave function (δ is convex in t = e^ε, and
        e^{−ε}δ(ε) in u = e^{−ε}); certified values at a few points near the maximiser bound it from below, and
        the chords through them, extended, from above (a concave function lies below the extensions of its chords;
        :mod:`.dpsgd_tradeoff`).

        Parameters
        ----------
        alpha : number or list of numbers
            α in [0, 1], exactly (a float is the decimal it prints as).
        abs_tol : float
            The absolute accuracy, in [1e-12, 0.5] (:func:`~accountlib.infrastructure.numbers.as_abs_tol`, and the
            float64 floor). A run whose every q is 1 is the Gaussian mechanism, f(α) = Φ(Φ⁻¹(1 − α) − μ) in closed
            form (:func:`~accountlib.engine.subsampled_gaussian.gaussian_tradeoff`), certified however small β is;
            otherwise a β the bounds cannot certify to ``abs_tol`` raises a one-line ``ArithmeticError`` naming the
            interval they give (the search's δ(ε) within ``TRADEOFF_MAX_NODES`` nodes, all together).
        best_effort : bool
            Return that wider interval instead (``meets_tolerance`` False, ``shortfall`` "precision", or "node cap"
            where those nodes ran out), the rule of :func:`accountlib.theory.accounting.tradeoff`.

        Returns
        -------
        DPSGDTradeoffPoint or list of DPSGDTradeoffPoint

        >>> run = DPSGDComposition(0.01, 1.0, 1000)
        >>> p = run.tradeoff(0.1, abs_tol=1e-7)
        >>> 0.5 < p.beta < 0.9 and p.error_bound <= 1e-7
        True
        """
        abs_tol = dpsgd_abs_tol(abs_tol)
        if not isinstance(best_effort, bool):
            raise ValueError(f"best_effort must be True or False; got {best_effort!r}")
        points, single = as_points(alpha, "alpha")
        results = []
        for a in points:
            self._contours.clear()  # each α's search from its own contours: its result is the one asked alone
            point = tradeoff_point(exact_alpha(a), abs_tol, self.groups, self._gaussian_z2, self)
            if not point.meets_tolerance and not best_effort:
                raise ArithmeticError(tradeoff_refusal(point, abs_tol, repr(self)))
            results.append(point)
        return results[0] if single else results

    # -- ε(δ) ---------------------------------------------------------------------------------------------------
    def _reachable_epsilon(self, direction: str, delta: mpmath.mpf, tol: float, best_effort: bool = False):
        """(lower, upper, at_lower, at_upper, why): :meth:`_direction_epsilon` with each δ to relative accuracy 1e-10,
        or, where its contours would need more than the node cap, 1e-8 or 1e-6 (an ε interval of width tol needs δ
        only to about tol·|d log δ/dε|; a looser one may leave the bisection undecided, which says so in abs_tol's
        terms, or with ``best_effort`` stops there: ``why`` "precision"); where no tolerance is in reach (a tiny
        sampling rate over few steps), :func:`~accountlib.theory.dpsgd_epsilon_search.bounded_epsilon`, whose
        interval may be wider than ``tol`` (``why`` "node cap"). ``why`` names the shortfall of an interval wider
        than ``tol``."""
        for fine in EPSILON_TOLERANCES:
            try:
                return (*self._direction_epsilon(direction, delta, tol, fine, best_effort), "precision")
            except NoContourInReach:
                break  # over the node cap at the loosest tolerance too: the tolerances between are not tried
            except ResourceLimitError:
                continue
        return (*bounded_epsilon(self, direction, delta, tol), "node cap")

    def _direction_epsilon(self, direction: str, delta: mpmath.mpf, tol: float, fine: float = 1e-10,
                           best_effort: bool = False):
        """(lower, upper, at_lower, at_upper) for one direction: δ_d(upper) ≤ δ certified, δ_d(lower) > δ certified
        (lower = 0 with at_lower None when δ_d(ε) ≤ δ already at ε = 0), each δ to relative accuracy ``fine``; where
        float64 cannot decide δ(ε) against δ closer than ``tol``, ArithmeticError, or with ``best_effort`` the
        narrowest interval decided (wider than ``tol``)."""
        sup = loss_supremum(self.groups, direction)

        def evaluate(eps: float, contour=None) -> ProfileBound:
            if single:
                return self._closed_form(direction, eps)
            if eps >= sup * (1 + 1e-12):
                zero = mpmath.mpf(0)
                return ProfileBound(eps, direction, zero, zero, None, 0)
            if contour is not None:
                return contour.delta(eps)
            bound, _ = first_profile(self.groups, direction, eps, fine, self._integrals)
            return bound

        single = self._has_closed_form
        # the largest ε accounted: 200 by the inversion; a closed form's is where floats are still tol/4 apart (1e6 at
        # tol = 1e-6, 1126 at tol = 1e-12). Refused at once where δ there is not certainly below the target (the
        # saddle-point estimate first: no nodes where it is far below or far above)
        cap = min(1e6, max(float(MAX_DPSGD_EPSILON), tol * 2.0**50)) if single else float(MAX_DPSGD_EPSILON)
        estimate = 0.0 if single else delta_estimate(self.groups, integrals_for(self.groups, self._integrals), cap,
                                                     (direction,))
        if estimate > float(delta) * 1e3:  # far beyond: refused without the nodes a certified δ(cap) would cost
            raise EpsilonOutOfRange(f"ε(δ = {float(delta):.12g}) lies beyond {cap:g}, the largest ε accounted for a DP-SGD "
                                    f"run of several steps: the saddle-point estimate of the {direction} direction's "
                                    f"δ({cap:g}) is {estimate:.3g} (not certified)")
        # a contour at ε = 0 only where the bounds that need no nodes do not show δ(0) > δ: it lies next to the loss's
        # mean, where it needs the most nodes (98,112 at q = 0.5, z = 0.2044, T = 10; 102 near its ε(1e-5) ≈ 150)
        if single or not delta_lower_bound(self, direction, 0.0) > delta:
            at_zero = evaluate(0.0)
            if at_zero.upper <= delta:
                return Fraction(0), Fraction(0), None, at_zero
        if single or estimate > float(delta) * 1e-3:
            self._within_range(direction, delta, cap)
        # a first guess from the saddle-point approximation (no nodes), then Newton steps on log δ with one contour
        guess = (gaussian_epsilon_guess(self._gaussian_z2, float(delta)) if self._gaussian_z2 is not None else
                 min(saddle_epsilon(self.groups, integrals_for(self.groups, self._integrals), direction, float(delta),
                                    sup), cap))
        contour = None
        for _ in range(12):
            if contour is None and not single:
                _, contour = first_profile(self.groups, direction, guess, fine, self._integrals)
                built_at = guess
            bound = evaluate(guess, contour)
            value = bound.value
            slope = contour.c if contour is not None else 5.0
            if value <= 0:
                guess = guess / 2
                contour = None
                continue
            step = float(mpmath.log(value / delta)) / max(slope, 1e-3)
            step = max(min(step, 1.0 + guess), -0.5 * guess)
            guess = min(guess + step, cap)
            if math.isfinite(sup):
                guess = min(guess, sup * (1 - 1e-9))
            if contour is not None and abs(guess - built_at) > 0.05 * (1 + guess) and not contour_serves(contour, guess, fine, tol):
                contour = None  # moved far, and the nodes are not accurate enough there: a contour for the new guess
            if abs(step) < tol / 4:
                break
        if contour is None and not single:
            _, contour = certified_profile(self.groups, direction, guess, fine, self._integrals)

        def status(eps: float):
            b = evaluate(eps, contour)
            if b.upper <= delta:
                return HOLDS, b
            if b.lower > delta:
                return FAILS, b
            return UNDECIDED, b

        width = tol
        lower = upper = None
        at_lower = at_upper = None
        span = width / 2
        for _ in range(80):
            lo_e, hi_e = max(guess - span, 0.0), min(guess + span, cap)
            if upper is None:
                st, b = status(hi_e)
                if st == HOLDS:
                    upper, at_upper = hi_e, b
                elif hi_e >= cap:
                    self._within_range(direction, delta, cap)
            if lower is None:
                if lo_e <= 0:
                    st, b = status(0.0)
                    if st == HOLDS:
                        return Fraction(0), Fraction(0), None, b
                    lower, at_lower = (0.0, b) if st == FAILS else (None, None)
                else:
                    st, b = status(lo_e)
                    if st == FAILS:
                        lower, at_lower = lo_e, b
            if lower is not None and upper is not None:
                break
            span *= 2
        if lower is None or upper is None:
            raise ArithmeticError(f"could not bracket ε(δ = {float(delta):.12g}) for the {direction} direction")
        def walk_out(low: float, high: float, mid: float):
            """δ(mid) lies within its bound of the target: walk out from mid in steps of width/16 until each side is
            decided (the undecided band is float64's floor, about T·1e-13 relative in δ)."""
            step = width / 16
            new_low, new_high = (low, None), (high, None)
            for k in range(1, 9):
                if mid + k * step < high:
                    st_hi, b_hi = status(mid + k * step)
                    if st_hi == HOLDS:
                        new_high = (mid + k * step, b_hi)
                        break
            for k in range(1, 9):
                if mid - k * step > low:
                    st_lo, b_lo = status(mid - k * step)
                    if st_lo == FAILS:
                        new_low = (mid - k * step, b_lo)
                        break
            if new_low[1] is None and new_high[1] is None:
                if best_effort:  # the interval decided so far, wider than tol: the caller flags it
                    return None
                raise ArithmeticError(f"the certified bounds cannot decide δ(ε) against δ = {float(delta):.12g} "
                                      f"({direction}) near ε = {mid:.12g}: ε(δ) lies in [{low:.12g}, {high:.12g}]; "
                                      f"loosen abs_tol (float64 certifies δ to about T·1e-13 relative), or pass "
                                      "best_effort=True for that interval, flagged")
            return new_low, new_high

        # the library's one certified bisection, on the floats between the bracket's ends
        (lower, at_lower), (upper, at_upper) = certified_bisect(
            status, (lower, at_lower), (upper, at_upper), midpoint=arithmetic,
            until=lambda low, high: not high - low > width, undecided=walk_out)
        return (as_fraction(lower, "lower", floats="binary"), as_fraction(upper, "upper", floats="binary"),
                at_lower, at_upper)  # the floats bisected, exactly

    def _within_range(self, direction: str, delta: mpmath.mpf, cap: float) -> None:
        """Nothing when δ(cap) ≤ δ is certified for this direction; else :class:`EpsilonOutOfRange` in one line (ε(δ)
        exceeds the largest ε accounted, or is not certified below it)."""
        try:
            if self._has_closed_form:
                at_cap = self._closed_form(direction, cap)
            else:  # a coarse bound is enough to decide against δ, or to show it cannot be decided
                at_cap, _ = certified_profile(self.groups, direction, cap, 1e-3, self._integrals)
        except (ArithmeticError, ResourceLimitError) as error:
            raise EpsilonOutOfRange(f"ε(δ = {float(delta):.12g}) is not certified at or below {cap:g}, the largest ε "
                                    f"accounted for this run ({direction} direction: δ({cap:g}) could not be "
                                    f"bounded: {error})") from None
        if at_cap.upper <= delta:
            return
        reached = ("exceeds" if at_cap.lower > delta else "is not certified at or below")
        if self._has_closed_form and cap < 1e6:  # the ceiling is abs_tol·2⁵⁰: where floats are still abs_tol/4 apart
            why = (f"in closed form (a single step, or every q = 1) the largest ε accounted is abs_tol·2⁵⁰, where "
                   f"floats are still abs_tol/4 apart, up to 1e6: a looser abs_tol lifts it ({cap:g} at "
                   f"abs_tol = {cap / 2.0**50:g})")
        else:
            why = "200 for a run of several steps with some q < 1; up to 1e6 in closed form"
        raise EpsilonOutOfRange(f"ε(δ = {float(delta):.12g}) {reached} {cap:g}, the largest ε accounted for this run "
                                f"({why}): the {direction} direction's δ({cap:g}) lies in "
                                f"{interval_shown(at_cap.lower, at_cap.upper)}")

    def epsilon(self, delta, *, abs_tol=1e-9, best_effort: bool = False) -> DPSGDEpsilonInterval:
        """The certified ε for δ: an interval [lower, upper] of width ≤ ``abs_tol`` with (upper, δ)-DP certified and
        (lower, δ)-DP certainly failing, add/remove-one (both directions: ε(δ) is the larger of theirs). Each
        direction's ε is bracketed from a saddle-point guess refined by Newton steps on one contour, then narrowed by
        the library's one certified bisection (:func:`~accountlib.infrastructure.search.certified_bisect`).

        Parameters
        ----------
        delta : number
            δ in [1e-300, 1), exactly (1e-5 is 1/100000).
        abs_tol : float
            The interval's largest width, in [1e-12, 0.5] (:func:`~accountlib.infrastructure.numbers.as_abs_tol`, and
            the float64 floor); where float64 cannot decide δ(ε) that finely, ArithmeticError in one line. Where the
            total variation bound already meets δ, ε = 0 with no inversion. Where no inversion is in reach (a
            sampling rate like 1e-6 over a few hundred steps), the interval comes from bounds that need none
            (:mod:`accountlib.engine.subsampled_gaussian_bounds` and the Chernoff bound), and one wider than
            ``abs_tol`` is refused in one line (``ResourceLimitError``) naming the abs_tol it meets.
        best_effort : bool
            Return that wider interval instead of refusing it (its upper end is still certified: what an accountant
            that must return an upper bound on ε needs); ``lower`` is then 0 with ``at_lower`` None where no failure
            is certified. Likewise an interval float64 cannot narrow to ``abs_tol``. Such an interval has
            ``meets_tolerance`` False and ``shortfall`` "node cap" (no inversion in reach) or "precision" (float64's
            floor).

        Returns
        -------
        DPSGDEpsilonInterval
            ``lower``, ``upper`` (exact rationals), the δ at both ends, the relation and the dominant direction.

        Raises
        ------
        EpsilonOutOfRange
            In one line, when ε(δ) is not certified at or below the largest ε accounted: 200 for a run of several
            steps, up to 1e6 for a run in closed form (a single step, or every q = 1: the Gaussian mechanism of
            μ² = Σ T_g/z_g², certified at every ε). A ``ValueError``.

        >>> e = DPSGDComposition(0.01, 1.0, 1000).epsilon("1e-12", abs_tol=1e-6)
        >>> 3.9 < e.lower and e.width <= 1e-6
        True
        """
        delta = target_delta(delta)
        tol = dpsgd_abs_tol(abs_tol)
        if not isinstance(best_effort, bool):
            raise ValueError(f"best_effort must be True or False; got {best_effort!r}")
        with mpmath.workdps(40):
            d = mpmath.mpf(delta.numerator) / delta.denominator
            if not self._has_closed_form:  # δ(ε) ≤ δ(0), the total variation, in both directions: ε = 0 where it meets δ
                tv = ball_upper(total_variation_upper(self.groups))
                if tv <= d:
                    at_zero = DeltaPoint(mpmath.mpf(0), tv / 2, error_bound(tv / 2))
                    return DPSGDEpsilonInterval(delta, Fraction(0), Fraction(0), None, at_zero, relation=RELATION,
                                                dominant="both")
        lo_r, hi_r, at_lo_r, at_hi_r, why_r = self._reachable_epsilon("remove", d, tol, best_effort)
        # the add direction: nothing to do when it certainly holds at the remove direction's upper end
        add_cap = self.chernoff_log_bound("add", float(hi_r))
        with mpmath.workdps(40):
            add_holds = add_cap == -math.inf or mpmath.exp(add_cap) <= d
        if not add_holds:
            try:
                add_holds = self._direction("add", float(hi_r), 1e-10).upper <= d
            except ResourceLimitError:
                add_holds = False  # not decided by a contour: the add direction's own ε below
        if add_holds:
            lower, upper, at_lower, at_upper, dominant, why = lo_r, hi_r, at_lo_r, at_hi_r, "remove", why_r
        else:
            lo_a, hi_a, at_lo_a, at_hi_a, why_a = self._reachable_epsilon("add", d, tol, best_effort)
            why = why_a if hi_a - lo_a > tol else why_r
            if hi_a >= hi_r:
                upper, at_upper = hi_a, at_hi_a
            else:
                upper, at_upper = hi_r, at_hi_r
            if lo_a >= lo_r:
                lower, at_lower = lo_a, at_lo_a
            else:
                lower, at_lower = lo_r, at_lo_r
            dominant = "add" if lo_a > hi_r else "remove" if lo_r > hi_a else "both"
        if upper - lower > tol and not best_effort:  # only the bounds that need no inversion reach this run
            # (an inversion float64 cannot narrow raised in one line already, unless best_effort)
            width = width_shown(upper - lower)
            fix = (f"give abs_tol >= {width}, or best_effort=True for that interval" if float(width) <= LARGEST_TOL
                   else f"that is wider than any abs_tol accepted ({LARGEST_TOL:g}): pass best_effort=True for it")
            raise ResourceLimitError(
                f"abs_tol: ε(δ = {float(delta):.12g}) is certified only within [{float(lower):.6g}, {float(upper):.6g}] for "
                f"{self!r} (its inversion would need more than {MAX_NODES:,} nodes at any tolerance: a sampling rate "
                f"this small over so few steps; the interval is from bounds that need none); {fix}")
        to_point = (lambda b: b if b is None or isinstance(b, DeltaPoint) else
                    DeltaPoint(mpmath.mpf(b.epsilon), b.value, error_bound(b.error_bound)))
        meets = upper - lower <= tol
        return DPSGDEpsilonInterval(delta, lower, upper, to_point(at_lower), to_point(at_upper), meets_tolerance=meets,
                                    shortfall=None if meets else why, relation=RELATION, dominant=dominant)


def calibrate_noise_multiplier(q=None, steps=None, target=None, *, schedule=None, resolution=1e-5,
                               rel_tol: float = 1e-9, progress=None) -> DPSGDCalibration:
    """The smallest noise multiplier z on the grid (relative step ``resolution``, default 1e-5) at which every
    (ε, δ) target holds for DP-SGD, add/remove-one, with a certified failure one grid step below.

    Homogeneous: ``calibrate_noise_multiplier(q, steps, (epsilon, delta))``. Heterogeneous: ``schedule`` is a list
    of (q, factor, steps) triples; group g then runs with noise multiplier factor_g·z. ``target`` is one (ε, δ)
    pair, an :class:`~accountlib.theory.targets.ApproximateDP`, or a list of them (all must hold); a μ-GDP target is
    refused. The search runs over the accepted noise multipliers (every group's z in [0.05, 1000]): where every
    multiplier down to the floor meets the targets, the answer is the smallest grid point at or above it (z·factor ≥
    0.05 for every group), with no failure below it (``failure`` None, ``proven_smallest`` False: nothing smaller is
    accepted); where none up to the search's upper end does, a one-line ``ArithmeticError`` names each target's δ
    there. ``resolution`` is checked by :func:`~accountlib.infrastructure.numbers.as_resolution` ([1e-9, 0.5]),
    ``rel_tol`` (each δ's relative accuracy) by :func:`~accountlib.infrastructure.numbers.as_rel_tol` and no finer
    than 1e-12. The search is :func:`accountlib.theory.dpsgd_noise_calibration.smallest_noise_multiplier`.

    Parameters
    ----------
    q, steps : number, int
        The sampling rate and the number of steps of a homogeneous run.
    target : pair, ApproximateDP or list of them
        The (ε, δ) targets, all of which must hold.
    schedule : list of (q, factor, steps), optional
        A heterogeneous run instead of ``q`` and ``steps``.
    resolution : float
        The grid's relative step, in [1e-9, 0.5].
    rel_tol : float
        Each δ's relative accuracy, in [1e-12, 0.5].
    progress : callable, optional
        Called with a line of text after each evaluation.

    Returns
    -------
    DPSGDCalibration
        ``noise_multiplier`` (exact, on the grid), ``step``, the ``schedule`` at it, the ``checks`` there and the
        ``failure`` one step below (``proven_smallest``).

    >>> c = calibrate_noise_multiplier(0.01, 1000, (2.0, 1e-5), resolution=1e-3)
    >>> c.proven_smallest and 0.9 < c.noise_multiplier < 1.0
    True
    """
    base, targets = calibration_problem(q, steps, target, schedule)
    resolution = as_resolution(resolution)
    rel_tol = dpsgd_rel_tol(rel_tol)
    return smallest_noise_multiplier(base, targets, lambda schedule_at: DPSGDComposition(schedule=schedule_at),
                                     resolution=resolution, rel_tol=rel_tol, progress=progress)
