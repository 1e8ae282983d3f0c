"""Rational weights on a common integer lattice (Bézout scaling).

Engine layer of :mod:`accountlib`. A weighted sum S = Σ a_i X_i of integer-valued
X_i with rational weights a_i lives on the lattice (1/L)·Z with

    L = lcm(denominators of a_i) / gcd(numerators of a_i),

and c_i = a_i·L are coprime integers, so S_L = L·S = Σ c_i X_i has support
exactly Z (Bézout's identity; sieve paper §4, "lattice mapping"; book, Derivations §3).
All arithmetic is exact (``Fraction`` and ``int``).

Mechanisms are given as ``(rho, weight)`` pairs: the noise of mechanism i is
N_Z(0, 1/rho_i) and it enters the sum with weight a_i.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

from ..infrastructure.numbers import as_fraction, as_positive_fraction

__all__ = ["WeightedDiscreteGaussian", "Lattice", "as_mechanisms", "lattice_of", "threshold_index"]


@dataclass(frozen=True)
class WeightedDiscreteGaussian:
    """One term a·X of the weighted sum S = Σ a_i X_i, X ~ N_Z(0, σ² = 1/ρ) (exact ρ and weight a).

    Not a privacy mechanism object with a CGF (those are :class:`accountlib.rdp.NoiseMechanism`)."""

    rho: Fraction
    weight: Fraction

    @property
    def sigma2(self) -> Fraction:
        return 1 / self.rho


def as_mechanisms(mechanisms) -> list[WeightedDiscreteGaussian]:
    """Validate a list of ``(rho, weight)`` pairs (or :class:`WeightedDiscreteGaussian`) into exact mechanisms.

    ``rho`` must be > 0 and ``weight`` nonzero; each may be an int, ``Fraction``,
    float or a string such as ``"11/10000"``.

    >>> as_mechanisms([("11/10000", "1/2")])
    [WeightedDiscreteGaussian(rho=Fraction(11, 10000), weight=Fraction(1, 2))]
    """
    try:
        items = list(mechanisms)
    except TypeError:
        raise ValueError(f"mechanisms must be a list of (rho, weight) pairs; got {type(mechanisms).__name__}") from None
    if not items:
        raise ValueError("mechanisms must hold at least one (rho, weight) pair")
    result = []
    for index, item in enumerate(items):
        if isinstance(item, WeightedDiscreteGaussian):
            result.append(item)
            continue
        try:
            rho, weight = item
        except (TypeError, ValueError):
            raise ValueError(f"mechanisms[{index}] must be a (rho, weight) pair; got {item!r}") from None
        rho = as_positive_fraction(rho, f"mechanisms[{index}].rho")
        weight = as_fraction(weight, f"mechanisms[{index}].weight")
        if weight == 0:
            raise ValueError(f"mechanisms[{index}].weight must be nonzero")
        result.append(WeightedDiscreteGaussian(rho, weight))
    return result


@dataclass(frozen=True)
class Lattice:
    """The integer lattice of S = Σ a_i X_i.

    Attributes
    ----------
    scale : L, so that S_L = L·S = Σ c_i X_i is integer-valued with support Z.
    coefficients : the integers c_i = a_i·L (gcd 1).
    sigma2s : the σ_i² = 1/ρ_i, in the same order.
    groups : identical (σ², c) terms merged, as ``((sigma2, c), multiplicity)``
        with c > 0 (X is symmetric, so the sign of c does not matter); the
        characteristic function of S_L is Π φ_σ(cζ)^multiplicity.
    """

    scale: Fraction
    coefficients: tuple[int, ...]
    sigma2s: tuple[Fraction, ...]
    groups: tuple[tuple[tuple[Fraction, int], int], ...]

    @property
    def variance_proxy(self) -> Fraction:
        """Σ c_i² σ_i²: S_L is sub-Gaussian with this variance proxy (exact)."""
        return sum((Fraction(c * c) * s2 for c, s2 in zip(self.coefficients, self.sigma2s)), Fraction(0))


def lattice_of(mechanisms) -> Lattice:
    """Map the weighted sum of ``mechanisms`` to its integer lattice (book, Derivations §3).

    >>> lat = lattice_of([(1, "1/2"), (2, "1/3")])
    >>> lat.scale, lat.coefficients
    (Fraction(6, 1), (3, 2))
    """
    mechs = as_mechanisms(mechanisms)
    weights = [m.weight for m in mechs]
    denominator_lcm = reduce(math.lcm, (w.denominator for w in weights), 1)
    numerator_gcd = reduce(math.gcd, (abs(w.numerator) for w in weights), 0)
    scale = Fraction(denominator_lcm, numerator_gcd)
    coefficients = []
    for w in weights:
        c = w * scale
        assert c.denominator == 1
        coefficients.append(int(c))
    # L may be a fraction (weights 2/3 and 4/3 give L = 3/2, c = (1, 2)); S·L is still
    # integer-valued and gcd(c) = 1, which is all the lattice argument needs.
    groups: dict[tuple[Fraction, int], int] = {}
    for m, c in zip(mechs, coefficients):
        key = (m.sigma2, abs(c))
        groups[key] = groups.get(key, 0) + 1
    return Lattice(
        scale=scale,
        coefficients=tuple(coefficients),
        sigma2s=tuple(m.sigma2 for m in mechs),
        groups=tuple(sorted(groups.items(), key=lambda item: (item[0][1], item[0][0]))),
    )


def threshold_index(t, scale) -> int:
    """The smallest integer j with j > t·L, so that P(S > t) = P(S_L ≥ j).

    Mind the strict inequality: S has atoms, and t·L may itself be an integer.

    >>> threshold_index(Fraction(1, 2), 6), threshold_index(Fraction(1, 3), 6)
    (4, 3)
    """
    return math.floor(as_fraction(t, "t") * scale) + 1
