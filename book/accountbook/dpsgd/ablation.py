"""The architecture ablation: the choices the paper leaves open, tried on clipping-only runs.

The unifying paper (Appendix D.4.1) gives the CNN's shape — two convolution + max-pool stages, a 64-unit
hidden layer, no batch norm — but not its channel widths, kernel sizes, padding, initialisation or input
scaling. Our clipping-only level sits about three points below the paper's at n = 500. This module trains
clipping-only runs (no noise: the level of the model and optimiser alone) of each variant at the paper's
(q, n) = (0.005, 500) and (0.01, 2000), three seeds each, stores each run with its CPU time under
``results/dpsgd/<data set>/ablation/``, resumably, and tabulates them against the paper's Acc_0 and L_0::

    python -m accountbook.dpsgd.ablation [--variants base wide ...] [--settings 0.005,500 0.01,2000] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from .results import parse_settings

__all__ = ["VARIANTS", "ABLATION_SETTINGS", "ablation_path", "run_ablation", "ablation_table"]

VARIANTS = {
    "base": ({"kernel_size": 3}, "standardise", "the first model: 16 and 32 channels, 3×3 kernels, same padding, "
                                                 "PyTorch's initialisation, standardised pixels"),
    "wide": ({"kernel_size": 3, "channels": (32, 64)}, "standardise", "the first model with twice the channels: "
                                                                      "32 and 64"),
    "kernel5": ({"kernel_size": 5}, "standardise", "the first model with 5×5 kernels (same padding): the book's model"),
    "valid": ({"kernel_size": 3, "padding": "valid"}, "standardise", "the first model without padding "
                                                                     "(28 → 26 → 13 → 11 → 5)"),
    "kaiming": ({"kernel_size": 3, "init": "kaiming"}, "standardise", "the first model with Kaiming-normal weights "
                                                                      "and zero biases"),
    "unit-pixels": ({"kernel_size": 3}, "unit", "the first model on pixels in [0, 1], not standardised"),
}
"""name -> (keyword arguments of :func:`accountbook.dpsgd.build_model`, the pixel scaling of
:func:`accountbook.dpsgd.load_data`, what it changes). Every variant but ``kernel5`` changes one choice of the first
model (3×3 kernels); ``kernel5``, which the ablation chose, is the book's model (:data:`accountbook.dpsgd.MODEL`)."""

ABLATION_SETTINGS = ((0.005, 500), (0.01, 2000))
ABLATION_SEEDS = (0, 1, 2)


def ablation_path(out_dir, *, variant: str, q: float, steps: int, seed: int) -> Path:
    """``out_dir/ablation/<variant>_q=Q_n=N_seed=S.json``."""
    return Path(out_dir) / "ablation" / f"{variant}_q={q:g}_n={steps}_seed={seed}.json"


def run_ablation(out_dir, *, variants=None, settings=ABLATION_SETTINGS, seeds=ABLATION_SEEDS, data=None,
                 progress=print) -> list[Path]:
    """Train every missing clipping-only run of the ablation, cheapest setting first, and store each one
    (with its CPU seconds) as it finishes; runs already stored are skipped, so a rerun resumes."""
    import torch

    from accountlib.infrastructure.atomic import write_text_atomically

    from .batched import train_runs_together
    from .data import load_data
    from .training import model_description

    names = list(VARIANTS) if variants is None else list(variants)
    for name in names:
        if name not in VARIANTS:
            raise ValueError(f"variants: unknown variant {name!r}; known: {', '.join(VARIANTS)}")
    cache: dict = {}
    written = []
    for q, steps in sorted(settings, key=lambda s: s[0] * s[1]):
        for seed in seeds:
            for name in names:
                path = ablation_path(out_dir, variant=name, q=q, steps=steps, seed=seed)
                if path.is_file():
                    continue
                options, scaling, _ = VARIANTS[name]
                if scaling not in cache:
                    cache[scaling] = data if (data is not None and scaling == "standardise") else \
                        load_data(dataset="fashion-mnist", normalise=scaling)
                started = time.process_time()
                (run,) = train_runs_together(cache[scaling], q=q, steps=steps, noise_multipliers=[0.0], seed=seed,
                                             model_options=options)
                cpu = time.process_time() - started
                record = {"variant": name, "model": model_description(options),
                          "normalise": scaling, "q": q, "steps": steps, "seed": seed,
                          "data": cache[scaling].name, **run, "cpu_seconds": round(cpu, 1),
                          "torch_threads": torch.get_num_threads()}
                write_text_atomically(path, json.dumps(record, indent=1))
                written.append(path)
                progress(f"ablation {name} q={q:g} n={steps} seed={seed}: accuracy {100 * run['accuracy']:.2f}%, "
                         f"cross-entropy {run['cross_entropy']:.4f}, {cpu:.0f} CPU-s")
    return written


def ablation_table(out_dir) -> list[dict]:
    """One row per (variant, setting) of the stored ablation runs: seeds, mean accuracy (%) and cross-entropy
    with their sample standard deviations, mean CPU seconds per run and its ratio to the base model's, and the
    paper's clipping-only Acc_0 and L_0 at that setting (ε = 3 rows of Table 3, where it prints them)."""
    import statistics

    from .results import PAPER_TABLES

    groups: dict = {}
    for path in sorted(Path(out_dir, "ablation").glob("*.json")):
        record = json.loads(path.read_text())
        groups.setdefault((record["variant"], record["q"], record["steps"]), []).append(record)
    base_cpu = {(q, n): statistics.fmean(r["cpu_seconds"] for r in group)
                for (name, q, n), group in groups.items() if name == "base"}
    rows = []
    order = list(VARIANTS)
    for (name, q, n), group in sorted(groups.items(), key=lambda item: (item[0][1] * item[0][2],
                                                                       order.index(item[0][0]))):
        accuracy = [100 * r["accuracy"] for r in group]
        loss = [r["cross_entropy"] for r in group]
        paper = PAPER_TABLES.get((3.0, q, n), {})
        cpu = statistics.fmean(r["cpu_seconds"] for r in group)
        rows.append({"variant": name, "what": VARIANTS[name][2], "q": q, "n": n, "seeds": len(group),
                     "Acc_0": statistics.fmean(accuracy),
                     "Acc_0_sd": statistics.stdev(accuracy) if len(group) > 1 else math.nan,
                     "L_0": statistics.fmean(loss), "L_0_sd": statistics.stdev(loss) if len(group) > 1 else math.nan,
                     "cpu_seconds": cpu, "cost_vs_base": cpu / base_cpu[(q, n)] if (q, n) in base_cpu else math.nan,
                     "paper_Acc_0": paper.get("Acc_0", math.nan), "paper_L_0": paper.get("L_0", math.nan)})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m accountbook.dpsgd.ablation", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/dpsgd/fashion-mnist", help="the data set's results folder")
    parser.add_argument("--variants", nargs="+", default=None, help=f"of: {', '.join(VARIANTS)} (default all)")
    parser.add_argument("--settings", nargs="+", default=None, help="Q,N pairs (default 0.005,500 0.01,2000)")
    parser.add_argument("--seeds", nargs="+", type=int, default=list(ABLATION_SEEDS))
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    try:
        settings = parse_settings(args.settings) if args.settings else ABLATION_SETTINGS
    except ValueError as error:
        parser.error(str(error))
    try:
        run_ablation(args.out, variants=args.variants, settings=settings, seeds=args.seeds,
                     progress=lambda line: print(line, flush=True))
    except ValueError as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
