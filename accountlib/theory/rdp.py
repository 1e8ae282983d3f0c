"""Privacy-loss cumulant generating functions, optimal zCDP, and the zCDP–RDP gap.

Theory layer of :mod:`accountlib`, after the unifying paper (§3–4; book, Derivations §8). For
an additive-noise mechanism with noise Z and query change s, P = Law(s + Z),
Q = Law(Z), and

    K(t) = log E_Q[(dP/dQ)^{t+1}] = t·D_{t+1}(P‖Q)           (t > 0),
    ρ(s) = sup_{t>0} K(t)/(t(t+1))                            (optimal zCDP),
    Γ(t) = ρ·t(t+1) − K(t) ≥ 0                                (the information gap).

Each mechanism object has ``.cgf(t, s)``, ``.rho(s)``, ``.gap(t, s)`` and
``.loss_cumulants(s)`` (ρ − E_P L, κ3, κ4 of the privacy loss L under P, the
terms of the local expansion, Thm 3.1). Exact CGFs are used where they exist
(closed forms, finite sums, theta functions); otherwise Gauss–Hermite or
adaptive quadrature, with ``cgf_check`` re-evaluating at twice the resolution
to show convergence.

Composition adds CGFs and gaps (§3.3). The DP-SGD calibration of §5.2 is
:mod:`accountlib.theory.dpsgd_calibration`; the paper's figure diagnostics (the allocation path of Prop. 4.3,
Student-t coefficients, quadrature discrepancies) are the book's, in ``accountbook.diagnostics``. The conversions of §3.2 and C_δ[U] of §5 (ε from an RDP curve or from ρ, δ from ρ) live in
:mod:`accountlib.theory.conversions`: ``rdp_to_epsilon(lambda a: K(a - 1)/(a - 1), delta)`` is ε_R of a CGF K.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from scipy import integrate, optimize, special

from ..infrastructure.numbers import as_scale, as_shift, float_or_precise

__all__ = [
    "NoiseMechanism", "Gaussian", "Laplace", "GaussianMixture", "StudentT", "GeneralizedGaussian",
    "DiscreteLaplace", "DiscreteGaussian", "PoissonSubsampledGaussian", "MechanismComposition",
    "sampled_gaussian_cgf", "sampled_gaussian_cgf_reference", "QuadratureError", "GH_NODES",
]

GH_NODES = 192
"""Gauss–Hermite nodes of the mixture and subsampled-Gaussian CGFs (the mixture's ``cgf_check`` doubles them; the
subsampled Gaussian's compares with mpmath)."""


def _logsumexp(a) -> float:
    """log Σ_i e^{a_i} over a 1-D sequence of reals, in float64, computed as ``scipy.special.logsumexp`` computes
    it (the largest terms taken out of the sum: a_max + log m + log1p(Σ_rest e^{a_i − a_max}/m) for m maxima), to
    the last bit, without its array-API dispatch, which took about 85% of a Gauss–Hermite CGF evaluation
    (0.5 of 0.6 ms). ``tests/library/test_rdp.py`` compares the two bit for bit on float64 input."""
    a = np.asarray(a, dtype=float)
    if a.size == 0:
        return -math.inf
    a_max = a.max()
    if math.isfinite(a_max):
        with np.errstate(divide="ignore", over="ignore"):
            at_max = a == a_max
            count = np.sum(at_max, dtype=float)
            rest = np.sum(np.exp(np.where(at_max, -np.inf, a) - a_max))
            out = np.log1p(rest / count if rest != 0 else rest) + np.log(count) + a_max
        if math.isfinite(out):
            return float(out)
    # an infinite or nan term, or a result that overflows: the direct sum decides, as in scipy
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return float(np.log(np.sum(np.exp(a))))


_GH_CACHE: dict = {}


def _gauss_hermite(nodes: int):
    """Nodes x and weights w with Σ w f(√2 x) ≈ E f(N(0, 1)) (Gauss–Hermite, normalised weights)."""
    if nodes not in _GH_CACHE:
        x, w = special.roots_hermite(nodes)
        _GH_CACHE[nodes] = (x, w / math.sqrt(math.pi))
    return _GH_CACHE[nodes]


def _gauss_hermite_log(nodes: int):
    """Nodes x and log-weights log w of :func:`_gauss_hermite`, without the nodes whose weight underflows to 0
    (beyond |x| ≈ 27, where w < 1e-308 and no integrand here reaches e^{600}); summing a + log w by
    ``logsumexp`` avoids the overflow that weights passed as ``b`` cause in its rescaling."""
    key = ("log", nodes)
    if key not in _GH_CACHE:
        x, w = _gauss_hermite(nodes)
        keep = w > 0
        _GH_CACHE[key] = (x[keep], np.log(w[keep]))
    return _GH_CACHE[key]


class NoiseMechanism:
    """A noise distribution Z seen through the pair P = Law(s + Z), Q = Law(Z) (query change s): the base
    class of the mechanism objects here. Subclasses define the privacy-loss CGF ``cgf(t, s)``; ``rho``,
    ``gap``, ``rdp`` and ``loss_cumulants`` follow generically. (Not to be confused with
    :class:`accountlib.engine.lattice.WeightedDiscreteGaussian`, one weighted term of the census sum.)"""

    name = "mechanism"

    def cgf(self, t, s) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def cgf_check(self, t, s) -> float:
        """|K at the default resolution − K at twice the resolution| (0 for exact CGFs)."""
        return 0.0

    def _rho_closed_form(self, s):
        return None

    def _rho_endpoint(self, s):
        """lim_{t↓0} K(t)/(t(t+1)) = E_P L (the KL divergence) where a mechanism computes it directly."""
        return None

    def _rho_infinite(self) -> bool:
        """True where ρ = ∞ is known in closed form (K(t)/(t(t+1)) unbounded)."""
        return False

    def rho(self, s) -> float:
        """ρ(s) = sup_{t>0} K(t)/(t(t+1)), the t → 0 endpoint (the KL divergence) included.

        Closed forms where they exist; otherwise the supremum over a log grid of t in [1e-6, 1e4], refined
        locally, and the t ↓ 0 endpoint where the mechanism computes it: a float search, good to about 1e-9
        relative for the quadrature noises (Student-t, generalized Gaussian; tested against an independent
        40-digit maximisation); their :meth:`gap` does not subtract this ρ, so Γ keeps its own digits. The
        search raises :class:`QuadratureError` rather than return a non-finite value, and ``ValueError`` when the ratio is
        still increasing at t = 1e4 (the supremum would lie beyond the grid).
        """
        s = as_shift(s)
        if s == 0:
            return 0.0
        if self._rho_infinite():
            return math.inf
        closed = self._rho_closed_form(s)
        if closed is not None:
            return closed
        return _rho_cached(self, s)

    def gap(self, t, s) -> float:
        """Γ(t) = ρ(s)·t(t+1) − K(t) (≥ 0)."""
        t, s = as_scale(t, "t"), as_shift(s)
        return self.rho(s) * t * (t + 1) - self.cgf(t, s)

    def rdp(self, alpha, s) -> float:
        """The Rényi divergence D_α(P‖Q) = K(α − 1)/(α − 1), α > 1."""
        try:
            alpha = float(alpha)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"alpha must be a number > 1; got {alpha!r}") from None
        if not alpha > 1:
            raise ValueError(f"alpha must be > 1; got {alpha!r}")
        return self.cgf(alpha - 1, s) / (alpha - 1)

    def loss_cumulants(self, s, *, step: float = 1e-3) -> dict:
        """The local-expansion terms (Thm 3.1): ρ − E_P L, κ3(L), κ4(L) under P.

        The cumulants of L under P are the derivatives of u ↦ K(u) at u = 0
        (E_P e^{uL} = e^{K(u)}); they are taken by central differences of K on
        [−2h, 2h], extended analytically to u ∈ (−1, 0) where K is finite there.
        """
        s = as_shift(s)
        h = step
        values = {j: self._cgf_signed(j * h, s) for j in (-2, -1, 0, 1, 2)}
        mean = (values[1] - values[-1]) / (2 * h)
        third = (values[2] - 2 * values[1] + 2 * values[-1] - values[-2]) / (2 * h**3)
        fourth = (values[2] - 4 * values[1] + 6 * values[0] - 4 * values[-1] + values[-2]) / h**4
        return {"rho_minus_mean": self.rho(s) - mean, "kappa3": third, "kappa4": fourth, "mean": mean}

    def _cgf_signed(self, u, s):
        """K(u) for u in a neighbourhood of 0 (u may be ≤ 0); subclasses with formulas valid there use them."""
        if u == 0:
            return 0.0
        return self._cgf_any(u, s)

    def _cgf_any(self, u, s):
        return self.cgf(u, s) if u > 0 else self._cgf_negative(u, s)

    def _cgf_negative(self, u, s):  # pragma: no cover - overridden where needed
        raise NotImplementedError


@functools.lru_cache(maxsize=4096)
def _rho_cached(mechanism, s):
    sup = _sup_located_cached(mechanism, s)[0]
    endpoint = mechanism._rho_endpoint(s)
    return sup if endpoint is None else max(sup, float(endpoint))


@functools.lru_cache(maxsize=4096)
def _sup_located_cached(mechanism, s):
    """The float search of ρ(s) without the endpoint (:func:`_sup_ratio_located`), shared by ``rho`` and the gap's
    test of whether the endpoint is the supremum."""
    return _sup_ratio_located(lambda t: mechanism.cgf(t, s), where=f"{mechanism!r}.rho({s!r})")


def _sup_ratio(cgf, *, endpoint=None, where: str = "sup_t K(t)/(t(t+1))") -> float:
    """sup_{t>0} K(t)/(t(t+1)) on a log grid in [1e-6, 1e4] (8 points a decade), refined locally, max'd with
    ``endpoint``.

    Never returns inf/nan for a finite supremum: a non-finite K on the grid raises
    :class:`QuadratureError`, and a ratio still increasing at the right end of the grid raises ValueError.
    """
    sup, _, _ = _sup_ratio_located(cgf, where=where)
    if endpoint is not None:
        sup = max(sup, float(endpoint))
    return sup


def _sup_ratio_located(cgf, *, where: str = "sup_t K(t)/(t(t+1))"):
    """(sup, t at the sup, index of the best grid point) of K(t)/(t(t+1)) over t in [1e-6, 1e4], the t ↓ 0
    endpoint excluded (the search of :func:`_sup_ratio`)."""
    logs = np.log(np.logspace(-6, 4, 81))

    def ratio(x):
        t = math.exp(x)
        return cgf(t) / (t * (t + 1))

    values = np.array([ratio(float(x)) for x in logs])
    if not np.all(np.isfinite(values)):
        bad = float(np.exp(logs[~np.isfinite(values)][0]))
        raise QuadratureError(f"{where}: K(t) is not finite at t = {bad:.3g}")
    best = int(np.argmax(values))
    if best == len(logs) - 1 and values[-1] > np.max(values[:-1]) + 1e-9 * abs(values[-1]):
        raise ValueError(f"{where}: K(t)/(t(t+1)) is still increasing at t = 1e4; the supremum is not attained "
                         "on [1e-6, 1e4] (it may be infinite)")
    lo, hi = logs[max(best - 1, 0)], logs[min(best + 1, len(logs) - 1)]
    result = optimize.minimize_scalar(lambda x: -ratio(x), bounds=(lo, hi), method="bounded",
                                      options={"xatol": 1e-10})
    refined = -float(result.fun) if math.isfinite(result.fun) else -math.inf
    if refined > float(values[best]):
        return refined, math.exp(float(result.x)), best
    return float(values[best]), math.exp(float(logs[best])), best


