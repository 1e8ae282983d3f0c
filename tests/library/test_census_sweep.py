"""DHC data, the resumable sweep (local pool and Dask), and census-wide aggregation."""

import csv
import os
import signal
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest

from accountlib.applications import census
from accountbook import notebook_sweep
from accountlib.infrastructure import executor
from accountlib.theory.composition import Composition

LIGHT_PAIRS = [(2, 8), (2, 13), (13, 13), (8, 16)]  # L = 49622: seconds each


def test_allocations_load_and_validate():
    for k in census.ALLOCATIONS:
        rho = census.load_allocation(k)
        assert len(rho) == 80 and sum(rho) == Fraction(24811, 5000)
    assert census.load_allocation(13)[0] == Fraction(11, 10000)
    assert len(census.all_pairs()) == 946


@pytest.mark.parametrize(
    "text, message",
    [
        ("a,b\n1/2,1/2\n", "expected a header and 10 rows"),
        ("h1,h2,h3,h4,h5,h6,h7,h8\n" + "x,0,0,0,0,0,0,0\n" * 10, "is not a fraction"),
        ("h1,h2,h3,h4,h5,h6,h7,h8\n" + "-1/2,0,0,0,0,0,0,0\n" * 10, "negative budget"),
        ("h1,h2,h3,h4,h5,h6,h7,h8\n" + "1/2,0,0,0,0,0,0,0\n" * 10, "sum to 5"),
    ],
)
def test_malformed_allocation_fails_clearly(text, message):
    with pytest.raises(ValueError, match=message):
        census.parse_allocation(text, source="broken.csv")


def test_bad_allocation_numbers():
    with pytest.raises(ValueError, match="between 1 and 43"):
        census.load_allocation(44)
    with pytest.raises(ValueError, match="l must be an allocation number"):
        census.pair_rhos(1, 0)


