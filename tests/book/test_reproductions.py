"""Library functions behind ledger entries of 06_sieve and 07_census_dhc: the paper's |C| and the give-back's inverse."""

import pytest

from accountlib.applications import census
from accountlib.engine import sieve
from accountlib.theory.composition import Composition


@pytest.fixture(scope="module")
def m0_lattice():
    return Composition(census.pair_rhos(13, 13)).lattice


def test_algorithm1_count_like_for_like(m0_lattice):
    at_25 = sieve.algorithm1_count(m0_lattice, 1e-25)
    assert (at_25["U"], at_25["N"], at_25["count"]) == (344_074, 713_130, 203)  # the paper's |C| = 203
    at_35 = sieve.algorithm1_count(m0_lattice, 1e-35)
    assert at_35["count"] == 323 and at_35["N"] == 830_982
    # whole circle = twice the half circle + the node k = N (ζ = 2π, a peak of every factor)
    assert at_35["count"] == 2 * at_35["half_count"] + 1
    # one factor per mechanism keeps far more nodes: the count the prose would give is not the 203
    assert at_25["per_mechanism"] > 30 * at_25["count"]
    # a finer tolerance can only keep more nodes on the same N
    assert sieve.algorithm1_count(m0_lattice, 1e-35, modulus=713_130)["count"] >= at_25["count"]


def test_algorithm1_count_rejects_bad_input(m0_lattice):
    with pytest.raises(ValueError, match="accuracy must be in"):
        sieve.algorithm1_count(m0_lattice, 0)
    with pytest.raises(ValueError, match="modulus must be"):
        sieve.algorithm1_count(m0_lattice, 1e-25, modulus=1)


def test_delta_at_reduction_rejects_bad_input():
    with pytest.raises(ValueError, match="low and high"):
        census.delta_at_reduction("0.2", [(13, 13)], low=1e-2, high=1e-3)
    with pytest.raises(ValueError, match="pairs must"):
        census.delta_at_reduction("0.2", [], low=1e-3, high=1e-2)
    with pytest.raises(ValueError, match="not attained"):  # 50% is given back nowhere in (1e-3, 1e-2)
        census.delta_at_reduction("0.5", [(13, 13)], low=1e-3, high=1e-2)


def test_level_budgets_follow_the_allocation_files_columns():
    from importlib import resources

    header = (resources.files("accountlib") / "data" / "dhc_allocations" / "dhc_allocation_path_13.csv").read_text(
        encoding="utf-8").splitlines()[0].split(",")
    assert tuple(header) == census.GEOGRAPHIC_LEVELS
    by_level = census.level_budgets(13, 7)
    assert sorted(r for budgets in by_level.values() for r in budgets) == sorted(census.pair_rhos(13, 7))
    assert sum(sum(b) for b in by_level.values()) / 2 == census.TOTAL_RHO


def test_level_variance_reductions_are_certified_and_ordered():
    """Judged alone, a level gives back more variance with the Bureau's crude conversion than with the RDP one,
    and at a larger δ more than at a smaller one; a bad conversion is refused."""
    crude = census.level_variance_reductions(13, 13, 1e-10, resolution=1e-3)
    tight = census.level_variance_reductions(13, 13, 1e-10, resolution=1e-3, conversion="rdp")
    looser = census.level_variance_reductions(13, 13, 1e-6, resolution=1e-3)
    assert set(crude) == set(census.GEOGRAPHIC_LEVELS)
    for level in crude:
        assert crude[level]["proven_smallest"] and 0 < tight[level]["reduction"] < crude[level]["reduction"]
        assert looser[level]["reduction"] > crude[level]["reduction"]
    with pytest.raises(ValueError, match="conversion must be"):
        census.level_variance_reductions(13, 13, 1e-10, conversion="gdp")
    with pytest.raises(ValueError, match="levels must be among"):
        census.level_variance_reductions(13, 13, 1e-10, levels=["Town"])
    assert set(census.level_variance_reductions(13, 13, 1e-10, resolution=1e-3, levels=["US"])) == {"US"}