# -- continuous additive noise --------------------------------------------------------------------


@dataclass(frozen=True)
class Gaussian(NoiseMechanism):
    """N(0, σ²) noise: K = t(t+1)s²/(2σ²), ρ = s²/(2σ²), Γ ≡ 0 (Prop. 4.1(i))."""

    sigma: float = 1.0
    name = "Gaussian"

    def __post_init__(self):
        as_scale(self.sigma, "sigma")

    def cgf(self, t, s):
        t, s = as_scale(t, "t"), as_shift(s)
        return t * (t + 1) * s * s / (2 * self.sigma**2)

    def _cgf_negative(self, u, s):
        return u * (u + 1) * s * s / (2 * self.sigma**2)

    def _rho_closed_form(self, s):
        return s * s / (2 * self.sigma**2)

    def rdp(self, alpha, s) -> float:
        """D_α = α s²/(2σ²) = ρ(s)·α exactly (so RDP and zCDP calibrations coincide bit for bit)."""
        alpha = float(alpha)
        if not alpha > 1:
            raise ValueError(f"alpha must be > 1; got {alpha!r}")
        return self.rho(s) * alpha


@dataclass(frozen=True)
class Laplace(NoiseMechanism):
    """Laplace noise with density e^{−|x|/b}/(2b); r = |s|/b.

    K(t) = log[(t+1)/(2t+1)·e^{tr} + t/(2t+1)·e^{−(t+1)r}], ρ = r + e^{−r} − 1
    (Prop. 4.1(iii); Harrison & Manurangsi 2026).
    """

    scale: float = 1.0
    name = "Laplace"

    def __post_init__(self):
        as_scale(self.scale, "scale")

    def cgf(self, t, s):
        t, r = as_scale(t, "t"), as_shift(s) / self.scale
        return _laplace_cgf(t, r)

    def _cgf_negative(self, u, s):
        return _laplace_cgf(u, as_shift(s) / self.scale)

    def _rho_closed_form(self, s):
        r = s / self.scale
        return _expm1_minus_x(-r)  # r + e^{−r} − 1, by its series for small r (no cancellation)

    def gap(self, t, s):
        """Γ(t) = ρt(t+1) − K(t): O(r⁴) while ρ and K are O(r²), so for r < 1 the difference of the closed forms
        is taken in mpmath at a precision that covers the cancellation (float64 lost ~1e-16/r⁴ of it)."""
        t, r = as_scale(t, "t"), as_shift(s) / self.scale
        if r >= 1 or r == 0:
            return super().gap(t, s)
        with mpmath.workdps(30 + int(4 * max(0.0, -math.log10(r))) + int(max(0.0, math.log10(t)))):
            t_, r_ = mpmath.mpf(t), mpmath.mpf(r)
            rho = r_ + mpmath.expm1(-r_)
            k = mpmath.log((t_ + 1) / (2 * t_ + 1) * mpmath.exp(t_ * r_) + t_ / (2 * t_ + 1) * mpmath.exp(-(t_ + 1) * r_))
            return float_or_precise(max(rho * t_ * (t_ + 1) - k, 0))


def _expm1_minus_x(x: float) -> float:
    """e^x − 1 − x without cancellation: its Taylor series for |x| < 1, else expm1(x) − x."""
    if abs(x) >= 1:
        return math.expm1(x) - x
    term, total = x * x / 2, 0.0
    for n in range(3, 40):
        total += term
        term *= x / n
        if abs(term) < 1e-18 * abs(total):
            break
    return total + term


def _laplace_cgf(t, r):
    # log[(t+1)/(2t+1) e^{tr} + t/(2t+1) e^{-(t+1)r}], in a stable form
    if t > 0 and (t + 1) * r < 700:
        # E − 1 = [(t+1)(e^{tr} − 1 − tr) + t(e^{−(t+1)r} − 1 + (t+1)r)]/(2t+1): the first orders cancel exactly,
        # so both terms are ≥ 0 and E − 1 ≈ t(t+1)r²/2 keeps its relative precision however small r or t is
        return math.log1p(((t + 1) * _expm1_minus_x(t * r) + t * _expm1_minus_x(-(t + 1) * r)) / (2 * t + 1))
    a = math.log((t + 1) / (2 * t + 1)) + t * r
    if t == 0:
        return 0.0
    second = t / (2 * t + 1)
    if second > 0:
        b = math.log(second) - (t + 1) * r
        return max(a, b) + math.log1p(math.exp(-abs(a - b)))
    # -1/2 < t < 0: the second weight is negative
    return a + math.log1p(second * math.exp(-(t + 1) * r - t * r) * (2 * t + 1) / (t + 1))


@dataclass(frozen=True)
class GaussianMixture(NoiseMechanism):
    """½N(−m, 1) + ½N(m, 1) noise: ρ = s²/2 (Prop. 4.1(ii)); K by Gauss–Hermite quadrature.

    E_Q[g] = ½Σ_± E g(±m + N(0,1)), each expectation by an n-node Gauss–Hermite rule
    (n = 192; ``cgf_check`` compares with 384 nodes).
    """

    m: float = 1.0
    name = "Gaussian mixture"

    def __post_init__(self):
        if not (math.isfinite(float(self.m)) and float(self.m) >= 0):
            raise ValueError(f"m must be a finite number >= 0; got {self.m!r}")

    def _log_density(self, x):
        m = self.m
        return np.logaddexp(-(x - m) ** 2 / 2, -(x + m) ** 2 / 2) - math.log(2 * math.sqrt(2 * math.pi))

    _CENTRE_FROM = 3.0  # recentre the rule when the integrand peaks beyond |x| = 3 (of the Gauss–Hermite variable)

    def _log_integrand(self, t, s, sign, x):
        """log f(x) with E g(sign·m + N(0,1)) = π^{-1/2} ∫ f(x) e^{−x²} dx, f = (q/p)^{t+1} at sign·m + √2x."""
        points = sign * self.m + math.sqrt(2) * x
        return (t + 1) * (self._log_density(points - s) - self._log_density(points))

    def _peak(self, t, s, sign) -> float:
        """Roughly where log f(x) − x² is largest (x ≈ (t+1)s/√2 for large (t+1)s): the recentred rule needs its
        centre within a node spacing or so of the peak, not more, so two vectorised grid scans suffice."""
        guess = (t + 1) * s / math.sqrt(2)
        grid = np.linspace(min(0.0, guess) - 4, max(0.0, guess) + 4, 65)
        for _ in range(2):
            values = self._log_integrand(t, s, sign, grid) - grid * grid
            best = grid[int(np.argmax(values))]
            step = grid[1] - grid[0]
            grid = np.linspace(best - step, best + step, 33)
        return float(best)

    def cgf_with_nodes(self, t, s, nodes):
        """K(t) by an n-node Gauss–Hermite rule per mixture component.

        When (t+1)s is large the integrand (q/p)^{t+1}e^{−x²} peaks far out (x ≈ (t+1)s/√2), beyond the
        rule's nodes; the rule is then recentred on the peak c: ∫ f(x)e^{−x²}dx = ∫ f(c+y)e^{−2cy−c²} e^{−y²}dy.
        """
        x, log_w = _gauss_hermite_log(nodes)
        total = []
        for sign in (-1.0, 1.0):
            centre = self._peak(t, s, sign) if abs((t + 1) * s) / math.sqrt(2) > self._CENTRE_FROM else 0.0
            if abs(centre) <= self._CENTRE_FROM:
                total.append(_logsumexp(self._log_integrand(t, s, sign, x) + log_w))
            else:
                total.append(_logsumexp(self._log_integrand(t, s, sign, centre + x) - 2 * centre * x
                                        - centre * centre + log_w))
        return float(np.logaddexp(*total) - math.log(2))

    def cgf(self, t, s):
        return self.cgf_with_nodes(as_scale(t, "t"), as_shift(s), GH_NODES)

    def _cgf_negative(self, u, s):
        return self.cgf_with_nodes(u, as_shift(s), GH_NODES)

    def cgf_check(self, t, s):
        return abs(self.cgf_with_nodes(as_scale(t, "t"), as_shift(s), GH_NODES) - self.cgf_with_nodes(as_scale(t, "t"), as_shift(s), 2 * GH_NODES))

    def _rho_closed_form(self, s):
        return s * s / 2

    def gap(self, t, s):
        """Γ(t) = ρt(t+1) − K(t), ρ = s²/2. Where K's error (Gauss–Hermite at 192 against 384 nodes, plus
        rounding) is below 1e-12·Γ the subtraction is kept; otherwise (m or s small: P nearly Gaussian) Γ is computed without it: with φ(x−s)^α φ(x)^{1−α} =
        e^{ρt(t+1)} φ(x − αs) and e^{−m²/2}cosh(mx) φ(x − αs) = ½Σ_± e^{±αsm} φ(x − αs ∓ m),

            Γ = −log J,   J = ½ Σ_± e^{±αsm} E_{x~N(αs±m, 1)}[(cosh(m(x − s))/cosh(mx))^α]   (0 < J ≤ 1),

        J by mpmath quadrature, the precision raised (``mpmath.workdps``) until Γ has ~15 correct digits, so a
        positive Γ is never returned as 0 or negative (exactly 0 at m = 0 or s = 0, where P = Law(s + Z) with
        Gaussian Z or P = Q)."""
        t, s = as_scale(t, "t"), as_shift(s)
        m = float(self.m)
        if s == 0 or m == 0:
            return 0.0
        rho_part = s * s / 2 * t * (t + 1)
        k = self.cgf(t, s)
        gap = rho_part - k
        # the subtraction is kept where K's error (the doubled rule's change, plus rounding) is below 1e-12·Γ
        error = abs(k - self.cgf_with_nodes(t, s, 2 * GH_NODES)) + 4e-16 * (abs(k) + rho_part)
        if gap > 0 and error <= 1e-12 * gap:
            return gap
        dps = 30
        while True:
            value = _mixture_gap_mp(m, s, t, dps)
            if value > 0 and mpmath.mag(value) > -3.32 * (dps - 20) or dps > 1000:
                return float_or_precise(max(value, 0))
            dps = 2 * dps if value <= 0 else max(dps + 20, int(25 - 0.302 * float(mpmath.mag(value))) + 10)


def _mixture_gap_mp(m: float, s: float, t: float, dps: int):
    """Γ = −log J of :meth:`GaussianMixture.gap` by mpmath quadrature at ``dps`` digits (error estimate checked),
    as an mpf: J ≈ 1 when Γ is tiny, and J − 1 then carries dps − log10(1/Γ) digits (the caller raises dps)."""
    with mpmath.workdps(dps + 10):
        m_, s_, alpha = mpmath.mpf(m), mpmath.mpf(s), mpmath.mpf(t) + 1

        def log_cosh(x):
            x = abs(x)
            return x + mpmath.log1p(mpmath.exp(-2 * x)) - mpmath.log(2)

        total = 0
        for sign in (1, -1):
            c = alpha * s_ + sign * m_
            f = lambda x, c=c: mpmath.npdf(x, c, 1) * mpmath.exp(alpha * (log_cosh(m_ * (x - s_)) - log_cosh(m_ * x)))  # noqa: E731
            points = sorted(set(float(p) for p in (c - 12, c, c + 12, 0, s)))
            value, error = mpmath.quad(f, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf], error=True)
            if not (value > 0 and error <= mpmath.mpf(10) ** (-dps) * value):
                raise QuadratureError(f"Γ({t}) of the Gaussian mixture: mpmath error estimate {mpmath.nstr(error, 3)}")
            total += mpmath.exp(sign * alpha * s_ * m_) * value
        return -mpmath.log(total / 2)


