"""Benchmark: the 2020 redistricting data (P.L. 94-171) persons composition at the published ε, in one run.

    .venv/bin/python benchmarks/bench_pl94.py                       # under a minute on this book's machine
    .venv/bin/python benchmarks/bench_pl94.py --before 4627f6b      # and the DHC pairs before/after, ~3 minutes

Writes ``benchmarks/RESULTS_pl94.md`` (included by the book's benchmarks page) and ``results_pl94.json``.

* Ours: the certified δ at the certificate's ε = 17849145/1041158 (≈ 17.14) of the persons composition
  (``census.pl94_rhos("pl94-persons")``: 130 budgets, 33 distinct, denominators near 1e12; the smoothed engine
  ``accountlib.engine.smoothed``) and of the worst pair of paths (the first of ``census.pl94_pair_deltas``),
  at relative accuracy 1e-6: the median time of a few repeats (a fresh ``Composition`` each) and the bound.
* dp_accounting's PLD accountant (``privacy_loss_distribution.from_discrete_gaussian_mechanism``, the discrete
  Gaussian with σ² = 1/ρ_i and sensitivity 1: our convention) on the same compositions at three
  ``value_discretization_interval`` values, identical budgets self-composed and distinct ones composed, both its
  pessimistic and its optimistic estimate: time and δ's signed relative error against our certified value.
  A discretisation that takes more than two minutes is recorded and the finer ones are skipped.
* The lattice engine (``engine="lattice"``): on the persons composition it refuses (the error message is
  recorded); on the US units composition (12 budgets) and on the worst pair of persons paths (whose lattice is
  coarse) it runs, and is compared with ``engine="smoothed"`` on the same composition: the certified intervals
  must overlap (asserted).
* With ``--before REV`` (a revision, checked out into a temporary git worktree and removed afterwards, or the
  path of a checkout): the same DHC pair jobs (``census.pair_job``: both curves of a pair, as the sweep runs
  them) timed on that code and on this, each version in its own subprocess with its own ``PYTHONPATH``,
  alternating, a few rounds; the ratio new/old and whether the two versions wrote identical files. Without it
  the previous run's section is kept from ``results_pl94.json`` (with its own date).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

DHC_PAIRS = [(13, 13), (31, 36), (1, 43), (6, 10), (1, 1), (20, 30)]
"""The DHC pairs timed before and after: (6, 10) is one of the sweep's slowest (130,000 lattice nodes)."""
PLD_INTERVALS = (1e-2, 1e-3, 1e-4)
PLD_LIMIT_S = 120.0


def median_time(call, repeats: int):
    """(value of the last call, median seconds, seconds of the first call)."""
    times, value = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - started)
    return value, statistics.median(times), times[0]


def certified(rhos, eps, engine="auto"):
    import accountlib

    pair = accountlib.Composition(rhos, engine=engine)
    (point,) = pair.delta([eps], rel_tol=1e-6)
    return pair.engine_kind, point


def pld_delta(rhos, eps: float, interval: float, pessimistic: bool) -> float:
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    for rho, count in sorted(collections.Counter(rhos).items()):
        one = pld.from_discrete_gaussian_mechanism(1 / math.sqrt(rho), sensitivity=1, pessimistic_estimate=pessimistic,
                                                   value_discretization_interval=interval)
        one = one.self_compose(count) if count > 1 else one
        total = one if total is None else total.compose(one)
    return float(total.get_delta_for_epsilon(eps))


def verdict(value: float, point) -> str:
    low, high = point.delta - point.error_bound, point.delta + point.error_bound
    return "overstates" if value > high else "understates" if value < low else "inside the certified interval"


# -- the DHC pairs before and after ----------------------------------------------------------------------------


