"""The smoothed engine (accountlib.engine.smoothed): δ(ε) for budgets with any denominators.

Checked against the lattice engine on grid budgets (the certified intervals must overlap) and against brute force
on small off-grid compositions (δ summed over every outcome, independently of the engine's algebra)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from accountlib import Composition
from accountlib.applications.census import pair_rhos
from accountlib.engine.quadrature import lattice_candidates
from accountlib.engine.front import SmoothedTails
from accountlib.engine.results import ResourceLimitError


def brute_force_delta(rhos, sensitivities, epsilon) -> float:
    """δ(ε) = Σ_x max(0, P(x) − e^ε Q(x)) over every outcome x of the composition (P centred at 0, Q at s)."""
    axes, p_axes, q_axes = [], [], []
    for r, s in zip(rhos, sensitivities):
        sigma = math.sqrt(1 / float(r))
        reach = int(math.ceil(14 * sigma)) + s + 2
        xs = np.arange(-reach, reach + 1)
        weights = np.exp(-float(r) * xs.astype(float) ** 2 / 2)
        z = math.fsum(weights)
        p_axes.append(weights / z)
        q_axes.append(np.exp(-float(r) * (xs - s).astype(float) ** 2 / 2) / z)
        axes.append(xs)
    p = p_axes[0]
    q = q_axes[0]
    for pa, qa in zip(p_axes[1:], q_axes[1:]):
        p = np.multiply.outer(p, pa)
        q = np.multiply.outer(q, qa)
    diff = p - math.exp(float(epsilon)) * q
    return math.fsum(diff[diff > 0].ravel())


OFF_GRID = [
    ([F(1, 3), F(123457, 1000003)], [1, 1]),
    ([F(2, 7), F(31415, 92653), F(1, 2)], [1, 1, 1]),
    ([F(7, 10), F(1000003, 3000017)], [1, 2]),
    ([F(3), F(22, 7)], [1, 1]),   # σ² = 1/3 and 7/22: below the tilted engine's 1/2
]


@pytest.mark.parametrize("rhos, sens", OFF_GRID)
@pytest.mark.parametrize("epsilon", ["0.3", "1.5", "4"])
def test_smoothed_matches_brute_force_off_grid(rhos, sens, epsilon):
    pair = Composition(rhos, sensitivities=sens, engine="smoothed")
    (d,) = pair.delta([epsilon], rel_tol=1e-7)
    exact = brute_force_delta(rhos, sens, F(epsilon))
    assert d.error_bound <= 1e-7 * d.delta
    # the brute-force sum is float64 (error ≲ 1e-13 relative here): the certified interval must contain it
    assert abs(float(d.delta) - exact) <= float(d.error_bound) + 1e-13 * exact


@pytest.mark.parametrize("epsilon", ["0.05", "1", "6", "20"])
def test_smoothed_agrees_with_lattice_on_grid_budgets(epsilon):
    rhos = pair_rhos(13, 13)[:12]
    lattice = Composition(rhos, engine="lattice")
    smoothed = Composition(rhos, engine="smoothed")
    (a,) = lattice.delta([epsilon], rel_tol=1e-6)
    (b,) = smoothed.delta([epsilon], rel_tol=1e-6)
    assert b.error_bound <= 1e-6 * b.delta
    assert abs(a.delta - b.delta) <= a.error_bound + b.error_bound


def test_tighter_tolerance_shrinks_the_bracket():
    pair = Composition([F(1, 3), F(123457, 1000003)], engine="smoothed")
    widths = [pair.delta(["2"], rel_tol=tol)[0] for tol in (1e-4, 1e-8)]
    assert widths[1].error_bound < widths[0].error_bound / 100
    assert abs(widths[0].delta - widths[1].delta) <= widths[0].error_bound + widths[1].error_bound


def redistricting_like():
    """130 budgets of the redistricting data's shape (geolevel shares x/4099, query shares x/4097, x/4102, x/241):
    denominators of 10-11 digits."""
    geo = [F(104, 4099), F(1440, 4099), F(447, 4099), F(687, 4099), F(1256, 4099), F(165, 4099)]
    queries = [[F(k, 4097) for k in (52, 26, 26, 26, 26, 130, 130, 26)] + [F(26, 241), F(189, 241)],
               [F(k, 4097) for k in (3773, 6, 6, 6, 6, 6, 12, 12, 6)] + [F(2, 241), F(230, 4097)],
               [F(k, 4097) for k in (3126, 10, 10, 10, 10, 10, 28, 28, 10, 101, 754)],
               [F(k, 4102) for k in (1567, 4, 5, 5, 5, 5, 1933, 10, 5, 67, 241)],
               [F(k, 4099) for k in (1705, 3, 3, 3, 3, 3, 1055, 9, 3, 24, 1288)],
               [F(k, 4097) for k in (5, 9, 5, 5, 5, 5, 21, 21, 5, 71, 3945)]]
    one = [F(263, 100) * g * q for g, qs in zip(geo, queries) for q in qs]
    return one + one


def test_auto_routes_fine_lattices_to_the_smoothed_engine():
    rhos = redistricting_like()
    pair = Composition(rhos)
    assert pair.engine_kind == "smoothed" and lattice_candidates(pair.lattice) > 1e12
    (d,) = pair.delta(["17.14"])
    assert 0 < d.delta < 1e-6 and d.error_bound <= 1e-6 * d.delta
    with pytest.raises(ResourceLimitError, match="need the lattice of the budgets"):
        pair.tradeoff_vertices([0])


def test_auto_keeps_the_census_pairs_on_the_lattice():
    for k, l in [(13, 13), (31, 36), (1, 43)]:
        assert Composition(pair_rhos(k, l)).engine_kind == "lattice"


def test_engine_argument_is_validated():
    with pytest.raises(ValueError, match="engine must be one of auto, lattice, smoothed; got 'fast'"):
        Composition(["1/2"], engine="fast")
    with pytest.raises(ValueError, match=r"rho_i in \[1e-12, 4\]"):
        Composition(["5"], engine="smoothed")


def test_node_cap_returns_the_finest_bound_it_reaches():
    rhos = [F(1, 3), F(123457, 1000003)]
    rho = sum(rhos) / 2
    capped = SmoothedTails([((1 / r, r / rho), 1) for r in rhos], rho, max_nodes=20_000)
    d = capped.delta(F(2), rel_tol=1e-12)
    free = SmoothedTails([((1 / r, r / rho), 1) for r in rhos], rho).delta(F(2), rel_tol=1e-9)
    assert d.terms["scanned"] <= 20_000 and d.error_bound > 1e-12 * d.delta
    assert abs(d.delta - free.delta) <= d.error_bound + free.error_bound


def brute_force_tradeoff(rhos, sensitivities, alpha) -> float:
    """f(α) by Neyman-Pearson over every outcome: reject where Q/P is largest, randomise at the boundary atom."""
    p_axes, q_axes = [], []
    for r, s in zip(rhos, sensitivities):
        reach = int(math.ceil(14 * math.sqrt(1 / float(r)))) + s + 2
        xs = np.arange(-reach, reach + 1).astype(float)
        weights = np.exp(-float(r) * xs**2 / 2)
        p_axes.append(weights / weights.sum())
        q_axes.append(np.exp(-float(r) * (xs - s) ** 2 / 2) / weights.sum())
    p, q = p_axes[0], q_axes[0]
    for pa, qa in zip(p_axes[1:], q_axes[1:]):
        p, q = np.multiply.outer(p, pa).ravel(), np.multiply.outer(q, qa).ravel()
    order = np.argsort(-(np.log(q) - np.log(p)))
    cum_p = np.concatenate([[0.0], np.cumsum(p[order])])
    cum_q = np.concatenate([[0.0], np.cumsum(q[order])])
    return float(1 - np.interp(alpha, cum_p, cum_q))


@pytest.mark.parametrize("alpha", ["0.001", "0.2", "0.7"])
def test_smoothed_tradeoff_matches_brute_force_off_grid(alpha):
    rhos, sens = [F(1, 3), F(123457, 1000003)], [1, 1]
    pair = Composition(rhos, sensitivities=sens, engine="smoothed")
    (b,) = pair.tradeoff([alpha], abs_tol=1e-7)
    exact = brute_force_tradeoff(rhos, sens, float(alpha))
    assert b.error_bound <= 1e-7
    assert abs(float(b.beta) - exact) <= float(b.error_bound) + 1e-12


def test_smoothed_tradeoff_agrees_with_lattice_on_grid_budgets():
    rhos = pair_rhos(13, 13)[:12]
    lattice, smoothed = Composition(rhos, engine="lattice"), Composition(rhos, engine="smoothed")
    for a, b in zip(lattice.tradeoff(["0.01", "0.3"], abs_tol=1e-12), smoothed.tradeoff(["0.01", "0.3"], abs_tol=1e-7)):
        assert abs(a.beta - b.beta) <= a.error_bound + b.error_bound


def test_the_smoothed_engine_is_reached_only_through_the_front_door():
    """The accuracy schedule of the smoothed engine (which smoothing η, what a node cap leaves) is the front door's,
    as the lattice engines' is: no module but engine/front.py builds a SmoothedProfile."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "accountlib"
    users = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py") if "SmoothedProfile(" in p.read_text())
    assert users == ["engine/front.py", "engine/smoothed.py"], users  # smoothed.py: the class itself (its example)
    pair = Composition([F(1, 3000001), F(2, 7000003)], engine="smoothed")
    assert type(pair.smoothed).__name__ == "SmoothedTails"
