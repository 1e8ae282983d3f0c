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
# (chapter-dpsgd)=
# # DP-SGD: what zCDP costs in accuracy
#
# ```{admonition} What you will learn
# :class: tip
#
# - how {term}`DP-SGD` is calibrated under the Rényi ({term}`RDP`) and the {term}`zCDP` accountant, and why the zCDP
#   accountant cannot credit Poisson subsampling;
# - how much larger the zCDP noise multiplier is at the paper's settings, and how accurate the calibration is;
# - how to run a *paired* experiment, in which two training runs differ only in their noise scale, and read its
#   seed spread;
# - what the paper's Fashion-MNIST experiment (§5.2 of {cite}`su2026unifying`) shows when it is repeated on a CPU,
#   and where our runs differ from the paper's.
# ```
#
# ```{admonition} What you need
# :class: note
#
# Rényi DP and zCDP ({prf:ref}`def-rdp`, {prf:ref}`def-zcdp`), and the gap of the Poisson-subsampled Gaussian from
# {doc}`08_what_zcdp_forgets` ({prf:ref}`prop-zcdp-subsampling`); the conversion $\mathcal C_\delta$ of
# {doc}`09_acs_earnings` ({prf:ref}`prop-acs-conversion`); and the idea of stochastic gradient descent.
#
# This chapter needs PyTorch and Opacus: `make lab-dpsgd` (or `pip install -e './book[dpsgd]'`). The other chapters
# do not.
# ```
#
# {term}`DP-SGD` (differentially private stochastic gradient descent) trains a neural network on private data by
# changing two things in ordinary SGD. At every step a *Poisson* minibatch is drawn — each of the $N$ training
# examples joins independently with probability $q$, the *sampling rate* — each example's gradient is *clipped*
# to Euclidean norm at most $C$, and Gaussian noise of standard deviation $zC$ is added to the sum of the clipped
# gradients before the step. The number $z$ is the *{term}`noise multiplier`*. One step is a {term}`Poisson-subsampled <Poisson subsampling>` Gaussian
# {term}`mechanism`; $n$ steps compose $n$ of them.
#
# The privacy accountant turns $(q, n, z)$ into a certified $(\varepsilon, \delta)$. Two accountants are compared
# here, both converting to $(\varepsilon, \delta)$ with the same optimal Rényi-to-DP conversion $\mathcal C_\delta$:
#
# * the **Rényi ({term}`RDP`) accountant** keeps the whole Rényi curve of the subsampled Gaussian and composes it $n$ times.
#   It credits *privacy amplification by subsampling*: an example that is left out of a minibatch with probability
#   $1-q$ leaks much less;
# * the **{term}`zCDP` accountant** summarises each step by one number $\rho$. For the subsampled Gaussian the only
#   $\rho$ valid at every order is the one of the full Gaussian step, $1/(2z^2)$, so $n$ steps cost $\rho = n/(2z^2)$
#   whatever $q$ is: subsampling is not credited at all.
#
# Both accountants certify the same target $(\varepsilon_0, \delta_0)$, so the zCDP-calibrated run needs a larger
# $z$ — most at small $q$, where amplification matters most (unifying paper, Proposition 4.2 and §5.2). This chapter
# calibrates both, trains paired runs and asks how much accuracy the zCDP run loses.
#
# **Data.** The paper trains on Fashion-MNIST {cite}`xiao2017fashion`: 60,000 training and 10,000 test images of
# clothing, 28×28 grey levels, ten classes. Debian and Ubuntu ship it as the package `dataset-fashion-mnist`
# (`apt-get install dataset-fashion-mnist` puts it in `/usr/share/datasets/fashion-mnist`); the chapter finds it
# there, or in the folder given as `data_dir`. Without it the chapter falls back to scikit-learn's bundled
# handwritten digits (1,797 images of 8×8 pixels) and says so on the first line of output. The digits results of an
# earlier sweep are kept as a second, labelled data set at the end.
#
# **How it runs.** With `quick=True` (the default, used by CI and the book) the chapter shows the committed full
# results from `results/dpsgd/<data set>/` and trains one small *demonstration* pair on a random subset of the data
# (labelled as such), which takes about a minute. With `quick=False` it trains the sweeps named in `settings`,
# `targets` and `seeds`, storing one file per setting and seed (resumable: finished runs are kept). The paper's
# sweeps run as a papermill grid of this chapter on the sweep executor:
# `python -m accountlib sweep dpsgd --settings 0.005,500 --workers 2` (see "Running the book yourself").

# %% tags=["parameters", "hide-cell"]
quick = True  # True: committed full results plus a small demonstration run; False: train the sweeps below
data_dir = None  # a folder with the Fashion-MNIST IDX files; None: the installed Debian package, else digits
dataset = "auto"  # "auto", "fashion-mnist" (fail if absent) or "digits"
quick_subsample = 3000  # quick mode: training images in the demonstration run (a fifth as many test images)
quick_steps = 150  # quick mode: steps of the demonstration run (q = 0.05 of the subset)
targets = None  # [[epsilon, delta], ...]; None: both paper targets
settings = None  # [[q, n], ...]; None: the paper's nine
seeds = None  # None: [0, 1, 2, 3, 4]
results_dir = "../results/dpsgd"  # one sub-folder per data set
threads = None  # torch CPU threads for this kernel (the sweep sets 1 per worker); None: torch's default
ratio_setting = [0.001, 2000, 1.0, 1e-6]  # the exercise on the variance ratio: [q, n, epsilon, delta]

# %% tags=["hide-cell"]
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from accountlib.engine.results import below
from accountlib.theory import dpsgd_calibration, rdp
from accountbook import dpsgd, ledger

