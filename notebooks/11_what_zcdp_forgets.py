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
# # What zCDP forgets
#
# ```{admonition} What you will learn
# :class: tip
#
# - what the single number $\rho$ of zero-concentrated DP ({term}`zCDP`) keeps of a {term}`mechanism`'s whole Rényi
#   curve, and how to measure what it drops: the **gap** $\Gamma(t)$;
# - why Gaussian noise loses nothing, a {term}`Gaussian mixture` loses at order $s^2$ and {term}`Laplace noise` only at
#   order $s^4$ in the shift $s$ (Proposition 4.1 of {cite}`su2026unifying`);
# - why {term}`Poisson subsampling`, the heart of {term}`DP-SGD`, is where zCDP forgets the most;
# - how dividing a fixed total $\rho$ among releases changes the total gap, why tail weight does not order
#   the gap, and why {term}`lattice` noise has a gap that is periodic in the order;
# - how to read each of the paper's Figures 1 and 3–7, 11 and 12 off `accountlib.theory.rdp`.
# ```
#
# ```{admonition} What you need
# :class: note
#
# The Rényi divergence and {term}`RDP` ({prf:ref}`def-rdp`), zCDP ({prf:ref}`def-zcdp`) and the privacy-loss
# distribution ({prf:ref}`def-pld`) from the {doc}`02_primer`, and {term}`allocations <allocation>` ({prf:ref}`def-allocation`).
# {doc}`10_information_equivalence` explains why the Rényi curve, when finite, carries *all* the information
# about a pair; this chapter measures what is lost when that curve is replaced by one number.
# ```
#
# Rényi differential privacy {cite}`mironov2017renyi` describes a pair of output distributions $(P, Q)$ — what
# a mechanism produces on two {term}`neighbouring data sets` — by a whole curve: for each order $t > 0$, the
# {term}`cumulant` generating function of the privacy loss,
#
# $$K(t) = \log \mathbb E_Q\!\left[\left(\frac{dP}{dQ}\right)^{t+1}\right] = t\,D_{t+1}(P\Vert Q).$$
#
# zCDP {cite}`bun2016concentrated,dwork2016concentrated` keeps one number of that curve, the smallest slope
# of a parabola lying above it,
#
# $$\rho = \sup_{t > 0} \frac{K(t)}{t(t+1)},$$
#
# and from then on pretends the curve *is* the parabola $\rho\,t(t+1)$. What it forgets, order by order, is
# the **gap** ({term}`Γ gap`)
#
# $$\Gamma(t) = \rho\,t(t+1) - K(t) \;\ge\; 0,$$
#
# which is zero exactly when the Rényi curve is the parabola, as it is for Gaussian noise, and positive
# otherwise {cite}`su2026unifying`. The gap is not an abstract nuisance: every conversion from zCDP to
# $(\varepsilon, \delta)$ ({prf:ref}`prop-primer-zcdp-to-dp`) uses the parabola in place of the curve, so a
# positive gap means the reported $\varepsilon$ charges for privacy loss that never occurs, and a mechanism
# calibrated by zCDP adds more noise than it needs ({doc}`12_acs_earnings` and {doc}`13_dpsgd` measure how much).
#
# This chapter measures $\Gamma$ for the paper's mechanisms with `accountlib.theory.rdp`. Where no closed form
# exists, $K$ is an integral computed with a checked error estimate (a failed estimate raises an error
# instead of returning a wrong number) — for the mixture and the subsampled Gaussian by
# {term}`Gauss–Hermite quadrature`, a rule that integrates against a Gaussian weight using a fixed set of
# nodes. One subtlety: the supremum defining $\rho$ can be attained as $t \downarrow 0$, where
# $K(t)/(t(t+1)) \to \mathbb E_P L$, the mean privacy loss (the Kullback–Leibler divergence), so `accountlib`
# includes that endpoint.
#
# ```{prf:theorem} Gaps add under independent composition (unifying paper §3.3)
# :label: thm-zcdp-gap-composition
#
# Let $(P_i, Q_i)$, $i = 1, \dots, n$, be independent pairs with cumulant generating functions $K_i$ and
# zCDP parameters $\rho_i$, and write $\mathbf K = \sum_i K_i$ and $\rho_{\mathrm{sum}} = \sum_i \rho_i$.
# Then the composed gap $\mathbf\Gamma(t) = \rho_{\mathrm{sum}}t(t+1) - \mathbf K(t)$ is
# $\sum_{i=1}^n \Gamma_i(t)$, and the product pair's own optimal parameter
# $\rho_\star = \sup_{t>0}\mathbf K(t)/(t(t+1))$ is at most $\rho_{\mathrm{sum}}$.
# ```
#
# So a {term}`workload` of $d$ identical queries forgets $d$ times what one query forgets: the gap is a per-query
# cost that accumulates, which is why small gaps matter for the census-sized workloads of {doc}`12_acs_earnings`.

# %% tags=["parameters", "hide-cell"]
t_main = 1.0  # the order used in Figures 4–6
t_repeat = 1.5  # Appendix D.2 repeats Figures 4–6 here (Figures 11 and 12)
shift_grid = 61  # log-spaced s in [1e-3, 1e-1] (Figure 4(a))
q_grid = 1001  # sampling rates (Figure 4(b)-(c))
omega_grid = 241  # allocation path (Prop. 4.3)
curvature_grid = 501  # zCDP parameters in [0, 1/2] for the curvature checks (Appendix D.1-D.2)
nu_grid = [1, 2, 3, 4, 5, 6.013052641, 8, 10, 15, 20, 30, 50]  # Appendix D.1
beta_grid = [1.0, 1.25, 1.5, 1.75, 1.9, 2.0]  # Appendix D.1
q_exercise = 0.05  # the exercise on composed gaps: the sampling rate of the subsampled step
argmax_xatol = 1e-6  # the tolerance in ν of the search for the ν where the Student-t gap is largest

# %% tags=["hide-cell"]
import math

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import HTML, display

from accountlib.theory import rdp
from accountbook import diagnostics, explorers, ledger

mixture, laplace, gaussian = rdp.GaussianMixture(1.0), rdp.Laplace(), rdp.Gaussian()

# %% [markdown]
# ## The picture in one figure (the unifying paper's Figure 1)
#
# The paper's discussion (§6) sums up: the loss $\Gamma$ "is zero for Gaussian noise and grows for mixture-type noise and
# under Poisson subsampling at small $q$ (Figure 1)". The figure below draws exactly that statement — the gap against
# the order for three noises with the same kind of shift, and the composed gap of a subsampled Gaussian against $q$.
# (The paper's own panel layout is not in its text; this is our rendering of what the text says Figure 1 shows.)
# {numref}`fig-zcdp-overview` is the chapter in miniature: the left panel is the unifying paper's Proposition 4.1, the right
# panel its Proposition 4.2, and the rest of the chapter takes each of them apart.

# %% mystnb={"figure": {"caption": "What zCDP forgets (the unifying paper's Figure 1, our rendering). Left: the gap \u0393(t) at shift s = 1 for three noises of scale 1; the Gaussian line is zero. Right: the composed gap at order t = 1 of n = 20 Poisson-subsampled Gaussian steps with $\\rho_{\\mathrm{sum}} = 5$, against the sampling rate q.", "name": "fig-zcdp-overview"}} tags=["hide-input"]
orders_overview = np.linspace(0.02, 4, 80)
qs_overview = np.linspace(0.01, 1, 100)
z_overview = math.sqrt(2)  # n = 20 steps with rho_sum = 5, as in Figure 4(b)-(c)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
for name, mechanism in (("Gaussian", gaussian), ("Gaussian mixture, m = 1", mixture), ("Laplace", laplace)):
    axes[0].plot(orders_overview, [mechanism.gap(t, 1.0) for t in orders_overview], label=name)
axes[0].set_xlabel("order t")
axes[0].set_ylabel(r"$\Gamma(t)$ at shift $s = 1$")
axes[0].set_title("zero for Gaussian noise, positive otherwise")
axes[0].legend()
axes[1].plot(qs_overview, [20 * rdp.PoissonSubsampledGaussian(q, z_overview).gap(1.0, 1.0) for q in qs_overview])
axes[1].set_xlabel("sampling rate q")
axes[1].set_ylabel(r"composed $\mathbf{\Gamma}(1)$, $n = 20$ steps")
axes[1].set_title("Poisson subsampling: largest at small q")
fig.suptitle("What zCDP forgets")
fig.tight_layout()

