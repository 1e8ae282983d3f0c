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
    from accountlib.theory.engine_choice import lattice_work

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


SLACK = 1.01
"""How far a meter may pass its limit: a pass is priced from the previous pass's share of kept nodes, grown by
SHARE_GROWTH, and passes it only where a finer pass keeps more than that (here by at most 0.03%: 6,001,640 units
for a limit of 6e6), never by a pass's worth."""


@pytest.fixture
def units(monkeypatch):
    """The work units of every smoothed pass that ran its sum: scanned nodes + (1 + 4G) × kept nodes for G distinct
    groups (the cost model of accountlib.engine.work.work_units, written out here so that it is not the code tested)."""
    from accountlib.engine import smoothed

    counted = []
    evaluate = smoothed.SmoothedProfile.evaluate

    def counting(self, *args, **kwargs):
        result = evaluate(self, *args, **kwargs)
        counted.append(int(result.terms["scanned"]) + (1 + 4 * len(self.groups)) * int(result.terms["nodes"]))
        return result

    monkeypatch.setattr(smoothed.SmoothedProfile, "evaluate", counting)
    return counted


def test_the_smoothed_work_meter_prices_the_nodes_the_sieve_keeps(monkeypatch, fresh_limits, units):
    """epsilon(budget 1, δ = 1e-5) was refused only after 11-14 CPU s: its meter counted scanned nodes (4e7), but a
    node the sieve keeps costs about five scanned ones (budget 1 keeps 70% of its nodes; the P.L. 94 paths almost
    none). The meter now counts work units and prices each pass before its sum from the previous pass's share of
    kept nodes: the call spends at most its limit (here 5e6, to keep the test short), and with best_effort=True the
    interval certified so far comes back flagged instead of the refusal."""
    pair = accountlib.Composition(["1"], engine="smoothed")
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK", "5000000")
    reread_resource_limits()
    # the refusal says what was spent and offers best effort (r37e S3-2: it quoted the price of a coarse first pass
    # of a new step, "the next contour pass would cost about 2,087 more", as if that were what abs_tol needs)
    with pytest.raises(ResourceLimitError, match=r"abs_tol: .*more than the 5,000,000 work units .*[\d,]+ spent when a "
                                                 r"contour pass was stopped\); the interval certified so far is \[.*\]; "
                                                 r"loosen abs_tol, pass best_effort=True for that interval, flagged, or "
                                                 r"raise the limit$"):
        accountlib.epsilon(pair, "1e-5")
    assert 0 < sum(units) <= 5_000_000 * SLACK
    units.clear()
    interval = accountlib.epsilon(pair, "1e-5", best_effort=True)
    assert 0 < sum(units) <= 5_000_000 * SLACK
    assert not interval.meets_tolerance and interval.shortfall == "node cap" and interval.width > Fraction(1, 10**9)
    assert interval.at_upper.delta + interval.at_upper.error_bound <= 1e-5  # the upper end is certified
    assert interval.at_lower.delta - interval.at_lower.error_bound > 1e-5  # and so is the lower


def test_a_check_spends_one_smoothed_work_budget_and_each_epsilon_of_a_delta_call_one(monkeypatch, fresh_limits, units):
    """check(budget 1, (4.4302380554, 1e-5)) tightened rel_tol round after round, each δ with a fresh 3.5e7-node
    budget (11.5 CPU s, then "undecided"); delta(budget 1, [9, 10, 11], rel_tol=1e-9, best_effort=True) gave each ε
    its own. One WorkMeter (MAX_SMOOTHED_CALL_WORK, here 5e6) now serves all the rounds and levels of a check, and
    one each ε of a delta call (r37g F2: pooled, one ε could spend the budget of the next): "undecided", and the δ
    flagged node cap, within it."""
    from accountlib import ApproximateDP

    pair = accountlib.Composition(["1"], engine="smoothed")
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK", "5000000")
    reread_resource_limits()
    checks = accountlib.check(pair, ApproximateDP("4.4302380554", "1e-5"))
    assert [c.status for c in checks] == ["undecided"] and 0 < sum(units) <= 5_000_000 * SLACK
    units.clear()
    points = accountlib.delta(pair, ["9", "10", "11"], rel_tol=1e-9, best_effort=True)
    assert 0 < sum(units) <= 3 * 5_000_000 * SLACK
    assert all(p.shortfall == "node cap" and p.error_bound < p.delta for p in points)  # certified, flagged
    with pytest.raises(ArithmeticError, match=r"rel_tol: could not certify 1e-09 .*\(node cap\)"):
        accountlib.delta(pair, ["9", "10", "11"], rel_tol=1e-9)


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


def test_a_smoothed_tradeoff_point_stops_within_its_work_limit(monkeypatch, fresh_limits, units):
    """The work of one smoothed trade-off point (first grid, missed passes, refinement rounds) was checked only
    before each δ, so the last δ could run on past OVERRUN times the limit (up to a node cap per pass); each δ now
    gets only what is left (its cost_limit, in work units) and the point is refused before a pass that would pass
    it, the message naming the budget (it named the nodes spent as needed, below the limit it named; r37f S3-3:
    then it quoted the price of the pass not started, as if that were what abs_tol needs; r37g F1: then it refused
    before the finest pass within what was left, which best effort ran and which met abs_tol: now that pass runs
    either way, and only a point it leaves wider than abs_tol is refused); with best_effort=True the point comes back flagged node cap within the same work.
    The estimate is set to pass (planned_nodes 0) and the limit to 1e6, so that the counter, not the estimate,
    refuses."""
    from accountlib.engine.front import SmoothedTails
    from accountlib.theory.composition import OVERRUN

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "1000000")
    reread_resource_limits()
    monkeypatch.setattr(SmoothedTails, "planned_nodes", lambda self, epsilon, rel_tol=1e-6, abs_tol=0.0: 0)
    pair = accountlib.Composition(["1/2"], engine="smoothed")
    with pytest.raises(ResourceLimitError, match=r"abs_tol: the smoothed trade-off at alpha = 0.5 to abs_tol = 1e-07 "
                                                 rf"needs more than the {OVERRUN * 1_000_000:,} work units accepted "
                                                 rf"\({OVERRUN} times ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES, 1,000,000 "
                                                 r"contour nodes\): they reached a bound of \S+; loosen abs_tol .*, "
                                                 r"pass best_effort=True for that bound, flagged, or raise the limit$"):
        accountlib.tradeoff(pair, "1/2", abs_tol=1e-7)
    assert 0 < sum(units) <= OVERRUN * 1_000_000 * SLACK
    units.clear()
    point = accountlib.tradeoff(pair, "1/2", abs_tol=1e-7, best_effort=True)
    assert 0 < sum(units) <= OVERRUN * 1_000_000 * SLACK
    assert not point.meets_tolerance and point.shortfall == "node cap" and 0 < point.beta < 1


