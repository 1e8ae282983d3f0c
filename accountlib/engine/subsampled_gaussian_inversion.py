"""The composed inversion: a certified δ(ε) of one direction of a DP-SGD run from its moment-generating function.

Engine layer of :mod:`accountlib`: steps 2 to 5 of the method in :mod:`accountlib.engine.subsampled_gaussian`. The
composed M(s) = Π_g G_g(w)^{T_g} (:class:`~accountlib.engine.subsampled_gaussian_integral.OneStepIntegral` for each
group) is inverted by the trapezoidal rule on the vertical line Re s = c near the saddle point, every term of the
error (aliasing, truncation, the one-step quadrature, float64 rounding) bounded: :func:`certified_profile` is the
entry point, :func:`build_contour` and :class:`DirectionContour` its parts (a contour's nodes serve every nearby ε).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ..infrastructure.numbers import ResourceLimitError
from .subsampled_gaussian import (KAPPA, UNIT_ROUNDOFF, InversionBudget, ProfileBound, dyadic_step, loss_supremum)
from .subsampled_gaussian_integral import OneStepIntegral

__all__ = ["DirectionContour", "ContourPlan", "certified_profile", "build_contour", "plan_contour", "rounding_floor",
           "saddle", "integrals_for", "order_of", "chernoff_log_constant", "MAX_NODES"]

MAX_NODES = 400_000
"""The most nodes k of one inversion; a request that would need more is refused (``ResourceLimitError``)."""


FIRST_RUNGS = 6
"""How many node counts (rising by factors of 1.5 from the first guess) :func:`plan_contour` tries in turn before it
checks the cap and bisects."""


def order_of(direction: str, c: float) -> float:
    """The order w of the one-step integral G(w) at which a direction's M(s) is taken at s = c: w = c + 1 for the
    remove direction (M_R(s) = G(s + 1)), w = −c for the add direction (M_A(s) = G(−s)).

    >>> order_of("remove", 2.0), order_of("add", 2.0)
    (3.0, -2.0)
    """
    return c + 1 if direction == "remove" else -c


def chernoff_log_constant(lam: float) -> float:
    """log C_λ, C_λ = λ^λ/(1 + λ)^{1+λ} = sup_u (1 − e^{−u}) e^{−λu}."""
    return lam * math.log(lam) - (1 + lam) * math.log1p(lam)


class DirectionContour:
    """The nodes of one direction's inversion on one contour Re s = c: M(c + iy_k)/M̂(c), k = 0..K, with their
    error bounds. :meth:`delta` then gives a certified δ(ε) for any ε > 0 from the same nodes (most accurate for ε
    near the one the contour was chosen for).

    ``groups``: :class:`~accountlib.engine.subsampled_gaussian.StepGroup` s; ``direction``: "remove" or "add";
    ``integrals``: a dict (q, z) → :class:`~accountlib.engine.subsampled_gaussian_integral.OneStepIntegral` shared
    between contours (their real values are cached).
    """

    def __init__(self, groups, direction: str, c: float, step: float, count: int, log_tol: float, integrals: dict):
        if direction not in ("remove", "add"):
            raise ValueError(f"direction must be 'remove' or 'add'; got {direction!r}")
        if count + 1 > MAX_NODES:
            raise ResourceLimitError(f"this inversion needs {count + 1:,} nodes; at most {MAX_NODES:,} are allowed "
                                     "(very few steps at a tight tolerance, or q, z or ε far from the usual range)")
        self.groups = tuple(groups)
        self.direction = direction
        self.c = float(c)
        self.step = float(step)
        self.count = int(count)
        self.log_tol = float(log_tol)
        self.integrals = integrals
        alpha = order_of(direction, self.c)
        self.alpha = alpha
        self.y = np.arange(self.count + 1, dtype=float) * self.step
        log_r = np.zeros(self.count + 1, dtype=complex)  # Σ_g T_g log ρ_g(y_k)
        log_bound = np.zeros(self.count + 1)  # Σ_g T_g log(|ρ_g| + e_g)
        weight = np.zeros(self.count + 1)  # Σ_g T_g e_g/(|ρ_g| + e_g)  (quadrature and node rounding)
        power_rounding = np.zeros(self.count + 1)
        self.log_scales = []
        for g in self.groups:
            integral = integrals[(g.q, g.z)]
            log_n, _, _ = integral.log_real(alpha)
            self.log_scales.append(log_n)
            values, errors = integral.ratios(alpha, self.y, log_n, log_tol)
            if direction == "add":  # G(−c − iy) = conj G(−c + iy)
                values = np.conj(values)
            mags = np.abs(values)
            with np.errstate(divide="ignore"):
                log_rho = np.log(values)
            log_r += g.steps * log_rho
            log_bound += g.steps * np.log(mags + errors)
            weight += g.steps * errors / (mags + errors)
            power_rounding += g.steps * KAPPA * UNIT_ROUNDOFF * (1 + np.abs(log_rho))
        self.log_r = log_r
        self.log_node_bound = log_bound
        self.node_error_weight = weight
        self.power_rounding = power_rounding
        # the normaliser: log M̂(c) = Σ T_g log N_g, exactly from the floats (mpmath)
        with mpmath.workdps(40):
            self.log_m = mpmath.fsum(mpmath.mpf(g.steps) * mpmath.mpf(ln) for g, ln in zip(self.groups, self.log_scales))
        # the truncation bound's factor: Π_g (B_g(y_{K+1})/N_g)^{T_g}
        beyond = (self.count + 1) * self.step
        self.log_tail_modulus = math.fsum(
            g.steps * (integrals[(g.q, g.z)].modulus_bound(alpha, beyond) - ln) for g, ln in zip(self.groups, self.log_scales))

    def _log_mgf_upper(self, lam: float) -> float:
        a = order_of(self.direction, lam)
        return math.fsum(g.steps * self.integrals[(g.q, g.z)].log_real(a)[2] for g in self.groups)

    def delta(self, epsilon) -> ProfileBound:
        """Certified δ(ε) of this direction from this contour's nodes (:mod:`.subsampled_gaussian`, §3–§5)."""
        eps_f = float(epsilon)
        with mpmath.workdps(40):
            eps_mp = mpmath.mpf(epsilon) if not isinstance(epsilon, mpmath.mpf) else epsilon
        if self.direction == "add" and eps_f >= loss_supremum(self.groups, "add") * (1 + 1e-12):
            zero = mpmath.mpf(0)
            return ProfileBound(eps_f, self.direction, zero, zero, InversionBudget(zero, zero, zero, zero), 0)
        c, h = self.c, self.step
        y = self.y
        s = c + 1j * y
        kernel = 1.0 / (s * (s + 1))
        phase = np.exp(-1j * (y * eps_f))
        terms = phase * np.exp(self.log_r) * kernel
        weights = np.full(y.size, 2.0)
        weights[0] = 1.0
        j_value = h / (2 * math.pi) * float(np.sum(weights * terms.real))
        abs_kernel = np.abs(kernel)
        node_bound = np.exp(self.log_node_bound) * abs_kernel  # ≥ |exact node| and ≥ |computed node|
        # quadrature/node errors: |Π(ρ̂+e)^T − Πρ̂^T| ≤ Π(|ρ̂|+e)^T · Σ T e/(|ρ̂|+e) (each factor's error, first order
        # exact for the product of powers: (1 + t)^T − 1 ≤ T t (1 + t)^{T−1} absorbed by using |ρ̂| + e as base)
        quad = h / (2 * math.pi) * float(np.sum(weights * node_bound * self.node_error_weight)) * (1 + 1e-9)
        # rounding of the powers, phases, kernel and sum
        phase_error = KAPPA * UNIT_ROUNDOFF * (1 + np.abs(y * eps_f))
        rel = np.expm1(self.power_rounding + phase_error + 8 * KAPPA * UNIT_ROUNDOFF)
        n = y.size
        gamma = (n + 2) * UNIT_ROUNDOFF / (1 - (n + 2) * UNIT_ROUNDOFF)
        magnitude = h / (2 * math.pi) * float(np.sum(weights * node_bound))
        rounding = (h / (2 * math.pi) * float(np.sum(weights * node_bound * rel)) + 2 * gamma * magnitude) * (1 + 1e-9)
        # ε given as an exact number other than the float: |e^{−iyε} − e^{−iyε̂}| ≤ y|ε − ε̂|
        with mpmath.workdps(40):
            eps_gap = float(abs(eps_mp - mpmath.mpf(eps_f)))
        if eps_gap:
            rounding += h / (2 * math.pi) * float(np.sum(weights * node_bound * y)) * eps_gap * 1.01
        # truncation: (1/π) Π(B/N)^T / (K h) (relative to C); K = count (y_{K+1} = (count+1)h)
        truncation = math.exp(min(700.0, self.log_tail_modulus)) / (math.pi * max(self.count, 1) * h) * (1 + 1e-9)
        if self.count == 0:
            truncation = math.inf
        # aliasing, relative to C = e^{−cε} M̂(c): left images e^{−cP}/(1 − e^{−cP}) / C, right images by Chernoff
        period = 2 * math.pi / h * (1 - 1e-15)
        with mpmath.workdps(40):
            log_c_scale = -mpmath.mpf(c) * eps_mp + self.log_m
            left = mpmath.exp(-c * period - log_c_scale) / (1 - mpmath.exp(-c * period))
            best_right = mpmath.inf
            for factor in (1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 8.0):
                lam = c * factor
                try:
                    log_mgf = self._log_mgf_upper(lam)
                except (ArithmeticError, ResourceLimitError):  # no bound at this λ: another λ's, or none (lower 0)
                    continue
                gap = (lam - c) * period
                log_right = (chernoff_log_constant(lam) + log_mgf - lam * eps_mp - gap
                             - mpmath.log(-mpmath.expm1(-gap)) - log_c_scale)
                best_right = min(best_right, mpmath.exp(log_right))
            aliasing = left + best_right
            scale = mpmath.exp(log_c_scale)
            total_two_sided = mpmath.mpf(truncation) + mpmath.mpf(quad) + mpmath.mpf(rounding)
            upper = scale * (mpmath.mpf(j_value) + total_two_sided)
            lower = scale * (mpmath.mpf(j_value) - total_two_sided - aliasing)
            lower = max(lower, mpmath.mpf(0))
            upper = min(upper, mpmath.mpf(1))
            budget = InversionBudget(scale * aliasing, scale * truncation, scale * quad, scale * rounding)
        return ProfileBound(eps_f, self.direction, lower, upper, budget, n)