# %% [markdown]
# ## Gaussian noise forgets nothing (Figure 3, Gaussian panel)
#
# For Gaussian noise with $\rho = 1/2$ the exact Rényi curve $D_{t+1} = K(t)/t$ and the zCDP line $\rho(t+1)$ are the
# same curve, on the paper's 100 log-spaced orders $10^{-2} \le t \le 10^{1.2}$ (Appendix D.1). This is the reason
# zCDP was designed around the parabola: for $N(0, \sigma^2)$ noise and a shift $s$, the privacy loss is itself
# Gaussian, $L \sim N(s^2/2\sigma^2, s^2/\sigma^2)$ under $P$, so its cumulant generating function is a
# quadratic polynomial and $K(t) = \tfrac{s^2}{2\sigma^2}\,t(t+1)$ exactly. {numref}`fig-zcdp-gaussian` draws the two
# curves on top of each other.

# %% mystnb={"figure": {"caption": "Gaussian noise (the Gaussian panel of the paper's Figure 3): the exact R\u00e9nyi divergence $D_{t+1} = K(t)/t$ and the zCDP line \u03c1(t+1), \u03c1 = 1/2, coincide at every order.", "name": "fig-zcdp-gaussian"}} tags=["hide-input"]
orders_fig3 = np.logspace(-2, 1.2, 100)
unit_gaussian = rdp.Gaussian(1.0)  # rho(s) = s^2/2, so s = 1 gives rho = 1/2
exact_rdp = np.array([unit_gaussian.cgf(t, 1.0) / t for t in orders_fig3])
zcdp_line = unit_gaussian.rho(1.0) * (orders_fig3 + 1)
fig, ax = plt.subplots(figsize=(6, 3.8))
ax.loglog(orders_fig3 + 1, exact_rdp, lw=4, alpha=0.5, label=r"exact RDP $D_{t+1} = K(t)/t$")
ax.loglog(orders_fig3 + 1, zcdp_line, "k--", label=r"zCDP bound $\rho(t+1)$, $\rho = 1/2$")
ax.set_xlabel(r"Rényi order $\alpha = t + 1$")
ax.set_ylabel(r"$D_\alpha(P\|Q)$")
ax.set_title("Gaussian noise: the two curves coincide")
ax.legend()
fig.tight_layout()

# %% [markdown]
# ## Zero, quadratic and quartic gaps (the unifying paper's Proposition 4.1 and Figure 4(a))
#
# ```{prf:proposition} Gaps of three additive noises (unifying paper, Proposition 4.1)
# :label: prop-zcdp-three-noises
#
# Add noise $Z$ to a query whose value changes by $s$ between neighbours, so $P = \mathrm{Law}(s + Z)$ and
# $Q = \mathrm{Law}(Z)$.
# 1. Gaussian, $Z \sim N(0, \sigma^2)$: $\rho(s) = s^2/(2\sigma^2)$ and $\Gamma(t) = 0$ for every $s$ and $t > 0$.
# 2. {term}`Gaussian mixture`, $Z \sim \tfrac12 N(-m, 1) + \tfrac12 N(m, 1)$, $m \ge 0$: $\rho(s) = s^2/2$ for every $s$,
#    and $\Gamma(t)$ is of order $s^2$ as $s \to 0$.
# 3. {term}`Laplace noise` of density $\tfrac12 e^{-|x|}$: $\rho(s) = |s| + e^{-|s|} - 1$
#    {cite}`harrison2026exact`, and $\Gamma(t)$ is of order $s^4$ as $s \to 0$.
# ```
#
# The mixture and the Gaussian have the *same* $\rho$ — zCDP reports them as equally private — but different
# Rényi curves. Why powers of $s$? The paper's Theorem 3.1 expands $K(t)$ in powers of the shift through the
# {term}`cumulant`s of the privacy loss $L$; the parabola $\rho\,t(t+1)$ is exactly what a Gaussian privacy loss gives,
# so the gap is made of the terms where $L$ departs from a Gaussian, and the leading power of $s$ in $\Gamma(t)$
# measures the loss: $\Gamma \equiv 0$ means none, and the lower the power, the more zCDP forgets at small shifts —
# the regime of census-scale noise.
#
# To measure the powers we compute $\Gamma(1)$ on `shift_grid` (61) log-spaced shifts in $[10^{-3}, 10^{-1}]$ and fit a
# straight line to $\log\Gamma$ against $\log s$ over $s \le 0.01$; its slope is the power.
# {numref}`fig-zcdp-shift` shows the two lines; the printed slopes are recorded in the {term}`reproduction ledger` against
# the paper's 2.00 and 4.00.

# %% mystnb={"figure": {"caption": "The unifying paper's Proposition 4.1 (its Figure 4(a)) at the order t of the parameters cell (t = 1 in the book): the gap \u0393(t) against the shift s on log\u2013log axes for the Gaussian mixture (slope 2) and Laplace noise (slope 4); the legend gives the fitted slopes. The Gaussian gap is identically zero and cannot be drawn on a log scale.", "name": "fig-zcdp-shift"}} tags=["hide-input"]
shifts = np.logspace(-3, -1, shift_grid)
small = shifts <= 0.01


def shift_gaps(t):
    """Γ(t) on the shift grid for the three noises of Proposition 4.1, and the fitted log-log slopes."""
    gaps = {name: np.array([m.gap(t, s) for s in shifts])
            for name, m in (("Gaussian", gaussian), ("mixture", mixture), ("Laplace", laplace))}
    slopes = {name: np.polyfit(np.log(shifts[small]), np.log(gaps[name][small]), 1)[0] for name in ("mixture", "Laplace")}
    return gaps, slopes


def plot_shift_gaps(ax, gaps, slopes, t):
    for name in ("mixture", "Laplace"):
        ax.loglog(shifts, gaps[name], label=f"{name}: slope {slopes[name]:.3f}")
    ax.set_xlabel("shift s")
    ax.set_ylabel(rf"$\Gamma({t:g})$")
    ax.legend()


gaps_1, slopes_1 = shift_gaps(t_main)
fig, ax = plt.subplots(figsize=(6, 4))
plot_shift_gaps(ax, gaps_1, slopes_1, t_main)
ax.set_title(f"Gap against shift at t = {t_main:g} (Gaussian: Γ ≡ 0, not drawn on a log scale)")
fig.tight_layout()

# %% tags=["hide-input", "nbval-check-output"]
print(f"max |Gaussian gap| = {np.max(np.abs(gaps_1['Gaussian'])):.1e}")
for name in ("mixture", "Laplace"):
    print(f"{name}: fitted slope {slopes_1[name]:.4f}")

# %% tags=["remove-input", "hide-output", "nbval-check-output"]
# the notes are shown folded, without this source: it names the ledger's records
print("Reproduction notes: our fitted slopes beside the paper's (the ledger page keeps the comparison)")
for name in ("mixture", "Laplace"):
    print(f"{name}: ours {slopes_1[name]:.4f}, the paper {ledger.claim(f'unifying.4.1.slope.{name}')['paper']}")

# %% [markdown]
# ### Try it: the gap as a function of the order, for any shift
#
# The slider below switches between the gaps $\Gamma(t)$ of the three noises of
# {prf:ref}`prop-zcdp-three-noises`, each of scale 1, at nine shifts $s$ from 0.05 to 2; the curves were computed
# with `accountlib` when the page was built, so the slider works in your browser without Python. Drag it and watch
# the Gaussian line stay at zero while the other two collapse as $s$ shrinks — Laplace's faster than the
# mixture's, as the powers $s^4$ and $s^2$ say. A printed copy shows three of the
# shifts in one still figure instead. {numref}`fig-zcdp-gap-explorer` is the explorer.

