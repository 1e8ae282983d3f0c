"""The front door's δ and f at a point (``accountlib.delta``, ``accountlib.tradeoff``) against brute force over every
outcome of one discrete Gaussian, and their argument handling."""

import math

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
    (lambda: accountlib.tradeoff(["1/2"], 2), "^alpha must lie in"),  # the argument's name (r37h F-G)
    (lambda: accountlib.tradeoff(["1/2"], "x"), "^alpha could not be read"),
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


# -- issue 37: the tolerance met or the result says so; ε = 0; bounded time -------------------------------------------

def _wide_brute_delta(sigma2, eps, reach=400):
    """δ(ε) of N_Z(0, σ²) against N_Z(1, σ²) summed over |x| ≤ reach at 60 digits (the mass beyond is e^{-reach²/2σ²})."""
    with mpmath.workdps(60):
        p = {x: mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * sigma2)) for x in range(-reach, reach + 1)}
        q = {x: mpmath.exp(-mpmath.mpf(x - 1) ** 2 / (2 * sigma2)) for x in range(-reach, reach + 1)}
        zp, zq = mpmath.fsum(p.values()), mpmath.fsum(q.values())
        return mpmath.fsum(max(mpmath.mpf(0), p[x] / zp - mpmath.exp(eps) * q[x] / zq) for x in p)


def _two_term_delta(rhos, eps, reach1, reach2):
    """δ(ε) of N_Z(0, 1/ρ₁) × N_Z(0, 1/ρ₂) against the shift (1, 1), at 80 digits: the privacy loss
    ρ₁(1 − 2x₁)/2 + ρ₂(1 − 2x₂)/2 exceeds ε exactly when x₂ ≤ m(x₁), so δ = Σ_{x₁} [p₁(x₁)F₂(m) − e^ε p₁(x₁ − 1)F₂(m − 1)]
    with F₂ the cumulative pmf of the second term (over |x_i| ≤ reach_i; each bracket is a sum of positive terms)."""
    from fractions import Fraction

    r1, r2 = (Fraction(r) for r in rhos)
    eps = Fraction(eps)
    with mpmath.workdps(80):
        def pmf(rho, reach):
            w = [mpmath.exp(-mpmath.mpf(x) ** 2 * rho.numerator / (2 * rho.denominator)) for x in range(-reach, reach + 1)]
            z = mpmath.fsum(w)
            return [v / z for v in w]

        p1, p2 = pmf(r1, reach1), pmf(r2, reach2)
        cumulative = [mpmath.mpf(0)]
        for v in p2:
            cumulative.append(cumulative[-1] + v)
        f2 = lambda m: cumulative[max(0, min(m + reach2 + 1, len(p2)))]
        growth = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        total = mpmath.mpf(0)
        for i, x1 in enumerate(range(-reach1, reach1 + 1)):
            m = math.ceil(((r1 + r2) / 2 - eps - r1 * x1) / r2) - 1
            total += p1[i] * f2(m) - growth * (p1[i - 1] if i else 0) * f2(m - 1)
        return total


@pytest.mark.parametrize("rhos, eps, truth", [
    (["1/2"], 40, lambda: _wide_brute_delta(2, 40)),
    (["11/10000"], 2, lambda: _wide_brute_delta(mpmath.mpf(10000) / 11, 2, reach=2700)),
    (["1/1000", "0.05"], 10, lambda: _two_term_delta(["1/1000", "0.05"], 10, 1800, 260)),
    (["0.05", "0.2"], "20.68", lambda: _two_term_delta(["0.05", "0.2"], "20.68", 280, 140)),
])
def test_deep_lattice_levels_meet_rel_tol_1e_12(rhos, eps, truth):
    """Issue 37's lattice reproducers (δ from 2.7e-795 to 4.6e-372) at rel_tol 1e-12: the tilted contour's float64 sum
    stops near 1e-12 (they came back flagged "precision", e.g. 8.39474692302e-697 ± 9.7e-709 for the first), so the
    front door sums it in arb; each is now certified to the tolerance and contains the brute-force sum."""
    point = accountlib.delta(rhos, eps, rel_tol=1e-12)
    assert point.meets_tolerance and point.shortfall is None and point.error_bound <= 1e-12 * point.delta
    assert abs(point.delta - truth()) <= point.error_bound