def dhc_worker(pairs: list[tuple[int, int]], expected_root: str) -> None:
    """Run in a subprocess on one code version: one untimed warm-up job, then each pair's job, timed; print JSON."""
    import accountlib
    from accountlib.applications import census

    where = Path(accountlib.__file__).resolve()
    assert Path(expected_root).resolve() in where.parents, f"imported {where}, not the code under {expected_root}"
    with tempfile.TemporaryDirectory(prefix="dhc_warm_") as warm:
        census.pair_job(1, 2, Path(warm))
    seconds, cpu, hashes = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="dhc_pairs_") as out:
        out = Path(out)
        for k, l in pairs:
            started, started_cpu = time.perf_counter(), time.process_time()
            census.pair_job(k, l, out)
            seconds[f"{k},{l}"] = time.perf_counter() - started
            cpu[f"{k},{l}"] = time.process_time() - started_cpu
        contents = {}
        for path in sorted(out.rglob("*.csv")):
            hashes[path.relative_to(out).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
            contents[path.relative_to(out).as_posix()] = path.read_text(encoding="utf-8")
    # the engine each pair's composition is given (None on code without the engine choice, or without Composition:
    # all lattice then)
    build = getattr(accountlib, "Composition", None)
    engines = {f"{k},{l}": getattr(build(census.pair_rhos(k, l)), "engine_kind", None) if build else None
               for k, l in pairs}
    print(json.dumps({"seconds": seconds, "cpu": cpu, "files": hashes, "contents": contents, "engines": engines,
                      "library": str(where.parent)}))


def file_differences(old: dict[str, str], new: dict[str, str]) -> dict:
    """The two versions' curve files compared cell by cell: for each column, how many cells differ, and for the
    numeric ones the range of new / old; files whose rows or columns differ are counted as such."""
    columns: dict[str, dict] = {}
    reshaped, disjoint = [], 0
    for name in sorted(set(old) | set(new)):
        a = [line.split(",") for line in old.get(name, "").splitlines()]
        b = [line.split(",") for line in new.get(name, "").splitlines()]
        if len(a) != len(b) or not a or a[0] != b[0]:
            reshaped.append(name)
            continue
        bound = a[0].index("error_bound") if "error_bound" in a[0] else None
        for row_a, row_b in zip(a[1:], b[1:]):
            if bound:  # the value before its bound: the two certified intervals must overlap
                (x, dx), (y, dy) = (map(Fraction, row[bound - 1:bound + 1]) for row in (row_a, row_b))
                disjoint += abs(x - y) > dx + dy
            for column, x, y in zip(a[0], row_a, row_b):
                if x == y:
                    continue
                entry = columns.setdefault(column, {"cells": 0, "ratios": []})
                entry["cells"] += 1
                try:
                    if float(x) != 0:
                        entry["ratios"].append(abs(float(Fraction(y) / Fraction(x)) - 1))
                except (ValueError, ZeroDivisionError):
                    pass
    return {"files": len(set(old) | set(new)), "reshaped": reshaped, "disjoint_intervals": disjoint,
            "columns": {c: {"cells": e["cells"], "largest_relative_change": max(e["ratios"], default=None)}
                        for c, e in columns.items()}}


def run_worker(root: Path, pairs) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "book")]),
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    spec = ";".join(f"{k},{l}" for k, l in pairs)
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--dhc-worker", spec, "--root", str(root)],
                          check=True, capture_output=True, text=True, env=env, cwd=root)
    return json.loads(done.stdout.strip().splitlines()[-1])


