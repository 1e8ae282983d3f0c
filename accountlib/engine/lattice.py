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

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

from ..infrastructure.numbers import as_fraction, as_positive_fraction

__all__ = ["WeightedDiscreteGaussian", "Lattice", "as_mechanisms", "lattice_of", "threshold_index"]


@dataclass(frozen=True)
class WeightedDiscreteGaussian:
    """One term a·X of the weighted sum S = Σ a_i X_i, X ~ N_Z(0, σ² = 1/ρ) (exact ρ and weight a).

    Not a privacy mechanism object with a CGF (those are :class:`accountlib.theory.mechanisms.base.NoiseMechanism`)."""

    rho: Fraction
    weight: Fraction

    @property
    def sigma2(self) -> Fraction:
        """The noise variance σ² = 1/ρ (exact)."""
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
    seen: dict = {}  # identical (rho, weight) pairs are checked and built once (a budget file repeats them)
    for index, item in enumerate(items):
        if isinstance(item, WeightedDiscreteGaussian):
            result.append(item)
            continue
        key = None
        if type(item) is tuple and len(item) == 2 and type(item[0]) is Fraction and type(item[1]) is Fraction:
            # keyed by integers: hashing a Fraction costs a modular inverse
            key = (item[0].numerator, item[0].denominator, item[1].numerator, item[1].denominator)
            known = seen.get(key)
            if known is not None:
                result.append(known)
                continue
        try:
            rho, weight = item
        except (TypeError, ValueError):
            raise ValueError(f"mechanisms[{index}] must be a (rho, weight) pair; got {item!r}") from None
        rho = as_positive_fraction(rho, f"mechanisms[{index}].rho", floats="decimal")
        weight = as_fraction(weight, f"mechanisms[{index}].weight", floats="decimal")
        if weight == 0:
            raise ValueError(f"mechanisms[{index}].weight must be nonzero")
        built = WeightedDiscreteGaussian(rho, weight)
        if key is not None:
            seen[key] = built
        result.append(built)
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

    def rescaled(self, multiplier: Fraction) -> Lattice:
        """The lattice of the same sum with every σ_i² multiplied by ``multiplier`` > 0 (exact): the weights, the scale L
        and the coefficients c_i do not change, and the groups keep their order (sorted by c, then σ²). It is what
        :func:`lattice_of` returns for the budgets ρ_i/``multiplier`` with the same weights.

        >>> lattice_of([(1, "1/2"), (2, "1/3")]).rescaled(Fraction(3)).sigma2s
        (Fraction(3, 1), Fraction(3, 2))
        """
        v = Fraction(multiplier)
        if not v > 0:
            raise ValueError(f"multiplier must be > 0; got {multiplier!r}")
        return Lattice(scale=self.scale, coefficients=self.coefficients, sigma2s=tuple(s2 * v for s2 in self.sigma2s),
                       groups=tuple(((s2 * v, c), n) for (s2, c), n in self.groups))

    @functools.cached_property
    def variance_proxy(self) -> Fraction:
        """Σ c_i² σ_i²: S_L is sub-Gaussian with this variance proxy (exact; summed over the merged groups, once)."""
        return sum((Fraction(multiplicity * c * c) * s2 for (s2, c), multiplicity in self.groups), Fraction(0))


def lattice_of(mechanisms) -> Lattice:
    """Map the weighted sum of ``mechanisms`` to its integer lattice (book, Derivations §3).

    >>> lat = lattice_of([(1, "1/2"), (2, "1/3")])
    >>> lat.scale, lat.coefficients
    (Fraction(6, 1), (3, 2))
    """
    mechs = as_mechanisms(mechanisms)
    weights = [m.weight for m in mechs]
    # each distinct weight and budget is worked on once, keyed by integers (hashing a Fraction is slow)
    distinct = {(w.numerator, w.denominator): w for w in weights}
    denominator_lcm = reduce(math.lcm, (den for _, den in distinct), 1)
    numerator_gcd = reduce(math.gcd, (abs(num) for num, _ in distinct), 0)
    scale = Fraction(denominator_lcm, numerator_gcd)
    coefficient_of = {}
    for key, w in distinct.items():
        c = w * scale
        assert c.denominator == 1
        coefficient_of[key] = int(c)
    coefficients = [coefficient_of[w.numerator, w.denominator] for w in weights]
    sigma2_of = {}
    for m in mechs:
        if (m.rho.numerator, m.rho.denominator) not in sigma2_of:
            sigma2_of[m.rho.numerator, m.rho.denominator] = 1 / m.rho
    rho_keys = [(m.rho.numerator, m.rho.denominator) for m in mechs]
    sigma2s = [sigma2_of[k] for k in rho_keys]
    # L may be a fraction (weights 2/3 and 4/3 give L = 3/2, c = (1, 2)); S·L is still
    # integer-valued and gcd(c) = 1, which is all the lattice argument needs.
    counts: dict[tuple, int] = {}
    for k, c in zip(rho_keys, coefficients):
        counts[k, abs(c)] = counts.get((k, abs(c)), 0) + 1
    groups: dict[tuple[Fraction, int], int] = {(sigma2_of[k], c): n for (k, c), n in counts.items()}
    return Lattice(
        scale=scale,
        coefficients=tuple(coefficients),
        sigma2s=tuple(sigma2s),
        groups=tuple(sorted(groups.items(), key=lambda item: (item[0][1], item[0][0]))),
    )


def threshold_index(t, scale) -> int:
    """The smallest integer j with j > t·L, so that P(S > t) = P(S_L ≥ j).

    Mind the strict inequality: S has atoms, and t·L may itself be an integer.

    >>> threshold_index(Fraction(1, 2), 6), threshold_index(Fraction(1, 3), 6)
    (4, 3)
    """
    return math.floor(as_fraction(t, "t", floats="decimal") * scale) + 1