# %% mystnb={"figure": {"caption": "The gap \u0393(t) against the order t for Gaussian, Gaussian-mixture (m = 1) and Laplace noise of scale 1; the slider chooses the shift s among nine values from 0.05 to 2. Computed with accountlib when the page was built.", "name": "fig-zcdp-gap-explorer"}} tags=["remove-input"]
gap_explorer = explorers.gap_explorer()
display(HTML(explorers.plotly_html(gap_explorer)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(gap_explorer)
plt.show()

# %% [markdown]
# In Jupyter (`make lab`) the next cell gives live controls that recompute the curves for *any* shift $s$ and
# range of orders; on this page it only says so, since live controls need a running Python.

# %% tags=["nbval-ignore-output"]
explorers.live("gap")

# %% tags=["remove-cell"]
_ = ledger.reproduce({f"unifying.4.1.slope.{name}": f"{slopes_1[name]:.4f}" for name in ("mixture", "Laplace")})

# %% [markdown]
# ## Poisson subsampling (the unifying paper's Proposition 4.2 and Figure 4(b)–(c))
#
# DP-SGD's step is the pair $Q = N(0, z^2C^2I)$, $P_q = (1-q)Q + qN(v, z^2C^2I)$. Its zCDP parameter does not depend on $q$
# — subsampling buys nothing under zCDP — while its Rényi curve falls to zero as $q \to 0$. Here $n = 20$ steps with
# $\rho_{\mathrm{sum}} = 5$ and $\Vert v\Vert /C = 1$ (so $z = \sqrt2$), at $t = 1$.
#
# Here $q$ is the {term}`Poisson subsampling` rate: each record enters a step's batch independently with
# probability $q$, $C$ is the clipping norm and $z$ the {term}`noise multiplier`. The neighbouring output $P_q$ is a
# mixture — with probability $1 - q$ the differing record was not sampled and the step looks exactly like $Q$.
#
# ```{prf:proposition} Subsampling buys nothing under zCDP (unifying paper, Proposition 4.2)
# :label: prop-zcdp-subsampling
#
# For $0 < q \le 1$ the pair $(P_q, Q)$ has the same optimal zCDP parameter $\rho = \Vert v\Vert ^2/(2z^2C^2)$ as the
# unsubsampled Gaussian step, while its Rényi curve $K_q(t)$ tends to $0$ as $q \to 0$. For $n$ independent steps
# the product pair has optimal parameter $\rho_{\mathrm{sum}}$, and by {prf:ref}`thm-zcdp-gap-composition` its gap is
# $\mathbf\Gamma(t) = n\,\Gamma_q(t)$, which increases to $\rho_{\mathrm{sum}}t(t+1)$ as $q \to 0$.
# ```
#
# Why does $\rho$ not fall with $q$? Because $\rho$ is a supremum over all orders, and at very large orders the
# mixture's Rényi divergence is driven by the rare event that the record *was* sampled, which is the full Gaussian
# step; $K_q(t)/(t(t+1))$ climbs back to the Gaussian's $\rho$ as $t \to \infty$. The low orders, which decide
# $(\varepsilon, \delta)$ at practical $\delta$, are where subsampling helps, and zCDP throws them away.
# {numref}`fig-zcdp-subsampled` shows both sides: on the left the exact composed $\mathbf K(1)$ against the flat zCDP
# line, on the right their difference.

# %% mystnb={"figure": {"caption": "The unifying paper's Proposition 4.2 (its Figure 4(b)-(c)) at the order t of the parameters cell (t = 1 in the book): n = 20 Poisson-subsampled Gaussian steps with $\\rho_{\\mathrm{sum}} = 5$ (z = \u221a2). Left: the exact composed K(t) against the zCDP value $\\rho_{\\mathrm{sum}}\\,t(t+1)$, which does not depend on q. Right: the composed gap, largest at small q.", "name": "fig-zcdp-subsampled"}} tags=["hide-input"]
n_steps, rho_sum = 20, 5.0
z = math.sqrt(1 / (2 * rho_sum / n_steps))
qs = np.linspace(0, 1, q_grid)[1:]


def subsampled_curves(t):
    k = np.array([n_steps * rdp.PoissonSubsampledGaussian(q, z).cgf(t, 1.0) for q in qs])
    return k, rho_sum * t * (t + 1) - k


def plot_subsampled(axes, k, gap, t):
    axes[0].plot(qs, k, label=rf"exact $\mathbf{{K}}({t:g})$")
    axes[0].axhline(rho_sum * t * (t + 1), color="C3", ls="--", label=r"zCDP $\rho_{\rm sum}t(t+1)$")
    axes[0].set_xlabel("q")
    axes[0].set_ylabel(rf"$\mathbf{{K}}({t:g})$ of the $n = 20$ steps")
    axes[0].legend(loc="lower right")  # below the curve, which rises to the dashed line at q = 1
    axes[1].plot(qs, gap)
    axes[1].set_xlabel("q")
    axes[1].set_ylabel(rf"$\mathbf{{\Gamma}}({t:g})$")


subsampled_k, subsampled_gap = subsampled_curves(t_main)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
plot_subsampled(axes, subsampled_k, subsampled_gap, t_main)
fig.suptitle(f"n = 20 subsampled Gaussian steps at t = {t_main:g}")
fig.tight_layout()

# %% tags=["nbval-check-output"]
print(f"t = {t_main:g}: composed gap at q = {qs[0]:g}: {subsampled_gap[0]:.6f} "
      f"(its limit ρ_sum t(t+1) = {rho_sum * t_main * (t_main + 1):g}); decreasing in q: "
      f"{bool(np.all(np.diff(subsampled_gap) <= 1e-12))}")

# %% tags=["remove-cell"]
# Proposition 4.1's zero and positive gaps and Proposition 4.2's two limits, for the ledger. The Gaussian gap is
# checked against K(t) by 30-digit quadrature of log E_Q[(dP/dQ)^{t+1}] (the library's Gaussian K is the closed
# form, so comparing it with rho t(t+1) would hold by construction); the mixture's and Laplace's gaps are the
# library's quadratures over the overview figure's 80 orders at s = 1.
import mpmath


def gaussian_k_by_quadrature(t, s=1.0, dps=30):
    with mpmath.workdps(dps):
        t, s = mpmath.mpf(t), mpmath.mpf(s)
        density = lambda x: mpmath.exp(-(t + 1) * (x - s) ** 2 / 2 + t * x ** 2 / 2) / mpmath.sqrt(2 * mpmath.pi)
        return mpmath.log(mpmath.quad(density, [-mpmath.inf, 0, s, mpmath.inf]))


with mpmath.workdps(30):
    gaussian_gap_quadrature = max(abs(mpmath.mpf(o) * (o + 1) / 2 - gaussian_k_by_quadrature(o))
                                  for o in (0.25, 0.5, 1.0, 2.0, 4.0))
smallest_gap = {name: min(mechanism.gap(o, 1.0) for o in orders_overview)
                for name, mechanism in (("mixture", mixture), ("Laplace", laplace))}
_ = ledger.reproduce({
    "unifying.4.1.gaussian_gap_zero": mpmath.nstr(gaussian_gap_quadrature, 3),
    **{f"unifying.4.1.gap_positive.{name}": f"{value:.6e}" for name, value in smallest_gap.items()},
    "unifying.4.2.gap_q=1": f"{subsampled_gap[-1]:.3e}",
    "unifying.4.2.gap_decreasing_in_q": f"{np.max(np.diff(subsampled_gap)):.6e}",
    "unifying.4.2.gap_q_to_0": {"ours": f"{subsampled_gap[0]:.8f}", "paper": f"{rho_sum * t_main * (t_main + 1):.1f}",
                                "fields": {"q": f"{qs[0]:g}"}}})

# %% [markdown]
# ### Try it: the subsampled step's gap for any sampling rate
#
# The slider switches between the gaps $\Gamma(t)$ of *one* subsampled Gaussian step with noise multiplier $z = 1$ at
# seven sampling rates $q$ from 0.001 to 0.6 (log scale on the vertical axis). Move $q$ down and the curve rises towards
# $\rho\,t(t+1)$ itself: at small $q$ zCDP forgets almost everything the subsampling bought, which is why
# {doc}`13_dpsgd` finds zCDP-calibrated training noisier than RDP-calibrated training
# ({numref}`fig-zcdp-subsampled-explorer`).

# %% mystnb={"figure": {"caption": "The gap \u0393(t) of one Poisson-subsampled Gaussian step with noise multiplier z = 1 against the order t, on a log vertical axis; the slider chooses the sampling rate q among seven values from 0.001 to 0.6. Computed with accountlib when the page was built.", "name": "fig-zcdp-subsampled-explorer"}} tags=["remove-input"]
subsampled_explorer = explorers.subsampled_gap_explorer()
display(HTML(explorers.plotly_html(subsampled_explorer)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(subsampled_explorer)
plt.show()

# %% [markdown]
# In Jupyter the next cell gives live controls for any rate $q$ and noise multiplier $z$.

# %% tags=["nbval-ignore-output"]
explorers.live("subsampled-gap")

# %% [markdown]
# ## Allocation under a fixed total $\rho$ (the unifying paper's Proposition 4.3 and Figure 5)
#
# Split $\rho_{\mathrm{sum}} = 1/2$ among $n = 8$ releases along $\rho_1(\omega) = \tfrac{\rho_{\mathrm{sum}}}{n}(1 + (n-1)\omega)$,
# $\rho_i(\omega) = \tfrac{\rho_{\mathrm{sum}}}{n}(1-\omega)$: $\omega = 0$ is uniform, $\omega = 1$ puts everything in one release.
# For Laplace noise the composed gap grows along the path (convex $\Phi_1$); for the mixture it shrinks (concave).
# $\Phi_t(x) = x\,t(t+1) - K(t;\psi(x))$ is the gap of one release given zCDP parameter $x$; its curvature, by centred
# second differences on 501 points of $[0, 1/2]$, decides the direction.
#
# ```{prf:proposition} Allocation under a fixed total zCDP parameter (unifying paper, Proposition 4.3)
# :label: prop-zcdp-allocation
#
# Let $n$ releases add independent copies of one noise $Z$ with shifts $r_i$, with zCDP parameters
# $\rho_i \ge 0$ summing to $\rho_{\mathrm{sum}}$, and let $\Phi_t(x)$ be one release's gap at order $t$ when its zCDP
# parameter is $x$. If $\Phi_t$ is convex on $[0, \rho_{\mathrm{sum}}]$, the uniform allocation has the smallest
# composed gap and the concentrated one the largest; if $\Phi_t$ is concave, the order is reversed.
# ```
#
# This is {term}`Jensen's inequality` applied to $\sum_i \Phi_t(\rho_i)$ (see also {prf:ref}`def-allocation`). It says that
# fixing the total $\rho$, as the 2020 Census did when it divided its budget among queries {cite}`abowd2022topdown`,
# does *not* fix how much zCDP forgets: the split matters, and for Laplace and mixture noise in opposite directions.
# For Laplace noise the paper proves convexity; for the mixture the concavity is a numerical observation, which we
# repeat with 192 and with 384 Gauss–Hermite nodes. {numref}`fig-zcdp-allocation` draws the composed gap along the path.

# %% mystnb={"figure": {"caption": "The unifying paper's Proposition 4.3 (its Figure 5): the composed gap \u0393(t) at the order t of the parameters cell (t = 1 in the book) of n = 8 releases with $\\rho_{\\mathrm{sum}} = 1/2$ along the allocation path, from uniform (\u03c9 = 0) to concentrated (\u03c9 = 1). It rises for Laplace noise (convex $\\Phi_t$) and falls for the Gaussian mixture (concave $\\Phi_t$).", "name": "fig-zcdp-allocation"}} tags=["hide-input"]
omegas = np.linspace(0, 1, omega_grid)
curvature_xs = np.linspace(0, 0.5, curvature_grid)


def allocation_curves(t):
    return {name: np.array([diagnostics.allocation_gap(m, 8, 0.5, w, t) for w in omegas])
            for name, m in (("Laplace", laplace), ("mixture", mixture))}


def plot_allocation(ax, allocation, t):
    for name, values in allocation.items():
        ax.plot(omegas, values, label=name)
    ax.set_xlabel(r"$\omega$")
    ax.set_ylabel(rf"composed gap $\mathbf{{\Gamma}}({t:g})$")
    ax.legend()


allocation_1 = allocation_curves(t_main)
fig, ax = plt.subplots(figsize=(6, 3.6))
plot_allocation(ax, allocation_1, t_main)
ax.set_title(rf"$n = 8$, $\rho_{{\rm sum}} = 1/2$, $t = {t_main:g}$")
fig.tight_layout()

# %% tags=["hide-input", "nbval-check-output"]
for name in ("Laplace", "mixture"):
    print(f"{name}: composed gap uniform (omega = 0) {allocation_1[name][0]:.9f}, "
          f"concentrated (omega = 1) {allocation_1[name][-1]:.9f}")
curv_laplace_1 = diagnostics.allocation_curvature(laplace, t_main, curvature_xs)
curv_mixture_1 = {nodes: diagnostics.allocation_curvature(mixture, t_main, curvature_xs, nodes=nodes) for nodes in (192, 384)}
print(f"t = {t_main:g}: Laplace curvature of Φ_t in [{curv_laplace_1.min():.3f}, {curv_laplace_1.max():.3f}] (convex); "
      f"mixture, 192 nodes: max {curv_mixture_1[192].max():.3f}, 384 nodes: max {curv_mixture_1[384].max():.3f}")
non_negative_384 = int(np.sum(curv_mixture_1[384] >= 0))
print(f"non-negative interior second differences of the mixture's Φ_t at 384 nodes: {non_negative_384} of "
      f"{len(curv_mixture_1[384])}")

# %% tags=["remove-input", "hide-output", "nbval-check-output"]
# the notes are shown folded, without this source: it names the ledger's records
print("Reproduction notes: the two ends of the allocation path beside the paper's values (the ledger page keeps the comparison)")
for name in ("Laplace", "mixture"):
    values = allocation_1[name]
    uniform, concentrated = (ledger.claim(f"unifying.4.3.{name}.{end}")["paper"] for end in ("uniform", "concentrated"))
    print(f"{name}: uniform ours {values[0]:.9f}, the paper {uniform}; concentrated ours {values[-1]:.9f}, the paper {concentrated}")

# %% tags=["remove-cell"]
found_4_3 = {"unifying.D1.mixture_concavity_384_nodes": non_negative_384}
for name in ("Laplace", "mixture"):
    found_4_3[f"unifying.4.3.{name}.uniform"] = f"{allocation_1[name][0]:.12f}"
    found_4_3[f"unifying.4.3.{name}.concentrated"] = f"{allocation_1[name][-1]:.12f}"
_ = ledger.reproduce(found_4_3)

# %% [markdown]
# ## Tails do not order the gap (§4.4, Figure 6)
#
# Student-$t_\nu$ and generalized Gaussian noise (density $\propto e^{-|x|^\beta/\beta}$, so $\beta = 1$ is unit Laplace
# noise and $\beta = 2$ is $N(0,1)$) at $s = 0.2$. Lighter tails do not mean a smaller gap: the Student-$t$ gap rises and
# then falls in $\nu$. Its leading term is $-\kappa_4(S_\nu)/24\cdot[t(t+1)]^2s^4$, where $S_\nu = (\nu+1)Z/(\nu+Z^2)$ is
# the score and its even moments are exact (Appendix C.6); the dashed curves are these local terms and the dotted line
# marks $\nu^\ast$, where the leading coefficient $-\kappa_4(S_\nu)/24$ is largest. The generalized Gaussian gap
# vanishes at $\beta = 2$, the Gaussian, and its quartic coefficient $\chi_\beta$ runs from $\chi_1 = 1/12$ to $\chi_2 = 0$.
# (For $\beta > 2$ the family is not zCDP at all: $K(t)$ grows like $t^\beta$, so $\rho = \infty$.)
#
# Here $\kappa_4$ is the fourth {term}`cumulant`, and $\nu^\ast$ is found by {term}`Brent's method` on the exact
# coefficient. A subtlety the ledger notes: the paper's "maximum near $\nu = 6.013$" is the maximiser of the leading
# coefficient, the $s \to 0$ limit, and only that is compared with it; the gap itself at the finite shift $s = 0.2$ peaks at a slightly different $\nu$,
# and halving the shift moves that peak towards 6.013, as a higher-order correction of relative size $s^2$ should.
# {numref}`fig-zcdp-tails` shows both families.

# %% mystnb={"figure": {"caption": "Tails do not order the gap (the paper's Figure 6) at s = 0.2 and the order t of the parameters cell (t = 1 in the book). Left: Student-t noise, gap against \u03bd (markers) with the local term $-\\kappa_4(S_\\nu)/24\\cdot[t(t+1)]^2s^4$ (dashed) and its maximiser $\\nu^\\ast$ (dotted). Right: generalized Gaussian noise, gap against \u03b2 with the local term $\\chi_\\beta[t(t+1)]^2s^4$ (dashed); \u03b2 = 2 is the Gaussian, with zero gap.", "name": "fig-zcdp-tails"}} tags=["hide-input"]
nu_star = diagnostics.student_t_coefficient_argmax(dps=30)
nu_fine = np.logspace(0, math.log10(50), 200)
leading = np.array([float(diagnostics.student_t_leading_coefficient(nu)) for nu in nu_fine])


def figure6(t):
    student = np.array([rdp.StudentT(float(nu)).gap(t, 0.2) for nu in nu_grid])
    general = np.array([rdp.GeneralizedGaussian(b).gap(t, 0.2) for b in beta_grid])
    return student, general


def plot_figure6(axes, student, general, t):
    scale = (t * (t + 1)) ** 2 * 0.2**4
    axes[0].semilogx(nu_grid, student, "o-", label="gap")
    axes[0].semilogx(nu_fine, leading * scale, "--", label=r"$-\kappa_4(S_\nu)/24\,[t(t+1)]^2s^4$")
    axes[0].axvline(float(nu_star), color="gray", ls=":", label=rf"$\nu^\ast = {float(nu_star):.3f}$")
    axes[0].set_xlabel(r"$\nu$")
    axes[0].set_ylabel(rf"$\Gamma({t:g})$ at $s = 0.2$")
    axes[0].set_title("Student-t")
    axes[0].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2))  # below the panel, off the curves
    betas_fine = np.linspace(1, 2, 101)
    axes[1].plot(beta_grid, general, "o-", label="gap")
    axes[1].plot(betas_fine, [rdp.GeneralizedGaussian(b).chi * scale for b in betas_fine], "--",
                 label=r"$\chi_\beta[t(t+1)]^2s^4$")
    axes[1].set_xlabel(r"$\beta$")
    axes[1].set_ylabel(rf"$\Gamma({t:g})$ at $s = 0.2$")
    axes[1].set_title("generalized Gaussian")
    axes[1].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2))