class QuadratureError(ArithmeticError):
    """A quadrature whose error estimate does not meet its tolerance (raised, never returned as inf/nan)."""


def _integrate_checked(integrand, breakpoints, *, rel_tol: float, floor: float = 0.0):
    """∫_{−∞}^{∞} integrand, split at ``breakpoints``, with QUADPACK's error estimate checked.

    Returns (value, error). Raises :class:`QuadratureError` when QUADPACK warns (round-off,
    subdivision limit, divergence) or when the summed error estimate exceeds
    ``rel_tol·|value| + floor``; the caller then retries at higher precision.
    """
    points = sorted(set(float(b) for b in breakpoints if math.isfinite(b)))
    pieces = list(zip([-math.inf] + points, points + [math.inf]))
    total, error = 0.0, 0.0
    with warnings.catch_warnings():
        # a rough first pass sets the absolute scale, so that pieces carrying a negligible share of the
        # integral are not asked for a relative accuracy they cannot reach (QUADPACK's round-off warning)
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        rough = sum(integrate.quad(integrand, a, b, epsabs=0, epsrel=1e-4, limit=100)[0] for a, b in pieces)
        warnings.simplefilter("error", integrate.IntegrationWarning)
        warnings.simplefilter("error", RuntimeWarning)
        epsabs = max(floor, 0.02 * rel_tol * abs(rough) / len(pieces))
        for a, b in pieces:
            try:
                result = integrate.quad(integrand, a, b, epsabs=epsabs, epsrel=0.1 * rel_tol, limit=500,
                                        full_output=1)
            except (RuntimeWarning, OverflowError, ZeroDivisionError) as exc:
                raise QuadratureError(f"quadrature on ({a:g}, {b:g}) failed: {exc}") from None
            value, err = result[0], result[1]
            # QUADPACK's flag 2 ("round-off detected") only says the requested 0.1·rel_tol was not reached;
            # the error estimate is still checked below against rel_tol. Every other flag is a failure.
            if len(result) > 3 and not (result[2].get("ier", 0) == 2 or "roundoff" in str(result[3])):
                raise QuadratureError(f"quadrature on ({a:g}, {b:g}) failed: {result[3]}")
            total += value
            error += err
    if not (math.isfinite(total) and math.isfinite(error)) or error > rel_tol * abs(total) + floor:
        raise QuadratureError(f"quadrature error estimate {error:.3g} exceeds the tolerance for the value {total:.6g}")
    return total, error


