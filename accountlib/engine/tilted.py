"""Deep tails with relative accuracy: the trapezoidal rule on an exponentially tilted contour.

Engine layer of :mod:`accountlib`, beside :mod:`accountlib.engine.tails`; the front door
(:mod:`accountlib.engine.front`) sends deep upper tails here under relative-accuracy requests. The untilted engine
computes P(S_L ≥ lo) to an *absolute* accuracy Δ, so a tail of 1e-60 needs
Δ ≈ 1e-67: hundreds of thousands of nodes in arb at 307–314 bits (⌈−log2 Δ + log2 N⌉ + 64) for the heaviest
census pairs. Tilting the distribution by e^{θs} moves the mass to the
tail point lo, and the tail becomes

    P(S_L ≥ lo) = M(θ) e^{−θ·lo} · J,   J = Σ_{s ≥ lo} e^{−θ(s − lo)} p_θ(s),

with M(θ) = E e^{θ S_L} and p_θ(s) = p(s) e^{θs}/M(θ) (the Esscher transform,
i.e. the saddle-point contour of the Fourier integral). J is of order
1/(λ√(2π)), λ = lo/√V, whatever the size of the tail, so a relative accuracy of
1e-9 on the tail is an absolute accuracy of ~1e-11 on J: float64 suffices,
the sieve's dropping threshold τ rises by some twenty orders of magnitude, and most nodes
disappear. (The book's Derivations §3–6 give the untilted method; this is its change of
contour, the classical way to compute large-deviation probabilities.)

Why it is exact and cheap here: tilting N_Z(0, σ²) by e^{tx} gives the
*shifted* discrete Gaussian N_Z(μ, σ²) with μ = σ²t, whose characteristic
function has the dual (Poisson) form

    φ_μ(ξ) = Σ_u e^{−σ²(ξ − 2πu)²/2 + iμ(ξ − 2πu)} / D(μ),
    D(μ) = Σ_u e^{−2π²σ²u²} cos(2πuμ) ≥ 1 − 2Σ_{u≥1} e^{−2π²σ²u²},

and E e^{tX} = e^{σ²t²/2} D(μ)/D(0). With θ = lo/V the tilted sum is centred
at θV = lo (V = Σ c_i²σ_i², the sub-Gaussian variance proxy of S_L).

The trapezoidal rule with N nodes gives, *exactly*,

    (1/N) Σ_k φ_θ(ζ_k) e^{−iζ_k lo} (1 − e^{−θN}) / (1 − e^{−θ − iζ_k})
        = Σ_s p_θ(s) e^{−θ((s − lo) mod N)},

which differs from J only by wrap-around: at most
e^{−θN/2} + C e^{−(N/2 − a)²/2V} + C e^{−(N − a)²/2V}, a = |lo − θV|, where
C = Π_g ((1 + ε_g)/(1 − ε_g))^{n_g}, ε_g = 2Σ_{u≥1} e^{−2π²σ_g²u²}, is the
sub-Gaussian constant of the shifted discrete Gaussians. Nodes are dropped by
the same sieve as the untilted engine (its bound divided by D_min covers the
tilted factors); each dropped node costs at most τ/(N(1 − e^{−θ})) per side.
The float64 sum carries a rigorous rounding bound, measured against the
sieve's bound on |φ| at each node; it limits J to an absolute accuracy of about 1e-15, i.e. a tail to a relative
accuracy of about 1e-13 (less where J itself is small: a lattice sum with a coarse, low-noise term puts little tilted
mass next to lo). An engine built with ``precise=True`` sums J in arb instead (``TiltedTailEngine._j_sum_arb``,
the same dual form with its neglected images bounded), at ``j_tol`` down to :data:`SMALLEST_PRECISE_J_TOL`: the
front door uses it where a tolerance asks for more than float64 gives. M(θ) is evaluated in arb.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from flint import acb, arb, fmpq

from . import arithmetic
from .characteristic import SMALLEST_SIGMA2, image_sum, log_cf_tilted, log_mgf  # the same domain as the float path: the dual form's images decay fast
from .lattice import Lattice, lattice_of
from .quadrature import node_count
from .sieve import folded_distance, log_factor_bound, mulmod, sieve_nodes, sieve_survivors
from .results import DEFAULT_PATHS, ErrorBudget, TailResult, certified, check_lattice_size
from ..infrastructure.numbers import ResourceLimitError, resource_limit

__all__ = ["TiltedTailEngine", "tilted_tail_probabilities", "is_deep", "log_mgf", "DEEP_UP_TO", "FLOAT_J_TOL",
           "SMALLEST_PRECISE_J_TOL", "MAX_PRECISE_NODE_TERMS", "precise_work", "ContourPlan", "contour_plan",
           "planned_nodes", "float64_floor"]

_U = 2.0**-53


DEEP_UP_TO = 2000.0
"""Thresholds more than DEEP_UP_TO·√V into the tail are left to the untilted engine, which returns 0 with the
rigorous sub-Gaussian bound e^{−lo²/2V} (an mpf): the census ε ≤ 5000 of :mod:`accountlib.theory.composition` stays
below λ = ε/√(2ρ) ≈ 1600, and beyond that the float64 phases of the tilted sum are no longer certified."""


FLOAT_J_TOL = 1e-15
"""The finest J accuracy the float64 sum is asked for (its rounding alone is about 1e-16 of Σ|terms|)."""

def float64_floor(nodes: float) -> float:
    """The relative error below which a float64 sum of J over ``nodes`` nodes cannot certify a tail: its bound holds
    γ_m·Σ|terms| (m = nodes + 1, γ_m = mu/(1 − mu), u = 2^−53) over J ≤ Σ|terms|, and the tail's bound, and so δ's,
    carries J's relative error; twice γ_m, as Σ|terms| exceeds |J| where the terms' signs cancel (budgets 13/17,
    7/1000003 and 0.2 at ε = 10: 4.48e6 nodes, J's bound 3.6γ_m = 1.8e-9 of J). An estimate where ``nodes`` is
    :func:`planned_nodes`: the front door skips a float64 round it puts above the tolerance."""
    m = nodes + 1
    return 2 * m * _U / (1 - m * _U) if m * _U < 0.5 else 1.0


SMALLEST_PRECISE_J_TOL = 1e-60
"""The finest J accuracy the arb sum (``precise=True``) is built for: a tail to a relative accuracy of about
1e-30 (the smallest rel_tol accepted) even where J is 1e-25."""

MAX_PRECISE_NODE_TERMS = 120_000
"""The most factor evaluations one call of a precise tilted engine's :meth:`~TiltedTailEngine.tail_indices` may make:
kept nodes × distinct terms × thresholds, each an arb evaluation of the dual form (some 35 µs at 166 bits on one
core, so about 4 s at the limit). The deep level of budgets 3/2 and 11/10000 at ε = 34.24 makes 6.4e4 at
rel_tol = 1e-12 (J accuracy 1e-25: 16,000 nodes, 2 terms, 2 thresholds). Checked before any node is summed
(``ResourceLimitError``); the front door then leaves the level to the untilted engines. Raise it with the
environment variable ``ACCOUNTLIB_MAX_PRECISE_NODE_TERMS``."""


def precise_work(nodes: int, terms: int, thresholds: int) -> int:
    """The workload of a precise tilted sum (:data:`MAX_PRECISE_NODE_TERMS`): nodes × terms × thresholds."""
    return int(nodes) * int(terms) * int(thresholds)


@dataclass(frozen=True)
class ContourPlan:
    """What :class:`TiltedTailEngine` derives before its sieve (:func:`contour_plan`): the cut U, the prime node count
    N, τ, the sieve's untilted threshold τ·Π D_min^n, log D_min per group and the sub-Gaussian constant C."""

    cut: int
    modulus: int
    tau: float
    untilted_tau: float
    log_dmin: np.ndarray
    subgaussian_constant: float


def contour_plan(lattice: Lattice, smallest_index: int, j_tol: float) -> ContourPlan:
    """The tilted contour's sizes for thresholds ≥ ``smallest_index`` at J accuracy ``j_tol``, before any sieve
    (milliseconds): U covers the wrap-around at θ_min = smallest_index/V, a dropped node costs at most τ/(N(1 − e^{−θ}))
    per side, so τ = j_tol(1 − e^{−θ_min})/4 covers them all."""
    groups = lattice.groups
    v = float(lattice.variance_proxy)
    mult = np.array([n for _, n in groups], dtype=float)
    eps = np.array([2 * image_sum(float(s2), 1) for (s2, _), _ in groups])
    log_dmin = np.log1p(-eps)  # log D_min per group
    constant = float(np.exp(np.sum(mult * (np.log1p(eps) - log_dmin)))) * (1 + 1e-12)
    theta_min = smallest_index / v
    log_target = math.log(8 / j_tol)
    half = max(log_target / theta_min, math.sqrt(2 * v * (log_target + math.log(constant))) + 2)
    cut = int(math.ceil(half))
    tau = j_tol * -math.expm1(-theta_min) / 4
    return ContourPlan(cut, node_count(cut), tau, tau * math.exp(float(np.sum(mult * log_dmin))), log_dmin, constant)


def planned_nodes(lattice: Lattice, smallest_index: int, j_tol: float) -> float:
    """The nodes a :class:`TiltedTailEngine` would keep, estimated before its sieve
    (:func:`accountlib.engine.sieve.sieve_survivors` on :func:`contour_plan`): what the front door weighs before a
    round of the tilted contour (its float64 rounding floor, the arb sum's work)."""
    plan = contour_plan(lattice, smallest_index, j_tol)
    return sieve_survivors(lattice.groups, plan.modulus, plan.untilted_tau)


def is_deep(lattice: Lattice, index: int, deep_from: float = DEFAULT_PATHS.deep_from) -> bool:
    """Whether the tilted contour serves P(S_L ≥ index): every σ² ≥ 1/2 and deep_from·√V ≤ index ≤ DEEP_UP_TO·√V.

    ``deep_from`` comes from :attr:`EvaluationPaths.deep_from <accountlib.engine.results.EvaluationPaths>`.
    """
    if any(s2 < SMALLEST_SIGMA2 for (s2, _), _ in lattice.groups):
        return False
    check_lattice_size(lattice)
    spread = math.sqrt(float(lattice.variance_proxy))
    return index > 0 and deep_from * spread <= index <= DEEP_UP_TO * spread


class TiltedTailEngine:
    """P(S_L ≥ lo) with a certified *relative* error, for thresholds lo ≥ ``smallest_index``.

    Parameters
    ----------
    mechanisms : ``(rho, weight)`` pairs or a :class:`~accountlib.engine.lattice.Lattice`; every σ² ≥ 1/2.
    smallest_index : the smallest threshold lo (> 0) the engine will be asked for; it fixes the
        node count N (the wrap-around e^{−θN/2} must be negligible at θ = lo/V).
    j_tol : the absolute accuracy aimed at for J (of order 0.01–0.4); the certified bound of each
        result is computed, not assumed, and reported in :class:`~accountlib.engine.results.TailResult`.
    precise : sum J in arb (at about −log2(j_tol) + log2 N + 64 bits) instead of float64, for j_tol down to
        :data:`SMALLEST_PRECISE_J_TOL`; a call of :meth:`tail_indices` whose workload exceeds ``max_node_terms``
        (default :data:`MAX_PRECISE_NODE_TERMS`) is refused (``ResourceLimitError``) before any node is summed.

    >>> lat = [(1, 1)]                                           # X ~ N_Z(0, 1): P(X ≥ 12) ≈ 1.8e-32
    >>> fast = TiltedTailEngine(lat, smallest_index=12, j_tol=1e-14).tail_index(12)
    >>> fine = TiltedTailEngine(lat, smallest_index=12, j_tol=1e-30, precise=True).tail_index(12)
    >>> fine.error_bound < 1e-25 * fine.value < fast.error_bound
    True
    """

    def __init__(self, mechanisms, *, smallest_index: int, j_tol: float = 1e-12, precise: bool = False,
                 max_node_terms: int | None = None):
        self.lattice: Lattice = mechanisms if isinstance(mechanisms, Lattice) else lattice_of(mechanisms)
        groups = self.lattice.groups
        check_lattice_size(self.lattice)
        if any(s2 < SMALLEST_SIGMA2 for (s2, _), _ in groups):
            raise ValueError("the tilted engine needs every sigma2 >= 1/2 (use TailEngine otherwise)")
        if not isinstance(smallest_index, int) or smallest_index <= 0:
            raise ValueError(f"smallest_index must be a positive integer; got {smallest_index!r}")
        if not isinstance(precise, bool):
            raise ValueError(f"precise must be True or False; got {precise!r}")
        if isinstance(j_tol, bool) or not isinstance(j_tol, (int, float)) or not (
                (SMALLEST_PRECISE_J_TOL if precise else 0) <= j_tol < 0.1 and j_tol > 0):
            raise ValueError(f"j_tol must be in ({SMALLEST_PRECISE_J_TOL:g} if precise else 0, 0.1); got {j_tol!r}")
        self.precise = precise
        self.variance_proxy = self.lattice.variance_proxy
        self.smallest_index = smallest_index
        self.j_tol = float(j_tol)
        self._sigma2 = np.array([float(s2) for (s2, _), _ in groups])
        self._c = np.array([float(c) for (_, c), _ in groups])
        self._mult = np.array([n for _, n in groups], dtype=float)
        plan = contour_plan(self.lattice, smallest_index, self.j_tol)
        self._log_dmin, self.subgaussian_constant = plan.log_dmin, plan.subgaussian_constant
        self.cut, self.modulus, self.tau = plan.cut, plan.modulus, plan.tau
        self.sieve = sieve_nodes(groups, self.modulus, plan.untilted_tau)
        ks = self.sieve.nodes[self.sieve.nodes > 0].astype(np.int64)
        self.nodes = ks
        n = self.modulus
        self.bits = int(math.ceil(-math.log2(self.j_tol) + math.log2(n))) + 64 if precise else 53
        self.max_node_terms = (resource_limit("ACCOUNTLIB_MAX_PRECISE_NODE_TERMS", MAX_PRECISE_NODE_TERMS)
                               if max_node_terms is None else int(max_node_terms))
        # per node and group: the reduced angle ξ = 2π r/N, r = c·k folded into [−N/2, N/2]
        self._xi = np.empty((len(groups), ks.size))
        self._residues = np.empty((len(groups), ks.size), dtype=np.int64)
        log_bound = np.zeros(ks.size)
        for i, (((s2, c), mult)) in enumerate(groups):
            r = np.mod(mulmod(ks, int(c), n), n)
            r = np.where(2 * r > n, r - n, r)
            self._residues[i] = r
            self._xi[i] = 2 * math.pi * (r.astype(float) / n)
            log_bound += log_factor_bound(s2, 1, mult, 2 * math.pi * folded_distance(r, n) / n)
        self._log_bound = log_bound - float(np.sum(self._mult * self._log_dmin))  # bound on log|φ_θ|
        # rounding of the exponents, relative to the bound: the main term's, and the images u = ±1, ±2
        # (whose size relative to the main term is e^{−au² + 2πσ²|u||ξ|} ≤ e^{−a(u² − |u|)}, a = 2π²σ²)
        s2 = self._sigma2[:, None]
        a = 2 * math.pi**2 * s2
        reach = 2 * math.pi * s2 * np.abs(self._xi)
        self._image_size = [np.exp(-a * u * u + u * reach) for u in (1, 2)]
        self._eta_base = 16 * _U * (4 + s2 * self._xi**2 / 2
                                    + sum(size * (a * u * u + u * reach) for u, size in zip((1, 2), self._image_size)))

    @property
    def node_summary(self) -> dict:
        """The contour's sizes, for reports: U, the node count N, τ, the nodes kept and each factor's count."""
        return {"U": self.cut, "N": self.modulus, "tau": self.tau, "nodes": int(self.nodes.size),
                "per_factor_nodes": self.sieve.per_factor_count, "precise": self.precise, "bits": self.bits}

    # -- pieces --------------------------------------------------------------------------------

    def log_mgf(self, theta: Fraction) -> arb:
        """log M(θ) = log E e^{θ S_L} as an arb ball (:func:`log_mgf` on this lattice's groups)."""
        return log_mgf(self.lattice.groups, theta)

    def _j_sum(self, lo: int, theta: float) -> tuple[float, float]:
        """(J_N, rigorous float64 error) for one threshold: the trapezoidal sum on the tilted contour."""
        n = self.modulus
        ks = self.nodes
        mu = self._sigma2 * theta * self._c  # μ_g = σ_g² θ c_g
        a = 2 * math.pi**2 * self._sigma2
        # per group: log φ_g on the contour (characteristic.log_cf_tilted: the dual form with its images |u| ≤ 2)
        log_phi = np.zeros(ks.size, dtype=complex)
        eta = np.zeros(ks.size)
        for i, s2 in enumerate(self._sigma2):
            xi = self._xi[i]
            log_phi += self._mult[i] * log_cf_tilted(s2, a[i], xi, mu[i], ks.size)
            # rounding, relative to the bound (phases: the main term's and the images'), the neglected
            # images |u| ≥ 3 (≤ 3e^{−6a} relative) and D's neglected terms
            phase = np.abs(mu[i]) * (np.abs(xi) + 2 * math.pi * (self._image_size[0][i] + 2 * self._image_size[1][i]))
            eta += self._mult[i] * (self._eta_base[i] + 16 * _U * phase + 3 * math.exp(-6 * a[i])
                                    + 6 * image_sum(s2, 3))
        phi = np.exp(log_phi)
        # kernel (1 − e^{−θN}) e^{−iζ lo} / (1 − e^{−θ} e^{−iζ}), phases reduced exactly in integers
        zeta = 2 * math.pi * ks / n
        phase = 2 * math.pi * (np.mod(mulmod(ks, lo, n), n) / n)
        gain = -math.expm1(-theta * n)
        e_theta = math.exp(-theta)
        denominator = (-math.expm1(-theta) + e_theta * 2 * np.sin(zeta / 2) ** 2) + 1j * e_theta * np.sin(zeta)
        kernel = gain * np.exp(-1j * phase) / denominator
        terms = (phi * kernel).real
        k0 = gain / -math.expm1(-theta)
        value = (k0 + 2 * float(np.sum(terms))) / n
        magnitude_kernel = np.abs(kernel)
        bound = np.exp(self._log_bound) * magnitude_kernel
        rounding = np.sum(bound * np.expm1(1.01 * eta + 8 * _U * np.abs(log_phi)) + np.abs(terms) * 40 * _U)
        m = ks.size + 1
        gamma = m * _U / (1 - m * _U)
        error = (2 * (rounding + gamma * (np.sum(np.abs(terms)) + k0)) / n + 16 * _U * k0 / n) * (1 + 1e-6)
        return value, float(error)

    def _j_sum_arb(self, lo: int, theta: Fraction):
        """(J_N, its rigorous error) for one threshold, the sum of :meth:`_j_sum` in arb at ``self.bits`` bits:
        J_N as an mpf (50 digits) and the error an mpf covering the ball's radius and the decimal conversion.

        Per group, φ_θ(ξ) = e^{−σ²ξ²/2 + iμξ}·w/D(μ) with w = Σ_{|u| ≤ R} e^{−au² + 2πσ²uξ − 2πiuμ} and
        D(μ) = Σ_{|u| ≤ R} e^{−au²}cos 2πuμ (a = 2π²σ², μ = σ²θc, |ξ| ≤ π): the images |u| > R add at most
        2Σ_{u > R} e^{−au² + bu} to |w| (b = 2πσ²·max|ξ| ≤ a over the kept nodes) and 2Σ_{u > R} e^{−au²} to D, and
        are carried as radii."""
        n = self.modulus
        with arithmetic.precision(self.bits):
            pi = arb.pi()
            theta_arb = arithmetic.arb_fraction(theta)
            groups = []
            for g, ((s2, c), mult) in enumerate(self.lattice.groups):
                a_f = 2 * math.pi**2 * float(s2)
                # R: the images |u| > R, each at most e^{−au² + b|u|} of the main term (b = 2πσ²·max|ξ| over the kept
                # nodes, ≤ a), are below 2^−bits together; a group with a large σ² keeps its nodes at small |ξ|
                b_f = 2 * math.pi * float(s2) * min(math.pi, float(np.max(np.abs(self._xi[g]), initial=0.0)) * (1 + 1e-9) + 1e-12)
                image = lambda u: math.exp(-(a_f * u * u - b_f * u))
                reach = 0
                while 2 * sum(image(u) for u in range(reach + 1, reach + 41)) > 2.0 ** -(self.bits + 10):
                    reach += 1
                mu = s2 * theta * c
                a = 2 * pi**2 * arithmetic.arb_fraction(s2)
                images = []  # e^{−au²}·e^{∓2πiuμ} for u = 1..R
                for u in range(1, reach + 1):
                    turn = acb.exp_pi_i(acb(arithmetic.arb_fraction(-2 * u * mu)))  # e^{−2πiuμ}
                    weight = (-(a * u * u)).exp()
                    images.append((weight * turn, weight * turn.conjugate()))  # for +u and −u
                # (1e-300: an image sum that underflows float64 is still carried)
                w_rest = 2 * sum(image(u) for u in range(reach + 1, reach + 41)) * 1.01 + 1e-300
                d, u = arb(1), 1  # D(μ), to its own reach: its images do not grow with ξ
                while 2 * image_sum(float(s2), u) > 2.0 ** -(self.bits + 10):
                    d += 2 * (-(a * u * u)).exp() * arb.cos_pi_fmpq(fmpq(2 * u * mu.numerator, mu.denominator))
                    u += 1
                d = arithmetic.add_error(d, 2 * image_sum(float(s2), u))
                s2_arb = arithmetic.arb_fraction(s2)
                groups.append((-s2_arb / 2, 2 * pi * s2_arb, arithmetic.arb_fraction(mu), mult, images,
                               acb(arb(0, w_rest), arb(0, w_rest)), 1 / d))
            e_theta = (-theta_arb).exp()
            gain = -((-theta_arb * n).expm1())
            total = arb(0)
            for col, k in enumerate(self.nodes.tolist()):
                phi = acb(1)
                for g, (half_s2, reach_scale, mu, mult, images, w_rest, inverse_d) in enumerate(groups):
                    xi = pi * arb(fmpq(2 * int(self._residues[g, col]), n))
                    factor = acb(half_s2 * xi * xi, mu * xi).exp() * inverse_d  # the main term over D(μ)
                    if images:
                        q = (reach_scale * xi).exp()  # e^{2πσ²ξ}
                        w, up, down = acb(1), arb(1), arb(1)
                        for plus, minus in images:
                            up, down = up * q, down / q
                            w += plus * up + minus * down
                        factor *= w + w_rest
                    else:
                        factor *= 1 + w_rest
                    phi *= factor if mult == 1 else factor**mult
                turn = acb.exp_pi_i(acb(arb(fmpq(-2 * k, n))))  # e^{−iζ}
                phase = acb.exp_pi_i(acb(arb(fmpq(-2 * ((k * lo) % n), n))))  # e^{−i·lo·ζ}, reduced exactly
                total += (phi * phase / (1 - e_theta * turn)).real
            value = gain * (1 / -((-theta_arb).expm1()) + 2 * total) / n
            with mpmath.workdps(50):
                mid = mpmath.mpf(value.mid().str(50, radius=False))
                error = (mpmath.mpf(value.rad().str(10, radius=False)) * (1 + mpmath.mpf(10) ** -8)
                         + abs(mid) * mpmath.mpf(10) ** -48)
        return mid, error

    def tail_index(self, lo: int) -> TailResult:
        """P(S_L ≥ lo) with its certified error bound (lo ≥ ``smallest_index``)."""
        return self.tail_indices([lo])[0]

    def tail_indices(self, indices) -> list[TailResult]:
        """P(S_L ≥ lo) for each lo, each with its certified error bound."""
        v_exact = self.variance_proxy
        v = float(v_exact)
        indices = [int(i) for i in indices]
        if self.precise:
            work = precise_work(self.nodes.size, len(self.lattice.groups), len(indices))
            if work > self.max_node_terms:
                raise ResourceLimitError(
                    f"the tilted contour summed in arb at J accuracy {self.j_tol:.3g} would evaluate {self.nodes.size} "
                    f"nodes x {len(self.lattice.groups)} terms x {len(indices)} thresholds ({work:,} factors), above the "
                    f"limit of {self.max_node_terms:,}; loosen the tolerance or raise ACCOUNTLIB_MAX_PRECISE_NODE_TERMS")
        out = []
        for lo in indices:
            if lo < self.smallest_index:
                raise ValueError(f"threshold index {lo} is below this engine's smallest_index {self.smallest_index}")
            theta_f = lo / v
            theta = Fraction(theta_f)
            j_value, float_error = self._j_sum_arb(lo, theta) if self.precise else self._j_sum(lo, theta_f)
            offset = abs(float(lo - theta * v_exact))  # a = |lo − θV|
            half = self.modulus / 2
            c = self.subgaussian_constant
            wrap = (math.exp(-theta_f * half * (1 - 1e-12)) + c * math.exp(-((half - offset) ** 2) / (2 * v) * (1 - 1e-12))
                    + c * math.exp(-((self.modulus - offset) ** 2) / (2 * v) * (1 - 1e-12)))
            sieve = self.tau / -math.expm1(-theta_f) * (1 + 1e-9)
            j_error = wrap + sieve + float_error
            with arithmetic.precision(160):  # log M(θ) − θ·lo at the precision of log M(θ): both are ~lo²/2V
                log_prefactor = self.log_mgf(theta) - arithmetic.arb_fraction(theta * lo)
            # the prefactor from log M(θ) − θ·lo (|·| ≤ ~1e7 for ε ≤ 5000) to 40 digits, or 60 for the arb sum (whose
            # J is good to 1e-30 and finer); the slack covers the decimal string and the exponential
            digits, slack = (60, 1e-45) if self.precise else (40, 1e-30)
            with mpmath.workdps(digits):
                prefactor = mpmath.exp(mpmath.mpf(log_prefactor.mid().str(digits, radius=False)))
                value = prefactor * mpmath.mpf(j_value)
                prefactor_rel = math.expm1(float(log_prefactor.rad()) * 1.01 + slack)
                # |P'J' − PJ_N| ≤ P·j_error + P·prefactor_rel·(|J_N| + j_error), kept as an mpf (no underflow)
                bound = prefactor * (j_error + prefactor_rel * (abs(j_value) + j_error)) * (1 + 1e-9)
                budget = ErrorBudget(aliasing=prefactor * wrap, sieve=prefactor * sieve, float_path=prefactor * float_error,
                                     rounding=prefactor * prefactor_rel * (abs(j_value) + j_error))
            out.append(certified(value, lo, budget, "tilted", bound=bound))
        return out


def tilted_tail_probabilities(mechanisms, indices, *, rel_tol: float = 1e-9,
                              built: list | None = None) -> list[TailResult]:
    """P(S_L ≥ lo) for lattice thresholds ``indices`` (all > 0), each to ``rel_tol`` relative.

    Builds a :class:`TiltedTailEngine` for the smallest index and tightens its J accuracy until every bound meets
    ``rel_tol``: in float64 down to :data:`FLOAT_J_TOL`, then summed in arb (``precise=True``, J accuracy from
    the bound reached, down to :data:`SMALLEST_PRECISE_J_TOL`) while the arb workload stays within
    :data:`MAX_PRECISE_NODE_TERMS`; the narrowest results are returned either way (the caller checks them). Each
    engine built is appended to ``built`` when given (``CertifiedTails.tilted_engines``).
    """
    indices = [int(i) for i in indices]
    if not indices or min(indices) <= 0:
        raise ValueError("indices must be positive lattice thresholds")
    lattice = mechanisms if isinstance(mechanisms, Lattice) else lattice_of(mechanisms)
    lam = max(indices) / math.sqrt(float(lattice.variance_proxy))
    j_estimate = float(mpmath.erfc(lam / math.sqrt(2)) * mpmath.exp(lam * lam / 2)) / 2
    j_tol = min(max(rel_tol * j_estimate / 4, FLOAT_J_TOL), 1e-3)
    precise = False
    best = None
    for _ in range(12):
        engine = TiltedTailEngine(lattice, smallest_index=min(indices), j_tol=j_tol, precise=precise)
        if built is not None:
            built.append(engine)
        try:
            results = engine.tail_indices(indices)
        except ResourceLimitError:
            break
        best = results if best is None else [min(r, b, key=lambda x: x.error_bound) for r, b in zip(results, best)]
        if all(r.error_bound <= rel_tol * r.value for r in best) or (precise and j_tol <= SMALLEST_PRECISE_J_TOL):
            break
        if j_tol > FLOAT_J_TOL:
            j_tol = max(j_tol / 100, FLOAT_J_TOL)
            continue
        # the float64 floor: the arb sum, at the J accuracy the widest miss asks for (its other terms scale with j_tol)
        shrink = min(float(rel_tol * r.value / r.error_bound) if r.value > r.error_bound else 1e-10 for r in best)
        j_tol = max(min(j_tol * shrink / 8, j_tol / 100 if precise else FLOAT_J_TOL), SMALLEST_PRECISE_J_TOL)
        precise = True
    return best
