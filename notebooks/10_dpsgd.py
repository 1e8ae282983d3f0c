# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # DP-SGD: what zCDP costs in accuracy
#
# DP-SGD clips each example's gradient and adds Gaussian noise to every Poisson-sampled minibatch. Its
# Rényi accountant credits privacy amplification by subsampling; zCDP cannot (its parameter $n/(2z^2)$ ignores
# $q$), so a zCDP-calibrated run needs more noise for the same certified $(\varepsilon, \delta)$ — most at small $q$
# (unifying paper §4.2, §5.2). This chapter calibrates both, trains paired runs with Opacus, and compares.
# Calibration: `accountlib.rdp.calibrate_dpsgd`; training: `accountlib.dpsgd`.

# %% tags=["parameters"]
quick = True  # True: one seed, two sampling rates, a few hundred steps (CI); False: the paper's sweeps
data_dir = None  # a folder with the Fashion-MNIST IDX files; None or missing files: scikit-learn digits
epsilon, delta = 3.0, 1e-5
q_values = [0.005, 0.05]
steps = 300
seeds = [0]
results_dir = "../results/dpsgd"

# %%
import json
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from accountlib import dpsgd, ledger, rdp

warnings.filterwarnings("ignore", module="opacus")
warnings.filterwarnings("ignore", message="Full backward hook")
data = dpsgd.load_data(data_dir)
print(f"DATA: {data.name} — {data.note}")
print(f"train {data.x_train.shape[0]} images, test {data.x_test.shape[0]} images of {data.x_train.shape[-1]}x{data.x_train.shape[-1]}")

# %% [markdown]
# ## Calibration
#
# The smallest noise multiplier $z$ certifying $(\varepsilon, \delta)$ over $n$ steps, under each accountant, both converted
# with $\mathcal C_\delta$ (bisection to $10^{-10}$ relative).

# %%
# NBVAL_CHECK_OUTPUT
print(f"(epsilon, delta) = ({epsilon:g}, {delta:g}), n = {steps}")
print(f"{'q':>7} {'z (RDP)':>9} {'z (zCDP)':>9} {'variance ratio':>15}")
calibration = {}
for q in q_values:
    z_r = rdp.calibrate_dpsgd(q, steps, epsilon, delta, "rdp")
    z_z = rdp.calibrate_dpsgd(q, steps, epsilon, delta, "zcdp")
    calibration[q] = (z_r, z_z)
    print(f"{q:>7g} {z_r:>9.4f} {z_z:>9.4f} {(z_r / z_z) ** 2:>15.4f}")

# %% [markdown]
# At $q = 1$ (no subsampling) the two calibrations coincide — the Gaussian Rényi curve is its own zCDP envelope:

# %%
# NBVAL_CHECK_OUTPUT
z_r, z_z = rdp.calibrate_dpsgd(1.0, steps, epsilon, delta, "rdp"), rdp.calibrate_dpsgd(1.0, steps, epsilon, delta, "zcdp")
print(f"q = 1: z_RDP = {z_r:.10f}, z_zCDP = {z_z:.10f}, relative difference {abs(z_r - z_z) / z_z:.1e}")

# %% [markdown]
# ## Paired training runs
#
# For each sampling rate and seed: a zCDP-calibrated run, an RDP-calibrated run and a clipping-only run, sharing the
# initialisation and the Poisson minibatches; the two private runs also share the standard-normal noise stream.
# With the full sweep's results in `results/dpsgd/` the chapter shows those instead.

# %%
# NBVAL_IGNORE_OUTPUT
stored = sorted(Path(results_dir).glob("*.json")) if Path(results_dir).is_dir() else []
if stored and quick:
    runs = [json.loads(p.read_text()) for p in stored]
    print(f"loaded {len(runs)} stored paired runs from {results_dir}")
else:
    runs = [dpsgd.paired_runs(data, q=q, steps=steps, epsilon=epsilon, delta=delta, seed=s) for q in q_values for s in seeds]
    print(f"trained {3 * len(runs)} runs ({len(runs)} paired settings × 3)")

# %%
def paired_summary(runs, key):
    """Mean of RDP − zCDP over seeds with a Student-t 95% interval, per sampling rate."""
    out = {}
    for q in sorted({r["q"] for r in runs}):
        diffs = np.array([r["runs"]["rdp"][key] - r["runs"]["zcdp"][key] for r in runs if r["q"] == q])
        half = stats.t.ppf(0.975, len(diffs) - 1) * diffs.std(ddof=1) / np.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
        out[q] = (diffs.mean(), half)
    return out


accuracy = paired_summary(runs, "accuracy")
loss = paired_summary(runs, "cross_entropy")
print(f"{'q':>7} {'RDP acc':>8} {'zCDP acc':>9} {'clip acc':>9} {'acc RDP-zCDP':>14} {'CE RDP-zCDP':>13}")
for q in sorted(accuracy):
    sel = [r for r in runs if r["q"] == q]
    mean = lambda name, key: np.mean([r["runs"][name][key] for r in sel])
    print(f"{q:>7g} {mean('rdp', 'accuracy'):>8.3f} {mean('zcdp', 'accuracy'):>9.3f} {mean('clip_only', 'accuracy'):>9.3f} "
          f"{accuracy[q][0]:>+9.3f} ± {accuracy[q][1]:.3f} {loss[q][0]:>+8.3f} ± {loss[q][1]:.3f}")
print("(± is a Student-t 95% half-width over seeds; nan with one seed)")

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for i, q in enumerate(sorted(accuracy)):
    example = next(r for r in runs if r["q"] == q)
    for name, style in (("rdp", "-"), ("zcdp", "--"), ("clip_only", ":")):
        h = example["runs"][name]["history"]
        axes[0].plot([p["step"] for p in h], [p["accuracy"] for p in h], style, color=f"C{i}", label=f"q={q:g} {name}")
        axes[1].plot([p["step"] for p in h], [p["cross_entropy"] for p in h], style, color=f"C{i}")
axes[0].set_ylabel("test accuracy")
axes[1].set_ylabel("test cross-entropy")
for ax in axes:
    ax.set_xlabel("step")
axes[0].legend(fontsize=7)
fig.suptitle(f"Training histories ({data.name}; seed {runs[0]['seed']})", fontsize=10)
fig.tight_layout()

# %% [markdown]
# The paper (Fashion-MNIST, five seeds) reports at $q = 0.005$, $n = 500$: RDP 65.138% against zCDP 56.408%, a paired gain
# of $8.73 \pm 6.10$ points; the two agree within seed noise for $q \ge 0.02$. Our runs use
# **the data named at the top of this chapter**; when that is not Fashion-MNIST the accuracies are not comparable
# with the paper's, only the direction of the effect is. The zCDP penalty is visible in the calibration itself:
# at small $q$ zCDP needs orders of magnitude more noise variance. On the digits fallback it is catastrophic: the noise
# added to the averaged gradient has standard deviation $zC/(qN)$ per coordinate, and with only $N = 1{,}437$ training
# images ($qN \approx 7$ at $q = 0.005$, against 300 for Fashion-MNIST's 60,000) the zCDP runs cannot learn at all.

# %%
ratio_small_q = (calibration[min(q_values)][0] / calibration[min(q_values)][1]) ** 2
_ = ledger.record("unifying.5.2.calibration_direction", source="Unifying paper §5.2 (zCDP needs more noise at small q)",
                  paper="<1", ours=f"{ratio_small_q:.6f}", tolerance="bound")