student_1, general_1 = figure6(t_main)
fig, axes = plt.subplots(1, 2, figsize=(10, 4.6))
plot_figure6(axes, student_1, general_1, t_main)
fig.suptitle(f"Tail parameters at (t, s) = ({t_main:g}, 0.2)")
fig.tight_layout()

# %% tags=["hide-input", "nbval-check-output"]
print(f"generalized Gaussian gap decreasing in β: {bool(np.all(np.diff(general_1) < 0))}; "
      f"χ_1 = {rdp.GeneralizedGaussian(1.0).chi:.3e} (1/12)")
print(f"ν* (maximiser of the leading coefficient) = {float(nu_star):.10f}")
gap_argmax = diagnostics.argmax_gap_in_nu(t_main, 0.2, xatol=argmax_xatol)
gap_argmax_small = diagnostics.argmax_gap_in_nu(t_main, 0.1, xatol=argmax_xatol)
print(f"the gap itself at t = {t_main:g}, s = 0.2 peaks at ν = {gap_argmax:.4f}; at s = 0.1 at ν = {gap_argmax_small:.4f}")

# %% tags=["remove-input", "hide-output", "nbval-check-output"]
# the notes are shown folded, without this source: it names the ledger's records
print("Reproduction notes: nu* beside the paper's two statements of it (the ledger page keeps the comparison)")
print(f"nu* = {float(nu_star):.10f}; the paper: near {ledger.claim('unifying.4.4.nu_star')['paper']} in §4.4, "
      f"{ledger.claim('unifying.D1.nu_star')['paper']} in Appendix D.1's grid")

