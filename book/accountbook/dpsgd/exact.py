"""DP-SGD runs calibrated by the certified accountant, paired with the grid's RDP and zCDP runs.

The grid's runs take the noise multiplier that the Rényi (RDP) or the zCDP accountant calibrates (unifying paper
§5.2, Appendix D.4). A third calibration is exact: the smallest z on a grid of relative step 1e-5 at which the
Poisson-subsampled Gaussian composed over n steps is certainly (ε, δ)-DP, add/remove-one, with a certified failure
one step below (:func:`accountlib.calibrate_noise_multiplier`). This module trains DP-SGD at that z for the seeds
of a setting and stores one file per target and seed under ``out_dir/exact/``. With the same seed a run takes the
same initialisation, minibatches and noise draws (scaled by its own z) as the grid's runs of that seed
(:func:`accountbook.dpsgd.train_runs_together`), so the exact and the RDP runs are paired like the grid's RDP and
zCDP runs: their difference is the noise the RDP accountant leaves on the table, and nothing else.

    python -m accountbook.dpsgd.exact [--settings 0.005,500] [--seeds 0 1 2 3 4] [--out results/dpsgd/fashion-mnist]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from .results import PAPER_TARGETS, load_results, parse_settings, t_interval

__all__ = ["EXACT_SETTINGS", "exact_path", "exact_noise_multiplier", "train_exact", "load_exact", "exact_table",
           "main"]

EXACT_SETTINGS = ((0.005, 500),)
"""The settings trained with the exact calibration: the paper's headline, q = 0.005 and n = 500."""


def exact_path(out_dir, *, epsilon: float, delta: float, q: float, steps: int, seed: int) -> Path:
    """``out_dir/exact/eps=E_delta=D/q=Q_n=N_seed=S.json``."""
    return Path(out_dir) / "exact" / f"eps={epsilon:g}_delta={delta:g}" / f"q={q:g}_n={steps}_seed={seed}.json"


def exact_noise_multiplier(q: float, steps: int, epsilon: float, delta: float) -> dict:
    """The certified calibration of DP-SGD at (q, n) for the target (ε, δ): ``{"z", "z_fails", "epsilon_at_z"}``.

    ``z`` is the smallest noise multiplier on the accountant's grid (relative step 1e-5) at which (ε, δ)-DP
    certainly holds, ``z_fails`` the grid point below it, at which it certainly fails, and ``epsilon_at_z`` the
    upper end of the certified ε(δ) interval at ``z`` (at most ε).
    """
    from accountlib import DPSGDComposition, calibrate_noise_multiplier, epsilon as certified_epsilon

    calibration = calibrate_noise_multiplier(q, steps, (epsilon, delta))
    if not calibration.proven_smallest:
        raise ArithmeticError(f"the exact calibration at q = {q:g}, n = {steps}, ({epsilon:g}, {delta:g}) is not "
                              "certified to be the smallest on its grid")
    z = float(calibration.noise_multiplier)
    if z < calibration.noise_multiplier:  # the float the run uses may not be below the certified grid point
        z = math.nextafter(z, math.inf)
    at_z = certified_epsilon(DPSGDComposition(q=q, noise_multiplier=z, steps=steps), delta, abs_tol=1e-6)
    if float(at_z.upper) > epsilon:
        raise ArithmeticError(f"the certified epsilon at z = {z} is {float(at_z.upper)} > {epsilon}")
    return {"z": z, "z_fails": float(calibration.noise_multiplier - calibration.step), "epsilon_at_z": float(at_z.upper)}


def train_exact(data, *, q: float, steps: int, seed: int, out_dir, targets=PAPER_TARGETS) -> dict:
    """The exact-calibrated runs of one setting and seed, one per target, trained together and written.

    Targets whose file (:func:`exact_path`) is stored are read back, not retrained (a rerun resumes). Each file
    holds the setting, the certified calibration (:func:`exact_noise_multiplier`), the RDP multiplier of the
    grid for comparison, the model (:func:`accountbook.dpsgd.model_description`), the data set and the run
    (``{"accuracy", "cross_entropy", "history", "cpu_seconds"}``). Returns ``{(ε, δ): record}``.
    """
    import torch

    from accountlib.infrastructure.atomic import write_text_atomically
    from accountlib.theory.dpsgd_calibration import calibrate_dpsgd

    from .batched import train_runs_together
    from .training import model_description

    targets = [(float(e), float(d)) for e, d in targets]
    paths = {t: exact_path(out_dir, epsilon=t[0], delta=t[1], q=q, steps=steps, seed=seed) for t in targets}
    records = {t: json.loads(paths[t].read_text()) for t in targets if paths[t].is_file()}
    missing = [t for t in targets if t not in records]
    if not missing:
        return records
    calibrations = {t: exact_noise_multiplier(q, steps, *t) for t in missing}
    started = time.process_time()
    runs = train_runs_together(data, q=q, steps=steps, noise_multipliers=[calibrations[t]["z"] for t in missing],
                               seed=seed)
    total = time.process_time() - started
    for t, run in zip(missing, runs):
        run["cpu_seconds"] = round(total / len(runs), 1)
        run["trained_together"] = {"runs": len(runs), "cpu_seconds": round(total, 1),
                                   "torch_threads": torch.get_num_threads()}
        record = {"q": q, "steps": steps, "epsilon": t[0], "delta": t[1], "seed": seed,
                  "z_exact": calibrations[t]["z"], "z_exact_fails": calibrations[t]["z_fails"],
                  "epsilon_at_z_exact": calibrations[t]["epsilon_at_z"],
                  "z_rdp": calibrate_dpsgd(q, steps, t[0], t[1], "rdp"), "model": model_description(),
                  "data": data.name, "train_size": int(len(data.y_train)), "test_size": int(len(data.y_test)),
                  "run": run}
        write_text_atomically(paths[t], json.dumps(record, indent=1))
        records[t] = record
    return records


