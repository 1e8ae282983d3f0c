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
# # Exact privacy of the 2020 Census DHC
#
# The Demographic and Housing Characteristics File uses 43 distinct privacy-loss budget allocations, and a
# person's record is protected by every pair of them: the census-wide guarantee is the worst case over
# all $43\cdot42/2 + 43 = 946$ pairs $(k, l)$ (sieve paper, Prop. 3.1 and §5). Its $(\varepsilon,\delta)$ curve is
# the pointwise maximum of the pairs' curves; its $f$-DP curve is the lower convex envelope of the minimum
# of the pairs' trade-off functions. The Bureau reports instead $\rho$-zCDP with $\rho = 4.9622$.
#
# The per-pair curves come from `accountlib.sweep` (one file per pair, certified bounds on every value).
# With the full sweep's files present (`results/dhc/`) this chapter shows the whole census; otherwise, in
# quick mode, it computes a dozen pairs including $[M_0, M_0] = (13, 13)$ and says so.

# %% tags=["parameters"]
quick = True  # True: a dozen pairs when the full sweep's files are absent; False: run the full sweep
results_dir = "../results/dhc"
quick_pairs = [(13, 13), (2, 13), (8, 13), (13, 16), (1, 13), (3, 13), (5, 13), (11, 13), (13, 26), (13, 40),
               (2, 8), (1, 2)]
variance_levels_quick = [1e-1, 1e-2, 1e-5, 1e-10]
top_pairs_for_variance = 3  # the c search runs over the pairs with the largest δ at each level
workers = 2

# %%
import tempfile
from fractions import Fraction as F
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from accountlib import census, ledger, sweep
from accountlib.conversions import approxdp_to_tradeoff, zcdp_epsilon, zcdp_rdp_epsilon

RHO = float(census.TOTAL_RHO)

# %% [markdown]
# ## Which pairs we have

# %%
# NBVAL_IGNORE_OUTPUT
full_dir = Path(results_dir)
full = len(census.available_pairs(full_dir)) == 946
if full:
    data_dir, pairs = full_dir, census.all_pairs()
elif quick:
    data_dir = Path(tempfile.mkdtemp(prefix="dhc_quick_"))
    sweep.run_dhc_sweep(data_dir, quick_pairs, workers=workers, progress=False)
    pairs = sorted(quick_pairs)
else:
    sweep.run_dhc_sweep(full_dir, workers=workers)
    census.write_census_results(full_dir)
    census.variance_reduction_table(full_dir, census.VARIANCE_LEVELS, top=top_pairs_for_variance, workers=workers)
    data_dir, pairs = full_dir, census.all_pairs()
    full = True
curves = {p: census.read_pair_curves(data_dir, *p) for p in pairs}
print(f"pairs: {len(pairs)} ({'the full census' if len(pairs) == 946 else 'QUICK MODE: a sample, not the census'})")

# %% [markdown]
# ## The census-wide $(\varepsilon, \delta)$ curve against zCDP
#
# At each $\delta_{\mathrm{zCDP}}$ the Bureau's conversion $\varepsilon_{\mathrm{zCDP}}(\delta) = \rho + 2\sqrt{\rho\log(1/\delta)}$
# gives an $\varepsilon$; the exact census-wide $\delta$ at that $\varepsilon$ is far smaller. AutoDP's tighter
# Rényi conversion of the same $\rho$ sits in between.

# %%
wide = census.census_eps_delta(curves)
levels = np.array([float(r["delta_zcdp"]) for r in wide])
eps = np.array([float(r["epsilon"]) for r in wide])
exact = np.array([float(r["delta"]) for r in wide])
fig, ax = plt.subplots(figsize=(7, 4))
ax.semilogy(eps, levels, "C3-", label=r"zCDP: $\delta$ with $\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}$")
ax.semilogy([zcdp_rdp_epsilon(RHO, d) for d in levels], levels, "C1--", label="zCDP through the RDP conversion (AutoDP)")
ax.semilogy(eps, exact, "C0o-", ms=3, label=f"exact, max over {len(pairs)} pairs")
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel(r"$\delta$")
ax.set_title("Census-wide (ε, δ): exact against the zCDP conversions")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"{'delta_zCDP':>10} {'epsilon':>9} {'exact delta (census max)':>26} {'ratio':>8} {'worst pair':>10}")
for row in wide[::6]:
    print(f"{float(row['delta_zcdp']):>10.0e} {float(row['epsilon']):>9.4f} {float(row['delta']):>26.6e} "
          f"{float(row['delta_zcdp']) / float(row['delta']):>8.1f} {str(row['pair']):>10}")