warnings.filterwarnings("ignore", module="opacus")
warnings.filterwarnings("ignore", message="Full backward hook")
if threads is not None:
    import torch

    torch.set_num_threads(int(threads))
targets = [list(t) for t in dpsgd.PAPER_TARGETS] if targets is None else targets
settings = [list(s) for s in dpsgd.paper_settings()] if settings is None else settings
seeds = [0, 1, 2, 3, 4] if seeds is None else seeds

# %%
data = dpsgd.load_data(data_dir, dataset=dataset)
if data.name.startswith("scikit-learn digits"):
    banner = "!" * 100
    print(f"{banner}\nNOT THE PAPER'S EXPERIMENT. Fashion-MNIST is not installed on the machine that built this page, so the\n"
          f"demonstration run below trains on scikit-learn's 8x8 handwritten digits; its accuracy (often near 20%)\n"
          f"says nothing about the paper's Tables 3 and 4. The tables further down are the committed Fashion-MNIST\n"
          f"results. Install the Debian package dataset-fashion-mnist (or pass data_dir) and rebuild.\n{banner}")
print(f"DATA: {data.name} — {data.note}")
print(f"train {data.x_train.shape[0]:,} images, test {data.x_test.shape[0]:,} images of "
      f"{data.x_train.shape[-1]}x{data.x_train.shape[-1]} pixels")

# %% [markdown]
# ## The experiment
#
# The setup follows the paper's Appendix D.4.1: a convolutional network with two convolution + max-pooling stages
# and a 64-unit hidden layer (no batch normalisation); flat per-example clipping at $C = 1$; noise added once per
# step; the noisy sum divided by the *expected* batch size $qN$; SGD with learning rate 0.05, no momentum, weight
# decay $10^{-4}$, and a cosine learning-rate schedule over 2,000 steps shared by every horizon. Test accuracy and
# cross-entropy are measured on all test images every 25 steps.
#
# **Pairing.** For one seed, the zCDP-calibrated run, the RDP-calibrated run and a *clipping-only* run (clipping
# but no noise, $z = 0$) start from the same initial weights and see the same Poisson minibatches; the two private
# runs draw their noise from the same standard-normal stream, scaled by their own $z$. A difference between two
# runs of one seed is then caused by the noise scale alone, and the spread over seeds gives Student-$t$ intervals
# for the *paired* differences $\Delta L = L_Z - L_R$ (test cross-entropy) and $\Delta\mathrm{Acc} =
# \mathrm{Acc}_R - \mathrm{Acc}_Z$ (positive favours RDP).
#
# **Per-example gradients on a CPU.** The paper ran Opacus on a GPU. Here every run is on two CPU cores, so the
# clipped sum of per-example gradients is computed layer by layer from one forward and one backward pass: each
# convolution's per-example gradients from its input and output gradient, and for the linear layers only the norms
# of the per-example gradients, $\lVert a_i\rVert\,\lVert g_i\rVert$ for input $a_i$ and output gradient $g_i$. This costs
# little more than a non-private step and is faster than `torch.func.vmap` (with which the stored runs were trained)
# and than Opacus's hooks; the measured ratios and the physical floor (FLOPs per example times examples over the
# CPU's attainable rate) are on the [benchmarks page](../book/benchmarks.md). Opacus's Poisson sampler, clipping
# rule and noise draws are kept, so the DP-SGD step is the same; tests check that the clipped sums equal Opacus's
# to float rounding and that the paths give the same training history.
#
# ## Calibration
#
# The smallest noise multiplier $z$ certifying $(\varepsilon_0, \delta_0)$ over $n$ steps under each accountant,
# found by bisection on $\log z$ to a relative bracket of $10^{-10}$, for the paper's nine settings. The variance
# ratio $z_R^2/z_Z^2$ is the fraction of the zCDP noise variance that the full Rényi curve needs.

# %% tags=["nbval-check-output"]
print(f"{'eps':>4} {'q':>7} {'n':>5} {'z (RDP)':>9} {'z (zCDP)':>9} {'variance ratio':>15}")
calibration = {}
for epsilon, delta in dpsgd.PAPER_TARGETS:
    for q, n in dpsgd.paper_settings():
        z_r = dpsgd_calibration.calibrate_dpsgd(q, n, epsilon, delta, "rdp")
        z_z = dpsgd_calibration.calibrate_dpsgd(q, n, epsilon, delta, "zcdp")
        calibration[epsilon, q, n] = (z_r, z_z)
        print(f"{epsilon:>4g} {q:>7g} {n:>5d} {z_r:>9.4f} {z_z:>9.4f} {(z_r / z_z) ** 2:>15.6f}")

# %% [markdown]
# At $q = 0.005$ and $n = 500$ the zCDP accountant needs a noise multiplier about 50 times the Rényi one at
# $\varepsilon_0 = 3$: its noise variance is some 2,400 times larger. The gap closes as $q$ grows. On Fashion-MNIST
# with $N = 60{,}000$ and $q = 0.005$, the noise per coordinate of the averaged gradient is $zC/(qN)$: about
# $0.11\,C$ for zCDP and $0.0023\,C$ for RDP.
#
# **How accurate is the {term}`calibration <noise calibration>`?** Appendix D.4.1 of the paper reports three numerical checks. We compute the
# same kind of quantity for our calibration: the largest amount by which the certified $\varepsilon(z)$ falls below
# the target (our $z$ is the upper end of the bisection bracket, so $\varepsilon(z) \le \varepsilon_0$ always); the
# largest relative change in $z$ when the bracket is tightened a hundredfold (the paper instead refines its grid of
# Rényi orders; we optimise the order continuously); and, at $q = 1$, the difference between the subsampled-Gaussian
# calibration and the plain Gaussian formula.