def test_a_deep_level_of_a_coarse_low_noise_term_comes_back_in_seconds():
    """Budgets 3/2 and 11/10000 at ε = 34.24: S_L = 11·X₁ + 15000·X₂ with σ₂² = 2/3 puts little tilted mass next to the
    threshold (J ≈ 1e-10), so float64 reaches only 4e-3 relative and the untilted engine at Δ ≈ 1e-200 took 67 s of
    CPU (209 s on a shared machine); the arb sum on the tilted contour answers to 1e-12 in a few seconds."""
    import time

    started = time.perf_counter()
    point = accountlib.delta(accountlib.Composition(["3/2", "11/10000"]), "856/25", rel_tol=1e-12)
    seconds = time.perf_counter() - started
    assert point.meets_tolerance and point.error_bound <= 1e-12 * point.delta
    assert abs(point.delta - _two_term_delta(["3/2", "11/10000"], "856/25", 30, 1200)) <= point.error_bound
    assert seconds < 30, f"{seconds:.1f} s"


def test_a_tolerance_no_engine_meets_is_refused_or_returned_flagged():
    """δ(40) of N_Z(0, 2) (8.39e-697) at rel_tol 1e-12 without the tilted contour (``paths.tilted`` off): the untilted
    engines' floor is Δ = 1e-300, so no bound meets the tolerance. The front door refuses it in one line naming rel_tol
    and why, and best effort returns the narrowest certified bound, flagged."""
    from accountlib.engine.results import EvaluationPaths

    untilted = accountlib.Composition(["1/2"], paths=EvaluationPaths(tilted=False))
    with pytest.raises(ArithmeticError, match=r"rel_tol: could not certify 1e-12 at epsilon = 40.0 \(underflow\)"):
        accountlib.delta(untilted, 40, rel_tol=1e-12)
    point = accountlib.delta(untilted, 40, rel_tol=1e-12, best_effort=True)
    assert not point.meets_tolerance and point.shortfall == "underflow"
    assert abs(point.delta - _wide_brute_delta(2, 40)) <= point.error_bound
    met = accountlib.delta(["1/2"], 40, rel_tol=1e-9)  # a tolerance it meets: no flag
    assert met.meets_tolerance and met.shortfall is None and met.error_bound <= 1e-9 * met.delta


def test_the_smoothed_node_cap_is_named_and_refused_before_the_capped_work():
    """At rel_tol 1e-12 the smoothed engine's node cap stops δ(10) of budget 1 (it returned 1.2e-8·δ unflagged,
    after half a minute at the cap): refused at the cost estimate, and flagged "node cap" where best effort is asked."""
    pair = accountlib.Composition(["1"], engine="smoothed")
    with pytest.raises(ArithmeticError, match=r"\(node cap\)"):
        accountlib.delta(pair, 10, rel_tol=1e-12)
    (coarse,) = pair.delta([10], rel_tol=1e-12, best_effort=False)  # stops at the estimate: flagged, certified
    assert not coarse.meets_tolerance and coarse.shortfall == "node cap"
    assert abs(coarse.delta - _wide_brute_delta(1, 10)) <= coarse.error_bound


@pytest.mark.parametrize("engine", ["lattice", "smoothed"])
def test_epsilon_zero_is_the_total_variation_distance(engine):
    """δ(0) = TV(N_Z(0, 2), N_Z(1, 2)), certified like any other point, by both engines (it was refused)."""
    point = accountlib.delta(accountlib.Composition(["1/2"], engine=engine), 0, rel_tol=1e-9)
    with mpmath.workdps(60):
        p, q = _pmf(2, 0), _pmf(2, 1)
        tv = mpmath.fsum(abs(p[x] - q[x]) for x in p) / 2
    assert abs(point.delta - tv) <= point.error_bound + 1e-40 and point.error_bound <= 1e-9 * point.delta
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, 5000\]"):
        accountlib.delta(["1/2"], -1)


