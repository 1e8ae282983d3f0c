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
# **What you will learn:** how DP-SGD is calibrated under each accountant; how to run a *paired* experiment in
# which two runs differ only in their noise scale; and what the paper's Fashion-MNIST experiment shows when it is
# repeated on a CPU. **What you need:** Rényi DP and zCDP (chapter "What zCDP forgets"), and the idea of SGD.
#
# **Data.** The paper trains on Fashion-MNIST (Xiao et al., 2017): 60,000 training and 10,000 test images of
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
# per-example gradients are computed with `torch.func.vmap` — faster than Opacus's hooks on this machine; the
# measured ratio and the physical floor (FLOPs per example times examples over the CPU's attainable rate) are on the
# [benchmarks page](../book/benchmarks.md) — while Opacus's Poisson sampler, clipping rule and noise draws are kept,
# so the DP-SGD step is the same; a test checks that both paths give the same training history.
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
# The residues of the calibration depend on where each bisection stops, and so on the last bits of float64 results
# (which differ between CPUs): they are printed as bounds, each at least 7x the largest value measured with numpy's
# AVX-512, AVX2 and baseline kernels (ε_0 − ε(z) up to 7.3e-10 and 1.0e-9, the change of z up to 8.2e-11); that
# ε(z) never exceeds ε_0 is printed as the check it is.
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
# five seeds at $q = 0.005$ (both targets) but over only two seeds (0 and 1) at $q = 0.0075$ and $q = 0.01$, the
# other two settings of the committed Fashion-MNIST sweep; the seed counts are printed with each table. The ledger below
# compares the headline cells with the seed spread as their tolerance.
#
# Two things stand out. First, the *paired* effect is reproduced: at $(3, 10^{-5})$ the zCDP-calibrated runs learn —
# far above the 10% of chance — but lose several points of accuracy and much test loss against the RDP-calibrated
# runs, while at $(5, 10^{-5})$ the penalty is much smaller, as in the paper. Second, *all three* of our runs sit
# about three points of accuracy below the paper's, clipping-only included, and their cross-entropy is a few
# hundredths higher. The noise cannot cause that (the clipping-only run has none). The paper does not give the
# network's channel widths, kernel sizes or initialisation, nor its normalisation constants, and our choices (16 and
# 32 channels of 3×3 kernels, PyTorch's default initialisation, the training set's mean and standard deviation) are
# plausible but unverified; we record the level difference as a failed comparison rather than guess it away.


# %% tags=["hide-cell"]
def history_mean(results, epsilon, delta, q, n, name, key):
    runs = [r["runs"][name]["history"] for r in results
            if r["epsilon"] == epsilon and r["delta"] == delta and r["q"] == q and r["steps"] == n]
    steps = [p["step"] for p in runs[0]]
    return steps, np.mean([[p[key] for p in h] for h in runs], axis=0)