def before_after(before: str, rounds: int) -> dict:
    made = None
    if Path(before).is_dir():
        old_root = Path(before).resolve()
    else:
        made = Path(tempfile.mkdtemp(prefix="accountlib_before_")) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(made), before], check=True,
                       capture_output=True)
        old_root = made
    try:
        commit = subprocess.run(["git", "-C", str(old_root), "rev-parse", "HEAD"], check=True, capture_output=True,
                                text=True).stdout.strip()
        now_commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True,
                                    text=True).stdout.strip()
        runs = {"old": [], "new": []}
        load = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
        for i in range(rounds):  # alternate which version goes first
            for version in (("old", "new") if i % 2 == 0 else ("new", "old")):
                runs[version].append(run_worker(old_root if version == "old" else ROOT, DHC_PAIRS))
                print(f"  round {i + 1}, {version}: {sum(runs[version][-1]['seconds'].values()):.2f} s", flush=True)
    finally:
        if made is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(made)], check=True,
                           capture_output=True)
    per_pair = {}
    for key in runs["new"][0]["seconds"]:
        old = statistics.median(r["seconds"][key] for r in runs["old"])
        new = statistics.median(r["seconds"][key] for r in runs["new"])
        old_cpu = statistics.median(r["cpu"][key] for r in runs["old"])
        new_cpu = statistics.median(r["cpu"][key] for r in runs["new"])
        per_pair[key] = {"old": old, "new": new, "ratio": new / old, "old_cpu": old_cpu, "new_cpu": new_cpu,
                         "ratio_cpu": new_cpu / old_cpu}
    totals = {v: [sum(r["seconds"].values()) for r in runs[v]] for v in runs}
    totals_cpu = {v: [sum(r["cpu"].values()) for r in runs[v]] for v in runs}
    identical = all(r["files"] == runs["old"][0]["files"] for r in runs["old"] + runs["new"])
    return {
        "before": commit, "after": now_commit, "dirty_after": bool(subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "accountlib"], capture_output=True,
            text=True).stdout.strip()),
        "rounds": rounds, "pairs": [list(p) for p in DHC_PAIRS], "per_pair": per_pair,
        "total_seconds": totals, "ratio": statistics.median(totals["new"]) / statistics.median(totals["old"]),
        "cpu_seconds": totals_cpu,
        "ratio_cpu": statistics.median(totals_cpu["new"]) / statistics.median(totals_cpu["old"]),
        "round_ratios_cpu": [n / o for n, o in zip(totals_cpu["new"], totals_cpu["old"])],
        "identical_files": identical, "files": len(runs["old"][0]["files"]),
        "differences": file_differences(runs["old"][0]["contents"], runs["new"][0]["contents"]),
        "engines": runs["new"][0]["engines"],
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_average": load,
    }


def dhc_lines(dhc: dict) -> list[str]:
    rows = [f"| ({key.replace(',', ', ')}) | {v['old_cpu']:.3g} | {v['new_cpu']:.3g} | {v['ratio_cpu']:.2f} | "
            f"{v['old']:.3g} | {v['new']:.3g} | {v['ratio']:.2f} |" for key, v in dhc["per_pair"].items()]
    old, new = (statistics.median(dhc["total_seconds"][v]) for v in ("old", "new"))
    old_cpu, new_cpu = (statistics.median(dhc["cpu_seconds"][v]) for v in ("old", "new"))
    return [
        "## DHC pairs before and after",
        "",
        f"Measured on {dhc['date']}: `census.pair_job` (both curves of a pair, as the sweep runs them: 60 (ε, δ) "
        f"levels to 1e-6 relative, the trade-off vertices to 1e-25 absolute) for {len(dhc['per_pair'])} pairs, on "
        f"the code before the smoothed engine and on this code"
        f"{' (with uncommitted changes)' if dhc['dirty_after'] else ''} (the commits are in the results file), each version in its own subprocess "
        f"(one untimed warm-up job first), alternating, {dhc['rounds']} rounds; medians over the rounds of the CPU "
        "time of each job (one thread: what the sweep's workers spend) and of its wall time (on a shared machine "
        f"the CPU time is the steadier; the load average was {dhc.get('load_average')} at the start). "
        "The new code's only extra work on a DHC pair is the engine choice (two estimates of the "
        "lattice's size, about 10 µs).",
        "",
        "| pair | before, CPU s | after, CPU s | after / before | before, wall s | after, wall s | "
        "after / before |",
        "|---|---|---|---|---|---|---|",
        *rows,
        f"| all {len(dhc['per_pair'])} | {old_cpu:.3g} | {new_cpu:.3g} | {dhc['ratio_cpu']:.2f} | {old:.3g} | "
        f"{new:.3g} | {dhc['ratio']:.2f} |",
        "",
        "Each round's total CPU time, before: " + ", ".join(f"{t:.1f}" for t in dhc["cpu_seconds"]["old"]) +
        " s; after: " + ", ".join(f"{t:.1f}" for t in dhc["cpu_seconds"]["new"]) + " s (wall: " +
        ", ".join(f"{t:.1f}" for t in dhc["total_seconds"]["old"]) + " s and " +
        ", ".join(f"{t:.1f}" for t in dhc["total_seconds"]["new"]) + " s). Within each round (the two versions "
        "back to back) the CPU-time ratio after / before was " + ", ".join(
            f"{x:.2f}" for x in dhc["round_ratios_cpu"]) + f"; median {statistics.median(dhc['round_ratios_cpu']):.2f}.",
        "",
        differences_sentence(dhc),
        "",
    ]