# %% tags=["nbval-check-output"]
checks = dpsgd.calibration_checks()
# The residues of the calibration depend on where each bisection stops: they are printed as the bounds they stay
# below (ε_0 − ε(z) below the bisection's 1e-8, the change of z below 1e-9); that ε(z) never exceeds ε_0 is printed
# as the check it is.
for (epsilon, delta), row in ((k, v) for k, v in checks.items() if k != "gaussian_q1"):
    side = "0 <=" if row["min_epsilon_error"] >= 0 else f"NOT >= 0 (smallest {row['min_epsilon_error']:.1e}):"
    print(f"target ({epsilon:g}, {delta:g}): {side} epsilon_0 - epsilon(z) {below(row['max_epsilon_error'], 1e-8)}; "
          f"largest relative change of z on refining: {below(row['max_refinement_change'], 1e-9)}")
print(f"q = 1: relative difference between the RDP calibration and the Gaussian formula: {checks['gaussian_q1']:.1e}")

# %% [markdown]
# At $q = 1$ the difference is exactly zero: `accountlib`'s subsampled-Gaussian Rényi curve *is* the Gaussian one
# when nothing is subsampled, so this check — a real test of the paper's numerical grid — cannot fail here.
#
# ## A demonstration run
#
# In quick mode the chapter trains one paired triple on a random subset of the data: enough to see the three runs
# diverge, not to compare with the paper. Its privacy guarantee is with respect to the subset. The full results
# below come from the committed sweep files.

# %% tags=["nbval-ignore-output"]
if quick:
    small = dpsgd.load_data(data_dir, dataset=dataset, subsample=quick_subsample)
    demo = dpsgd.paired_runs(small, q=0.05, steps=quick_steps, epsilon=3.0, delta=1e-5, seed=0, eval_every=25)
    print(f"DEMONSTRATION on {small.name}: {small.note}")
    print(f"q = 0.05 of {len(small.y_train):,} images, n = {quick_steps}, (3, 1e-5): z_RDP = {demo['z_rdp']:.3f}, "
          f"z_zCDP = {demo['z_zcdp']:.3f}")
    for name in ("clip_only", "rdp", "zcdp"):
        run = demo["runs"][name]
        print(f"  {name:>9}: test accuracy {100 * run['accuracy']:.1f}%, cross-entropy {run['cross_entropy']:.3f}")
else:
    out = Path(results_dir) / dpsgd.data_slug(data.name)
    for epsilon, delta in targets:
        for q, n in settings:
            for seed in seeds:
                dpsgd.run_setting(data, q=q, steps=int(n), epsilon=epsilon, delta=delta, seed=seed, out_dir=out)
    print(f"stored in {out.name}/")

# %% [markdown]
# ## The full results
#
# The committed sweep files, one per data set. What was run on Fashion-MNIST is listed first: the settings, the
# seeds and the number of training runs behind each number.

# %% tags=["hide-input"]
stored = {folder.name: dpsgd.load_results(folder) for folder in sorted(Path(results_dir).iterdir())
          if folder.is_dir() and any(folder.glob("eps=*/*.json"))} if Path(results_dir).is_dir() else {}
main_slug = "fashion-mnist" if "fashion-mnist" in stored else dpsgd.data_slug(data.name)
results = stored.get(main_slug, [])
rows = dpsgd.summarise(results)
for slug, found in stored.items():
    runs = {(r["q"], r["steps"]) for r in found}
    print(f"{found[0]['data']} ({found[0]['train_size']:,} training images): {len(found)} paired results, "
          f"settings (q, n) = {sorted(runs)}, seeds {sorted({r['seed'] for r in found})}, "
          f"targets {sorted({(r['epsilon'], r['delta']) for r in found})}")


# %% [markdown]
# ### Final metrics (the shape of Tables 3 and 4)
#
# Upper block: mean final test accuracy (%) and cross-entropy of the zCDP ($Z$), RDP ($R$) and clipping-only ($0$)
# runs; $nq$ is the expected number of epochs (passes over the data). Lower block: paired means over seeds of
# $\Delta L$ and $\Delta\mathrm{Acc}$ with Student-$t$ 95% half-widths. The paper's values for the same cell are
# printed under ours.

# %% tags=["hide-input", "nbval-ignore-output"]
def print_table(rows, epsilon, delta, name, compare=True):
    order = {tuple(s): i for i, s in enumerate(dpsgd.paper_settings())}  # Table 3's order: the q sweep, then n
    chosen = sorted((r for r in rows if r["epsilon"] == epsilon and r["delta"] == delta),
                    key=lambda r: (order.get((r["q"], r["n"]), len(order)), r["q"], r["n"]))
    print(f"(epsilon, delta) = ({epsilon:g}, {delta:g}); {name}; seeds per setting: {sorted({r['seeds'] for r in chosen})}")
    print(f"{'':>6} {'q':>7} {'n':>5} {'nq':>6} {'Acc_Z':>6} {'Acc_R':>6} {'Acc_0':>6} {'L_Z':>7} {'L_R':>6} {'L_0':>6}"
          f"   {'dL = L_Z - L_R':>18} {'dAcc = Acc_R - Acc_Z':>21}")
    for r in chosen:
        print(f"{'ours':>6} {r['q']:>7.4f} {r['n']:>5d} {r['epochs']:>6.2f} {r['Acc_Z']:>6.2f} {r['Acc_R']:>6.2f} "
              f"{r['Acc_0']:>6.2f} {r['L_Z']:>7.4g} {r['L_R']:>6.3f} {r['L_0']:>6.3f}   {r['dL']:>+8.3f} ± {r['dL_half']:<7.3f} "
              f"{r['dAcc']:>+9.2f} ± {r['dAcc_half']:<6.2f}")
        paper = dpsgd.PAPER_TABLES.get((epsilon, r["q"], r["n"])) if compare else None
        if paper is not None:
            print(f"{'paper':>6} {'':>7} {'':>5} {'':>6} {paper['Acc_Z']:>6.2f} {paper['Acc_R']:>6.2f} {paper['Acc_0']:>6.2f} "
                  f"{paper['L_Z']:>7.4g} {paper['L_R']:>6.3f} {paper['L_0']:>6.3f}   "
                  f"{paper['L_Z'] - paper['L_R']:>+8.3f}{'':>10} {paper['Acc_R'] - paper['Acc_Z']:>+9.2f}")
    print()


