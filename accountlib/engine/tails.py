"""The untilted engine: certified tail probabilities P(S_L ≥ lo) to an absolute accuracy Δ.

Engine layer of :mod:`accountlib`: lattice (Bézout) → truncation U and prime node
count N → sieve → characteristic function at the surviving nodes (arb balls)
→ trapezoidal sums for any number of thresholds (sieve paper §4; book, Derivations §3–6).

Every value comes with a **rigorous error bound**, the sum of

* truncation: P(S_L > U) ≤ e^{−U²/2V} (the mass the Dirichlet kernel omits);
* aliasing: at most P(|S_L| > U) ≤ 2e^{−U²/2V} with N ≥ 2U + 2;
* sieve: every dropped node has |φ_S| ≤ τ, and |D| ≤ U − lo + 1, so at most
  τ·(U − lo + 1);
* rounding: the radius of the arb ball (φ is evaluated with certified tails).

Each result carries these terms as its :class:`~accountlib.engine.results.ErrorBudget`.
:class:`TailEngine` is built for an absolute accuracy Δ (U = ceil(sqrt(2V log(8/Δ))),
τ = Δ/(4(2U+1)), precision from Δ); choosing Δ from what the caller asks for, and the
tilted contour for deep tails, is the front door's job (:mod:`accountlib.engine.front`).
"""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np
from flint import arb, fmpq

from . import arithmetic
from . import characteristic
from ..infrastructure.numbers import ErrorBound, ResourceLimitError, as_fraction, resource_limit, error_bound  # noqa: F401
from .lattice import Lattice, lattice_of, threshold_index
from .results import (DEFAULT_PATHS, SMALLEST_ACCURACY, ErrorBudget, EvaluationPaths, TailResult, certified,
                      check_lattice_size)
from .quadrature import lattice_survivors, node_count, truncation_mass_bound, truncation_point
from .sieve import SieveResult, check_sieve_candidates, scan_nodes, sieve_candidates, sieve_nodes

__all__ = ["TailEngine", "TailResult", "ResourceLimitError", "MAX_NODE_BITS", "ESTIMATE_MARGIN", "truncation_tail_bound",
           "quadrature_plan", "planned_node_bits", "refuse_before_sieve", "sieve_node_bits", "sieved_node_bits"]

MAX_NODE_BITS = 10**8
"""The largest arb workload an engine accepts: surviving nodes × working bits (~1 GB of arb balls and about a
minute at most). Pair (6, 6), the heaviest census pair, needs ~2.5e7 at Δ = 2.5e-26 (the sweep's trade-off
accuracy) and ~1.2e8 at Δ = 2.5e-61. Checked after the (cheap) sieve, before any node is evaluated. Raise it
with the environment variable ``ACCOUNTLIB_MAX_NODE_BITS`` or the ``max_node_bits`` argument."""
MAX_MODULUS = 2**40  # node counts N beyond this are refused before sieving

ESTIMATE_MARGIN = 4
"""How far the estimated arb work (:func:`planned_node_bits`: the survivors estimate
:func:`accountlib.engine.quadrature.lattice_survivors` × working bits) may exceed :data:`MAX_NODE_BITS` before an
engine is refused *before* its sieve runs: the estimate has measured 1.3 to 3.2 times the sieve's own count
(budgets 13/17, 7/1000003 and 0.2 at Δ = 1e-30: 3.8e9 for 2.1e9, whose sieve alone took 22 s and 2.9 GB before
the count refused it). Between the limit and this margin the sieve runs and its count decides."""


def _max_node_bits(given) -> int:
    return int(given) if given is not None else resource_limit("ACCOUNTLIB_MAX_NODE_BITS", MAX_NODE_BITS)


def truncation_tail_bound(variance_proxy, cut: int) -> ErrorBound:
    """exp(−cut²/2V) as an :class:`~accountlib.infrastructure.numbers.ErrorBound` (never underflows), rounded up: P(S_L > cut) ≤ it."""
    if cut <= 0:
        return error_bound(1)
    with mpmath.workdps(30):
        v = mpmath.mpf(variance_proxy.numerator) / variance_proxy.denominator
        return error_bound(mpmath.exp(-mpmath.mpf(cut) ** 2 / (2 * v)) * (1 + mpmath.mpf(10) ** -20))