def read(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_pair_job_files(tmp_path):
    summary = census.pair_job(13, 13, tmp_path, smallest_delta_exponent=12, points_per_side=60)
    eps_path, trade_path = census.pair_paths(tmp_path, 13, 13)
    rows = read(eps_path)
    assert list(rows[0]) == ["delta_zcdp", "epsilon", "delta", "error_bound"]
    assert len(rows) == 24
    for row in rows:  # only certified digits: the last one is a tenth of the bound or coarser
        delta, bound = Decimal(row["delta"]), Decimal(row["error_bound"])
        assert len(delta.as_tuple().digits) >= 6 and delta.as_tuple().exponent >= bound.adjusted() - 1
        assert bound <= Decimal("1e-6") * delta
    deltas = [Decimal(r["delta"]) for r in rows]
    assert all(a > b for a, b in zip(deltas, deltas[1:]))
    trade = read(trade_path)
    assert list(trade[0]) == ["alpha", "beta", "error_bound", "slope_left", "slope_right"]
    assert len(trade) >= 120 + 250  # both ends, and the bend
    alphas = [Decimal(r["alpha"]) for r in trade]
    betas = [Decimal(r["beta"]) for r in trade]
    assert alphas == sorted(alphas) and betas == sorted(betas, reverse=True)
    assert all(Decimal(r["error_bound"]) <= Decimal("1e-25") for r in trade)
    assert summary["nodes"] > 0


def test_pair_job_spot_check_against_higher_accuracy(tmp_path):
    """A stored δ agrees with an independent rerun at 1e-12 relative accuracy within the stored bound."""
    census.pair_job(2, 13, tmp_path, smallest_delta_exponent=10, points_per_side=30)
    rows = read(census.pair_paths(tmp_path, 2, 13)[0])
    pair = Composition(census.pair_rhos(2, 13))
    eps = [Fraction(r["epsilon"]) for r in rows[::4]]
    fine = pair.delta(eps, rel_tol=1e-12)
    with mpmath.workdps(40):
        for row, point in zip(rows[::4], fine):
            assert abs(mpmath.mpf(row["delta"]) - point.delta) <= float(row["error_bound"]) + point.error_bound


@pytest.mark.slow
def test_committed_results_spot_checks():
    """Spot-check committed sweep files (where present) against fresh higher-accuracy computations."""
    from pathlib import Path

    out = Path(__file__).resolve().parents[2] / "results" / "dhc"
    present = census.available_pairs(out)
    if not present:
        pytest.skip("no committed DHC results")
    for k, l in [p for p in [(13, 13), (1, 43), (2, 5)] if p in present]:
        rows = read(census.pair_paths(out, k, l)[0])
        pair = Composition(census.pair_rhos(k, l))
        picks = [rows[0], rows[len(rows) // 2], rows[-1]]
        fresh = pair.delta([Fraction(r["epsilon"]) for r in picks], rel_tol=1e-9)
        with mpmath.workdps(40):
            for row, point in zip(picks, fresh):
                assert abs(mpmath.mpf(row["delta"]) - point.delta) <= float(row["error_bound"]) + point.error_bound


def test_sweep_resumes_after_being_killed(tmp_path):
    pairs = " ".join(f"{k} {l}" for k, l in LIGHT_PAIRS)
    command = [sys.executable, "-m", "accountlib", "sweep", "dhc", "--out", str(tmp_path), "--workers", "1",
               "--no-progress", "--pairs", *pairs.split()]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 300

    def complete():  # a pair is finished once its manifest is written, after both files (not at the first file)
        return [p for p in LIGHT_PAIRS if census.pair_status(tmp_path, *p) is None]

    while time.time() < deadline and not complete() and process.poll() is None:
        time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    process.wait()
    finished = [p for p in LIGHT_PAIRS if census.pair_status(tmp_path, *p) is None]  # files and manifest
    assert 1 <= len(finished) < len(LIGHT_PAIRS)
    for k, l in finished:  # every file present is complete
        for path in census.pair_paths(tmp_path, k, l):
            assert len(read(path)) > 10
    mtimes = {p: census.pair_paths(tmp_path, *p)[0].stat().st_mtime for p in finished}
    done = census.run_dhc_sweep(tmp_path, LIGHT_PAIRS, workers=1, progress=False, report=lambda line: None)
    assert sorted(d["pair"] for d in done) == sorted(set(LIGHT_PAIRS) - set(finished))
    assert all(census.pair_paths(tmp_path, *p)[0].stat().st_mtime == t for p, t in mtimes.items())
    leftovers = [name for name in os.listdir(tmp_path / "eps_delta") if not name.endswith(".csv")]
    assert not [name for name in leftovers if not name.endswith(".tmp")]


def test_sweep_on_a_dask_local_cluster_matches_the_process_pool(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    options = dict(smallest_delta_exponent=6, points_per_side=20)
    pairs = LIGHT_PAIRS[:3]
    local = census.run_dhc_sweep(tmp_path / "local", pairs, workers=2, progress=False, **options)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = census.run_dhc_sweep(tmp_path / "dask", pairs, scheduler=cluster.scheduler_address,
                                     progress=False, **options)
    assert sorted(r["pair"] for r in local) == sorted(r["pair"] for r in remote) == sorted(pairs)
    for k, l in pairs:
        for a, b in zip(census.pair_paths(tmp_path / "local", k, l), census.pair_paths(tmp_path / "dask", k, l)):
            assert a.read_text() == b.read_text()


def test_census_wide_aggregation(tmp_path):
    options = dict(smallest_delta_exponent=8, points_per_side=40)
    census.run_dhc_sweep(tmp_path, LIGHT_PAIRS, workers=2, progress=False, **options)
    result = census.write_census_results(tmp_path)
    assert result["pairs"] == len(LIGHT_PAIRS)
    curves = {p: census.read_pair_curves(tmp_path, *p) for p in LIGHT_PAIRS}
    for i, row in enumerate(result["eps_delta"]):
        assert row["delta"] == max(c["delta"][i] for c in curves.values())
    hull = result["tradeoff"]
    alphas = [r["alpha"] for r in hull]
    assert alphas == sorted(alphas) and alphas[0] == 0 and alphas[-1] == 1
    lows = [r["beta_pessimistic"] for r in hull]
    assert all(r["beta_optimistic"] >= r["beta_pessimistic"] for r in hull)
    # the guarantee lies below every pair's lower vertex bound (β − bound), and is convex
    from accountlib.theory.tradeoff_band import interpolate

    for curve in curves.values():
        at = interpolate(alphas, lows, curve["alpha"])
        assert all(g <= b - e for g, b, e in zip(at, curve["beta"], curve["tradeoff_error"]) if b > e)
    from decimal import localcontext

    with localcontext() as context:
        context.prec = 60
        slopes = [(y1 - y0) / (x1 - x0) for x0, x1, y0, y1 in zip(alphas, alphas[1:], lows, lows[1:])]
    assert slopes == sorted(slopes)
    stored = census.read_census_tradeoff(tmp_path / "census_tradeoff.csv")
    assert len(stored) == len(hull)
    assert all(s["beta_pessimistic"] <= r["beta_pessimistic"] for s, r in zip(stored, hull))  # rounded down
    assert (tmp_path / "census_eps_delta.csv").is_file()


def test_papermill_grid_on_the_sweep_executor(tmp_path):
    """A chapter run twice with papermill through the same executor as the DHC sweep; reruns skip."""
    from pathlib import Path

    import nbformat

    chapter = Path(__file__).resolve().parents[2] / "notebooks" / "03_discrete_gaussian.py"
    grid = [{"dps": 40}, {"dps": 50}]
    outputs = notebook_sweep.run_notebook_grid(chapter, grid, tmp_path, workers=1, progress=False)
    assert len(outputs) == 2
    for path in outputs:
        notebook = nbformat.read(path, as_version=4)
        assert any("parameters" in c.metadata.get("tags", []) for c in notebook.cells)
        assert all(not any(o.get("output_type") == "error" for o in c.get("outputs", [])) for c in notebook.cells)
    assert notebook_sweep.run_notebook_grid(chapter, grid, tmp_path, workers=1, progress=False) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_job_does_not_stop_the_others(workers):
    import math

    done = []
    with pytest.raises(executor.SweepError, match=r"1 of 3 jobs failed") as info:
        executor.run_jobs(math.sqrt, [(4.0,), (-1.0,), (9.0,)], workers=workers, progress=False, on_result=done.append)
    assert sorted(done) == [2.0, 3.0]
    assert info.value.failures[0][0] == (-1.0,)


@pytest.mark.slow
def test_committed_heavy_pair_against_the_plain_arb_paths(monkeypatch):
    """Pair (6, 33), one of the heaviest: stored deep δ (tilted contour) and stored trade-off vertices
    (double-double sums) against the untilted arb engine with the double-double path switched off."""
    from pathlib import Path

    from accountlib.engine.results import EvaluationPaths

    arb_only = EvaluationPaths(tilted=False, double_double=False)  # neither path that produced the stored rows
    out = Path(__file__).resolve().parents[2] / "results" / "dhc"
    if (6, 33) not in census.available_pairs(out):
        pytest.skip("no committed DHC results")
    eps_rows = read(census.pair_paths(out, 6, 33)[0])
    picks = [r for r in eps_rows if r["delta_zcdp"] in ("1e-06", "1e-10")]
    pair = Composition(census.pair_rhos(6, 33), paths=arb_only)
    fresh = pair.delta([Fraction(r["epsilon"]) for r in picks], rel_tol=1e-7)
    assert not pair.tilted_engines
    with mpmath.workdps(40):
        for row, point in zip(picks, fresh):
            assert abs(mpmath.mpf(row["delta"]) - point.delta) <= float(row["error_bound"]) + point.error_bound
    trade_rows = read(census.pair_paths(out, 6, 33)[1])
    engine = Composition(census.pair_rhos(6, 33), paths=arb_only).engine(2.5e-26)
    assert engine._dd is None  # the arb loop, not the double-double sums that produced the stored rows
    with mpmath.workdps(40):
        for row in (trade_rows[i] for i in (120, 300, 450)):  # α from ~1e-10 to ~0.5
            alpha, beta, bound = mpmath.mpf(row["alpha"]), mpmath.mpf(row["beta"]), float(row["error_bound"])
            j = pair._bracket(engine, alpha)  # the stored vertex is (α_j, β_j) or (α_{j+1}, β_{j+1})
            matches = []
            for i in (j, j + 1):
                a, b = engine.tail_index(i), engine.tail_index(pair.shift + 1 - i)
                matches.append(abs(a.value - alpha) <= a.error_bound + bound and abs(b.value - beta) <= b.error_bound + bound)
            assert any(matches)


@pytest.mark.slow
def test_committed_variance_give_back_is_tight_and_certified():
    """At the stored c the binding pair's certified δ is ≤ δ (and matches the stored upper bound);
    one step below, c − 1/1000, the binding pair or another top pair exceeds δ."""
    import csv as _csv
    from pathlib import Path

    from accountlib.theory.conversions import zcdp_epsilon

    out = Path(__file__).resolve().parents[2] / "results" / "dhc"
    path = out / "variance_reduction.csv"
    if not path.is_file():
        pytest.skip("no committed variance table")
    with open(path, newline="") as handle:
        rows = {r["delta"]: r for r in _csv.DictReader(handle)}
    row = rows["1e-02"]
    assert int(row["pairs_checked"]) == 946
    c, pair = Fraction(row["c"]), tuple(int(x) for x in row["pair"].split("_"))
    epsilon = Fraction(repr(zcdp_epsilon(census.TOTAL_RHO, 1e-2)))
    point = census.scaled_delta(*pair, c, epsilon)
    upper = float(point.delta) + point.error_bound
    assert upper <= 1e-2
    assert upper == pytest.approx(float(row["largest_upper"]), rel=1e-5)
    curves = {p: census.read_pair_curves(out, *p) for p in census.available_pairs(out)}
    index = [float(x) for x in curves[pair]["delta_zcdp"]].index(1e-2)
    top = sorted(curves, key=lambda p: curves[p]["delta"][index], reverse=True)[:3]
    below = c - Fraction(1, 1000)
    assert max(float(census.scaled_delta(*p, below, epsilon).delta) for p in {pair, *top}) > 1e-2