# %% [markdown]
# ## The census-wide $f$-DP curve against zCDP
#
# The exact curve is the lower convex envelope of all pairs' trade-off vertices; the zCDP curve is what the
# family of $(\varepsilon_{\mathrm{zCDP}}(\delta), \delta)$ guarantees implies (AutoDP's `approxdp_to_fdp`), shown for the
# Bureau's conversion and for the Rényi one. Higher is more private.

# %%
hull = census.census_tradeoff(curves)
h_alpha = np.array([float(r["alpha"]) for r in hull])
h_beta = np.array([float(r["beta"]) for r in hull])
grid = np.concatenate([[0.0], np.logspace(-14, 0, 400)])  # log-spaced: the curves bend at tiny α
f_zcdp = approxdp_to_tradeoff(lambda d: zcdp_epsilon(RHO, d), grid)
f_zcdp_rdp = approxdp_to_tradeoff(lambda d: zcdp_rdp_epsilon(RHO, d), grid, deltas=np.logspace(-40, -0.01, 300))
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, scale in zip(axes, ("linear", "log")):
    ax.plot(h_alpha, h_beta, "C0", label="exact (census-wide envelope)")
    ax.plot(grid, f_zcdp, "C3", label="zCDP (Bureau conversion)")
    ax.plot(grid, f_zcdp_rdp, "C1--", label="zCDP (RDP conversion)")
    ax.set_xlabel(r"type I error $\alpha$")
    ax.set_ylabel(r"type II error $\beta = f(\alpha)$")
    ax.set_title(f"Census-wide trade-off curve ({scale} α axis)")
    if scale == "log":
        ax.set_xscale("log")
        ax.set_xlim(1e-12, 1)