def differences_sentence(dhc: dict) -> str:
    """What the two versions' curve files have in common and where they differ, and the engine of each pair."""
    kinds = sorted({str(k) for k in dhc["engines"].values()})
    engines = (f"this code gives every one of these pairs the {kinds[0]} engine" if len(kinds) == 1 else
               "this code gives these pairs the engines " + ", ".join(f"{p}: {k}" for p, k in dhc["engines"].items()))
    if dhc["identical_files"]:
        return f"The two versions wrote identical files ({dhc['files']} curve files, compared by SHA-256); {engines}."
    diff = dhc["differences"]
    if diff["reshaped"]:
        return (f"The two versions wrote curve files of different shapes ({', '.join(diff['reshaped'])}: other rows or "
                f"columns); {engines}.")
    parts = []
    for column, c in diff["columns"].items():
        change = c["largest_relative_change"]
        parts.append(f"{c['cells']} cells of `{column}`" + (f" (largest relative change {change:.2g})" if change else ""))
    overlap = ("every certified interval of one version overlaps the other's" if not diff["disjoint_intervals"] else
               f"IN {diff['disjoint_intervals']} ROWS THE TWO CERTIFIED INTERVALS ARE DISJOINT")
    return (f"The two versions' {diff['files']} curve files have the same rows and columns and differ only in "
            f"{', '.join(parts)}, every other cell identical; {overlap}; {engines}.")