def test_a_smoothed_tradeoff_beyond_its_cost_limit_is_refused_at_the_estimate():
    """f(1/2) of budgets (2.5, 0.05) to 1e-9 ran past 120 s: its cost estimate (17 δ of the first grid at the
    planned contour nodes) exceeds MAX_SMOOTHED_TRADEOFF_NODES, so it is refused before any fine contour sum,
    naming abs_tol (a cost check, not a clock: the estimate itself is compared with the limit)."""
    from accountlib.theory.composition import MAX_SMOOTHED_TRADEOFF_NODES
    from accountlib.theory.tradeoff_duality import FIRST_GRID
    from fractions import Fraction

    pair = accountlib.Composition([2.5, "0.05"], engine="smoothed")
    planned = pair.smoothed.planned_nodes(Fraction(0), rel_tol=1e-9 / 4, abs_tol=1e-9 / 4)
    assert FIRST_GRID * planned > MAX_SMOOTHED_TRADEOFF_NODES
    with pytest.raises(ValueError, match=r"abs_tol: the smoothed trade-off at alpha = 0.5.* contour nodes"):
        accountlib.tradeoff(pair, "1/2", abs_tol=1e-9)


def test_auto_sends_lattices_its_engines_would_refuse_to_the_smoothed_engine_and_it_answers():
    """engine='auto' picked the lattice for these budgets, whose untilted engine its node-bit limit then refused;
    auto now decides by the count that engine refuses by (lattice_affordable: the estimate, and the sieve's own count
    where the estimate is between the limit and four times it), so each goes to the smoothed engine, which answers at
    ε = 1; every DHC-sized lattice stays. Budgets 0.3 and 7/1000003, 13/17 and 1/1000003 (estimates 2.5e8, inside
    the old LATTICE_WORK_UP_TO) went to the lattice and were refused (1.4e8 node-bits counted by the sieve)."""
    from accountlib.engine.tails import MAX_NODE_BITS, ResourceLimitError, sieve_node_bits
    from accountlib.theory.engine_choice import lattice_affordable
    from accountlib.applications.census.allocations import pair_rhos

    for budgets in (["0.3", "7/1000003"], ["13/17", "1/1000003"], ["13/17", "7/1000003"],
                    ["13/17", "7/1000003", "0.2"], ["1/3", "7/1000003", "0.1", "2"]):
        pair = accountlib.Composition(budgets)
        assert pair.engine_kind == "smoothed" and not lattice_affordable(pair.lattice), budgets
        point = accountlib.delta(pair, 1)
        assert point.meets_tolerance and point.error_bound <= 1e-6 * point.delta, budgets
    refused = accountlib.Composition(["0.3", "7/1000003"], engine="lattice")
    assert sieve_node_bits(refused.lattice, 1e-30) > MAX_NODE_BITS  # the engine's own count: it would refuse
    with pytest.raises(ResourceLimitError, match="node-bits"):
        accountlib.delta(refused, 1)
    assert accountlib.Composition(pair_rhos(6, 10)).engine_kind == "lattice"  # the DHC pair of largest estimate


def test_a_smoothed_epsilon_interval_beyond_the_node_cap_is_refused_at_the_estimate():
    """epsilon(["7/1000003", "1/2", "1/99"], 1e-20, abs_tol=1e-12) ran past 120 s: deciding δ to about 1e-12
    relative needs about 22 node caps of contour nodes per value (planned_nodes), refused before the bisection."""
    from accountlib.theory.accounting import SMOOTHED_EPSILON_OVERRUN

    pair = accountlib.Composition(["7/1000003", "1/2", "1/99"])
    assert pair.smoothed.planned_nodes(7, rel_tol=1e-12) > SMOOTHED_EPSILON_OVERRUN * pair.smoothed.engine.max_nodes
    with pytest.raises(ValueError, match=r"abs_tol: an epsilon interval 1e-12 wide"):
        accountlib.epsilon(pair, "1e-20", abs_tol=1e-12)


@pytest.mark.parametrize("rhos, delta, abs_tol", [(["1/2"], "1e-6", 1e-25), (["1/2", "1/3"], "1e-6", 1e-25),
                                                  (["1/2"], "1e-5", 1e-20), (["1/2"], "7e-6", 1e-30)])