def test_a_smoothed_tradeoff_point_asks_each_delta_only_the_accuracy_its_abs_tol_needs(scanned):
    """Each δ behind a smoothed trade-off point was computed to a relative 1e-8 whatever abs_tol asked (f(0.1) of
    budgets 0.05 and 0.2 to abs_tol 1e-4: 35.9 s; f(1/2) of 2.5 and 0.05 to 1e-6: 46 s); β's error is δ's absolute
    error, so each δ is now asked to an absolute abs_tol/4 and the work follows the accuracy asked for. Measured:
    6.5e4 nodes at 1e-4, and the estimate grows about as 1/sqrt(abs_tol) (3.0e6 at 1e-6, 1.1e7 at 1e-7)."""
    from accountlib.theory.tradeoff_duality import FIRST_GRID, first_grid

    pair = accountlib.Composition(["0.05", "0.2"], engine="smoothed")
    scanned.clear()
    (point,) = pair.tradeoff(["0.1"], abs_tol=1e-4)
    assert point.meets_tolerance and point.error_bound <= 1e-4
    assert 0 < sum(scanned) <= 1_000_000  # a relative 1e-8 per δ scans more than that in its first pass alone
    fine = accountlib.Composition(["0.05", "0.2"], engine="smoothed").tradeoff(["0.1"], abs_tol=1e-7)[0]
    assert abs(point.beta - fine.beta) <= point.error_bound + fine.error_bound  # the coarse answer is certified
    wide = accountlib.Composition([2.5, "0.05"], engine="smoothed")
    grid = first_grid(Fraction(1, 2))

    def planned(abs_tol):
        share = abs_tol / 4
        return FIRST_GRID * max(wide.smoothed.planned_nodes(e, rel_tol=share, abs_tol=share) for e in (grid[0], grid[8]))

    assert 2 < planned(1e-7) / planned(1e-6) < 5  # about sqrt(10): the work scales with the accuracy asked for
    assert planned(1e-6) < wide.smoothed.planned_nodes(grid[0], rel_tol=1e-8) * FIRST_GRID / 4


def test_a_smoothed_epsilon_call_shares_one_work_budget_and_is_refused_when_it_runs_out(monkeypatch, fresh_limits,
                                                                                        units):
    """epsilon(budgets 13/17 and 7/1000003, δ = 1e-6) ran five undecided bisection steps each on a capped finest pass
    of 2.86e7 nodes (14 s), budget 1 at δ = 1e-5 many more (148.6 s): the δ of one epsilon call now share one budget
    (MAX_SMOOTHED_EPSILON_WORK, here 1.2e7 work units to keep the test short; a WorkMeter), each step gets what is left, and the
    call is refused naming abs_tol, with the interval certified so far, once a δ was stopped by it."""
    from accountlib.theory.accounting import MAX_SMOOTHED_EPSILON_WORK

    pair = accountlib.Composition(["13/17", "7/1000003"])
    assert pair.engine_kind == "smoothed" and MAX_SMOOTHED_EPSILON_WORK >= 35_000_000  # the P.L. 94 worst pair's need
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK", "12000000")
    reread_resource_limits()
    units.clear()
    with pytest.raises(ResourceLimitError, match=r"abs_tol: an epsilon interval 1e-09 wide for delta = 1e-06 needs "
                                                 r"more than the 12,000,000 work units.*certified so far is \[4\.\d+, 4\.\d+\]"):
        accountlib.epsilon(pair, "1e-6")
    assert 0 < sum(units) <= 12_000_000 * SLACK
    interval = accountlib.epsilon(pair, "1e-6", abs_tol=1e-4)  # a coarser interval fits the same budget
    assert interval.width <= Fraction(1, 10**4) and interval.at_upper.delta + interval.at_upper.error_bound <= 1e-6


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


@pytest.fixture
def no_engine_built(monkeypatch):
    """Any tilted engine or sieve built fails the test: the request must be refused on the estimates alone."""
    from accountlib.engine import front

    def no_engine(*args, **kwargs):
        raise AssertionError("an engine was built for a request refused by the estimates")

    monkeypatch.setattr(front.CertifiedTails, "tilted_engine", no_engine)
    monkeypatch.setattr(tails_module, "sieve_nodes", no_engine)


def test_a_tolerance_out_of_every_engines_reach_is_refused_before_any_sieve(no_engine_built):
    """δ(10) of budgets 13/17, 7/1000003 and 0.2 on the lattice engine at rel_tol 1e-9 was refused after a float64
    round of the tilted contour of 4.48e6 nodes (7.8 CPU s, 1.25 GB) whose rounding alone (1.8e-9 of J) misses
    1e-9: with the untilted engines refused at Δ = 1e-30 by their estimate and the arb sum beyond its work limit,
    the contour's planned nodes (5.2e6, before its sieve) put its float64 floor above rel_tol, so no engine is built."""
    pair = accountlib.Composition(["13/17", "7/1000003", "0.2"], engine="lattice")
    with pytest.raises(ResourceLimitError, match=r"^rel_tol = 1e-09 is out of the lattice engines' reach here: the "
                                                 r"tilted contour in float64 would keep about 5.2e\+06 nodes.*loosen rel_tol"):
        pair.delta([10], rel_tol=1e-9, best_effort=False)  # (best effort: the contour's bound, flagged, is tried)
    assert pair.tilted_engines == [] and pair.engines == []


@pytest.mark.parametrize("rel_tol", [9e-9, 3e-9, 1.5e-9])
def test_a_tolerance_below_the_floor_of_cancelling_tails_is_refused_before_any_sieve(no_engine_built, rel_tol):
    """r37d S2-2: the same δ(10) at rel_tol 1e-8 to 1.5e-9 was refused after the float64 round (9 CPU s, 1.25 GB): the
    estimate took the tails' rounding floor (1.2e-9) for δ's, but δ = P₁ − e^ε P₂ cancels (its bound 2.47e-8 of δ,
    the tails' 1.8e-9 and 2.0e-9 times (P₁ + e^ε P₂)/δ = 13); the floor is now estimated for δ (2.4e-8), and the
    refusal names the engine that answers (the smoothed engine: every budget in its range) instead of saying the
    tolerance is out of every engine's reach. (Within FLOOR_ESTIMATE_MARGIN = 2.5 of the estimate, 1e-8 here, the
    contour runs: the estimate is not a bound.)"""
    pair = accountlib.Composition(["13/17", "7/1000003", "0.2"], engine="lattice")
    with pytest.raises(ResourceLimitError, match=r"cancel, about 2.4e-08 of δ, .*use engine='smoothed'.*loosen rel_tol "
                                                 r"to above about 2.5e-08") as refused:
        pair.delta([10], rel_tol=rel_tol, best_effort=False)
    assert "every engine's reach" not in str(refused.value) and pair.tilted_engines == [] and pair.engines == []


def test_the_float64_floor_the_refusal_relies_on_is_below_the_contours_own_bound():
    """float64_floor(planned_nodes) is what refuses the contour above; on budgets 13/17 and 7/1000003 at ε = 10 (a
    first round of 0.9e6 nodes) the estimate is within 25% of the sieve's count and J's certified bound on the real
    contour is at least the floor of the nodes it kept, so a refused round could not have met the tolerance."""
    from accountlib.engine.tilted import TiltedTailEngine, float64_floor, planned_nodes

    pair = accountlib.Composition(["13/17", "7/1000003"], engine="lattice")
    lo, _ = pair._thresholds(Fraction(10))
    planned = planned_nodes(pair.lattice, lo, 1e-12)
    engine = TiltedTailEngine(pair.lattice, smallest_index=lo, j_tol=1e-12)
    assert 0.8 < planned / engine.nodes.size < 1.25
    value, error = engine._j_sum(lo, lo / float(pair.lattice.variance_proxy))
    assert error / value >= float64_floor(engine.nodes.size)
    # δ's floor, estimated from the planned nodes and the normal tails' cancellation (5.3e-9), is below the bound
    # the contour certifies for δ (3.8e-8 of δ): a request it refuses at once the contour could not have met
    from accountlib.engine.reach import combined_floors

    first, second = engine.tail_indices(pair._thresholds(Fraction(10)))
    point = pair._combine(40, Fraction(10), first, second)
    def combine(digits, i, tails):
        combined = pair._combine(digits, Fraction(10), *tails)
        return combined, combined.delta, combined.error_bound

    (estimate,) = combined_floors(pair.lattice, [pair._thresholds(Fraction(10))], combine, float64_floor(planned))
    assert float64_floor(planned) * 5 < estimate <= point.error_bound / point.delta