# %% tags=["remove-cell"]
found_4_4 = {f"unifying.4.4.chi_beta={b:g}": f"{rdp.GeneralizedGaussian(b).chi:.15f}" for b in (1.0, 2.0)}
_ = ledger.reproduce({**found_4_4, "unifying.D1.nu_star": f"{float(nu_star):.12f}",
                      "unifying.4.4.nu_star": {"ours": f"{float(nu_star):.12f}", "fields": {"gap_argmax": f"{gap_argmax:.4f}"}},
                      # Figure 6's shapes on its grids: the generalized Gaussian gap's largest step (must be a fall),
                      # the Student-t gap's smaller of its largest rise and largest fall (both must occur)
                      "unifying.4.4.generalized_gaussian_decreasing": f"{np.max(np.diff(general_1)):.6e}",
                      "unifying.4.4.student_t_nonmonotone": f"{min(np.max(np.diff(student_1)), -np.min(np.diff(student_1))):.6e}"})
_ = ledger.remove(["unifying.4.4.student_t_argmax"])  # compared a quantity the paper does not state (see nu_star's note)

# %% [markdown]
# ## Appendix D.2: everything again at $t = 1.5$ (Figures 11 and 12)
#
# The paper's Figures 11 and 12 "repeat every such comparison at $t=1.5$ ($\alpha=2.5$), with all mechanism parameters
# and numerical grids unchanged" (Appendix D.2). We draw Figure 4's three panels at $t = 1.5$ as Figure 11 and
# Figures 5 and 6 at $t = 1.5$ as Figure 12 (the split between the two is our reading; the captions are not in the text).
# Nothing qualitative changes between $t = 1$ and $t = 1.5$ ({numref}`fig-zcdp-figure11` and {numref}`fig-zcdp-figure12`):
# the powers are still 2 and 4, subsampling still forgets most at small $q$, and the allocation and tail pictures keep
# their shapes. The appendix also reports two numerical checks: the discrepancy between 192- and 384-node
# Gauss–Hermite evaluations of the subsampled $K$, and the agreement of the exactly composed gap with $n\Gamma(1.5)$
# ({prf:ref}`thm-zcdp-gap-composition`). Both are as small as double precision allows, and the
# {term}`reproduction ledger` compares ours with that scale rather than with the paper's digits.

# %% mystnb={"figure": {"caption": "The paper's Figure 11: Figure 4 repeated at order t = 1.5. (a) Gap against shift for the mixture and Laplace noise, with fitted slopes; (b) composed K(1.5) of 20 subsampled Gaussian steps against the zCDP value; (c) their gap against q.", "name": "fig-zcdp-figure11"}} tags=["hide-input"]
gaps_15, slopes_15 = shift_gaps(t_repeat)
subsampled_k_15, subsampled_gap_15 = subsampled_curves(t_repeat)
fig, axes = plt.subplots(1, 3, figsize=(10, 3.6))
plot_shift_gaps(axes[0], gaps_15, slopes_15, t_repeat)
axes[0].set_title("(a) gap against shift")
axes[0].set_xlabel("shift s")
axes[0].set_ylabel(rf"$\Gamma({t_repeat:g})$")
plot_subsampled(axes[1:], subsampled_k_15, subsampled_gap_15, t_repeat)
axes[1].set_title("(b) subsampled: K against zCDP")
axes[2].set_title("(c) subsampled: the gap")
for ax in axes[1:]:
    ax.set_xlabel("q")
axes[1].set_ylabel(rf"$\mathbf{{K}}({t_repeat:g})$ of the $n = 20$ steps")
axes[2].set_ylabel(rf"$\mathbf{{\Gamma}}({t_repeat:g})$")
fig.suptitle(f"Gaps against shift and sampling rate at t = {t_repeat:g}")
fig.tight_layout()

# %% mystnb={"figure": {"caption": "The paper's Figure 12: Figures 5 and 6 repeated at order t = 1.5 \u2014 the allocation path (left) and the Student-t and generalized Gaussian gaps at s = 0.2 (middle, right).", "name": "fig-zcdp-figure12"}} tags=["hide-input"]
allocation_15 = allocation_curves(t_repeat)
student_15, general_15 = figure6(t_repeat)
fig, axes = plt.subplots(1, 3, figsize=(10, 4.4))
plot_allocation(axes[0], allocation_15, t_repeat)
axes[0].set_title("allocation path")
axes[0].set_xlabel(r"$\omega$")
axes[0].set_ylabel(rf"composed gap $\mathbf{{\Gamma}}({t_repeat:g})$")
plot_figure6(axes[1:], student_15, general_15, t_repeat)
axes[1].set_xlabel(r"$\nu$")
axes[2].set_xlabel(r"$\beta$")
for ax in axes[1:]:
    ax.set_ylabel(rf"$\Gamma({t_repeat:g})$ at $s = 0.2$")