def quadrature_plan(lattice: Lattice, accuracy: float) -> tuple[int, int, float, int]:
    """What :class:`TailEngine` derives from Δ = ``accuracy`` before sieving: the truncation point U, the prime node
    count N ≥ 2U + 2, the sieve's dropping threshold τ = Δ/(4(2U + 1)) and the working bits; N beyond
    ``MAX_MODULUS`` is refused (:class:`~accountlib.infrastructure.numbers.ResourceLimitError`)."""
    cut = truncation_point(lattice.variance_proxy, accuracy)
    if 2 * cut + 2 > MAX_MODULUS:
        raise ResourceLimitError(
            f"this lattice needs N ≈ {2 * cut + 2:.3g} quadrature nodes at Δ = {accuracy:g}, beyond the "
            f"supported {MAX_MODULUS:.3g} (variance proxy {float(lattice.variance_proxy):.3g}); use budgets with "
            f"smaller denominators or a looser tolerance")
    modulus = node_count(cut)
    bits = int(math.ceil(-math.log2(accuracy) + math.log2(modulus))) + 64
    return cut, modulus, accuracy / (4 * (2 * cut + 1)), bits


def planned_node_bits(lattice: Lattice, accuracy: float) -> float:
    """The arb work of :class:`TailEngine` at Δ = ``accuracy`` *estimated* before any sieve: the nodes the sieve is
    expected to keep (:func:`accountlib.engine.quadrature.lattice_survivors`) × the working bits of
    :func:`quadrature_plan` (milliseconds; an engine whose estimate passes :data:`ESTIMATE_MARGIN` times its limit is
    refused before sieving).

    >>> from fractions import Fraction
    >>> planned_node_bits(lattice_of([(Fraction(1, 2), 1), (Fraction(1, 3), 1)]), 1e-30) < 10**4
    True
    """
    _, _, _, bits = quadrature_plan(lattice, accuracy)
    return lattice_survivors(lattice, accuracy) * bits


def refuse_before_sieve(lattice: Lattice, accuracy: float, max_node_bits: int | None = None) -> None:
    """The refusal (:class:`~accountlib.infrastructure.numbers.ResourceLimitError`) a sieve-method
    :class:`TailEngine` at Δ = ``accuracy`` raises before its sieve runs, raised here in milliseconds: N beyond
    ``MAX_MODULUS`` (:func:`quadrature_plan`), or an estimate (:func:`planned_node_bits`) beyond
    :data:`ESTIMATE_MARGIN` times the node-bit limit (the sieve's own candidate limit named first where it is passed
    too). Nothing where the engine would go on to sieve."""
    limit = _max_node_bits(max_node_bits)
    _, modulus, tau, bits = quadrature_plan(lattice, accuracy)
    planned = lattice_survivors(lattice, accuracy) * bits
    if planned > ESTIMATE_MARGIN * limit:
        # the sieve's own limit first (its message names its knob), from its windows alone
        check_sieve_candidates(sieve_candidates(lattice.groups, modulus, tau), modulus, tau)
        raise ResourceLimitError(
            f"Δ = {accuracy:.3g} needs about {planned:.2g} node-bits of arb work (estimated before the sieve), above "
            f"the limit of {limit:.3g}; loosen the tolerance, use engine='smoothed' (budgets in [1e-12, 4]) or raise "
            f"ACCOUNTLIB_MAX_NODE_BITS")


def sieve_node_bits(lattice: Lattice, accuracy: float) -> int:
    """The arb work the sieve method of :class:`TailEngine` would take on at Δ = ``accuracy``: the nodes its sieve
    keeps × its working bits, the very count the engine refuses beyond its limit (:data:`MAX_NODE_BITS`). Costs the
    sieve (seconds for a million kept nodes), no arb evaluation; a sieve or node count beyond its own limit raises
    :class:`~accountlib.infrastructure.numbers.ResourceLimitError`.

    >>> from fractions import Fraction
    >>> sieve_node_bits(lattice_of([(Fraction(1, 2), 1), (Fraction(1, 3), 1)]), 1e-30) <= MAX_NODE_BITS
    True
    """
    return sieved_node_bits(lattice, accuracy)[1]