def test_auto_without_a_fallback_engine_answers_in_seconds_or_refuses(monkeypatch):
    """engine='auto' sent budgets 9/2 and 1/1000003 (9/2 outside the smoothed engine's range) to the lattice, whose
    engine at Δ = 1e-30 evaluated 214,610 nodes at 191 bits (4.1e7 node-bits, 18.9 CPU s; 100 and 1/1000003: 1.7e8
    estimated, 23 s): with no engine to fall back on, auto takes on at most AUTO_NODE_BITS (2e7, about 8 s) and
    refuses past it before any node is evaluated, saying loosening rel_tol cannot help and naming engine='lattice'."""
    from accountlib.theory.engine_choice import AUTO_NODE_BITS

    evaluate = tails_module.TailEngine.tail_indices
    monkeypatch.setattr(tails_module.TailEngine, "tail_indices", lambda *a: (_ for _ in ()).throw(AssertionError))
    for budgets in (["9/2", "1/1000003"], ["100", "1/1000003"]):
        pair = accountlib.Composition(budgets)
        assert pair.engine_kind == "lattice" and pair.tails.max_node_bits == AUTO_NODE_BITS
        with pytest.raises(ResourceLimitError, match=r"above the limit of 2e\+07; every δ request starts at "
                           r"Δ = 1e-30 whatever the tolerance, so loosening rel_tol = 1e-06 cannot help: use budgets "
                           r"with smaller denominators or raise ACCOUNTLIB_MAX_NODE_BITS \(or pass engine='lattice'"):
            accountlib.delta(pair, 3)
        assert pair.engines == []
    monkeypatch.setattr(tails_module.TailEngine, "tail_indices", evaluate)
    assert accountlib.Composition(["9/2", "1/3"]).tails.max_node_bits == AUTO_NODE_BITS  # small: answered as before
    assert accountlib.delta(["9/2", "1/3"], 3).meets_tolerance
    assert accountlib.Composition(["9/2", "1/1000003"], engine="lattice").tails.max_node_bits is None


@pytest.mark.parametrize("budgets, eps, cause", [
    (["9/2", "1/10000019"], 3, "node-bits"), (["1e-13", "1/3"], 1, "this lattice needs N ≈ 4.13e\\+14")])
def test_a_lattice_refusal_at_the_first_accuracy_names_rel_tol_and_says_loosening_it_cannot_help(budgets, eps, cause):
    """r37c S3-4: "Δ = 1e-30 needs 687394 quadrature nodes … loosen the tolerance" and "use budgets with smaller
    denominators or a looser tolerance" named no argument, and advised a looser tolerance where every δ request starts
    at Δ = 1e-30 whatever it is."""
    with pytest.raises(ResourceLimitError, match=cause) as refused:
        accountlib.delta(budgets, eps)
    message = str(refused.value)
    assert "whatever the tolerance, so loosening rel_tol = 1e-06 cannot help" in message
    assert "looser tolerance" not in message and "loosen the tolerance" not in message and "\n" not in message


def test_a_lattice_refusal_at_a_finer_accuracy_says_rel_tol_asked_for_it(monkeypatch, fresh_limits):
    """Past the first Δ a finer engine is built because rel_tol asks for it (δ(12) of budgets 1/2 and 1/3 is 2.7e-38:
    Δ = 1e-50 after 1e-30, 20,706 node-bits after 11,799); with the limit between the two the refusal names rel_tol
    and its value and says loosening it helps (it said "loosen the tolerance", naming no argument)."""
    from accountlib.engine.results import EvaluationPaths

    monkeypatch.setenv("ACCOUNTLIB_MAX_NODE_BITS", "15000")
    reread_resource_limits()
    pair = accountlib.Composition(["1/2", "1/3"], engine="lattice", paths=EvaluationPaths(tilted=False))
    with pytest.raises(ResourceLimitError, match=r"^rel_tol = 1e-06 needs Δ = 1e-50 here \(finer than the first "
                                                 r"engine's 1e-30\): Δ = 1e-50 needs .* above the limit of 1\.5e\+04; "
                                                 r"loosen rel_tol or raise ACCOUNTLIB_MAX_NODE_BITS$"):
        pair.delta([12], rel_tol=1e-6)


def test_a_deep_lattice_request_beyond_the_untilted_engines_keeps_the_contours_bound_with_best_effort(monkeypatch,
                                                                                                     fresh_limits):
    """r37d S2-1/S2-2: the refusal before any sieve ignored best_effort (budgets 13/17, 7/1000003 and 0.2 at ε = 40,
    rel_tol = 1e-9: the old code returned the tilted contour's δ = 1.69e-355 flagged, the new one refused), and a
    refusal after the contour's rounds said loosening rel_tol "cannot help" where a looser rel_tol is met by the
    contour (1e-7 answered what 1e-8 refused). Here the untilted engines are refused at Δ = 1e-30 (node-bit limit
    1,000) and the contour's arb rounds are out of reach (10 factors): δ(12) of budgets 1/2 and 1/3 is certified by
    its float64 rounds to about 1.7e-12 of δ."""
    monkeypatch.setenv("ACCOUNTLIB_MAX_NODE_BITS", "1000")
    monkeypatch.setenv("ACCOUNTLIB_MAX_PRECISE_NODE_TERMS", "10")
    reread_resource_limits()
    fresh = lambda: accountlib.Composition(["1/2", "1/3"], engine="lattice")  # noqa: E731
    with pytest.raises(ResourceLimitError, match="out of the lattice engines' reach"):
        fresh().delta([12], rel_tol=1e-14, best_effort=False)  # at once: estimates say no round can meet it
    point = fresh().delta([12], rel_tol=1e-14, best_effort=True)[0]
    assert not point.meets_tolerance and point.shortfall == "precision"
    reached = point.error_bound / point.delta
    assert 1e-13 < reached < 1e-10
    with pytest.raises(ResourceLimitError, match=r"the tilted contour certified these δ to .* above rel_tol = 1e-12: "
                                                 r"loosen rel_tol to at least ([0-9.e-]+), pass best_effort=True") as no:
        fresh().delta([12], rel_tol=1e-12, best_effort=False)  # after the contour's rounds: the bound it reached named
    advised = float(str(no.value).split("loosen rel_tol to at least ")[1].split(",")[0])
    assert advised >= reached
    again = fresh().delta([12], rel_tol=advised, best_effort=False)[0]  # the advice holds: met
    assert again.meets_tolerance and again.delta == point.delta