def test_an_epsilon_interval_at_a_fine_tolerance_is_decided_without_rounding(rhos, delta, abs_tol):
    """At abs_tol ≲ 1e-17 the ends are decided by δ ± bound within a few ulps of the target δ: the upper end's
    δ + bound must be ≤ δ and the lower end's δ − bound > δ exactly (as rationals), not after a 53-bit sum rounded
    to nearest (which passed an upper end 6e-23 above the target at 1e-6, abs_tol 1e-25)."""
    from fractions import Fraction

    def exact(x):
        man, exp = x.man_exp
        return Fraction(int(man)) * Fraction(2) ** int(exp)

    e = accountlib.epsilon(rhos, delta, abs_tol=abs_tol)
    target = Fraction(delta)
    assert e.upper - e.lower <= Fraction(abs_tol)
    assert exact(e.at_upper.delta) + exact(e.at_upper.error_bound) <= target
    assert exact(e.at_lower.delta) - exact(e.at_lower.error_bound) > target


def test_the_command_line_prints_an_epsilon_interval_that_contains_the_certified_one():
    """`epsilon` rounds its printed ends outwards (lower down, upper up) to 15 digits: rounded to nearest, the upper
    end of --rho 1/2 --delta 1e-6 --abs-tol 1e-25 printed as 3.23733872761585, below the certified 3.2373387276158545…
    (an ε at which the composition is not (ε, 1e-6)-DP)."""
    import contextlib
    import io
    import json
    from fractions import Fraction

    from accountlib.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["epsilon", "--rho", "1/2", "--delta", "1e-6", "--abs-tol", "1e-25", "--json"]) == 0
    (row,) = json.loads(out.getvalue())
    e = accountlib.epsilon(["1/2"], "1e-6", abs_tol=1e-25)
    assert Fraction(row["epsilon_lower"]) <= e.lower and Fraction(row["epsilon_upper"]) >= e.upper


def test_epsilon_refuses_a_width_below_1e_30_at_once_and_certifies_1e_30():
    """abs_tol 1e-40 was refused after 21 s of bisection and 1e-50, 1e-60 ran past 120 s, inside the documented
    [1e-60, 0.5]: a width w needs δ to a relative accuracy about w·|δ'|/δ, and the finest is 1e-30. The range is now
    [1e-30, 0.5], refused in one line naming abs_tol before any δ is computed."""
    import time
    from fractions import Fraction

    for tol in (1e-31, 1e-40, 1e-50, 1e-60):
        started = time.perf_counter()
        with pytest.raises(ValueError, match=r"^abs_tol must be in \[1e-30, 0.5\]; got "):
            accountlib.epsilon(["1/2"], "1e-5", abs_tol=tol)
        assert time.perf_counter() - started < 1
    e = accountlib.epsilon(["1/2"], "1e-5", abs_tol=1e-30)
    assert 0 < e.width <= Fraction(1, 10**30) and e.at_upper.delta + e.at_upper.error_bound <= mpmath.mpf("1e-5")
    # the ends' δ points carry their ε exactly (103 and 104 bits here), though mpf's repr at mpmath's default 15
    # digits shows both as 2.9420063970951387 (a review read that as 53-bit ends)
    for end, point in ((e.lower, e.at_lower), (e.upper, e.at_upper)):
        man, exp = point.epsilon.man_exp
        assert Fraction(int(man)) * Fraction(2) ** int(exp) == end


def test_a_refusal_names_the_bound_reached_rounded_up_not_a_narrowest_bound():
    """The refusal said "the narrowest certified bound is 1.82e-11" for δ(5) of budgets 13/17 and 7/1000003 at
    rel_tol 1e-12, where the smoothed engine had stopped at its coarse pass (best effort reaches 2.1e-19), and printed
    the bound rounded to nearest; it now names the bound certified where the engine stopped, rounded up."""
    import re

    from accountlib.infrastructure.shown import bound_text

    with pytest.raises(ArithmeticError) as refused:
        accountlib.delta(["13/17", "7/1000003"], 5, rel_tol=1e-12)
    message = str(refused.value)
    assert "narrowest certified bound is" not in message and "\n" not in message
    shown = float(re.search(r"the bound certified when the engine stopped is (\S+) on delta", message).group(1))
    assert shown > 1e-12 * 1.34e-9  # a bound that misses the tolerance, as printed
    assert bound_text(mpmath.mpf("1.8201e-11")) == "1.9e-11" and bound_text(mpmath.mpf("9.96e-14")) == "1.0e-13"


