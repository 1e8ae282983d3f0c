"""Certified δ(ε) for budgets with any denominators: the smoothed privacy profile on a tilted contour.

Engine layer of :mod:`accountlib`, beside the lattice engines (:mod:`accountlib.engine.tails`,
:mod:`accountlib.engine.tilted`). Those compute tail probabilities of S = Σ a_i X_i on its lattice (1/L)·Z, whose
size grows with the budgets' common denominator: budgets such as the 2020 redistricting data's, exact rationals
with denominators near 10¹², give lattices of 10¹⁵ points that no sieve can scan. This module never forms the
lattice. Its cost depends on the number of distinct terms and on the accuracy asked for only.

**The quantity.** For the shift pair of :class:`accountlib.theory.composition.Composition` (privacy loss ρ(1 + S), ρ the
pair's zCDP ρ, X_i ~ N_Z(0, σ_i²)), with s₀ = ε/ρ − 1 and X = S − s₀,

    δ(ε) = E[k(X)],   k(x) = (1 − e^{−ρx})₊

(the hockey-stick divergence written under the first distribution; sieve paper §3.2, Prop. 3.3). k is continuous with
one kink, at x = 0.

**Smoothing, with a two-sided bound** (derived for this module). Let k_η = k ∗ N(0, η²), c = ρη ≤ 1/2 and
g(x) = exp(−(1 − c)x²/2η²). Pointwise, for every x,

    −(e^{c²/2} − 1)·e^{−ρx}·1{x ≥ 0}  ≤  k_η(x) − k(x)  ≤  C₊·g(x),   C₊ = ρη (1/√(2π) + c) e^{2c}

(left: k = (1 − e^{−ρx}) + (e^{−ρx} − 1)₊, the first part smooths exactly to 1 − e^{−ρx}e^{c²/2}, the second is
convex; right: k(y) ≤ ρy₊ below the kink and (e^{ρ|y|} − 1) ≤ ρ|y|e^{ρ|y|} above it, then the Gaussian integrals
bounded by g). Hence, with A = E[e^{−ρX}; X ≥ 0] ≤ M(τ)e^{−τs₀} for any τ ≥ 0 (M the moment generating
function of S) and G = E[g(X)],

    E[k_η(X)] − C₊·G  ≤  δ(ε)  ≤  E[k_η(X)] + (e^{c²/2} − 1)·A.

The bracket is O(η²) wide where a step function's would be O(η): η ≈ 1e-5 serves a relative accuracy of 1e-6.
(Where S has an atom of mass m within a few η of s₀ — grid budgets, with s₀ on the lattice — G ≥ m and the lower
side widens by O(ρηm); the budgets this engine exists for have atoms of negligible mass.)

**The contour.** Both expectations are inverse Laplace transforms along Re z = τ > 0:

    E[k_η(X)] = (1/2π)∫ K(z) e^{z²η²/2} M(z) e^{−zs₀} du,   K(z) = ρ/(z(z + ρ)),
    G          = (1/2π)∫ κ√(2π) e^{z²κ²/2} M(z) e^{−zs₀} du,  κ = η/√(1 − c),

z = τ + iu, M(z) = Π_i E e^{z a_i X_i}; the smoothing makes the integrands decay like e^{−u²η²/2}. Tilting X_i by
e^{t x} gives the shifted discrete Gaussian (:mod:`accountlib.engine.tilted`), so each factor is
M_i(τa_i)·φ_{μ_i}(a_i u) with the dual form of :func:`accountlib.engine.characteristic.log_cf_tilted`, at the angle
a_i u reduced modulo 2π in double-double arithmetic (the node u_j = 2πj/P has a rational P, so j·a_i/P is reduced
to ~1e-30 of a turn). The trapezoidal rule with step 2π/P sums, *exactly*, Σ_m e^{τmP} w(mP), w(y) the expectation
shifted by y (Poisson summation): the images m ≠ 0 are bounded by e^{−τP}/(1 − e^{−τP}) (below) and by a Chernoff
bound at θ₂ > τ (above). The rest of the error budget: the nodes beyond ±T (the Gaussian decay), the nodes dropped
by the sieve (each factor's rigorous bound of :func:`accountlib.engine.characteristic.log_factor_bound`, applied factor by
factor, the most concentrated first, every dropped node's bound summed), and the float64 rounding of the kept
nodes (the tilted engine's per-factor rounding model, plus the angle reduction and the kernel). M(τ), M(θ₂) and
the prefactor e^{−τs₀} are arb balls.

Every σ_i² must be at least 1/4 (ρ_i ≤ 4): the dual form keeps its images |u| ≤ 2, and the neglected ones, at
most 3e^{−6a} relatively (a = 2π²σ² ≥ 4.9, so below 2e-13), are part of the rounding bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np

from ..infrastructure.numbers import as_fraction, resource_limit
from . import arithmetic
from .arithmetic import two_prod
from .characteristic import factor_bound_constant, image_sum, log_bound_at_distance, log_cf_tilted, log_mgf

__all__ = ["SmoothedProfile", "SmoothedDelta", "MAX_SMOOTHED_NODES", "SMALLEST_SMOOTHED_SIGMA2", "TooManyNodes",
           "DegenerateContour", "intersect"]

_U = 2.0**-53
_CHUNK = 1 << 16

SMALLEST_SMOOTHED_SIGMA2 = Fraction(1, 4)
"""The smallest noise variance a term of the smoothed engine may have (a budget ρ_i ≤ 4)."""

MAX_SMOOTHED_NODES = 30_000_000
"""The most contour nodes one pass of δ(ε) scans (about 3e-7 s each for one distinct term, less where the sieve
drops most of them: about 3 s for a redistricting path's 27 to 38 distinct terms; all the passes of one δ together:
:data:`accountlib.engine.front.MAX_SMOOTHED_WORK`): a finer accuracy than they reach is answered with the finest bound they
give (the result's ``error_bound`` says so, as the lattice engines' floor does). Time and memory stay bounded: the
nodes are processed in chunks of 65,536. Raise it with the environment variable ``ACCOUNTLIB_MAX_SMOOTHED_NODES``."""


@dataclass(frozen=True)
class SmoothedDelta:
    """δ(ε) from :class:`SmoothedProfile`: the true δ lies in [delta − error_bound, delta + error_bound].

    ``terms`` names the parts of the bound (absolute, mpf): ``smoothing_low``/``smoothing_high`` (the bracket of
    the smoothing), ``truncation``, ``aliasing``, ``sieve`` and ``rounding`` (of the contour sum), and records
    ``eta``, ``nodes`` (evaluated), ``scanned`` (nodes bounded by the sieve)."""

    epsilon: mpmath.mpf
    delta: mpmath.mpf
    error_bound: mpmath.mpf
    terms: dict = field(default_factory=dict)


class DegenerateContour(Exception):
    """Raised by one evaluation whose scales float64 cannot carry (an accuracy below 1e-280 of the Chernoff bound,
    a tilt too small for any alias period): the schedule then answers with the bracket [0, M(τ)e^{−τs₀}]."""


class TooManyNodes(Exception):
    """Raised by one evaluation whose node count would exceed the cap (the schedule then asks for the finest η the
    cap allows)."""

    def __init__(self, nodes: int):
        super().__init__(nodes)
        self.nodes = nodes


def intersect(a, b):
    """The intersection of two certified intervals for the same δ (either may be None)."""
    if a is None or b is None:
        return b if a is None else a
    with mpmath.workdps(40):
        lower = max(a.delta - a.error_bound, b.delta - b.error_bound)
        upper = min(a.delta + a.error_bound, b.delta + b.error_bound)
        if upper < lower:  # cannot happen for two valid intervals; keep the narrower rather than invent one
            return a if a.error_bound <= b.error_bound else b
        narrower = a if a.error_bound <= b.error_bound else b
        return SmoothedDelta(a.epsilon, (lower + upper) / 2, (upper - lower) / 2 * (1 + mpmath.mpf(10) ** -15),
                             narrower.terms)


def _turns(js: np.ndarray, hi: float, lo: float) -> tuple[np.ndarray, np.ndarray]:
    """(frac, error): j·r reduced to [−1/2, 1/2] turns for r ≈ hi + lo (double-double), with a bound on the error
    of the reduction (not counting |r − hi − lo|, which the caller adds)."""
    p, e = two_prod(js, hi)
    q = p - np.rint(p)  # exact: p and rint(p) are within 1/2 of each other
    t = q + (e + js * lo)
    f = t - np.rint(t)
    err = _U * (2.0 + np.abs(e) * 2 + np.abs(js * lo) * 2)
    return f, err


def _dd(x: Fraction) -> tuple[float, float, float]:
    """x as hi + lo with a bound on |x − hi − lo|."""
    hi = float(x)
    lo = float(x - Fraction(hi))
    rest = abs(x - Fraction(hi) - Fraction(lo))
    return hi, lo, float(rest) * 1.01 + 1e-300


class SmoothedProfile:
    """δ(ε) of the shift pair with privacy loss ρ(1 + S), S = Σ a_g X_g (X_g ~ N_Z(0, σ_g²), n_g copies each).

    Parameters
    ----------
    groups : ``((sigma2, weight), multiplicity)`` with exact ``Fraction`` σ² ≥ 1/2 and weights a ≠ 0 (the layout
        of :attr:`accountlib.engine.lattice.Lattice.groups`, with the weights themselves instead of their lattice
        integers). Any denominators.
    rho : the pair's ρ (exact): the loss is ρ(1 + S).

    >>> from fractions import Fraction as F
    >>> rhos = [F(1, 3), F(2, 7)]                      # ρ' = (1/3 + 2/7)/2
    >>> rho = sum(rhos) / 2
    >>> profile = SmoothedProfile([((1 / r, r / rho), 1) for r in rhos], rho)
    >>> s0, tau, prefactor, radius = profile.start(F(1))
    >>> d = profile.evaluate(F(1), s0, tau, prefactor, radius, 1e-3, prefactor * 1e-9, float(rho))  # one η
    >>> 0 < d.delta < 1 and d.terms["eta"] == 1e-3
    True

    Which η to evaluate at is the front door's schedule (:class:`accountlib.engine.front.SmoothedTails`).
    """

    def __init__(self, groups, rho, *, max_nodes: int | None = None):
        self.max_nodes = resource_limit("ACCOUNTLIB_MAX_SMOOTHED_NODES", MAX_SMOOTHED_NODES) if max_nodes is None else int(max_nodes)
        self.groups = [((Fraction(s2), abs(Fraction(a))), int(n)) for (s2, a), n in groups]
        if not self.groups:
            raise ValueError("groups must hold at least one term")
        for (s2, a), n in self.groups:
            if s2 < SMALLEST_SMOOTHED_SIGMA2:
                raise ValueError(f"the smoothed engine needs every sigma2 >= 1/4 (every budget rho <= 4); got sigma2 = {s2}")
            if a == 0 or n < 1:
                raise ValueError("weights must be nonzero and multiplicities positive")
        self.rho = Fraction(rho)
        if self.rho <= 0:
            raise ValueError(f"rho must be positive; got {rho!r}")
        self.variance = sum((n * a * a * s2 for (s2, a), n in self.groups), Fraction(0))  # Var S ≤ proxy Σ a²σ²
        # the sieve takes the most concentrated factors first (largest σ²·n per unit of period)
        order = sorted(range(len(self.groups)), key=lambda g: -float(self.groups[g][0][0]) * self.groups[g][1])
        self.groups = [self.groups[g] for g in order]
        self._s2 = np.array([float(s2) for (s2, _), _ in self.groups])
        self._mult = np.array([n for _, n in self.groups], dtype=float)
        self._extra = [factor_bound_constant(s2) for (s2, _), _ in self.groups]
        eps = np.array([2 * image_sum(s2, 1) for s2 in self._s2])
        self._log_dmin = np.log1p(-eps)
        self._image3 = np.array([6 * image_sum(s2, 3) + 3 * math.exp(-6 * 2 * math.pi**2 * s2) for s2 in self._s2])

    # -- the pieces ------------------------------------------------------------------------------

    def log_mgf(self, theta: Fraction):
        """log M(θ) = log E e^{θS} as an arb ball (exact rational θ)."""
        return log_mgf(self.groups, Fraction(theta))

    def _mpf(self, ball) -> tuple:
        """(midpoint, radius) of an arb ball as mpf numbers."""
        return mpmath.mpf(ball.mid().str(40, radius=False)), mpmath.mpf(ball.rad().str(5, radius=False)) * 1.01

    def _tilt(self, s0: Fraction) -> Fraction:
        v = float(self.variance)
        tau = max(float(s0) / v, 1 / math.sqrt(v))
        return Fraction(tau).limit_denominator(1 << 20)

    def start(self, epsilon: Fraction) -> tuple:
        """(s₀, τ, M(τ)e^{−τs₀}, its relative arb radius) for δ at ``epsilon``: the shifted threshold, the contour's
        tilt and the Chernoff prefactor that bounds δ (k ≤ 1{x > 0} ≤ e^{τx}), at 40 digits. What every evaluation
        at this ε shares (:meth:`evaluate`)."""
        s0 = epsilon / self.rho - 1
        tau = self._tilt(s0)
        with mpmath.workdps(40):
            log_pf = self.log_mgf(tau) - arithmetic.arb_fraction(tau * s0)
            lp, lp_rad = self._mpf(log_pf)
            return s0, tau, mpmath.exp(lp), lp_rad

    def chernoff_only(self, epsilon: Fraction, prefactor, lp_rad) -> SmoothedDelta:
        """δ ∈ [0, M(τ)e^{−τs₀}] (k ≤ 1{x > 0} ≤ e^{τx}): the answer when no contour sum can be certified."""
        with mpmath.workdps(40):
            top = min(prefactor * (1 + mpmath.expm1(lp_rad)), mpmath.mpf(1))
            eps_m = mpmath.mpf(epsilon.numerator) / epsilon.denominator
            return SmoothedDelta(eps_m, top / 2, top / 2 * (1 + mpmath.mpf(10) ** -12), {"chernoff_only": True})

    def evaluate(self, epsilon, s0: Fraction, tau: Fraction, prefactor, lp_rad, eta: float, budget, b: float,
                 node_limit: int | None = None) -> SmoothedDelta:
        """One contour sum at smoothing η (the two-sided bracket of the module docstring); ``budget`` is the absolute
        error allowed for the contour part, ``b`` = float(ρ) and the rest what :meth:`start` returns. Raises
        :class:`TooManyNodes` when the node count would exceed the cap (or ``node_limit``, when smaller: with
        ``node_limit=0`` the call is a cost estimate, the node count in the exception, before any sum), :class:`DegenerateContour` when float64 cannot
        carry the contour's scales. Which η, and what to do then, is the front door's schedule
        (:class:`accountlib.engine.front.SmoothedTails`)."""
        tau_f = float(tau)
        c = b * eta
        kappa = eta / math.sqrt(1 - c)
        norm = budget / prefactor  # the normalised budget (J = E[...] / prefactor)
        share = float(norm) / 4
        if not 1e-280 < share < 1e300:
            raise DegenerateContour()
        # the alias period P (rational): below e^{−τP}; above by a Chernoff bound at θ₂
        p = max(4, math.ceil(math.log(4 / share) / tau_f) if share < 1 else 4)
        while True:
            theta2 = tau + Fraction(p) / Fraction(self.variance).limit_denominator(1 << 20)
            theta2 = as_fraction(float(theta2), "theta2", floats="binary").limit_denominator(1 << 20)
            q = math.exp(-float(theta2 - tau) * p)
            if q < 0.5:  # q = e^{−(θ₂ − τ)P} shrinks as P grows: enlarge P until the images are small
                log_up = self.log_mgf(theta2) - arithmetic.arb_fraction(theta2 * s0)
                up, _ = self._mpf(log_up)
                above = mpmath.exp(up + float(theta2) ** 2 * kappa**2 / 2) * q / (1 - q)
                below = mpmath.exp(-tau_f * p) / (1 - mpmath.exp(-tau_f * p))
                if above + below <= budget / 4:
                    break
            if p > 1 << 24:
                raise DegenerateContour()
            p = int(p * 1.5) + 1
        period = Fraction(p)
        step = 2 * math.pi / p
        # truncation: |K̃| ≤ b e^{τ²η²/2} e^{−u²η²/2}/u², |K_G| ≤ κ√2π e^{τ²κ²/2} e^{−u²κ²/2}
        t_cut = math.sqrt(2 * max(math.log(1 / share), 1.0)) / eta
        while True:
            trunc_i = (2 / (2 * math.pi)) * b * math.exp(tau_f**2 * eta**2 / 2) * math.exp(-(t_cut**2) * eta**2 / 2) / (t_cut**3 * eta**2)
            if trunc_i <= share or t_cut * eta > 60:
                break
            t_cut *= 1.05
        trunc_g = (2 / (2 * math.pi)) * kappa * math.sqrt(2 * math.pi) * math.exp(tau_f**2 * kappa**2 / 2) \
            * math.exp(-(t_cut**2) * kappa**2 / 2) / (t_cut * kappa**2)
        n_nodes = int(math.ceil(t_cut / step))
        if n_nodes > (self.max_nodes if node_limit is None else min(self.max_nodes, node_limit)):
            raise TooManyNodes(n_nodes)
        drop_i = share * p / (2 * n_nodes)  # per node: all dropped together stay below share
        c_plus = b * eta * (1 / math.sqrt(2 * math.pi) + c) * math.exp(2 * c) * (1 + 1e-12)
        drop_g = drop_i / c_plus  # G enters the bound times C₊
        # the factors' angles: j·a_g/P in turns, double-double
        ratios = [_dd(a / period) for (_, a), _ in self.groups]
        mu = [float(s2 * a * tau) for (s2, a), _ in self.groups]
        shift_hi, shift_lo, shift_rest = _dd(s0 / period)
        rest_const = -np.cumsum(self._mult[::-1] * self._log_dmin[::-1])[::-1]  # Σ over groups g' ≥ g of −n log Dmin
        rest_const = np.append(rest_const, 0.0)
        sums = {"I": 0.0, "G": 0.0, "absI": 0.0, "absG": 0.0, "dropI": 0.0, "dropG": 0.0, "roundI": 0.0, "roundG": 0.0}
        kept_total = 0
        for start in range(1, n_nodes + 1, _CHUNK):
            js = np.arange(start, min(start + _CHUNK, n_nodes + 1), dtype=float)
            u = js * step
            # kernels' magnitudes (for the sieve and the bounds)
            mag_k = b * math.exp(tau_f**2 * eta**2 / 2) * np.exp(-(u**2) * eta**2 / 2) / (np.hypot(tau_f, u) * np.hypot(tau_f + b, u))
            mag_g = kappa * math.sqrt(2 * math.pi) * math.exp(tau_f**2 * kappa**2 / 2) * np.exp(-(u**2) * kappa**2 / 2)
            idx = np.arange(js.size)
            log_bound = np.zeros(js.size)
            for g, ((s2, a), n) in enumerate(self.groups):
                hi, lo, rest = ratios[g]
                f, ferr = _turns(js[idx], hi, lo)
                dist = np.maximum(2 * math.pi * (np.abs(f) - ferr - js[idx] * rest), 0.0)
                log_bound[idx] += n * (log_bound_at_distance(self._s2[g], self._extra[g], dist) - self._log_dmin[g])
                bound = np.exp(log_bound[idx] + rest_const[g + 1])
                drop = (bound * mag_k[idx] <= drop_i) & (bound * mag_g[idx] <= drop_g)
                if drop.any():
                    sums["dropI"] += float(np.sum(bound[drop] * mag_k[idx][drop]))
                    sums["dropG"] += float(np.sum(bound[drop] * mag_g[idx][drop]))
                    idx = idx[~drop]
                if idx.size == 0:
                    break
            if idx.size == 0:
                continue
            kept_total += idx.size
            jk = js[idx]
            uk = u[idx]
            log_phi = np.zeros(jk.size, dtype=complex)
            eta_r = np.zeros(jk.size)
            for g, ((s2, a), n) in enumerate(self.groups):
                hi, lo, rest = ratios[g]
                f, ferr = _turns(jk, hi, lo)
                xi = 2 * math.pi * f
                dxi = 2 * math.pi * (ferr + jk * rest) + 2 * _U * np.abs(xi)
                s2f = self._s2[g]
                ag = 2 * math.pi**2 * s2f
                log_phi += n * log_cf_tilted(s2f, ag, xi, mu[g], jk.size)
                reach = 2 * math.pi * s2f * np.abs(xi)
                size = [np.exp(-ag * k * k + k * reach) for k in (1, 2)]
                base = 16 * _U * (4 + s2f * xi**2 / 2 + sum(sz * (ag * k * k + k * reach) for k, sz in zip((1, 2), size)))
                phase = abs(mu[g]) * (np.abs(xi) + 2 * math.pi * (size[0] + 2 * size[1]))
                slope = s2f * np.abs(xi) + abs(mu[g]) + 2 * math.pi * s2f * (size[0] + 2 * size[1])
                eta_r += n * (base + 16 * _U * phase + slope * dxi * 1.01 + self._image3[g])
            fs, fserr = _turns(jk, shift_hi, shift_lo)
            dshift = 2 * math.pi * (fserr + jk * shift_rest) + 4 * _U
            phi = np.exp(log_phi - 2j * math.pi * fs)
            z = tau_f + 1j * uk
            w = z * z * (eta**2 / 2)
            kern = b / (z * (z + b)) * np.exp(w)
            wg = z * z * (kappa**2 / 2)
            kern_g = kappa * math.sqrt(2 * math.pi) * np.exp(wg)
            terms_i = (phi * kern).real
            terms_g = (phi * kern_g).real
            bound = np.exp(log_bound[idx])
            rel = np.expm1(1.01 * eta_r + 8 * _U * np.abs(log_phi) + dshift)
            kern_rel = 64 * _U * (4 + np.abs(w))
            kern_g_rel = 64 * _U * (4 + np.abs(wg))
            sums["I"] += float(np.sum(terms_i))
            sums["G"] += float(np.sum(terms_g))
            sums["absI"] += float(np.sum(np.abs(terms_i)))
            sums["absG"] += float(np.sum(np.abs(terms_g)))
            sums["roundI"] += float(np.sum(bound * mag_k[idx] * (rel + kern_rel * (1 + rel)) + np.abs(terms_i) * 40 * _U))
            sums["roundG"] += float(np.sum(bound * mag_g[idx] * (rel + kern_g_rel * (1 + rel)) + np.abs(terms_g) * 40 * _U))
        k0 = b / (tau_f * (tau_f + b)) * math.exp(tau_f**2 * eta**2 / 2)
        g0 = kappa * math.sqrt(2 * math.pi) * math.exp(tau_f**2 * kappa**2 / 2)
        m = kept_total + n_nodes // _CHUNK + 4  # terms summed: the kept nodes, then one partial sum per chunk
        gamma = m * _U / (1 - m * _U)
        j_i = (k0 + 2 * sums["I"]) / p
        j_g = (g0 + 2 * sums["G"]) / p
        err_i = (2 * (sums["roundI"] + sums["dropI"] + gamma * sums["absI"]) + 8 * _U * k0) / p + trunc_i
        err_g = (2 * (sums["roundG"] + sums["dropG"] + gamma * sums["absG"]) + 8 * _U * g0) / p + trunc_g
        err_i *= 1 + 1e-6
        err_g *= 1 + 1e-6
        with mpmath.workdps(40):
            pf_rel = mpmath.expm1(lp_rad)  # the prefactor's arb radius, relative
            value_i = prefactor * j_i
            bound_i = prefactor * (err_i + pf_rel * (abs(j_i) + err_i)) + above + below
            value_g = prefactor * j_g
            g_high = prefactor * (j_g + err_g) * (1 + pf_rel) + above + below
            low = c_plus * g_high
            high = mpmath.expm1(c * c / 2) * prefactor * (1 + pf_rel) * (1 + 1e-12)
            lower = value_i - bound_i - low
            upper = value_i + bound_i + high
            lower = max(lower, mpmath.mpf(0))
            mid = (lower + upper) / 2
            half = (upper - lower) / 2 * (1 + mpmath.mpf(10) ** -12)
            eps_m = mpmath.mpf(epsilon.numerator) / epsilon.denominator
        terms = {"smoothing_low": low, "smoothing_high": high, "truncation": prefactor * trunc_i,
                 "aliasing": above + below, "sieve": prefactor * 2 * sums["dropI"] / p,
                 "rounding": bound_i - prefactor * trunc_i - above - below - prefactor * 2 * sums["dropI"] / p,
                 "G": value_g, "eta": eta, "nodes": kept_total, "scanned": n_nodes, "period": p, "tilt": tau_f, "pass": 1}
        return SmoothedDelta(eps_m, mid, half, terms)


def __getattr__(name: str):
    """The lattice engines' cost estimates, once here, live with those engines (:mod:`accountlib.engine.quadrature`)."""
    if name in ("lattice_candidates", "lattice_nodes"):
        from . import quadrature

        return getattr(quadrature, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
