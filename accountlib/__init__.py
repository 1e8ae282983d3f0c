"""accountlib: exact, certified privacy accounting for compositions of discrete Gaussian mechanisms.

The front door: the names a user needs, re-exported one by one from the modules that define them (each module is
imported when one of its names is first used, so ``import accountlib`` itself is instant).

>>> import accountlib
>>> pair = accountlib.Composition(["1/2", "1/3"])    # N_Z(0, 2) ⊗ N_Z(0, 3) against the shift by 1
>>> point = accountlib.delta(pair, 1, rel_tol=1e-6)  # the exact δ(ε = 1), with its bound
>>> point.error_bound <= 1e-6 * point.delta
True
>>> beta = accountlib.tradeoff(pair, "0.05")         # the exact f(α = 0.05)
>>> beta.error_bound <= 1e-12
True
>>> eps = accountlib.epsilon(pair, "1e-6")           # the certified ε for δ = 1e-6, an interval
>>> eps.upper - eps.lower <= 1e-9
True
>>> c = accountlib.calibrate(["1/2", "1/3"], accountlib.ApproximateDP(1, "1e-6"))
>>> c.proven_smallest                               # holds at c.scale, fails one grid step below
True

Five layers, each importing only the layers below it (import-linter contracts in ``pyproject.toml``; see
the README, "Layout"):

* :mod:`accountlib.cli` — ``python -m accountlib ...`` (top);
* :mod:`accountlib.applications` — the 2020 Census DHC (:mod:`accountlib.applications.census`) and
  ACS-sized releases (:mod:`accountlib.applications.acs`);
* :mod:`accountlib.theory` — the composition and its exact curves (:mod:`~accountlib.theory.composition`,
  :mod:`~accountlib.theory.accounting`), targets, their decision and calibration, the mechanisms' CGFs, RDP/zCDP and
  the gap Γ (:mod:`~accountlib.theory.mechanisms`), general pairs, conversions, the Edgeworth expansion;
* :mod:`accountlib.engine` — certified tail probabilities of weighted sums of discrete Gaussians: the noise term,
  the lattice, quadrature, the sieve and the evaluators, behind one front door (:mod:`accountlib.engine.front`);
* :mod:`accountlib.infrastructure` — numbers and validation, certified decimals, atomic files, the generic
  executor (bottom: no privacy knowledge).

The book's machinery (the reproduction ledger, chapter sweeps, explorers, the DP-SGD experiment) is a separate
package, ``accountbook`` (``book/``), which imports this one and is never imported by it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# The front door, name by name: each public name and the module that defines it. The modules are imported when a
# name is first used (PEP 562), so ``import accountlib`` -- and the command line's start -- costs only what is used.
_EXPORTS = {
    "Composition": ("accountlib.theory.composition", "Composition"),
    "ShiftPair": ("accountlib.theory.composition", "Composition"),  # the former name (deprecated): the same class
    "delta": ("accountlib.theory.accounting", "delta"),
    "tradeoff": ("accountlib.theory.accounting", "tradeoff"),
    "epsilon": ("accountlib.theory.accounting", "epsilon"),
    "calibrate": ("accountlib.theory.calibration", "calibrate"),
    "allocate": ("accountlib.theory.calibration", "allocate"),
    "check": ("accountlib.theory.decision", "check"),
    "ApproximateDP": ("accountlib.theory.targets", "ApproximateDP"),
    "GaussianDP": ("accountlib.theory.targets", "GaussianDP"),
    "TradeoffCurve": ("accountlib.theory.targets", "TradeoffCurve"),
    "EpsilonInterval": ("accountlib.theory.accounting", "EpsilonInterval"),
    "Calibration": ("accountlib.theory.calibration", "Calibration"),
    "Allocation": ("accountlib.theory.calibration", "Allocation"),
    "DeltaPoint": ("accountlib.theory.composition", "DeltaPoint"),
    "TradeoffPoint": ("accountlib.theory.composition", "TradeoffPoint"),
    "MAX_EPSILON": ("accountlib.theory.composition", "MAX_EPSILON"),
    "CertifiedTails": ("accountlib.engine.front", "CertifiedTails"),
    "tail_probabilities": ("accountlib.engine.front", "tail_probabilities"),
    "tail_probability": ("accountlib.engine.front", "tail_probability"),
    "TailResult": ("accountlib.engine.results", "TailResult"),
    "zcdp_epsilon": ("accountlib.theory.conversions", "zcdp_epsilon"),
    "zcdp_delta": ("accountlib.theory.conversions", "zcdp_delta"),
    # the mechanisms, each with .cgf(t, s), .rho(s), .gap(t, s) (accountlib.theory.mechanisms, one module per family)
    "Gaussian": ("accountlib.theory.mechanisms.continuous", "Gaussian"),
    "Laplace": ("accountlib.theory.mechanisms.continuous", "Laplace"),
    "GaussianMixture": ("accountlib.theory.mechanisms.continuous", "GaussianMixture"),
    "StudentT": ("accountlib.theory.mechanisms.heavy_tailed", "StudentT"),
    "GeneralizedGaussian": ("accountlib.theory.mechanisms.heavy_tailed", "GeneralizedGaussian"),
    "DiscreteLaplace": ("accountlib.theory.mechanisms.discrete", "DiscreteLaplace"),
    "DiscreteGaussian": ("accountlib.theory.mechanisms.discrete", "DiscreteGaussian"),
    "PoissonSubsampledGaussian": ("accountlib.theory.mechanisms.subsampled", "PoissonSubsampledGaussian"),
    # certified accounting of a DP-SGD run (the Poisson-subsampled Gaussian composed over its steps)
    "DPSGDComposition": ("accountlib.theory.dpsgd_accounting", "DPSGDComposition"),
    "calibrate_noise_multiplier": ("accountlib.theory.dpsgd_accounting", "calibrate_noise_multiplier"),
}

__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # what static tools (and readers) see: the same names, imported eagerly
    from .engine.front import CertifiedTails, tail_probabilities, tail_probability
    from .engine.results import TailResult
    from .theory.accounting import EpsilonInterval, delta, epsilon, tradeoff
    from .theory.calibration import Allocation, Calibration, allocate, calibrate
    from .theory.decision import check
    from .theory.targets import ApproximateDP, GaussianDP, TradeoffCurve
    from .theory.conversions import zcdp_delta, zcdp_epsilon
    from .theory.mechanisms.continuous import Gaussian, GaussianMixture, Laplace
    from .theory.mechanisms.discrete import DiscreteGaussian, DiscreteLaplace
    from .theory.mechanisms.heavy_tailed import GeneralizedGaussian, StudentT
    from .theory.mechanisms.subsampled import PoissonSubsampledGaussian
    from .theory.dpsgd_accounting import DPSGDComposition, calibrate_noise_multiplier
    from .theory.composition import MAX_EPSILON, Composition, DeltaPoint, TradeoffPoint
    from .theory.composition import Composition as ShiftPair


def __getattr__(name: str):
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'accountlib' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