def _log_mgf(groups, direction: str, lam: float, integrals: dict) -> float:
    a = order_of(direction, lam)
    return math.fsum(g.steps * integrals[(g.q, g.z)].log_real(a)[0] for g in groups)


def saddle(groups, direction: str, epsilon: float, integrals: dict) -> tuple[float, float, float]:
    """(c, log of the estimated δ/C, K''(c)): the contour near the saddle point of e^{−cε}M(c)/(c(c+1)) and the
    Gaussian (saddle-point) estimate of δ/C = J ≈ 1/(c(c+1)√(2πK''(c))). Only choices: nothing here is certified."""

    def objective(log_c):
        c = math.exp(log_c)
        try:
            return _log_mgf(groups, direction, c, integrals) - c * epsilon - math.log(c * (c + 1))
        except (ArithmeticError, OverflowError, ResourceLimitError):
            return math.inf

    grid = [math.log(0.01) + k * (math.log(2000.0) - math.log(0.01)) / 16 for k in range(17)]
    values = []
    for lc in grid:
        try:
            values.append(objective(lc))
        except (ArithmeticError, OverflowError, ResourceLimitError):
            values.append(math.inf)
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    gr = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    x1, x2 = b - gr * (b - a), a + gr * (b - a)
    f1, f2 = objective(x1), objective(x2)
    for _ in range(22):  # the bracket shrinks to 1e-4 of its width in log c: only a choice, nothing certified
        if f1 < f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - gr * (b - a)
            f1 = objective(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + gr * (b - a)
            f2 = objective(x2)
    c = math.exp((a + b) / 2)
    d = c * 1e-3
    k_pp = (_log_mgf(groups, direction, c + d, integrals) - 2 * _log_mgf(groups, direction, c, integrals)
            + _log_mgf(groups, direction, c - d, integrals)) / (d * d)
    k_pp = max(k_pp, 1e-12)
    log_j = -math.log(c * (c + 1)) - 0.5 * math.log(2 * math.pi * k_pp)
    return c, log_j, k_pp


def integrals_for(groups, integrals: dict | None) -> dict:
    """The dict (q, z) → :class:`~accountlib.engine.subsampled_gaussian_integral.OneStepIntegral` with an entry for
    every group of ``groups`` (``integrals`` extended in place when given, so that its cached values are shared)."""
    integrals = {} if integrals is None else integrals
    for g in groups:
        if (g.q, g.z) not in integrals:
            integrals[(g.q, g.z)] = OneStepIntegral(g.q, g.z)
    return integrals


@dataclass(frozen=True)
class ContourPlan:
    """The choices of one contour, made before any node is computed (:func:`plan_contour`): the abscissa ``c``, the
    node spacing ``step``, the node ``count`` (``MAX_NODES`` + 1 where the plan would need more), the one-step
    tolerance ``log_tol`` and ``log_j``, the log of the saddle-point estimate of δ/C."""

    c: float
    step: float
    count: int
    log_tol: float
    log_j: float


def plan_contour(groups, direction: str, epsilon: float, rel_tol: float, integrals: dict | None = None,
                 *, widen: int = 0, cap_first: bool = False) -> ContourPlan:
    """A contour chosen for δ(ε) of one direction to relative accuracy ``rel_tol``: c near the saddle point, the
    period P from the aliasing bounds, the node count K from the modulus bound, the one-step tolerance from the
    node count. ``widen`` > 0 asks for a more generous choice (after a first attempt fell short); ``cap_first``
    checks the node cap before the first node counts (one modulus bound where the plan is over it). Only choices are
    made here (no node is computed: its cost is the one-step integrals' real values): whatever they are,
    :meth:`DirectionContour.delta` certifies its bound. A plan needing more than ``MAX_NODES`` nodes has
    ``count = MAX_NODES + 1``."""
    integrals = integrals_for(groups, integrals)
    c, log_j, k_pp = saddle(groups, direction, epsilon, integrals)
    eta = rel_tol / 20 * 10.0**(-2 * widen)
    # aliasing: e^{−cP} ≤ η·J·C, i.e. P ≥ (log(1/η) − log J − log C)/c, with log C = −cε + log M(c)
    log_c_scale = -c * epsilon + _log_mgf(groups, direction, c, integrals)
    period = max((math.log(1 / eta) - log_j - log_c_scale + math.log(4)) / c, 2 * math.pi / 50)
    period *= 1 + 0.25 * widen
    # the right images: C_λ M(λ) e^{−λε} e^{−(λ−c)P} ≤ η J C for some λ > c; lengthen P until it holds
    for _ in range(60):
        ok = False
        for factor in (1.25, 1.5, 2.0, 3.0, 5.0):
            lam = c * factor
            try:
                log_right = (chernoff_log_constant(lam) + _log_mgf(groups, direction, lam, integrals) - lam * epsilon
                             - (lam - c) * period)
            except (ArithmeticError, OverflowError, ResourceLimitError):
                continue
            if log_right - log_c_scale <= math.log(eta) + log_j:
                ok = True
                break
        if ok:
            break
        period *= 1.3
    step = dyadic_step(2 * math.pi / period)
    # node count: the modulus bound at y_{K+1} must make the truncation ≤ η J (relative to C)
    log_target = math.log(eta) + log_j
    y_guess = math.sqrt(2 * max(1.0, -log_target) / k_pp)
    count = max(8, math.ceil(y_guess / step))

    decays = []  # the log of the modulus ratio Π(B/N)^T at each rung checked

    def truncation_met(nodes: int) -> bool:
        beyond = (nodes + 1) * step
        log_mod = math.fsum(g.steps * (integrals[(g.q, g.z)].modulus_bound(order_of(direction, c), beyond)
                                       - integrals[(g.q, g.z)].log_real(order_of(direction, c))[0]) for g in groups)
        decays.append(log_mod)
        return log_mod - math.log(math.pi * nodes * step) <= log_target

    # the candidates: the first guess grown by factors of 1.5 up to the cap; the plan takes the first that meets the
    # truncation. The bound decreases in the node count (a supremum over a shrinking range, over a growing K·h), so
    # where it misses at the last rung below the cap every rung misses, and the plan is over the cap. The first six
    # rungs are tried in turn (most runs meet it there, where the bounds are cheap), then the last, then the first
    # that meets is found by bisection on the ladder (twelve modulus bounds, not twenty-three, for two steps at
    # q = 0.01, z = 1). Where the modulus bound falls by less than e from the first rung to the second (a tiny rate over
    # few steps: the loss barely moves, and nor does its characteristic function), the last rung is checked third
    # (over the cap after three modulus bounds, not seven, at q = 1e-8, T = 2). The count is the same in any order.
    ladder = [count]
    while ladder[-1] <= MAX_NODES:
        ladder.append(math.ceil(ladder[-1] * 1.5))
    last = len(ladder) - 2  # the last rung below the cap (-1: none)
    last_met = truncation_met(ladder[last]) if cap_first and last >= 0 else None
    met = None if last_met is False else next((k for k in range(min(2, last + 1)) if truncation_met(ladder[k])),
                                               0 if last < 0 else None)
    if last_met is None and met is None and last >= 2 and decays[1] >= decays[0] - 1:
        last_met = truncation_met(ladder[last])
    if met is None and last_met is not False:
        met = next((k for k in range(2, min(FIRST_RUNGS, last + 1)) if truncation_met(ladder[k])), None)
        if met is None and last >= FIRST_RUNGS and (last_met or truncation_met(ladder[last])):
            missed, met = FIRST_RUNGS - 1, last  # the rung at missed misses the truncation, the rung at met meets it
            while met - missed > 1:
                middle = (missed + met) // 2
                missed, met = (missed, middle) if truncation_met(ladder[middle]) else (middle, met)
    count = MAX_NODES + 1 if met is None else ladder[met]
    count = min(math.ceil(count * (1 + 0.5 * widen)), MAX_NODES + 1)
    # one-step tolerance: the node errors add up over ~count nodes, each amplified by T
    total_steps = sum(g.steps for g in groups)
    log_tol = max(math.log(eta) + log_j + math.log(c * (c + 1)) - math.log(total_steps) - math.log(4), -36.0)
    return ContourPlan(c, step, count, log_tol, log_j)


def rounding_floor(groups, direction: str, epsilon: float, plan: ContourPlan, integrals: dict,
                   samples: int = 48) -> float:
    """An estimate of the relative error bound float64 rounding alone puts on δ(ε) through the contour ``plan``
    (:meth:`DirectionContour.delta`'s rounding term over the saddle-point estimate of δ), from ``samples`` of the
    plan's nodes: the sum of the node moduli times each node's relative rounding, by a trapezoid over the samples.
    Widening the contour does not lower it (more nodes, the same moduli), so a ``rel_tol`` below it cannot be
    reached: the plan is refused before its nodes are computed. Only an estimate (within a factor of about 2 of
    the certified term where measured: 2.5e-9 for 2.1e-9 at q = 0.01, z = 1, T = 2, ε = 0.1, 67,251 nodes)."""
    count = min(plan.count, MAX_NODES)
    y = np.unique(np.round(np.linspace(0, count, samples)).astype(int)) * plan.step
    alpha = order_of(direction, plan.c)
    log_modulus = np.zeros(y.size)
    power_rounding = np.zeros(y.size)
    for g in groups:
        integral = integrals[(g.q, g.z)]
        log_n, _, _ = integral.log_real(alpha)
        values, _ = integral.ratios(alpha, y, log_n, plan.log_tol)
        with np.errstate(divide="ignore"):
            log_rho = np.log(values)
        log_modulus += g.steps * log_rho.real
        power_rounding += g.steps * KAPPA * UNIT_ROUNDOFF * (1 + np.abs(log_rho))
    s = plan.c + 1j * y
    modulus = np.exp(log_modulus) / np.abs(s * (s + 1))
    gamma = (count + 2) * UNIT_ROUNDOFF
    rel = power_rounding + KAPPA * UNIT_ROUNDOFF * (1 + np.abs(y * epsilon)) + 2 * gamma
    integrand = modulus * rel
    magnitude = float(np.sum((integrand[1:] + integrand[:-1]) / 2 * np.diff(y))) / math.pi
    return magnitude / math.exp(plan.log_j)


def build_contour(groups, direction: str, epsilon: float, rel_tol: float, integrals: dict | None = None,
                  *, widen: int = 0, max_nodes: int = MAX_NODES) -> DirectionContour:
    """The contour :func:`plan_contour` chooses, its nodes computed (:class:`DirectionContour`); a plan needing
    more than ``max_nodes`` nodes (at most ``MAX_NODES``) raises ``ResourceLimitError`` before any node is computed."""
    integrals = integrals_for(groups, integrals)
    plan = plan_contour(groups, direction, epsilon, rel_tol, integrals, widen=widen)
    if plan.count > min(max_nodes, MAX_NODES):  # the error carries the plan's nodes (``nodes``): over which limit
        error = (ResourceLimitError(f"this inversion would need more than {MAX_NODES:,} nodes (very few steps at a "
                                    f"tight tolerance, or q, z or ε far from the usual range; rel_tol {rel_tol:g})")
                 if plan.count > MAX_NODES else
                 ResourceLimitError(f"this inversion would need {plan.count:,} nodes, more than the {max_nodes:,} "
                                    f"left to the caller (rel_tol {rel_tol:g})"))
        error.nodes = plan.count
        raise error
    return DirectionContour(groups, direction, plan.c, plan.step, plan.count, plan.log_tol, integrals)


def certified_profile(groups, direction: str, epsilon, rel_tol: float = 1e-9, integrals: dict | None = None,
                      contour: DirectionContour | None = None, *, max_nodes: int = MAX_NODES,
                      spent: list | None = None) -> tuple[ProfileBound, DirectionContour]:
    """δ(ε) of one direction with a certified bound, aiming at error_bound ≤ rel_tol·δ (the bound is certified
    whatever happens; the aim is retried twice with more generous choices before the result is returned as it is,
    unless the retry's plan would take the nodes computed past ``MAX_NODES``, all contours together, or float64
    rounding alone already misses the aim: more nodes would only add rounding). Only a first contour over ``MAX_NODES`` raises ``ResourceLimitError``, before any node is
    computed.

    Parameters
    ----------
    groups : sequence of StepGroup
        The run's groups (q, z, steps).
    direction : str
        "remove" (P against Q) or "add" (Q against P).
    epsilon : float or mpf
        ε, exactly.
    rel_tol : float
        The relative accuracy aimed at.
    integrals : dict, optional
        (q, z) → one-step integral, shared between calls (their values are cached).
    contour : DirectionContour, optional
        A contour to try first (one built for a nearby ε); a fresh one is built when it falls short.
    max_nodes : int
        The nodes this call may compute, all its contours together (at most ``MAX_NODES``): a first contour planned
        beyond it raises ``ResourceLimitError``, a retry beyond it is not run (a caller's budget left over).
    spent : list, optional
        Each contour's node count is appended as it is built (a caller's running total).

    Returns
    -------
    tuple
        (the certified :class:`~accountlib.engine.subsampled_gaussian.ProfileBound`, the contour used), so that a
        nearby ε can reuse the contour.

    >>> from accountlib.engine.subsampled_gaussian import StepGroup
    >>> bound, _ = certified_profile([StepGroup(0.01, 1.0, 1000)], "remove", 2.0, 1e-8)
    >>> 0 < bound.lower < bound.upper and bound.error_bound <= 1e-8 * bound.value
    True
    """
    eps_f = float(epsilon)
    integrals = integrals_for(groups, integrals)
    if direction == "add" and eps_f >= loss_supremum(groups, "add") * (1 + 1e-12):
        zero = mpmath.mpf(0)
        return ProfileBound(eps_f, direction, zero, zero, InversionBudget(zero, zero, zero, zero), 0), contour
    result, computed = None, 0
    for widen in range(3):
        if contour is None or widen > 0:
            if result is not None:  # a wider contour is planned first: the nodes of all of them within the node cap
                plan = plan_contour(groups, direction, eps_f, rel_tol, integrals, widen=widen)
                if computed + plan.count > min(max_nodes, MAX_NODES):  # (r37l N3: 107,121 then 397,515 nodes
                    break  # took 18 s, and the wider contour's rounding left it wider than the first)
            contour = build_contour(groups, direction, eps_f, rel_tol, integrals, widen=widen,
                                    max_nodes=max_nodes - computed)
            computed += contour.count
            if spent is not None:
                spent.append(contour.count)
        result = contour.delta(epsilon)
        if result.upper == 0 or result.error_bound <= rel_tol * result.value:
            return result, contour
        b = result.budget
        with mpmath.workdps(30):
            if b.aliasing + b.truncation <= rel_tol * result.value / 4 and contour.log_tol <= -35.9:
                break  # the one-step integrals are at float64's floor: a wider contour would not help
            if b.rounding > rel_tol * result.value / 2:
                break  # rounding alone misses: it grows with the nodes, so a wider contour would miss by more
    return result, contour