def test_every_epsilon_interval_says_whether_it_meets_its_tolerance():
    """r37b S3-10: EpsilonInterval had no meets_tolerance (every other result type has it), and the front door's
    epsilon of a DP-SGD run ignored rel_tol (nan accepted) and refused best_effort ("unexpected keyword argument").
    Now the rule of delta: an interval wider than abs_tol raises in one line, or with best_effort=True comes back
    flagged ("precision": float64 certifies a DP-SGD run's δ to about T·1e-13 relative, so 1e-12 is out of reach
    for this run), its ends still certified."""
    from fractions import Fraction

    from accountlib import epsilon
    from accountlib.theory.dpsgd_accounting import DPSGDComposition

    e = epsilon(["1/2"], "1e-5", abs_tol=1e-12)
    assert e.meets_tolerance and e.shortfall is None and e.width <= Fraction(1e-12)
    run = DPSGDComposition(0.01, 1.0, 100)
    with pytest.raises(ValueError, match=r"^rel_tol must be a finite number in \[1e-30, 0.5\]"):
        epsilon(run, "1e-5", rel_tol=float("nan"))
    with pytest.raises(ArithmeticError, match="or pass best_effort=True"):
        epsilon(run, "1e-5", abs_tol=1e-12)
    flagged = epsilon(run, "1e-5", abs_tol=1e-12, best_effort=True)
    assert not flagged.meets_tolerance and flagged.shortfall == "precision" and flagged.width > Fraction(1e-12)
    met = epsilon(run, "1e-5", abs_tol=1e-8, best_effort=True)
    assert met.meets_tolerance and met.width <= Fraction(1e-8)
    assert flagged.lower <= met.upper and met.lower <= flagged.upper  # both certified: they overlap
    with pytest.raises(ValueError, match="best_effort must be True or False"):
        epsilon(["1/2"], "1e-5", best_effort="yes")


@pytest.mark.parametrize("call", [lambda flag: accountlib.delta(["13/17", "7/1000003"], 3, rel_tol=1e-14, best_effort=flag),
                                  lambda flag: accountlib.tradeoff(["1/2"], "0.3", best_effort=flag),
                                  lambda flag: accountlib.epsilon(["1/2"], "1e-5", best_effort=flag)])
def test_best_effort_is_true_or_false_in_every_front_door_call(call):
    """r37g F4: delta and tradeoff read best_effort="no" as true and returned a flagged point where the promise is
    an error; every front-door call now refuses anything but True or False before any work."""
    for flag in ("no", 0, None):
        with pytest.raises(ValueError, match=r"^best_effort must be True or False; got"):
            call(flag)


def test_the_documented_ranges_state_the_limit_of_every_number_read():
    """r37b S3-9: delta's docstring said ε in [0, 5000] and tradeoff's α in [0, 1], yet 1e-1001 (and 1001 digits)
    is refused as every number read is; the documentation now states that limit where it states the range."""
    from pathlib import Path

    from accountlib.cli import __doc__ as cli_doc

    for function, value in ((accountlib.delta, "1e-1001"), (accountlib.tradeoff, "1e-1001"),
                            (accountlib.delta, "0." + "1" * 1001)):
        assert "1e-1000" in function.__doc__ and "1000 digits" in function.__doc__
        with pytest.raises(ValueError, match=r"out of the supported range \(magnitudes between 1e-1000 and 1e1000, "
                                             r"at most 1000 digits\)"):
            function(["1/2"], value)
    assert "[1e-1000, 1e1000]" in " ".join(cli_doc.split())
    running = " ".join((Path(__file__).parents[2] / "book" / "running.md").read_text().split())
    assert "a nonzero ε is at least 1e-1000" in running and "a nonzero magnitude in [1e-1000, 1e1000]" in running
