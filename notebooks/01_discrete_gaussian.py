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
# # The discrete Gaussian
#
# The 2020 Census adds to every published count an integer drawn from the **discrete Gaussian**
# $\mathcal N_{\mathbb Z}(0,\sigma^2)$ (Canonne, Kamath & Steinke 2020):
#
# $$
# \Pr(X = x) = \frac{e^{-x^2/2\sigma^2}}{\Theta(\sigma^2)},\qquad
# \Theta(\sigma^2) = \sum_{y\in\mathbb Z} e^{-y^2/2\sigma^2},\qquad x\in\mathbb Z .
# $$
#
# It looks like a sampled bell curve, and for large $\sigma^2$ it nearly is one. This chapter
# meets the four facts the rest of the book leans on: the characteristic function and its two
# forms, sub-Gaussian tails, the fourth cumulant $\lambda_4$ that measures how un-Gaussian it is,
# and the oscillation that appears when two of them are added (the sieve paper's Figure 1).
# All numerics come from `accountlib.discrete_gaussian`.

# %% tags=["parameters"]
dps = 60  # working precision (decimal digits) for the high-precision checks
sigma2_lambda4 = ["0.1", "0.2", "0.4", "1", "2", "4", "10"]  # the sieve paper's Appendix A.1 table
sigma2_cf = ["0.05", "0.3", "2.5", "20.9", "909.1"]  # from below 1 to the census' largest σ²

# %%
import matplotlib.pyplot as plt
import mpmath
import numpy as np

from accountlib import discrete_gaussian as dg
from accountlib import ledger

# %% [markdown]
# ## The pmf against the continuous density
#
# At $\sigma^2 = 0.3$ almost all mass sits on $\{-1,0,1\}$ and the continuous density with the
# same $\sigma$ is a poor description; at $\sigma^2 = 2.5$ (the census' smallest variance) the two
# are hard to tell apart by eye.

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=False)
for ax, s2 in zip(axes, ["0.3", "2.5"]):
    xs = np.arange(-6, 7)
    grid = np.linspace(-6, 6, 400)
    ax.vlines(xs, 0, dg.pmf_float(xs, s2), lw=3, label=r"$\mathcal{N}_\mathbb{Z}(0,\sigma^2)$ pmf")
    ax.plot(grid, np.exp(-grid**2 / (2 * float(s2))) / np.sqrt(2 * np.pi * float(s2)), "C1", label=r"$\mathcal{N}(0,\sigma^2)$ density")
    ax.set_title(rf"$\sigma^2 = {s2}$")
    ax.set_xlabel("x")
