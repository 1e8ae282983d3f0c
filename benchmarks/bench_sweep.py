"""Benchmark: the full 946-pair DHC sweep on this machine (both curve kinds, certified).

    .venv/bin/python benchmarks/bench_sweep.py [--workers 2] [--out DIR]

Runs ``accountlib.applications.census.run_dhc_sweep`` into a fresh folder (default: a temporary one), times it, and
summarises the per-pair log (seconds, N, nodes after the per-factor sieve and after product pruning).
Writes ``benchmarks/RESULTS_sweep.md``, which the book's benchmarks page includes. The paper reports
0.5 CPU-hours per pair, i.e. 473 CPU-hours for the 946 pairs.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
import time
from pathlib import Path

import json
import sys

from accountlib.applications import census

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402  (benchmarks/provenance.py)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="dhc_bench_"))
    machine = provenance.machine("results_sweep.json")  # before the run: the code measured
    started = time.perf_counter()
    census.run_dhc_sweep(out, workers=args.workers, progress=True)
    wall = time.perf_counter() - started
    with open(out / "sweep_log.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    seconds = [float(r["seconds"]) for r in rows]
    nodes = [int(r["nodes"]) for r in rows]
    per_factor = [int(r["per_factor_nodes"]) for r in rows]
    modulus = [int(r["N"]) for r in rows]
    tilted_nodes = [int(r["tilted_nodes"]) for r in rows]
    slowest = sorted(rows, key=lambda r: -float(r["seconds"]))[:5]
    describe = lambda xs: f"{min(xs):,} / {int(statistics.median(xs)):,} / {max(xs):,}"
    lines = [
        "# Benchmark: the full DHC sweep",
        "",
        provenance.describe(machine) + " Wall times depend on the machine and on what else runs on it.",
        "",
        f"`benchmarks/bench_sweep.py --workers {args.workers}`: all {len(rows)} pairs, both curve kinds — the (ε, δ) "
        "curve on 60 levels δ_zCDP = 5e-1 … 1e-30 certified to 1e-6 relative, and ≥ 400 trade-off vertices "
        "certified to 1e-25 absolute.",
        "",
        "| quantity | value |",
        "|---|---|",
        f"| wall time, {args.workers} worker processes | {wall:,.0f} s ({wall / 60:.1f} min) |",
        f"| CPU time summed over pairs | {sum(seconds):,.0f} s ({sum(seconds) / 3600:.2f} CPU-hours) |",
        "| the paper's method | 946 × 0.5 = 473 CPU-hours |",
        f"| seconds per pair (min / median / max) | {min(seconds):.2f} / {statistics.median(seconds):.2f} / {max(seconds):.1f} |",
        f"| N, finest untilted engine (min / median / max) | {describe(modulus)} |",
        f"| its nodes after the per-factor sieve (min / median / max) | {describe(per_factor)} |",
        f"| its nodes after product pruning (min / median / max) | {describe(nodes)} |",
        f"| nodes of the tilted engines, deep (ε, δ) levels (min / median / max) | {describe(tilted_nodes)} |",
        "",
        "Slowest pairs: " + ", ".join(f"({r['pair'].replace('_', ', ')}) {float(r['seconds']):.0f} s, "
                                     f"{int(r['nodes']):,} nodes" for r in slowest) + ".",
        "",
        "Deep (ε, δ) levels (both thresholds ≥ 3√V into the tail) are computed on the exponentially tilted",
        "contour (`accountlib.engine.tilted`: relative accuracy in float64 with a rigorous bound); the trade-off",
        "vertices and the shallow levels use the untilted engine, whose per-threshold sums run in",
        "double-double (`accountlib.engine._dd`) when its bound fits in Δ/64. The slowest pairs involve allocations",
        "whose integrand stays large on 10⁵ nodes (coefficients such as 949 and 48,673 that beat against",
        "each other), and their cost is now the 1e-25 trade-off engine.",
        "",
    ]
    (HERE / "RESULTS_sweep.md").write_text("\n".join(lines))
    (HERE / "results_sweep.json").write_text(json.dumps({
        "machine": machine, "workers": args.workers, "wall_seconds": wall, "cpu_seconds": sum(seconds),
        "pairs": len(rows)}, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