def test_a_smoothed_tradeoff_never_returns_a_round_wider_than_an_earlier_one():
    """r37e S2-1: once a point's work was spent its later δ came back with the Chernoff bracket only (±0.5), and the
    refinement rounds built on them returned β = 0.1155 ± 0.037 where the first grid had reached 1e-7 (budgets 2.5 and
    0.05, α = 1/2, abs_tol 3e-7, best effort). Here randomized response with e^1 (δ(ε) = max(0, (e − e^ε)/(1 + e)),
    β(α) = max(0, 1 − e·α, (1 − α)/e)) gives its first 17 δ to ±1e-6 and every later δ as [0, 1]: the answer must
    keep the first round's bracket, which contains the truth."""
    import mpmath

    from accountlib.theory.tradeoff_duality import FIRST_GRID, tradeoff_from_profile

    calls = []

    def delta_at(eps):
        calls.append(eps)
        if len(calls) > FIRST_GRID:
            return mpmath.mpf("0.5"), mpmath.mpf("0.5")
        exact = max(mpmath.mpf(0), (mpmath.e - mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)) / (1 + mpmath.e))
        return exact, mpmath.mpf("1e-6")

    first = tradeoff_from_profile(delta_at, Fraction(1, 2), 1.0)  # one round: its bracket
    calls.clear()
    lower, upper = tradeoff_from_profile(delta_at, Fraction(1, 2), 1e-12)  # refined on useless δ
    assert len(calls) > FIRST_GRID  # it did refine
    assert upper - lower <= first[1] - first[0] + 1e-30
    alpha = mpmath.mpf(1) / 2  # randomized response e^1: β(α) = max(0, 1 − e·α, (1 − α)/e)
    truth = max(0, 1 - mpmath.e * alpha, (1 - alpha) / mpmath.e)
    assert lower <= truth <= upper


def test_a_calibration_with_no_engine_to_fall_back_on_is_refused_before_its_first_check(monkeypatch):
    """r37d E4: ``calibrate --rho 9/2 1/1000003 --target-eps 3 --target-delta 0.1`` ran past 60 CPU s: engine='auto'
    bounds each lattice engine (AUTO_NODE_BITS, about 8 s) where a budget above 4 leaves the smoothed engine out,
    but a calibration builds one per check (8 and 14 CPU s for the first two). The estimate (7.2e7 node-bits per
    check, at least 11 checks) now refuses it before any check; budgets 9/2 and 1/3 (1.1e5 per check) calibrate."""
    from accountlib.theory import calibration

    def no_check(*args, **kwargs):
        raise AssertionError("a check ran for a calibration refused by its estimate")

    monkeypatch.setattr(calibration, "decide", no_check)
    target = accountlib.ApproximateDP(3, "0.1")
    with pytest.raises(ResourceLimitError, match=r"^calibrating these budgets takes at least 11 checks of about "
                                                 r"7.2e\+07 node-bits .* raise ACCOUNTLIB_MAX_NODE_BITS to at least"):
        calibration.calibrate(["9/2", "1/1000003"], target)
    monkeypatch.undo()
    assert calibration.calibrate(["9/2", "1/3"], target).proven_smallest


def test_a_lattice_epsilon_whose_every_step_needs_a_fine_contour_is_refused_before_the_bisection(monkeypatch):
    """r37d E1: epsilon(Composition(['13/17', '7/1000003', '0.2'], engine='lattice'), '1e-20') ran past 40 CPU s and
    3.2 GB: its untilted engine is refused (too fine), so each bisection step built a tilted contour of 4.5e6 nodes
    (9 CPU s, 1.25 GB). The estimate (5.2e6 nodes a step, at least 35 steps to 1e-9) now refuses it before any
    contour, naming abs_tol and the smoothed engine; budgets 1/2 and 1/3 at the same δ answer as before."""
    from accountlib.engine import front

    def no_engine(*args, **kwargs):
        raise AssertionError("a contour was built for an epsilon call refused by its estimate")

    monkeypatch.setattr(front.CertifiedTails, "tilted_engine", no_engine)
    pair = accountlib.Composition(["13/17", "7/1000003", "0.2"], engine="lattice")
    with pytest.raises(ResourceLimitError, match=r"^abs_tol: an epsilon interval 1e-09 wide for delta = 1e-20 takes at "
                                                 r"least 35 bisection steps, each a tilted contour of about 5.2e\+06 "
                                                 r"nodes.*use engine='smoothed'"):
        accountlib.epsilon(pair, "1e-20")
    monkeypatch.undo()
    assert accountlib.epsilon(accountlib.Composition(["1/2", "1/3"], engine="lattice"), "1e-20").meets_tolerance


def test_a_smoothed_calibration_shares_one_work_budget_for_all_its_multipliers(monkeypatch, fresh_limits, units):
    """r37e S2-3: calibrate(budget 1 on the smoothed engine, (2, 1e-3), resolution=1e-9) took 18.4 CPU s, each of its
    31 multipliers decided with a fresh work budget. One WorkMeter (MAX_SMOOTHED_CALL_WORK, here 3e6 units) now serves
    the whole call; once it is spent no further multiplier is decided, and the answer is the smallest multiplier
    certified to hold, with no failure one step below (proven_smallest False: the documented flag); with almost no
    budget, the multiplier the Chernoff bound alone certifies; where no multiplier was certified to hold before the
    budget ran out (a μ-GDP target), a one-line refusal naming resolution and the limit, not a search up to 1e12."""
    from accountlib import ApproximateDP

    pair = accountlib.Composition(["1"], engine="smoothed")
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK", "3000000")
    reread_resource_limits()
    c = accountlib.calibrate(pair, ApproximateDP("2", "1e-3"), resolution=1e-9)
    assert 0 < sum(units) <= 3_000_000 * SLACK
    assert all(k.status == "holds" for k in c.checks) and c.failure is None and not c.proven_smallest
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK", "1000")
    reread_resource_limits()
    units.clear()
    coarse = accountlib.calibrate(pair, ApproximateDP("2", "1e-3"), resolution=1e-9)  # the Chernoff bound's answer
    assert sum(units) <= 1000 * SLACK and coarse.scale >= c.scale and not coarse.proven_smallest
    assert all(k.status == "holds" for k in coarse.checks)
    units.clear()  # a μ-GDP target the first multiplier's ε grid cannot decide within 1,000 units: refused
    with pytest.raises(ResourceLimitError, match=r"^resolution: calibrating to a step of 0\.001 needs more than the "
                                                 r"1,000 work units .*\(ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK\): no multiplier "
                                                 r"was certified to hold .*; raise the limit$"):
        accountlib.calibrate(pair, accountlib.GaussianDP("1"))
    assert sum(units) <= 1000 * SLACK


def test_a_gaussian_dp_check_on_the_smoothed_engine_spends_the_calls_one_budget(monkeypatch, fresh_limits, units):
    """r37e S2-2: check(budget 1 on the smoothed engine, GaussianDP(1)) refined its ε grid with no work budget at all
    (10.4 CPU s, up to 4000 grid points each with its own MAX_SMOOTHED_WORK). The grid's δ now spend the call's one
    WorkMeter (here 3e6 units) and the refinement stops where it is spent: "fails" or "undecided", never past it."""
    from accountlib import GaussianDP

    pair = accountlib.Composition(["1"], engine="smoothed")
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK", "3000000")
    reread_resource_limits()
    checks = accountlib.check(pair, GaussianDP("1"))
    assert 0 < sum(units) <= 3_000_000 * SLACK
    assert {c.status for c in checks} <= {"fails", "undecided"}  # f(budget 1) dips below G_1: never "holds"


