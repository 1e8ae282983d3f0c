"""Float64 log-characteristic functions with rigorous error bounds (private helper of ``tails``).

Most surviving quadrature nodes carry an integrand far below 1 — a few digits
above the sieve threshold. Their contribution to a tail probability needs only
a relative accuracy of ~1e-12, which float64 delivers at a fraction of the cost
of arb, *provided* the error is bounded rigorously. That is what this module
does, for factors with σ² ≥ 1/2 (the dual form is then a sum of a handful of
positive terms, so φ > 0 and there is no cancellation):

    log φ_σ(2πx) = −a x² + log1p(Σ_{0<|u|≤3} e^{−a(u² − 2xu)}) − log(1 + 2Σ_{1≤u≤3} e^{−au²}),

a = 2π²σ², x = r/N ∈ [−1/2, 1/2] reduced exactly from the integer residue r.
The returned error bound covers the rounding of x, a, the exponentials and the
logarithms (each a few ulps, counted generously as 2e-15·(|a x²| + 1)) and the
neglected terms |u| ≥ 4 (≤ 2e^{−12a} relative, a ≥ π²).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

SMALLEST_SIGMA2 = Fraction(1, 2)


def log_cf(residues: np.ndarray, modulus: int, sigma2: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """(log φ_σ(2π r/N), an upper bound on its absolute error) for integer residues r (σ² ≥ 1/2)."""
    if sigma2 < SMALLEST_SIGMA2:
        raise ValueError("the float path needs sigma2 >= 1/2")
    r = np.mod(residues, modulus)
    r = np.where(2 * r > modulus, r - modulus, r).astype(float)
    x = r / modulus
    a = 2 * math.pi**2 * float(sigma2)
    main = -a * x * x
    rest = np.zeros_like(x)
    for u in (1, 2, 3):
        rest += np.exp(-a * (u * u - 2 * x * u)) + np.exp(-a * (u * u + 2 * x * u))
    denominator = math.log1p(2 * sum(math.exp(-a * u * u) for u in (1, 2, 3)))
    value = main + np.log1p(rest) - denominator
    error = 2e-15 * (np.abs(main) + 1.0) + 4 * math.exp(-12 * a)
    return value, error
