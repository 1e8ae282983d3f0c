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
# paper's mechanisms with `accountlib.rdp`. Where no closed form exists, $K$ is an integral computed with a checked
# error estimate (a failed estimate raises an error instead of returning a wrong number), and $\rho$ includes the
# $t \downarrow 0$ endpoint, the mean privacy loss.

# %% tags=["parameters"]
t_main = 1.0  # the order used in Figures 4–6
t_repeat = 1.5  # Appendix D.2 repeats Figures 4–6 here (Figures 11 and 12)
shift_grid = 61  # log-spaced s in [1e-3, 1e-1] (Figure 4(a))
q_grid = 1001  # sampling rates (Figure 4(b)-(c))
omega_grid = 241  # allocation path (Prop. 4.3)
curvature_grid = 501  # zCDP parameters in [0, 1/2] for the curvature checks (Appendix D.1-D.2)
nu_grid = [1, 2, 3, 4, 5, 6.013052641, 8, 10, 15, 20, 30, 50]  # Appendix D.1
beta_grid = [1.0, 1.25, 1.5, 1.75, 1.9, 2.0]  # Appendix D.1

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

from accountlib import ledger, rdp

mixture, laplace, gaussian = rdp.GaussianMixture(1.0), rdp.Laplace(), rdp.Gaussian()

# %% [markdown]
# ## The picture in one figure (the unifying paper's Figure 1)
#
# The paper's discussion (§6) sums up: the loss $\Gamma$ "is zero for Gaussian noise and grows for mixture-type noise and
# under Poisson subsampling at small $q$ (Figure 1)". The figure below draws exactly that statement — the gap against
# the order for three noises with the same kind of shift, and the composed gap of a subsampled Gaussian against $q$.
# (The paper's own panel layout is not in its text; this is our rendering of what the text says Figure 1 shows.)

# %%
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
fig.suptitle("Figure 1 (unifying paper): what zCDP forgets")
fig.tight_layout()

# %% [markdown]
# ## Gaussian noise forgets nothing (Figure 3, Gaussian panel)
#
# For Gaussian noise with $\rho = 1/2$ the exact Rényi curve $D_{t+1} = K(t)/t$ and the zCDP line $\rho(t+1)$ are the
# same curve, on the paper's 100 log-spaced orders $10^{-2} \le t \le 10^{1.2}$ (Appendix D.1).

# %%
orders_fig3 = np.logspace(-2, 1.2, 100)
unit_gaussian = rdp.Gaussian(1.0)  # rho(s) = s^2/2, so s = 1 gives rho = 1/2
exact_rdp = np.array([unit_gaussian.cgf(t, 1.0) / t for t in orders_fig3])
zcdp_line = unit_gaussian.rho(1.0) * (orders_fig3 + 1)
fig, ax = plt.subplots(figsize=(6, 3.8))
ax.loglog(orders_fig3 + 1, exact_rdp, lw=4, alpha=0.5, label=r"exact RDP $D_{t+1} = K(t)/t$")
ax.loglog(orders_fig3 + 1, zcdp_line, "k--", label=r"zCDP bound $\rho(t+1)$, $\rho = 1/2$")
ax.set_xlabel(r"Rényi order $\alpha = t + 1$")
ax.set_ylabel(r"$D_\alpha(P\|Q)$")
ax.set_title("Figure 3, Gaussian panel: the two curves coincide")
ax.legend()
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"largest |exact RDP - zCDP bound| over the 100 orders: {np.max(np.abs(exact_rdp - zcdp_line)):.1e}")

# %% [markdown]
# ## Proposition 4.1: zero, quadratic and quartic gaps (Figure 4(a))
#
# Gaussian noise has $\Gamma \equiv 0$. The mixture $\tfrac12N(-1,1) + \tfrac12N(1,1)$ has the same $\rho = s^2/2$ but a
# gap of order $s^2$; Laplace noise has a gap of order $s^4$. The log–log slopes are fitted over $s \le 0.01$.

# %%
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
ax.set_title("Figure 4(a) at t = 1 (Gaussian: Γ ≡ 0, not drawn on a log scale)")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"max |Gaussian gap| = {np.max(np.abs(gaps_1['Gaussian'])):.1e}")
for name, paper in (("mixture", "2.00"), ("Laplace", "4.00")):
    entry = ledger.record(f"unifying.4.1.slope.{name}", source="Unifying paper §4.1, Figure 4(a) (log-log slope)",
                          paper=paper, ours=f"{slopes_1[name]:.4f}", tolerance="printed",
                          quote="Figure 4(a) confirms these powers, with fitted log–log slopes $2.00$ and $4.00$.")
    print(f"{name}: fitted slope {slopes_1[name]:.4f} (paper {paper}) -> {entry['verdict']}")

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


