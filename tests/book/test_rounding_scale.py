"""The checks the chapters used to print as rounding residues ("< 1e-14"), held here instead of in the lessons.

Each quantity is zero in exact arithmetic, or equal to another computation of the same number; float64 leaves a
residue whose last digits depend on the order of operations and on numpy's run-time-dispatched kernels. The bounds
are those the chapters printed, each several times the largest residue measured on three kernels (AVX-512, AVX2 and
numpy's baseline). Every check runs here and, where this CPU dispatches kernels beyond numpy's baseline, once more
in a process that computes as the baseline CPU would (``second_cpu``).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import second_cpu

ROOT = Path(__file__).resolve().parents[2]


# --- the chapters' quantities, with the chapters' grids --------------------------------------------------------

def gaussian_renyi_against_zcdp() -> float:
    """What zCDP forgets: Gaussian noise (ρ = 1/2) has D_{t+1} = K(t)/t equal to the zCDP line ρ(t+1), on the
    paper's 100 orders 10^-2 ≤ t ≤ 10^1.2."""
    from accountlib.theory import rdp

    orders = np.logspace(-2, 1.2, 100)
    unit = rdp.Gaussian(1.0)
    return float(np.max(np.abs(np.array([unit.cgf(t, 1.0) / t for t in orders]) - unit.rho(1.0) * (orders + 1))))


_STEPS, _RHO_SUM = 20, 5.0
_Z = math.sqrt(1 / (2 * _RHO_SUM / _STEPS))
_QS = np.linspace(0, 1, 1001)[1:]


def subsampled_gap_at_q_one(t: float) -> float:
    """The composed gap of n = 20 steps at q = 1 (the plain Gaussian step): zero."""
    from accountlib.theory import rdp

    return abs(_RHO_SUM * t * (t + 1) - _STEPS * rdp.PoissonSubsampledGaussian(1.0, _Z).cgf(t, 1.0))


def generalized_gaussian_endpoint_excess() -> float:
    """ρ_β(0.2) − E_P L over the β grid: the t → 0 end of the curve attains ρ."""
    from accountlib.theory import rdp

    return max(abs(rdp.GeneralizedGaussian(b).rho(0.2) - rdp.GeneralizedGaussian(b).kl(0.2))
               for b in (1.0, 1.25, 1.5, 1.75, 1.9, 2.0))


def generalized_gaussian_gap_at_two(t: float) -> float:
    """β = 2 is the Gaussian: its gap at s = 0.2 is zero."""
    from accountlib.theory import rdp

    return abs(rdp.GeneralizedGaussian(2.0).gap(t, 0.2))


def chi_two() -> float:
    """The quartic coefficient χ_β of the generalized Gaussian vanishes at β = 2."""
    from accountlib.theory import rdp

    return abs(rdp.GeneralizedGaussian(2.0).chi)


def gaussian_gap_on_the_shift_grid(t: float) -> float:
    from accountlib.theory import rdp

    return float(np.max(np.abs([rdp.Gaussian().gap(t, s) for s in np.logspace(-3, -1, 61)])))


def gauss_hermite_nodes(t: float) -> float:
    """Appendix D.2: K of the subsampled Gaussian by 192 and by 384 Gauss–Hermite nodes, over the q grid."""
    from accountbook import diagnostics

    return diagnostics.subsampled_node_discrepancy(_QS, _Z, t)


def against_thirty_digits(t: float) -> float:
    """Appendix D.2: the 192-node K against a 30-digit quadrature."""
    from accountlib.theory import rdp

    return max(abs(rdp.PoissonSubsampledGaussian(q, _Z).cgf(t, 1.0) - rdp.sampled_gaussian_cgf_reference(q, _Z, t))
               for q in (0.001, 0.01, 0.1, 0.5, 1.0))


def composition_of_gaps(t: float) -> float:
    """Appendix D.2: the composed gap against n·Γ(t) (Theorem 3.3), zero up to rounding."""
    from accountbook import diagnostics

    return diagnostics.composition_gap_discrepancy(_QS, _Z, t, _STEPS)