def history_figure(results, epsilon, delta, q, n, title):
    """Test accuracy and cross-entropy along training, mean over seeds, for the three runs of one setting."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, label, colour in (("zcdp", "zCDP-calibrated", "C3"), ("rdp", "RDP-calibrated", "C0"),
                                ("clip_only", "clipping only", "C7")):
        for ax, key in ((axes[0], "accuracy"), (axes[1], "cross_entropy")):
            steps, values = history_mean(results, epsilon, delta, q, n, name, key)
            ax.plot(steps, 100 * values if key == "accuracy" else values, color=colour, label=label)
    axes[0].set_ylabel("test accuracy (%)")
    axes[1].set_ylabel("test cross-entropy")
    for ax in axes:
        ax.set_xlabel(f"step (q = {q:g}, n = {n})")
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def sweep_figure(rows, epsilon, delta, along, title):
    """Final test accuracy and cross-entropy along one sweep (q at n = 500, or n at q = 0.01)."""
    chosen = sorted((r for r in rows if r["epsilon"] == epsilon and r["delta"] == delta
                     and (r["n"] == 500 if along == "q" else r["q"] == 0.01)), key=lambda r: r[along])
    if len(chosen) < 2:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    x = [r[along] for r in chosen]
    for name, label, colour in (("Z", "zCDP-calibrated", "C3"), ("R", "RDP-calibrated", "C0"), ("0", "clipping only", "C7")):
        axes[0].plot(x, [r[f"Acc_{name}"] for r in chosen], "o-", color=colour, label=label)
        axes[1].plot(x, [r[f"L_{name}"] for r in chosen], "o-", color=colour, label=label)
    axes[0].set_ylabel("final test accuracy (%)")
    axes[1].set_ylabel("final test cross-entropy (log scale)")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(x, [f"{v:g}" for v in x])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel("sampling rate q (n = 500)" if along == "q" else "steps n (q = 0.01)")
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    return fig


# %% [markdown]
# ### Training histories at the headline setting (cf. Figure 10(c)–(d))
#
# $q = 0.005$ and $n = 500$ (2.5 expected epochs, about 300 examples per step), mean over the seeds.

# %% tags=["hide-input"]
for epsilon, delta in sorted({(r["epsilon"], r["delta"]) for r in rows}):
    if any(r["epsilon"] == epsilon and r["q"] == 0.005 and r["n"] == 500 for r in rows):
        history_figure(results, epsilon, delta, 0.005, 500,
                       f"{results[0]['data']}, (ε, δ) = ({epsilon:g}, {delta:g}), q = 0.005, n = 500: test metrics "
                       f"along training, mean of {len({r['seed'] for r in results})} seeds")

# %% [markdown]
# ### Along the sweeps (cf. Figures 10(a)–(b) and 2(a)–(b))
#
# Drawn only for the sweeps that have at least two settings on this data set.

# %% tags=["hide-input"]
drawn = 0
for epsilon, delta in sorted({(r["epsilon"], r["delta"]) for r in rows}):
    for along, figure in (("q", "Figure 10"), ("n", "Figure 2")):
        fig = sweep_figure(rows, epsilon, delta, along, f"{results[0]['data']}, (ε, δ) = ({epsilon:g}, {delta:g}): "
                           f"final test metrics along the {'sampling-rate' if along == 'q' else 'horizon'} sweep "
                           f"(cf. {figure})")
        drawn += fig is not None
print(f"{drawn} sweep figures drawn for {results[0]['data']}")

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
# ## Ledger
#
# The comparisons with the paper. A cell of Table 3 or 4 passes when ours lies within the seed spread: the 95%
# Student-$t$ half-width of our five-seed mean, times $\sqrt 2$ because the paper's mean has seed noise of its own
# (its per-cell spread is not printed). The paired gains $\Delta\mathrm{Acc}$ are judged on their own seed spread, the
# 95% half-width of the paired difference, and **both fail**: at $(3, 10^{-5})$ ours is $5.29 \pm 2.25$ points against
# the paper's $8.73$ (inside the paper's own $\pm 6.10$, but the paper's mean is outside ours), at $(5, 10^{-5})$
# $0.12 \pm 1.19$ against $1.574$. The paper's bound of 0.08 points on $|\mathrm{Acc}_R - \mathrm{Acc}_0|$ is judged on the
# paired difference's interval as well; with five seeds ours ($+0.12 \pm 0.29$ and $+0.12 \pm 0.22$) holds values on
# both sides of it, so it is recorded as undecided, not passed. Our solver's calibration residuals and the RDP/zCDP
# variance ratio (below 1 by construction) are reported, not compared: they cannot test the paper's claims. Claims
# that our runs cannot test are recorded as such, with the reason; the [ledger page](../book/ledger.md) lists every
# comparison.

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
#   paired penalty in accuracy and test loss is compared with the paper's Table 3 in the ledger above.
# * The RDP-calibrated runs are close to the clipping-only runs: at these targets the Rényi noise barely hurts.
# * Per-example gradients dominate the cost of DP-SGD on a CPU; `torch.func.vmap` computes them faster than Opacus's
#   hooks while keeping the step identical.
#
# ## Exercises
#
# ```{exercise} How much variance does the Rényi accountant save?
# :label: ex-dpsgd-ratio
#
# Calibrate DP-SGD at $q = 0.001$, $n = 2000$, $(\varepsilon, \delta) = (1, 10^{-6})$ under both accountants with
# `dpsgd_calibration.calibrate_dpsgd`. How large is the variance ratio $z_R^2/z_Z^2$, and is it smaller than at $q = 0.005$,
# $n = 500$, $(3, 10^{-5})$?
# ```
#
# ```{solution-start} ex-dpsgd-ratio
# :class: dropdown
# ```
#
# Both calibrations certify the same target; the zCDP one cannot use the small $q$, so the ratio is tiny — and
# smaller than at $q = 0.005$, since amplification by subsampling is stronger at smaller $q$.

# %%
z_r1, z_z1 = (dpsgd_calibration.calibrate_dpsgd(0.001, 2000, 1.0, 1e-6, notion) for notion in ("rdp", "zcdp"))
ratio_small = (z_r1 / z_z1) ** 2
ratio_headline = (calibration[3.0, 0.005, 500][0] / calibration[3.0, 0.005, 500][1]) ** 2
assert z_r1 < z_z1 and ratio_small < ratio_headline
assert dpsgd_calibration.dpsgd_epsilon(0.001, 2000, z_r1, 1e-6, "rdp") <= 1.0 + 1e-9  # z_R certifies the target
print(f"z_RDP = {z_r1:.4f}, z_zCDP = {z_z1:.4f}, variance ratio {ratio_small:.2e} (headline: {ratio_headline:.2e})")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Run the demonstration longer
# :label: ex-dpsgd-demo
#
# Set `quick_steps = 300` and `quick_subsample = 6000` in the parameters cell and re-run the chapter. Does the gap
# between the zCDP and the RDP runs of the demonstration grow or shrink, and why might it? (Both the batch size
# $qN$ and the number of steps change; compare the noise per coordinate $zC/(qN)$ of the two runs.)
# ```
#
# ```{solution} ex-dpsgd-demo
# :class: dropdown
#
# Doubling $N$ at fixed $q$ doubles the expected batch and halves the noise per coordinate of the averaged
# gradient, $zC/(qN)$, for both runs; doubling $n$ raises both noise multipliers (more steps must share the same
# budget). The zCDP run gains most from the larger batch, since its noise is the larger; over more steps, though,
# its excess noise also accumulates. Which effect wins depends on the run — which is why the paper reports paired
# differences over five seeds rather than a single run.
# ```
#
# ```{exercise} Why zCDP cannot credit subsampling
# :label: ex-dpsgd-why
#
# The zCDP parameter of a mechanism is $\rho = \sup_{t>0} K(t)/(t(t+1))$ ({prf:ref}`def-zcdp`). For the Poisson-
# subsampled Gaussian with $q = 0.01$ and $z = 1$, compute $K(t)/(t(t+1))$ at $t = 1, 10, 100$ with
# `rdp.PoissonSubsampledGaussian(q, z).cgf(t, 1.0)`. What does the ratio approach as $t$ grows, and what does that
# say about the $\rho$ of one DP-SGD step?
# ```
#
# ```{solution-start} ex-dpsgd-why
# :class: dropdown
# ```
#
# At small orders the subsampled Gaussian is far more private than the Gaussian ($K(t)/(t(t+1))$ is of order
# $q^2/z^2$), but at large orders the rare batches that contain the individual dominate and the ratio climbs
# towards the full Gaussian's $1/(2z^2) = 0.5$. The supremum — the zCDP $\rho$ — is therefore essentially that of
# the unsubsampled step, and composing $n$ steps gives $n/(2z^2)$ whatever $q$ is.

# %%
step = rdp.PoissonSubsampledGaussian(0.01, 1.0)
ratios = {t: step.cgf(t, 1.0) / (t * (t + 1)) for t in (1, 10, 100)}
assert ratios[1] < ratios[10] < ratios[100] <= 0.5 + 1e-12
assert ratios[1] < 0.01 and ratios[100] > 0.4
print({t: f"{value:.4g}" for t, value in ratios.items()})

# %% [markdown]
# ```{solution-end}
# ```