fig.suptitle(f"Allocation path and tail parameters at t = {t_repeat:g}")
fig.tight_layout()

# %% tags=["hide-input", "nbval-check-output"]
for name in ("mixture", "Laplace"):
    print(f"{name}: slope at t = {t_repeat:g} {slopes_15[name]:.5f}")
print(f"Student-t at t = {t_repeat:g}: nonmonotone in ν: "
      f"{bool(np.any(np.diff(student_15) > 0) and np.any(np.diff(student_15) < 0))}, largest on the grid at "
      f"ν = {nu_grid[int(np.argmax(student_15))]}")
curv_laplace_15 = diagnostics.allocation_curvature(laplace, t_repeat, curvature_xs)
curv_mixture_15 = {nodes: diagnostics.allocation_curvature(mixture, t_repeat, curvature_xs, nodes=nodes) for nodes in (192, 384)}
curvature_15 = {"Laplace": curv_laplace_15.min(), "mixture": curv_mixture_15[192].max()}
for name, ours in curvature_15.items():
    print(f"{name}: {'minimum' if name == 'Laplace' else 'maximum'} curvature of Φ_t at t = {t_repeat:g}: {ours:.4f}")
print(f"mixture at 384 nodes: maximum curvature {curv_mixture_15[384].max():.4f}, "
      f"non-negative second differences: {int(np.sum(curv_mixture_15[384] >= 0))}")

# %% tags=["remove-input", "hide-output", "nbval-check-output"]
# the notes are shown folded, without this source: it names the ledger's records
print(f"Reproduction notes: the slopes and curvatures at t = {t_repeat:g} beside the paper's at t = 1.5 (the ledger page "
      "keeps the comparison)")
for name in ("mixture", "Laplace"):
    print(f"{name}: slope ours {slopes_15[name]:.5f}, the paper {ledger.claim(f'unifying.D2.slope.{name}')['paper']}; "
          f"curvature ours {curvature_15[name]:.4f}, the paper {ledger.claim(f'unifying.D2.curvature.{name}')['paper']}")

# %% tags=["remove-cell"]
# Appendix D.2's two numerical checks, for the ledger (tests/book/test_rounding_scale.py holds them to their bounds)
node_gap = diagnostics.subsampled_node_discrepancy(qs, z, t_repeat)
reference_error = max(abs(rdp.PoissonSubsampledGaussian(q, z).cgf(t_repeat, 1.0)
                          - rdp.sampled_gaussian_cgf_reference(q, z, t_repeat)) for q in (0.001, 0.01, 0.1, 0.5, 1.0))
composition_gap = diagnostics.composition_gap_discrepancy(qs, z, t_repeat, n_steps)
rounding = n_steps * math.ulp(rho_sum * t_repeat * (t_repeat + 1))
_ = ledger.reproduce({**{f"unifying.D2.slope.{name}": f"{slopes_15[name]:.5f}" for name in ("mixture", "Laplace")},
                      **{f"unifying.D2.curvature.{name}": f"{ours:.5f}" for name, ours in curvature_15.items()},
                      "unifying.D2.gauss_hermite_discrepancy": f"{node_gap:.3g}",
                      "unifying.D2.composition_discrepancy": f"{composition_gap:.3g}"},
                     checks={"unifying.D2.gauss_hermite_discrepancy": f"{reference_error:.3e}",
                             "unifying.D2.composition_discrepancy": {"ours": f"{composition_gap:.3e}",
                                                                      "expected": f"<{rounding:.3e}"}})

# %% [markdown]
# ## Discrete noise (§4.5, Figure 7)
#
# Discrete Gaussian noise has $\rho = r^2/2\sigma^2$, exact only at the orders where the shifted lattice realigns:
# $\Gamma(t) = \log\Theta(0) - \log\Theta((t+1)r)$ is periodic in $t$ with period $1/r$ and vanishes where $(t+1)r \in \mathbb Z$.
# Discrete Laplace noise, whose privacy loss takes finitely many values, has a finite-sum CGF.
#
# The periodicity is a property of the {term}`lattice`: shifting a {term}`discrete Gaussian` by $(t+1)r$ lands back
# on the integers exactly when $(t+1)r$ is an integer, and then the sum defining $K$ is a Gaussian sum over the same
# lattice, whose value matches the parabola; between those orders it falls short {cite}`canonne2020discrete`.
# Here $\Theta(x) = \sum_{k \in \mathbb Z} e^{-(k - x)^2/2\sigma^2}$ is the normalising sum of the lattice
# Gaussian. {numref}`fig-zcdp-lattice` shows the discrete Gaussian's gap returning to zero at $t = 1, 2, 3$ and
# discrete Laplace gaps for three pairs $(a, r)$ with $ar = 0.5$.

# %% mystnb={"figure": {"caption": "Lattice mechanisms (the paper's Figure 7). Left: the gap \u0393(t) of discrete Gaussian noise, \u03c3 = 0.60, shift r = 1, periodic in t with zeros at the integers. Right: discrete Laplace noise at three shifts r with ar = 0.5.", "name": "fig-zcdp-lattice"}} tags=["hide-input"]
ts = np.linspace(0, 3, 361)[1:]
dgauss = rdp.DiscreteGaussian(0.60)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
axes[0].plot(ts, [dgauss.gap(t, 1) for t in ts])
axes[0].set_title(r"discrete Gaussian, $\sigma = 0.60$, $r = 1$")
axes[0].set_xlabel("t")
axes[0].set_ylabel(r"$\Gamma(t)$")
for r in (1, 2, 4):
    dlap = rdp.DiscreteLaplace(0.5 / r)
    axes[1].plot(ts, [dlap.gap(t, r) for t in ts], label=f"r = {r}, a = {0.5 / r:g}")
axes[1].set_title("discrete Laplace, ar = 0.5")
axes[1].set_xlabel("t")
axes[1].set_ylabel(r"$\Gamma(t)$")
axes[1].legend()
fig.suptitle("Lattice mechanisms")
fig.tight_layout()

# %% tags=["nbval-check-output"]
zeros = [t for t in (1.0, 2.0, 3.0)]
print("discrete Gaussian gap at t = 1, 2, 3:", ", ".join(f"{dgauss.gap(t, 1):.1e}" for t in zeros))
print(f"discrete Gaussian gap at t = 0.5 and 1.5 (period 1): {dgauss.gap(0.5, 1):.6e}, {dgauss.gap(1.5, 1):.6e}")

# %% [markdown]
# ## Summary
#
# - zCDP keeps one number, $\rho = \sup_t K(t)/(t(t+1))$, of a pair's Rényi curve; what it forgets at order $t$ is the
#   gap $\Gamma(t) = \rho\,t(t+1) - K(t) \ge 0$, and gaps add under independent {term}`composition`
#   ({prf:ref}`thm-zcdp-gap-composition`).
# - Gaussian noise forgets nothing; a Gaussian mixture with the same $\rho$ forgets at order $s^2$ and Laplace noise at
#   order $s^4$ ({prf:ref}`prop-zcdp-three-noises`); the fitted slopes reproduce the paper's 2.00 and 4.00 at $t = 1$ and
#   2.000 and 3.997 at $t = 1.5$.
# - Poisson subsampling leaves $\rho$ unchanged while the Rényi curve falls to zero, so at small $q$ the gap approaches
#   its ceiling $\rho_{\mathrm{sum}}t(t+1)$ ({prf:ref}`prop-zcdp-subsampling`) — the setting of DP-SGD.
# - Fixing the total $\rho$ does not fix the total gap: the split matters, in opposite directions for Laplace and mixture
#   noise ({prf:ref}`prop-zcdp-allocation`); tail weight does not order the gap; lattice noise has a periodic gap.
# - Every number here comes from `accountlib.theory.rdp`, and the paper's values are compared in the reproduction ledger.
#
# ## Exercises
#
# ```{exercise} The powers at another order (★, run)
# :label: ex-zcdp-order
#
# % change: t_main = 2.0
# {prf:ref}`prop-zcdp-three-noises` says the powers 2 and 4 do not depend on the order $t$. Set `t_main = 2.0` in the
# parameters cell and re-run the chapter. Do the fitted slopes stay near 2 and 4?
# Which of the two gaps is larger at $s = 0.01$, and by roughly how much?
# ```
#
# ```{solution-start} ex-zcdp-order
# :class: dropdown
# ```
#
# The powers are properties of the cumulant expansion of $K$ in $s$, valid at every fixed order, so the slopes stay
# at 2 and 4; only the coefficients in front change with $t$. At $s = 0.01$ the mixture's gap, of order $s^2$, is
# many orders of magnitude larger than Laplace's, of order $s^4$. The code reads the chapter's slopes at `t_main`,
# fits them again on a small grid of shifts, and checks both claims.