def curves_to_tradeoff() -> float:
    """Information equivalence: the trade-off function recovered from the two one-sided curves against the
    Neyman–Pearson one, for the pair with mass outside each other's support, at 101 values of α."""
    from accountlib.theory import pairs

    F = Fraction
    pair = pairs.LatticePair(p={"a": F(1, 2), "b": F(1, 4), "c": F(1, 8), "P only": F(1, 8)},
                             q={"a": F(1, 8), "b": F(1, 4), "c": F(1, 2), "Q only": F(1, 8)})
    alphas = np.linspace(0, 1, 101)
    direct = [float(pair.tradeoff(F(a).limit_denominator(10**6))) for a in alphas]
    forward = lambda r: pair.delta_at_ratio(F(r).limit_denominator(10**9))  # noqa: E731
    reverse = lambda r: pair.reverse().delta_at_ratio(F(r).limit_denominator(10**9))  # noqa: E731
    grid = np.concatenate([np.logspace(-6, 6, 601), [float(r) for r, _ in pair.pld() if r not in (0, float("inf"))]])
    return max(abs(pairs.tradeoff_from_curves(forward, reverse, a, ratios=grid) - d) for a, d in zip(alphas, direct))


def bureau_epsilon() -> float:
    """The Fourier chapter prints ε_zCDP(10^-10) of ρ = 4.9622 to the digits 1e-13 supports: the float64 formula
    against the conversion to 50 digits."""
    from accountlib.theory.conversions import zcdp_epsilon

    exact = Fraction("26.340588852722324353781974500154992685015224391761")
    return float(abs(Fraction(zcdp_epsilon(Fraction("4.9622"), 1e-10)) - exact))


CHECKS = {
    "gaussian RDP = zCDP line": (gaussian_renyi_against_zcdp, (), 1e-14),
    "subsampled gap at q = 1, t = 1": (subsampled_gap_at_q_one, (1.0,), 2e-14),
    "generalized Gaussian endpoint attains rho": (generalized_gaussian_endpoint_excess, (), 2e-13),
    "generalized Gaussian gap at beta = 2, t = 1": (generalized_gaussian_gap_at_two, (1.0,), 3e-13),
    "generalized Gaussian gap at beta = 2, t = 1.5": (generalized_gaussian_gap_at_two, (1.5,), 5e-13),
    "chi_2 = 0": (chi_two, (), 1e-14),
    "gaussian gap at t = 1.5": (gaussian_gap_on_the_shift_grid, (1.5,), 1e-16),
    "192 against 384 Gauss-Hermite nodes, t = 1.5": (gauss_hermite_nodes, (1.5,), 5e-14),
    "192 nodes against 30 digits, t = 1.5": (against_thirty_digits, (1.5,), 5e-14),
    "composed gap against n Gamma(1.5)": (composition_of_gaps, (1.5,), 1e-13),
    "curves to trade-off": (curves_to_tradeoff, (), 1e-15),
    "epsilon_zCDP(1e-10) of rho = 4.9622": (bureau_epsilon, (), 1e-13),
}


def residues() -> dict[str, float]:
    return {name: float(function(*arguments)) for name, (function, arguments, _) in CHECKS.items()}


def _problems(found: dict[str, float], where: str) -> list[str]:
    return [f"{name}: {found[name]:.3g} is not below {bound:g} ({where})" for name, (_, _, bound) in CHECKS.items()
            if not found[name] < bound]


def test_each_residue_stays_below_its_bound():
    assert not _problems(residues(), "this CPU")


def test_each_residue_stays_below_its_bound_on_the_second_cpu():
    env = second_cpu.environment()
    if env is None:
        pytest.skip(second_cpu.describe())
    script = (f"import json, sys; sys.path[:0] = {[str(ROOT / 'tests'), str(ROOT / 'tests' / 'book')]!r}; "
              "import test_rounding_scale as t; print(json.dumps(t.residues()))")
    answer = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600,
                            cwd=ROOT)
    assert answer.returncode == 0, answer.stderr[-2000:]
    assert not _problems(json.loads(answer.stdout.splitlines()[-1]), second_cpu.describe())


def test_the_composition_residue_is_below_its_rounding_scale():
    """Appendix D.2's check as the ledger states it: below n·ulp(ρ_sum t(t+1)), the rounding of the subtraction."""
    t = 1.5
    assert composition_of_gaps(t) < _STEPS * math.ulp(_RHO_SUM * t * (t + 1))
