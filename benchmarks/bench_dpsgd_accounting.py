"""Benchmark: certified DP-SGD accounting (ours) against dp_accounting, prv_accountant and Opacus, in one run.

    .venv/bin/python benchmarks/bench_dpsgd_accounting.py [--dp-accounting PYTHON] [--prv PYTHON] [--opacus PYTHON]

Each peer runs in its own environment (they pin conflicting packages), through a subprocess of that environment's
Python; the options (or the environment variables DP_ACCOUNTING_PYTHON, PRV_PYTHON, OPACUS_PYTHON) name them, and
a peer whose Python is not given or not found is left out with a note. Opacus defaults to this environment's Python
(the book installs it). To make the other two environments::

    python -m venv peers/dpacc && peers/dpacc/bin/pip install dp-accounting==0.6.0
    python -m venv peers/prv && peers/prv/bin/pip install prv-accountant==0.2.0

The standard case: Poisson rate q = 0.01, noise multiplier 1, δ = 1e-5, T = 1,000 and 10,000 steps, add/remove
neighbours. Writes ``benchmarks/RESULTS_dpsgd_accounting.md`` and ``results_dpsgd_accounting.json``: ε with the
interval each tool guarantees and its time (ours at a certified width of 1e-6); ε at deep δ for T = 1,000, where
the incumbents contradict each other, each value judged against our certified interval; the smallest noise
multiplier for (ε, 1e-5), T = 10,000 and ε = 1, 3, 8, with each peer's answer checked by our certified δ.
Peers' times are measured inside their subprocess, imports excluded. About ten minutes on the book's machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import mpmath  # noqa: E402

import provenance  # noqa: E402  (benchmarks/provenance.py)
from accountlib.theory.dpsgd_accounting import DPSGDComposition, calibrate_noise_multiplier  # noqa: E402

Q, Z, DELTA = 0.01, 1.0, 1e-5
STEPS = (1000, 10_000)
DEEP = (1e-12, 1e-15, 1e-20, 1e-30)
TARGETS = (1.0, 3.0, 8.0)
CALIBRATION_STEPS = 10_000

PEER_CODE = {
    "dp_accounting": textwrap.dedent("""
        import json, sys, time
        import dp_accounting
        from dp_accounting import mechanism_calibration as mc
        from dp_accounting.pld import pld_privacy_accountant, privacy_loss_distribution as pld
        from dp_accounting.rdp import rdp_privacy_accountant
        task = json.loads(sys.argv[1])
        q, z, steps = task["q"], task["z"], task["steps"]
        def event(z):
            return dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
        out = {}
        start = time.perf_counter()
        if task["kind"] == "pld":
            acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=task["grid"])
            acc.compose(event(z))
            out["epsilon"] = [acc.get_epsilon(d) for d in task["deltas"]]
        elif task["kind"] == "buckets":  # Privacy Buckets: pessimistic and optimistic, no connect-the-dots
            for name, pess in (("upper", True), ("lower", False)):
                dist = pld.from_gaussian_mechanism(z, sampling_prob=q, pessimistic_estimate=pess,
                                                   value_discretization_interval=task["grid"], use_connect_dots=False)
                out[name] = [dist.self_compose(steps).get_epsilon_for_delta(d) for d in task["deltas"]]
        elif task["kind"] == "rdp":
            acc = rdp_privacy_accountant.RdpAccountant()
            acc.compose(event(z))
            out["epsilon"] = [acc.get_epsilon(d) for d in task["deltas"]]
        elif task["kind"] == "calibrate":
            out["z"] = mc.calibrate_dp_mechanism(pld_privacy_accountant.PLDAccountant, event, task["epsilon"],
                                                 task["deltas"][0],
                                                 bracket_interval=mc.LowerEndpointAndGuess(0.1, 1.0))
        out["seconds"] = time.perf_counter() - start
        print(json.dumps(out))
        """),
    "prv_accountant": textwrap.dedent("""
        import json, sys, time
        from prv_accountant import PRVAccountant, PoissonSubsampledGaussianMechanism
        task = json.loads(sys.argv[1])
        out = {"lower": [], "estimate": [], "upper": [], "errors": []}
        start = time.perf_counter()
        for d in task["deltas"]:
            try:
                acc = PRVAccountant(prvs=PoissonSubsampledGaussianMechanism(noise_multiplier=task["z"],
                                    sampling_probability=task["q"]), max_self_compositions=task["steps"],
                                    eps_error=task["eps_error"], delta_error=d * 1e-3)
                lo, est, up = acc.compute_epsilon(delta=d, num_self_compositions=[task["steps"]])
                out["lower"].append(lo); out["estimate"].append(est); out["upper"].append(up); out["errors"].append(None)
            except Exception as error:
                for k in ("lower", "estimate", "upper"):
                    out[k].append(None)
                out["errors"].append(" ".join(str(error).split())[:160])
        out["seconds"] = time.perf_counter() - start
        print(json.dumps(out))
        """),
    "opacus": textwrap.dedent("""
        import json, sys, time, warnings
        warnings.filterwarnings("ignore")
        from opacus.accountants import create_accountant
        from opacus.accountants.utils import get_noise_multiplier
        task = json.loads(sys.argv[1])
        out = {"epsilon": [], "errors": []}
        start = time.perf_counter()
        if task["kind"] == "calibrate":
            out["z"] = get_noise_multiplier(target_epsilon=task["epsilon"], target_delta=task["deltas"][0],
                                            sample_rate=task["q"], steps=task["steps"], accountant=task["accountant"])
        else:
            acc = create_accountant(task["accountant"])
            acc.history = [(task["z"], task["q"], task["steps"])]
            for d in task["deltas"]:
                try:
                    out["epsilon"].append(float(acc.get_epsilon(delta=d))); out["errors"].append(None)
                except Exception as error:
                    out["epsilon"].append(None); out["errors"].append(" ".join(str(error).split())[:160])
        out["seconds"] = time.perf_counter() - start
        print(json.dumps(out))
        """),
}


def peer(python: str | None, name: str, task: dict, timeout: int = 1800) -> dict | None:
    if not python:
        return None
    result = subprocess.run([python, "-c", PEER_CODE[name], json.dumps(task)], capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        return {"error": " ".join(result.stderr.strip().splitlines()[-1:])[:200]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def timed(call):
    start = time.perf_counter()
    value = call()
    return value, time.perf_counter() - start


def verdict(value, lower, upper, kind: str) -> str:
    """A peer's number against our certified interval [lower, upper] for ε: an upper bound below our lower end, or a
    lower bound above our upper end, is a false guarantee."""
    if value is None:
        return "no answer"
    if value == float("inf"):
        return "no finite bound"
    if kind == "upper" and value < lower:
        return f"**false**: {lower - value:.2e} below the certified ε"
    if kind == "lower" and value > upper:
        return f"**false**: {value - upper:.2e} above the certified ε"
    if kind == "estimate":
        off = value - upper if value > upper else value - lower if value < lower else 0.0
        return "inside the certified interval" if off == 0 else f"{off:+.2e} from the certified interval"
    return "consistent"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dp-accounting", default=os.environ.get("DP_ACCOUNTING_PYTHON"))
    parser.add_argument("--prv", default=os.environ.get("PRV_PYTHON"))
    parser.add_argument("--opacus", default=os.environ.get("OPACUS_PYTHON", sys.executable))
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: T = 1,000 only, two deep δ, one calibration at T = 1,000 (without dp_accounting's)")
    args = parser.parse_args(argv)
    global STEPS, DEEP, TARGETS, CALIBRATION_STEPS
    quick = args.quick or provenance.quick()
    if quick:
        STEPS, DEEP, TARGETS, CALIBRATION_STEPS = (1000,), (1e-12, 1e-20), (3.0,), 1000
    pythons = {"dp_accounting": args.dp_accounting, "prv_accountant": args.prv, "opacus": args.opacus}
    missing = [name for name, p in pythons.items() if not p or not Path(p).exists()]
    for name in missing:
        pythons[name] = None
    machine = provenance.machine("results_dpsgd_accounting.json")
    record: dict = {"machine": machine, "quick": quick, "case": {"q": Q, "z": Z, "delta": DELTA}, "missing_peers": missing}

    # -- the standard case -----------------------------------------------------------------------------------
    standard = []
    for steps in STEPS:
        interval, seconds = timed(lambda: DPSGDComposition(Q, Z, steps).epsilon(DELTA, abs_tol=1e-6))
        lo, hi = float(interval.lower), float(interval.upper)
        rows = [{"tool": "ours (certified, add/remove, both directions)", "epsilon": f"[{lo:.7f}, {hi:.7f}]",
                 "seconds": seconds, "guarantee": f"two-sided, certified width {hi - lo:.1e} (rounding included)",
                 "verdict": "—"}]
        base = {"q": Q, "z": Z, "steps": steps, "deltas": [DELTA]}
        r = peer(pythons["dp_accounting"], "dp_accounting", {**base, "kind": "pld", "grid": 1e-4})
        if r and "epsilon" in r:
            rows.append({"tool": "dp_accounting PLD (connect-the-dots, grid 1e-4)", "epsilon": f"{r['epsilon'][0]:.6f}",
                         "seconds": r["seconds"], "guarantee": "upper estimate, float64, no lower bound",
                         "verdict": verdict(r["epsilon"][0], lo, hi, "upper")})
        r = peer(pythons["dp_accounting"], "dp_accounting", {**base, "kind": "buckets", "grid": 1e-4})
        if r and "upper" in r:
            rows.append({"tool": "dp_accounting Privacy Buckets (grid 1e-4)",
                         "epsilon": f"[{r['lower'][0]:.6f}, {r['upper'][0]:.6f}]", "seconds": r["seconds"],
                         "guarantee": f"bracket of width {r['upper'][0] - r['lower'][0]:.1e}, float64",
                         "verdict": verdict(r["upper"][0], lo, hi, "upper") + "; lower end "
                         + verdict(r["lower"][0], lo, hi, "lower")})
        r = peer(pythons["prv_accountant"], "prv_accountant", {**base, "eps_error": 1e-3})
        if r and r.get("upper") and r["upper"][0] is not None:
            rows.append({"tool": "prv_accountant (eps_error 1e-3)", "epsilon": f"[{r['lower'][0]:.6f}, {r['upper'][0]:.6f}]",
                         "seconds": r["seconds"], "guarantee": f"two-sided, width {r['upper'][0] - r['lower'][0]:.1e}, "
                         "float64 rounding not covered", "verdict": "contains ours" if r["lower"][0] <= lo and hi <= r["upper"][0]
                         else verdict(r["upper"][0], lo, hi, "upper") + "; " + verdict(r["lower"][0], lo, hi, "lower")})
        for accountant, label in (("prv", "Opacus PRV"), ("rdp", "Opacus RDP"), ("gdp", "Opacus GDP (CLT)")):
            r = peer(pythons["opacus"], "opacus", {**base, "kind": "epsilon", "accountant": accountant})
            if r and r.get("epsilon") and r["epsilon"][0] is not None:
                rows.append({"tool": label, "epsilon": f"{r['epsilon'][0]:.6f}", "seconds": r["seconds"],
                             "guarantee": "none (an approximation)" if accountant == "gdp" else "upper only",
                             "verdict": verdict(r["epsilon"][0], lo, hi, "upper")})
        r = peer(pythons["dp_accounting"], "dp_accounting", {**base, "kind": "rdp"})
        if r and "epsilon" in r:
            rows.append({"tool": "dp_accounting RDP", "epsilon": f"{r['epsilon'][0]:.6f}", "seconds": r["seconds"],
                         "guarantee": "upper bound", "verdict": verdict(r["epsilon"][0], lo, hi, "upper")})
        standard.append({"steps": steps, "rows": rows})
        print(f"standard case T = {steps} done", file=sys.stderr, flush=True)
    record["standard"] = standard

    # -- deep δ at T = 1,000 ---------------------------------------------------------------------------------
    deep_rows = []
    run = DPSGDComposition(Q, Z, 1000)
    ours = {}
    for d in DEEP:
        interval, seconds = timed(lambda: DPSGDComposition(Q, Z, 1000).epsilon(f"{d:g}", abs_tol=1e-6))
        ours[d] = (float(interval.lower), float(interval.upper), seconds)
    base = {"q": Q, "z": Z, "steps": 1000, "deltas": list(DEEP)}
    peers_deep = {
        "dp_accounting PLD, grid 2e-5": peer(pythons["dp_accounting"], "dp_accounting", {**base, "kind": "pld", "grid": 2e-5}),
        "dp_accounting PLD, grid 1e-4": peer(pythons["dp_accounting"], "dp_accounting", {**base, "kind": "pld", "grid": 1e-4}),
        "prv_accountant, eps_error 1e-3": peer(pythons["prv_accountant"], "prv_accountant", {**base, "eps_error": 1e-3}),
        "Opacus PRV": peer(pythons["opacus"], "opacus", {**base, "kind": "epsilon", "accountant": "prv"}),
    }
    for i, d in enumerate(DEEP):
        lo, hi, seconds = ours[d]
        row = {"delta": d, "ours": f"[{lo:.6f}, {hi:.6f}]", "ours_seconds": seconds}
        for name, r in peers_deep.items():
            if r is None:
                continue
            if "error" in r:
                row[name] = f"failed: {r['error']}"
            elif "upper" in r and "estimate" in r:
                if r["upper"][i] is None:
                    row[name] = f"refused: {r['errors'][i]}"
                else:
                    row[name] = (f"[{r['lower'][i]:.6f}, {r['upper'][i]:.6f}]: lower end "
                                 f"{verdict(r['lower'][i], lo, hi, 'lower')}, upper end {verdict(r['upper'][i], lo, hi, 'upper')}")
            elif r.get("epsilon"):
                value = r["epsilon"][i]
                row[name] = (f"refused: {r['errors'][i]}" if value is None else
                             f"{value:.6f}: {verdict(value, lo, hi, 'upper')}")
        deep_rows.append(row)
    record["deep"] = deep_rows
    print("deep delta done", file=sys.stderr, flush=True)

    # -- calibration at T = 10,000 ---------------------------------------------------------------------------
    cal_rows = []
    for eps in TARGETS:
        c, seconds = timed(lambda: calibrate_noise_multiplier(Q, CALIBRATION_STEPS, (eps, DELTA)))
        z_ours = float(c.noise_multiplier)
        row = {"epsilon": eps, "ours": z_ours, "ours_step": float(c.step), "ours_seconds": seconds,
               "ours_proven_smallest": c.proven_smallest, "peers": []}
        base = {"q": Q, "steps": CALIBRATION_STEPS, "deltas": [DELTA], "epsilon": eps, "z": None}
        for label, python, name, task in (
                ("dp_accounting PLD (calibrate_dp_mechanism)", None if quick else pythons["dp_accounting"],
                 "dp_accounting", {**base, "kind": "calibrate"}),  # minutes even at T = 1,000: not in a smoke run
                ("Opacus PRV (get_noise_multiplier)", pythons["opacus"], "opacus", {**base, "kind": "calibrate", "accountant": "prv"}),
                ("Opacus RDP (get_noise_multiplier)", pythons["opacus"], "opacus", {**base, "kind": "calibrate", "accountant": "rdp"})):
            r = peer(python, name, task)
            if r is None or "z" not in r:
                continue
            point = DPSGDComposition(Q, r["z"], CALIBRATION_STEPS).delta(eps, rel_tol=1e-7)
            with mpmath.workdps(30):
                status = ("meets (ε, δ), certified" if point.delta + point.error_bound <= DELTA else
                          "**fails** (ε, δ), certified" if point.delta - point.error_bound > DELTA else "undecided")
            row["peers"].append({"tool": label, "z": r["z"], "seconds": r["seconds"],
                                 "more_noise_than_ours": r["z"] / z_ours - 1, "check": status})
        cal_rows.append(row)
        print(f"calibration eps = {eps} done", file=sys.stderr, flush=True)
    record["calibration"] = cal_rows
    record["calibration_steps"] = CALIBRATION_STEPS
    record["machine"] = provenance.finish(machine)
    folder = provenance.results_folder(quick)
    (folder / "results_dpsgd_accounting.json").write_text(json.dumps(record, indent=1, default=str) + "\n")
    (folder / "RESULTS_dpsgd_accounting.md").write_text(render(record))
    print(render(record))
    return 0


def render(record: dict) -> str:
    lines = ["# Certified DP-SGD accounting and the incumbents", "",
             "The peers' times are measured inside their own processes, imports excluded. `benchmarks/bench_dpsgd_accounting.py`: the Poisson-subsampled Gaussian, q = 0.01, noise multiplier 1, "
             "add/remove neighbours; each peer in its own environment. A peer's upper bound below our certified "
             "interval, or its lower bound above it, is a guarantee that is false.", ""]
    if record["missing_peers"]:
        lines += [f"Left out (no environment given): {', '.join(record['missing_peers'])}.", ""]
    for block in record["standard"]:
        lines += [f"## ε(δ = 1e-5) at T = {block['steps']:,}", "", "| tool | ε | seconds | guarantee | against the certified interval |",
                  "|---|---|---|---|---|"]
        lines += [f"| {r['tool']} | {r['epsilon']} | {r['seconds']:.3g} | {r['guarantee']} | {r['verdict']} |"
                  for r in block["rows"]]
        lines.append("")
    lines += ["## Deep δ at T = 1,000", ""]
    names = [k for k in record["deep"][0] if k not in ("delta", "ours", "ours_seconds")]
    lines += ["| δ | ours (certified) | seconds | " + " | ".join(names) + " |",
              "|---|---|---|" + "---|" * len(names)]
    for r in record["deep"]:
        lines.append(f"| {r['delta']:g} | {r['ours']} | {r['ours_seconds']:.2g} | "
                     + " | ".join(str(r.get(n, "")) for n in names) + " |")
    steps = record.get("calibration_steps", CALIBRATION_STEPS)
    lines += ["", f"## The smallest noise multiplier for (ε, 1e-5), T = {steps:,}", "",
              "Ours: the smallest z on a grid of relative step 1e-5 at which δ(ε) ≤ 1e-5 is certified, with a "
              "certified failure one grid step below. Each peer's z is checked with our certified δ(ε).", "",
              "| ε | tool | z | seconds | more noise than ours | our check of its z |", "|---|---|---|---|---|---|"]
    for r in record["calibration"]:
        lines.append(f"| {r['epsilon']:g} | ours (certified, step {r['ours_step']:.2g}, smallest proven: "
                     f"{r['ours_proven_smallest']}) | {r['ours']:.6f} | {r['ours_seconds']:.3g} | — | — |")
        for p in r["peers"]:
            lines.append(f"| {r['epsilon']:g} | {p['tool']} | {p['z']:.6f} | {p['seconds']:.3g} | "
                         f"{100 * p['more_noise_than_ours']:+.3f}% | {p['check']} |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