def test_each_alpha_of_a_smoothed_tradeoff_call_has_a_work_budget_of_its_own(monkeypatch, fresh_limits, units):
    """r37e S2-4: tradeoff(budgets 2.5 and 0.05 on the smoothed engine, [0.3, 1/2, 0.7], abs_tol 3e-7, best effort)
    ran past 15 CPU s, an undocumented time. Then one budget of OVERRUN × limit served all the α of a call, which
    refused three α that each answer alone (r37f S3-2), and, pooled, let one α spend the budget of the next (r37g
    F2). Each α now has OVERRUN × limit of its own (documented: 5 to 8 s of one core per α), so a point is the same
    asked alone or with others (the estimate set to pass, the limit to 1e6 nodes)."""
    import mpmath

    from accountlib.engine.front import SmoothedTails
    from accountlib.theory.composition import OVERRUN

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "1000000")
    reread_resource_limits()
    monkeypatch.setattr(SmoothedTails, "planned_nodes", lambda self, epsilon, rel_tol=1e-6, abs_tol=0.0: 0)
    pair = accountlib.Composition(["1/2"], engine="smoothed")
    points = accountlib.tradeoff(pair, ["0.3", "1/2", "0.7"], abs_tol=1e-7, best_effort=True)
    assert 0 < sum(units) <= 3 * OVERRUN * 1_000_000 * SLACK
    for p in points:  # each a certified bracket of β within [0, 1 − α]
        assert 0 <= p.beta - p.error_bound and p.beta + p.error_bound <= 1 - p.alpha + mpmath.mpf(10) ** -12
    units.clear()
    alone = accountlib.tradeoff(pair, "1/2", abs_tol=1e-7, best_effort=True)
    assert 0 < sum(units) <= OVERRUN * 1_000_000 * SLACK
    assert (alone.beta, alone.error_bound, alone.shortfall) == (points[1].beta, points[1].error_bound, points[1].shortfall)


def test_alphas_that_each_answer_alone_answer_together(monkeypatch, fresh_limits, units):
    """r37f S3-2: with one OVERRUN × limit budget for all the α of a call, tradeoff(budget 1/2 on the smoothed engine,
    [0.3, 1/2, 0.7], abs_tol 1e-6) was refused though each α alone answers (2 to 4 s each). Here the limit is 3e5
    nodes (1.8e6 units per α; each α at abs_tol 1e-5 costs 0.6e6 to 1.5e6 since its rungs share their δ, r37o): the
    three together spend more than one α's budget, and answer."""
    from accountlib.engine.front import SmoothedTails
    from accountlib.theory.composition import OVERRUN

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "300000")
    reread_resource_limits()
    monkeypatch.setattr(SmoothedTails, "planned_nodes", lambda self, epsilon, rel_tol=1e-6, abs_tol=0.0: 0)
    pair = accountlib.Composition(["1/2"], engine="smoothed")
    points = accountlib.tradeoff(pair, ["0.3", "1/2", "0.7"], abs_tol=1e-5)
    assert all(p.meets_tolerance and p.error_bound <= 1e-5 for p in points)
    assert OVERRUN * 300_000 < sum(units) <= 3 * OVERRUN * 300_000 * SLACK


def test_a_smoothed_tradeoff_point_that_best_effort_meets_is_not_refused(monkeypatch, fresh_limits):
    """r37g F1: tradeoff(budget 1/2 on the smoothed engine, 1/2, abs_tol 1e-6) with the limit at 2e6 nodes was
    refused ("needs more than the 12,000,000 work units accepted") before the finest pass within what was left;
    with best_effort=True that pass ran and met abs_tol, unflagged. Both now run it and give the same point."""
    from accountlib.engine.front import SmoothedTails

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "2000000")
    reread_resource_limits()
    monkeypatch.setattr(SmoothedTails, "planned_nodes", lambda self, epsilon, rel_tol=1e-6, abs_tol=0.0: 0)
    pair = accountlib.Composition(["1/2"], engine="smoothed")
    point = accountlib.tradeoff(pair, "1/2", abs_tol=1e-6)
    flagged = accountlib.tradeoff(pair, "1/2", abs_tol=1e-6, best_effort=True)
    assert point.meets_tolerance and point.error_bound <= 1e-6
    assert (point.beta, point.error_bound) == (flagged.beta, flagged.error_bound)


def test_best_effort_runs_a_smoothed_tradeoff_its_estimate_puts_over_the_budget(monkeypatch, fresh_limits, units):
    """r37h F-H, r37k B01/B02: best_effort=True raised on the trade-off's up-front estimate, before any pass. Now it
    runs the passes the budget allows (OVERRUN times the limit) and returns the narrowest bound they reach, flagged
    "node cap"; without best effort a point is refused at once only where the estimate passes that budget a
    hundredfold (r37l N1: X at α = 0.7 to 6e-8 was refused on an estimate of 6.7e6 nodes over a limit of 6e6, and met
    within the budget; r37q E1), else computed and refused if it misses. Here f(0.9) of budgets 13/17 and 7/1000003
    to 4e-7 is estimated at 2.3e6 nodes, over the budget of
    6 × 3e5 units."""
    from accountlib.theory.composition import OVERRUN

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "300000")
    reread_resource_limits()
    pair = accountlib.Composition(["13/17", "7/1000003"], engine="smoothed")
    with pytest.raises(ValueError, match=r"abs_tol: the smoothed trade-off at alpha = 0.9.* contour nodes, over 100 "
                                         r"times the 1,800,000 work units of its budget"):
        accountlib.tradeoff(pair, "0.9", abs_tol=1e-12)  # hopeless (r37q E1: a point within it is computed)
    assert sum(units) < 20_000  # refused on the estimate: no fine pass ran
    with pytest.raises(ValueError, match=r"abs_tol: the smoothed trade-off at alpha = 0.9.* needs more than the "
                                         r"1,800,000 work units accepted"):
        accountlib.tradeoff(pair, "0.9", abs_tol=4e-7)  # computed, then refused: the budget's bound misses 4e-7
    units.clear()
    point = accountlib.tradeoff(pair, "0.9", abs_tol=4e-7, best_effort=True)
    assert 20_000 < sum(units) <= OVERRUN * 300_000 * SLACK
    assert not point.meets_tolerance and point.shortfall == "node cap"
    assert 4e-7 < point.error_bound < 1e-4 and 0 < point.beta < 0.1
    monkeypatch.delenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES")
    reread_resource_limits()
    reference = accountlib.tradeoff(accountlib.Composition(["13/17", "7/1000003"], engine="smoothed"), "0.9",
                                    abs_tol=1e-6)  # certified too: the two intervals overlap
    assert abs(point.beta - reference.beta) <= point.error_bound + reference.error_bound


def test_a_smoothed_tradeoff_estimated_over_the_limit_but_within_its_budget_runs_its_passes(monkeypatch, fresh_limits,
                                                                                             units):
    """r37l N1: with the limit at 6e6 nodes, X at α = 0.7 to 6e-8 (estimated at 6.7e6 nodes) was refused at once,
    while best effort ran the passes the budget of 6 × 6e6 units allows and met it. Now the plain call runs the same
    passes: it answers where best effort meets abs_tol, and is refused, naming the bound reached, where it does not."""
    from accountlib.theory.composition import OVERRUN

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "6000000")
    reread_resource_limits()
    pair = accountlib.Composition(["13/17", "7/1000003"], engine="smoothed")
    flagged = accountlib.tradeoff(pair, "0.7", abs_tol=6e-8, best_effort=True)
    spent = sum(units)
    assert 1_000_000 < spent <= OVERRUN * 6_000_000 * SLACK
    if flagged.meets_tolerance:
        point = accountlib.tradeoff(pair, "0.7", abs_tol=6e-8)
        assert (point.beta, point.error_bound) == (flagged.beta, flagged.error_bound)
    else:
        with pytest.raises(ValueError, match=r"needs more than the 36,000,000 work units accepted .* they reached a bound"
                                             rf" of {float(flagged.error_bound):.2g}"):
            accountlib.tradeoff(pair, "0.7", abs_tol=6e-8)
    assert sum(units) - spent > 1_000_000  # the plain call ran its passes too


