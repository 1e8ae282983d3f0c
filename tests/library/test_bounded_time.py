"""Bounded time (issue 37, "Deliver 2"): every call answers or refuses within its documented work budget, and a
refusal comes from the cost estimate before the expensive work. Asserted by work counts — a sieve, a contour pass or
an engine that must not run is monkeypatched to raise if called, or its nodes are counted — never by a clock."""

from fractions import Fraction

import pytest

import accountlib
from accountlib.engine import tails as tails_module
from accountlib.infrastructure.numbers import ResourceLimitError, reread_resource_limits


@pytest.fixture
def fresh_limits():
    """Resource limits read again after the test changes the environment, and again after it."""
    reread_resource_limits()
    yield
    reread_resource_limits()


def test_a_lattice_engine_far_beyond_its_work_limit_is_refused_before_its_sieve(monkeypatch):
    """δ(10) of budgets 13/17, 7/1000003 and 0.2 on the lattice engine at rel_tol 1e-9 was refused only after its
    sieve at Δ = 1e-30 had run (22 s, 2.9 GB, 2.1e9 node-bits counted); the survivors estimate (3.8e9 node-bits)
    is beyond ESTIMATE_MARGIN times the limit, so the engine refuses before sieving: the sieve must not run."""
    from accountlib.engine.results import EvaluationPaths

    # the untilted engine alone (its tilted contour, tried first at this ε, is another cost: tested apart)
    pair = accountlib.Composition(["13/17", "7/1000003", "0.2"], engine="lattice", paths=EvaluationPaths(tilted=False))
    assert tails_module.planned_node_bits(pair.lattice, 1e-30) > tails_module.ESTIMATE_MARGIN * tails_module.MAX_NODE_BITS

    def no_sieve(*args, **kwargs):
        raise AssertionError("the sieve ran for an engine its estimate refuses")

    monkeypatch.setattr(tails_module, "sieve_nodes", no_sieve)
    with pytest.raises(ResourceLimitError, match=r"estimated before the sieve.*engine='smoothed'"):
        accountlib.delta(pair, 10, rel_tol=1e-9)


def test_auto_hands_the_sieve_it_ran_to_decide_to_the_lattice_engine(monkeypatch, fresh_limits):
    """In the band between the limit and four times it, engine='auto' runs the sieve at Δ = 1e-30 to decide; the
    lattice engine a δ request then builds at that Δ takes that sieve instead of running it again: one sieve in all
    (two before). The band is made with ACCOUNTLIB_MAX_NODE_BITS between the sieve's count and the estimate."""
    from accountlib.theory.composition import lattice_work

    budgets = ["1/2", "1/3"]
    lattice = accountlib.Composition(budgets, engine="lattice").lattice
    counted = tails_module.sieve_node_bits(lattice, 1e-30)
    estimate = lattice_work(lattice)
    assert counted < estimate
    monkeypatch.setenv("ACCOUNTLIB_MAX_NODE_BITS", str(int((counted + estimate) / 2)))
    reread_resource_limits()
    calls = []
    sieve = tails_module.sieve_nodes

    def counting(*args, **kwargs):
        calls.append(args[1:])
        return sieve(*args, **kwargs)

    monkeypatch.setattr(tails_module, "sieve_nodes", counting)
    pair = accountlib.Composition(budgets)
    assert pair.engine_kind == "lattice" and len(calls) == 1  # the decision's sieve
    point = accountlib.delta(pair, 1, rel_tol=1e-9)
    assert point.error_bound <= 1e-9 * point.delta
    assert pair.engines[0].accuracy == 1e-30 and len(calls) == 1  # the engine at Δ = 1e-30 did not sieve again


@pytest.fixture
def scanned(monkeypatch):
    """The contour nodes of every smoothed pass that ran its sum (a pass refused by its node count is not counted:
    it scanned nothing)."""
    from accountlib.engine import smoothed

    counted = []
    evaluate = smoothed.SmoothedProfile.evaluate

    def counting(self, *args, **kwargs):
        result = evaluate(self, *args, **kwargs)
        counted.append(int(result.terms["scanned"]))
        return result

    monkeypatch.setattr(smoothed.SmoothedProfile, "evaluate", counting)
    return counted


