"""Benchmark: the time of a certified δ against the number of budgets composed, ours and dp_accounting's PLD.

    .venv/bin/python benchmarks/bench_composition.py [--quick]

Compositions of m discrete Gaussian releases, m = 1, 2, 4, … 1,024 (``--quick``: to 64), with budgets
ρ_i = (1 + 7i mod 50)/1000 (a grid of 50 values, as a statistical agency's tables get budgets from a short list),
at ε = ε_zCDP(ρ, 10⁻²) of their total ρ, where the exact δ(ε) is 10⁻⁷ to 10⁻¹² (the range where a
float accountant still resolves it). For each m: our certified δ
(``accountlib.Composition(rhos).delta([ε], rel_tol=1e-6)``, from scratch, the median of a few runs) and
dp_accounting's PLD accountant for the same discrete Gaussians (``from_discrete_gaussian_mechanism``, identical
budgets self-composed, distinct ones composed, connect-the-dots, its pessimistic estimate) at discretisations
10⁻³ and 10⁻⁴, with its relative error against our certified value. All in one run, so the times compare.

Writes ``benchmarks/results_composition.json`` and ``RESULTS_composition.md`` (the book's Performance page shows
both, and plots time against m).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import statistics
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import provenance  # noqa: E402

from accountlib import Composition  # noqa: E402
from accountlib.theory.conversions import zcdp_epsilon  # noqa: E402

SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
QUICK_SIZES = (1, 4, 16, 64)
INTERVALS = (1e-3, 1e-4)
DELTA_ZCDP = 1e-2


def budgets(m: int) -> list[Fraction]:
    return [Fraction(1 + (7 * i) % 50, 1000) for i in range(m)]


def ours(rhos, eps: Fraction, repeats: int) -> dict:
    times, point = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        composition = Composition(rhos)
        (point,) = composition.delta([eps], rel_tol=1e-6)
        times.append(time.perf_counter() - started)
    return {"seconds": statistics.median(times), "delta": float(point.delta),
            "relative_bound": float(point.error_bound / point.delta), "engine": composition.engine_kind}


def pld(rhos, eps: float, interval: float) -> dict:
    from dp_accounting.pld import privacy_loss_distribution as pld_module

    started = time.perf_counter()
    total = None
    for rho, count in sorted(collections.Counter(rhos).items()):
        one = pld_module.from_discrete_gaussian_mechanism(1 / math.sqrt(rho), sensitivity=1,
                                                          value_discretization_interval=interval)
        one = one.self_compose(count) if count > 1 else one
        total = one if total is None else total.compose(one)
    delta = total.get_delta_for_epsilon(eps)
    return {"seconds": time.perf_counter() - started, "delta": delta}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"a smoke run: m = {', '.join(map(str, QUICK_SIZES))}")
    args = parser.parse_args(argv)
    quick = args.quick or provenance.quick()
    machine = provenance.machine("results_composition.json")
    with warnings.catch_warnings():  # a warm-up of both, untimed: the first call of each pays one-time costs
        warnings.simplefilter("ignore")
        ours(budgets(2), Fraction(1), 1)
        pld(budgets(2), 1.0, INTERVALS[0])
    rows = []
    for m in QUICK_SIZES if quick else SIZES:
        rhos = budgets(m)
        eps = Fraction(repr(zcdp_epsilon(sum(rhos), DELTA_ZCDP)))
        row = {"m": m, "distinct": len(set(rhos)), "rho": float(sum(rhos)), "epsilon": float(eps),
               "ours": ours(rhos, eps, 1 if quick else 3), "pld": []}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for interval in INTERVALS:
                peer = pld(rhos, float(eps), interval)
                peer["interval"] = interval
                peer["relative_error"] = (peer["delta"] - row["ours"]["delta"]) / row["ours"]["delta"]
                row["pld"].append(peer)
        rows.append(row)
        print(f"m = {m}: ours {row['ours']['seconds']:.3g} s ({row['ours']['engine']}), PLD "
              + ", ".join(f"{p['interval']:g}: {p['seconds']:.3g} s, {p['relative_error']:+.1e}" for p in row["pld"]),
              flush=True)
    record = {"machine": provenance.finish(machine), "quick": quick, "delta_zcdp": DELTA_ZCDP,
              "intervals": list(INTERVALS), "rows": rows}
    folder = provenance.results_folder(quick)
    (folder / "results_composition.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    (folder / "RESULTS_composition.md").write_text(render(record), encoding="utf-8")
    print(render(record))
    return 0


def render(record: dict) -> str:
    head = " | ".join(f"PLD {i:g}: seconds | PLD {i:g}: relative error" for i in record["intervals"])
    lines = ["# The number of budgets", "",
             "| budgets m (distinct) | ε | ours: seconds | ours: engine | ours: certified δ | " + head + " |",
             "|---" * (5 + 2 * len(record["intervals"])) + "|"]
    for r in record["rows"]:
        o = r["ours"]
        lines.append(f"| {r['m']:,} ({r['distinct']}) | {r['epsilon']:.3f} | {o['seconds']:.3g} | {o['engine']} | "
                     f"{o['delta']:.6e} | " + " | ".join(f"{p['seconds']:.3g} | {p['relative_error']:+.1e}"
                                                           for p in r["pld"]) + " |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