# %%
shifts_ex = np.logspace(-3, -2, 7)
gaps_ex = {name: [m.gap(t_main, s) for s in shifts_ex] for name, m in (("mixture", mixture), ("Laplace", laplace))}
slopes_ex = {name: np.polyfit(np.log(shifts_ex), np.log(g), 1)[0] for name, g in gaps_ex.items()}
ratio_ex = mixture.gap(t_main, 0.01) / laplace.gap(t_main, 0.01)
print(f"t = {t_main:g}: slopes on s ≤ 0.01 " + ", ".join(f"{name} {slopes_1[name]:.4f}" for name in slopes_ex)
      + "; on the small grid " + ", ".join(f"{name} {v:.4f}" for name, v in slopes_ex.items()))
print(f"at s = 0.01 the mixture's gap is {ratio_ex:.2e} times Laplace's")
assert abs(slopes_ex["mixture"] - 2) < 0.01 and abs(slopes_ex["Laplace"] - 4) < 0.01
assert abs(slopes_1["mixture"] - 2) < 0.01 and abs(slopes_1["Laplace"] - 4) < 0.01
assert ratio_ex > 1e3
assert all(abs(gaussian.gap(t_main, s)) < 1e-12 for s in shifts_ex)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Gaps add for the subsampled step (★, code)
# :label: ex-zcdp-composition
#
# % change: q_exercise = 0.2
# For the chapter's DP-SGD setting ($n = 20$ steps, $\rho_{\mathrm{sum}} = 5$, $z = \sqrt2$) and the sampling rate
# `q_exercise` of the parameters cell (0.05; then 0.2), compute the composed gap $\rho_{\mathrm{sum}}t(t+1) - n K_q(t)$ at
# $t = 1$ directly and compare it with $n\,\Gamma_q(1)$. Then check that the one-step $\rho$ does not depend on $q$ and
# that the composed gap tends to its ceiling $\rho_{\mathrm{sum}}t(t+1) = 10$ as $q \to 0$.
# ```
#
# ```{solution-start} ex-zcdp-composition
# :class: dropdown
# ```
#
# By {prf:ref}`thm-zcdp-gap-composition` the two computations agree up to rounding, and by
# {prf:ref}`prop-zcdp-subsampling` every step has $\rho = \rho_{\mathrm{sum}}/n = 1/4$ whatever $q$ is, while the gap
# increases as $q$ falls and stays below its ceiling.

