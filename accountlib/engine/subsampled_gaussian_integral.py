"""The one-step integral of DP-SGD's privacy loss, G(w) = E r(X)^w, with certified error bounds.

Engine layer of :mod:`accountlib`: step 1 and the modulus bound of step 4 of the method in
:mod:`accountlib.engine.subsampled_gaussian`. X ∼ N(0, z²) and r(x) = 1 − q + q e^{(2x−1)/2z²} is the likelihood
ratio of one Poisson-subsampled Gaussian step; G is evaluated by the trapezoidal rule on the real line (real w) or on
the shifted line Im x = a (complex w), each error term (discretisation, Gaussian tails, float64 rounding) bounded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..infrastructure.numbers import ResourceLimitError
from .subsampled_gaussian import KAPPA, UNIT_ROUNDOFF, StepGroup, dyadic_step

__all__ = ["OneStepIntegral", "MAX_GRID_POINTS"]

MAX_GRID_POINTS = 200_000
"""The most points x_j of one one-step integral (its step shrinks as z², its range grows with the order α); a grid
that would need more is refused (``ResourceLimitError``), so memory stays bounded (a few MB per row)."""

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
        """The nodes' real parts x_j = j·h, j = lo..hi."""
        return np.arange(self.lo, self.hi + 1, dtype=float) * self.h


class OneStepIntegral:
    """G(w) = E r(X)^w, X ∼ N(0, z²), r(x) = 1 − q + q e^{(2x−1)/2z²}: the one-step moment-generating function of
    the privacy loss of the Poisson-subsampled Gaussian (:mod:`.subsampled_gaussian`, §1), with certified error bounds.

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
        """A closed-form upper bound on log G(α) (:mod:`.subsampled_gaussian`, §1)."""
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
        h = dyadic_step(h)
        t = 2 * math.pi * a / h  # 2M/(e^t − 1), in logarithms (t may exceed the float range of e^t)
        discretisation = math.exp(min(700.0, log_m - t - math.log1p(-math.exp(-t)))) * (1 + 1e-10)
        if shifted:
            log_line = a * a / (2 * z2) - min(alpha, 0.0) * math.log(math.cos(a / (2 * z2)))
        else:
            log_line = 0.0
        # tails: widen until each is below the target. The left bounding function increases up to min(0, αq) and
        # the right one decreases from max(1, α) (:mod:`.subsampled_gaussian`, §1), so the nodes left out are bounded by the
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
        trapezoidal rule on the real line, :mod:`.subsampled_gaussian` §1; a second pass re-targets the grid at the value the
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
            exponent_error = KAPPA * UNIT_ROUNDOFF * (x * x / self._z2 + 2 + abs(peak)
                                           + abs(alpha) * (3 + (np.abs(x) + 1) / self._z2))
            rounding = grid.h * float(np.sum(terms * np.expm1(exponent_error + KAPPA * UNIT_ROUNDOFF))) \
                + (x.size + 2) * UNIT_ROUNDOFF * total * 1.01
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
        same units). The trapezoidal rule on the line Im x = a (:mod:`.subsampled_gaussian`, §1): its discretisation and tail
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
        base_error = KAPPA * UNIT_ROUNDOFF * ((x * x + grid.a * grid.a + np.abs(x) + 1) / self._z2 + 2 + abs(log_scale)
                                   + abs(alpha) * (3 + (np.abs(x) + grid.a + 0.5) / self._z2 + abs_ell))
        values = np.empty(betas.size, dtype=complex)
        errors = np.empty(betas.size)
        chunk = max(1, 1_000_000 // max(1, x.size))
        n = x.size
        gamma = (n + 2) * UNIT_ROUNDOFF / (1 - (n + 2) * UNIT_ROUNDOFF)
        for start in range(0, betas.size, chunk):
            b = betas[start:start + chunk, None]
            exponent = base[None, :] + 1j * b * ell[None, :]
            terms = np.exp(exponent)
            mags = np.abs(terms)
            err_exp = base_error[None, :] + KAPPA * UNIT_ROUNDOFF * b * (3 + (np.abs(x) + grid.a + 0.5) / self._z2 + abs_ell[None, :])
            s = terms.sum(axis=1) * grid.h
            mag = mags.sum(axis=1) * grid.h
            rounding = grid.h * (mags * np.expm1(err_exp + KAPPA * UNIT_ROUNDOFF)).sum(axis=1) * 1.01 + 2 * gamma * mag
            values[start:start + chunk] = s
            errors[start:start + chunk] = rounding + grid.discretisation + grid.tails
        return values, errors * (1 + 1e-9)

    # -- the modulus bound for the truncation -----------------------------------------------------------------
    def modulus_bound(self, alpha: float, beta: float) -> float:
        """log B, B ≥ sup_{β' ≥ β} |G(α + iβ')| (:mod:`.subsampled_gaussian`, §4): the least over a few lines Im x = η of an upper
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