def subsampled_curves(t):
    k = np.array([n_steps * rdp.PoissonSubsampledGaussian(q, z).cgf(t, 1.0) for q in qs])
    return k, rho_sum * t * (t + 1) - k


def plot_subsampled(axes, k, gap, t):
    axes[0].plot(qs, k, label=rf"exact $\mathbf{{K}}({t:g})$")
    axes[0].axhline(rho_sum * t * (t + 1), color="C3", ls="--", label=r"zCDP $\rho_{\rm sum}t(t+1)$")
    axes[0].set_xlabel("q")
    axes[0].set_ylabel(rf"$\mathbf{{K}}({t:g})$ of the $n = 20$ steps")
    axes[0].legend()
    axes[1].plot(qs, gap)
    axes[1].set_xlabel("q")
    axes[1].set_ylabel(rf"$\mathbf{{\Gamma}}({t:g})$")


subsampled_k, subsampled_gap = subsampled_curves(t_main)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
plot_subsampled(axes, subsampled_k, subsampled_gap, t_main)
fig.suptitle("Figure 4(b)-(c): n = 20 subsampled Gaussian steps at t = 1")
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
# ## Allocation under a fixed total $\rho$ (Proposition 4.3, Figure 5)
#
# Split $\rho_{\mathrm{sum}} = 1/2$ among $n = 8$ releases along $\rho_1(\omega) = \tfrac{\rho_{\mathrm{sum}}}{n}(1 + (n-1)\omega)$,
# $\rho_i(\omega) = \tfrac{\rho_{\mathrm{sum}}}{n}(1-\omega)$: $\omega = 0$ is uniform, $\omega = 1$ puts everything in one release.
# For Laplace noise the composed gap grows along the path (convex $\Phi_1$); for the mixture it shrinks (concave).
# $\Phi_t(x) = x\,t(t+1) - K(t;\psi(x))$ is the gap of one release given zCDP parameter $x$; its curvature, by centred
# second differences on 501 points of $[0, 1/2]$, decides the direction.

# %%
omegas = np.linspace(0, 1, omega_grid)
curvature_xs = np.linspace(0, 0.5, curvature_grid)