# %%
q_ex = q_exercise
step = rdp.PoissonSubsampledGaussian(q_ex, z)
direct = rho_sum * 1.0 * 2.0 - n_steps * step.cgf(1.0, 1.0)
assert abs(direct - n_steps * step.gap(1.0, 1.0)) < 1e-12
assert all(abs(rdp.PoissonSubsampledGaussian(q, z).rho(1.0) - rho_sum / n_steps) < 1e-12 for q in (0.001, q_ex, 0.5, 1))
ceiling_gaps = [n_steps * rdp.PoissonSubsampledGaussian(q, z).gap(1.0, 1.0) for q in (0.5, 0.1, 0.01, 0.001)]
assert all(a < b for a, b in zip(ceiling_gaps, ceiling_gaps[1:])) and ceiling_gaps[-1] < rho_sum * 2
assert rho_sum * 2 - ceiling_gaps[-1] < 1e-3
print(f"q = {q_ex}: composed gap {direct:.6f}; gaps as q falls: {[round(g, 4) for g in ceiling_gaps]}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The Gaussian forgets nothing (★★, derive)
# :label: ex-zcdp-gaussian
#
# Let $P = N(s, \sigma^2)$ and $Q = N(0, \sigma^2)$. Compute $K(t) = \log\mathbb E_Q[(dP/dQ)^{t+1}]$ in closed form by
# completing the square, and deduce that $\rho = s^2/(2\sigma^2)$ and $\Gamma(t) = 0$ for every $t > 0$ (part 1 of
# {prf:ref}`prop-zcdp-three-noises`). Check your formula against a 30-digit quadrature of the defining integral at
# $s = 0.7$, $\sigma = 1.3$ and three orders.
# ```
#
# ```{solution-start} ex-zcdp-gaussian
# :class: dropdown
# ```
#
# With $\varphi$ the $N(0, \sigma^2)$ density, $\mathbb E_Q[(dP/dQ)^{t+1}] = \int \varphi(x - s)^{t+1}\varphi(x)^{-t}\,dx$.
# The exponent of the integrand is
#
# $$
# -\frac{(t+1)(x - s)^2 - t x^2}{2\sigma^2} = -\frac{x^2 - 2(t+1)sx + (t+1)s^2}{2\sigma^2}
# = -\frac{\bigl(x - (t+1)s\bigr)^2}{2\sigma^2} + \frac{(t+1)^2s^2 - (t+1)s^2}{2\sigma^2},
# $$
#
# and the powers of the normalising constant combine to one factor $1/\sqrt{2\pi\sigma^2}$, so the integral of the first
# term is 1. Hence $K(t) = \frac{s^2}{2\sigma^2}\,t(t+1)$. Then $K(t)/(t(t+1)) = s^2/(2\sigma^2)$ at every order, so
# its supremum is $\rho = s^2/(2\sigma^2)$ and $\Gamma(t) = \rho\,t(t+1) - K(t) = 0$.

# %%
import mpmath


def gaussian_k_quadrature(t, s, sigma, dps=30):
    with mpmath.workdps(dps):
        t, s, sigma = mpmath.mpf(t), mpmath.mpf(s), mpmath.mpf(sigma)
        phi = lambda x: mpmath.exp(-x**2 / (2 * sigma**2)) / mpmath.sqrt(2 * mpmath.pi * sigma**2)
        return mpmath.log(mpmath.quad(lambda x: phi(x - s) ** (t + 1) * phi(x) ** (-t), [-mpmath.inf, 0, s, mpmath.inf]))


s_ex, sigma_ex = 0.7, 1.3
for t in (0.3, 1.0, 4.0):
    with mpmath.workdps(30):
        order = mpmath.mpf(t)
        closed = mpmath.mpf(s_ex) ** 2 / (2 * mpmath.mpf(sigma_ex) ** 2) * order * (order + 1)
        assert abs(gaussian_k_quadrature(t, s_ex, sigma_ex) - closed) < 1e-25, t
    assert abs(rdp.Gaussian(sigma_ex).cgf(t, s_ex) - float(closed)) < 1e-14  # the library's closed form
print(f"K(t) = s^2 t(t+1)/(2 sigma^2) at s = {s_ex}, sigma = {sigma_ex}: confirmed to 25 digits at t = 0.3, 1, 4")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The subsampled step at order one (★★, derive)
# :label: ex-zcdp-order-one
#
# For the subsampled step $P_q = (1-q)Q + qN(v, z^2C^2I)$, $Q = N(0, z^2C^2I)$, show that at the integer order $t = 1$
#
# $$K_q(1) = \log\bigl(1 + q^2(e^{\Vert v\Vert^2/(z^2C^2)} - 1)\bigr),$$
#
# and deduce the limits of {prf:ref}`prop-zcdp-subsampling` at $t = 1$: $K_q(1) \to 0$ and, for $n$ steps,
# $\mathbf\Gamma(1) \to 2\rho_{\mathrm{sum}}$ as $q \to 0$. Check the formula against `rdp.PoissonSubsampledGaussian`
# in the chapter's setting ($\Vert v\Vert/C = 1$, $z = \sqrt2$).
# ```
#
# ```{solution-start} ex-zcdp-order-one
# :class: dropdown instructor-only
# ```
#
# Write $\ell = dN(v, z^2C^2I)/dQ$, so $dP_q/dQ = 1 - q + q\ell$. Under $Q$, $\mathbb E_Q\ell = 1$, and
# $\mathbb E_Q\ell^2 = e^{K_1(1)} = e^{2\rho_1}$ with $K_1$ the unsubsampled Gaussian's CGF and
# $\rho_1 = \Vert v\Vert^2/(2z^2C^2)$ (the previous exercise, in one direction of $\mathbb R^d$). Expanding the square,
#
# $$
# \mathbb E_Q\bigl[(1 - q + q\ell)^2\bigr] = (1-q)^2 + 2q(1-q) + q^2e^{2\rho_1} = 1 + q^2\bigl(e^{2\rho_1} - 1\bigr),
# $$
#
# which is the formula. As $q \to 0$ it tends to $\log 1 = 0$, of order $q^2$. By {prf:ref}`thm-zcdp-gap-composition`
# the composed gap is $n\Gamma_q(1) = n\bigl(2\rho_1 - K_q(1)\bigr) = 2\rho_{\mathrm{sum}} - nK_q(1) \to 2\rho_{\mathrm{sum}}$,
# the ceiling $\rho_{\mathrm{sum}}t(t+1)$ at $t = 1$ (10 in the chapter's setting).

# %%
for q in (0.001, 0.05, 0.5, 1.0):
    closed = math.log1p(q**2 * math.expm1(1 / z**2))
    assert abs(rdp.PoissonSubsampledGaussian(q, z).cgf(1.0, 1.0) - closed) < 1e-12 * max(closed, 1e-300) + 1e-15
print(f"K_q(1) = log(1 + q^2 (e^(1/z^2) - 1)) confirmed at q = 0.001, 0.05, 0.5, 1 (z = {z:.4f})")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The lattice period (★★, derive)
# :label: ex-zcdp-lattice
#
# For discrete Gaussian noise, $\Gamma(t) = \log\Theta(0) - \log\Theta((t+1)r)$ with
# $\Theta(x) = \sum_{k \in \mathbb Z} e^{-(k - x)^2/2\sigma^2}$. Prove that $\Theta$ has period 1 and is largest at
# the integers, and deduce that $\Gamma$ is periodic in $t$ with period $1/r$, vanishes exactly where $(t+1)r$ is an
# integer and is positive elsewhere. (Hint: write $\Theta$ as a Fourier series with the Poisson summation
# formula.) For $\sigma = 0.6$ and $r = 2$, where does $\Gamma$ vanish? Check with `rdp.DiscreteGaussian(0.6).gap(t, 2)`.
# ```
#
# ```{solution-start} ex-zcdp-lattice
# :class: dropdown instructor-only
# ```
#
# *Period.* Re-indexing $k \mapsto k + 1$ gives $\Theta(x + 1) = \Theta(x)$, so
# $\Gamma(t + 1/r) = \log\Theta(0) - \log\Theta((t+1)r + 1) = \Gamma(t)$.
#
# *Maximum at the integers.* Poisson summation applied to the Gaussian $x \mapsto e^{-x^2/2\sigma^2}$, whose Fourier
# transform is $\sqrt{2\pi\sigma^2}\,e^{-2\pi^2\sigma^2\xi^2}$, gives
#
# $$\Theta(x) = \sqrt{2\pi\sigma^2}\Bigl(1 + 2\sum_{j \ge 1} e^{-2\pi^2\sigma^2 j^2}\cos(2\pi jx)\Bigr).$$
#
# Every coefficient is positive, so $\Theta(x) \le \Theta(0)$, with equality exactly when $\cos(2\pi jx) = 1$ for
# every $j$, that is when $x \in \mathbb Z$ (already $j = 1$ forces it). Hence $\Gamma(t) \ge 0$, with equality exactly
# where $(t+1)r \in \mathbb Z$. For $r = 2$ these are $t = 1/2, 1, 3/2, \dots$, and the period is $1/2$.

# %%
lattice_ex = rdp.DiscreteGaussian(0.6)
assert all(abs(lattice_ex.gap(t, 2)) < 1e-12 for t in (0.5, 1.0, 1.5, 2.0))
assert all(abs(lattice_ex.gap(t + 0.5, 2) - lattice_ex.gap(t, 2)) < 1e-12 for t in (0.1, 0.25, 0.4))
assert lattice_ex.gap(0.25, 2) > 1e-6
print(f"Gamma(0.25) = Gamma(0.75) = {lattice_ex.gap(0.25, 2):.6e}; Gamma(0.5) = {abs(lattice_ex.gap(0.5, 2)):.1e}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Is the mixture's allocation gap concave? (★★★, open)
# :label: ex-zcdp-open-concavity
#
# {prf:ref}`prop-zcdp-allocation` orders the allocations when one release's gap $\Phi_t(x)$ is convex or concave in
# its zCDP parameter $x$. For Laplace noise the paper proves convexity; for the Gaussian mixture
# $\tfrac12N(-1,1) + \tfrac12N(1,1)$ concavity on $[0, 1/2]$ is only observed numerically (this chapter repeats the
# observation with two quadrature rules). Is $\Phi_t$ concave for every order $t > 0$, every mixture separation
# $m > 0$ and every $x$? Find a proof, a counterexample, or the largest range of $(t, m, x)$ you can certify, and say
# what your argument would need in order to extend to the mixtures used in practice.
# ```
#
# ```{solution-start} ex-zcdp-open-concavity
# :class: dropdown
# ```
#
# No complete answer is known to us; here is what can be said and tried.
#
# *What is known.* For the mixture $\rho(s) = s^2/2$, so $x = s^2/2$ and $\Phi_t(x) = x\,t(t+1) - K(t; \sqrt{2x})$. By
# the noise's symmetry $K(t; s)$ is even in $s$, and the paper's Theorem 3.1 expands it in powers of the shift through
# the cumulants of the privacy loss, so $\Phi_t(x) = a_1(t)x + a_2(t)x^2 + O(x^3)$ with $a_1(t) > 0$ (the quadratic gap
# of {prf:ref}`prop-zcdp-three-noises`). Concavity near $x = 0$ therefore comes down to the sign of $a_2(t)$, a
# combination of cumulants that can be computed exactly (a good first step); the question is global, not local.
#
# *Approaches.* (1) Write $K(t; s) = \log\mathbb E_Q[(dP/dQ)^{t+1}]$ with the mixture's likelihood ratio
# $e^{-s^2/2 + sx}\cosh(m(x - s))/\cosh(mx)$ and try to prove $\partial_x^2\Phi_t \le 0$ via log-convexity
# (Hölder) arguments in $s$; the change of variables $x = s^2/2$ is what makes this hard, since log-convexity in
# $s$ does not transfer to $x$. (2) Certify the sign on a compact range by interval arithmetic: bound
# $\partial_x^2\Phi_t$ on boxes of $(t, m, x)$ with rigorous quadrature error bounds (`mpmath` intervals, or
# Gauss–Hermite with a proven remainder), and treat $x \to 0$ by the series and large $x$ by asymptotics. (3) Look
# for a counterexample at large $m$, where the mixture's two components separate and $K$ behaves like a
# discrete mechanism's, or at large $t$, where $K$ is dominated by the tail of the likelihood ratio.
#
# The code below is the numerical evidence only, a starting point for approach (2): the centred second differences of
# $\Phi_t$ at $t = 0.5, 1, 2$ for $m = 1$, on 101 points of $[0, 1/2]$, with 192 Gauss–Hermite nodes. All are clearly
# negative; a grid, however fine, proves nothing between its points, and that is what approach (2) would add.

# %%
xs_open = np.linspace(0, 0.5, 101)
for t in (0.5, 1.0, 2.0):
    curvature = diagnostics.allocation_curvature(mixture, t, xs_open)
    print(f"t = {t:g}: largest second difference of Phi_t {curvature.max():+.2e}, smallest {curvature.min():+.2e}")
    assert curvature.max() < 0

# %% [markdown]
# ```{solution-end}
# ```
