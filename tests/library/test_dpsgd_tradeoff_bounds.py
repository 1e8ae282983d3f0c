"""The DP-SGD trade-off search's upper bounds (accountlib.theory.dpsgd_tradeoff): on every grid, however placed, the
bound on each branch of f(α) = sup_ε max(1 − δ(ε) − e^ε α, e^{−ε}(1 − δ(ε) − α)) is at least the branch's supremum
and finite. Checked against the Gaussian mechanism's profile, whose branches are computed densely here."""

import random

import mpmath

import accountlib
import pytest

from accountlib.theory.dpsgd_tradeoff import concave_sup_upper


def gaussian_delta(mu, eps):
    """δ(ε) of μ-GDP (Dong, Roth & Su 2022, Cor. 2.13), at 40 digits."""
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def branch(variable, alpha, mu, eps):
    d = gaussian_delta(mu, eps)
    return 1 - d - mpmath.exp(eps) * alpha if variable == "t" else mpmath.exp(-eps) * (1 - alpha - d)


@pytest.mark.parametrize("mu", [0.5, 2.0, 8.0])
@pytest.mark.parametrize("variable", ["t", "u"])
def test_every_grid_bounds_the_branch_from_above(mu, variable):
    rng = random.Random(f"{mu}{variable}")
    with mpmath.workdps(40):
        for _ in range(12):
            alpha = mpmath.mpf(rng.choice(["1e-6", "0.001", "0.05", "0.3", "0.7"]))
            dense = [mpmath.mpf(k) / 10 for k in range(0, 601)]  # ε in [0, 60]
            truth = max(branch(variable, alpha, mu, e) for e in dense)
            if variable == "u":
                truth = max(truth, 0)  # k(u) → 0 as ε → ∞
            centre, spread = rng.uniform(0, 40), rng.choice([0.01, 0.3, 3.0])
            grid = sorted({max(0.0, centre + k * spread) for k in range(-3, 4)})
            pts = sorted(((mpmath.exp(e) if variable == "t" else mpmath.exp(-e),
                           (branch(variable, alpha, mu, e) - mpmath.mpf("1e-30"),
                            branch(variable, alpha, mu, e) + mpmath.mpf("1e-30"))) for e in grid),
                         key=lambda p: p[0])
            upper = concave_sup_upper(pts, variable, alpha)
            assert mpmath.isfinite(upper), (alpha, grid)
            assert upper >= truth - mpmath.mpf("1e-25"), (alpha, grid, upper, truth)


def test_a_flagged_trade_off_point_shows_no_more_than_the_trivial_bracket(monkeypatch):
    """r37n: a flagged β was printed 0.50 ± 0.51 (the interval [−0.01, 1.01]); f(α) lies in [0, 1 − α] for every
    trade-off function, so a bracket the node budget left wide is cut to that before it is shown."""
    from accountlib.theory import dpsgd_accounting

    monkeypatch.setattr(dpsgd_accounting, "TRADEOFF_MAX_NODES", 1)  # every δ's search spent at once
    for alpha in ("0.001", "0.5", "0.9"):
        point = accountlib.DPSGDComposition(0.1, 0.2, 1000).tradeoff(alpha, abs_tol=1e-9, best_effort=True)
        a = float(alpha)
        assert not point.meets_tolerance
        assert point.beta - point.error_bound >= -1e-12 and point.beta + point.error_bound <= 1 - a + 1e-12, alpha  # rounded outward