def test_each_value_of_a_command_line_epsilon_or_delta_has_a_work_budget_of_its_own(monkeypatch, fresh_limits, units):
    """r37e S2-5, S3-3: `epsilon --rho 13/17 7/1000003 --delta 1e-6 1e-7 1e-8` took 10.4 CPU s and had no
    --best-effort; then one budget served the command, which refused three δ that each answer alone (r37f S3-2),
    and pooled shares let one δ spend the next one's (r37g F2: eight δ, the last four [0, 7] or [0, 8]). Each
    --delta, and each --eps of `delta`, now has a budget of its own (here 5e6 and 3e6 units), so its row is the
    same asked alone; --best-effort prints the intervals it could not narrow with the shortfall column of delta."""
    import json

    from cli_runs import run_main

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK", "5000000")
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK", "3000000")
    reread_resource_limits()
    done = run_main("epsilon", "--rho", "13/17", "7/1000003", "--delta", "1e-6", "1e-7", "1e-8", "--best-effort", "--json")
    assert done.returncode == 0, done.stderr
    assert 0 < sum(units) <= 3 * 5_000_000 * SLACK
    rows = json.loads(done.stdout)
    assert [sorted(r) for r in rows] == [["delta", "epsilon_lower", "epsilon_upper", "shortfall"]] * 3
    assert all(r["shortfall"] in ("", "node cap", "precision") for r in rows)
    alone = run_main("epsilon", "--rho", "13/17", "7/1000003", "--delta", "1e-8", "--best-effort", "--json")
    assert json.loads(alone.stdout) == rows[-1:]
    units.clear()
    refused = run_main("delta", "--rho", "13/17", "7/1000003", "--eps", "1", "3", "5", "--rel-tol", "1e-12")
    assert 0 < sum(units) <= 3 * 3_000_000 * SLACK
    assert refused.returncode == 2 and "could not certify --rel-tol 1e-12" in refused.stderr


def test_a_refused_command_line_value_still_prints_the_values_it_certified(monkeypatch, fresh_limits):
    """r37g F5 / r37h F-E: `epsilon` with several --delta refused them all when one missed --abs-tol, printing none
    of the intervals it had certified. Now the certified rows are printed (stdout) and the command then fails on the
    refused one (exit 2, "1 of 3 values refused"); each printed row is the one --best-effort prints unflagged."""
    import json

    from cli_runs import run_main

    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK", "5000000")
    reread_resource_limits()
    asked = ("epsilon", "--rho", "13/17", "7/1000003", "--delta", "1e-2", "1e-6", "1e-7", "--abs-tol", "1e-7", "--json")
    refused = run_main(*asked)
    flagged = json.loads(run_main(*asked, "--best-effort").stdout)
    met = [{k: v for k, v in r.items() if k != "shortfall"} for r in flagged if not r["shortfall"]]
    assert 0 < len(met) < 3, flagged  # the case: some δ met, some not, at this budget
    assert refused.returncode == 2 and f"({3 - len(met)} of 3 values refused" in refused.stderr
    assert json.loads(refused.stdout) == met


def test_a_delta_its_budget_stopped_is_refused_naming_that_budget(monkeypatch, fresh_limits):
    """r37e S3-4: a δ that the call's work budget stopped was refused as "node cap … loosen rel_tol", naming neither
    the budget nor its variable; the refusal now names ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK and that each value has one
    (r37g F3: with pooled shares the advice "ask fewer per call" was given where following it is refused too).
    Here each ε has 6.5e5 units; alone, ε = 10 and 1 cost about 1.6e6 and 3.4e5: ε = 10 is stopped, and ε = 1 gets
    the same δ asked with it or alone."""
    pair = accountlib.Composition(["1"], engine="smoothed")
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK", "650000")
    reread_resource_limits()
    with pytest.raises(ArithmeticError, match=r"at epsilon = 10\.0 \(node cap\).*; its budget of 650,000 work units of "
                                              r"the smoothed engine \(ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK, one such budget "
                                              r"per value asked\) stopped it: raise that limit; loosen rel_tol"):
        accountlib.delta(pair, ["10", "1"], rel_tol=1e-6)
    at_10, at_1 = accountlib.delta(pair, ["10", "1"], rel_tol=1e-6, best_effort=True)
    alone = accountlib.delta(pair, "1", rel_tol=1e-6)
    assert at_10.shortfall == "node cap" and at_1.meets_tolerance
    assert (alone.delta, alone.error_bound) == (at_1.delta, at_1.error_bound)


def test_a_flagged_smoothed_answer_depends_on_the_call_alone(monkeypatch, fresh_limits, units):
    """r37e S3-1: the same best-effort epsilon call on the same Composition gave two intervals ([4.4302380383,
    4.4302380644], then [4.4302380513, ...]): SmoothedTails kept its capped results and its last pass's price across
    calls, the reused results uncounted by the second call's meter. A reused result now counts what it cost and the
    price starts afresh for each δ: the second call spends the same units and returns the same interval."""
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_EPSILON_WORK", "20000000")
    reread_resource_limits()
    pair = accountlib.Composition(["1"], engine="smoothed")
    first = accountlib.epsilon(pair, "1e-5", best_effort=True)
    spent, units[:] = sum(units), []
    second = accountlib.epsilon(pair, "1e-5", best_effort=True)
    assert first.shortfall == "node cap" and (second.lower, second.upper) == (first.lower, first.upper)
    fresh = accountlib.epsilon(accountlib.Composition(["1"], engine="smoothed"), "1e-5", best_effort=True)
    assert (fresh.lower, fresh.upper) == (first.lower, first.upper) and spent > 0


def test_a_request_the_contour_meets_is_not_refused_on_the_floor_estimate():
    """r37f S3-1: on budgets 1/3, 7/1000003 and 0.1 the estimated floor of δ (engine/reach.py) is 2.2 times what the
    tilted contour reaches at ε = 3, so rel_tol = 1.85e-9 was refused at once ('out of the lattice engines' reach')
    though the contour certifies δ to 1.755e-9 of it (the code before the estimate answered in 1.2 CPU s)."""
    point = accountlib.delta(accountlib.Composition(["1/3", "7/1000003", "0.1"], engine="lattice"), 3,
                             rel_tol=1.85e-9)
    assert point.meets_tolerance and point.error_bound <= 1.85e-9 * point.delta


def test_a_tighter_tradeoff_tolerance_is_not_left_wider_than_a_looser_one():
    """r37h F-A: on budget 1/2 (smoothed) at α = 0.99, abs_tol 3e-6 certified β to ±8.1e-8 in 0.65 s, but 1e-6 and
    3e-7 came back flagged node cap at ±1.7e-5 after 4 s (refused without best effort): the budget went on δ to
    abs_tol/4 before the grid was covered. The point now climbs rungs of looser tolerances first
    (tradeoff_duality.LOOSER_RUNGS), intersecting their certified brackets. Those were 10 and 100 times abs_tol, so
    at α = 0.1 3e-7 still came back flagged at ±1.2e-6 where 1e-6 met ±1.4e-7; then powers of 10 above abs_tol left
    α = 0.9995 refused at 1e-6 where 3e-7 met ±3.8e-8 (r37i N2). The rungs are now the powers 10^(m/2) above abs_tol
    (tradeoff_duality.looser_rungs)."""
    pair = accountlib.Composition(["1/2"], engine="smoothed")
    for alpha in ("0.99", "0.1", "0.9995"):  # r37i N2: 0.9995 refused at 1e-6 (its rung alone spends the budget)
        for abs_tol in (1e-6, 3e-7):
            point = accountlib.tradeoff(pair, alpha, abs_tol=abs_tol)
            assert point.meets_tolerance and point.error_bound <= abs_tol


