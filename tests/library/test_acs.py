"""ACS workloads: calibrations, ratios, Table 2 of the unifying paper."""

import pytest

from accountlib.applications import acs


def test_workloads():
    rows = acs.load_workloads()
    assert len(rows) == 20 and all(r["d"] == 5 * r["m"] for r in rows)
    assert (rows[0]["state"], rows[0]["d"]) == ("TX", 1060)


def test_gaussian_calibrations_coincide_exactly():
    for d in (330, 1060):
        assert acs.noise_scale("gaussian", d, 5, 1e-5, "rdp") == acs.noise_scale("gaussian", d, 5, 1e-5, "zcdp")
        assert acs.variance_ratio("gaussian", d, 5, 1e-5) == 1.0
        assert acs.delta_mse("gaussian", d, 5, 1e-5) == 0.0


@pytest.mark.parametrize("family", ["mixture", "laplace"])
def test_ratios_in_unit_interval_and_monotone_in_epsilon(family):
    ratios = [acs.variance_ratio(family, 400, eps, 1e-5) for eps in (2, 5)]
    assert all(0 < r <= 1 for r in ratios)
    scales = [acs.noise_scale(family, 400, eps, 1e-5, "rdp") for eps in (2, 3, 5, 8)]
    assert all(a > b for a, b in zip(scales, scales[1:]))


def test_table_2_extremes():
    """Unifying paper, Appendix D.3.2, Table 2 at (ε, δ) = (5, 1e-5): d = 330 (AL) and 1060 (TX) bracket the ranges."""
    mixture = [(acs.variance_ratio("mixture", d, 5, 1e-5), acs.delta_mse("mixture", d, 5, 1e-5)) for d in (330, 1060)]
    laplace = [(acs.variance_ratio("laplace", d, 5, 1e-5), acs.delta_mse("laplace", d, 5, 1e-5)) for d in (330, 1060)]
    assert (round(mixture[1][0], 3), round(mixture[0][0], 3)) == (0.553, 0.557)
    assert (round(mixture[0][1], 1), round(mixture[1][1], 1)) == (265.0, 860.6)
    assert (round(laplace[0][0], 3), round(laplace[1][0], 3)) == (0.988, 0.996)
    assert (round(laplace[0][1], 3), round(laplace[1][1], 3)) == (7.279, 7.313)


@pytest.mark.parametrize(
    "args, message",
    [(("mixture", 0, 5, 1e-5), "d must be a positive integer"), (("cauchy", 10, 5, 1e-5), "family must be one of"),
     (("laplace", 10, 5, 0), r"delta must be in \(0, 1\)"), (("laplace", 10, 5, 1.5), r"delta must be in \(0, 1\)"),
     (("laplace", 10, -1, 1e-5), "epsilon must be > 0"), (("laplace", 2.5, 5, 1e-5), "d must be a positive integer")],
)
def test_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        acs.variance_ratio(*args)