for epsilon, delta in sorted({(r["epsilon"], r["delta"]) for r in rows}):
    print_table(rows, epsilon, delta, results[0]["data"])

# %% [markdown]
# The paper's numbers (its Tables 3 and 4) are means over five seeds trained on a GPU with Opacus; ours are trained
# on a CPU with the same optimiser, schedule, clipping and noise, so a cell can differ by the seed
# spread and by the hardware's floating point, which changes every trajectory after a few steps. Ours are means over
# five seeds at $q = 0.005$ (both targets) and over fewer at the other settings of the committed Fashion-MNIST sweep
# ($q = 0.0075$, $q = 0.01$ and $q = 0.02$ at $n = 500$, $q = 0.01$ at $n = 250$, $q = 0.01$ at $n = 1000$): the
# seeds behind every row are printed with each table, and the {doc}`reproduction ledger <../book/ledger>` lists them
# beside the paper's rows. The reproduction notes at the end of the next section say how the headline cells are
# judged against the paper's.
#
# Two things stand out. First, the *paired* effect is reproduced at the headline setting: at $(3, 10^{-5})$ the
# zCDP-calibrated runs learn — far above the 10% of chance — but lose several points of accuracy and much test loss
# against the RDP-calibrated runs, while at $(5, 10^{-5})$ the penalty is much smaller, as in the paper; at $n = 1000$
# and $(3, 10^{-5})$ the loss is about four points in ours and three in the paper's row. At $q \ge 0.01$ with
# $n = 500$ the larger batch makes the zCDP noise on the averaged gradient, $zC/(qN)$, small, and the two calibrated
# runs are within about a point of each other, in ours (two seeds) as in the paper's rows. Second, at $n = 500$ *all
# three* of our runs sit about three points of accuracy below the paper's, clipping-only included, and their
# cross-entropy is a few hundredths higher (at $n = 250$ the accuracy offset is about five points; at $n = 1000$ it is
# under one, and our cross-entropy is below the paper's). The noise cannot cause that (the clipping-only run has none). The paper does not give the
# network's channel widths, kernel sizes or initialisation, nor its normalisation constants, and our choices (16 and
# 32 channels of 3×3 kernels, PyTorch's default initialisation, the training set's mean and standard deviation) are
# plausible but unverified; we record the level difference as a failed comparison rather than guess it away.

# %% [markdown]
# ### The level, by experiment: what the paper leaves open
#
# To see which of those choices moves the level, the clipping-only run (no noise: the model and the optimiser
# alone) was trained for each variant below at the headline setting $(q, n) = (0.005, 500)$, three seeds each, with
# everything else as above (`python -m accountbook.dpsgd.ablation`, which stores each run with its CPU time). The
# table gives the mean final test accuracy and cross-entropy with their sample standard deviations over the seeds,
# the CPU time per run against our model's, and the paper's clipping-only cell.

# %% tags=["hide-input"]
from accountbook.dpsgd import ablation

ablation_rows = ablation.ablation_table(Path(results_dir) / "fashion-mnist")
if not ablation_rows:
    print("No ablation runs are stored (python -m accountbook.dpsgd.ablation trains them).")
else:
    print(f"{'variant':>12} {'q':>6} {'n':>5} {'seeds':>5} {'Acc_0 (%)':>15} {'L_0':>15} {'cost':>6}   paper Acc_0, L_0")
    for r in ablation_rows:
        print(f"{r['variant']:>12} {r['q']:>6g} {r['n']:>5d} {r['seeds']:>5d} {r['Acc_0']:>8.2f} ± {r['Acc_0_sd']:<4.2f} "
              f"{r['L_0']:>8.3f} ± {r['L_0_sd']:<4.3f} {r['cost_vs_base']:>5.2f}x   {r['paper_Acc_0']:.2f}, {r['paper_L_0']:.3f}")
    print()
    for name, (_, _, what) in ablation.VARIANTS.items():
        print(f"{name:>12}: {what}")

# %% [markdown]
# Read the spread before the means: one standard deviation over three seeds is the scale at which two variants can
# be told apart. At this setting 5×5 kernels put the clipping-only run at the paper's level, accuracy and
# cross-entropy both within one standard deviation, for about a third more CPU time; Kaiming-normal initialisation
# lifts it far *above* the paper's, so the paper's model did not use it; twice the channels gains less than the
# larger kernels at more than twice the cost; no padding and unscaled pixels lower the level. The grid above keeps
# our original model for now: a change of model is decided once the variants have also been trained at the long
# setting $(0.01, 2000)$, since a choice that matches the paper at 2.5 epochs need not at 20, and it means training
# every stored run again.


# %% tags=["hide-cell"]
def history_band(results, epsilon, delta, q, n, name, key):
    """Steps, mean over seeds and its standard error, of one run's test metric along training."""
    runs = [r["runs"][name]["history"] for r in results
            if r["epsilon"] == epsilon and r["delta"] == delta and r["q"] == q and r["steps"] == n]
    steps = [p["step"] for p in runs[0]]
    values = np.array([[p[key] for p in h] for h in runs])
    return np.array(steps), values.mean(axis=0), values.std(axis=0, ddof=1) / np.sqrt(len(runs)), len(runs)


