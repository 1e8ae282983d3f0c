"""General pairs (P, Q) on a lattice: one-sided curves, trade-off functions, PLD, RDP — and the recoveries.

The unifying paper's Theorem 2.1: for a fixed ordered pair, the pair of one-sided (ε, δ)
curves, the pair of trade-off functions, the law of the extended privacy loss under P and
(when finite at some order > 1) the RDP curve carry the same information. Here each
notion is computed *exactly* (``Fraction`` arithmetic) for pairs with finitely many atoms,
where either measure may put mass outside the other's support, and each recovery of the
theorem is a function:

* :func:`curves_from_pld`      PLD → both one-sided curves (the formula of App. A.1),
* :func:`pld_from_tradeoff`    trade-off function → PLD (slopes are likelihood ratios),
* :func:`tradeoff_from_curves` one-sided curves → trade-off function (convex conjugate),
* :func:`pld_from_renyi`       RDP moments at orders 2, …, 2J+1 → PLD (Prony's method, exact).

Likelihood ratios are kept as ratios r = dP/dQ ∈ [0, ∞] (``math.inf`` where Q has no mass);
the privacy loss is log r. ``delta_at_ratio(r)`` is δ at ε = log r, exact for rational r.
Example 2.3 and the zeta pair of Example 2.2 are built by :func:`example_2_3` and
:func:`zeta_pair`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from ..infrastructure.numbers import as_fraction

__all__ = ["LatticePair", "curves_from_pld", "pld_from_tradeoff", "tradeoff_from_curves", "pld_from_renyi",
           "example_2_3", "zeta_pair", "check_zeta_w"]

INF = math.inf


def _mass(value, name):
    value = as_fraction(value, name, floats="binary")
    if value < 0:
        raise ValueError(f"{name} must be nonnegative; got {value}")
    return value


@dataclass(frozen=True)
class LatticePair:
    """An ordered pair of distributions on finitely many outputs, given as dicts output → mass (exact)."""

    p: dict
    q: dict

    def __post_init__(self):
        for name, masses in (("P", self.p), ("Q", self.q)):
            if not masses:
                raise ValueError(f"{name} must have at least one atom")
            total = sum(_mass(v, f"{name} masses") for v in masses.values())
            if total != 1:
                raise ValueError(f"{name} masses must sum to 1; they sum to {total}")

    @property
    def support(self) -> list:
        """The outputs with positive mass under P or Q, sorted."""
        return sorted(set(self.p) | set(self.q), key=repr)

    def reverse(self) -> "LatticePair":
        """The pair (Q, P)."""
        return LatticePair(self.q, self.p)

    def delta_at_ratio(self, r) -> Fraction:
        """δ_{P‖Q}(log r) = sup_A P(A) − r·Q(A) = Σ_x (p(x) − r q(x))_+ (exact for rational r ≥ 0)."""
        r = Fraction(r)
        return sum((max(Fraction(0), Fraction(self.p.get(x, 0)) - r * Fraction(self.q.get(x, 0))) for x in self.support),
                   Fraction(0))

    def delta(self, epsilon: float) -> float:
        """δ_{P‖Q}(ε) in floating point, any real ε."""
        growth = math.exp(epsilon)
        return float(sum(max(0.0, float(self.p.get(x, 0)) - growth * float(self.q.get(x, 0))) for x in self.support))

    def pld(self) -> list[tuple]:
        """The law of the likelihood ratio r = dP/dQ under P: sorted (r, P-mass) atoms, r = inf where q = 0."""
        atoms: dict = {}
        for x, mass in self.p.items():
            mass = Fraction(mass)
            if mass == 0:
                continue
            qx = Fraction(self.q.get(x, 0))
            r = INF if qx == 0 else mass / qx
            atoms[r] = atoms.get(r, Fraction(0)) + mass
        return sorted(atoms.items(), key=lambda item: item[0])

    def tradeoff_vertices(self) -> list[tuple[Fraction, Fraction]]:
        """Vertices (α, β) of T_{P,Q}: Neyman–Pearson tests reject P on outputs in decreasing order of q/p."""
        groups: dict = {}
        for x in self.support:
            px, qx = Fraction(self.p.get(x, 0)), Fraction(self.q.get(x, 0))
            key = INF if px == 0 else qx / px  # Q-only outputs are rejected first: power at no cost
            a, b = groups.get(key, (Fraction(0), Fraction(0)))
            groups[key] = (a + px, b + qx)
        alpha, beta = Fraction(0), Fraction(1)
        vertices = [(alpha, beta)]
        for key in sorted(groups, reverse=True):
            dp, dq = groups[key]
            alpha, beta = alpha + dp, beta - dq
            vertices.append((alpha, beta))
        return vertices

    def tradeoff(self, alpha) -> Fraction:
        """T_{P,Q}(α), exact: linear interpolation between the Neyman–Pearson vertices."""
        alpha = Fraction(alpha)
        if not 0 <= alpha <= 1:
            raise ValueError(f"alpha must lie in [0, 1]; got {alpha}")
        vertices = self.tradeoff_vertices()
        values = [b1 if a1 == a0 else b0 + (b1 - b0) * (alpha - a0) / (a1 - a0)
                  for (a0, b0), (a1, b1) in zip(vertices, vertices[1:]) if a0 <= alpha <= a1]
        return min(values)  # a vertical first segment (Q-only outputs) makes T(0) its lower end

    def renyi_moment(self, order: int) -> Fraction | float:
        """exp((α − 1)D_α(P‖Q)) = Σ_x p^α q^{1−α} for an integer order α ≥ 2 (inf if P is not ≪ Q)."""
        if int(order) != order or order < 2:
            raise ValueError(f"order must be an integer >= 2; got {order!r}")
        total = Fraction(0)
        for x, mass in self.p.items():
            mass = Fraction(mass)
            if mass == 0:
                continue
            qx = Fraction(self.q.get(x, 0))
            if qx == 0:
                return INF
            total += mass**order / qx ** (order - 1)
        return total


def curves_from_pld(pld, r) -> tuple[Fraction, Fraction]:
    """(δ_{P‖Q}(log r), δ_{Q‖P}(log r)) from the PLD alone (App. A.1).

    δ_{P‖Q} = E_P[(1 − r/R)_+]; Q's mass is e^{−L}dP on {L > −∞} plus an atom where P has
    none, whose size is 1 − E_P[1/R]; δ_{Q‖P} = E_Q[(1 − rR)_+].
    """
    r = Fraction(r)
    forward = sum((m * max(Fraction(0), 1 - (0 if ratio == INF else r / ratio)) for ratio, m in pld), Fraction(0))
    q_mass_seen = sum((m / ratio for ratio, m in pld if ratio != INF), Fraction(0))
    reverse = sum((m / ratio * max(Fraction(0), 1 - r * ratio) for ratio, m in pld if ratio != INF), Fraction(0))
    reverse += 1 - q_mass_seen  # outputs with p = 0: the test "reject P there" costs nothing
    return forward, reverse


def pld_from_tradeoff(vertices) -> list[tuple]:
    """The PLD from the vertices of T_{P,Q}: a segment with α-increment ΔP and β-decrement ΔQ is an atom
    of P-mass ΔP at likelihood ratio ΔP/ΔQ (inf when ΔQ = 0)."""
    atoms: dict = {}
    for (a0, b0), (a1, b1) in zip(vertices, vertices[1:]):
        dp, dq = a1 - a0, b0 - b1
        if dp == 0:
            continue
        ratio = INF if dq == 0 else dp / dq
        atoms[ratio] = atoms.get(ratio, Fraction(0)) + dp
    return sorted(atoms.items(), key=lambda item: item[0])


def tradeoff_from_curves(delta_forward, delta_reverse, alpha: float, *, ratios=None) -> float:
    """T_{P,Q}(α) from the two one-sided curves, given as functions of the ratio r = e^ε.

    A test with errors (α, β) satisfies E_Q φ ≤ r·E_P φ + δ_{Q‖P}(log r), so
    T_{P,Q}(α) = sup_{r>0} [1 − δ_{Q‖P}(log r) − rα] (convex conjugate; Dong, Roth & Su 2022),
    where for r < 1 the reverse curve follows from the forward one:
    δ_{Q‖P}(log r) = 1 − r + r·δ_{P‖Q}(log(1/r)). The sup runs over ``ratios`` (default: 4001
    log-spaced r in [1e-8, 1e8]); it is exact when the grid contains the pair's likelihood ratios.
    """
    ratios = np.logspace(-8, 8, 4001) if ratios is None else ratios
    best = 0.0
    for r in ratios:
        r = float(r)
        reverse = float(delta_reverse(r)) if r >= 1 else 1 - r + r * float(delta_forward(1 / r))
        best = max(best, 1 - reverse - r * float(alpha))
    return best


def pld_from_renyi(moments: list, atoms: int | None = None) -> list[tuple]:
    """Recover a PLD with finitely many finite likelihood ratios from exact RDP moments (Prony's method).

    ``moments[u]`` = E_P[R^u] = exp(u·D_{u+1}(P‖Q)) for u = 0, 1, …, 2·atoms − 1 (u = 0 is 1).
    The ratios are the roots of the polynomial whose coefficients solve the Hankel system
    (exact Fractions), found in floating point and snapped to the exact rational roots by
    checking them in the exact polynomial; the masses solve the Vandermonde system exactly.
    """
    m = [as_fraction(x, "moments", floats="binary", bounded=False) for x in moments]
    if atoms is None:  # the number of atoms is the rank of the moment Hankel matrix
        atoms = max(n for n in range(1, len(m) // 2 + 1)
                    if _determinant([[m[i + j] for j in range(n)] for i in range(n)]) != 0)
    if len(moments) < 2 * atoms:
        raise ValueError(f"need {2 * atoms} moments for {atoms} atoms; got {len(moments)}")
    n = atoms
    # Hankel system: Σ_j c_j m_{i+j} = −m_{i+n}, i = 0..n−1
    matrix = [[m[i + j] for j in range(n)] + [-m[i + n]] for i in range(n)]
    coefficients = _solve_exact(matrix)
    poly = coefficients + [Fraction(1)]  # c_0 + c_1 x + … + x^n
    roots = np.roots([float(c) for c in reversed(poly)])
    ratios = []
    for root in roots:
        guess = as_fraction(float(np.real(root)), "root", floats="binary", bounded=False).limit_denominator(10**12)
        if sum(c * guess**k for k, c in enumerate(poly)) != 0:
            raise ValueError("the recovered ratios are not rational with denominators below 1e12")
        ratios.append(guess)
    vander = [[x**u for x in ratios] + [m[u]] for u in range(n)]
    masses = _solve_exact(vander)
    return sorted(zip(ratios, masses), key=lambda item: item[0])


def _determinant(matrix) -> Fraction:
    rows = [list(r) for r in matrix]
    n, det = len(rows), Fraction(1)
    for col in range(n):
        pivot = next((i for i in range(col, n) if rows[i][col] != 0), None)
        if pivot is None:
            return Fraction(0)
        if pivot != col:
            rows[col], rows[pivot] = rows[pivot], rows[col]
            det = -det
        det *= rows[col][col]
        for i in range(col + 1, n):
            factor = rows[i][col] / rows[col][col]
            rows[i] = [a - factor * b for a, b in zip(rows[i], rows[col])]
    return det


def _solve_exact(augmented):
    """Gaussian elimination in Fractions for an n × (n+1) augmented matrix."""
    rows = [list(r) for r in augmented]
    n = len(rows)
    for col in range(n):
        pivot = next(i for i in range(col, n) if rows[i][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for i in range(n):
            if i != col and rows[i][col] != 0:
                factor = rows[i][col] / rows[col][col]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[col])]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def example_2_3(variant: str, *, cut: int = 60) -> dict:
    """The two noise laws of Example 2.3, added to a count of sensitivity 1, with exact tail sums.

    Both have q(k) = (6/11)·4^{−k} for k ≥ 0 (the shared right tail); the left tails differ:
    A: q(k) = (3/11)·2^{k}, B: q(k) = (6/11)·3^{k} for k < 0 (our reconstruction; the paper's
    display was lost — these are the unique geometric left tails that reproduce every number
    the text states). P = Law(Z + 1), Q = Law(Z).

    Returns closed-form values (``Fraction``) of δ_{P‖Q}(log r) for r ∈ [1, 4], δ_{Q‖P}(log 3)
    and exp D_2(P‖Q), computed from a finite window plus the exact geometric remainders, and the
    truncated :class:`LatticePair` on [−cut, cut] for plots.
    """
    six, three = Fraction(6, 11), Fraction(3, 11)
    if variant == "A":
        left = lambda k: three * Fraction(2) ** k  # k < 0
        left_ratio = Fraction(2)  # q(k)/q(k−1) on the left tail
    elif variant == "B":
        left = lambda k: six * Fraction(3) ** k
        left_ratio = Fraction(3)
    else:
        raise ValueError(f"variant must be 'A' or 'B'; got {variant!r}")
    q = lambda k: six * Fraction(1, 4) ** k if k >= 0 else left(k)

    def forward(r):
        # k ≥ 1: p/q = 4, so Σ_{k≥1} (q(k−1) − r q(k))_+ = (4 − r)_+ Σ_{k≥1} q(k); k ≤ 0: p ≤ q (ratios ≤ 1 there)
        r = Fraction(r)
        return max(Fraction(0), 4 - r) * six * Fraction(1, 3)

    def reverse(r):
        # δ_{Q‖P}(log r) = Σ_k (q(k) − r q(k−1))_+; on k ≥ 1 q/p = 1/4 < 1 ≤ r; k = 0 and the left tail remain
        r = Fraction(r)
        total = max(Fraction(0), q(0) - r * q(-1))
        tail_each = 1 - r / left_ratio  # q(k) − r q(k−1) = q(k)(1 − r/left_ratio) for k ≤ −1
        if tail_each > 0:
            total += tail_each * sum_left
        return total

    sum_left = Fraction(3, 11)  # Σ_{k<0} q(k) = 1 − 8/11 for both variants
    right_d2 = 16 * six * Fraction(1, 3)  # Σ_{k≥1} q(k−1)²/q(k) = 16 Σ_{k≥1} q(k)
    left_d2 = q(-1) ** 2 / q(0) + sum_left / left_ratio**2  # k = 0, then q(k−1)²/q(k) = q(k)/ratio² for k ≤ −1
    window = {k: q(k) for k in range(-cut, cut + 1)}
    rest_q = 1 - sum(window.values())
    p_window = {k: q(k - 1) for k in range(-cut + 1, cut + 2)}
    rest_p = 1 - sum(p_window.values())
    truncated = LatticePair({**p_window, "rest": rest_p}, {**window, "rest": rest_q})
    return {"forward": forward, "reverse": reverse, "exp_d2": right_d2 + left_d2, "pair": truncated,
            "q": q}


ZETA_W_RANGE = (1.0, 100.0)


def check_zeta_w(w) -> float:
    """Validate the exponent w of Example 2.2's zeta pair: a finite real with 1 < w ≤ 100.

    P{k} = k^{−w}/ζ(w) is a probability only for w > 1 (ζ diverges at 1 and is negative on (0, 1), which
    would give "probabilities" above 1); beyond 100 the pair is P{1} = 1 to every digit shown. Returns w as
    a float; raises ``ValueError`` naming ``zeta_w`` otherwise (NaN and infinities included).

    >>> check_zeta_w(3)
    3.0
    """
    import numbers

    if isinstance(w, bool) or not isinstance(w, (numbers.Real, str)):
        raise ValueError(f"zeta_w must be a real number in (1, 100]; got {w!r}")
    try:
        value = float(w)
    except (ValueError, OverflowError):
        raise ValueError(f"zeta_w must be a real number in (1, 100]; got {w!r}") from None
    low, high = ZETA_W_RANGE
    if not (math.isfinite(value) and low < value <= high):
        raise ValueError(f"zeta_w must be a real number in (1, 100] (P(k) = k^-w/zeta(w) needs w > 1); got {w!r}")
    return value


def zeta_pair(w: float = 3.0, *, dps: int = 30):
    """Example 2.2: P{k} = k^{−w}/ζ(w), Q{k} = P{k}e^{−k} (k ≥ 1), Q{∂} = 1 − Li_w(e^{−1})/ζ(w).

    The privacy loss under P is L = k with P(L = k) ∝ k^{−w}: E_P e^{tL} = ∞ for every t > 0, so every
    RDP order is infinite, yet δ_{P‖Q}(ε) = E_P[(1 − e^{ε−L})_+] is finite. Returns a function ε ↦ δ
    (mpmath, summed to ``dps`` digits with the tail bounded by ζ(w)'s tail) and Q{∂}.
    ``w`` must satisfy :func:`check_zeta_w`; the returned function accepts finite |ε| ≤ 1e5.
    """
    w = check_zeta_w(w)
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 10_000:
        raise ValueError(f"dps must be an integer in [5, 10000]; got {dps!r}")
    with mpmath.workdps(dps + 10):
        zeta = mpmath.zeta(w)
        q_boundary = 1 - mpmath.polylog(w, mpmath.e ** -1) / zeta

    def delta(epsilon):
        # δ(ε) = Σ_{k ≥ ε} P{k}(1 − e^{ε−k}) = [ζ(w) − Σ_{k<k0} k^{−w} − e^ε(Li_w(1/e) − Σ_{k<k0} k^{−w}e^{−k})]/ζ(w)
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, Fraction, mpmath.mpf)) \
                or not mpmath.isfinite(epsilon) or abs(epsilon) > 1e5:
            raise ValueError(f"epsilon must be a finite number with |epsilon| <= 1e5; got {epsilon!r}")
        with mpmath.workdps(dps + 10):
            eps = mpmath.mpf(epsilon) if not isinstance(epsilon, Fraction) else mpmath.mpf(epsilon.numerator) / epsilon.denominator
            k0 = max(1, int(mpmath.ceil(eps)))
            head = mpmath.fsum(mpmath.mpf(k) ** -w for k in range(1, k0))
            head_e = mpmath.fsum(mpmath.mpf(k) ** -w * mpmath.exp(-k) for k in range(1, k0))
            total = (zeta - head) - mpmath.exp(eps) * (mpmath.polylog(w, mpmath.e ** -1) - head_e)
            return +(total / zeta)

    return delta, q_boundary
