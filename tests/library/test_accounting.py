"""The front door's δ and f at a point (``accountlib.delta``, ``accountlib.tradeoff``) against brute force over every
outcome of one discrete Gaussian, and their argument handling."""

import mpmath
import pytest

import accountlib


def _pmf(sigma2, shift):
    """The discrete Gaussian N_Z(shift, σ²) on |x| ≤ 80, normalised, at 50 digits."""
    with mpmath.workdps(50):
        weights = {x: mpmath.exp(-mpmath.mpf(x - shift) ** 2 / (2 * sigma2)) for x in range(-80, 81)}
        total = mpmath.fsum(weights.values())
        return {x: w / total for x, w in weights.items()}


def _brute_delta(sigma2, eps):
    p, q = _pmf(sigma2, 0), _pmf(sigma2, 1)
    with mpmath.workdps(50):
        return mpmath.fsum(max(mpmath.mpf(0), p[x] - mpmath.exp(eps) * q[x]) for x in p)


@pytest.mark.parametrize("eps", [0.25, 1, 3])
def test_delta_of_one_discrete_gaussian_is_the_brute_force_sum(eps):
    point = accountlib.delta(["1/2"], eps, rel_tol=1e-12)
    assert abs(point.delta - _brute_delta(2, eps)) <= point.error_bound + 1e-40


def test_a_list_gives_a_list_and_a_composition_can_be_given_built():
    pair = accountlib.Composition(["1/2", "1/3"])
    one = accountlib.delta(pair, 1)
    many = accountlib.delta(["1/2", "1/3"], [1, 2])
    assert isinstance(many, list) and len(many) == 2
    assert abs(one.delta - many[0].delta) <= one.error_bound + many[0].error_bound


def test_tradeoff_is_the_neyman_pearson_test_of_one_discrete_gaussian():
    # the likelihood ratio of N_Z(1, 2) to N_Z(0, 2) grows with x, so the test rejecting the first hypothesis when
    # X >= 1 is a Neyman-Pearson test: alpha = P_0(X >= 1), beta = P_1(X <= 0) is a vertex of the curve
    p, q = _pmf(2, 0), _pmf(2, 1)
    with mpmath.workdps(50):
        alpha = mpmath.fsum(v for x, v in p.items() if x >= 1)
        beta = mpmath.fsum(v for x, v in q.items() if x <= 0)
    point = accountlib.tradeoff(["1/2"], mpmath.nstr(alpha, 40), abs_tol=1e-20)
    assert abs(point.beta - beta) <= point.error_bound + 1e-30


@pytest.mark.parametrize("call, message", [
    (lambda: accountlib.delta(["1/2"], []), "epsilon must be a number or a non-empty list"),
    (lambda: accountlib.delta(accountlib.Composition(["1/2"]), 1, sensitivities=[2]), "sensitivities"),
    (lambda: accountlib.tradeoff(["1/2"], 2), "alphas must lie in"),
    (lambda: accountlib.delta("1/2", 1), "rhos must be a list"),
])
def test_bad_arguments_get_one_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_numpy_numbers_and_hostile_containers():
    import numpy as np

    one = accountlib.delta(["1/2"], np.array(1.0))
    assert abs(one.delta - _brute_delta(2, 1)) <= one.error_bound + 1e-40
    with pytest.raises(ValueError, match="epsilon must be a number or a list"):
        accountlib.delta(["1/2"], {1: 0, 2: 0})
    with pytest.raises(ValueError, match="composition must be a Composition or a list"):
        accountlib.delta({"1/2": 1}, 1)
    with pytest.raises(ValueError, match="composition must be a Composition or a list"):
        accountlib.calibrate(np.array(0.5), accountlib.ApproximateDP(1, "1e-6"))
