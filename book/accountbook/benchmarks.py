"""The benchmarks' recorded results, for the chapters and pages that quote them.

A number a chapter or page quotes from a benchmark is never typed: it is read from the benchmark's results file
(``benchmarks/results_*.json``, written by ``benchmarks/run.py``) when the book is built, through :func:`quote`
(a chapter glues it; the Performance page, ``book/benchmarks.md``, writes ``{benchmark}`KEY``` with the Sphinx
extension ``book/_ext/benchmark_provenance.py``). :data:`QUOTES` names every quotable value: the results file it
comes from, how it is computed from that file, and how it is printed. ``tests/book/test_benchmarks.py`` fails on
a typed copy of any of them.

>>> quote("sweep.wall_minutes") == format(value("sweep.wall_minutes"), ".1f")
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["FOLDER", "QUOTES", "Quote", "results", "value", "quote"]

FOLDER = Path(__file__).resolve().parents[2] / "benchmarks"
"""``benchmarks/`` of this checkout, where the results files are."""


@dataclass(frozen=True)
class Quote:
    """A value quoted from one results file: ``compute(record)`` and the format it is printed with."""

    results: str
    compute: Callable[[dict], float]
    format: str
    meaning: str


def results(name: str, folder: Path | None = None) -> dict:
    """The record of ``results_<name>.json`` (``name``: ``"engine"``, ``"sweep"``, …) in ``folder``
    (default :data:`FOLDER`)."""
    path = Path(folder or FOLDER) / f"results_{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no benchmark results {path}: run `make benchmarks` (benchmarks/run.py)")
    return json.loads(path.read_text(encoding="utf-8"))


def _pair(name: str, part: str, key: str) -> Callable[[dict], float]:
    return lambda r: r["pairs"][name][part][key]


def _pld(function, key):
    return lambda r: function(p[key] for row in r["pairs"].values() for p in row["dp_accounting"])


def _backend(name, key, scale=1.0):
    return lambda r: r["backends"][name][key] * scale


def _dpsgd(option):
    return lambda r: min(v for k, v in r["seconds"].items() if k.split("/")[0] == option)


def _calibration(prefix):
    return lambda r: next(v for k, v in r["seconds"].items() if k.startswith(prefix))


def _standard(steps, tool):
    return lambda r: next(row["seconds"] for block in r["standard"] if block["steps"] == steps
                          for row in block["rows"] if row["tool"].startswith(tool))


def _calibrated(tool, key):
    return lambda r: max((p[key] for row in r["calibration"] for p in row["peers"] if p["tool"].startswith(tool)))


QUOTES: dict[str, Quote] = {
    # the exact engine (bench_engine.py)
    "engine.ours_seconds.13_13": Quote("engine", _pair("13,13", "ours", "seconds"), ".2f", "ours, pair (13, 13), s"),
    "engine.ours_seconds.6_27": Quote("engine", _pair("6,27", "ours", "seconds"), ".2f", "ours, pair (6, 27), s"),
    "engine.paper_seconds.13_13": Quote("engine", _pair("13,13", "paper", "extrapolated_seconds"), ",.0f",
                                        "the paper's method, pair (13, 13), s"),
    "engine.paper_seconds.6_27": Quote("engine", _pair("6,27", "paper", "extrapolated_seconds"), ",.0f",
                                       "the paper's method, pair (6, 27), s"),
    "engine.speedup.13_13": Quote("engine", lambda r: r["pairs"]["13,13"]["paper"]["extrapolated_seconds"]
                                  / r["pairs"]["13,13"]["ours"]["seconds"], ",.0f", "speed-up, pair (13, 13)"),
    "engine.speedup.6_27": Quote("engine", lambda r: r["pairs"]["6,27"]["paper"]["extrapolated_seconds"]
                                 / r["pairs"]["6,27"]["ours"]["seconds"], ",.0f", "speed-up, pair (6, 27)"),
    "engine.pld_seconds_min": Quote("engine", _pld(min, "seconds"), ".2f", "dp_accounting PLD, fastest, s"),
    "engine.pld_seconds_max": Quote("engine", _pld(max, "seconds"), ".2f", "dp_accounting PLD, slowest, s"),
    "engine.pld_error_min_percent": Quote("engine", lambda r: 100 * _pld(min, "worst_relative_error_delta_above_1e-12")(r),
                                          ".2g", "dp_accounting PLD, smallest worst error, %"),
    "engine.pld_error_max_percent": Quote("engine", lambda r: 100 * _pld(max, "worst_relative_error_delta_above_1e-12")(r),
                                          ".2g", "dp_accounting PLD, largest worst error, %"),
    # the number of budgets (bench_composition.py)
    "composition.m_max": Quote("composition", lambda r: r["rows"][-1]["m"], ",d", "largest composition"),
    "composition.ours_seconds_max": Quote("composition", lambda r: max(x["ours"]["seconds"] for x in r["rows"]), ".2g",
                                          "ours, slowest size, s"),
    "composition.pld_fine_seconds_last": Quote("composition", lambda r: r["rows"][-1]["pld"][-1]["seconds"], ".2g",
                                               "PLD at the finest discretisation, largest m, s"),
    "composition.pld_fine_error_last_percent": Quote(
        "composition", lambda r: 100 * abs(r["rows"][-1]["pld"][-1]["relative_error"]), ".2g",
        "PLD at the finest discretisation, largest m, relative error, %"),
    # the full DHC sweep (bench_sweep.py)
    "sweep.wall_minutes": Quote("sweep", lambda r: r["wall_seconds"] / 60, ".1f", "process pool, minutes"),
    "sweep.cpu_hours": Quote("sweep", lambda r: r["cpu_seconds"] / 3600, ".2f", "CPU-hours over all pairs"),
    "sweep.paper_cpu_hours": Quote("sweep", lambda r: r["paper_cpu_hours"], ",.0f", "the paper's CPU-hours"),
    "sweep.cpu_speedup": Quote("sweep", lambda r: r["paper_cpu_hours"] * 3600 / r["cpu_seconds"], ",.0f",
                               "the paper's CPU time over ours"),
    "sweep.dask_wall_minutes": Quote("sweep", _backend("dask", "wall_seconds", 1 / 60), ".1f", "Dask, minutes"),
    "sweep.pairs_per_worker_hour": Quote("sweep", _backend("processes", "pairs_per_worker_hour"), ",.0f",
                                         "process pool, pairs per worker-hour"),
    "sweep.dask_pairs_per_worker_hour": Quote("sweep", _backend("dask", "pairs_per_worker_hour"), ",.0f",
                                              "Dask, pairs per worker-hour"),
    "sweep.efficiency_percent": Quote("sweep", _backend("processes", "efficiency", 100), ".0f", "process pool, CPU busy %"),
    "sweep.dask_efficiency_percent": Quote("sweep", _backend("dask", "efficiency", 100), ".0f", "Dask, CPU busy %"),
    "sweep.dask_start_seconds": Quote("sweep", _backend("dask", "cluster_start_seconds"), ".1f", "Dask cluster start, s"),
    "sweep.median_pair_seconds": Quote("sweep", lambda r: r["summary"]["seconds_per_pair"]["median"], ".2f",
                                       "median seconds per pair"),
    "sweep.max_pair_seconds": Quote("sweep", lambda r: r["summary"]["seconds_per_pair"]["max"], ".0f",
                                    "slowest pair, s"),
    "sweep.tilted_nodes_max": Quote("sweep", lambda r: r["summary"]["tilted_nodes"]["max"], ",d",
                                    "most nodes of a tilted engine"),
    # one DP-SGD step (bench_dpsgd_step.py)
    "dpsgd.layerwise_over_plain": Quote("dpsgd", lambda r: _dpsgd("layerwise")(r) / r["plain_seconds"], ".2f",
                                        "layerwise over the plain step"),
    "dpsgd.opacus_over_plain": Quote("dpsgd", lambda r: _dpsgd("opacus-hooks")(r) / r["plain_seconds"], ".1f",
                                     "Opacus hooks over the plain step"),
    "dpsgd.vmap_over_layerwise": Quote("dpsgd", lambda r: _dpsgd("vmap")(r) / _dpsgd("layerwise")(r), ".1f",
                                       "vmap over layerwise"),
    "dpsgd.floor_ms": Quote("dpsgd", lambda r: 1000 * r["floor_seconds"], ".0f", "the FLOP floor of a step, ms"),
    "dpsgd.plain_ms": Quote("dpsgd", lambda r: 1000 * r["plain_seconds"], ".0f", "the plain step, ms"),
    "dpsgd.plain_over_floor": Quote("dpsgd", lambda r: r["plain_seconds"] / r["floor_seconds"], ".1f",
                                    "the plain step over the floor"),
    # the runs of one setting together (bench_dpsgd_batched.py)
    "batched.ratio_min": Quote("dpsgd_batched", lambda r: min(s["ratio_to_nchw"] for s in r["settings"]), ".2f",
                               "together over one by one (NCHW), best"),
    "batched.ratio_max": Quote("dpsgd_batched", lambda r: max(s["ratio_to_nchw"] for s in r["settings"]), ".2f",
                               "together over one by one (NCHW), worst"),
    "batched.grid_ratio": Quote("dpsgd_batched", lambda r: r["whole_grid"]["ratio_to_nchw"], ".2f",
                                "together over one by one (NCHW), one seed of the paper's grid"),
    "batched.grid_hours": Quote("dpsgd_batched", lambda r: r["whole_grid"]["cpu_hours_per_seed"]["together"], ".1f",
                                "together, one seed of the paper's grid, CPU hours"),
    # certified calibration (bench_calibration.py)
    "calibration.pair_seconds": Quote("calibration", _calibration("ours, census pair"), ".2f", "ours, one pair, s"),
    "calibration.census_seconds": Quote("calibration", _calibration("ours, the whole census"), ".0f",
                                        "ours, the whole census, s"),
    "calibration.pld_seconds": Quote("calibration", _calibration("dp_accounting"), ".1f", "dp_accounting PLD, s"),
    "calibration.cli_seconds": Quote("calibration", lambda r: r["cli_seconds"], ".2f", "the command line's start, s"),
    "calibration.imports_seconds": Quote("calibration", lambda r: r["imports_seconds"], ".2f",
                                         "import numpy, mpmath, flint, s"),
    "calibration.cli_over_imports": Quote("calibration", lambda r: r["cli_seconds"] / r["imports_seconds"], ".2f",
                                          "the command line over its imports"),
    # the redistricting data (bench_pl94.py)
    "pl94.smoothed_seconds": Quote("pl94", lambda r: r["ours"]["persons"]["seconds"], ".2g",
                                   "ours, persons composition, s"),
    "pl94.lattice_over_smoothed": Quote("pl94", lambda r: r["engines"]["worst"]["lattice"]["seconds"]
                                        / r["engines"]["worst"]["smoothed"]["seconds"], ".0f",
                                        "lattice over smoothed, worst pair of paths"),
    "pl94.pld_fine_error_percent": Quote(
        "pl94", lambda r: 100 * max(abs(row[e]["relative_error"]) for row in r["dp_accounting"]["persons"][-1:]
                                    for e in ("pessimistic", "optimistic") if e in row), ".2g",
        "dp_accounting PLD, finest discretisation, persons, worst relative error, %"),
    # certified DP-SGD accounting (bench_dpsgd_accounting.py)
    "dpsgd_accounting.ours_seconds_10000": Quote("dpsgd_accounting", _standard(10_000, "ours"), ".2f",
                                                 "ours, T = 10,000, s"),
    "dpsgd_accounting.prv_seconds_10000": Quote("dpsgd_accounting", _standard(10_000, "prv_accountant"), ",.0f",
                                                "prv_accountant, T = 10,000, s"),
    "dpsgd_accounting.pld_calibration_seconds_max": Quote(
        "dpsgd_accounting", _calibrated("dp_accounting", "seconds"), ",.0f", "dp_accounting PLD calibration, slowest, s"),
    "dpsgd_accounting.ours_calibration_seconds_max": Quote(
        "dpsgd_accounting", lambda r: max(row["ours_seconds"] for row in r["calibration"]), ".0f",
        "ours, calibration, slowest, s"),
}
"""Every value a chapter or page may quote from a benchmark, by key."""


def value(key: str, folder: Path | None = None):
    """The value of :data:`QUOTES` ``[key]`` from its results file in ``folder`` (default :data:`FOLDER`)."""
    if key not in QUOTES:
        raise KeyError(f"no benchmark quote {key!r}; known: {', '.join(sorted(QUOTES))}")
    quote_ = QUOTES[key]
    return quote_.compute(results(quote_.results, folder))


def quote(key: str, folder: Path | None = None) -> str:
    """:func:`value` printed as the quote's format says (e.g. ``"4.2"`` minutes)."""
    number = value(key, folder)
    return format(int(round(number)) if QUOTES[key].format.endswith("d") else number, QUOTES[key].format)
