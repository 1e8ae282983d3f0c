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

Three modules, by job: this one holds what they share (the step groups and their accepted ranges, the rounding
model's constants, the certified results :class:`ProfileBound` and :class:`InversionBudget`) and the closed form of a
single step (:func:`one_step_profile`, in arb ball arithmetic); :mod:`.subsampled_gaussian_integral` the one-step
integral G(w) with its error bounds (§1, §4); :mod:`.subsampled_gaussian_inversion` the composed inversion (§2–§5,
:func:`~accountlib.engine.subsampled_gaussian_inversion.certified_profile`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from ..infrastructure.numbers import as_fraction

__all__ = ["StepGroup", "InversionBudget", "ProfileBound", "one_step_profile", "loss_supremum", "dyadic_step",
           "gaussian_tradeoff",
           "UNIT_ROUNDOFF", "KAPPA", "Q_RANGE", "Z_RANGE", "STEPS_RANGE", "ONE_STEP_BITS",
           "gaussian_profile"]

UNIT_ROUNDOFF = 2.0**-53
"""u = 2^-53, the unit roundoff of float64."""
KAPPA = 16.0
"""The rounding model's constant: an elementary float64 operation (real or complex +, ×, exp, log) returns its exact
result on its float inputs with an absolute error at most κu times the magnitudes that enter it (u = 2^-53)."""

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


def dyadic_step(h: float) -> float:
    """The largest m·2^-e ≤ h with 8 ≤ m < 16 an integer: a step whose multiples jh are exact floats.

    Parameters
    ----------
    h : float
        A positive step.

    Returns
    -------
    float
        The dyadic step, in (h/2, h].

    >>> dyadic_step(0.1), dyadic_step(1.0)
    (0.09375, 1.0)
    """
    e = math.floor(math.log2(h)) - 3
    m = math.floor(h / 2.0**e)
    while m >= 16:
        e += 1
        m = math.floor(h / 2.0**e)
    return m * 2.0**e


# -- the certified results ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InversionBudget:
    """The terms of a certified δ's error bound (mpf numbers, absolute).

    * ``aliasing`` — the images of the trapezoidal rule on the vertical line (one-sided: they only add);
    * ``truncation`` — the nodes beyond the last one computed, bounded by the modulus bound B;
    * ``quadrature`` — the one-step integrals' discretisation, tails and float64 sums, propagated through the powers
      T_g (this term sets the floor of the relative accuracy, about T·1e-13);
    * ``rounding`` — float64 rounding of every node, power, phase and sum (the rounding model, :mod:`.subsampled_gaussian` §5).
    """

    aliasing: mpmath.mpf
    truncation: mpmath.mpf
    quadrature: mpmath.mpf
    rounding: mpmath.mpf

    @property
    def total(self) -> mpmath.mpf:
        """The sum of the four terms: the error bound they certify together."""
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
        """The interval's midpoint, (lower + upper)/2."""
        with mpmath.workdps(30):
            return (self.lower + self.upper) / 2

    @property
    def error_bound(self) -> mpmath.mpf:
        """The interval's half-width: the truth lies within it of :attr:`value`."""
        with mpmath.workdps(30):
            return (self.upper - self.lower) / 2


def loss_supremum(groups, direction: str) -> float:
    """The largest value the composed privacy loss can take (+inf when unbounded): for the add direction
    Σ T_g·(−log(1 − q_g)) when every q_g < 1, since the loss −log r(x) < −log(1 − q) for every x."""
    if direction == "remove" or any(g.q >= 1 for g in groups):
        return math.inf
    return math.fsum(g.steps * -math.log1p(-g.q) for g in groups)


ONE_STEP_BITS = (256, 1024, 4096)
"""The arb working precisions :func:`one_step_profile` tries in turn, until its ball is narrow enough."""


def one_step_profile(q: float, z: float, epsilon, direction: str) -> ProfileBound:
    """δ(ε) of a single step (T = 1) of one direction in closed form, certified in arb ball arithmetic: the loss is
    monotone in x, so {L > ε} is a half-line {x > x_ε} (remove) or {x < x_ε} (add), and

        remove: δ = (1 − q)Φ̄(x_ε/z) + qΦ̄((x_ε − 1)/z) − e^ε Φ̄(x_ε/z),  x_ε = z² log((e^ε − 1 + q)/q) + 1/2;
        add:    δ = Φ(x_ε/z) − e^ε [(1 − q)Φ(x_ε/z) + qΦ((x_ε − 1)/z)],  x_ε = z² log((e^{−ε} − (1 − q))/q) + 1/2,

    (δ = 0 for the add direction when e^{−ε} ≤ 1 − q: its loss never exceeds −log(1 − q)). At q = 1 both are the
    Gaussian mechanism's δ = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), μ = 1/z (Balle & Wang 2018, Thm 8), for every ε.
    q, z and ε are taken exactly (floats, or an mpf ε). The add direction's e^{−ε} − (1 − q) is formed with 1 − q
    exact, so that it keeps its relative accuracy where it is tiny (q = 1 and a large ε: it is e^{−ε}); the ball is
    recomputed at more working bits (:data:`ONE_STEP_BITS`) while it is wider than 1e-45 relative.

    Parameters
    ----------
    q, z : float
        The sampling rate and the noise multiplier (checked as by :class:`StepGroup`).
    epsilon : float or mpf
        ε ≥ 0, exactly (a negative, infinite or nan ε is refused in one line).
    direction : str
        "remove" or "add".

    Returns
    -------
    ProfileBound
        The ball's ends as mpf numbers, widened past their decimal conversion. ``ArithmeticError`` only where ε lies
        within 4096 bits of the add direction's largest loss −log(1 − q), which no float ε does in practice.

    >>> b = one_step_profile(0.3, 1.0, 0.5, "remove")
    >>> 0 < b.lower <= b.upper and b.upper - b.lower < 1e-50
    True
    >>> gaussian = one_step_profile(1.0, 1.0, 199.0, "add")  # q = 1: no largest loss, δ ≈ 1.5e-8602
    >>> 0 < gaussian.lower and gaussian.upper - gaussian.lower < 1e-45 * gaussian.upper
    True
    """
    StepGroup(q, z, 1)
    return _closed_form(float(q), as_fraction(float(z), "z", floats="binary") ** 2, epsilon, direction)  # z as it is


def gaussian_profile(z_squared: Fraction, epsilon, direction: str = "remove") -> ProfileBound:
    """δ(ε) of a run whose every step has q = 1, in closed form: T_g steps of N(0, z_g²) noise compose to the Gaussian
    mechanism of μ² = Σ_g T_g/z_g², whose δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm 8) is
    :func:`one_step_profile` at q = 1 with z² = 1/μ², here taken exactly (a Fraction, not a float z). Both directions
    have this profile (N(0, 1) against N(μ, 1) is the reflection of N(μ, 1) against N(0, 1)).

    >>> b = gaussian_profile(Fraction(1, 4), 1.0)  # four steps at z = 1: μ = 2
    >>> 0.5098 < b.lower <= b.upper < 0.5099
    True
    """
    if not isinstance(z_squared, Fraction) or z_squared <= 0:
        raise ValueError(f"z_squared must be a positive Fraction; got {z_squared!r}")
    return _closed_form(1.0, z_squared, epsilon, direction)


def gaussian_tradeoff(z_squared: Fraction, alpha: Fraction) -> tuple:
    """(lower, upper), mpf numbers bracketing β = f(α) of a run whose every step has q = 1: the Gaussian mechanism of
    μ² = Σ_g T_g/z_g² = 1/z², whose trade-off function is f(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, Def. 2.7),
    in ball arithmetic (Φ⁻¹(1 − α) = √2·erfcinv(2α)), α in (0, 1) exactly. Certified at every α and μ, however small
    β is (2.75e-89 at α = 1/2, μ = 20).

    >>> lo, hi = gaussian_tradeoff(Fraction(1), Fraction(1, 2))  # μ = 1: Φ(−1) = 0.158655253931457...
    >>> 0.1586552539314 < lo <= hi < 0.1586552539315 and hi - lo < 1e-40
    True
    """
    from flint import arb

    from . import arithmetic

    if not isinstance(z_squared, Fraction) or z_squared <= 0:
        raise ValueError(f"z_squared must be a positive Fraction; got {z_squared!r}")
    if not isinstance(alpha, Fraction) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a Fraction in (0, 1); got {alpha!r}")
    for bits in (256, 1024, 4096):
        with arithmetic.precision(bits):
            mu = 1 / arithmetic.arb_fraction(z_squared).sqrt()
            root2 = arb(2).sqrt()
            quantile = root2 * (2 * arithmetic.arb_fraction(alpha)).erfcinv()
            beta = ((mu - quantile) / root2).erfc() / 2
            if beta.is_finite() and beta.rad() <= abs(beta.mid()) * arb(10) ** -45:
                break
    with arithmetic.precision(bits), mpmath.workdps(70):  # the ball's ends, widened past the decimal conversion
        lo = mpmath.mpf(beta.lower().str(60, radius=False))
        hi = mpmath.mpf(beta.upper().str(60, radius=False))
        lo, hi = lo - abs(lo) * mpmath.mpf(10) ** -55, hi + abs(hi) * mpmath.mpf(10) ** -55
        return max(lo, mpmath.mpf(0)), hi


def _closed_form(q: float, z_squared: Fraction, epsilon, direction: str) -> ProfileBound:
    """:func:`one_step_profile` with z² exact, the precision raised until the ball is narrow."""
    if direction not in ("remove", "add"):
        raise ValueError(f"direction must be 'remove' or 'add'; got {direction!r}")
    exact_eps = mpmath.mpf(epsilon) if isinstance(epsilon, (int, float)) else epsilon
    if not (isinstance(exact_eps, mpmath.mpf) and mpmath.isfinite(exact_eps) and exact_eps >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0 (this closed form is δ(ε) on ε ≥ 0; the profile at "
                         f"ε < 0 is 1 − e^ε + e^ε δ_other(−ε), not computed here); got {epsilon!r}")
    man, exp = exact_eps.man_exp  # ε exactly, as a dyadic rational
    for bits in ONE_STEP_BITS:
        value = _one_step_ball(q, z_squared, int(man), int(exp), direction, bits)
        if value is None:
            zero = mpmath.mpf(0)
            return ProfileBound(float(epsilon), direction, zero, zero, InversionBudget(zero, zero, zero, zero), 0)
        if value is not _UNDECIDED and (value.rad() <= abs(value.mid()) * 1e-45 or value.rad() == 0):
            break
    else:
        if value is _UNDECIDED:
            raise ArithmeticError(f"epsilon = {mpmath.nstr(exact_eps, 17)} lies within 2^-{ONE_STEP_BITS[-1]} of the "
                                  f"add direction's largest loss −log(1 − q) (q = {q!r}): δ there is too small to "
                                  "certify in closed form")
    from . import arithmetic

    with arithmetic.precision(bits), mpmath.workdps(70):  # the ball's ends, widened past the decimal conversion
        lo = mpmath.mpf(value.lower().str(60, radius=False))
        hi = mpmath.mpf(value.upper().str(60, radius=False))
        lo, hi = lo - abs(lo) * mpmath.mpf(10) ** -55, hi + abs(hi) * mpmath.mpf(10) ** -55
        lo, hi = max(lo, mpmath.mpf(0)), min(hi, mpmath.mpf(1))
        zero = mpmath.mpf(0)
        return ProfileBound(float(epsilon), direction, lo, hi, InversionBudget(zero, zero, zero, (hi - lo) / 2), 0)


_UNDECIDED = object()


def _one_step_ball(q: float, z_squared: Fraction, man: int, exp: int, direction: str, bits: int):
    """:func:`one_step_profile`'s ball at ``bits`` working bits (ε = man·2^exp): an arb, None where the add direction's
    δ is 0, or ``_UNDECIDED`` where the sign of e^{−ε} − (1 − q) is not decided at this precision."""
    from flint import arb

    from . import arithmetic

    with arithmetic.precision(bits):
        qa, za = arb(q), arithmetic.arb_fraction(z_squared).sqrt()
        eps = arb(man) * arb(2) ** exp if exp >= 0 else arb(man) / arb(2) ** (-exp)
        root2 = arb(2).sqrt()

        def upper_tail(t):
            return (t / root2).erfc() / 2

        def lower_tail(t):
            return (-t / root2).erfc() / 2

        if direction == "remove":
            t = eps.exp() - 1 + qa
            x = za * za * (t / qa).log() + arb(1) / 2
            return (1 - qa) * upper_tail(x / za) + qa * upper_tail((x - 1) / za) - eps.exp() * upper_tail(x / za)
        t = (-eps).exp() - (1 - qa)  # 1 − q is exact (a float q ≥ 1e-8 needs at most 80 bits)
        if t.upper() <= 0:
            return None
        if not t > 0:
            return _UNDECIDED
        x = za * za * (t / qa).log() + arb(1) / 2
        return lower_tail(x / za) - eps.exp() * ((1 - qa) * lower_tail(x / za) + qa * lower_tail((x - 1) / za))