def test_algorithm1_stages_end_where_algorithm1_count_does(m0_lattice):
    stages = sieve.algorithm1_stages(m0_lattice, 1e-25, ["largest", "smallest", list(range(len(m0_lattice.groups)))])
    assert {s["survivors"][-1] for s in stages} == {203}  # the same final set in every order
    for s in stages:
        assert all(a >= b for a, b in zip(s["survivors"], s["survivors"][1:]))
        assert s["work"] == 713_130 + sum(s["survivors"][:-1])
    with pytest.raises(ValueError, match="every group index"):
        sieve.algorithm1_stages(m0_lattice, 1e-25, [[0, 1]])


def test_proxy_gaps_have_the_signs_the_census_curves_give():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "results" / "dhc"
    gaps = census.proxy_gaps(folder)
    assert gaps["f_gap"].min() >= -1e-12  # the census envelope lies below every pair's curve
    assert gaps["eps_gap"].max() < 1e-6 and gaps["eps_gap_max_abs"] > 0


def test_the_papers_closed_forms_against_second_computations():
    import mpmath

    from accountbook import diagnostics
    from accountlib.theory.rdp import DiscreteGaussian

    for r in (0.01, 0.5, 2.0):
        computed, closed = diagnostics.laplace_phi1_curvature(r), diagnostics.laplace_phi1_curvature_closed_form(r)
        assert abs(computed - closed) < mpmath.mpf(10) ** -30 * closed
    for sigma, r, t in ((0.6, 1, 0.3), (0.6, 2, 1.1), (1.5, 1, 0.5)):
        direct = diagnostics.discrete_gaussian_gap_direct(sigma, r, t, dps=60)
        assert abs(direct - DiscreteGaussian(sigma).gap(t, r)) <= 1e-12 * abs(direct)


def test_algorithm1_dropped_mass_counts_the_same_nodes(m0_lattice):
    dropped = sieve.algorithm1_dropped_mass(m0_lattice, 1e-25)
    assert (dropped["N"], dropped["kept"]) == (713_130, 203) and dropped["kept"] + dropped["dropped"] == dropped["N"]
    assert 0 < dropped["largest_term"] <= dropped["mass"] < 1e-25 / 4
    with pytest.raises(ValueError, match="accuracy must be in"):
        sieve.algorithm1_dropped_mass(m0_lattice, 2.0)


def test_trapezoid_window_error_bound_falls_with_n_and_rejects_bad_input(m0_lattice):
    from accountlib.engine import quadrature

    v = m0_lattice.variance_proxy
    at_n = quadrature.trapezoid_window_error_bound(v, 405_081, 830_982)["bound"]
    assert at_n < quadrature.trapezoid_window_error_bound(v, 405_081, 820_000)["bound"]
    assert quadrature.trapezoid_window_error_bound(v, 405_081, 900_000)["bound"] < at_n < 1e-35 / 4
    with pytest.raises(ValueError, match="need 0 <= cut < nodes"):
        quadrature.trapezoid_window_error_bound(v, 10, 10)
    with pytest.raises(ValueError, match="variance_proxy"):
        quadrature.trapezoid_window_error_bound(0, 1, 10)


def test_shift_renyi_divergences_against_the_gaussian_and_an_asymmetric_noise():
    import math

    import numpy as np

    from accountbook import diagnostics

    forward, backward = diagnostics.shift_renyi_divergences(lambda x: -x * x / 2 - 0.5 * math.log(2 * math.pi), 0.5, 2.0)
    assert abs(forward - 0.25) < 1e-12 and abs(backward - 0.25) < 1e-12  # D_α = α s²/2 both ways
    gumbel = diagnostics.shift_renyi_divergences(lambda x: -(x + np.exp(-x)), 1.0, 1.5)
    assert gumbel[1] > 2 * gumbel[0]  # asymmetric noise: the two directions differ
