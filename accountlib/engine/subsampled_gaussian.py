"""Certified privacy profiles of the Poisson-subsampled Gaussian mechanism composed over many steps (DP-SGD).

Engine layer of :mod:`accountlib`, beside the discrete-Gaussian evaluators. One step of DP-SGD releases a sum of
clipped gradients (sensitivity 1) plus N(0, z²) noise, each example taking part with probability q. Under the
add/remove-one relation the step is dominated by the pair of one-dimensional laws

    mixture  P = (1 − q)·N(0, z²) + q·N(1, z²)     and     Q = N(0, z²)

(the remove direction compares P with Q, the add direction Q with P), with likelihood ratio
r(x) = dP/dQ(x) = 1 − q + q·exp((2x − 1)/(2z²)). A run is a composition of groups (q_g, z_g, T_g); the same record
is added (or removed) in every step, so each direction composes on its own and the run's profile is the worse of the
two composed profiles.

The method is the sieve paper's (a characteristic function composed by a power, inverted by a trapezoidal rule whose
error is bounded analytically, §4, Lemma 4.3 with Trefethen & Weideman 2014), moved from the unit circle to a
vertical line, with every error term bounded.

1. The one-step integral. With L = log r(X) the privacy loss of a step of the remove direction (X ∼ P),

       M_R(s) = E_P e^{sL} = E_Q r^{s+1} = G(s + 1),     M_A(s) = E_Q e^{−sL} = G(−s),
       G(w) = ∫ φ_z(x) r(x)^w dx,   φ_z the N(0, z²) density,

   (the add direction's loss is −L under Q). G is entire in w, and in x the integrand is analytic in the strip
   |Im x| < πz² where Re r > 0 (r vanishes only at Im x = ±πz²). Shifting the line of integration to Im x = a
   (Cauchy), with θ = Im x / z² ∈ [0, π/2],

       |φ_z(x + iη)| = φ_z(x)·e^{η²/2z²},   r(x)·cos(θ/2) ≤ |r(x + iη)| ≤ r(x),   0 ≤ arg r(x + iη) ≤ θ,

   so that |r^{α+iβ}| = |r|^α e^{−β arg r} ≤ |r|^α for β ≥ 0: on and above the real line the oscillation of
   r^{iβ} only damps the integrand. The N-point trapezoidal rule on the line Im x = a (nodes x_j = jh + ia) is
   then analytic in the strip 0 < Im x < 2a (a ≤ πz²/4, and a ≤ √2·z so that the factor e^{a²/2z²} the shift puts on
   every node, and with it the rounding, stays below e), bounded there by
   M ≤ e^{2a²/z²}·cos(a/z²)^{min(α,0)}·G(α) whatever β is, and its error is at most 2M/(e^{2πa/h} − 1)
   (Trefethen & Weideman 2014, Thm 5.1): the step h does not shrink as β grows. The nodes outside [X_L, X_R] are
   bounded by Gaussian tails: r ≤ 1 left of x = 1/2; r^α ≤ (1 − q) + q e^{α(2x−1)/2z²} for α ≥ 1 (convexity);
   r^α ≤ 1 + q e^{(2x−1)/2z²} for 0 ≤ α ≤ 1; r ≥ e^{q(2x−1)/2z²} (weighted AM–GM), so r^α ≤ e^{αq(2x−1)/2z²} for
   α < 0. Each bound is a shifted Gaussian density times a constant, whose tail is an erfc.

2. Composition is a product: M(s) = Π_g G_g(w)^{T_g} (w = s + 1, or w = −s for the add direction).

3. Inversion. With the hinge (1 − e^{ε−L})_+ = ∫ e^{(s)(L−ε)}/(s(s+1)) ds/(2πi) on Re s = c > 0 (its two-sided
   Laplace transform is 1/s − 1/(s + 1)), the privacy profile is

       δ(ε) = E_P (1 − e^{ε−L})_+ = (1/2π) ∫ e^{−(c+iy)ε} M(c + iy) / ((c + iy)(c + 1 + iy)) dy.

   The integrand is the Fourier transform of x ↦ e^{cx}δ(x), so the trapezoidal rule with step h_y (period
   P = 2π/h_y) sums, by Poisson summation, exactly

       (h_y/2π) Σ_{k∈Z} Ψ(k h_y) = δ(ε) + Σ_{m≥1} e^{cmP} δ(ε + mP) + Σ_{m≥1} e^{−cmP} δ(ε − mP).

   Every image is ≥ 0 (so the rule can only overestimate); δ ≤ 1 bounds the left images by e^{−cP}/(1 − e^{−cP}),
   and the Chernoff bound δ(x) ≤ C_λ M(λ) e^{−λx}, C_λ = λ^λ/(1 + λ)^{1+λ}, λ > c, the right ones by
   C_λ M(λ) e^{−λε} e^{−(λ−c)P}/(1 − e^{−(λ−c)P}). The contour c is put near the saddle point of
   e^{−cε}M(c)/(c(c+1)), which makes the relative accuracy of δ independent of its size: δ = 1e-30 costs what
   δ = 1e-5 costs (the tilted engine's idea, :mod:`accountlib.engine.tilted`).

4. Truncation of the sum over k. For β ≥ 0 the shifted-line bound gives, for any η ∈ (0, πz²/2],

       |G(α + iβ)| ≤ ∫ e^{η²/2z²} φ_z(x) |r(x + iη)|^α e^{−β arg r(x + iη)} dx =: B(β),

   decreasing in β because arg r ≥ 0. B is computed as an upper Riemann sum (each of φ_z, |r|^α and
   e^{−β arg r} is monotone in x on each cell: |r(x + iη)| and arg r(x + iη) both increase with x), so the terms
   beyond the last node k = K sum to at most (1/π)·Π_g (B_g(β_{K+1})/N_g)^{T_g} / (K h_y), relative to the
   scale C below.

5. Rounding. Everything runs in float64 with a proved rounding model: each computed node of the one-step sum has
   its log-integrand's error bounded by κu times the magnitudes that enter it (u = 2^-53, κ = 16, which covers
   the few-ulp accuracy of the C library's complex exp and log), the sums by Higham's γ_n, the powers T_g by the
   error of T_g·log ρ, and the phases e^{−iy_kε} by κu(1 + |y_k ε|). The grid points x_j = jh and y_k = k h_y are
   exact floats (h and h_y are small odd multiples of powers of two), so the rules are the ones analysed. The
   scale C = e^{−cε} Π_g N_g^{T_g} is formed in mpmath from the floats that define it, so δ may lie far below
   1e-308.

The result is an interval certainly containing δ(ε): value ± error_bound, with the terms in a
:class:`InversionBudget`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ..infrastructure.numbers import ResourceLimitError

__all__ = ["StepGroup", "OneStepIntegral", "InversionBudget", "ProfileBound", "DirectionContour",
           "certified_profile", "build_contour", "one_step_profile", "loss_supremum", "saddle", "integrals_for", "MAX_NODES", "Q_RANGE", "Z_RANGE",
           "STEPS_RANGE"]

_U = 2.0**-53
KAPPA = 16.0
"""The rounding model's constant: an elementary float64 operation (real or complex +, ×, exp, log) returns its exact
result on its float inputs with an absolute error at most κu times the magnitudes that enter it (u = 2^-53)."""

MAX_NODES = 400_000
"""The most nodes k of one inversion; a request that would need more is refused (``ResourceLimitError``)."""

MAX_GRID_POINTS = 200_000
"""The most points x_j of one one-step integral (its step shrinks as z², its range grows with the order α); a grid
that would need more is refused (``ResourceLimitError``), so memory stays bounded (a few MB per row)."""

Q_RANGE = (1e-8, 1.0)
"""The sampling rates q accepted: 1e-8 ≤ q ≤ 1."""
Z_RANGE = (0.05, 1000.0)
"""The noise multipliers z accepted: 0.05 ≤ z ≤ 1000 (the quadrature step in x shrinks as z²)."""
STEPS_RANGE = (1, 10**9)
"""The step counts accepted per group: 1 to 1e9."""


@dataclass(frozen=True)
class StepGroup:
    """T = ``steps`` steps of the Poisson-subsampled Gaussian at rate ``q`` with noise multiplier ``z``
    (sensitivity 1): floats and an int, checked."""

    q: float
    z: float
    steps: int

    def __post_init__(self):
        for name in ("q", "z"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number; got {v!r}")
        if not Q_RANGE[0] <= self.q <= Q_RANGE[1]:
            raise ValueError(f"q (the sampling rate) must be in [{Q_RANGE[0]:g}, 1]; got {self.q!r}")
        if not Z_RANGE[0] <= self.z <= Z_RANGE[1]:
            raise ValueError(f"z (the noise multiplier) must be in [{Z_RANGE[0]:g}, {Z_RANGE[1]:g}]; got {self.z!r}")
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) \
                or not STEPS_RANGE[0] <= self.steps <= STEPS_RANGE[1]:
            raise ValueError(f"steps must be a whole number in [1, {STEPS_RANGE[1]:g}]; got {self.steps!r}")


# -- small rigorous helpers -------------------------------------------------------------------------------------

def _up(x: float, rel: float = 1e-12) -> float:
    """x rounded up by a relative margin (x ≥ 0): covers the few-ulp error of the libm call that produced it."""
    return x * (1 + rel) + 5e-324


def _normal_upper_tail(t: float) -> float:
    """An upper bound on Φ̄(t) = P(N(0,1) > t)."""
    if t < -40:
        return 1.0
    value = 0.5 * math.erfc(t / math.sqrt(2))
    return min(1.0, _up(value, 1e-10))


def _log_normal_upper_tail(t: float) -> float:
    """An upper bound on log Φ̄(t), finite for every t (Mills' ratio beyond the float range of erfc)."""
    if t < 30:
        return math.log(_normal_upper_tail(t))
    return -t * t / 2 - math.log(t * math.sqrt(2 * math.pi)) + 1e-12


def _logsumexp(values) -> float:
    values = [v for v in values if v != -math.inf]
    if not values:
        return -math.inf
    m = max(values)
    return m + math.log(sum(math.exp(v - m) for v in values))


def _dyadic_step(h: float) -> float:
    """The largest m·2^-e ≤ h with 8 ≤ m < 16 an integer: a step whose multiples jh are exact floats."""
    e = math.floor(math.log2(h)) - 3
    m = math.floor(h / 2.0**e)
    while m >= 16:
        e += 1
        m = math.floor(h / 2.0**e)
    return m * 2.0**e


@dataclass(frozen=True)
class _Grid:
    """The trapezoidal grid x_j = j·h, j = lo..hi, on the line Im x = a, with its certified error terms (each relative
    to the scale N, the computed G(α)): the discretisation (Trefethen–Weideman) and the two tails."""

    h: float
    a: float
    lo: int
    hi: int
    discretisation: float
    tails: float

    @property
    def points(self) -> np.ndarray:
        return np.arange(self.lo, self.hi + 1, dtype=float) * self.h


class OneStepIntegral:
    """G(w) = E r(X)^w, X ∼ N(0, z²), r(x) = 1 − q + q e^{(2x−1)/2z²}: the one-step moment-generating function of
    the privacy loss of the Poisson-subsampled Gaussian (module docstring, §1), with certified error bounds.

    >>> g = OneStepIntegral(0.01, 1.0)
    >>> value, lower, upper = g.log_real(1.0)          # G(1) = E_Q[dP/dQ] = 1
    >>> lower <= 0.0 <= upper and upper - lower < 1e-12
    True
    """

    def __init__(self, q: float, z: float):
        StepGroup(q, z, 1)  # checks q and z
        self.q, self.z = float(q), float(z)
        self._z2 = self.z * self.z
        self._log_norm = math.log(self.z * math.sqrt(2 * math.pi))
        self._real_cache: dict = {}
        self._modulus_cache: dict = {}

    # -- a-priori bounds -------------------------------------------------------------------------------------
    def _log_prior_upper(self, alpha: float) -> float:
        """A closed-form upper bound on log G(α) (module docstring, §1)."""
        q, z2 = self.q, self._z2
        if alpha >= 1:
            return _logsumexp([math.log1p(-q) if q < 1 else -math.inf, math.log(q) + (alpha * alpha - alpha) / (2 * z2)]) + 1e-12
        if alpha >= 0:
            return 0.0
        gm = (alpha * alpha * q * q - alpha * q) / (2 * z2)  # r ≥ e^{q(2x−1)/2z²}
        return min(gm, alpha * math.log1p(-q) if q < 1 else math.inf) + 1e-12  # r ≥ 1 − q

    def _log_tail_bounds(self, alpha: float, x_left: float, x_right: float, log_line: float) -> tuple[float, float]:
        """log upper bounds on ∫_{x<x_left} and ∫_{x>x_right} of e^{log_line}·φ_z(x)·ρ_α(x), where ρ_α bounds |r|^α
        on the line (log_line carries e^{a²/2z²} and, for α < 0, cos(θ/2)^α). Needs x_left ≤ 0 and x_right ≥
        max(1, α) (the bounding functions are monotone beyond)."""
        q, z, z2 = self.q, self.z, self._z2
        if alpha >= 1:
            left = _log_normal_upper_tail(-x_left / z)
            parts = [math.log(q) + (alpha * alpha - alpha) / (2 * z2) + _log_normal_upper_tail((x_right - alpha) / z)]
            if q < 1:
                parts.append(math.log1p(-q) + _log_normal_upper_tail(x_right / z))
            right = _logsumexp(parts)
        elif alpha >= 0:
            left = _log_normal_upper_tail(-x_left / z)
            right = _logsumexp([_log_normal_upper_tail(x_right / z),
                                math.log(q) + _log_normal_upper_tail((x_right - 1) / z)])
        else:  # r^α ≤ e^{αq(2x−1)/2z²}, a shifted Gaussian: φ_z(x)e^{αq(2x−1)/2z²} = φ_z(x − αq)e^{(α²q² − αq)/2z²}
            shift = alpha * q
            const = (alpha * alpha * q * q - alpha * q) / (2 * z2)
            left = const + _log_normal_upper_tail((shift - x_left) / z)
            right = const + _log_normal_upper_tail((x_right - shift) / z)
            if q < 1:  # or r^α ≤ (1 − q)^α
                floor = alpha * math.log1p(-q)
                left = min(left, floor + _log_normal_upper_tail(-x_left / z))
                right = min(right, floor + _log_normal_upper_tail(x_right / z))
        return left + log_line + 1e-12, right + log_line + 1e-12

    def _grid(self, alpha: float, log_scale: float, log_tol: float, *, shifted: bool, log_upper: float) -> _Grid:
        """A grid whose three error terms are each below e^{log_tol} relative to e^{log_scale} (the computed G(α));
        ``log_upper`` is a certified upper bound on log G(α). ``shifted``: the line Im x = a with strip (0, 2a)
        (complex w with Im w ≥ 0); else the real line with strip |Im x| < a."""
        z, z2 = self.z, self._z2
        target = log_tol - math.log(3)
        best = None
        # the shifted line multiplies every node by e^{a²/2z²} (the terms cancel back to G): a ≤ √2·z keeps that
        # factor, and with it the rounding, below e
        cap = min(math.pi * z2 / 4, math.sqrt(2) * z) if shifted else math.pi * z2 / 2
        candidates = {cap * 2.0**-k for k in range(8)} | {min(cap, z * math.sqrt(max(1.0, -target) / 2))}
        for a in candidates:
            if shifted:  # strip Im x ∈ (0, 2a): |φ| ≤ φ e^{2a²/z²}, θ ≤ 2a/z²
                log_m = 2 * a * a / z2 + (min(alpha, 0.0) * math.log(math.cos(a / z2)))
            else:  # strip |Im x| < a: θ ≤ a/z²
                log_m = a * a / (2 * z2) + (min(alpha, 0.0) * math.log(math.cos(a / (2 * z2))))
            log_m += log_upper - log_scale + math.log(2)
            # 2M/(e^{2πa/h} − 1) ≤ e^{target}  ⇐  2πa/h ≥ log_m − target + log 2
            need = log_m - target + math.log(2)
            h = 2 * math.pi * a / max(need, 1.0)
            if best is None or h > best[0]:
                best = (h, a, log_m)
        h, a, log_m = best
        h = _dyadic_step(h)
        t = 2 * math.pi * a / h  # 2M/(e^t − 1), in logarithms (t may exceed the float range of e^t)
        discretisation = math.exp(min(700.0, log_m - t - math.log1p(-math.exp(-t)))) * (1 + 1e-10)
        if shifted:
            log_line = a * a / (2 * z2) - min(alpha, 0.0) * math.log(math.cos(a / (2 * z2)))
        else:
            log_line = 0.0
        # tails: widen until each is below the target. The left bounding function increases up to min(0, αq) and
        # the right one decreases from max(1, α) (module docstring, §1), so the nodes left out are bounded by the
        # integrals beyond the grid's ends
        x_left = min(0.0, alpha * self.q) - z * math.sqrt(2 * max(1.0, -target + 5))
        x_right = max(1.0, alpha) + z * math.sqrt(2 * max(1.0, -target + 5))
        for _ in range(200):
            log_left, log_right = self._log_tail_bounds(alpha, x_left, x_right, log_line)
            ok_left = log_left - log_scale <= target
            ok_right = log_right - log_scale <= target
            if ok_left and ok_right:
                break
            if not ok_left:
                x_left -= z
            if not ok_right:
                x_right += z
        else:  # pragma: no cover - the tails are Gaussian: never reached in the accepted ranges
            raise ArithmeticError("could not bound the one-step integral's tails")
        lo = math.floor(x_left / h)
        hi = math.ceil(x_right / h)
        if hi - lo + 1 > MAX_GRID_POINTS:
            raise ResourceLimitError(f"the one-step integral G({alpha:.4g}) for z = {self.z:g} would need "
                                     f"{hi - lo + 1:,} points (at most {MAX_GRID_POINTS:,}): the noise multiplier is "
                                     "very small or the privacy level very deep for it")
        # the nodes left out are x_j ≤ (lo − 1)h and x_j ≥ (hi + 1)h; for a bounding function f increasing on
        # (−∞, lo·h], h·f(x_j) ≤ ∫_{x_j}^{x_j+h} f, so their sum is at most ∫_{−∞}^{lo·h} f (and on the right
        # ∫_{hi·h}^{∞} f); lo·h ≤ x_left and hi·h ≥ x_right keep both inside the monotone ranges
        log_left, log_right = self._log_tail_bounds(alpha, lo * h, hi * h, log_line)
        tails = (math.exp(log_left - log_scale) + math.exp(log_right - log_scale)) * (1 + 1e-10)
        return _Grid(h, a if shifted else 0.0, lo, hi, discretisation, tails)

    # -- the real values ---------------------------------------------------------------------------------------
    def log_real(self, alpha: float, log_tol: float = -34.0) -> tuple[float, float, float]:
        """(log Ĝ(α), lower, upper): a float estimate of log G(α) for real α and a certified enclosure of it (the
        trapezoidal rule on the real line, module docstring §1; a second pass re-targets the grid at the value the
        first found)."""
        key = (float(alpha), float(log_tol))
        if key in self._real_cache:
            return self._real_cache[key]
        alpha = float(alpha)
        upper_bound = self._log_prior_upper(alpha)
        scale = upper_bound
        for _ in range(8):
            grid = self._grid(alpha, scale, log_tol, shifted=False, log_upper=upper_bound)
            x = grid.points
            log_terms = self._log_integrand_real(x, alpha)
            peak = float(log_terms.max())
            terms = np.exp(log_terms - peak)
            total = float(np.sum(terms)) * grid.h  # the sum is e^peak · total
            estimate = peak + math.log(total)
            exponent_error = KAPPA * _U * (x * x / self._z2 + 2 + abs(peak)
                                           + abs(alpha) * (3 + (np.abs(x) + 1) / self._z2))
            rounding = grid.h * float(np.sum(terms * np.expm1(exponent_error + KAPPA * _U))) \
                + (x.size + 2) * _U * total * 1.01
            # |sum − G| ≤ e^scale (tails + discretisation) + e^peak rounding: everything relative to e^estimate
            shift = scale - estimate
            relative = ((grid.tails + grid.discretisation) * math.exp(min(shift, 700.0))
                        + rounding / total) * (1 + 1e-9)
            if relative < 0.5:
                upper_bound = min(upper_bound, estimate + math.log1p(relative) + 1e-15 * abs(estimate))
            if abs(shift) < 1e-2 and relative < 1e-6:  # the grid was aimed at this value: done
                lower = estimate + math.log1p(-relative) - 1e-15 * abs(estimate)
                result = (estimate, lower, upper_bound)
                self._real_cache[key] = result
                return result
            scale = estimate
        raise ArithmeticError(f"could not certify the one-step integral G({alpha:g}) for q = {self.q:g}, "
                              f"z = {self.z:g}")

    def _log_integrand_real(self, x: np.ndarray, alpha: float) -> np.ndarray:
        return -x * x / (2 * self._z2) - self._log_norm + alpha * self._log_ratio((x - 0.5) / self._z2)

    def _log_ratio(self, v: np.ndarray) -> np.ndarray:
        """log r = log(1 − q + q e^v) for real v, without overflow: log1p(q(e^v − 1)) below v = 30, and
        v + log q + log1p((1 − q)e^{−v}/q) above."""
        q = self.q
        if q >= 1:
            return v
        small = np.minimum(v, 30.0)
        large = np.maximum(v, 30.0)
        return np.where(v < 30, np.log1p(q * np.expm1(small)),
                        large + math.log(q) + np.log1p((1 - q) / q * np.exp(-large)))

    # -- the complex values ------------------------------------------------------------------------------------
    def ratios(self, alpha: float, betas: np.ndarray, log_scale: float, log_tol: float) -> tuple[np.ndarray, np.ndarray]:
        """G(α + iβ_k)/e^{log_scale} for each β_k ≥ 0, and a certified bound on each one's absolute error (in the
        same units). The trapezoidal rule on the line Im x = a (module docstring, §1): its discretisation and tail
        errors do not depend on β."""
        betas = np.asarray(betas, dtype=float)
        if betas.size and betas.min() < 0:
            raise ValueError("betas must be >= 0 (use the conjugate for negative β)")
        _, _, log_upper = self.log_real(alpha)
        grid = self._grid(alpha, log_scale, log_tol, shifted=True, log_upper=log_upper)
        x = grid.points
        zeta = x + 1j * grid.a
        v = ((x - 0.5) + 1j * grid.a) / self._z2
        if self.q < 1:
            r = (1 - self.q) + self.q * np.exp(v)
            ell = np.log(r)
        else:
            ell = v + 0.0j
        base = -(zeta * zeta) / (2 * self._z2) - self._log_norm - log_scale + alpha * ell
        abs_ell = np.abs(ell)
        base_error = KAPPA * _U * ((x * x + grid.a * grid.a + np.abs(x) + 1) / self._z2 + 2 + abs(log_scale)
                                   + abs(alpha) * (3 + (np.abs(x) + grid.a + 0.5) / self._z2 + abs_ell))
        values = np.empty(betas.size, dtype=complex)
        errors = np.empty(betas.size)
        chunk = max(1, 1_000_000 // max(1, x.size))
        n = x.size
        gamma = (n + 2) * _U / (1 - (n + 2) * _U)
        for start in range(0, betas.size, chunk):
            b = betas[start:start + chunk, None]
            exponent = base[None, :] + 1j * b * ell[None, :]
            terms = np.exp(exponent)
            mags = np.abs(terms)
            err_exp = base_error[None, :] + KAPPA * _U * b * (3 + (np.abs(x) + grid.a + 0.5) / self._z2 + abs_ell[None, :])
            s = terms.sum(axis=1) * grid.h
            mag = mags.sum(axis=1) * grid.h
            rounding = grid.h * (mags * np.expm1(err_exp + KAPPA * _U)).sum(axis=1) * 1.01 + 2 * gamma * mag
            values[start:start + chunk] = s
            errors[start:start + chunk] = rounding + grid.discretisation + grid.tails
        return values, errors * (1 + 1e-9)

    # -- the modulus bound for the truncation -----------------------------------------------------------------
    def modulus_bound(self, alpha: float, beta: float) -> float:
        """log B, B ≥ sup_{β' ≥ β} |G(α + iβ')| (module docstring, §4): the least over a few lines Im x = η of an upper
        Riemann sum of |φ_z(x + iη) r(x + iη)^{α+iβ}|, plus Gaussian tails. The cells are placed where the integrand
        varies (their placement only affects how tight the bound is; each cell's supremum is taken from the
        monotonicity of the three factors, so the sum is an upper bound for any cells)."""
        key = (float(alpha), float(beta))
        if key in self._modulus_cache:
            return self._modulus_cache[key]
        q, z, z2 = self.q, self.z, self._z2
        best = math.inf
        _, _, log_upper = self.log_real(alpha)
        cap = math.pi * z2 / 2
        for eta in sorted({min(cap, z * f) for f in (0.25, 0.5, 1.0, 1.5)}):
            theta = eta / z2
            log_line = eta * eta / (2 * z2) - min(alpha, 0.0) * math.log(math.cos(theta / 2))
            target = log_upper - 40
            x_left = -z * math.sqrt(2 * 45)
            x_right = max(1.0, alpha) + z * math.sqrt(2 * 45)
            for _ in range(100):
                log_left, log_right = self._log_tail_bounds(alpha, x_left, x_right, log_line)
                if log_left <= target and log_right <= target:
                    break
                if log_left > target:
                    x_left -= z
                if log_right > target:
                    x_right += z
            # cell placement: uniform in u with du/dx = the integrand's log-variation rate (≈ 0.02 per cell)
            probe = np.linspace(x_left, x_right, 4001)
            s_probe = 1.0 / (1.0 + (1 - q) / q * np.exp(-np.minimum((2 * probe - 1) / (2 * z2), 700.0)))
            rate = (np.abs(probe) + abs(alpha) * s_probe + beta * theta * s_probe * (1 - s_probe) * 1.3) / z2 + 0.5 / z
            u = np.concatenate([[0.0], np.cumsum((rate[1:] + rate[:-1]) / 2 * np.diff(probe))])
            cells = int(min(200_000, max(200, math.ceil(u[-1] / 0.02))))
            edges = np.interp(np.linspace(0.0, u[-1], cells + 1), u, probe)
            edges[0], edges[-1] = x_left, x_right
            widths = np.diff(edges) * (1 + 1e-12) + 1e-300
            a_, b_ = edges[:-1], edges[1:]
            nearest = np.where(b_ <= 0, b_, np.where(a_ >= 0, a_, 0.0))  # φ_z is largest at the end nearest 0
            log_phi = -nearest * nearest / (2 * z2) - self._log_norm + eta * eta / (2 * z2)

            def r_at(xs):  # log|r(x + iη)| and arg r(x + iη), both increasing in x
                e = q * np.exp(np.minimum((2 * xs - 1) / (2 * z2), 700.0))
                re = (1 - q) + e * math.cos(theta)
                im = e * math.sin(theta)
                return np.log(np.hypot(re, im)), np.arctan2(im, re)  # hypot: no overflow of re² + im²

            log_r_a, arg_a = r_at(a_)
            log_r = r_at(b_)[0] if alpha >= 0 else log_r_a
            log_sup = log_phi + alpha * log_r - beta * arg_a
            log_sup = log_sup + 1e-9 * (1 + np.abs(log_sup)) + np.log(widths)
            m = float(log_sup.max())
            total = float(np.sum(np.exp(log_sup - m))) * (1 + 1e-9)
            log_left, log_right = self._log_tail_bounds(alpha, x_left, x_right, log_line)
            best = min(best, _logsumexp([m + math.log(total), log_left, log_right]))
        self._modulus_cache[key] = best
        return best


# -- the inversion ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InversionBudget:
    """The terms of a certified δ's error bound (mpf numbers, absolute).

    * ``aliasing`` — the images of the trapezoidal rule on the vertical line (one-sided: they only add);
    * ``truncation`` — the nodes beyond the last one computed, bounded by the modulus bound B;
    * ``quadrature`` — the one-step integrals' discretisation, tails and float64 sums, propagated through the powers
      T_g (this term sets the floor of the relative accuracy, about T·1e-13);
    * ``rounding`` — float64 rounding of every node, power, phase and sum (the rounding model, module docstring §5).
    """

    aliasing: mpmath.mpf
    truncation: mpmath.mpf
    quadrature: mpmath.mpf
    rounding: mpmath.mpf

    @property
    def total(self) -> mpmath.mpf:
        with mpmath.workdps(30):
            return self.aliasing + self.truncation + self.quadrature + self.rounding


@dataclass(frozen=True)
class ProfileBound:
    """δ(ε) of one direction: the truth lies in [lower, upper] (mpf numbers); ``budget`` lists the error terms."""

    epsilon: float
    direction: str
    lower: mpmath.mpf
    upper: mpmath.mpf
    budget: InversionBudget | None
    nodes: int = 0

    @property
    def value(self) -> mpmath.mpf:
        with mpmath.workdps(30):
            return (self.lower + self.upper) / 2

    @property
    def error_bound(self) -> mpmath.mpf:
        with mpmath.workdps(30):
            return (self.upper - self.lower) / 2


def loss_supremum(groups, direction: str) -> float:
    """The largest value the composed privacy loss can take (+inf when unbounded): for the add direction
    Σ T_g·(−log(1 − q_g)) when every q_g < 1, since the loss −log r(x) < −log(1 − q) for every x."""
    if direction == "remove" or any(g.q >= 1 for g in groups):
        return math.inf
    return math.fsum(g.steps * -math.log1p(-g.q) for g in groups)


def _alpha(direction: str, c: float) -> float:
    return c + 1 if direction == "remove" else -c


def _chernoff_log_constant(lam: float) -> float:
    """log C_λ, C_λ = λ^λ/(1 + λ)^{1+λ} = sup_u (1 − e^{−u}) e^{−λu}."""
    return lam * math.log(lam) - (1 + lam) * math.log1p(lam)


class DirectionContour:
    """The nodes of one direction's inversion on one contour Re s = c: M(c + iy_k)/M̂(c), k = 0..K, with their
    error bounds. :meth:`delta` then gives a certified δ(ε) for any ε > 0 from the same nodes (most accurate for ε
    near the one the contour was chosen for).

    ``groups``: :class:`StepGroup` s; ``direction``: "remove" or "add"; ``integrals``: a dict (q, z) →
    :class:`OneStepIntegral` shared between contours (their real values are cached).
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
        alpha = _alpha(direction, self.c)
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
            power_rounding += g.steps * KAPPA * _U * (1 + np.abs(log_rho))
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
        a = _alpha(self.direction, lam)
        return math.fsum(g.steps * self.integrals[(g.q, g.z)].log_real(a)[2] for g in self.groups)

    def delta(self, epsilon) -> ProfileBound:
        """Certified δ(ε) of this direction from this contour's nodes (module docstring, §3–§5)."""
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
        phase_error = KAPPA * _U * (1 + np.abs(y * eps_f))
        rel = np.expm1(self.power_rounding + phase_error + 8 * KAPPA * _U)
        n = y.size
        gamma = (n + 2) * _U / (1 - (n + 2) * _U)
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
                except ArithmeticError:
                    continue
                gap = (lam - c) * period
                log_right = (_chernoff_log_constant(lam) + log_mgf - lam * eps_mp - gap
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
    a = _alpha(direction, lam)
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
    integrals = {} if integrals is None else integrals
    for g in groups:
        if (g.q, g.z) not in integrals:
            integrals[(g.q, g.z)] = OneStepIntegral(g.q, g.z)
    return integrals


def build_contour(groups, direction: str, epsilon: float, rel_tol: float, integrals: dict | None = None,
                  *, widen: int = 0) -> DirectionContour:
    """A contour chosen for δ(ε) of one direction to relative accuracy ``rel_tol``: c near the saddle point, the
    period P from the aliasing bounds, the node count K from the modulus bound, the one-step tolerance from the
    node count. ``widen`` > 0 asks for a more generous choice (after a first attempt fell short)."""
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
                log_right = (_chernoff_log_constant(lam) + _log_mgf(groups, direction, lam, integrals) - lam * epsilon
                             - (lam - c) * period)
            except (ArithmeticError, OverflowError, ResourceLimitError):
                continue
            if log_right - log_c_scale <= math.log(eta) + log_j:
                ok = True
                break
        if ok:
            break
        period *= 1.3
    step = _dyadic_step(2 * math.pi / period)
    # node count: the modulus bound at y_{K+1} must make the truncation ≤ η J (relative to C)
    log_target = math.log(eta) + log_j
    y_guess = math.sqrt(2 * max(1.0, -log_target) / k_pp)
    count = max(8, math.ceil(y_guess / step))
    for _ in range(60):
        beyond = (count + 1) * step
        log_mod = math.fsum(g.steps * (integrals[(g.q, g.z)].modulus_bound(_alpha(direction, c), beyond)
                                       - integrals[(g.q, g.z)].log_real(_alpha(direction, c))[0]) for g in groups)
        if log_mod - math.log(math.pi * count * step) <= log_target:
            break
        count = math.ceil(count * 1.5)
        if count > MAX_NODES:
            raise ResourceLimitError(f"this inversion would need more than {MAX_NODES:,} nodes (very few steps at a "
                                     f"tight tolerance, or q, z or ε far from the usual range; rel_tol {rel_tol:g})")
    count = math.ceil(count * (1 + 0.5 * widen))
    # one-step tolerance: the node errors add up over ~count nodes, each amplified by T
    total_steps = sum(g.steps for g in groups)
    log_tol = max(math.log(eta) + log_j + math.log(c * (c + 1)) - math.log(total_steps) - math.log(4), -36.0)
    return DirectionContour(groups, direction, c, step, count, log_tol, integrals)


def certified_profile(groups, direction: str, epsilon, rel_tol: float = 1e-9, integrals: dict | None = None,
                      contour: DirectionContour | None = None) -> tuple[ProfileBound, DirectionContour]:
    """δ(ε) of one direction with a certified bound, aiming at error_bound ≤ rel_tol·δ (the bound is certified
    whatever happens; the aim is retried twice with more generous choices before the result is returned as it is).
    Returns (bound, the contour used), so that nearby ε can reuse the contour."""
    eps_f = float(epsilon)
    integrals = integrals_for(groups, integrals)
    if direction == "add" and eps_f >= loss_supremum(groups, "add") * (1 + 1e-12):
        zero = mpmath.mpf(0)
        return ProfileBound(eps_f, direction, zero, zero, InversionBudget(zero, zero, zero, zero), 0), contour
    result = None
    for widen in range(3):
        if contour is None or widen > 0:
            contour = build_contour(groups, direction, eps_f, rel_tol, integrals, widen=widen)
        result = contour.delta(epsilon)
        if result.upper == 0 or result.error_bound <= rel_tol * result.value:
            return result, contour
        b = result.budget
        with mpmath.workdps(30):
            if b.aliasing + b.truncation <= rel_tol * result.value / 4 and contour.log_tol <= -35.9:
                break  # the one-step integrals are at float64's floor: a wider contour would not help
    return result, contour


def one_step_profile(q: float, z: float, epsilon, direction: str) -> ProfileBound:
    """δ(ε) of a single step (T = 1) of one direction in closed form, certified in arb ball arithmetic: the loss is
    monotone in x, so {L > ε} is a half-line {x > x_ε} (remove) or {x < x_ε} (add), and

        remove: δ = (1 − q)Φ̄(x_ε/z) + qΦ̄((x_ε − 1)/z) − e^ε Φ̄(x_ε/z),  x_ε = z² log((e^ε − 1 + q)/q) + 1/2;
        add:    δ = Φ(x_ε/z) − e^ε [(1 − q)Φ(x_ε/z) + qΦ((x_ε − 1)/z)],  x_ε = z² log((e^{−ε} − 1 + q)/q) + 1/2,

    (δ = 0 for the add direction when e^{−ε} ≤ 1 − q: its loss never exceeds −log(1 − q)). q, z and ε are taken
    exactly (floats, or an mpf ε)."""
    from flint import arb

    from . import arithmetic

    StepGroup(q, z, 1)
    with arithmetic.precision(256):
        qa, za = arb(float(q)), arb(float(z))
        eps = arb(mpmath.nstr(mpmath.mpf(epsilon), 60)) if not isinstance(epsilon, (int, float)) else arb(float(epsilon))
        if not isinstance(epsilon, (int, float)):
            eps = arithmetic.add_error(eps, float(abs(mpmath.mpf(epsilon)) * mpmath.mpf(10) ** -55) or 0.0)
        root2 = arb(2).sqrt()

        def upper_tail(t):
            return (t / root2).erfc() / 2

        def lower_tail(t):
            return (-t / root2).erfc() / 2

        if direction == "remove":
            t = eps.exp() - 1 + qa
            x = za * za * (t / qa).log() + arb(1) / 2
            value = (1 - qa) * upper_tail(x / za) + qa * upper_tail((x - 1) / za) - eps.exp() * upper_tail(x / za)
        elif direction == "add":
            t = (-eps).exp() - 1 + qa
            if t.upper() <= 0:
                zero = mpmath.mpf(0)
                return ProfileBound(float(epsilon), direction, zero, zero, InversionBudget(zero, zero, zero, zero), 0)
            if not t > 0:
                raise ArithmeticError("epsilon lies too close to the add direction's largest loss −log(1 − q) to "
                                      "decide in closed form")
            x = za * za * (t / qa).log() + arb(1) / 2
            value = lower_tail(x / za) - eps.exp() * ((1 - qa) * lower_tail(x / za) + qa * lower_tail((x - 1) / za))
        else:
            raise ValueError(f"direction must be 'remove' or 'add'; got {direction!r}")
        with mpmath.workdps(70):  # the ball's ends, widened past the decimal conversion's last digit
            lo = mpmath.mpf(value.lower().str(60, radius=False))
            hi = mpmath.mpf(value.upper().str(60, radius=False))
            lo, hi = lo - abs(lo) * mpmath.mpf(10) ** -55, hi + abs(hi) * mpmath.mpf(10) ** -55
            lo, hi = max(lo, mpmath.mpf(0)), min(hi, mpmath.mpf(1))
            zero = mpmath.mpf(0)
            return ProfileBound(float(epsilon), direction, lo, hi, InversionBudget(zero, zero, zero, (hi - lo) / 2), 0)