def test_a_rung_within_three_times_abs_tol_does_not_spend_the_last_pass_budget():
    """r37l N2: X (budgets 13/17 and 7/1000003, smoothed) at α = 0.3 met abs_tol 8e-8 with ±3.8e-8 (rungs ending
    3.16e-7, 8e-8) but was flagged at ±9.8e-8 for 6e-8, whose rung at 1e-7 spent the budget its last pass needed; the
    same on budgets 1/3 and 1/5 at α = 0.7 (2.5e-7 met ±7.0e-8, 2e-7 refused at ±2.8e-7). The rungs now start at the
    first power above 3·abs_tol."""
    # r37m N2: their last pass, stopped by the budget, left the rung before it (±9.4e-8 at 4e-8, ±2.8e-7 at 1.5e-7);
    # r37n P3: fitting that pass to what the rungs left still missed 1e-7 here (±2.79e-7). Each rung now starts from
    # the δ the rungs before it computed and recomputes those that bound its band (tradeoff_from_profile(known=))
    for budgets, alpha, abs_tol in ((["13/17", "7/1000003"], "0.3", 6e-8), (["1/3", "1/5"], "0.7", 2e-7),
                                    (["13/17", "7/1000003"], "0.3", 4e-8), (["1/3", "1/5"], "0.7", 1.5e-7),
                                    (["1/3", "1/5"], "0.7", 1e-7), (["13/17", "7/1000003"], "0.3", 3e-8)):
        point = accountlib.tradeoff(accountlib.Composition(budgets, engine="smoothed"), alpha, abs_tol=abs_tol)
        assert point.meets_tolerance and point.error_bound <= abs_tol, budgets


def test_a_smoothed_trade_off_under_a_small_budget_meets_what_a_full_pass_met(fresh_limits, monkeypatch):
    """r37n P3: X (budgets 13/17 and 7/1000003, smoothed) at α = 0.9 under ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES =
    2e6 was flagged at ±4.62e-7 for abs_tol 4e-7 (a full 4e-7 pass met ±1.94e-7 before its last pass was fitted to
    the budget): the last pass, stopped part way, gave no bracket of its own. The rungs now share their δ."""
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "2000000")
    reread_resource_limits()
    point = accountlib.tradeoff(accountlib.Composition(["13/17", "7/1000003"], engine="smoothed"), "0.9", abs_tol=4e-7)
    assert point.meets_tolerance and point.error_bound <= 4e-7


def test_the_command_line_trade_off_judges_a_bound_against_the_abs_tol_given():
    """r37j K1: `tradeoff --rho 13/17 7/1000003 --alpha 0.7 --abs-tol 8e-8` was refused "reached a bound of 5.4e-08":
    the library was asked, without best effort, for half of --abs-tol (room for the printed rounding) and its refusal
    was final. It is now asked with best effort and each row judged against --abs-tol, as `delta` and `epsilon` do."""
    import json

    from cli_runs import run_main

    for abs_tol in ("8e-8", "6e-8"):  # r37k R2: at 6e-8 the work estimated for half of it was refused at once
        done = run_main("tradeoff", "--rho", "13/17", "7/1000003", "--alpha", "0.7", "--abs-tol", abs_tol, "--json")
        assert done.returncode == 0, done.stderr
        (row,) = json.loads(done.stdout)
        assert float(row["error_bound"]) <= float(abs_tol)


def test_a_smoothed_delta_that_best_effort_meets_is_not_refused():
    """r37h F-B: delta(budget 1/2 on the smoothed engine, 1/4, rel_tol 7e-7) was refused (the bound 1.9e-7 of the last
    finished pass) though best effort met it (8.6e-8) within the same budget: without best effort the engine
    returned at once where a pass would pass the budget. With a budget to bound it, the finest pass within it now
    runs either way."""
    pair = accountlib.Composition(["1/2"], engine="smoothed")
    point = accountlib.delta(pair, "1/4", rel_tol=7e-7)
    flagged = accountlib.delta(pair, "1/4", rel_tol=7e-7, best_effort=True)
    assert point.meets_tolerance and (point.delta, point.error_bound) == (flagged.delta, flagged.error_bound)


def test_a_refusal_names_the_budget_that_held_the_finest_pass_coarser():
    """r37h F-C: `delta --rho 13/17 7/1000003 --eps 6.5 --rel-tol 1e-9` was refused "(node cap)" naming no budget,
    though raising ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK alone lets it answer: the δ's work budget held its finest pass
    (the one the node cap allows) coarser. The refusal now names that budget."""
    from cli_runs import run_main

    refused = run_main("delta", "--rho", "13/17", "7/1000003", "--eps", "6.5", "--rel-tol", "1e-9")
    assert refused.returncode == 2
    assert ("(node cap)" in refused.stderr and "its budget of 60,000,000 work units of the smoothed engine "
            "(ACCOUNTLIB_MAX_SMOOTHED_CALL_WORK, one such budget per value asked) held its finest pass coarser: raise "
            "that limit" in refused.stderr)


def test_the_command_line_trade_off_agrees_with_the_library_where_a_budget_stops_half_of_abs_tol():
    """r37m M2: the CLI asked the library for half of --abs-tol (room for the printed rounding) and retried at
    --abs-tol only when the up-front estimate refused, so where the budget stopped the half-tolerance search the two
    disagreed: X at α = 0.3, 6e-8: the library met it (±3.8e-8), `tradeoff --abs-tol 6e-8` refused (±9.8e-8). The CLI
    now asks at --abs-tol first and at half only for a bound over half of it, keeping the narrower."""
    import json

    from cli_runs import run_main

    point = accountlib.tradeoff(accountlib.Composition(["13/17", "7/1000003"]), "0.3", abs_tol=6e-8)
    assert point.meets_tolerance
    done = run_main("tradeoff", "--rho", "13/17", "7/1000003", "--alpha", "0.3", "--abs-tol", "6e-8", "--json")
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert float(row["error_bound"]) <= 6e-8


def test_a_dpsgd_tradeoff_point_computes_at_most_its_node_budget(monkeypatch):
    """r37m M1: a DP-SGD trade-off point had no work bound: q = 0.1, z = 0.2, 1000 steps at α = 0.5 spent 79 s
    (161 contours, 2.6e6 nodes) and returned β = 0.25 ± 0.25 flagged "precision". The search's δ(ε) now share one
    budget (TRADEOFF_MAX_NODES, all their contours together); a point they leave wide is flagged "node cap", and
    refused without best effort naming that budget. Counted, not timed."""
    from accountlib.theory import dpsgd_accounting
    from accountlib.theory.dpsgd_tradeoff import TRADEOFF_MAX_NODES

    built = []
    real = dpsgd_accounting.certified_profile

    def counted(*args, spent=None, **kwargs):
        result = real(*args, spent=spent, **kwargs)
        built.append(sum(spent) if spent is not None else None)
        return result

    monkeypatch.setattr(dpsgd_accounting, "certified_profile", counted)
    from accountlib.theory.dpsgd_accounting import DPSGDComposition

    run = DPSGDComposition(0.1, 0.2, 1000)
    with pytest.raises(ArithmeticError, match=f"may compute {TRADEOFF_MAX_NODES:,} nodes.*loosen abs_tol"):
        run.tradeoff("1e-50", abs_tol=1e-9)  # (α = 0.5 now meets 1e-9: r37n P1)
    assert built and None not in built and max(built) <= TRADEOFF_MAX_NODES
    point = run.tradeoff("1e-50", abs_tol=1e-9, best_effort=True)
    assert point.shortfall == "node cap" and not point.meets_tolerance and point.error_bound > 1e-9