def allocation_curves(t):
    return {name: np.array([rdp.allocation_gap(m, 8, 0.5, w, t) for w in omegas])
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
ax.set_title(r"Figure 5: $n = 8$, $\rho_{\rm sum} = 1/2$, t = 1")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
quotes_4_3 = {"Laplace": "The composed gap therefore increases from $0.037202015$ at the uniform allocation to "
                         "$0.193535993$ at the concentrated allocation.",
              "mixture": "Along this path, the gap decreases from $0.435179700$ at the uniform allocation to "
                         "$0.342190807$ at a concentrated allocation."}
paper_allocation = {"Laplace": ("0.037202015", "0.193535993"), "mixture": ("0.435179700", "0.342190807")}
for name, (uniform, concentrated) in paper_allocation.items():
    values = allocation_1[name]
    print(f"{name}: uniform {values[0]:.9f} (paper {uniform}), concentrated {values[-1]:.9f} (paper {concentrated})")
    ledger.record(f"unifying.4.3.{name}.uniform", source="Unifying paper §4.3 (allocation, ω = 0)", paper=uniform,
                  ours=f"{values[0]:.12f}", tolerance="printed", quote=quotes_4_3[name])
    ledger.record(f"unifying.4.3.{name}.concentrated", source="Unifying paper §4.3 (allocation, ω = 1)",
                  paper=concentrated, ours=f"{values[-1]:.12f}", tolerance="printed", quote=quotes_4_3[name])
curv_laplace_1 = rdp.allocation_curvature(laplace, t_main, curvature_xs)
curv_mixture_1 = {nodes: rdp.allocation_curvature(mixture, t_main, curvature_xs, nodes=nodes) for nodes in (192, 384)}
print(f"t = 1: Laplace curvature of Phi_1 in [{curv_laplace_1.min():.3f}, {curv_laplace_1.max():.3f}] (convex); "
      f"mixture, 192 nodes: max {curv_mixture_1[192].max():.3f}, 384 nodes: max {curv_mixture_1[384].max():.3f}")
non_negative_384 = int(np.sum(curv_mixture_1[384] >= 0))
entry = ledger.record("unifying.D1.mixture_concavity_384_nodes",
                      source="Unifying paper, Appendix D.1 (Figure 5: concavity check at 384 Hermite nodes)",
                      paper=0, ours=non_negative_384, tolerance="exact",
                      quote="repeating the Gaussian-mixture calculation with 384 rather than 192 Hermite nodes leaves "
                            "every interior centered second difference of $\\Phi_{1}$ negative on a 501-point grid "
                            "in $[0,1/2]$")
print(f"non-negative interior second differences of the mixture's Phi_1 at 384 nodes: {non_negative_384} of "
      f"{len(curv_mixture_1[384])} -> {entry['verdict']}")

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

# %%
nu_star = rdp.student_t_coefficient_argmax(dps=30)
nu_fine = np.logspace(0, math.log10(50), 200)
leading = np.array([float(rdp.student_t_leading_coefficient(nu)) for nu in nu_fine])


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
    axes[0].legend(fontsize=8)
    betas_fine = np.linspace(1, 2, 101)
    axes[1].plot(beta_grid, general, "o-", label="gap")
    axes[1].plot(betas_fine, [rdp.GeneralizedGaussian(b).chi * scale for b in betas_fine], "--",
                 label=r"$\chi_\beta[t(t+1)]^2s^4$")
    axes[1].set_xlabel(r"$\beta$")
    axes[1].set_ylabel(rf"$\Gamma({t:g})$ at $s = 0.2$")
    axes[1].set_title("generalized Gaussian")
    axes[1].legend(fontsize=8)


student_1, general_1 = figure6(t_main)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
plot_figure6(axes, student_1, general_1, t_main)
fig.suptitle("Figure 6: tail parameters at (t, s) = (1, 0.2)")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
endpoint_excess = max(rdp.GeneralizedGaussian(b).rho(0.2) - rdp.GeneralizedGaussian(b).kl(0.2) for b in beta_grid)
print(f"largest rho_beta(0.2) - E_P L over the beta grid: {endpoint_excess:.1e} (the t -> 0 endpoint attains rho)")
print(f"generalized Gaussian gap at beta = 2: {abs(general_1[-1]):.1e}; decreasing in beta: "
      f"{bool(np.all(np.diff(general_1) < 0))}")
print(f"nu* (maximiser of the leading coefficient) = {float(nu_star):.10f}")
quote_4_4 = "It reaches its maximum near $\\nu=6.013$ and tends to zero in the Gaussian limit."
entry = ledger.record("unifying.4.4.nu_star", source="Unifying paper §4.4 (maximiser of the leading coefficient)",
                      paper="6.013", ours=f"{float(nu_star):.12f}", tolerance="printed", quote=quote_4_4)
print(f"  against §4.4's 6.013: {entry['verdict']}")
entry = ledger.record("unifying.D1.nu_star", source="Unifying paper, Appendix D.1 (Figure 6's ν grid marks the maximiser)",
                      paper="6.013052641", ours=f"{float(nu_star):.12f}", tolerance="printed",
                      quote="Figure 6 fixes $(t,s)=(1,0.2)$ and uses "
                            "$\\nu\\in\\{1,2,3,4,5,6.013052641,8,10,15,20,30,50\\}$")
print(f"  against Appendix D.1's 6.013052641: {entry['verdict']}")
gap_argmax = rdp.argmax_gap_in_nu(t_main, 0.2)
gap_argmax_small = rdp.argmax_gap_in_nu(t_main, 0.1)
print(f"the gap itself at s = 0.2 peaks at nu = {gap_argmax:.4f}; at s = 0.1 at nu = {gap_argmax_small:.4f}")
entry = ledger.record(
    "unifying.4.4.student_t_argmax", source="Unifying paper §4.4 (maximum near ν = 6.013)", paper="6.013",
    ours=f"{gap_argmax:.6f}", tolerance="printed", quote=quote_4_4,
    explanation="Our number is the ν where the gap itself is largest at the finite shift s = 0.2; the paper's 6.013 "
                "maximises the leading coefficient −κ4(S_ν)/24, the s → 0 limit of Γ/([t(t+1)]²s⁴). "
                "Higher-order terms (order s² relative) move the maximiser at s = 0.2.",
    check=[{"claim": "the leading coefficient −κ4(S_ν)/24 peaks at the paper's value", "expected": "6.013",
            "ours": f"{float(nu_star):.12f}", "tolerance": "printed"},
           {"claim": "halving the shift to s = 0.1 brings the gap's maximiser within 0.02 of that peak "
                     "(the offset shrinks like s²: 0.037 at s = 0.2)",
            "expected": f"{float(nu_star):.10f}", "ours": f"{gap_argmax_small:.6f}", "tolerance": "abs:0.02"}])
print(f"  recorded against 6.013: {entry['verdict']}")
quote_chi = {1.0: "and $I_{1}=J_{1}=1$ gives $\\chi_{1}=1/12$.",
             2.0: "At $\\beta=2$, the quadratic Gaussian CGF gives $\\rho_{2}(s)=\\mathbb{E}_{P_{s}}L_{s}=s^{2}/2$, "
                  "$\\chi_{2}=0$, and $\\Gamma(t)=0$ for every $t>0$."}
for b, paper in ((1.0, "1/12"), (2.0, "0.0")):  # "0.0": the paper's χ_2 = 0, a real number, not a count
    value = rdp.GeneralizedGaussian(b).chi
    ledger.record(f"unifying.4.4.chi_beta={b:g}", source="Unifying paper, Appendix C.7 (proof of Prop. 4.5)",
                  paper=paper, ours=f"{value:.15f}", tolerance="abs:1e-12", quote=quote_chi[b],
                  tolerance_reason="χ_β is a float64 expression in Gamma functions whose two terms (≈ 2.4 each at "
                                   "β = 2) cancel; 1e-12 allows their rounding")
    print(f"chi_{b:g} = {value:.3e}" if b == 1.0 else f"|chi_{b:g}| = {abs(value):.0e} (zero up to float64 rounding)")

# %% [markdown]
# ## Appendix D.2: everything again at $t = 1.5$ (Figures 11 and 12)
#
# The paper's Figures 11 and 12 "repeat every such comparison at $t=1.5$ ($\alpha=2.5$), with all mechanism parameters
# and numerical grids unchanged" (Appendix D.2). We draw Figure 4's three panels at $t = 1.5$ as Figure 11 and
# Figures 5 and 6 at $t = 1.5$ as Figure 12 (the split between the two is our reading; the captions are not in the text).

# %%
gaps_15, slopes_15 = shift_gaps(t_repeat)
subsampled_k_15, subsampled_gap_15 = subsampled_curves(t_repeat)
fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
plot_shift_gaps(axes[0], gaps_15, slopes_15, t_repeat)
axes[0].set_title("(a) Proposition 4.1")
plot_subsampled(axes[1:], subsampled_k_15, subsampled_gap_15, t_repeat)
axes[1].set_title("(b) subsampled: K against zCDP")
axes[2].set_title("(c) subsampled: the gap")
fig.suptitle("Figure 11: Figure 4 at t = 1.5")
fig.tight_layout()

# %%
allocation_15 = allocation_curves(t_repeat)
student_15, general_15 = figure6(t_repeat)
fig, axes = plt.subplots(1, 3, figsize=(15, 3.8))
plot_allocation(axes[0], allocation_15, t_repeat)
axes[0].set_title("allocation (Figure 5)")
plot_figure6(axes[1:], student_15, general_15, t_repeat)
fig.suptitle("Figure 12: Figures 5 and 6 at t = 1.5")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"max |Gaussian gap| at t = 1.5: {np.max(np.abs(gaps_15['Gaussian'])):.1e}")
quote_slopes = ("The fitted log–log slopes of the gap against $s$ are $2.000$ and $3.997$ for the Gaussian-mixture and "
                "Laplace families, respectively, agreeing with the quadratic and quartic local expansions.")
