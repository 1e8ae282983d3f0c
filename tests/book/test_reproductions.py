"""Library functions behind ledger entries of chapters 4 and 5: the paper's |C| and the give-back's inverse."""

import pytest

from accountlib.applications import census
from accountlib.engine import sieve
from accountlib.theory.profiles import ShiftPair


@pytest.fixture(scope="module")
def m0_lattice():
    return ShiftPair(census.pair_rhos(13, 13)).lattice


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