def test_a_nearly_non_private_dpsgd_run_has_its_trade_off_certified():
    """r37m M1: for q = 0.1, z = 0.2, 1000 steps (ε(1e-5) > 200) f(0.5) is within 1e-8 of 0, but the search walked
    ε up from 0 one grid at a time (161 contours) and its chords never bounded the branch e^{−ε}(1 − α − δ(ε)) as
    ε → ∞. Past the points, δ's monotonicity now bounds each branch (dpsgd_tradeoff.monotone_bound), and each δ is
    asked only to the width its branch needs."""
    from accountlib.theory.dpsgd_accounting import DPSGDComposition

    run = DPSGDComposition(0.1, 0.2, 1000)
    point = run.tradeoff(0.5, abs_tol=1e-6)
    assert point.meets_tolerance and point.beta + point.error_bound <= 1e-6
    # r37n P1: at α = 0.9, 1e-6 gave ±2.8e-10 but 1e-8 was refused at ±0.0175 (each δ asked to 6e-10, far below 0,
    # spent the budget); a coarse pass first now settles the branches below 0
    for abs_tol in (1e-6, 1e-8, 1e-10):
        point = run.tradeoff(0.9, abs_tol=abs_tol)
        assert point.meets_tolerance and point.beta + point.error_bound <= 1e-8


def test_a_nearly_perfectly_private_dpsgd_run_has_its_trade_off_from_the_bounds_that_need_no_inversion():
    """r37n P2: q = 0.001, z = 10, 10 steps: each δ's inversion needs more than the node cap, and f(0.5) came back
    [0, 0.5] (refused at abs_tol 1e-2, "the nodes were spent"), though δ(0) ≤ 1.6e-4 alone puts f(0.5) within 1.6e-4
    of 0.5. Such a δ now comes from the bounds that need no inversion."""
    from accountlib.theory.dpsgd_accounting import DPSGDComposition

    point = DPSGDComposition(0.001, 10, 10).tradeoff(0.5, abs_tol=1e-2)
    assert point.meets_tolerance and 0.5 - 2e-4 <= point.beta - point.error_bound and point.beta + point.error_bound <= 0.5


def test_a_tighter_smoothed_trade_off_tolerance_starts_from_what_a_looser_one_computes(fresh_limits, monkeypatch):
    """r37o Q1-Q3: a point's rungs were the four powers above 3·abs_tol, so a small abs_tol's first rung was already
    fine and could spend the budget before the grid's far end was reached: budgets 1e-12 and 4 (auto: smoothed) at
    α = 0.5 were refused at 1e-7 with ±0.0071 and flagged at 2e-7 (±3.4e-7) where 1e-5 met ±1.8e-7; 5/4 and 2
    (smoothed) at α = 0.99 gave ±6.8e-4 at 3e-8 where 4e-8 met ±1.4e-10; and under a tenth of the default budget X at
    α = 0.1 met 5e-7 but was flagged at ±6.2e-7 for 3e-7 (its one δ held coarser ended the refinement). The rungs now
    start at COARSEST_RUNG and step by 10^(1/3), and a point refines on past a δ held coarser."""
    tiny = accountlib.Composition(["1e-12", "4"])
    loose = accountlib.tradeoff(tiny, "0.5", abs_tol=1e-5)
    tight = accountlib.tradeoff(tiny, "0.5", abs_tol=2e-7)
    assert loose.meets_tolerance and tight.meets_tolerance and tight.error_bound <= min(2e-7, loose.error_bound)
    flagged = accountlib.tradeoff(tiny, "0.5", abs_tol=1e-7, best_effort=True)
    assert flagged.error_bound <= tight.error_bound  # the budget's bound, never the untouched tail's 0.0071
    steep = accountlib.tradeoff(accountlib.Composition(["5/4", "2"], engine="smoothed"), "0.99", abs_tol=3e-8)
    assert steep.meets_tolerance and steep.error_bound <= 3e-8
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", "1000000")
    reread_resource_limits()
    x = accountlib.Composition(["13/17", "7/1000003"], engine="smoothed")
    for abs_tol in (5e-7, 3e-7):
        point = accountlib.tradeoff(x, "0.1", abs_tol=abs_tol)
        assert point.meets_tolerance and point.error_bound <= abs_tol


@pytest.mark.parametrize("limit, alpha, tolerances", [("500000", "0.1", (1e-6, 7e-7, 6e-7, 5e-7, 4e-7, 3e-7)),
                                                      ("300000", "0.1", (4e-6, 3e-6, 2.5e-6, 2e-6, 1.5e-6)),
                                                      ("20000", "0.9", (1e-3, 2e-4, 5e-5, 2e-5, 1e-5))])
def test_a_tighter_smoothed_trade_off_tolerance_never_ends_wider(fresh_limits, monkeypatch, limit, alpha, tolerances):
    """r37p N1: under a twentieth of the default budget X (13/17 and 7/1000003, smoothed) at α = 0.1 met 7e-7 with
    ±3.3e-7 but was refused at ±7.9e-7 for 5e-7 (and 3e-6 met ±2.46e-6 where 2e-6 ended at ±8.88e-6 under 3e5): the
    rungs ended in abs_tol itself, so a tighter tolerance took another road. The rungs are now one fixed ladder cut at
    abs_tol (tradeoff_duality.looser_rungs): a tighter tolerance runs every rung of a looser one, then more. r37q B:
    the ladder started at 100·abs_tol above 1e-5, so under 2e4 nodes 2e-5 ended at ±7.6e-3 where 1e-3 met ±2.1e-4; it
    now starts at COARSEST_RUNG for every tolerance."""
    monkeypatch.setenv("ACCOUNTLIB_MAX_SMOOTHED_TRADEOFF_NODES", limit)
    reread_resource_limits()
    x = accountlib.Composition(["13/17", "7/1000003"], engine="smoothed")
    widest = 1.0
    for abs_tol in tolerances:  # loosest first
        point = accountlib.tradeoff(x, alpha, abs_tol=abs_tol, best_effort=True)
        assert point.error_bound <= widest, (abs_tol, point.error_bound, widest)
        assert point.meets_tolerance == (point.error_bound <= abs_tol)
        widest = min(widest, point.error_bound)


def test_a_plain_smoothed_trade_off_call_is_refused_on_its_estimate_only_when_hopeless():
    """r37q E1: without best effort a point was refused at once where its up-front estimate passed the work budget,
    though the estimate overshoots the rungs' work up to ninefold: budgets 5/4 and 2 at α = 0.99 to 1e-9 were refused
    ("needs about 179,901,633 contour nodes") where best effort met ±1.39e-10 unflagged, and 1/2 at α = 0.9995 to
    1e-10 likewise. The estimate now refuses only past ESTIMATE_SLACK budgets; a point within it is computed, and
    refused only if it misses."""
    from accountlib.theory.tradeoff_duality import ESTIMATE_SLACK

    for budgets, alpha, abs_tol in ((["5/4", "2"], "0.99", 1e-9), (["1/2"], "0.9995", 1e-10)):
        point = accountlib.tradeoff(accountlib.Composition(budgets, engine="smoothed"), alpha, abs_tol=abs_tol)
        assert point.meets_tolerance and point.error_bound <= abs_tol
    with pytest.raises(ResourceLimitError, match=f"over {ESTIMATE_SLACK} times the 60,000,000 work units"):
        accountlib.tradeoff(accountlib.Composition(["2.5", "0.05"], engine="smoothed"), "0.5", abs_tol=1e-12)