for name, paper in (("mixture", "2.000"), ("Laplace", "3.997")):
    entry = ledger.record(f"unifying.D2.slope.{name}", source="Unifying paper, Appendix D.2 (slopes at t = 1.5)",
                          paper=paper, ours=f"{slopes_15[name]:.5f}", tolerance="printed", quote=quote_slopes)
    print(f"{name}: slope at t = 1.5 {slopes_15[name]:.5f} (paper {paper}) -> {entry['verdict']}")
print(f"Student-t at t = 1.5: nonmonotone in nu: {bool(np.any(np.diff(student_15) > 0) and np.any(np.diff(student_15) < 0))}"
      f", largest on the grid at nu = {nu_grid[int(np.argmax(student_15))]}; "
      f"generalized Gaussian gap at beta = 2: {abs(general_15[-1]):.1e}")

node_gap = rdp.subsampled_node_discrepancy(qs, z, t_repeat)
reference_qs = (0.001, 0.01, 0.1, 0.5, 1.0)
reference_error = max(abs(rdp.PoissonSubsampledGaussian(q, z).cgf(t_repeat, 1.0)
                          - rdp.sampled_gaussian_cgf_reference(q, z, t_repeat)) for q in reference_qs)
print(f"largest |K by 192 - K by 384 Gauss-Hermite nodes| over the q grid at t = 1.5: {node_gap:.2e}; "
      f"192-node K against a 30-digit quadrature at q in {reference_qs}: {reference_error:.1e}")
