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
# zCDP summarises a whole Rényi curve by one number, $\rho = \sup_{t>0} K(t)/(t(t+1))$ with
# $K(t) = \log\mathbb E_Q[(dP/dQ)^{t+1}]$. What it forgets is the **gap**
#
# $$\Gamma(t) = \rho\,t(t+1) - K(t) \;\ge\; 0,$$
#
# zero for Gaussian noise and positive otherwise (unifying paper §3–4). Gaps add under independent
# composition, so a workload of $d$ queries forgets $d$ times as much. This chapter measures $\Gamma$ for the
# paper's mechanisms with `accountlib.rdp`.

# %% tags=["parameters"]
t_main = 1.0  # the order used in Figures 4–6
t_repeat = 1.5  # Appendix D.2 repeats Figure 6 here
shift_grid = 61  # log-spaced s in [1e-3, 1e-1] (Figure 4(a))
q_grid = 1001  # sampling rates (Figure 4(b)-(c))
omega_grid = 241  # allocation path (Prop. 4.3)
nu_grid = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 50]
beta_grid = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0]

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
from scipy import optimize

from accountlib import ledger, rdp

# %% [markdown]
# ## Proposition 4.1: zero, quadratic and quartic gaps
#
# Gaussian noise has $\Gamma \equiv 0$. The mixture $\tfrac12N(-1,1) + \tfrac12N(1,1)$ has the same $\rho = s^2/2$ but a
# gap of order $s^2$; Laplace noise has a gap of order $s^4$. The log–log slopes are fitted over $s \le 0.01$.

# %%
shifts = np.logspace(-3, -1, shift_grid)
mixture, laplace, gaussian = rdp.GaussianMixture(1.0), rdp.Laplace(), rdp.Gaussian()
gaps = {
    "Gaussian": np.array([gaussian.gap(t_main, s) for s in shifts]),
    "mixture": np.array([mixture.gap(t_main, s) for s in shifts]),
    "Laplace": np.array([laplace.gap(t_main, s) for s in shifts]),
}
small = shifts <= 0.01
slopes = {name: np.polyfit(np.log(shifts[small]), np.log(g[small]), 1)[0] for name, g in gaps.items() if name != "Gaussian"}
fig, ax = plt.subplots(figsize=(6, 4))
for name in ("mixture", "Laplace"):
    ax.loglog(shifts, gaps[name], label=f"{name}: slope {slopes[name]:.2f}")
ax.set_xlabel("shift s")
ax.set_ylabel(r"$\Gamma(1)$")
ax.legend()
ax.set_title("Gaussian: Γ ≡ 0 (not shown on a log scale)")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"max |Gaussian gap| = {np.max(np.abs(gaps['Gaussian'])):.1e}")
for name, paper in (("mixture", "2.00"), ("Laplace", "4.00")):
    entry = ledger.record(f"unifying.4.1.slope.{name}", source="Unifying paper §4.1, Figure 4(a) (log-log slope)",
                          paper=paper, ours=f"{slopes[name]:.4f}", tolerance="printed")
    print(f"{name}: fitted slope {slopes[name]:.4f} (paper {paper}) -> {entry['verdict']}")

# %% [markdown]
# ### Try it: the gap as a function of the order, for any shift
#
# Run the notebook to move the sliders; the rendered book shows them, with their plot, at the starting values
# (a static page cannot run Python). Γ(t) for the three noises of Proposition 4.1 at shift $s$:

# %% tags=["nbval-ignore-output"]
import ipywidgets as widgets


def show_gaps(s=0.3, t_max=3.0):
    orders = np.linspace(0.05, t_max, 60)
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for name, mechanism in (("Gaussian", gaussian), ("mixture", mixture), ("Laplace", laplace)):
        ax.plot(orders, [mechanism.gap(t, s) for t in orders], label=name)
    ax.set_xlabel("order t")
    ax.set_ylabel(r"$\Gamma(t)$")
    ax.set_title(f"s = {s:.3g}")
    ax.legend()
    plt.show()


_ = widgets.interact(show_gaps, s=widgets.FloatLogSlider(value=0.3, base=10, min=-2, max=0.5, step=0.05),
                     t_max=widgets.FloatSlider(value=3.0, min=0.5, max=8.0, step=0.5))

# %% [markdown]
# ## Poisson subsampling (Proposition 4.2, Figure 4(b)–(c))
#
# DP-SGD's step is the pair $Q = N(0, z^2C^2I)$, $P_q = (1-q)Q + qN(v, z^2C^2I)$. Its zCDP parameter does not depend on $q$
# — subsampling buys nothing under zCDP — while its Rényi curve falls to zero as $q \to 0$. Here $n = 20$ steps with
# $\rho_{\mathrm{sum}} = 5$ and $\|v\|/C = 1$ (so $z = \sqrt2$), at $t = 1$.

