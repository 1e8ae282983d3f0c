"""Mechanisms as pairs of distributions: the privacy-loss CGF, the optimal zCDP ρ and the zCDP–RDP gap Γ.

Theory layer of :mod:`accountlib`, after the unifying paper (§3–4; book, Derivations §8). For an additive-noise
mechanism with noise Z and query change s, P = Law(s + Z), Q = Law(Z), and

    K(t) = log E_Q[(dP/dQ)^{t+1}] = t·D_{t+1}(P‖Q)           (t > 0),
    ρ(s) = sup_{t>0} K(t)/(t(t+1))                            (optimal zCDP),
    Γ(t) = ρ·t(t+1) − K(t) ≥ 0                                (the information gap).

:class:`NoiseMechanism` is the base class: a family defines ``cgf(t, s)``, and ``rho``, ``gap``, ``rdp`` and
``loss_cumulants`` (ρ − E_P L, κ3, κ4 of the privacy loss under P, the terms of the local expansion, Thm 3.1) follow;
the supremum search (:func:`sup_ratio`), the Gauss–Hermite rules and the checked quadrature
(:func:`integrate_checked`) the families share live here too, with the composition of mechanisms
(:class:`MechanismComposition`: K and Γ add, §3.3).
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import integrate, optimize, special

from ...infrastructure.numbers import as_scale, as_shift

__all__ = ["NoiseMechanism", "MechanismComposition", "QuadratureError", "GH_NODES", "logsumexp", "gauss_hermite",
           "gauss_hermite_log", "sup_ratio", "sup_ratio_located", "sup_located", "integrate_checked", "expm1_minus_x"]

GH_NODES = 192
"""Gauss–Hermite nodes of the mixture and subsampled-Gaussian CGFs (the mixture's ``cgf_check`` doubles them; the
subsampled Gaussian's compares with mpmath)."""


def logsumexp(a) -> float:
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


def gauss_hermite(nodes: int):
    """Nodes x and weights w with Σ w f(√2 x) ≈ E f(N(0, 1)) (Gauss–Hermite, normalised weights)."""
    if nodes not in _GH_CACHE:
        x, w = special.roots_hermite(nodes)
        _GH_CACHE[nodes] = (x, w / math.sqrt(math.pi))
    return _GH_CACHE[nodes]


def gauss_hermite_log(nodes: int):
    """Nodes x and log-weights log w of :func:`gauss_hermite`, without the nodes whose weight underflows to 0
    (beyond |x| ≈ 27, where w < 1e-308 and no integrand here reaches e^{600}); summing a + log w by
    ``logsumexp`` avoids the overflow that weights passed as ``b`` cause in its rescaling."""
    key = ("log", nodes)
    if key not in _GH_CACHE:
        x, w = gauss_hermite(nodes)
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
        """K(t) = log E_Q[(dP/dQ)^{t+1}] at order t > 0 for query change s (defined by each family)."""
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
    sup = sup_located(mechanism, s)[0]
    endpoint = mechanism._rho_endpoint(s)
    return sup if endpoint is None else max(sup, float(endpoint))


@functools.lru_cache(maxsize=4096)
def sup_located(mechanism, s):
    """(sup, t at the sup, index of the best grid point): the float search of ρ(s) without the endpoint (:func:`sup_ratio_located`), shared by ``rho`` and the gap's
    test of whether the endpoint is the supremum."""
    return sup_ratio_located(lambda t: mechanism.cgf(t, s), where=f"{mechanism!r}.rho({s!r})")


def sup_ratio(cgf, *, endpoint=None, where: str = "sup_t K(t)/(t(t+1))") -> float:
    """sup_{t>0} K(t)/(t(t+1)) on a log grid in [1e-6, 1e4] (8 points a decade), refined locally, max'd with
    ``endpoint``.

    Never returns inf/nan for a finite supremum: a non-finite K on the grid raises
    :class:`QuadratureError`, and a ratio still increasing at the right end of the grid raises ValueError.
    """
    sup, _, _ = sup_ratio_located(cgf, where=where)
    if endpoint is not None:
        sup = max(sup, float(endpoint))
    return sup


def sup_ratio_located(cgf, *, where: str = "sup_t K(t)/(t(t+1))"):
    """(sup, t at the sup, index of the best grid point) of K(t)/(t(t+1)) over t in [1e-6, 1e4], the t ↓ 0
    endpoint excluded (the search of :func:`sup_ratio`)."""
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



def expm1_minus_x(x: float) -> float:
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



class QuadratureError(ArithmeticError):
    """A quadrature whose error estimate does not meet its tolerance (raised, never returned as inf/nan)."""


def integrate_checked(integrand, breakpoints, *, rel_tol: float, floor: float = 0.0):
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



@dataclass(frozen=True)
class MechanismComposition:
    """Independent composition of (mechanism, shift) pairs: K and Γ add (§3.3). (Not the composition of discrete
    Gaussian mechanisms with an exact privacy curve, :class:`accountlib.theory.composition.Composition`.)"""

    parts: tuple

    def cgf(self, t) -> float:
        """Σ K_i(t) of the parts at order t > 0."""
        return sum(m.cgf(t, s) for m, s in self.parts)

    def rho_sum(self) -> float:
        """Σ ρ_i(s_i): the zCDP ρ of the composition by adding the parts' optimal ρ (≥ :meth:`rho`)."""
        return sum(m.rho(s) for m, s in self.parts)

    def rho(self) -> float:
        """ρ⋆ = sup_t ΣK_i(t)/(t(t+1)) ≤ ρ_sum."""
        return sup_ratio(self.cgf)

    def gap(self, t) -> float:
        """Σ Γ_i(t) of the parts (gaps add under composition, §3.3)."""
        return sum(m.gap(t, s) for m, s in self.parts)