# -- the main run -----------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="a revision or checkout to time the DHC pairs against")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dhc-worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--root", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="a smoke run: one repeat, the coarsest PLD interval")
    args = parser.parse_args()
    if args.dhc_worker is not None:
        dhc_worker([tuple(int(x) for x in p.split(",")) for p in args.dhc_worker.split(";")], args.root)
        return

    import provenance  # noqa: E402  (benchmarks/provenance.py)

    from accountlib.applications import census
    from accountlib.infrastructure.numbers import ResourceLimitError

    quick = args.quick or provenance.quick()
    if quick:
        args.repeats = 1
    machine = provenance.machine("results_pl94.json")
    release = "pl94-persons"
    cert = census.certificate(release)
    eps = cert["epsilon"]
    persons = census.pl94_rhos(release)
    ranked, rank_s, _ = median_time(lambda: census.pl94_pair_deltas(release, eps), 1)
    worst = (ranked[0].path, ranked[0].other)
    worst_rhos = census.pl94_rhos(release, *worst)
    compositions = {
        "persons": {"label": f"persons, plain path ({len(persons)} budgets, {len(set(persons))} distinct)",
                    "rhos": persons},
        "worst": {"label": f"persons, worst pair of paths ({len(worst_rhos)} budgets, {len(set(worst_rhos))} "
                           f"distinct)", "rhos": worst_rhos},
    }
    ours = {}
    for name, c in compositions.items():
        (kind, point), seconds, first = median_time(lambda: certified(c["rhos"], eps), args.repeats)
        ours[name] = {"engine": kind, "delta": float(point.delta), "bound": float(point.error_bound),
                      "seconds": seconds, "first_seconds": first, "point": point}
        print(f"ours, {name}: {kind}, δ = {float(point.delta):.10e} ± {float(point.error_bound):.2e}, {seconds:.3g} s",
              flush=True)

    pld = {}
    for name, c in compositions.items():
        pld[name], skip = [], False
        for interval in PLD_INTERVALS[:1] if quick else PLD_INTERVALS:
            row = {"interval": interval}
            if skip:
                row["skipped"] = f"the coarser interval took more than {PLD_LIMIT_S:.0f} s"
                pld[name].append(row)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for estimate, pessimistic in (("pessimistic", True), ("optimistic", False)):
                    value, seconds, _ = median_time(lambda: pld_delta(c["rhos"], float(eps), interval, pessimistic), 1)
                    point = ours[name]["point"]
                    row[estimate] = {"delta": value, "seconds": seconds,
                                     "relative_error": float((value - point.delta) / point.delta),
                                     "verdict": verdict(value, point)}
                    print(f"dp_accounting {name} {interval:g} {estimate}: {value:.6e} ({seconds:.3g} s, "
                          f"{row[estimate]['relative_error']:+.3e}, {row[estimate]['verdict']})", flush=True)
            skip = max(row["pessimistic"]["seconds"], row["optimistic"]["seconds"]) > PLD_LIMIT_S
            pld[name].append(row)

    try:
        certified(persons, eps, engine="lattice")
        refusal = {"message": None}
    except ResourceLimitError as error:
        found = re.search(r"scan ([0-9.e+]+) candidate nodes \(N = ([0-9.e+]+)", str(error))
        refusal = {"message": str(error), "candidates": float(found.group(1)) if found else None,
                   "N": float(found.group(2)) if found else None}
    units_cert = census.certificate("pl94-units")
    units = census.pl94_rhos("pl94-units")
    engines = {}
    for name, rhos, at in (("units", units, units_cert["epsilon"]), ("worst", worst_rhos, eps)):
        engines[name] = {}
        for engine in ("lattice", "smoothed"):
            (kind, point), seconds, first = median_time(lambda: certified(rhos, at, engine=engine), args.repeats)
            assert kind == engine, (name, engine, kind)
            engines[name][engine] = {"delta": float(point.delta), "bound": float(point.error_bound),
                                     "seconds": seconds, "first_seconds": first, "point": point}
        lat, smo = engines[name]["lattice"]["point"], engines[name]["smoothed"]["point"]
        gap = abs(lat.delta - smo.delta)
        assert gap <= lat.error_bound + smo.error_bound, f"{name}: the certified intervals do not overlap"
        engines[name]["gap"] = float(gap)
        engines[name]["gap_over_bounds"] = float(gap / (lat.error_bound + smo.error_bound))
        print(f"engines {name}: lattice {float(lat.delta):.12e} ± {float(lat.error_bound):.1e}, smoothed "
              f"{float(smo.delta):.12e} ± {float(smo.error_bound):.1e}", flush=True)

    old_results = provenance.results_folder(quick) / "results_pl94.json"
    dhc = None
    if args.before:
        dhc = before_after(args.before, args.rounds)
    elif old_results.is_file():
        dhc = json.loads(old_results.read_text(encoding="utf-8")).get("dhc_before_after")

    def fmt_delta(x):
        return f"{x:.10e}"

    lines = [
        "# The redistricting data (P.L. 94-171)",
        "",
        f"`benchmarks/bench_pl94.py`: δ at the certificate's ε = {eps} ≈ {float(eps):.6f} (printed "
        f"{cert['epsilon_printed']}) for one modified record, replace-one neighbours. The persons composition "
        f"(`census.pl94_rhos(\"pl94-persons\")`, both blocks on the plain geographic path; budgets with "
        f"denominators near 10¹²) and the worst pair of paths ({worst[0]} / {worst[1]}, the first of "
        f"`census.pl94_pair_deltas`, which ranked all {len(ranked)} pairs in {rank_s:.1f} s). Ours is certified "
        f"at 1e-6 relative; times are medians of {args.repeats} runs, a fresh `Composition` each.",
        "",
        "## Ours, certified",
        "",
        "| composition | engine | δ | certified bound | seconds (first run) |",
        "|---|---|---|---|---|",
        *(f"| {compositions[n]['label']} | {o['engine']} | {fmt_delta(o['delta'])} | {o['bound']:.2e} | "
          f"{o['seconds']:.3g} ({o['first_seconds']:.3g}) |" for n, o in ours.items()),
        "",
        "## dp_accounting's PLD accountant",
        "",
        "dp-accounting's `from_discrete_gaussian_mechanism(σ = 1/√ρ_i, sensitivity=1)` for each distinct budget, "
        "self-composed over its copies, the distinct ones composed, then `get_delta_for_epsilon(ε)` (floats). "
        "Relative error = (δ_PLD − δ)/δ against our certified δ; *overstates*/*understates* means outside our "
        "certified interval, above or below.",
        "",
    ]
    for name, rows in pld.items():
        lines += [f"**{compositions[name]['label']}** (ours: δ = {fmt_delta(ours[name]['delta'])})", "",
                  "| discretisation | estimate | seconds | δ | relative error | against ours |",
                  "|---|---|---|---|---|---|"]
        for row in rows:
            if "skipped" in row:
                lines.append(f"| {row['interval']:g} | — | skipped | — | — | {row['skipped']} |")
                continue
            for estimate in ("pessimistic", "optimistic"):
                r = row[estimate]
                lines.append(f"| {row['interval']:g} | {estimate} | {r['seconds']:.3g} | {r['delta']:.6e} | "
                             f"{r['relative_error']:+.2e} | {r['verdict']} |")
        lines.append("")
    lines += [
        "## The lattice engine",
        "",
        f"`Composition(rhos, engine=\"lattice\")` on the persons composition refuses at once: "
        + (f"“{refusal['message']}”" if refusal["message"] else "it ran (no refusal)") + ".",
        "Where the lattice is coarse it runs; the same composition on the smoothed engine (medians of "
        f"{args.repeats} runs; the certified intervals overlap, asserted):",
        "",
        "| composition | engine | δ | certified bound | seconds (first run) |",
        "|---|---|---|---|---|",
    ]
    labels = {"units": f"US units, plain path ({len(units)} budgets), at ε = {units_cert['epsilon']} ≈ "
                       f"{float(units_cert['epsilon']):.4f}", "worst": compositions["worst"]["label"]}
    for name, e in engines.items():
        for engine in ("lattice", "smoothed"):
            r = e[engine]
            lines.append(f"| {labels[name]} | {engine} | {r['delta']:.12e} | {r['bound']:.2e} | "
                         f"{r['seconds']:.3g} ({r['first_seconds']:.3g}) |")
    lines += ["", "The gap between the two engines' values, as a fraction of the sum of their bounds: " +
              ", ".join(f"{labels[n].split(',')[0]} {e['gap_over_bounds']:.2f}" for n, e in engines.items()) + ".", ""]
    w = engines["worst"]
    lines += [f"`engine=\"auto\"` keeps the worst pair on the lattice (its sieve estimate is under "
              f"`profiles.LATTICE_UP_TO`), where it takes {w['lattice']['seconds'] / w['smoothed']['seconds']:.0f}× "
              "the smoothed engine's time, with a bound far below the 1e-6 relative asked.", ""]
    if dhc:
        lines += dhc_lines(dhc)

    def plain(d):
        return {k: v for k, v in d.items() if k != "point"}

    folder = provenance.results_folder(quick)
    (folder / "RESULTS_pl94.md").write_text("\n".join(lines), encoding="utf-8")
    (folder / "results_pl94.json").write_text(json.dumps({
        "machine": provenance.finish(machine), "quick": quick, "epsilon": str(eps), "worst_pair": list(worst), "rank_seconds": rank_s,
        "ours": {n: plain(o) for n, o in ours.items()}, "dp_accounting": pld, "lattice_refusal": refusal,
        "engines": {n: {k: plain(v) if isinstance(v, dict) else v for k, v in e.items()} for n, e in engines.items()},
        "dhc_before_after": dhc}, indent=1) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