axes[0].legend(loc="upper left", fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## The characteristic function, two ways
#
# Since $X$ is symmetric, $\varphi(\theta) = \mathbb E\cos(\theta X)$ is real, even and
# $2\pi$-periodic. Summing the pmf directly gives
# $\varphi(\theta) = \sum_x p(x)\cos(\theta x)$, which needs about $\sqrt{2\sigma^2 D\ln 10}$ terms for
# $D$ digits. Poisson summation turns it into the *dual* form
#
# $$
# \varphi(\theta) = \frac{\sum_{u\in\mathbb Z} e^{-\sigma^2(\theta - 2\pi u)^2/2}}{\sum_{u\in\mathbb Z} e^{-2\pi^2\sigma^2u^2}},
# $$
#
# a sum of Gaussians centred on the lattice $2\pi\mathbb Z$, which needs only a handful of terms
# once $\sigma^2 \gtrsim 1$. `cf(form="auto")` picks the shorter one. Below, the two forms are
# evaluated independently at 60 digits; their largest disagreement is printed.

# %%
# NBVAL_CHECK_OUTPUT
thetas = ["0.001", "0.1", "1/3", "1", "2", "3", "3.14159"]
print(f"{'sigma2':>7} {'direct terms':>13} {'dual terms':>11} {'max |direct - dual|':>20}")
for s2 in sigma2_cf:
    gap = max(abs(dg.cf(t, s2, form="direct", dps=dps) - dg.cf(t, s2, form="dual", dps=dps)) for t in thetas)
    terms = dg.cf_terms(s2, dps=dps)
    print(f"{s2:>7} {terms['direct']:>13d} {terms['dual']:>11d} {'below 1e-50' if gap < mpmath.mpf('1e-50') else 'ABOVE 1e-50':>20}")

# %%
theta = np.linspace(-np.pi, np.pi, 801)
fig, ax = plt.subplots(figsize=(7, 3.4))
for s2 in ["0.3", "2.5", "20.9"]:
    ax.plot(theta, dg.cf_float(theta, s2), label=rf"$\sigma^2={s2}$")
ax.set_xlabel(r"$\theta$")
ax.set_ylabel(r"$\varphi(\theta)$")
ax.legend()
ax.set_title("Characteristic functions: narrower peaks as $\\sigma^2$ grows")
fig.tight_layout()

# %% [markdown]
# ## Sub-Gaussian tails
#
# The discrete Gaussian is sub-Gaussian with the *same* parameter as its continuous cousin:
# $\mathbb E e^{tX} \le e^{t^2\sigma^2/2}$ (Canonne et al. 2020; sieve paper, Appendix A.1), so
# Chernoff's inequality gives $\Pr(X \ge k) \le e^{-k^2/2\sigma^2}$. This is the bound the quadrature
# engine uses to truncate the lattice. The exact tail sits below it by a factor that grows slowly
# with $k$.

# %%
s2 = "2.5"
ks = np.arange(0, 26)
exact_tail = [float(dg.tail(int(k), s2, dps=30)) for k in ks]
bound = [dg.subgaussian_tail_bound(int(k), s2) for k in ks]
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.semilogy(ks, exact_tail, "o", label=r"exact $\Pr(X\geq k)$")
ax.semilogy(ks, bound, "-", label=r"bound $e^{-k^2/2\sigma^2}$")
ax.set_xlabel("k")
ax.set_title(r"Tail of $\mathcal{N}_\mathbb{Z}(0, 2.5)$")
ax.legend()
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print("bound holds at every k:", all(e <= b for e, b in zip(exact_tail, bound)))
print(f"bound / exact at k = 25: {bound[-1] / exact_tail[-1]:.1f}")

# %% [markdown]
# ## How un-Gaussian? The fourth cumulant $\lambda_4$
#
# All odd cumulants vanish by symmetry; the first that separates $X$ from a Gaussian is
# $\lambda_4 = \kappa_4/\kappa_2^2$, which is **positive** at every $\sigma^2$ (the table prints $\kappa_4$ with its
# sign): the discrete Gaussian is leptokurtic, with more of its mass at the centre and in the tails, relative to its
# variance, than a Gaussian has. Computing $\kappa_4$ as $m_4 - 3m_2^2$ cancels catastrophically
# ($\lambda_4 \approx 10^{-81}$ at $\sigma^2 = 10$), so `cumulants` splits the cumulant generating
# function by Poisson summation into $\sigma^2t^2/2$ plus the log of a small periodic factor and
# differentiates only the latter. The sieve paper's Appendix A.1 lists $\lambda_4$ for seven variances;
# each is recorded in the [ledger](../book/ledger.md).

# %%
# NBVAL_CHECK_OUTPUT
paper_lambda4 = {"0.1": "72.21", "0.2": "4.12", "0.4": "0.19", "1": "8.34e-6", "2": "8.92e-14", "4": "2.55e-30", "10": "<1e-50"}
quote_lambda4 = {  # the sieve paper's own words, Appendix A.1
    "0.1": "For $\\sigma^{2}=0.1$, $\\lambda_{4}\\approx 72.21.$", "0.2": "For $\\sigma^{2}=0.2$, $\\lambda_{4}\\approx 4.12.$",
    "0.4": "For $\\sigma^{2}=0.4$, $\\lambda_{4}\\approx 0.19.$",
    "1": "For $\\sigma^{2}=1.0$, $\\lambda_{4}\\approx 8.34\\times 10^{-6}.$",
    "2": "For $\\sigma^{2}=2.0$, $\\lambda_{4}\\approx 8.92\\times 10^{-14}.$",
    "4": "For $\\sigma^{2}=4.0$, $\\lambda_{4}\\approx 2.55\\times 10^{-30}.$",
    "10": "For $\\sigma^{2}=10.0$, $\\lambda_{4}<10^{-50}.$"}
print(f"{'sigma2':>6} {'kappa4':>10} {'lambda4 (ours)':>16} {'paper':>9} {'verdict':>8}")
for s2 in sigma2_lambda4:
    ours = dg.lambda4(s2, dps=dps)
    kappa4 = dg.cumulants(s2, 4, dps=dps)[3]
    paper = paper_lambda4[s2]
    entry = ledger.record(
        f"sieve.A1.lambda4.sigma2={s2}",
        source="Sieve paper, Appendix A.1 (λ4 values)",
        paper=paper,
        ours=mpmath.nstr(ours, 12),
        tolerance="bound" if paper.startswith("<") else "printed",
        quote=quote_lambda4[s2],
    )
    print(f"{s2:>6} {mpmath.nstr(kappa4, 3):>10} {mpmath.nstr(ours, 6):>16} {paper:>9} {entry['verdict']:>8}")

# %% [markdown]
# $\lambda_4$ falls like $e^{-2\pi^2\sigma^2}$: by $\sigma^2 = 2.5$, the census' smallest variance,
# a single discrete Gaussian is Gaussian to about twenty digits in its cumulants. Yet composing
# many of them is *not* the same as composing Gaussians, as the next figure starts to show.

# %% [markdown]
# ## Adding two discrete Gaussians (the sieve paper's Figure 1)
#
# The census sums many independent noise terms. The pmf of a sum is a convolution, computed here
# exactly by `lattice_sum_pmf` (a direct convolution, independent of any Fourier method). Against
# the continuous Gaussian density with the same variance, the lattice pmf oscillates: it overshoots
# at some integers and undershoots at others. The paper does not state the variances behind its
# Figure 1; we use $\sigma_1^2 = 0.2$ and $\sigma_2^2 = 0.3$, small enough for the discrepancy to
# be visible. The lower panel shows the difference, pmf minus density.

# %%
pair = ["0.2", "0.3"]
lowest, values = dg.lattice_sum_pmf(pair)
support = np.arange(lowest, lowest + len(values))
var_sum = float(sum(dg.variance(s) for s in pair))
keep = np.abs(support) <= 4
grid = np.linspace(-4, 4, 400)
density = lambda x: np.exp(-x**2 / (2 * var_sum)) / np.sqrt(2 * np.pi * var_sum)
fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
top.plot(support[keep], values[keep], "o", label=r"pmf of $X_1 + X_2$")
top.plot(grid, density(grid), label=rf"$\mathcal{{N}}(0, {var_sum:.3f})$ density")
top.legend()
bottom.axhline(0, color="gray", lw=0.8)
bottom.vlines(support[keep], 0, values[keep] - density(support[keep]), lw=3, color="C2")
bottom.set_xlabel("x")
bottom.set_ylabel("pmf − density")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"Var(X1 + X2) = {var_sum:.6f}  (sum of sigma^2 = {sum(map(float, pair)):.1f})")
print(f"largest |pmf - density| on the integers: {np.max(np.abs(values - density(support))):.4f}")

# %% [markdown]
# Chapter "Edgeworth discrepancy" explains this oscillation through the lattice Edgeworth expansion;
# the quadrature chapters show how to compute tail probabilities of such sums exactly, for eighty
# terms at a time, to 35 digits.
