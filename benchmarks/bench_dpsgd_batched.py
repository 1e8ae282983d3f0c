"""Benchmark: CPU time per DP-SGD run of one (setting, seed), the runs one by one against the runs trained together.

    .venv/bin/python benchmarks/bench_dpsgd_batched.py [--settings 0.005,100 0.01,100] [--threads 1] [--quick]

The sweep trains five runs per setting and seed — clipping-only and the RDP- and zCDP-calibrated runs at
ε = 3 and ε = 5 (δ = 1e-5), with the noise multipliers the chapter calibrates for the paper's horizon n = 500
— on Fashion-MNIST. For each setting (q, steps) this script measures, in one process:

* ``single, NCHW``: the five runs one after another with ``accountbook.dpsgd.train_run(...,
  memory_format="contiguous", micro_batch=None)``, one run's path as it was before the runs were batched (its own
  Poisson loader, noise and optimiser; PyTorch's default NCHW layout; each minibatch's clipped sum at once;
  ``model(x_test)`` at once for the test metrics);
* ``single``: the same with ``train_run``'s defaults, channels-last activations and minibatches taken in parts of
  ``MICRO_BATCH`` examples;
* ``together``: the same five runs with ``accountbook.dpsgd.train_runs_together`` (what ``sweep dpsgd`` runs:
  one loader and one noise draw for all, channels-last activations, test metrics in cache-sized chunks with
  pooling before the ReLU);

as CPU seconds (``time.process_time``) per run, and checks that both give the same histories to float32
rounding. Test metrics every 25 steps as in the paper, so a run of ``steps`` steps has the proportions of
training to evaluation of a run of the paper's length; the CPU time of a whole run of n steps is about n/steps
times the one measured. With every sampling rate of the paper's grid measured (the default settings), it adds
up the CPU time of one seed of the whole grid (nine settings, five runs each) both ways: the saving per run of
the grid. It also times the five runs' convolutions stacked, on one part of a minibatch (``MICRO_BATCH`` images,
channels-last, the book's model), against five separate convolutions: one first convolution with all the runs'
output channels and one grouped second convolution, the alternatives tried and not taken.

Writes ``benchmarks/RESULTS_dpsgd_batched.md`` (the book's benchmarks page includes it) and
``benchmarks/results_dpsgd_batched.json`` with the machine and the code hash (``provenance.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import torch
from torch.nn import functional as F

from accountbook import dpsgd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402

TARGETS = ((3.0, 1e-5), (5.0, 1e-5))
DEFAULT_SETTINGS = ("0.005,100", "0.0075,100", "0.01,100", "0.02,100", "0.05,50")


def whole_grid(rows) -> dict | None:
    """CPU hours of one seed of the paper's grid (its nine (q, n), five runs each), one by one (NCHW) and together,
    each setting's run costing n/steps times the CPU seconds per run measured at its q; ``None`` unless every q of
    the grid was measured."""
    measured = {row["q"]: row for row in rows}
    settings = dpsgd.paper_settings()
    if any(q not in measured for q, _ in settings):
        return None
    hours = {way: sum(n / measured[q]["steps"] * measured[q][f"{way}_cpu_per_run"] * measured[q]["runs"]
                      for q, n in settings) / 3600 for way in ("single_nchw", "single", "together")}
    return {"settings": [list(s) for s in settings], "cpu_hours_per_seed": hours,
            "ratio_to_nchw": hours["together"] / hours["single_nchw"], "ratio": hours["together"] / hours["single"]}


def multipliers(q: float) -> list[float]:
    """Clipping-only, then RDP and zCDP at each target, calibrated for the paper's n = 500 at rate q."""
    from accountlib.theory.dpsgd_calibration import calibrate_dpsgd

    return [0.0] + [calibrate_dpsgd(q, 500, e, d, notion) for e, d in TARGETS for notion in ("rdp", "zcdp")]


def cpu(function):
    started = time.process_time()
    value = function()
    return time.process_time() - started, value