def load_exact(out_dir) -> list[dict]:
    """Every stored exact-calibrated run under ``out_dir/exact/``, sorted by target, setting and seed."""
    records = [json.loads(p.read_text()) for p in sorted(Path(out_dir, "exact").glob("eps=*/*.json"))]
    return sorted(records, key=lambda r: (r["epsilon"], r["delta"], r["q"], r["steps"], r["seed"]))


def exact_table(out_dir) -> list[dict]:
    """One row per (target, setting) of the stored exact-calibrated runs, each paired with the grid's runs of the
    same seeds (``out_dir/eps=…/``): seeds, z under the three accountants, the RDP variance over the exact one
    (z_R/z_E)², the mean accuracies (%) and cross-entropies of the exact, RDP and zCDP runs, and the paired
    differences exact − RDP with Student-t 95% half-widths (nan with fewer than two seeds). Runs of another model
    than the grid's are not paired."""
    grid = {(r["epsilon"], r["delta"], r["q"], r["steps"], r["seed"]): r for r in load_results(out_dir)}
    groups: dict = {}
    for record in load_exact(out_dir):
        key = (record["epsilon"], record["delta"], record["q"], record["steps"])
        paired = grid.get((*key, record["seed"]))
        if paired is not None and paired.get("model") == record.get("model"):
            groups.setdefault(key, []).append((record, paired))
    rows = []
    for (epsilon, delta, q, steps), pairs in sorted(groups.items()):
        row = {"epsilon": epsilon, "delta": delta, "q": q, "n": steps, "seeds": len(pairs),
               "z_exact": pairs[0][0]["z_exact"], "z_rdp": pairs[0][1]["z_rdp"], "z_zcdp": pairs[0][1]["z_zcdp"]}
        row["variance_ratio"] = (row["z_rdp"] / row["z_exact"]) ** 2
        for metric, scale, short in (("accuracy", 100.0, "Acc"), ("cross_entropy", 1.0, "L")):
            exact = [scale * e["run"][metric] for e, _ in pairs]
            for name, tag in (("rdp", "R"), ("zcdp", "Z")):
                row[f"{short}_{tag}"] = math.fsum(scale * p["runs"][name][metric] for _, p in pairs) / len(pairs)
            row[f"{short}_E"] = math.fsum(exact) / len(exact)
            row[f"d{short}_E-R"], row[f"d{short}_E-R_hw"] = t_interval(
                [x - scale * p["runs"]["rdp"][metric] for x, (_, p) in zip(exact, pairs)])
        rows.append(row)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m accountbook.dpsgd.exact", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/dpsgd/fashion-mnist", help="the data set's results folder")
    parser.add_argument("--settings", nargs="+", default=None, help="Q,N pairs (default 0.005,500)")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--dataset", default="fashion-mnist", help="as load_data takes it (default fashion-mnist)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)
    import torch

    from .data import load_data

    torch.set_num_threads(args.threads)
    try:
        settings = parse_settings(args.settings) if args.settings else EXACT_SETTINGS
    except ValueError as error:
        parser.error(str(error))
    data = load_data(dataset=args.dataset)
    for q, steps in settings:
        for seed in args.seeds:
            records = train_exact(data, q=q, steps=steps, seed=seed, out_dir=args.out)
            for (epsilon, delta), record in records.items():
                run = record["run"]
                print(f"exact q={q:g} n={steps} seed={seed} ({epsilon:g}, {delta:g}): z = {record['z_exact']:.6g}, "
                      f"accuracy {100 * run['accuracy']:.2f}%, cross-entropy {run['cross_entropy']:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
