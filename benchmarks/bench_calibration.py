"""Benchmark: certified calibration (accountlib.calibrate) against the peers' float calibrations, in one run.

    .venv/bin/python benchmarks/bench_calibration.py          # about two minutes on this book's machine

Writes ``benchmarks/RESULTS_calibration.md`` (included by the book's benchmarks page) and
``results_calibration.json``. Three tasks: one census pair (13, 13) at the Bureau's (ε, δ) = (26.34, 1e-10);
a composition of 200 discrete Gaussian releases with budgets on a grid of 50 values, at (1, 1e-6); and the whole
census (946 pairs, the worst deciding). The peers calibrate the *continuous* Gaussian (they have no discrete
one): Opacus' ``get_noise_multiplier`` (RDP and PRV accountants) and dp_accounting's ``calibrate_dp_mechanism``
with its PLD accountant, each for 200 releases of one count at (1, 1e-6) — the same number of mechanisms, so the
times compare like for like; ours is certified on both sides, theirs are floats. Also the command line's start:
``python -m accountlib delta --rho 1/2 1/3 --eps 1`` against ``python -c "import numpy, mpmath, flint"``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import provenance  # noqa: E402  (benchmarks/provenance.py)

import accountlib  # noqa: E402
from accountlib.applications import census  # noqa: E402


def timed(call):
    started = time.perf_counter()
    value = call()
    return value, time.perf_counter() - started


def best_of(commands: dict[str, list[str]], runs: int = 10) -> dict[str, float]:
    """The best wall time of each command over ``runs`` rounds, the commands alternating within a round (so a change
    of load hits both), after one warm-up round. Python writes and reads its bytecode cache here as in a user's
    installation: PYTHONDONTWRITEBYTECODE, where the environment sets it, is removed for these runs (without the cache
    every start recompiles the library's modules, which is not what a user's installation does)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best = {name: float("inf") for name in commands}
    for round_ in range(runs + 1):
        for name, command in commands.items():
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=env)
            if round_:
                best[name] = min(best[name], time.perf_counter() - started)
    return best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: no whole census, two start-up rounds")
    quick = parser.parse_args(argv).quick or provenance.quick()
    machine = provenance.machine("results_calibration.json")
    bureau = accountlib.ApproximateDP("26.340588852722", "1e-10")
    target = accountlib.ApproximateDP(1, "1e-6")
    budgets = [Fraction(1 + (7 * i) % 50, 1000) for i in range(200)]  # 200 releases, 50 distinct budgets
    pair, pair_s = timed(lambda: accountlib.calibrate(census.pair_rhos(13, 13), bureau))
    many, many_s = timed(lambda: accountlib.calibrate(budgets, target))
    whole, whole_s = (None, None) if quick else timed(lambda: census.calibrate_census(bureau))

    import dp_accounting as dpa
    from dp_accounting.pld import PLDAccountant
    from opacus.accountants.utils import get_noise_multiplier

    releases = 200
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, rdp_s = timed(lambda: get_noise_multiplier(target_epsilon=1.0, target_delta=1e-6, sample_rate=1.0,
                                                      steps=releases, accountant="rdp"))
        _, prv_s = timed(lambda: get_noise_multiplier(target_epsilon=1.0, target_delta=1e-6, sample_rate=1.0,
                                                      steps=releases, accountant="prv"))
        _, pld_s = timed(lambda: dpa.calibrate_dp_mechanism(
            PLDAccountant, lambda s: dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(s), releases), 1.0, 1e-6,
            dpa.mechanism_calibration.ExplicitBracketInterval(1.0, 1000.0)))
    python = sys.executable
    starts = best_of({"cli": [python, "-m", "accountlib", "delta", "--rho", "1/2", "1/3", "--eps", "1"],
                      "imports": [python, "-c", "import numpy, mpmath, flint"]}, runs=2 if quick else 10)
    cli_s, imports_s = starts["cli"], starts["imports"]
    rows = [
        ("ours, census pair (13, 13), certified", pair_s, f"{pair.evaluations} evaluations, multiplier {float(pair.scale):.3f}"),
        ("ours, 200 releases (50 distinct budgets), certified", many_s,
         f"{many.evaluations} evaluations, multiplier {float(many.scale):.4g}"),
        *([] if quick else [("ours, the whole census (946 pairs), certified", whole_s,
                             f"multiplier {float(whole.scale):.3f}, decided by pair {whole.deciding}")]),
        ("Opacus get_noise_multiplier, RDP, 200 releases (float)", rdp_s, "continuous Gaussian"),
        ("Opacus get_noise_multiplier, PRV, 200 releases (float)", prv_s, "continuous Gaussian"),
        ("dp_accounting calibrate_dp_mechanism, PLD, 200 releases (float)", pld_s, "continuous Gaussian"),
    ]
    lines = [
        "# Certified calibration and the peers",
        "",
        "| task | seconds | note |",
        "|---|---|---|",
        *(f"| {name} | {seconds:.3g} | {note} |" for name, seconds, note in rows),
        "",
        f"The command line's start, best of {2 if quick else 10} (alternating, after a warm-up, with the bytecode cache): `python -m accountlib delta --rho 1/2 1/3 --eps 1` takes "
        f"{cli_s:.2f} s, against {imports_s:.2f} s for `python -c \"import numpy, mpmath, flint\"` "
        f"({cli_s / imports_s:.2f}×).",
        "",
    ]
    folder = provenance.results_folder(quick)
    (folder / "RESULTS_calibration.md").write_text("\n".join(lines))
    (folder / "results_calibration.json").write_text(json.dumps({
        "machine": provenance.finish(machine), "quick": quick, "seconds": {name: seconds for name, seconds, _ in rows},
        "cli_seconds": cli_s, "imports_seconds": imports_s,
        "median_check": statistics.median([pair_s, many_s])}, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