# %%
n_steps, rho_sum = 20, 5.0
z = math.sqrt(1 / (2 * rho_sum / n_steps))
qs = np.linspace(0, 1, q_grid)[1:]
subsampled_gap = np.array([n_steps * rdp.PoissonSubsampledGaussian(q, z).gap(t_main, 1.0) for q in qs])
subsampled_k = np.array([n_steps * rdp.PoissonSubsampledGaussian(q, z).cgf(t_main, 1.0) for q in qs])
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
axes[0].plot(qs, subsampled_k, label=r"exact $\mathbf{K}(1)$")
axes[0].axhline(rho_sum * t_main * (t_main + 1), color="C3", ls="--", label=r"zCDP $\rho_{\rm sum}t(t+1)$")
axes[0].set_xlabel("q")
axes[0].legend()
axes[1].plot(qs, subsampled_gap)
axes[1].set_xlabel("q")
axes[1].set_ylabel(r"$\mathbf{\Gamma}(1)$")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"gap at q = 1: {subsampled_gap[-1]:.2e}; at q = {qs[0]}: {subsampled_gap[0]:.6f} (limit rho_sum*t(t+1) = {rho_sum * 2:.0f})")
print("gap decreasing in q:", bool(np.all(np.diff(subsampled_gap) <= 1e-12)))

# %% [markdown]
# ### Try it: the subsampled step's gap for any sampling rate

# %% tags=["nbval-ignore-output"]
def show_subsampled(q=0.05):
    mechanism = rdp.PoissonSubsampledGaussian(q, z)
    orders = np.linspace(0.05, 4, 60)
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(orders, [n_steps * mechanism.cgf(t, 1.0) for t in orders], label=r"exact $\mathbf{K}(t)$")
    ax.plot(orders, [rho_sum * t * (t + 1) for t in orders], "--", label=r"zCDP $\rho_{\rm sum}t(t+1)$")
    ax.set_xlabel("order t")
    ax.set_title(f"q = {q:.3g}: gap at t = 1 is {n_steps * mechanism.gap(1.0, 1.0):.3f}")
    ax.legend()
    plt.show()


_ = widgets.interact(show_subsampled, q=widgets.FloatLogSlider(value=0.05, base=10, min=-3, max=0, step=0.1))

# %% [markdown]
# ## Allocation under a fixed total $\rho$ (Proposition 4.3)
#
# Split $\rho_{\mathrm{sum}} = 1/2$ among $n = 8$ releases along $\rho_1(\omega) = \tfrac{\rho_{\mathrm{sum}}}{n}(1 + (n-1)\omega)$,
# $\rho_i(\omega) = \tfrac{\rho_{\mathrm{sum}}}{n}(1-\omega)$: $\omega = 0$ is uniform, $\omega = 1$ puts everything in one release.
# For Laplace noise the composed gap grows along the path (convex $\Phi_1$); for the mixture it shrinks (concave).

# %%
omegas = np.linspace(0, 1, omega_grid)
allocation = {name: np.array([rdp.allocation_gap(m, 8, 0.5, w, t_main) for w in omegas])
              for name, m in (("Laplace", laplace), ("mixture", mixture))}
fig, ax = plt.subplots(figsize=(6, 3.6))
for name, values in allocation.items():
    ax.plot(omegas, values, label=name)
ax.set_xlabel(r"$\omega$")
ax.set_ylabel(r"composed gap $\mathbf{\Gamma}(1)$")
ax.legend()
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
paper_allocation = {"Laplace": ("0.037202015", "0.193535993"), "mixture": ("0.435179700", "0.342190807")}
for name, (uniform, concentrated) in paper_allocation.items():
    values = allocation[name]
    second = np.diff(values, 2)
    shape = "convex" if np.all(second > 0) else "concave" if np.all(second < 0) else "neither"
    print(f"{name}: uniform {values[0]:.9f} (paper {uniform}), concentrated {values[-1]:.9f} (paper {concentrated}); "
          f"second differences: {shape}")
    ledger.record(f"unifying.4.3.{name}.uniform", source="Unifying paper §4.3 (allocation, ω = 0)", paper=uniform,
                  ours=f"{values[0]:.12f}", tolerance="printed")
    ledger.record(f"unifying.4.3.{name}.concentrated", source="Unifying paper §4.3 (allocation, ω = 1)",
                  paper=concentrated, ours=f"{values[-1]:.12f}", tolerance="printed")