class _QuadratureNoise(NoiseMechanism):
    """Symmetric continuous noise with log-density ℓ; K by checked quadrature (no overflow, no silent failure).

    With Δ(x) = ℓ(x − s) − ℓ(x) the privacy loss at output x, E_Q[e^{(t+1)Δ}] = E_P[e^{tΔ}] and
    E_P[1] = 1, so

        K(t) = c + log( e^{−c} + ∫ p(x)·e^{−c}·(e^{tΔ(x)} − 1) dx ),     c = max(0, max_x log p(x) + tΔ(x)).

    For small t (c = 0) this is log1p of an integral of p·expm1(tΔ): K keeps its relative accuracy down to
    t ~ 1e-8 (no 1 + tiny cancellation). For large t the log-integrand peaks far out (at x ~ t·s for the
    generalized Gaussian); shifting by its maximum c keeps every exponent ≤ 0, so nothing overflows. The
    integral is split at 0, s, the peak x* and x* ± 3, 10, 30 local widths, and QUADPACK's error estimate
    is checked (relative 1e-9); if it fails, the same integral is done by mpmath's tanh-sinh quadrature
    at 30 digits with its error estimate checked, and if that fails too, :class:`QuadratureError` is raised.
    ``cgf_check`` reports the difference between the float64 and the 30-digit mpmath evaluations.
    """

    _REL_TOL = 1e-9

    def _ell(self, x: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _ell_mp(self, x):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_density(self, x):
        return np.vectorize(self._ell, otypes=[float])(x) if np.ndim(x) else self._ell(float(x))

    def _peak(self, t, s):
        """The maximiser x* of log p(x) + tΔ(x) = (t+1)ℓ(x−s) − tℓ(x), its value and a local width."""
        g = lambda x: (t + 1) * self._ell(x - s) - t * self._ell(x)
        centre = s / 2
        grid = centre + np.concatenate([-np.logspace(-3, 7, 121)[::-1], [0.0], np.logspace(-3, 7, 121)])
        values = np.array([g(x) for x in grid])
        best = int(np.argmax(values))
        lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
        result = optimize.minimize_scalar(lambda x: -g(x), bounds=(lo, hi), method="bounded",
                                          options={"xatol": 1e-10 * max(1.0, abs(grid[best]))})
        x_star = float(result.x) if -result.fun >= values[best] else float(grid[best])
        g_star = g(x_star)
        h = 1e-3 * max(1.0, abs(x_star))
        curvature = -(g(x_star + h) - 2 * g_star + g(x_star - h)) / (h * h)
        width = 1 / math.sqrt(curvature) if curvature > 0 and math.isfinite(curvature) else max(1.0, abs(x_star))
        return x_star, g_star, min(max(width, 1e-3), 1e6)

    def _cgf_float(self, t, s, rel_tol=None):
        x_star, g_star, width = self._peak(t, s)
        c = max(0.0, g_star)
        ell = self._ell

        def integrand(x):
            # p·(e^{tΔ} − 1) + t·(q − p): the added term integrates to 0 (∫p = ∫q = 1) and cancels the first
            # order in Δ, so the integrand is ≈ t(t+1)Δ²/2·p ≥ 0 for small Δ and nothing cancels in the sum
            log_p, log_q = ell(x - s), ell(x)
            delta = log_p - log_q
            exponent = t * delta
            if exponent < 300:
                first = math.exp(log_p - c) * math.expm1(exponent)
            else:
                first = math.exp(log_p + exponent - c) - math.exp(log_p - c)
            if abs(delta) < 0.5:
                second = t * math.exp(log_p - c) * math.expm1(-delta)
            else:
                second = t * (math.exp(log_q - c) - math.exp(log_p - c))
            return first + second

        breaks = [0.0, s, x_star] + [x_star + k * width for k in (-30, -10, -3, 3, 10, 30)]
        floor = 1e-300 if c == 0 else math.exp(-c) * 1e-12
        # K = c + log(integral): a relative error η in the integral is an absolute error η in K, so for
        # large K (c ≫ 1, where the exponents themselves carry rounding of order c·1e-16) the integral needs
        # only relative accuracy REL_TOL·c to give K to relative accuracy REL_TOL.
        tolerance = min(1e-4, (self._REL_TOL if rel_tol is None else rel_tol) * max(1.0, c))
        value, _ = _integrate_checked(integrand, breaks, rel_tol=tolerance, floor=floor)
        if c == 0:
            return math.log1p(value)
        inner = math.exp(-c) + value
        if not inner > 0:
            raise QuadratureError(f"K({t}) at s = {s}: non-positive integral {inner!r}")
        return c + math.log(inner)

    def _cgf_mp(self, t, s, dps: int = 30):
        """The same integral by mpmath's tanh-sinh quadrature at ``dps`` digits (error estimate checked)."""
        x_star, g_star, width = self._peak(t, s)
        with mpmath.workdps(dps):
            t_, s_ = mpmath.mpf(t), mpmath.mpf(s)
            c = max(mpmath.mpf(0), mpmath.mpf(g_star))
            ell = self._ell_mp

            def integrand(x):
                log_p, log_q = ell(x - s_), ell(x)
                return mpmath.exp(log_p - c) * (mpmath.expm1(t_ * (log_p - log_q)) + t_ * mpmath.expm1(log_q - log_p))

            points = sorted(set([0.0, float(s), x_star] + [x_star + k * width for k in (-30, -10, -3, 3, 10, 30)]))
            value, error = mpmath.quad(integrand, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf],
                                       error=True, maxdegree=10)
            inner = mpmath.exp(-c) + value
            if not (inner > 0 and error <= mpmath.mpf(10) ** (-(dps // 2)) * (abs(value) + mpmath.exp(-c) * 1e-12)):
                raise QuadratureError(f"K({t}) at s = {s}: mpmath quadrature error estimate {mpmath.nstr(error, 3)} "
                                      f"too large for the value {mpmath.nstr(value, 10)}")
            return float(c + mpmath.log(inner)) if c > 0 else float(mpmath.log1p(value))

    def _cgf_quad(self, t, s):
        if s == 0:
            return 0.0
        try:
            return self._cgf_float(t, s)
        except QuadratureError:
            return self._cgf_mp(t, s)

    def cgf(self, t, s):
        return self._cgf_quad(as_scale(t, "t"), as_shift(s))

    def _cgf_negative(self, u, s):
        return self._cgf_quad(u, as_shift(s))

    def cgf_check(self, t, s):
        """|K by float64 checked quadrature − K by 30-digit mpmath quadrature|."""
        t, s = as_scale(t, "t"), as_shift(s)
        return abs(self._cgf_quad(t, s) - self._cgf_mp(t, s))

    def kl(self, s) -> float:
        """E_P[L] = KL(P‖Q) = ∫ p(x)(ℓ(x − s) − ℓ(x)) dx, the t ↓ 0 endpoint of K(t)/(t(t+1)) (checked quadrature)."""
        s = as_shift(s)
        if s == 0:
            return 0.0
        ell = self._ell

        def integrand(x):
            # E_P[Δ] = E_P[Δ + e^{−Δ} − 1] (E_P e^{−Δ} = E_Q 1 = 1): a non-negative integrand, no cancellation
            log_p, log_q = ell(x - s), ell(x)
            delta = log_p - log_q
            if abs(delta) < 1e-3:
                return math.exp(log_p) * delta * delta * (0.5 - delta * (1 / 6 - delta * (1 / 24 - delta / 120)))
            if abs(delta) < 1:
                return math.exp(log_p) * (delta + math.expm1(-delta))
            return math.exp(log_p) * (delta - 1) + math.exp(log_q)
        value, _ = _integrate_checked(integrand, [0.0, s / 2, s, -1.0, s + 1, -10.0, s + 10], rel_tol=self._REL_TOL,
                                      floor=1e-300)
        return value

    def _rho_endpoint(self, s):
        return self.kl(s)

    # -- the gap without cancellation --------------------------------------------------------------------------

    _GAP_REL_TOL = 1e-13

    def _breaks(self, t, s):
        x_star, _, width = self._peak(t, s)
        return [0.0, s / 2, s, -1.0, s + 1, -10.0, s + 10, x_star] + [x_star + k * width for k in (-30, -10, -3, 3, 10, 30)]

    def _gap_integrals_float(self, t, s):
        """(A, I, error) with Γ = A + (I − log1p I) when ρ = E_P L (the t ↓ 0 endpoint):

            A = ∫ p·h(Δ) dx,   h(Δ) = t(t+1)Δ + t²(e^{−Δ} − 1) − (e^{tΔ} − 1) = Σ_{k≥3} (t²(−1)^k − t^k)Δ^k/k!,
            I = ∫ p·(e^{tΔ} − 1 + t(e^{−Δ} − 1)) dx = e^{K} − 1                   (I ≥ 0),

        since ρt(t+1) = t(t+1)∫p(Δ + e^{−Δ} − 1) and ∫p e^{−Δ} = ∫q = 1. h is O(Δ³) pointwise (its series is summed
        for small Δ, so the integrand has full relative precision) and I − log1p I ≥ 0, so ρt(t+1) and K are never
        subtracted. Checked quadrature at relative 1e-13; raises :class:`QuadratureError` if it is not met."""
        ell, tt = self._ell, t * (t + 1)
        coefficients = [((t * t * (-1) ** k - t**k) / math.factorial(k), (t * t + t**k) / math.factorial(k))
                        for k in range(3, 40)]  # (c_k, a bound on |c_k|: some c_k are 0, as at t = 1)
        scale = max(1.0, t)

        def h_integrand(x):
            log_p = ell(x - s)
            delta = log_p - ell(x)
            if abs(delta) * scale < 0.25:
                total, power = 0.0, delta**3
                for c, bound in coefficients:
                    total += c * power
                    if abs(bound * power) <= 1e-18 * abs(total):
                        break
                    power *= delta
                return math.exp(log_p) * total
            return math.exp(log_p) * (tt * delta + t * t * math.expm1(-delta) - math.expm1(t * delta))

        def i_integrand(x):
            log_p = ell(x - s)
            delta = log_p - ell(x)
            return math.exp(log_p) * (math.expm1(t * delta) + t * math.expm1(-delta))

        breaks = self._breaks(t, s)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            try:
                i_value, i_error = _integrate_checked(i_integrand, breaks, rel_tol=self._GAP_REL_TOL, floor=1e-300)
                a_value, a_error = _integrate_checked(h_integrand, breaks, rel_tol=self._GAP_REL_TOL, floor=1e-300)
            except (OverflowError, ValueError) as exc:
                raise QuadratureError(f"Γ({t}) at s = {s}: {exc}") from None
        # an error e in I is an error e·I/(1 + I) in I − log1p I
        return a_value, i_value, a_error + i_error * i_value / (1 + i_value)

    def _endpoint_is_sup(self, s) -> bool:
        """Whether ρ(s) is the t ↓ 0 endpoint E_P L (as for Student-t and 1 ≤ β ≤ 2 on the shifts the paper uses;
        not for β < 1 at small shifts, where the bounded loss makes K(t)/(t(t+1)) peak at large t): the float search
        finds no ratio above E_P L by more than its own error (1e-8 relative; a larger interior supremum shows as
        a negative Γ, which sends :meth:`gap` to mpmath)."""
        return _quadrature_endpoint_is_sup(self, s)

    def _rho_mp(self, s, dps: int):
        """ρ(s) as an mpf at ``dps`` digits: E_P L if :meth:`_endpoint_is_sup`, else the larger of E_P L and the
        interior maximum of K(t)/(t(t+1)), located by Newton's method on its derivative from the float search's
        maximiser, K, K' and K'' by mpmath quadrature (R is stationary there, so an error δ in t is δ² in ρ)."""
        return _quadrature_rho_mp(self, s, dps)

    def _integral_mp(self, f, t, s, dps):
        """∫ p(x)·f(Δ(x), x) dx by mpmath tanh-sinh at ``dps`` digits (error estimate checked), an mpf."""
        ell = self._ell_mp
        with mpmath.workdps(dps + 10):
            s_ = mpmath.mpf(s)
            points = sorted(set(float(p) for p in self._breaks(t, s)))

            def integrand(x):
                log_p = ell(x - s_)
                return mpmath.exp(log_p) * f(log_p - ell(x))

            value, error = mpmath.quad(integrand, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf],
                                       error=True, maxdegree=10)
            if not error <= mpmath.mpf(10) ** (5 - dps) * abs(value):
                raise QuadratureError(f"{self!r} at t = {t}, s = {s}: mpmath quadrature error estimate "
                                      f"{mpmath.nstr(error, 3)} too large for the value {mpmath.nstr(value, 10)}")
            return value

    def _kl_mp(self, s, dps):
        return self._integral_mp(lambda d: d + mpmath.expm1(-d), 1.0, s, dps)

    def _cgf_mp_exact(self, t, s, dps):
        """K(t) = log1p(∫p(e^{tΔ} − 1 + t(e^{−Δ} − 1))) as an mpf at ``dps`` digits."""
        with mpmath.workdps(dps + 10):
            t_ = mpmath.mpf(t)
            return mpmath.log1p(self._integral_mp(lambda d: mpmath.expm1(t_ * d) + t_ * mpmath.expm1(-d), float(t), s,
                                                  dps))

    def gap(self, t, s):
        """Γ(t) = ρt(t+1) − K(t) ≥ 0 without the cancellation of the two (the float search gives ρ to ~1e-9 only).

        Where ρ is the t ↓ 0 endpoint E_P L (:meth:`_endpoint_is_sup`), Γ = A + (I − log1p I), two checked float
        quadratures at relative 1e-13 of integrands without cancellation (:meth:`_gap_integrals_float`); where Γ is
        most of ρt(t+1) (large t) the subtraction of a 1e-13 K from a 1e-13 E_P L is kept. Otherwise (an interior
        supremum, or a float check failing) ρ and K in mpmath (:meth:`_rho_mp`), at a precision raised until Γ has
        ~15 correct digits. A positive Γ is never returned as 0 or negative; ∞ for β > 2 (not zCDP)."""
        t, s = as_scale(t, "t"), as_shift(s)
        if s == 0:
            return 0.0
        if self._rho_infinite():
            return math.inf
        if self._is_gaussian():
            return 0.0
        if self._endpoint_is_sup(s):
            try:
                kl = _quadrature_kl_tight(self, s)
                rho_part = kl * t * (t + 1)
                k = self._cgf_float(t, s, rel_tol=self._GAP_REL_TOL)
                if rho_part - k >= rho_part / 2:
                    return rho_part - k
                a, i, error = self._gap_integrals_float(t, s)
                i_excess = i - math.log1p(i) if i >= 0.1 else i * i * sum((-i) ** j / (j + 2) for j in range(40))
                value = a + i_excess
                if value > 0 and error + 4e-16 * (abs(a) + i_excess) <= 1e-12 * value:
                    return value
            except QuadratureError:
                pass
        dps = 30
        while True:
            with mpmath.workdps(dps + 10):
                rho = self._rho_mp(s, dps)
                k = self._cgf_mp_exact(t, s, dps)
                t_ = mpmath.mpf(t)
                value = rho * t_ * (t_ + 1) - k
            if value > 0 and mpmath.mag(value) - mpmath.mag(k) > -3.32 * (dps - 20) or dps > 400:
                return float_or_precise(max(value, 0))
            dps = 2 * dps if value <= 0 else max(dps + 20, int(25 - 0.302 * float(mpmath.mag(value) - mpmath.mag(k))) + 10)

    def _is_gaussian(self) -> bool:
        return False


@functools.lru_cache(maxsize=1024)
def _quadrature_kl_tight(mechanism, s):
    """E_P L by checked float quadrature at relative 1e-13 (the gap's ρ where the endpoint is the supremum)."""
    ell = mechanism._ell

    def integrand(x):
        log_p, log_q = ell(x - s), ell(x)
        delta = log_p - log_q
        if abs(delta) < 1e-3:
            return math.exp(log_p) * delta * delta * (0.5 - delta * (1 / 6 - delta * (1 / 24 - delta * (1 / 120 - delta / 720))))
        if abs(delta) < 1:
            return math.exp(log_p) * (delta + math.expm1(-delta))
        return math.exp(log_p) * (delta - 1) + math.exp(log_q)
    value, _ = _integrate_checked(integrand, [0.0, s / 2, s, -1.0, s + 1, -10.0, s + 10],
                                  rel_tol=mechanism._GAP_REL_TOL, floor=1e-300)
    return value


@functools.lru_cache(maxsize=1024)
def _quadrature_endpoint_is_sup(mechanism, s) -> bool:
    sup = _sup_located_cached(mechanism, s)[0]
    kl = mechanism.kl(s)
    return sup <= kl * (1 + 1e-8)


@functools.lru_cache(maxsize=256)
def _quadrature_rho_mp(mechanism, s, dps):
    with mpmath.workdps(dps + 10):
        kl = mechanism._kl_mp(s, dps)
        if mechanism._endpoint_is_sup(s):
            return kl
        _, t_float, _ = _sup_located_cached(mechanism, s)
        t = mpmath.mpf(t_float)
        for _ in range(30):
            tf = float(t)
            m1 = mechanism._integral_mp(lambda d: mpmath.expm1(t * d) + t * mpmath.expm1(-d), tf, s, dps)
            d1 = mechanism._integral_mp(lambda d: d * mpmath.exp(t * d), tf, s, dps)
            d2 = mechanism._integral_mp(lambda d: d * d * mpmath.exp(t * d), tf, s, dps)
            k = mpmath.log1p(m1)
            k1 = d1 / (1 + m1)
            k2 = d2 / (1 + m1) - k1 * k1
            g = k1 * t * (t + 1) - k * (2 * t + 1)
            g1 = k2 * t * (t + 1) - 2 * k
            step = g / g1 if g1 < 0 else -t / 2 if g > 0 else t / 2
            new = t - step
            if new <= 0:
                new = t / 2
            if new < 1e-8:  # heading to the t ↓ 0 endpoint, which is E_P L
                return kl
            if abs(new - t) <= mpmath.mpf(10) ** (-(dps // 2 + 2)) * t:
                t = new
                break
            t = new
        k = mechanism._cgf_mp_exact(t, s, dps)
        return max(kl, k / (t * (t + 1)))


@dataclass(frozen=True)
class StudentT(_QuadratureNoise):
    """Student-t_ν noise, density f_ν(x) = Γ((ν+1)/2)/(√(νπ)Γ(ν/2))·(1 + x²/ν)^{−(ν+1)/2}, ν ≥ 1 (§4.4).

    The privacy loss is bounded (|Δ| ≤ s·B_ν), so ρ is finite; for small shifts it is the t ↓ 0 endpoint,
    the mean privacy loss (§4.4). :func:`student_t_leading_coefficient` gives the leading coefficient
    −κ4(S_ν)/24 of Γ(t)/([t(t+1)]²s⁴) (Appendix C.6).
    """

    nu: float = 3.0
    name = "Student-t"

    def __post_init__(self):
        try:
            nu = float(self.nu)
        except (TypeError, ValueError):
            raise ValueError(f"nu must be a number >= 1; got {self.nu!r}") from None
        if not (math.isfinite(nu) and nu >= 1):
            raise ValueError(f"nu must be >= 1 (finite); got {self.nu!r}")

    @functools.cached_property
    def _const(self):
        nu = float(self.nu)
        return special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * math.log(nu * math.pi)

    def _ell(self, x):
        nu = self.nu
        return self._const - (nu + 1) / 2 * math.log1p(x * x / nu)

    def _ell_mp(self, x):
        nu = mpmath.mpf(self.nu)
        return (mpmath.loggamma((nu + 1) / 2) - mpmath.loggamma(nu / 2) - mpmath.log(nu * mpmath.pi) / 2
                - (nu + 1) / 2 * mpmath.log1p(x * x / nu))


@dataclass(frozen=True)
class GeneralizedGaussian(_QuadratureNoise):
    """Generalized Gaussian noise with density e^{−|x|^β/β}/(2β^{1/β−1}Γ(1/β)) (§4.4, Appendix C.7).

    β = 1 is unit Laplace noise and β = 2 is N(0, 1) (so ρ = s²/2 and Γ ≡ 0 there). ``chi`` is the quartic
    coefficient χ_β of the local expansion (the paper's (4.8)), in this parametrisation.

    For β > 2 the noise is not zCDP at all: log p + tΔ peaks at x ≈ (β − 1)s·t with height of order t^β,
    so K(t) grows like t^β and K(t)/(t(t+1)) → ∞; ``rho`` and ``gap`` return ``math.inf`` there, which is the
    exact value, not an overflow.
    """

    beta: float = 1.5
    name = "generalized Gaussian"

    def __post_init__(self):
        try:
            beta = float(self.beta)
        except (TypeError, ValueError):
            raise ValueError(f"beta must be a number > 0; got {self.beta!r}") from None
        if not (math.isfinite(beta) and beta > 0):
            raise ValueError(f"beta must be a finite number > 0; got {self.beta!r}")

    @functools.cached_property
    def _const(self):
        b = float(self.beta)
        return -(math.log(2) + (1 / b - 1) * math.log(b) + special.gammaln(1 / b))

    def _ell(self, x):
        b = self.beta
        return self._const - abs(x) ** b / b

    def _ell_mp(self, x):
        b = mpmath.mpf(self.beta)
        return -(mpmath.log(2) + (1 / b - 1) * mpmath.log(b) + mpmath.loggamma(1 / b)) - abs(x) ** b / b

    def _rho_infinite(self):
        return float(self.beta) > 2

    def _is_gaussian(self):
        return float(self.beta) == 2  # N(0, 1): Γ ≡ 0

    @property
    def chi(self) -> float:
        b = float(self.beta)
        return (b ** (4 - 4 / b) / (24 * special.gamma(1 / b) ** 2)
                * (3 * special.gamma(2 - 1 / b) ** 2 - special.gamma(4 - 3 / b) * special.gamma(1 / b)))


# -- discrete noise ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscreteLaplace(NoiseMechanism):
    """Discrete Laplace noise, mass ∝ e^{−a|z|} on Z, integer shift r; a closed-form CGF (§4.5).

    The privacy loss a(|x| − |x − r|) takes finitely many values: −ar for x ≤ 0,
    ar for x ≥ r, a(2x − r) in between, so E_Q[e^{(t+1)L}] is a finite sum; its geometric middle part is
    summed in closed form, so any shift up to 1e6 costs the same. The sum is 1 + O(a²): it is evaluated in
    mpmath at a precision raised until E − 1 carries 20 correct digits (no float64 cancellation: a = 1e-12 is
    as accurate as a = 1). ρ(1) = a·tanh(a/2) exactly (the t ↓ 0 endpoint, the KL divergence, is the
    supremum at r = 1); for r > 1 the supremum is searched with that endpoint (the KL divergence, in closed
    form) included.
    """

    a: float = 1.0
    name = "discrete Laplace"

    def __post_init__(self):
        as_scale(self.a, "a")

    def _integer_shift(self, s) -> int:
        shift = as_shift(s)
        if shift > 10**6:
            raise ValueError(f"s must be at most 1e6 for the discrete Laplace CGF; got {s!r}")
        r = int(round(shift))
        if abs(r - shift) > 1e-12:
            raise ValueError(f"the discrete Laplace mechanism needs an integer shift; got {s!r}")
        return r

    def _moment_minus_one(self, t, r: int, digits: int = 20):
        """E_Q[(p/q)^{t+1}] − 1 as an mpf, to about ``digits`` significant digits (the precision is raised until
        it is)."""
        dps = digits + 10
        while True:
            with mpmath.workdps(dps):
                a, t_ = mpmath.mpf(self.a), mpmath.mpf(t)
                big_t = t_ + 1
                lam = mpmath.exp(-a)
                outer = (mpmath.exp(-big_t * a * r) + mpmath.exp(a * r * (big_t - 1))) / (1 + lam)
                middle = mpmath.mpf(0)
                if r > 1:  # Σ_{x=1}^{r−1} norm·e^{−ax + (t+1)a(2x − r)}, a geometric sum of ratio g = e^{a(2t+1)}
                    b = a * (2 * t_ + 1)
                    norm = -mpmath.expm1(-a) / (1 + lam)
                    middle = norm * mpmath.exp(-big_t * a * r + b) * mpmath.expm1(b * (r - 1)) / mpmath.expm1(b)
                value = outer + middle - 1
                if value != 0 and mpmath.mag(value) > -3.32 * (dps - digits - 5) or dps > 4000:
                    return +value
                dps = 2 * dps if value == 0 else int(digits + 10 - 0.302 * float(mpmath.mag(value))) + 10

    def _kl(self, r: int):
        """E_P[L] = KL(P‖Q) = a·r(1 − λ^r)/(1 + λ) + norm·a·Σ_{j=1}^{r−1} λ^j (r − 2j), in closed form (mpf)."""
        with mpmath.workdps(60 + int(5 * max(0.0, -math.log10(self.a))) + 2 * len(str(r))):  # S1 cancels ~3 log10(1/a) digits
            a = mpmath.mpf(self.a)
            lam = mpmath.exp(-a)
            one_minus = -mpmath.expm1(-a)
            value = a * r * (-mpmath.expm1(-a * r)) / (1 + lam)
            if r > 1:
                s0 = lam * (-mpmath.expm1(-a * (r - 1))) / one_minus
                s1 = lam * (1 - r * lam ** (r - 1) + (r - 1) * lam**r) / one_minus**2
                value += one_minus / (1 + lam) * a * (r * s0 - 2 * s1)
            return +value

    def _cgf_any(self, t, s):
        r = self._integer_shift(s)
        if r == 0:
            return 0.0
        with mpmath.workdps(40):
            return float_or_precise(mpmath.log1p(self._moment_minus_one(t, r)))

    def cgf(self, t, s):
        return self._cgf_any(as_scale(t, "t"), s)

    def _rho_closed_form(self, s):
        r = self._integer_shift(s)
        if r == 1:
            with mpmath.workdps(40):
                a = mpmath.mpf(self.a)
                return float_or_precise(a * mpmath.tanh(a / 2))
        return None

    def _rho_endpoint(self, s):
        return float_or_precise(self._kl(self._integer_shift(s)))

    def _digits(self) -> int:
        """Working digits for ρ and Γ: their relative differences from the KL endpoint are O(a²)."""
        return 30 + int(2 * max(0.0, -math.log10(self.a)))

    def _ratio_mp(self, t, r: int, digits: int):
        with mpmath.workdps(digits + 10):
            t = mpmath.mpf(t)
            return mpmath.log1p(self._moment_minus_one(t, r, digits)) / (t * (t + 1))

    def _rho_mp(self, r: int):
        """ρ(r) as an mpf: a·tanh(a/2) at r = 1 (the KL endpoint is the supremum there); otherwise the largest of
        the KL endpoint and K(t)/(t(t+1)) on a log grid of t in [1e-8, 1e4] (8 points a decade), refined by golden
        section between the best point's neighbours, all at :meth:`_digits` digits."""
        return _discrete_laplace_rho(self.a, r, self._digits())

    def rho(self, s):
        """ρ(s) = sup_t K(t)/(t(t+1)), computed in mpmath (:meth:`_rho_mp`), as a float (or a
        :class:`~accountlib.infrastructure.numbers.PreciseNumber` beyond float64's range)."""
        r = self._integer_shift(s)
        if r == 0:
            return 0.0
        return float_or_precise(self._rho_mp(r))

    def gap(self, t, s):
        """Γ(t) = ρ·t(t+1) − K(t) ≥ 0, in mpmath: ρ and K are both O(a²) and Γ is O(a⁴), so the difference is
        taken at a precision raised until Γ has 15 correct digits (or is 0 to within 10^-(digits) of K)."""
        t, r = as_scale(t, "t"), self._integer_shift(s)
        if r == 0:
            return 0.0
        rho = self._rho_mp(r)
        digits = max(20, mpmath.mp.dps)
        while True:
            with mpmath.workdps(digits + 10):
                k = mpmath.log1p(self._moment_minus_one(t, r, digits))
                t_ = mpmath.mpf(t)
                value = rho * t_ * (t_ + 1) - k
                if digits >= 2 * self._digits() + 40 or value > 0 and mpmath.mag(value) - mpmath.mag(k) > -3.32 * (digits - 17):
                    return float_or_precise(max(value, 0))
                digits = min(2 * self._digits() + 40, max(2 * digits, int(digits - 0.302 * float(mpmath.mag(value) - mpmath.mag(k))) + 5
                             if value != 0 else 2 * digits))


@functools.lru_cache(maxsize=1024)
def _discrete_laplace_rho(a: float, r: int, digits: int):
    mechanism = DiscreteLaplace(a)
    with mpmath.workdps(digits + 10):
        if r == 1:
            am = mpmath.mpf(a)
            return +(am * mpmath.tanh(am / 2))
        best = mechanism._kl(r)
        logs = [mpmath.mpf(x) for x in np.linspace(math.log(1e-8), math.log(1e4), 97)]
        values = [mechanism._ratio_mp(mpmath.exp(x), r, digits) for x in logs]
        i = max(range(len(values)), key=lambda j: values[j])
        if values[i] > best:
            lo, hi = logs[max(i - 1, 0)], logs[min(i + 1, len(logs) - 1)]
            f = lambda x: mechanism._ratio_mp(mpmath.exp(x), r, digits)
            golden = (mpmath.sqrt(5) - 1) / 2
            x1, x2 = hi - golden * (hi - lo), lo + golden * (hi - lo)
            f1, f2 = f(x1), f(x2)
            for _ in range(60):
                if f1 < f2:
                    lo, x1, f1 = x1, x2, f2
                    x2 = lo + golden * (hi - lo)
                    f2 = f(x2)
                else:
                    hi, x2, f2 = x2, x1, f1
                    x1 = hi - golden * (hi - lo)
                    f1 = f(x1)
            best = max(best, values[i], f1, f2)
        return +best


@dataclass(frozen=True)
class DiscreteGaussian(NoiseMechanism):
    """Discrete Gaussian noise N_Z(0, σ²) with integer or real shift r (§4.5; book, Derivations §8).

    e^{K(t)} = e^{r²t(t+1)/(2σ²)}·Θ((t+1)r)/Θ(0), Θ(u) = Σ_x e^{−(x−u)²/2σ²}, so
    ρ = r²/(2σ²) and Γ(t) = log Θ(0) − log Θ((t+1)r): periodic in t with period 1/r,
    zero where (t+1)r is an integer.
    """

    sigma: float = 1.0
    name = "discrete Gaussian"

    def __post_init__(self):
        as_scale(self.sigma, "sigma")

    def _log_theta(self, u):
        s2 = self.sigma**2
        u = u - math.floor(u)
        if s2 < 1:
            xs = np.arange(-60, 62)
            return _logsumexp(-(xs - u) ** 2 / (2 * s2))
        # Poisson summation: Θ(u) = sqrt(2πσ²) Σ_k e^{−2π²σ²k²} cos(2πku)
        ks = np.arange(1, 12)
        series = 1 + 2 * np.sum(np.exp(-2 * math.pi**2 * s2 * ks**2) * np.cos(2 * math.pi * ks * u))
        return 0.5 * math.log(2 * math.pi * s2) + math.log(series)

    def _gap_mp(self, u: Fraction):
        """log Θ(0) − log Θ(u) for u in (0, 1) as an mpf, without cancellation.

        σ² ≥ 1/(2π): by Poisson summation Θ(0) − Θ(u) ∝ 4Σ_k e^{−2π²σ²k²} sin²(πku), a sum of positive terms,
        so Γ = log1p(that / Θ(u)) has full relative precision however small (σ = 10 gives Γ ≈ 1e-857).
        σ² < 1/(2π): the direct sums Σ_x e^{−(x−u)²/2σ²}, at a precision raised until their difference has 20
        correct digits (u near 0 or 1 makes them cancel)."""
        s2 = mpmath.mpf(self.sigma) ** 2
        dps = 30
        while True:
            with mpmath.workdps(dps):
                s2 = mpmath.mpf(self.sigma) ** 2
                um = mpmath.mpf(u.numerator) / u.denominator
                if s2 >= 1 / (2 * mpmath.pi):
                    q = mpmath.exp(-2 * mpmath.pi**2 * s2)
                    positive, theta_u, k = mpmath.mpf(0), mpmath.mpf(1), 1
                    while True:
                        term = q ** (k * k)
                        positive += 4 * term * mpmath.sin(mpmath.pi * k * um) ** 2
                        theta_u += 2 * term * mpmath.cos(2 * mpmath.pi * k * um)
                        if k > 1 and term < mpmath.mpf(10) ** (-dps) * q:
                            break
                        k += 1
                    return +mpmath.log1p(positive / theta_u)
                width = int(mpmath.sqrt(2 * s2 * dps * mpmath.log(10))) + 3
                xs = range(-width, width + 2)
                theta_0 = mpmath.fsum(mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in xs)
                theta_u = mpmath.fsum(mpmath.exp(-(x - um) ** 2 / (2 * s2)) for x in xs)
                difference = theta_0 - theta_u
                if difference > 0 and mpmath.mag(difference) - mpmath.mag(theta_0) > -3.32 * (dps - 25) or dps > 3000:
                    return +mpmath.log1p(difference / theta_u)
                dps = 2 * dps

    def _gap_exact(self, t, r):
        """Γ(t) = log Θ(0) − log Θ((t+1)r) with (t+1)r reduced mod 1 exactly (t and r as the binary numbers they
        are); 0 exactly where (t+1)r is an integer."""
        u = ((Fraction(t) + 1) * Fraction(r)) % 1
        if u == 0:
            return mpmath.mpf(0)
        return self._gap_mp(u)

    def _cgf_any(self, t, s):
        r = as_shift(s)
        return r * r * t * (t + 1) / (2 * self.sigma**2) - float(self._gap_exact(t, r))

    def cgf(self, t, s):
        return self._cgf_any(as_scale(t, "t"), s)

    def _rho_closed_form(self, s):
        return s * s / (2 * self.sigma**2)

    def gap(self, t, s) -> float:
        """Γ(t) = log Θ(0) − log Θ((t+1)r) ≥ 0, directly (no cancellation between ρt(t+1) and K), in mpmath: exactly
        0 where (t+1)r is an integer, and never 0 where it is not (a gap below float64's range, σ ≥ 6 or so,
        comes back as a :class:`~accountlib.infrastructure.numbers.PreciseNumber`)."""
        t, r = as_scale(t, "t"), as_shift(s)
        return float_or_precise(self._gap_exact(t, r))


# -- subsampling ---------------------------------------------------------------------------------


def _log1p_excess_series(x: float) -> float:
    """(1 + x)·log1p(x) − x ≥ 0 without cancellation: Σ_{k≥2} (−x)^k/(k(k−1)) for |x| < 0.1."""
    if abs(x) >= 0.1:
        return (1 + x) * math.log1p(x) - x
    total, power = 0.0, x * x
    for k in range(2, 40):
        term = power / (k * (k - 1))
        total += term
        if abs(term) < 1e-18 * total:
            break
        power *= -x
    return total


def _weighted_pow1p_excess(alpha: float, big_l: float, log_weight: float) -> float:
    """e^{log_weight}·((1 + x)^α − 1 − αx) for x = e^L − 1 > −1 (given by L = ``big_l``), α = 1 + t > 1: ≥ 0 by
    convexity, and computed as (1 + x)(e^{tL} − 1 − tL) + t((1 + x)L − x), a sum of two non-negative terms (no
    cancellation, however small x or t); for large (1 + x)^α in log space (no overflow)."""
    t = alpha - 1
    if alpha * big_l > 300:
        first = math.exp(log_weight + alpha * big_l)
        if big_l < 700:
            return first - math.exp(log_weight) * (1 + alpha * math.expm1(big_l))
        return first - math.exp(log_weight + math.log(alpha) + big_l)
    x = math.expm1(big_l)
    value = (1 + x) * _expm1_minus_x(t * big_l) + t * _log1p_excess_series(x)
    return math.exp(log_weight) * value if value > 0 else 0.0


def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _psg_breaks(centres):
    return [c + k for c in centres for k in (-30.0, -10.0, -3.0, 0.0, 3.0, 10.0, 30.0)]


def _psg_cgf_float(q: float, u: float, t: float) -> float:
    """K(t) = log E_{y~N(0,1)}[r(y)^α], r = 1 − q + q·e^{uy − u²/2}, α = t + 1, u = s/z, by checked quadrature.

    E_Q[r − 1] = 0, so E r^α − 1 = E[r^α − 1 − α(r − 1)], an integrand ≥ 0 (:func:`_weighted_pow1p_excess`):
    K = log1p of it keeps its relative precision for small K. The integrand has up to two peaks, at y ≈ 0 and
    y ≈ αu (the tilted Gaussian term, of height e^F, F = α log q + α(α−1)u²/2); for F > 0 it is scaled by e^{−F}
    (nothing overflows). Raises :class:`QuadratureError` when the error estimate is not met."""
    alpha = t + 1
    log_q, log_1q = math.log(q), (math.log1p(-q) if q < 1 else -math.inf)
    big_f = alpha * log_q + alpha * t * u * u / 2
    c = max(0.0, big_f)

    def integrand(y):
        a = u * y - u * u / 2  # r = 1 + q·expm1(a); log r without overflow
        big_l = math.log1p(q * math.expm1(a)) if a < 30 else _log_add(log_1q, log_q + a)
        return _weighted_pow1p_excess(alpha, big_l, -y * y / 2 - _LOG_SQRT_2PI - c)

    transition = u / 2 + (log_1q - log_q) / u if q < 1 else 0.0
    centres = [0.0, alpha * u] + ([transition] if abs(transition) < 1e6 else [])
    floor = 1e-300 if c == 0 else math.exp(-c) * 1e-13
    value, _ = _integrate_checked(integrand, _psg_breaks(centres), rel_tol=1e-11, floor=floor)
    if c == 0:
        return math.log1p(value)
    return c + math.log(math.exp(-c) + value)


def _psg_gap_float(q: float, u: float, t: float) -> float:
    """Γ(t) = ρt(t+1) − K(t), ρ = u²/2, without the subtraction: with y = αu + w (the tilt by e^{αL} of the
    Gaussian loss L = uy − u²/2),

        Γ(t) = −log J,   J = E_{w~N(0,1)}[(q + (1 − q)e^{m(w)})^α],   m(w) = −uw − (α − ½)u²  (0 < J ≤ 1).

    For J ≥ 1/2 (Γ ≤ log 2), J − 1 = α(1 − q)·expm1(−tu²) + E[(1 + v)^α − 1 − αv], v = (1 − q)expm1(m), a closed
    form plus a non-negative integral (no 1 + tiny cancellation); otherwise log J by a scaled quadrature."""
    alpha = t + 1
    log_q, log_1q = math.log(q), math.log1p(-q)
    near = -alpha * u  # w of the y = 0 peak (the (1 − q)^α term)
    transition = (log_1q - log_q) / u - (alpha - 0.5) * u
    centres = [0.0, near] + ([transition] if abs(transition) < 1e6 else [])
    floor_scale = 1e-300

    def log_g(w):
        m = -u * w - (alpha - 0.5) * u * u
        return alpha * _log_add(log_q, log_1q + m) - w * w / 2 - _LOG_SQRT_2PI

    c = max(float(log_g(x)) for x in centres)
    value, _ = _integrate_checked(lambda w: math.exp(log_g(w) - c), _psg_breaks(centres), rel_tol=1e-12,
                                  floor=floor_scale)
    gap = -(c + math.log(value))
    if gap > math.log(2):
        return gap
    closed = alpha * (1 - q) * math.expm1(-t * u * u)

    def excess(w):
        m = -u * w - (alpha - 0.5) * u * u  # 1 + v = q + (1 − q)e^m
        big_l = math.log1p((1 - q) * math.expm1(m)) if m < 30 else _log_add(log_q, log_1q + m)
        return _weighted_pow1p_excess(alpha, big_l, -w * w / 2 - _LOG_SQRT_2PI)

    value, _ = _integrate_checked(excess, _psg_breaks(centres), rel_tol=1e-11, floor=1e-300)
    j_minus_one = closed + value
    if not -1 < j_minus_one < 0:
        raise QuadratureError(f"Γ({t}): J − 1 = {j_minus_one!r} outside (−1, 0)")
    return -math.log1p(j_minus_one)


def _psg_log_moment_mp(q, u, t, *, gap: bool, dps: int):
    """mpmath (tanh-sinh, ``dps`` digits, error estimate checked) version of the two integrals above: K(t)
    (``gap=False``) or Γ(t) (``gap=True``), as an mpf; integer t by the exact binomial sums."""
    with mpmath.workdps(dps + 10):
        q_, u_, t_ = mpmath.mpf(q), mpmath.mpf(u), mpmath.mpf(t)
        alpha = t_ + 1
        if float(t).is_integer() and t < 2000:
            n = int(t) + 1
            if gap:  # J = Σ_k C(α,k) q^{α−k}(1−q)^k e^{−k(2α−1−k)u²/2}
                terms = [mpmath.binomial(n, k) * q_ ** (n - k) * (1 - q_) ** k * mpmath.exp(-k * (2 * n - 1 - k) * u_**2 / 2)
                         for k in range(n + 1)]
                return -mpmath.log(mpmath.fsum(terms))
            terms = [mpmath.binomial(n, k) * (1 - q_) ** (n - k) * q_**k * mpmath.exp((k * k - k) * u_**2 / 2)
                     for k in range(n + 1)]
            return mpmath.log(mpmath.fsum(terms))
        if gap:
            f = lambda w: mpmath.npdf(w) * (q_ + (1 - q_) * mpmath.exp(-u_ * w - (alpha - mpmath.mpf(1) / 2) * u_**2)) ** alpha
            centres = [0, -alpha * u_]
        else:
            f = lambda y: mpmath.npdf(y) * (1 - q_ + q_ * mpmath.exp(u_ * y - u_**2 / 2)) ** alpha
            centres = [0, alpha * u_]
        points = sorted(set(float(p) for c in centres for p in (c - 30, c - 10, c - 3, c, c + 3, c + 10, c + 30)))
        value, error = mpmath.quad(f, [-mpmath.inf] + [mpmath.mpf(p) for p in points] + [mpmath.inf], error=True,
                                   maxdegree=12)
        if not (value > 0 and error <= mpmath.mpf(10) ** (-dps) * value):
            raise QuadratureError(f"K({t}) of the subsampled Gaussian: mpmath error estimate {mpmath.nstr(error, 3)}")
        if gap:
            # J ≈ 1 when Γ is tiny: J − 1 carries dps − log10(1/Γ) digits; the caller raises dps until enough
            return -mpmath.log(value)
        return mpmath.log(value)


_GH_EXACT_TILT = 20.0
"""Largest tilt c = (t + 1)s/z at which the Gauss–Hermite rule of :data:`GH_NODES` nodes is trusted for the
subsampled Gaussian: it integrates E e^{cY} = e^{c²/2} (Y ~ N(0, 1)) to ≤ 6e-16 relative up to c = 20.5 and misses
by 4e-14 at c = 21, 1e-8 at c = 22, 1e-2 at c = 25 (its outermost node is at |y| ≈ 26.8), and the integrand's tilted peak sits
at y ≈ c."""

_SMALL_K = 1e-4
"""Below this K the rule's ~1e-16 absolute error in E_Q[r^α] ≈ 1 + K is no longer negligible relative to K; the
non-negative excess r^α − 1 − α(r − 1) is integrated instead (:func:`_psg_excess_nodes`)."""


_GH_EXCESS_SHIFT = 3.0
"""Largest u = s/z at which the excess of :func:`_psg_excess_nodes` is integrated on the Gauss–Hermite nodes
(measured against checked quadrature: ≤ 1e-12 relative up to u = 3, 5e-11 at u = 4, 2e-8 at u = 7; the branch
points of r^α at distance π/u from the real axis slow the rule's convergence for large u)."""


def _expm1_minus_x_array(x):
    """e^x − 1 − x elementwise without cancellation (Taylor series for |x| < 0.5)."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < 0.5
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.expm1(x) - x
    if small.any():
        xs = x[small]
        largest, terms = float(np.max(np.abs(xs))), 3  # x^n/n! ≤ 1e-17·x²/2 for n ≥ terms + 2
        while terms < 24 and 2 * largest ** terms / math.factorial(terms + 2) > 1e-17:
            terms += 1
        total, term = xs * xs / 2, xs * xs / 2
        for n in range(3, terms + 3):
            term = term * xs / n
            total = total + term
        out[small] = total
    return out


def _log1p_excess_array(x):
    """(1 + x)·log1p(x) − x ≥ 0 elementwise without cancellation (Σ_{k≥2} (−x)^k/(k(k−1)) for |x| < 0.1)."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < 0.1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = (1 + x) * np.log1p(x) - x
    if small.any():
        xs = x[small]
        largest, top = float(np.max(np.abs(xs))), 3  # |x|^k/(k(k−1)) ≤ 1e-17·x²/2 for k > top
        while top < 24 and 2 * largest ** (top - 1) / (top * (top + 1)) > 1e-17:
            top += 1
        total, power = xs * xs / 2, xs * xs
        for k in range(3, top + 1):
            power = power * -xs
            total = total + power / (k * (k - 1))
        out[small] = total
    return out


def _psg_excess_nodes(q: float, u: float, t: float, y, log_w, scale: float = 0.0) -> float:
    """Σ_i w_i (r(y_i)^α − 1 − α(r(y_i) − 1)) ≥ 0, r = 1 − q + q·e^{uy − u²/2}, α = t + 1: the vectorised
    :func:`_weighted_pow1p_excess` (two non-negative terms, no cancellation however small K is). With weights of
    a rule exact for E_Q[r − 1] = 0, log1p of it is K. Given a rough ``scale`` > 0 of the sum, the nodes whose
    term is provably below e^{−45}·scale are skipped (the excess is ≤ α·e^{α·max(0, log r)})."""
    alpha = t + 1
    a = u * y - u * u / 2
    with np.errstate(over="ignore"):
        big_l = np.where(a < 30, np.log1p(q * np.expm1(np.minimum(a, 30))),
                         np.logaddexp(math.log1p(-q), math.log(q) + a))
    if scale > 0:
        keep = log_w + math.log(alpha) + alpha * np.maximum(big_l, 0.0) > math.log(scale) - 45
        big_l, log_w = big_l[keep], log_w[keep]
    large = alpha * big_l > 300
    x = np.expm1(np.minimum(big_l, 300 / alpha))
    value = (1 + x) * _expm1_minus_x_array(t * np.minimum(big_l, 300 / alpha)) + t * _log1p_excess_array(x)
    terms = np.exp(log_w) * np.maximum(value, 0.0)
    if large.any():  # (1 + x)^α dominates: e^{αL} − (1 + αx) in log space
        bl, lw = big_l[large], log_w[large]
        terms[large] = np.exp(lw + alpha * bl) - np.exp(lw) * (1 + alpha * np.expm1(np.minimum(bl, 700)))
    return float(np.sum(terms))


_LATTICE_MAX_POINTS = 400_000


def _psg_cgf_lattice(q: float, u: float, t: float, excess_scale: float = 0.0) -> float | None:
    """K(t) = log E_{y~N(0,1)}[r(y)^α] by the trapezoid rule on a lattice, in log space, for a tilt αu beyond
    the Gauss–Hermite nodes; None where the lattice would be too fine or too long (the caller falls back).

    The integrand f = r^α φ is analytic in the strip |Im y| < π/u (the branch points of r^α lie at
    y_T + iπ(2k+1)/u) and |f(x + id)| ≤ e^{d²/2} f(x) there (|r(x + id)| ≤ r(x)), so with d = min(0.9π/u, 6) the
    step h = 2πd/(45 + d²/2) leaves a relative error ≤ 2e^{−45}. The lattice is kept only on three windows: the
    peaks y ≈ 0 and y ≈ αu (±11: log r ≥ the larger of the two terms' logs, each a Gaussian in y whose peak is
    below the true maximum, so outside them the integrand is below e^{−60} of it) and the transition y_T where
    the two terms of r are equal (outside ±(log α + 50)/u, log r exceeds the larger term's log by < e^{−50}),
    clipped to where the α log 2 excess there could matter at all. Near the tilted peak the exponent is written
    in w = y − αu: α log q + α t u²/2 − w²/2 + α log1p((1 − q)/q·e^{−a}), no large cancelling terms.

    With ``excess_scale`` > 0 (a rough value of E_Q[r^α] − 1, for K below :data:`_SMALL_K`) the lattice sums the
    non-negative excess r^α − 1 − α(r − 1) instead (:func:`_psg_excess_nodes`), analytic in the same strip and
    bounded there by e^{d²/2}φ(x)(r^α + 1 + α(r + 1)), whose integral is ≤ e^{d²/2}(3 + 2α + E r^α): the step and
    the windows are shrunk and widened by E = log(1/excess_scale) more in the exponent, so the error stays below
    e^{−45} of the excess itself."""
    alpha = t + 1
    log_q, log_1q = math.log(q), math.log1p(-q)
    extra = max(0.0, -math.log(excess_scale)) + math.log(3 + 2 * alpha) if excess_scale > 0 else 0.0
    d = min(0.9 * math.pi / u, 6.0)
    h = 2 * math.pi * d / (45 + extra + d * d / 2)
    centre = alpha * u
    y_t = u / 2 + (log_1q - log_q) / u
    reach = math.sqrt(2 * (alpha * math.log(2) + 60 + extra))
    width = math.sqrt(121 + 2 * extra)
    windows = [(-width, width), (centre - width, centre + width)]
    half = (math.log(alpha) + 50 + extra) / u
    lo, hi = max(y_t - half, -reach), min(y_t + half, centre + reach)
    if lo < hi:
        windows.append((lo, hi))
    ranges = sorted((math.ceil((a - centre) / h), math.floor((b - centre) / h)) for a, b in windows)
    merged = []
    for a, b in ranges:
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    if sum(b - a + 1 for a, b in merged) > _LATTICE_MAX_POINTS:
        return None
    w = np.concatenate([np.arange(a, b + 1, dtype=float) for a, b in merged]) * h
    y = centre + w
    if excess_scale > 0:
        return math.log1p(_psg_excess_nodes(q, u, t, y, math.log(h) - y * y / 2 - _LOG_SQRT_2PI))
    a = u * y - u * u / 2
    tilted = a > log_1q - log_q
    g = np.empty_like(y)
    # the tilted term dominates: α(log q + a) − y²/2 = α log q + α t u²/2 − w²/2 exactly
    at, wt = a[tilted], w[tilted]
    g[tilted] = alpha * log_q + alpha * t * u * u / 2 - wt * wt / 2 + alpha * np.log1p(np.exp(log_1q - log_q - at))
    ao, yo = a[~tilted], y[~tilted]
    g[~tilted] = alpha * (log_1q + np.log1p(np.exp(log_q - log_1q + ao))) - yo * yo / 2
    return _logsumexp(g) + math.log(h) - _LOG_SQRT_2PI



def _psg_cgf_split(q: float, u: float, t: float) -> float:
    """K(t) split at the transition y_T where the two terms of r = (1 − q) + q·e^{uy − u²/2} are equal, for large u
    (where the lattice would need too many points): with w_T = y_T − αu,

        E r^α = (1 − q)^α [Φ(y_T) + C₁] + q^α e^{αtu²/2} [Φ̄(w_T) + C₂],
        C₁ = ∫_0^∞ φ(y_T − v)((1 + e^{−uv})^α − 1) dv,   C₂ = ∫_0^∞ φ(w_T + v)((1 + e^{−uv})^α − 1) dv,

    exactly (r = (1 − q)(1 + e^{u(y − y_T)}) below y_T, q e^{uy − u²/2}(1 + e^{−u(y − y_T)}) above, and
    φ(y)e^{α(uy − u²/2)} = e^{αtu²/2}φ(y − αu)). The C's are checked quadratures in x = uv of non-negative
    integrands that fall like αe^{−x}, in log space (no overflow); everything else is closed form."""
    alpha = t + 1
    log_q, log_1q = math.log(q), math.log1p(-q)
    y_t = u / 2 + (log_1q - log_q) / u
    w_t = y_t - alpha * u

    def log_c(start, sign):
        # (1 + e^{−x})^α − 1 ≤ α2^{α−1}e^{−x} and ∫_0^∞ φ(start ± v)e^{−uv}dv = e^{±u·start + u²/2}Φ̄(±start + u):
        # where that bound is below e^{−40} of the Φ term, C is negligible (and its integrand peaks far out)
        bound = math.log(alpha) + t * math.log(2) + sign * u * start + u * u / 2 + special.log_ndtr(-(sign * start + u))
        if bound < special.log_ndtr(-sign * start) - 40:
            return -math.inf

        def g(x):  # log of φ(v)((1 + e^{−x})^α − 1)/u, v = start ± x/u
            v = start + sign * x / u
            a = alpha * math.log1p(math.exp(-x))
            log_excess = math.log(math.expm1(a)) if a > 1e-8 else math.log(alpha) - x + math.log1p(a / 2 - math.exp(-x) / 2)
            return -v * v / 2 - _LOG_SQRT_2PI + log_excess - math.log(u)
        top = 60 + math.log(alpha)
        grid = [0.0] + list(np.logspace(-3, math.log10(top), 30))
        c = max(g(x) for x in grid)
        breaks = [0.0, 1.0, 3.0, 10.0, 30.0, top, top + 50]  # beyond, the integrand is below e^{−110} of its top
        value, error = 0.0, 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", integrate.IntegrationWarning)  # the error estimate is checked below
            for a, b in zip(breaks, breaks[1:]):
                part, err = integrate.quad(lambda x: math.exp(g(x) - c), a, b, epsabs=0, epsrel=1e-13, limit=200)
                value, error = value + part, error + err
        if not error <= 1e-11 * value:
            raise QuadratureError(f"K({t}) of the subsampled Gaussian: split quadrature error {error:.3g}")
        return c + math.log(value)

    low = alpha * log_1q + float(np.logaddexp(special.log_ndtr(y_t), log_c(y_t, -1.0)))
    high = alpha * log_q + alpha * t * u * u / 2 + float(np.logaddexp(special.log_ndtr(-w_t), log_c(w_t, 1.0)))
    return float(np.logaddexp(low, high))


@dataclass(frozen=True)
class PoissonSubsampledGaussian(NoiseMechanism):
    """P_q = (1 − q)Q + q·N(v, z²C²I) against Q = N(0, z²C²I) (§4.2); s = ‖v‖/C.

    Only the projection on v matters, so the pair is one-dimensional:
    K(t) = log E_Q[(1 − q + q·e^{(2xs − s²)/(2z²)})^{t+1}], x ~ N(0, z²), by
    Gauss–Hermite quadrature where it is exact, a log-space lattice beyond (:meth:`cgf`), the exact binomial
    sum at integer t. ρ = s²/(2z²): the
    sup of K/(t(t+1)) is approached as t → ∞, so zCDP gets no subsampling discount.
    """

    q: float = 0.01
    z: float = 1.0
    name = "Poisson-subsampled Gaussian"

    def __post_init__(self):
        q = float(self.q)
        if not (math.isfinite(q) and 0 < q <= 1):
            raise ValueError(f"q must be in (0, 1]; got {self.q!r}")
        as_scale(self.z, "z")

    def cgf_with_nodes(self, t, s, nodes):
        if float(t).is_integer() and t < 400:
            return sampled_gaussian_cgf(self.q, self.z, int(t), s)
        x, log_w = _gauss_hermite_log(nodes)
        points = math.sqrt(2) * self.z * x
        log_ratio = np.logaddexp(math.log1p(-self.q) if self.q < 1 else -np.inf,
                                 math.log(self.q) + (2 * points * s - s * s) / (2 * self.z**2))
        return _logsumexp((t + 1) * log_ratio + log_w)

    def cgf(self, t, s=1.0):
        """K(t): the exact binomial sum at integer t < 400; otherwise Gauss–Hermite (:meth:`cgf_with_nodes`)
        where the tilted peak y ≈ (t + 1)s/z of the integrand lies within the rule's exact range
        (:data:`_GH_EXACT_TILT`), with the non-negative excess integrated on the same nodes when K < 1e-4
        (:func:`_psg_excess_nodes`: the rule's 1e-16 absolute error would otherwise be a large relative one);
        beyond it the rule misses the peak (q = 0.05, z = 1, t = 30.5 gave 373.77 for 386.009; z = 1e-3 a
        negative K), and K is a trapezoid sum in log space on the peaks' lattice (:func:`_psg_cgf_lattice`),
        else checked log-space quadrature (:func:`_psg_cgf_float`), else 30-digit mpmath quadrature."""
        return self.cgf_of_checked_arguments(as_scale(t, "t"), as_shift(s))

    def cgf_of_checked_arguments(self, t: float, s: float) -> float:
        """:meth:`cgf` on arguments already checked (floats t > 0, s ≥ 0): the DP-SGD calibration's RDP curve calls
        it some 200 times per ε, where the checks took a sixth of the time."""
        if s == 0:
            return 0.0
        q, u = float(self.q), s / self.z
        if float(t).is_integer() and t < 400:
            value = sampled_gaussian_cgf(self.q, self.z, int(t), s)
            if value >= _SMALL_K or q == 1:
                return value
            # the float sum ≈ 1 + K leaves K an absolute error of ~1e-16: the same sum in mpmath, with the digits K lacks
            digits = 30 + max(0, int(-math.log10(value))) if value > 0 else 330
            return float(_psg_log_moment_mp(q, u, t, gap=False, dps=digits))
        if q == 1:
            return t * (t + 1) * u * u / 2
        if (t + 1) * u <= _GH_EXACT_TILT:
            fast = self.cgf_with_nodes(t, s, GH_NODES)
            if fast >= _SMALL_K:
                return fast
            if u <= _GH_EXCESS_SHIFT:
                x, log_w = _gauss_hermite_log(GH_NODES)
                return math.log1p(_psg_excess_nodes(q, u, t, math.sqrt(2) * x, log_w, scale=fast))
        value = _psg_cgf_lattice(q, u, t)
        if value is not None and math.isfinite(value) and value >= _SMALL_K:
            return value
        if value is not None and math.isfinite(value) and value > 1e-300:
            small = _psg_cgf_lattice(q, u, t, excess_scale=math.expm1(value))
            if small is not None and math.isfinite(small) and small > 0:
                return small
        if value is None:  # the lattice would be too long (u large): the split at the transition
            try:
                split = _psg_cgf_split(q, u, t)
                if math.isfinite(split) and split >= _SMALL_K:
                    return split
            except (QuadratureError, OverflowError, ValueError):
                pass
        try:
            return _psg_cgf_float(q, u, t)
        except (QuadratureError, OverflowError, ValueError):
            return float(_psg_log_moment_mp(q, u, t, gap=False, dps=30))

    def _cgf_negative(self, u, s):
        return self.cgf_with_nodes(u, as_shift(s), GH_NODES)

    def cgf_check(self, t, s=1.0):
        """|K(t) − K(t) by 30-digit mpmath| (mpmath quadrature at non-integer t, the binomial sum at integer t):
        a failure of the float evaluation (such as the Gauss–Hermite rule missing the peak) shows here."""
        t, s = as_scale(t, "t"), as_shift(s)
        if s == 0:
            return 0.0
        reference = _psg_log_moment_mp(float(self.q), s / self.z, t, gap=False, dps=30)
        return abs(self.cgf(t, s) - float(reference))

    def gap(self, t, s=1.0):
        """Γ(t) = ρt(t+1) − K(t) ≥ 0 without subtracting K from ρt(t+1) (:func:`_psg_gap_float`: Γ = −log J, J an
        integral ≤ 1); at integer t by the exact binomial sum for J in mpmath; mpmath quadrature if the float
        quadrature fails its check. The precision is raised until Γ has ~15 correct digits, so a positive Γ is
        never 0 (exactly 0 at q = 1, where P is Gaussian)."""
        t, s = as_scale(t, "t"), as_shift(s)
        if s == 0 or self.q == 1:
            return 0.0
        q, u = float(self.q), s / self.z
        if not (float(t).is_integer() and t < 2000):
            try:
                value = _psg_gap_float(q, u, t)
                if value > 0 and math.isfinite(value):
                    return value
            except (QuadratureError, OverflowError, ValueError):
                pass
        dps = 30
        while True:
            value = _psg_log_moment_mp(q, u, t, gap=True, dps=dps)
            if value > 0 and mpmath.mag(value) > -3.32 * (dps - 20) or dps > 1000:
                return float_or_precise(max(value, 0))
            dps = 2 * dps if value <= 0 else max(dps + 20, int(25 - 0.302 * float(mpmath.mag(value))) + 10)

    def _rho_closed_form(self, s):
        return s * s / (2 * self.z**2)


def sampled_gaussian_cgf(q: float, z: float, t: int, s: float = 1.0) -> float:
    """Exact K(t) of the sampled Gaussian at integer t ≥ 1 (Mironov, Talwar & Zhang 2019, §3.3):
    E_Q[(p/q)^{t+1}] = Σ_k C(t+1, k)(1−q)^{t+1−k} q^k e^{(k²−k)s²/(2z²)}."""
    alpha = t + 1
    terms = []
    for k in range(alpha + 1):
        log_term = special.gammaln(alpha + 1) - special.gammaln(k + 1) - special.gammaln(alpha - k + 1)
        log_term += k * math.log(q) + ((alpha - k) * math.log1p(-q) if q < 1 else (0 if k == alpha else -math.inf))
        log_term += (k * k - k) * s * s / (2 * z * z)
        terms.append(log_term)
    return _logsumexp(terms)


# -- composition and allocation ------------------------------------------------------------------


@dataclass(frozen=True)
class MechanismComposition:
    """Independent composition of (mechanism, shift) pairs: K and Γ add (§3.3). (Not the composition of discrete
    Gaussian mechanisms with an exact privacy curve, :class:`accountlib.theory.composition.Composition`.)"""

    parts: tuple

    def cgf(self, t) -> float:
        return sum(m.cgf(t, s) for m, s in self.parts)

    def rho_sum(self) -> float:
        return sum(m.rho(s) for m, s in self.parts)

    def rho(self) -> float:
        """ρ⋆ = sup_t ΣK_i(t)/(t(t+1)) ≤ ρ_sum."""
        return _sup_ratio(self.cgf)

    def gap(self, t) -> float:
        return sum(m.gap(t, s) for m, s in self.parts)


def sampled_gaussian_cgf_reference(q: float, z: float, t: float, s: float = 1.0, *, dps: int = 30) -> float:
    """K(t) of the Poisson-subsampled Gaussian at any order t > 0 by mpmath tanh-sinh quadrature at ``dps``
    digits: log ∫ φ(x)(1 − q + q·e^{(2xs − s²)/(2z²)})^{t+1} dx over x ~ N(0, z²), independent of the
    Gauss–Hermite rule (the reference for the resolution check of Appendix D.2)."""
    t, s = as_scale(t, "t"), as_shift(s)
    with mpmath.workdps(dps + 10):
        q_, z_, t_, s_ = (mpmath.mpf(v) for v in (q, z, t, s))
        density = lambda x: mpmath.npdf(x, 0, z_)
        ratio = lambda x: 1 - q_ + q_ * mpmath.exp((2 * x * s_ - s_ * s_) / (2 * z_ * z_))
        peak = (t_ + 1) * s_  # where the tilted integrand concentrates for q = 1
        value, error = mpmath.quad(lambda x: density(x) * ratio(x) ** (t_ + 1),
                                   [-mpmath.inf, -10 * z_, 0, peak, peak + 10 * z_, mpmath.inf], error=True)
        if not error < mpmath.mpf(10) ** (-dps) * value:
            raise QuadratureError(f"reference quadrature error {mpmath.nstr(error, 3)} too large")
        return float(mpmath.log(value))


# -- DP-SGD (§5.2) --------------------------------------------------------------------------------


#: The brackets (lo, hi) of each calibration's bisection so far, keyed by its checked arguments (at most
#: _BISECTIONS_KEPT problems; the oldest is forgotten first).
_BISECTIONS: dict = {}