axes[0].legend(fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## The 43 pairs $[M_0, M_l]$
#
# The sieve paper's Figures 3–4 show every pair with allocation 13 ($M_0$, the paper's Table 1). They differ,
# but only a little: the next section measures by how much. First the trade-off curves (the paper's Figure 3),
# exact in blue against the zCDP curve in red.

# %%
with_m0 = [p for p in pairs if 13 in p]
columns = 7
rows = int(np.ceil(len(with_m0) / columns))
fig, axes = plt.subplots(rows, columns, figsize=(2.0 * columns, 1.8 * rows), sharex=True, sharey=True, squeeze=False)
for ax, p in zip(axes.flat, with_m0):
    c = curves[p]
    ax.plot([float(a) for a in c["alpha"]], [float(b) for b in c["beta"]], "C0", lw=1)
    ax.plot(grid, f_zcdp, "C3", lw=0.8)
    ax.set_title(f"[M0, M{p[0] if p[1] == 13 else p[1]}]", fontsize=8)
for ax in list(axes.flat)[len(with_m0):]:
    ax.axis("off")
fig.suptitle("Trade-off curves of the pairs [M0, Ml]: exact (blue) and zCDP (red)")
fig.supxlabel(r"type I error $\alpha$")
fig.supylabel(r"type II error $\beta$")
fig.tight_layout()

# %% [markdown]
# The same pairs as $(\varepsilon, \delta)$ curves (the paper's Figure 4): for each $\delta_{\mathrm{zCDP}}$, the exact $\delta$ of the
# pair at $\varepsilon_{\mathrm{zCDP}}(\delta)$ (blue) against the zCDP statement itself (red). Split over three figures so that
# each panel stays legible.

# %%
for part, chunk in enumerate(np.array_split(np.arange(len(with_m0)), 3), start=1):
    columns = 5
    rows = int(np.ceil(len(chunk) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(13, 2.6 * rows), sharex=True, sharey=True, squeeze=False)
    for ax, index in zip(axes.flat, chunk):
        p = with_m0[index]
        c = curves[p]
        ax.semilogy([float(e) for e in c["epsilon"]], [float(d) for d in c["delta_zcdp"]], "C3", lw=0.9)
        ax.semilogy([float(e) for e in c["epsilon"]], [float(d) for d in c["delta"]], "C0", lw=1.1)
        ax.set_title(f"[M0, M{p[0] if p[1] == 13 else p[1]}]", fontsize=9)
    for ax in list(axes.flat)[len(chunk):]:
        ax.axis("off")
    fig.suptitle(f"(ε, δ) curves of the pairs [M0, Ml], part {part} of 3: exact (blue) and zCDP (red)")
    fig.supxlabel(r"$\varepsilon$")
    fig.supylabel(r"$\delta$")
    fig.tight_layout()

# %% [markdown]
# ## Is $[M_0, M_0]$ a good proxy?
#
# The paper suggests tuning budgets on the single pair $(13, 13)$ and computing the census only at the end
# (§5.3). The relative gaps $(f_{00} - f_{\text{census}})/f_{00}$ and $(\varepsilon_{00} - \varepsilon_{\text{census}})/\varepsilon_{00}$
# say how much that proxy overstates privacy (curves interpolated between stored points).

# %%
alpha_grid = np.logspace(-20, np.log10(0.99), 300)
f00 = census.tradeoff_on_grid(curves[(13, 13)]["alpha"], curves[(13, 13)]["beta"], alpha_grid)
f_census = census.tradeoff_on_grid(h_alpha, h_beta, alpha_grid)
gap_f = (f00 - f_census) / f00
delta_grid = levels[(levels <= 0.1) & (levels >= 1e-25)]
eps00 = census.epsilon_for_delta(curves[(13, 13)]["epsilon"], curves[(13, 13)]["delta"], delta_grid)
eps_census = census.epsilon_for_delta(eps, exact, delta_grid)
gap_eps = (eps00 - eps_census) / eps00
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
axes[0].semilogx(alpha_grid, gap_f)
axes[0].set_xlabel(r"$\alpha$")
axes[0].set_ylabel(r"$(f_{00} - f_{\mathrm{census}})/f_{00}$")
axes[1].semilogx(delta_grid, gap_eps)
axes[1].set_xlabel(r"$\delta$")
axes[1].set_ylabel(r"$(\varepsilon_{00} - \varepsilon_{\mathrm{census}})/\varepsilon_{00}$")
axes[0].set_title("How much [M0, M0] overstates privacy: f")
axes[1].set_title("... and ε")
fig.tight_layout()
worst_pairs = sorted({str(r["pair"]) for r in wide})
print(f"largest relative gap in f: {gap_f.max():.2e}; in epsilon: {abs(gap_eps).max():.2e}")
print("pairs attaining the census (eps, delta) curve:", ", ".join(worst_pairs))

# %% [markdown]
# ## The noise we can give back
#
# Multiply every noise variance by $c \le 1$ ($\rho_i \to \rho_i/c$) and ask for the smallest $c$ at which the exact
# census-wide $\delta$ at $\varepsilon_{\mathrm{zCDP}}(\delta)$ is still at most $\delta$: the Bureau could have used $1 - c$ less
# variance for the privacy it reports. The search is a certified bisection on $c = j/1000$ over the three pairs with
# the largest $\delta$ at that level at $c = 1$; the pairs' curves are so close that the ordering can change with $c$,
# so every one of the 946 pairs is then evaluated at the $c$ found, and a level where another pair exceeds $\delta$ is
# searched again with that pair among the candidates (`census.variance_reduction_table`). The full-census table below
# is certified over all pairs; quick mode searches its dozen pairs only.

# %%
variance_file = full_dir / "variance_reduction.csv"
if full and variance_file.is_file():
    import csv

    with open(variance_file) as handle:
        reductions = [{"delta": float(row["delta"]), "c": F(row["c"]), "reduction": float(row["reduction"]),
                       "pair": tuple(int(x) for x in row["pair"].split("_")), "checked": int(row["pairs_checked"])}
                      for row in csv.DictReader(handle)]
    print(f"certified over {min(r['checked'] for r in reductions)} pairs at every level")
else:
    reductions = []
    candidates = sorted(quick_pairs) if quick else pairs  # quick mode stays fast: its dozen pairs only
    for level in variance_levels_quick:
        index = int(np.argmin(np.abs(levels - level)))
        ranked = sorted(candidates, key=lambda p: curves[p]["delta"][index], reverse=True)[:top_pairs_for_variance]
        reductions.append(census.smallest_variance_scale(ranked, level, resolution=1000))

# %%
# NBVAL_CHECK_OUTPUT
print(f"{'delta':>8} {'c':>7} {'variance reduction':>19} {'binding pair':>13}")
for r in reductions:
    print(f"{r['delta']:>8.0e} {float(r['c']):>7.3f} {r['reduction']:>19.1%} {str(r['pair']):>13}")

# %%
fig, ax = plt.subplots(figsize=(6, 3.4))
ax.semilogx([r["delta"] for r in reductions], [100 * r["reduction"] for r in reductions], "o-")
ax.axhspan(15.08, 24.82, color="gray", alpha=0.2, label="paper: 15.08%–24.82%")
ax.set_xlabel(r"$\delta$")
ax.set_ylabel("variance reduction (%)")
ax.set_title("Noise variance the exact accounting gives back")
ax.legend()
fig.tight_layout()

# %% [markdown]
# The paper states its range, "noise variance reductions of 15.08% to 24.82%" (§1.1), without the $\delta$ or the
# definition behind it. Our give-back falls steadily as $\delta$ shrinks, so each end of the paper's range is met at
# one $\delta$; `census.delta_at_reduction` finds it by bisection on $\delta$ with $c = 1 - $ (the end) fixed, over the pairs
# that bind somewhere in the table above.

# %%
# NBVAL_CHECK_OUTPUT
by_level = sorted((r["delta"], 100 * r["reduction"]) for r in reductions if r["reduction"] is not None)
binding = sorted({tuple(r["pair"]) for r in reductions})
ends = {}
for name, paper in (("min", "15.08"), ("max", "24.82")):
    target = float(paper)
    brackets = [(d1, d2) for (d1, v1), (d2, v2) in zip(by_level, by_level[1:]) if v1 <= target <= v2]
    if brackets:
        ends[name] = census.delta_at_reduction(F(paper) / 100, binding, low=brackets[0][0], high=brackets[0][1])
        print(f"{paper}% of the variance is given back at delta = {ends[name]['delta']:.3e} "
              f"(bracket {ends[name]['bracket'][0]:.4e} to {ends[name]['bracket'][1]:.4e}, binding pair {ends[name]['pair']})")
    else:
        print(f"{paper}%: not between two of our levels")

# %%
table = ", ".join(f"{v:.1f}% at δ = {d:.0e}" for d, v in sorted(by_level, reverse=True))
scope = "certified over all 946 pairs" if full else "quick mode, a sample of pairs"
quote = "exact accounting permits noise variance reductions of 15.08% to 24.82% without sacrificing privacy guarantees"
for name, paper in (("min", "15.08"), ("max", "24.82")):
    found = (f"our computation gives {paper}% at δ ≈ {ends[name]['delta']:.2e} (bisection over the binding pairs "
             f"{', '.join(map(str, binding))})" if name in ends else f"our levels never give {paper}%")
    ledger.not_reproducible(
        f"sieve.§1.variance_reduction_{name}", source="Sieve paper §1.1 (Contributions)", quote=quote, paper=paper,
        ours=f"{ends[name]['delta']:.3e}" if name in ends else None,
        reason="The paper gives the range without the δ (or the definition) it is computed at, so there is no value of "
        f"ours to compare. With every variance scaled by c and the exact census-wide δ at ε_zCDP(δ) held ≤ δ, our give-back "
        f"falls steadily as δ shrinks ({scope}: {table}); {found}. 'ours' is that δ.")