def sieved_node_bits(lattice: Lattice, accuracy: float) -> tuple[SieveResult, int]:
    """(the sieve, its node-bits): :func:`sieve_node_bits` with the sieve it ran, for a :class:`TailEngine` at the
    same Δ to take over (its ``sieve`` argument) instead of sieving again."""
    _, modulus, tau, bits = quadrature_plan(lattice, accuracy)
    sieve = sieve_nodes(lattice.groups, modulus, tau)
    return sieve, int(sieve.nodes.size) * bits


class TailEngine:
    """Tail probabilities of S = Σ a_i X_i to absolute accuracy ``accuracy`` (Δ), for any threshold.

    The expensive part — sieving and evaluating φ_S at the surviving nodes —
    is done once in the constructor; each threshold then costs one pass over
    the surviving nodes.

    Parameters
    ----------
    mechanisms : ``(rho, weight)`` pairs (see :mod:`accountlib.engine.lattice`) or a :class:`~accountlib.engine.lattice.Lattice`.
    accuracy : the absolute accuracy Δ ∈ [1e-300, 1) asked of every tail probability.
    paths : the evaluation paths allowed (:class:`~accountlib.engine.results.EvaluationPaths`): the method
        (``"sieve"`` or the sieve paper's ``"paper"``), the float64 nodes and the double-double sums.
    max_node_bits : the largest arb workload accepted (default :data:`MAX_NODE_BITS`); an estimate beyond
        :data:`ESTIMATE_MARGIN` times it is refused before the sieve runs.
    sieve : a :class:`~accountlib.engine.sieve.SieveResult` already computed for this lattice at this Δ (the one
        ``engine="auto"`` runs to decide, :func:`sieve_node_bits`): used instead of sieving again when its N and τ
        are this engine's.
    """

    def __init__(self, mechanisms, accuracy: float, *, paths: EvaluationPaths = DEFAULT_PATHS,
                 max_node_bits: int | None = None, sieve: SieveResult | None = None):
        if not isinstance(paths, EvaluationPaths):
            raise ValueError(f"paths must be an EvaluationPaths (accountlib.engine.results); got {paths!r}")
        if isinstance(accuracy, bool) or not isinstance(accuracy, (int, float)) or not SMALLEST_ACCURACY <= accuracy < 1:
            raise ValueError(f"accuracy must be a number in [{SMALLEST_ACCURACY:g}, 1); got {accuracy!r}")
        limit = _max_node_bits(max_node_bits)
        started = time.perf_counter()
        self.lattice: Lattice = mechanisms if isinstance(mechanisms, Lattice) else lattice_of(mechanisms)
        check_lattice_size(self.lattice)
        self.accuracy = float(accuracy)
        self.paths = paths
        self.method = paths.method
        self.variance_proxy = self.lattice.variance_proxy
        self.cut, self.modulus, self.tau, self.bits = quadrature_plan(self.lattice, self.accuracy)  # U, N, τ, bits
        self.truncation_bound = truncation_mass_bound(self.variance_proxy, self.cut)
        if self.method == "sieve":
            refuse_before_sieve(self.lattice, self.accuracy, limit)  # seconds and gigabytes for such lattices
            if sieve is not None and (sieve.modulus, sieve.tau) == (self.modulus, self.tau):
                self.sieve: SieveResult = sieve  # the sieve engine="auto" ran to decide, handed on
            else:
                self.sieve = sieve_nodes(self.lattice.groups, self.modulus, self.tau)
            self.nodes = self.sieve.nodes
            work = int(self.nodes.size) * self.bits
            if work > limit:
                raise ResourceLimitError(
                    f"Δ = {self.accuracy:.3g} needs {self.nodes.size} quadrature nodes at {self.bits} bits "
                    f"({work:.3g} node-bits, about {work * 10 // 8 // 2**20} MB), above the limit of {limit:.3g}; "
                    f"loosen the tolerance or raise ACCOUNTLIB_MAX_NODE_BITS")
        else:
            self.nodes = scan_nodes(self.lattice.groups, self.modulus, self.tau)
            self.sieve = SieveResult(nodes=self.nodes, modulus=self.modulus, tau=self.tau,
                                     per_factor_count=int(self.nodes.size), product_count=int(self.nodes.size))
        self._prepare_weights()
        self.build_seconds = time.perf_counter() - started

    # -- construction -------------------------------------------------------------------

    def _phi(self, k: int) -> arb:
        """Certified φ_S(2πk/N) = Π_g φ_{σ_g}(2π c_g k/N)^{n_g}."""
        value = arb(1)
        for (sigma2, c), n in self.lattice.groups:
            if self.method == "paper":
                factor = characteristic.cf_direct_paper(c * k, self.modulus, sigma2)
            else:
                factor = characteristic.cf_lattice(c * k, self.modulus, sigma2)
            value *= factor**n
        return value

    def _prepare_weights(self):
        """Split the surviving nodes k ≥ 1 into three sets and precompute their weights.

        With w_k = φ_S(ζ_k)/(N sin(πk/N)) the tail is
        P(lo ≤ S_L ≤ U) ≈ φ_S(0)(U − lo + 1)/N + Σ_k w_k [sin(πk(2U+1)/N) − sin(πk(2lo−1)/N)].

        * nodes whose |φ_S| is certified ≤ τ are dropped (covered by the sieve's error term);
        * nodes whose whole contribution is below Δ/16 even with float64 errors are summed in
          float64, vectorised over thresholds, and their rigorous error bound is added;
        * the rest are evaluated and summed in arb balls.

        The float path needs every σ² ≥ 1/2 (the census has σ² ≥ 2.5); otherwise, and for
        ``paths.method == "paper"`` or ``paths.float_nodes=False``, every node goes through arb.
        """
        n = self.modulus
        ks = self.nodes[self.nodes > 0].astype(np.int64)
        self._float_k = np.zeros(0, dtype=np.int64)
        self._float_w = np.zeros(0)
        self._float_a = np.zeros(0)
        self._float_error = 0.0
        arb_k = ks
        if self.method == "sieve" and self.paths.float_nodes and ks.size and all(s2 >= characteristic.SMALLEST_SIGMA2 for (s2, _), _ in self.lattice.groups):
            log_phi = np.zeros(ks.size)
            log_error = np.zeros(ks.size)
            for (sigma2, c), mult in self.lattice.groups:
                value, error = characteristic.log_cf(np.mod(ks * (c % n), n), n, sigma2)
                log_phi += mult * value
                log_error += mult * error
            relative = np.expm1(log_error)  # |φ_float/φ − 1| ≤ relative
            useful = log_phi + np.log1p(relative) > math.log(self.tau)
            log_w = log_phi - np.log(n * np.sin(np.pi * ks / n))
            w_upper = np.exp(log_w) * (1 + relative)
            # float64 error of one term w·(A − sin): 2|w|·rel (value) + |w|·1e-14 (sines, products); the dot
            # product over m terms adds γ_m·2Σ|w| (Higham, Thm 3.1), γ_m = mu/(1 − mu), u = 2^-53.
            gamma = ks.size * 2.0**-53 / (1 - ks.size * 2.0**-53)
            cost = w_upper * (2 * relative + 1e-14 + 2 * gamma)
            order = np.argsort(w_upper)
            candidates = order[useful[order]]
            budget = np.cumsum(cost[candidates])
            chosen = candidates[budget <= self.accuracy / 16]
            self._float_k = ks[chosen]
            self._float_w = np.exp(log_w[chosen])
            self._float_a = np.sin(np.pi * np.mod(self._float_k * (2 * self.cut + 1), 2 * n) / n)
            self._float_error = float(budget[chosen.size - 1]) * (1 + 1e-9) if chosen.size else 0.0
            keep = np.ones(ks.size, dtype=bool)
            keep[chosen] = False
            keep &= useful
            arb_k = ks[keep]
        self.dropped_after_evaluation = int(ks.size - arb_k.size - self._float_k.size)
        with arithmetic.precision(self.bits):
            weights, constant = [], arb(0)
            self.phi0 = arb(1)  # φ_S(0) = 1 exactly
            for k in arb_k.tolist():
                w = self._phi(k) / (n * arb.sin_pi_fmpq(fmpq(k, n)))
                weights.append((k, w))
                constant += w * arb.sin_pi_fmpq(fmpq((k * (2 * self.cut + 1)) % (2 * n), n))
            self._weights = weights
            self._constant = constant
            self._prepare_double_double(weights)

    def _prepare_double_double(self, weights) -> None:
        """Double-double copies of the arb weights, used per threshold when their error fits in Δ/64.

        The error of one threshold's moving sum Σ w_k sin(π m_k/N) is then at most
        Σ_k err(w_k) + Σ_k |w_k| (sine error + product error + levels × addition error): ``_dd_error``
        holds everything but the levels term, which depends on the block and is added per call.
        """
        self._dd = None
        if not weights or not self.paths.double_double:
            return
        parts = [arithmetic.from_arb(w) for _, w in weights]
        hi = np.array([p[0] for p in parts])
        lo = np.array([p[1] for p in parts])
        represent = math.fsum(p[2] for p in parts)
        magnitude = float(np.sum(np.abs(hi))) * (1 + 1e-12) + 1e-300
        levels = math.ceil(math.log2(len(weights) + 1)) + 1
        error = (represent + magnitude * (arithmetic.SineTable.ERROR + arithmetic.MUL_ERROR * 1.01 + levels * arithmetic.ADD_ERROR * 1.01)) * 1.01
        if error > self.accuracy / 64 or self.modulus >= 2**31:
            return  # too coarse for this Δ (or k·s could overflow int64): thresholds go through arb
        self._dd = {"k": np.array([k for k, _ in weights], dtype=np.int64), "hi": hi, "lo": lo, "error": error,
                    "sines": arithmetic.SineTable(self.modulus)}

    # -- evaluation ---------------------------------------------------------------------

    @property
    def node_summary(self) -> dict:
        """N, U, τ and node counts (for reports)."""
        return {
            "U": self.cut,
            "N": self.modulus,
            "tau": self.tau,
            "per_factor_nodes": self.sieve.per_factor_count,
            "nodes": int(self.nodes.size),
            "arb_nodes": len(self._weights),
            "float_nodes": int(self._float_k.size),
            "groups": len(self.lattice.groups),
            "build_seconds": self.build_seconds,
        }

    def integrand_at_nodes(self) -> tuple[np.ndarray, np.ndarray]:
        """(ζ_k, log10|φ_S(ζ_k)|) at the surviving nodes, from the certified values (for plots)."""
        zetas, logs = [], []
        with arithmetic.precision(self.bits):
            for k in self.nodes.tolist():
                value = abs(self._phi(int(k)).mid())
                zetas.append(2 * math.pi * k / self.modulus)
                logs.append(float(value.log() / arb(10).log()) if value > 0 else -math.inf)
        return np.array(zetas), np.array(logs)

    def tail_index(self, lo: int) -> TailResult:
        """P(S_L ≥ lo) with its certified error bound."""
        return self.tail_indices([lo])[0]

    def tail_indices(self, indices) -> list[TailResult]:
        """P(S_L ≥ lo) for every lo in ``indices``, each with its certified error bound.

        The float64 part of the sum is vectorised over all thresholds at once.
        """
        los = [int(lo) for lo in indices]
        cut, n = self.cut, self.modulus
        inside = [lo for lo in los if -cut < lo <= cut]
        float_parts = self._float_parts(inside)
        moving_parts = self._moving_parts_double_double(inside) if self._dd is not None else {}
        results = []
        for lo in los:
            if lo > cut or lo <= -cut:  # entirely in a truncated tail: 0 or 1, within the sub-Gaussian bound
                bound = truncation_tail_bound(self.variance_proxy, lo - 1 if lo > cut else -lo)
                results.append(TailResult(mpmath.mpf(0 if lo > cut else 1), bound, lo,
                                          ErrorBudget(truncation=bound), "closed form"))
                continue
            with arithmetic.precision(self.bits):
                total = self._constant + self.phi0 * (cut - lo + 1) / n + arb(float_parts[lo])
                shift = 2 * lo - 1
                dd_bound = 0.0
                if lo in moving_parts:
                    high, low, dd_bound = moving_parts[lo]
                    moving = arithmetic.add_error(arb(high) + arb(low), dd_bound)  # carried inside the ball
                else:
                    moving = arb(0)
                    for k, w in self._weights:
                        moving += w * arb.sin_pi_fmpq(fmpq((k * shift) % (2 * n), n))
                total -= moving
                rounding = float(total.rad())
                digits = int(self.bits * 0.30103) + 5
                with mpmath.workdps(digits):  # never round to the caller's (default 15-digit) precision
                    value = mpmath.mpf(total.mid().str(digits, radius=False))
            error = 3 * self.truncation_bound + self.tau * (cut - lo + 1) + self._float_error + rounding
            budget = ErrorBudget(truncation=mpmath.mpf(self.truncation_bound), aliasing=2 * mpmath.mpf(self.truncation_bound),
                                 sieve=mpmath.mpf(self.tau) * (cut - lo + 1), float_path=mpmath.mpf(self._float_error),
                                 double_double=mpmath.mpf(dd_bound), rounding=mpmath.mpf(rounding))
            results.append(certified(value, lo, budget, "untilted", bound=error * (1 + 1e-12)))
        return results

    def _moving_parts_double_double(self, los: list[int], chunk: int = 2_000_000) -> dict:
        """lo → (hi, lo, error) of Σ_k w_k sin(πk(2lo − 1)/N) over the arb nodes, in double-double."""
        if not los:
            return {}
        n, dd = self.modulus, self._dd
        ks = dd["k"]
        out = {}
        step = max(1, chunk // ks.size)
        for start in range(0, len(los), step):
            block = los[start:start + step]
            shifts = np.array([2 * lo - 1 for lo in block], dtype=np.int64) % (2 * n)
            m = np.mod(np.multiply.outer(ks, shifts), 2 * n)  # k·s < 2N·N/2 < 2^63
            sh, sl = dd["sines"].sin(m)
            th, tl = arithmetic.mul(dd["hi"][:, None], dd["lo"][:, None], sh, sl)
            high, low, _ = arithmetic.column_sums(th, tl)
            for lo, h, l in zip(block, high.tolist(), low.tolist()):
                out[lo] = (h, l, dd["error"])
        return out

    def _float_parts(self, los: list[int], chunk: int = 4_000_000) -> dict:
        """Σ_{k∈F} w_k [sin(πk(2U+1)/N) − sin(πk(2lo−1)/N)] in float64 for each lo (F: the float nodes)."""
        if not los or self._float_k.size == 0:
            return {lo: 0.0 for lo in los}
        n = self.modulus
        shifts = np.array([2 * lo - 1 for lo in los], dtype=np.int64)
        out = {}
        step = max(1, chunk // self._float_k.size)
        for start in range(0, len(los), step):
            block = shifts[start:start + step]
            angles = np.mod(np.multiply.outer(self._float_k, block), 2 * n)
            # an elementwise product and a column sum, not a BLAS product: the summation order (and so
            # every bit of the result) is then the same whatever the number of BLAS threads
            values = np.sum(self._float_w[:, None] * (self._float_a[:, None] - np.sin(np.pi * angles / n)), axis=0)
            out.update(zip(los[start:start + step], values.tolist()))
        return out

    def tail(self, t) -> TailResult:
        """P(S > t) for a real threshold t (given exactly: int, Fraction, decimal string)."""
        return self.tail_index(threshold_index(as_fraction(t, "t", floats="decimal"), self.lattice.scale))