def stacked_convolutions(repeats: int = 5) -> dict:
    """CPU seconds of the five runs' convolutions stacked against five separate ones, on one part of a minibatch
    (``MICRO_BATCH`` images; the book's model laid out channels-last, as the runs trained together have it), best of
    ``repeats``."""
    last = torch.channels_last
    batch, runs = dpsgd.MICRO_BATCH, 5
    models = []
    for seed in range(runs):
        torch.manual_seed(seed)
        models.append(dpsgd.build_model(28).to(memory_format=last).requires_grad_(False))
    first = [model[0] for model in models]
    second = [next(layer for layer in list(model)[1:] if isinstance(layer, torch.nn.Conv2d)) for model in models]
    x1 = torch.randn(batch, 1, 28, 28)  # as the Poisson loader collates the images
    x2 = [torch.randn(batch, layer.in_channels, 14, 14).contiguous(memory_format=last) for layer in second]
    weight1, bias1 = torch.cat([layer.weight for layer in first]), torch.cat([layer.bias for layer in first])
    stacked_x2 = torch.cat(x2, 1).contiguous(memory_format=last)
    weight2, bias2 = torch.cat([layer.weight for layer in second]), torch.cat([layer.bias for layer in second])
    cases = {f"first convolution: {runs} × {first[0].out_channels} channels": lambda: [layer(x1) for layer in first],
             f"first convolution: one of {runs * first[0].out_channels} channels":
             lambda: F.conv2d(x1, weight1, bias1, padding=first[0].padding),
             f"second convolution: {runs} separate": lambda: [layer(x) for layer, x in zip(second, x2)],
             f"second convolution: one grouped ({runs} groups)":
             lambda: F.conv2d(stacked_x2, weight2, bias2, padding=second[0].padding, groups=runs)}
    out = {}
    for name, case in cases.items():
        case()
        out[name] = min(cpu(case)[0] for _ in range(repeats))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", nargs="+", default=list(DEFAULT_SETTINGS),
                        help=f"Q,STEPS pairs (default {' '.join(DEFAULT_SETTINGS)}: every q of the paper's grid)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 0.005,25 only")
    args = parser.parse_args()
    args.quick = args.quick or provenance.quick()
    try:
        settings = [(float(q), int(n)) for q, n in (s.split(",") for s in (["0.005,25"] if args.quick else args.settings))]
    except ValueError:
        parser.error(f"--settings takes Q,STEPS pairs such as 0.005,100; got {' '.join(args.settings)}")
    warnings.filterwarnings("ignore")
    torch.set_num_threads(args.threads)
    machine = provenance.machine("results_dpsgd_batched.json")
    data = dpsgd.load_data(dataset="fashion-mnist")
    rows = []
    for q, steps in settings:
        zs = multipliers(q)
        together_cpu, together = cpu(lambda: dpsgd.train_runs_together(data, q=q, steps=steps, noise_multipliers=zs,
                                                                      seed=0))
        single_cpu, single = {}, {}
        for layout in ("contiguous", "channels_last"):
            single_cpu[layout], single[layout] = 0.0, []
            for z in zs:
                # NCHW at once: one run's path before the runs were batched
                seconds, run = cpu(lambda: dpsgd.train_run(data, q=q, steps=steps, noise_multiplier=z, seed=0,
                                                           memory_format=layout,
                                                           micro_batch=dpsgd.MICRO_BATCH if layout == "channels_last"
                                                           else None))
                single_cpu[layout] += seconds
                single[layout].append(run)
        compared = single["channels_last"] + single["contiguous"]
        worst_loss = max(abs(a["cross_entropy"] / b["cross_entropy"] - 1) for ra, rb in zip(together * 2, compared)
                         for a, b in zip(ra["history"], rb["history"]))
        worst_accuracy = max(abs(a["accuracy"] - b["accuracy"]) for ra, rb in zip(together * 2, compared)
                             for a, b in zip(ra["history"], rb["history"]))
        rows.append({"q": q, "steps": steps, "runs": len(zs),
                     "single_nchw_cpu_per_run": single_cpu["contiguous"] / len(zs),
                     "single_cpu_per_run": single_cpu["channels_last"] / len(zs),
                     "together_cpu_per_run": together_cpu / len(zs),
                     "ratio_to_nchw": together_cpu / single_cpu["contiguous"],
                     "ratio": together_cpu / single_cpu["channels_last"],
                     "largest_relative_loss_difference": worst_loss, "largest_accuracy_difference": worst_accuracy,
                     "noise_multipliers": zs})
    grid = whole_grid(rows)
    smallest, largest = min(rows, key=lambda r: r["ratio"]), max(rows, key=lambda r: r["ratio"])
    spread = ("" if smallest is largest else
              f"Against one run alone laid out the same way (the last ratio), the saving is largest at q = "
              f"{smallest['q']:g} ({smallest['ratio']:.2f}) and smallest at q = {largest['q']:g} "
              f"({largest['ratio']:.2f}). ")
    convolutions = stacked_convolutions()
    quick = " --quick" if args.quick else ""
    lines = [
        "# The runs of one setting and seed, one by one and together",
        "",
        f"`benchmarks/bench_dpsgd_batched.py{quick}`: the five runs of one setting and seed (clipping-only; RDP and "
        "zCDP at ε = 3 and 5, δ = 1e-5), on Fashion-MNIST with test metrics every 25 steps, trained one after another "
        "by `train_run` and together by `train_runs_together` (what `sweep dpsgd` runs); CPU seconds per run "
        f"(`time.process_time`, {args.threads} torch thread{'s' if args.threads > 1 else ''}).",
        "",
        "| q | steps | expected batch | one by one, NCHW | one by one | together | together ÷ one by one, NCHW "
        "| together ÷ one by one | largest difference in the histories |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['q']:g} | {r['steps']} | {r['q'] * len(data.y_train):.0f} | {r['single_nchw_cpu_per_run']:.1f} | "
                     f"{r['single_cpu_per_run']:.1f} | {r['together_cpu_per_run']:.1f} | **{r['ratio_to_nchw']:.2f}** | "
                     f"{r['ratio']:.2f} | cross-entropy {r['largest_relative_loss_difference']:.1e} "
                     f"relative, accuracy {r['largest_accuracy_difference']:.4f} |")
    if grid is not None:
        hours = grid["cpu_hours_per_seed"]
        lines.append(f"| the paper's grid, one seed: {len(grid['settings'])} settings × 5 runs | | | "
                     f"{hours['single_nchw']:.2f} h | {hours['single']:.2f} h | {hours['together']:.2f} h | "
                     f"**{grid['ratio_to_nchw']:.2f}** | {grid['ratio']:.2f} | |")
    lines += [
        "",
        "CPU seconds per run. A whole run of the paper's n steps costs about n/steps times the CPU seconds shown: "
        "every way evaluates every 25 steps, so training and evaluation keep their proportions. The first column "
        "is one run alone as the runs were trained before they were batched (PyTorch's default NCHW layout, the "
        "whole minibatch at once), with today's per-example gradients; the bold ratio is the saving of what the "
        "sweep runs now against it. The last row adds up one seed of the paper's grid (n = 500 at "
        "every q; q = 0.01 at n = 250, 1000, 1500 and 2000), each run at n/steps times the CPU seconds per run of its "
        "q: CPU hours, and the saving per run of the grid.",
        "",
        "Laid out channels-last, PyTorch's CPU convolutions and max-pooling (with the indices its backward needs) "
        "take about half the time they take on NCHW tensors of these shapes; the values agree to float32 rounding "
        "(a different convolution algorithm), so a tie in a max-pooling window can go the other way.",
        "",
        f"Each minibatch's clipped sum is taken in parts of at most {dpsgd.MICRO_BATCH} images (the clipped sum "
        "is a sum over examples): a part's activations and per-example gradients then stay in the CPU's caches, "
        "which saves most where the minibatches are largest (q = 0.05: about 3,000 images).",
        "",
        "Trained together, the runs share the Poisson minibatches (drawn and collated once), the standard-normal "
        "noise (drawn once per parameter and scaled by each run's z·C) and the evaluation's data; each run's "
        f"forward and backward pass stays its own. {spread}Evaluation weighs most where the minibatches are small, and "
        "`model(x_test)` on 10,000 images at once overflows the CPU's caches and PyTorch's pooling kernel with "
        "indices is slow on such tensors, while 250 images at a time, pooling before the ReLU by four strided "
        "maxima (`accountbook.dpsgd.pooling`, the same values), costs a fraction. The differences in the last "
        "column are float32 rounding: the three ways take the same steps.",
        "",
        "The runs' convolutions one by one and stacked (CPU seconds, one part of "
        f"{dpsgd.MICRO_BATCH} images, channels-last, best of 5). Neither stacking is used: the runs' inputs to the "
        "second convolution differ, so stacking it is a grouped convolution, forward and backward; the first sees "
        "the same images in every run, but splitting its stacked output by run, and joining the runs' gradients "
        "again for the per-example products, cost more CPU time end to end than the separate convolutions when "
        "it was tried.",
        "",
        "| convolution | CPU s |",
        "|---|---|",
    ]
    lines += [f"| {name} | {seconds:.4f} |" for name, seconds in convolutions.items()]
    folder = provenance.results_folder(args.quick)
    (folder / "RESULTS_dpsgd_batched.md").write_text("\n".join(lines) + "\n")
    (folder / "results_dpsgd_batched.json").write_text(json.dumps({
        "machine": provenance.finish(machine), "data": data.name, "threads": args.threads, "quick": args.quick, "settings": rows,
        "whole_grid": grid, "stacked_convolutions": convolutions}, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