entry = ledger.record(
    "unifying.D2.gauss_hermite_discrepancy", source="Unifying paper, Appendix D.2 (192 vs 384 Hermite nodes, t = 1.5)",
    paper="7.11e-15", ours=f"{node_gap:.3g}", tolerance="printed",
    quote="we evaluate the expectation in (4.2) by a 192-node Gauss–Hermite rule and repeat it with 384 nodes; the "
          "largest CGF discrepancy is $7.11\\times 10^{-15}$.",
    explanation="The discrepancy is float64 rounding of values of order 1, and its digits depend on how each sum is "
                "formed (ours adds log-terms with logsumexp); the point it makes, that 192 nodes have converged, holds.",
    check={"claim": "192-node K agrees with an independent 30-digit tanh-sinh quadrature to rounding level (< 1e-13)",
           "expected": "<1e-13", "ours": f"{reference_error:.3e}", "tolerance": "bound"})
print(f"  -> {entry['verdict']}")
composition_gap = rdp.composition_gap_discrepancy(qs, z, t_repeat, n_steps)
rounding = n_steps * math.ulp(rho_sum * t_repeat * (t_repeat + 1))
print(f"composed gap against n*Gamma(1.5): {composition_gap:.2e} (rounding scale n*ulp(rho_sum t(t+1)) = {rounding:.1e})")
entry = ledger.record(
    "unifying.D2.composition_discrepancy", source="Unifying paper, Appendix D.2 (composition check, t = 1.5)",
    paper="1.78e-15", ours=f"{composition_gap:.3g}", tolerance="printed",
    quote="The exact composition agrees with $n\\Gamma(1.5)$ to $1.78\\times 10^{-15}$.",
    explanation="Theorem 3.3 makes the difference exactly zero; what is left is the rounding of a sum of 20 terms, whose "
                "digits depend on the order of operations.",
    check={"claim": "ours is below the rounding scale of a 20-term sum, n·ulp(ρ_sum·t(t+1))",
           "expected": f"<{rounding:.3e}", "ours": f"{composition_gap:.3e}", "tolerance": "bound"})
print(f"  -> {entry['verdict']}")
curv_laplace_15 = rdp.allocation_curvature(laplace, t_repeat, curvature_xs)
curv_mixture_15 = {nodes: rdp.allocation_curvature(mixture, t_repeat, curvature_xs, nodes=nodes) for nodes in (192, 384)}
quote_curv = ("On the displayed $\\rho$ grid, the minimum Laplace curvature is $1.15$ and the maximum Gaussian-mixture "
              "curvature is $-1.41$.")
for name, paper, ours in (("Laplace", "1.15", curv_laplace_15.min()), ("mixture", "-1.41", curv_mixture_15[192].max())):
    entry = ledger.record(f"unifying.D2.curvature.{name}", source="Unifying paper, Appendix D.2 (curvature of Φ_1.5)",
                          paper=paper, ours=f"{ours:.5f}", tolerance="printed", quote=quote_curv)
    print(f"{name}: {'minimum' if name == 'Laplace' else 'maximum'} curvature at t = 1.5: {ours:.4f} (paper {paper})"
          f" -> {entry['verdict']}")
print(f"mixture at 384 nodes: maximum curvature {curv_mixture_15[384].max():.4f}, "
      f"non-negative second differences: {int(np.sum(curv_mixture_15[384] >= 0))}")

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
axes[1].set_ylabel(r"$\Gamma(t)$")
axes[1].legend()
fig.suptitle("Figure 7: lattice mechanisms")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
zeros = [t for t in (1.0, 2.0, 3.0)]
print("discrete Gaussian gap at t = 1, 2, 3:", ", ".join(f"{dgauss.gap(t, 1):.1e}" for t in zeros))
print(f"discrete Gaussian gap at t = 0.5 and 1.5 (period 1): {dgauss.gap(0.5, 1):.6e}, {dgauss.gap(1.5, 1):.6e}")