# %% [markdown]
# ## Tails do not order the gap (§4.4, Figure 6)
#
# Student-$t_\nu$ and generalized Gaussian noise (density $\propto e^{-|x|^\beta}$) at $s = 0.2$. Lighter tails do not mean a
# smaller gap: the Student-$t$ gap rises and then falls in $\nu$. The generalized Gaussian gap vanishes at $\beta = 2$,
# the Gaussian, and its quartic coefficient $\chi_\beta$ runs from $\chi_1 = 1/12$ to $\chi_2 = 0$.

# %%
def figure6(t):
    student = [rdp.StudentT(float(nu)).gap(t, 0.2) for nu in nu_grid]
    general = [rdp.GeneralizedGaussian(b).gap(t, 0.2) for b in beta_grid]
    return student, general


student_1, general_1 = figure6(t_main)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
axes[0].semilogx(nu_grid, student_1, "o-")
axes[0].set_xlabel(r"$\nu$")
axes[0].set_ylabel(r"$\Gamma(1)$ at $s = 0.2$")
axes[0].set_title("Student-t")
axes[1].plot(beta_grid, general_1, "o-", label="gap")
chi = [rdp.GeneralizedGaussian(b).chi * (t_main * (t_main + 1)) ** 2 * 0.2**4 for b in beta_grid]
axes[1].plot(beta_grid, chi, "--", label=r"$\chi_\beta[t(t+1)]^2s^4$")
axes[1].set_xlabel(r"$\beta$")
axes[1].set_title("generalized Gaussian")
axes[1].legend()
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
best = optimize.minimize_scalar(lambda nu: -rdp.StudentT(nu).gap(t_main, 0.2), bounds=(3, 12), method="bounded",
                                options={"xatol": 1e-6})
print(f"Student-t gap at (t, s) = (1, 0.2) is largest at nu = {best.x:.4f} (paper: near 6.013052641)")
_ = ledger.record("unifying.4.4.student_t_argmax", source="Unifying paper §4.4 (maximum near ν = 6.013052641)",
              paper="6.013052641", ours=f"{best.x:.6f}", tolerance="abs:0.5",
              explanation="The paper's value locates the maximum of the leading local-expansion coefficient; "
                          "ours maximises the gap itself at s = 0.2, where higher-order terms shift it.")
for b, paper in ((1.0, 1 / 12), (2.0, 0.0)):
    value = rdp.GeneralizedGaussian(b).chi
    ledger.record(f"unifying.4.4.chi_beta={b:g}", source="Unifying paper §4.4 (χ_1 = 1/12, χ_2 = 0)",
                  paper=f"{paper:.12f}", ours=f"{value:.12f}", tolerance="abs:1e-12")
    print(f"chi_{b:g} = {value:+.3e}")

# %% [markdown]
# ### Appendix D.2: the same comparison at $t = 1.5$

# %%
student_15, general_15 = figure6(t_repeat)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
axes[0].semilogx(nu_grid, student_15, "o-")
axes[0].set_xlabel(r"$\nu$")
axes[0].set_ylabel(r"$\Gamma(1.5)$ at $s = 0.2$")
axes[1].plot(beta_grid, general_15, "o-")
axes[1].set_xlabel(r"$\beta$")
fig.tight_layout()
print(f"Student-t at t = 1.5: largest gap on the grid at nu = {nu_grid[int(np.argmax(student_15))]}; "
      f"generalized Gaussian gap at beta = 2: {general_15[-1]:.1e}")

# %% [markdown]
# ## Discrete noise (§4.5, Figure 7)
#
# Discrete Gaussian noise has $\rho = r^2/2\sigma^2$, exact only at the orders where the shifted lattice realigns:
# $\Gamma(t) = \log\Theta(0) - \log\Theta((t+1)r)$ is periodic in $t$ with period $1/r$ and vanishes where $(t+1)r \in \mathbb Z$.
# Discrete Laplace noise, whose privacy loss takes finitely many values, has a finite-sum CGF.

# %%
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
axes[1].legend()
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
zeros = [t for t in (1.0, 2.0, 3.0)]
print("discrete Gaussian gap at t = 1, 2, 3:", ", ".join(f"{dgauss.gap(t, 1):.1e}" for t in zeros))
print(f"discrete Gaussian gap at t = 0.5 and 1.5 (period 1): {dgauss.gap(0.5, 1):.6e}, {dgauss.gap(1.5, 1):.6e}")