RUNS = (("zcdp", "Z", "zCDP-calibrated", "C3"), ("rdp", "R", "RDP-calibrated", "C0"), ("clip_only", "0", "clipping only", "C7"))


def history_figure(results, epsilon, delta, q, n):
    """Test accuracy and cross-entropy along training: mean over seeds, shaded ±1 standard error."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, _, label, colour in RUNS:
        for ax, key in ((axes[0], "accuracy"), (axes[1], "cross_entropy")):
            steps, mean, error, seeds = history_band(results, epsilon, delta, q, n, name, key)
            scale = 100 if key == "accuracy" else 1
            ax.plot(steps, scale * mean, color=colour, label=label)
            ax.fill_between(steps, scale * (mean - error), scale * (mean + error), color=colour, alpha=0.25, lw=0)
    axes[0].set_ylabel("test accuracy (%)")
    axes[1].set_ylabel("test cross-entropy")
    for ax in axes:
        ax.set_xlabel(f"step (q = {q:g}, n = {n})")
        ax.grid(alpha=0.3)
    axes[0].legend(title=f"(ε, δ) = ({epsilon:g}, {delta:g}), {seeds} seeds")
    fig.suptitle(f"Training at (ε, δ) = ({epsilon:g}, {delta:g}): accuracy (left) and cross-entropy (right)",
                 fontsize=10)
    fig.tight_layout()
    return fig


def sweep_figure(results, rows, epsilon, delta, along):
    """Final test accuracy and cross-entropy along one sweep: mean over seeds, ±1 standard error."""
    chosen = sorted((r for r in rows if r["epsilon"] == epsilon and r["delta"] == delta
                     and (r["n"] == 500 if along == "q" else r["q"] == 0.01)), key=lambda r: r[along])
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    x = [r[along] for r in chosen]
    for name, short, label, colour in RUNS:
        for ax, key, scale in ((axes[0], "accuracy", 100), (axes[1], "cross_entropy", 1)):
            finals = [scale * np.array([s["runs"][name][key] for s in results if s["epsilon"] == epsilon
                                        and s["delta"] == delta and s["q"] == r["q"] and s["steps"] == r["n"]])
                      for r in chosen]
            ax.errorbar(x, [f.mean() for f in finals], yerr=[f.std(ddof=1) / np.sqrt(len(f)) for f in finals],
                        fmt="o-", capsize=4, color=colour, label=label)
    axes[0].set_ylabel("final test accuracy (%)")
    axes[1].set_ylabel("final test cross-entropy")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(x, [f"{v:g}" for v in x])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel("sampling rate q (n = 500)" if along == "q" else "steps n (q = 0.01)")
        ax.grid(alpha=0.3)
    axes[0].legend(title=f"(ε, δ) = ({epsilon:g}, {delta:g})")
    fig.suptitle(f"After training, along {'the sampling rate q' if along == 'q' else 'the number of steps n'}: "
                 "accuracy (left) and cross-entropy (right)", fontsize=10)
    fig.tight_layout()
    return fig


def has_setting(epsilon, q, n):
    return any(r["epsilon"] == epsilon and r["q"] == q and r["n"] == n for r in rows)


# %% [markdown]
# ### Training histories at the headline setting (cf. Figure 10(c)–(d))
#
# $q = 0.005$ and $n = 500$ (2.5 expected epochs, about 300 examples per step): {numref}`fig-dpsgd-history-3` at
# $(3, 10^{-5})$ and {numref}`fig-dpsgd-history-5` at $(5, 10^{-5})$. Each curve is the mean over the five seeds,
# and the shaded band is $\pm 1$ standard error of that mean; the bands of the RDP-calibrated and the clipping-only
# runs overlap almost everywhere, the zCDP band lies apart from them at $(3, 10^{-5})$.

# %% mystnb={"figure": {"caption": "Fashion-MNIST, (\u03b5, \u03b4) = (3, 10\u207b\u2075), q = 0.005, n = 500: test accuracy (left) and test cross-entropy (right) along training for the zCDP-calibrated, RDP-calibrated and clipping-only runs; mean over five seeds, shaded \u00b11 standard error.", "name": "fig-dpsgd-history-3"}} tags=["hide-input"]
if has_setting(3.0, 0.005, 500):
    history_figure(results, 3.0, 1e-5, 0.005, 500)
    plt.show()

# %% mystnb={"figure": {"caption": "As the previous figure at the weaker target (\u03b5, \u03b4) = (5, 10\u207b\u2075): mean over five seeds, shaded \u00b11 standard error.", "name": "fig-dpsgd-history-5"}} tags=["hide-input"]
if has_setting(5.0, 0.005, 500):
    history_figure(results, 5.0, 1e-5, 0.005, 500)
    plt.show()

# %% [markdown]
# ### Along the sampling-rate sweep (cf. Figure 10(a)–(b))
#
# The committed Fashion-MNIST sweep has four sampling rates at $n = 500$ and $(3, 10^{-5})$, drawn in
# {numref}`fig-dpsgd-sweep-q`; of the horizon sweep of the paper's Figure 2 ($q = 0.01$), $n = 250$, $500$ and
# $1000$ are trained so far and tabulated above, and it is drawn once $n = 1500$ and $2000$ are. The error bars are
# $\pm 1$ standard error of the mean over seeds: five at $q = 0.005$, but only two at the other rates, where a
# standard error from two values is itself very uncertain.

# %% mystnb={"figure": {"caption": "Fashion-MNIST, (\u03b5, \u03b4) = (3, 10\u207b\u2075), n = 500: final test accuracy (left) and test cross-entropy (right) against the sampling rate q (log axis) for the three runs; mean over seeds (five at q = 0.005, two at the other rates), error bars \u00b11 standard error.", "name": "fig-dpsgd-sweep-q"}} tags=["hide-input"]
if sum(r["epsilon"] == 3.0 and r["n"] == 500 for r in rows) >= 2:
    sweep_figure(results, rows, 3.0, 1e-5, "q")
    plt.show()

# %% [markdown]
# ## Seedwise trend tests
#
# As in §5.2: per seed, the least-squares slope of the paired difference against $\log q$ (or $\log n$); the
# $p$-value tests the five slopes against zero (two-sided Student-$t$). The paper reports, at $(3, 10^{-5})$,
# $p = 7.06\times10^{-4}$ (loss) and $0.0108$ (accuracy) along $q$, and $p = 2.9\times 10^{-5}$ (loss) and $0.161$
# (accuracy) along $n$. A slope needs at least three settings along its sweep, and the paper's test five seeds:
# where fewer seeds have been trained here, the line below shows the slope and $p$ for what exists, and the ledger
# records the test as not reproduced.

# %% tags=["nbval-ignore-output"]
trends = {}
for slug, found in stored.items():
    for epsilon, delta in sorted({(r["epsilon"], r["delta"]) for r in found}):
        for along in ("q", "n"):
            trend = dpsgd.seedwise_trend(found, epsilon=epsilon, delta=delta, along=along)
            if trend["dL"]["seeds"] >= 2:
                trends[slug, epsilon, along] = trend
                print(f"{found[0]['data']}, eps={epsilon:g}, along log {along}: dL slope {trend['dL']['slope']:+.4g} "
                      f"(p = {trend['dL']['p']:.2g}), dAcc slope {trend['dAcc']['slope']:+.3f} pp "
                      f"(p = {trend['dAcc']['p']:.2g}); {trend['dL']['seeds']} seeds")
            else:
                print(f"{found[0]['data']}, eps={epsilon:g}, along log {along}: fewer than three settings, no test")

# %% [markdown]
# ```{dropdown} Reproduction notes
#
# How the comparisons with the paper are judged (the [ledger page](../book/ledger.md) lists every one). A cell of
# Table 3 or 4 passes when ours lies within the seed spread: the 95% Student-$t$ half-width of our five-seed mean, times $\sqrt 2$ because the paper's mean has seed noise of its own
# (its per-cell spread is not printed). The paired gains $\Delta\mathrm{Acc}$ are judged on their own seed spread, the
# 95% half-width of the paired difference, and **both fail**: at $(3, 10^{-5})$ ours is $5.29 \pm 2.25$ points against
# the paper's $8.73$ (inside the paper's own $\pm 6.10$, but the paper's mean is outside ours), at $(5, 10^{-5})$
# $0.12 \pm 1.19$ against $1.574$. The paper's bound of 0.08 points on $|\mathrm{Acc}_R - \mathrm{Acc}_0|$ is judged on the
# paired difference's interval as well; with five seeds ours ($+0.12 \pm 0.29$ and $+0.12 \pm 0.22$) holds values on
# both sides of it, so it is recorded as undecided, not passed. Our solver's calibration residuals and the RDP/zCDP
# variance ratio (below 1 by construction) are reported, not compared: they cannot test the paper's claims. Claims
# that our runs cannot test are recorded as such, with the reason.
# ```

# %% tags=["remove-cell"]
fashion = stored.get("fashion-mnist", [])
_ = dpsgd.record_ledger(fashion, calibration_checks=checks, digits=stored.get("scikit-learn-digits", []))

# %% [markdown]
# ## The digits data set (second, labelled)
#
# An earlier sweep of all nine settings ran on scikit-learn's digits, before Fashion-MNIST was installed here. With
# $N = 1{,}437$ training images the noise on the averaged gradient, $zC/(qN)$, is about 40 times larger than on
# Fashion-MNIST for the same $z$ and $q$, so the zCDP runs (whose $z$ is 16 to 68 times the RDP one) do not learn
# at all: their accuracy stays near chance and their test cross-entropy diverges. On those data the direction of the
# effects is visible, but a check such as "zCDP loses accuracy" cannot fail, so the ledger does not count them.

# %% tags=["nbval-ignore-output"]
digits = stored.get("scikit-learn-digits", [])
if digits:
    digit_rows = dpsgd.summarise(digits)
    for epsilon, delta in sorted({(r["epsilon"], r["delta"]) for r in digit_rows}):
        print_table(digit_rows, epsilon, delta, digits[0]["data"], compare=False)

# %% [markdown]
# ## Summary
#
# * Calibrated to the same $(\varepsilon, \delta)$, the zCDP accountant needs far more noise than the Rényi one at
#   small sampling rates, because a single $\rho$ cannot credit subsampling
#   ({prf:ref}`def-zcdp`, {prf:ref}`def-rdp`; unifying paper, Proposition 4.2 {cite}`su2026unifying`).
# * On Fashion-MNIST at the headline setting ($q = 0.005$, $n = 500$), the zCDP-calibrated runs learn, but less: the
#   paired penalty in accuracy and test loss is compared with the paper's Table 3 in the reproduction notes above
#   ({numref}`fig-dpsgd-history-3` shows it along training).
# * The RDP-calibrated runs are close to the clipping-only runs: at these targets the Rényi noise barely hurts.
# * Per-example gradients dominate the cost of DP-SGD on a CPU when they are formed one example at a time; computed
#   layer by layer from one backward pass, the clipped sum costs little more than a non-private step, and the step
#   stays identical.
#
# ## Exercises
#
# ```{exercise} How much variance does the Rényi accountant save? (★, run)
# :label: ex-dpsgd-ratio
#
# % change: ratio_setting = [0.002, 1000, 2.0, 1e-6]
# Calibrate DP-SGD at the setting `ratio_setting` of the parameters cell, $q = 0.001$, $n = 2000$,
# $(\varepsilon, \delta) = (1, 10^{-6})$, under both accountants with `dpsgd_calibration.calibrate_dpsgd`. How large is
# the variance ratio $z_R^2/z_Z^2$, and is it smaller than at $q = 0.005$, $n = 500$, $(3, 10^{-5})$? Then try
# $q = 0.002$, $n = 1000$, $(2, 10^{-6})$.
# ```
#
# ```{solution-start} ex-dpsgd-ratio
# :class: dropdown
# ```
#
# Both calibrations certify the same target; the zCDP one cannot use the small $q$, so the ratio is tiny — and
# smaller than at $q = 0.005$, since amplification by subsampling is stronger at smaller $q$.

# %%
q_ex, n_ex, eps_ex, delta_ex = ratio_setting
z_r1, z_z1 = (dpsgd_calibration.calibrate_dpsgd(q_ex, int(n_ex), eps_ex, delta_ex, notion) for notion in ("rdp", "zcdp"))
ratio_small = (z_r1 / z_z1) ** 2
ratio_headline = (calibration[3.0, 0.005, 500][0] / calibration[3.0, 0.005, 500][1]) ** 2
assert z_r1 < z_z1 and ratio_small < ratio_headline
assert dpsgd_calibration.dpsgd_epsilon(q_ex, int(n_ex), z_r1, delta_ex, "rdp") <= eps_ex + 1e-9  # z_R certifies it
print(f"q = {q_ex:g}, n = {int(n_ex)}, ({eps_ex:g}, {delta_ex:g}): z_RDP = {z_r1:.4f}, z_zCDP = {z_z1:.4f}, "
      f"variance ratio {ratio_small:.2e} (headline: {ratio_headline:.2e})")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Run the demonstration on half the data (★, run)
# :label: ex-dpsgd-demo
#
# % change: quick_steps = 75; quick_subsample = 1500
# Set `quick_steps = 75` and `quick_subsample = 1500` in the parameters cell (half the steps and half the images of
# the demonstration) and re-run the chapter. Does the gap between the zCDP and the RDP runs of the demonstration grow
# or shrink, and why might it? (Both the batch size $qN$ and the number of steps change; compare the noise per
# coordinate $zC/(qN)$ of the two runs.)
# ```
#
# ```{solution-start} ex-dpsgd-demo
# :class: dropdown
# ```
#
# Halving $N$ at fixed $q$ halves the expected batch and doubles the noise per coordinate of the averaged gradient,
# $zC/(qN)$, for both runs; halving $n$ lowers both noise multipliers (fewer steps share the same budget). The zCDP
# run loses most from the smaller batch, since its noise is the larger; over fewer steps, though, its excess noise
# also accumulates less. Which effect wins depends on the run — which is why the paper reports paired differences
# over five seeds rather than a single run. The code compares the noise per coordinate of the demonstration with the
# one at the book's demonstration (3,000 images, 150 steps).

# %%
if quick:
    def noise_per_coordinate(images, steps):
        return {notion: dpsgd_calibration.calibrate_dpsgd(0.05, steps, 3.0, 1e-5, notion) * dpsgd.CLIP / (0.05 * images)
                for notion in ("rdp", "zcdp")}

    here, book = noise_per_coordinate(len(small.y_train), quick_steps), noise_per_coordinate(3000, 150)
    assert here["zcdp"] > here["rdp"] and book["zcdp"] > book["rdp"]
    gap = 100 * (demo["runs"]["rdp"]["accuracy"] - demo["runs"]["zcdp"]["accuracy"])
    print(f"N = {len(small.y_train):,}, n = {quick_steps}: zC/(qN) = {here['rdp']:.2e} (RDP), {here['zcdp']:.2e} (zCDP); "
          f"book's demonstration: {book['rdp']:.2e}, {book['zcdp']:.2e}; accuracy, RDP minus zCDP: {gap:+.1f} points")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Why zCDP cannot credit subsampling (★★, derive)
# :label: ex-dpsgd-why
#
# The zCDP parameter of a mechanism is $\rho = \sup_{t>0} K(t)/(t(t+1))$ ({prf:ref}`def-zcdp`). For one DP-SGD step,
# the Poisson-subsampled Gaussian $P_q = (1-q)Q + qN(v, z^2C^2I)$ against $Q = N(0, z^2C^2I)$ with $\Vert v\Vert = C$,
# prove that
#
# $$(t+1)\log q + \frac{t(t+1)}{2z^2} \;\le\; K_q(t) \;\le\; \frac{t(t+1)}{2z^2}\qquad (t > 0),$$
#
# and deduce that $\rho = 1/(2z^2)$ for every $q \in (0, 1]$, so that $n$ steps cost $n/(2z^2)$ whatever $q$ is
# (the first half of {prf:ref}`prop-zcdp-subsampling`). Check both bounds and the climb of $K_q(t)/(t(t+1))$ towards
# $1/(2z^2)$ at $q = 0.01$, $z = 1$ and $t = 1, 10, 100$ with `rdp.PoissonSubsampledGaussian(q, z).cgf(t, 1.0)`.
# ```
#
# ```{solution-start} ex-dpsgd-why
# :class: dropdown instructor-only
# ```
#
# Write $\ell = dN(v, z^2C^2I)/dQ$, so $dP_q/dQ = 1 - q + q\ell$, and recall that the unsubsampled step has
# $\mathbb E_Q\ell^{t+1} = e^{t(t+1)/(2z^2)}$ (its Rényi curve is the zCDP parabola with $\rho = \Vert v\Vert^2/(2z^2C^2)$).
#
# *Upper bound.* $x \mapsto x^{t+1}$ is convex on $[0, \infty)$, so $(1 - q + q\ell)^{t+1} \le (1 - q)\cdot 1 + q\ell^{t+1}$.
# Taking $\mathbb E_Q$: $e^{K_q(t)} \le 1 - q + qe^{t(t+1)/(2z^2)} \le e^{t(t+1)/(2z^2)}$, since the middle term is an
# average of 1 and a number at least 1.
#
# *Lower bound.* $1 - q + q\ell \ge q\ell \ge 0$, so $(1 - q + q\ell)^{t+1} \ge q^{t+1}\ell^{t+1}$ and
# $e^{K_q(t)} \ge q^{t+1}e^{t(t+1)/(2z^2)}$.
#
# Dividing by $t(t+1)$: $\frac{\log q}{t} + \frac{1}{2z^2} \le \frac{K_q(t)}{t(t+1)} \le \frac{1}{2z^2}$. The left side
# tends to $1/(2z^2)$ as $t \to \infty$ for every fixed $q > 0$, so the supremum is exactly $1/(2z^2)$ — the
# Gaussian step's — and by composition $n$ steps have $\rho = n/(2z^2)$. The lower bound is close to the supremum
# only at orders $t$ much larger than $2z^2\log(1/q)$, far beyond the orders that decide $(\varepsilon, \delta)$ at
# practical $\delta$, which is why the Rényi accountant, keeping the whole curve, does so much better.

# %%
step = rdp.PoissonSubsampledGaussian(0.01, 1.0)
ratios = {t: step.cgf(t, 1.0) / (t * (t + 1)) for t in (1, 10, 100)}
for t, ratio in ratios.items():
    assert np.log(0.01) / t + 0.5 - 1e-12 <= ratio <= 0.5 + 1e-12, t  # the two bounds, divided by t(t+1)
assert ratios[1] < ratios[10] < ratios[100]
assert ratios[1] < 0.01 and ratios[100] > 0.4
print({t: f"{value:.4g}" for t, value in ratios.items()})

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} What pairing buys (★★, derive)
# :label: ex-dpsgd-pairing
#
# Let $(A_i, B_i)$, $i = 1, \dots, k$, be the final metrics of two runs of seed $i$, independent across seeds, with
# variances $\sigma_A^2$, $\sigma_B^2$ and covariance $c$ within a seed. (a) Show that the mean of the paired
# differences $A_i - B_i$ has variance $(\sigma_A^2 + \sigma_B^2 - 2c)/k$, while the difference of two means from
# *independently seeded* runs has variance $(\sigma_A^2 + \sigma_B^2)/k$, so pairing shrinks the interval exactly when
# $c > 0$. (b) With the committed five-seed results at $q = 0.005$, $n = 500$, compare the sample standard deviation of
# the paired differences with $\sqrt{s_A^2 + s_B^2}$ for the RDP-calibrated against the clipping-only run and for the
# RDP- against the zCDP-calibrated run, in accuracy and in cross-entropy. Where does the pairing of this chapter help
# most, and where not at all?
# ```
#
# ```{solution-start} ex-dpsgd-pairing
# :class: dropdown instructor-only
# ```
#
# (a) The differences $D_i = A_i - B_i$ are independent across seeds with $\operatorname{Var} D_i = \sigma_A^2 +
# \sigma_B^2 - 2c$, so $\operatorname{Var}\bar D = (\sigma_A^2 + \sigma_B^2 - 2c)/k$. With independent seeds for the two
# runs the covariance term is absent, and $\operatorname{Var}(\bar A - \bar B) = (\sigma_A^2 + \sigma_B^2)/k$. The
# ratio of the two standard errors is $\sqrt{1 - 2c/(\sigma_A^2 + \sigma_B^2)}$, below 1 exactly when $c > 0$, and
# close to 0 when the two runs are strongly correlated with similar variances.
#
# (b) The RDP-calibrated and the clipping-only runs share their initial weights and minibatches and differ by a
# small noise, so they are almost perfectly correlated (correlation above 0.95): the paired standard deviation is
# several times smaller than the unpaired one, in both metrics. That is what lets the chapter judge the paper's
# 0.08-point bound on $|\mathrm{Acc}_R - \mathrm{Acc}_0|$ at all. Between the RDP- and the zCDP-calibrated runs the
# noise differs by a factor of about 50, and pairing still helps in accuracy, but in cross-entropy the correlation is
# near zero and pairing buys nothing: the zCDP run's loss is driven by its own large noise.

# %%
headline = [r for r in results if r["q"] == 0.005 and r["steps"] == 500]
for epsilon in (3.0, 5.0):
    group = [r for r in headline if r["epsilon"] == epsilon]
    for key in ("accuracy", "cross_entropy"):
        final = {name: np.array([r["runs"][name][key] for r in group]) for name in ("rdp", "zcdp", "clip_only")}
        line = []
        for other in ("clip_only", "zcdp"):
            paired = np.std(final["rdp"] - final[other], ddof=1)
            unpaired = np.sqrt(np.var(final["rdp"], ddof=1) + np.var(final[other], ddof=1))
            line.append(f"R - {other}: paired {paired:.4f}, unpaired {unpaired:.4f}")
            if other == "clip_only":
                assert paired < unpaired / 3  # pairing helps most where the runs are closest
        print(f"eps = {epsilon:g}, {key} ({len(group)} seeds): " + "; ".join(line))

# %% [markdown]
# ```{solution-end}
# ```
