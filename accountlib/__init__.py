"""accountlib: exact, certified privacy accounting for compositions of discrete Gaussian mechanisms.

The front door: the names a user needs, re-exported one by one from the modules that define them.

>>> import accountlib
>>> pair = accountlib.ShiftPair(["1/2", "1/3"])      # N_Z(0, 2) ⊗ N_Z(0, 3) against the shift by 1
>>> (point,) = pair.delta([1], rel_tol=1e-6)
>>> point.error_bound <= 1e-6 * point.delta
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
* :mod:`accountlib.theory` — privacy curves of a composition (:mod:`~accountlib.theory.profiles`,
  :mod:`~accountlib.theory.pairs`, :mod:`~accountlib.theory.tradeoff_band`), conversions, RDP/zCDP and the gap Γ
  (:mod:`~accountlib.theory.rdp`), the Edgeworth expansion;
* :mod:`accountlib.engine` — certified tail probabilities of weighted sums of discrete Gaussians: the noise term,
  the lattice, quadrature, the sieve and the evaluators, behind one front door (:mod:`accountlib.engine.front`);
* :mod:`accountlib.infrastructure` — numbers and validation, certified decimals, atomic files, the generic
  executor (bottom: no privacy knowledge).

The book's machinery (the reproduction ledger, chapter sweeps, explorers, the DP-SGD experiment) is a separate
package, ``accountbook`` (``book/``), which imports this one and is never imported by it.
"""

from __future__ import annotations

from .engine.front import CertifiedTails, tail_probabilities, tail_probability
from .engine.results import TailResult
from .theory.calibration import (Allocation, ApproximateDP, Calibration, EpsilonInterval, GaussianDP, TradeoffCurve,
                                 allocate, calibrate, check, epsilon)
from .theory.conversions import zcdp_delta, zcdp_epsilon
from .theory.profiles import MAX_EPSILON, DeltaPoint, ShiftPair, TradeoffPoint

__version__ = "0.1.0"

__all__ = [
    "ShiftPair",
    "epsilon",
    "calibrate",
    "allocate",
    "check",
    "ApproximateDP",
    "GaussianDP",
    "TradeoffCurve",
    "EpsilonInterval",
    "Calibration",
    "Allocation",
    "DeltaPoint",
    "TradeoffPoint",
    "MAX_EPSILON",
    "CertifiedTails",
    "tail_probabilities",
    "tail_probability",
    "TailResult",
    "zcdp_epsilon",
    "zcdp_delta",
]