def test_a_smoothed_delta_never_starts_a_pass_beyond_its_work_budget(monkeypatch, fresh_limits, scanned):
    """δ(10) of budget 1 at rel_tol 1e-9 scanned 1.38e7 and then 2.75e7 nodes (12 s) before the node cap stopped
    the next pass; the passes of one δ now share one budget (MAX_SMOOTHED_WORK, here set to 2e6 to keep the test
    short), and a pass whose node count passes what is left is not started: refused (node cap) for the front
    door, the finest bound within the budget, flagged, for best effort."""
    from accountlib.engine.front import MAX_SMOOTHED_WORK

    pair = accountlib.Composition(["1"], engine="smoothed")
    assert MAX_SMOOTHED_WORK < pair.smoothed.planned_nodes(10, rel_tol=1e-9) * 3  # the default budget: two passes
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_WORK", "2000000")
    reread_resource_limits()
    assert pair.smoothed.planned_nodes(10, rel_tol=1e-9) > 2_000_000  # the second pass alone is beyond it
    scanned.clear()
    with pytest.raises(ArithmeticError, match=r"rel_tol: could not certify 1e-09 .*\(node cap\)"):
        accountlib.delta(pair, 10, rel_tol=1e-9)
    assert 0 < sum(scanned) <= 2_000_000
    scanned.clear()
    (point,) = pair.delta([10], rel_tol=1e-9)  # best effort
    assert 0 < sum(scanned) <= 2_000_000 and point.shortfall == "node cap" and not point.meets_tolerance
    assert point.error_bound < point.delta  # still a certified two-sided bound, not the Chernoff bracket


def test_a_smoothed_tradeoff_point_stops_within_its_work_limit(monkeypatch, fresh_limits, scanned):
    """The work of one smoothed trade-off point (first grid, missed passes, refinement rounds) was checked only
    before each δ, so the last δ could run on past OVERRUN times the limit (up to a node cap per pass); each δ now
    gets only what is left (its work_limit) and the point is refused before a pass that would pass it. The estimate
    is set to pass (planned_nodes 0) and the limit to 1e6, so that the counter, not the estimate, refuses."""
    from accountlib.engine.front import SmoothedTails
    from accountlib.theory.composition import OVERRUN

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "1000000")
    reread_resource_limits()
    monkeypatch.setattr(SmoothedTails, "planned_nodes", lambda self, epsilon, rel_tol=1e-6: 0)
    pair = accountlib.Composition(["1/2"], engine="smoothed")
    with pytest.raises(ResourceLimitError, match=r"abs_tol: the smoothed trade-off at alpha = 0.5.*more than the "
                                                 r"4,000,000 accepted"):
        accountlib.tradeoff(pair, "1/2", abs_tol=1e-7)
    assert 0 < sum(scanned) <= OVERRUN * 1_000_000


def test_the_tilted_contour_starts_no_round_beyond_its_budget_or_its_estimate(monkeypatch, fresh_limits):
    """δ(10) of budgets 13/17, 7/1000003 and 0.2 on the lattice engine at rel_tol 1e-9 took 21.8 s: a float64 tilted
    round of 4.5e6 nodes (7 s), a second of 5.1e6 and the arb sum's sieve (4 s) before the arb sum refused by its
    count. Now a float64 round that would pass MAX_TILTED_NODES is not started, and the arb sum is not built when the
    last round's nodes already put it past MAX_PRECISE_NODE_TERMS. Shown on budget 1/2 at ε = 40 (whose deep level
    misses 1e-12 in float64) with both limits set to 1: one float64 round, no arb engine built."""
    from accountlib.engine import front

    monkeypatch.setenv("ACCOUNTLIB_MAX_TILTED_NODES", "1")
    monkeypatch.setenv("ACCOUNTLIB_MAX_PRECISE_NODE_TERMS", "1")
    reread_resource_limits()
    built = []
    tilted_engine = front.CertifiedTails.tilted_engine

    def recording(self, smallest_index, j_tol, *, precise=False):
        built.append(precise)
        return tilted_engine(self, smallest_index, j_tol, precise=precise)

    monkeypatch.setattr(front.CertifiedTails, "tilted_engine", recording)
    pair = accountlib.Composition(["1/2"], engine="lattice")
    (point,) = pair.delta([40], rel_tol=1e-12)
    assert built == [False]  # the first float64 round only
    assert point.error_bound > 0 and point.delta >= 0  # a certified (flagged or met) point all the same
