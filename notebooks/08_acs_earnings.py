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
# # Releasing ACS earnings: how much noise zCDP costs
#
# The unifying paper's first experiment (§5.1, Appendix D.3) releases county-level median earnings from the
# American Community Survey for the 20 states with the most complete counties: $d = 5m$ queries for $m$
# counties, each changing by at most \$1,000 between neighbouring datasets. Noise $bZ$ is added with three base
# laws $Z$: Gaussian $N(0,1)$, the mixture $\tfrac12N(-1,1)+\tfrac12N(1,1)$ and Laplace(1). For each, the smallest
# scale $b$ meeting a target $(\varepsilon,\delta)$ is found twice — with the exact composed Rényi curve
# $d\cdot K(\alpha-1)/(\alpha-1)$ and with zCDP, $d\rho(s)\alpha$ — both converted by
# $\mathcal C_\delta[U] = \inf_{\alpha>1}\{U_\alpha - (\log\delta + \log\alpha)/(\alpha-1) + \log((\alpha-1)/\alpha)\}$.
# Everything is computed by `accountlib.acs`.

# %% tags=["parameters"]
main_target = (3.0, 1e-5)  # found below: the target the main text's ranges come from
appendix_target = (5.0, 1e-5)  # Appendix D.3.2, Table 2
monte_carlo_releases = 20_000
search_epsilons = [2.0, 3.0, 4.0, 5.0]
search_deltas = [1e-5, 1e-6, 1e-8]
seed = 2026

# %%
import matplotlib.pyplot as plt
import numpy as np

from accountlib import acs, ledger

workloads = acs.load_workloads()
FAMILIES = ["gaussian", "mixture", "laplace"]

# %% [markdown]
# ## Per-state results

# %%
def table(target):
    eps, delta = target
    rows = []
    for w in workloads:
        row = {"state": w["state"], "d": w["d"]}
        for family in FAMILIES:
            row[f"{family}_ratio"] = acs.variance_ratio(family, w["d"], eps, delta)
            row[f"{family}_dmse"] = acs.delta_mse(family, w["d"], eps, delta)
        rows.append(row)
    return rows


main_rows = table(main_target)
appendix_rows = table(appendix_target)

# %%
# NBVAL_CHECK_OUTPUT
print(f"(epsilon, delta) = {main_target}")
print(f"{'state':>5} {'d':>5} | {'mixture ratio':>13} {'dMSE':>8} | {'Laplace ratio':>13} {'dMSE':>7} | Gaussian ratio, dMSE")
for r in main_rows:
    print(f"{r['state']:>5} {r['d']:>5} | {r['mixture_ratio']:>13.4f} {r['mixture_dmse']:>8.1f} | "
          f"{r['laplace_ratio']:>13.4f} {r['laplace_dmse']:>7.3f} | {r['gaussian_ratio']:.0f}, {r['gaussian_dmse']:.0f}")

# %%
def plot_by_state(rows, title):
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    x = np.arange(len(workloads))
    for i, family in enumerate(["mixture", "laplace"]):
        axes[0].bar(x + (i - 0.5) * 0.4, [r[f"{family}_dmse"] for r in rows], 0.4, label=family)
        axes[1].bar(x + (i - 0.5) * 0.4, [r[f"{family}_ratio"] for r in rows], 0.4, label=family)
    for ax, label in zip(axes, [r"$\Delta$MSE (\$1000$^2$ per query)", r"Var$(Z_{\rm RDP})$ / Var$(Z_{\rm zCDP})$"]):
        ax.set_xticks(x, [w["state"] for w in workloads], rotation=90, fontsize=7)
        ax.set_xlabel("state workload")
        ax.set_ylabel(label)
    axes[0].set_yscale("log")
    axes[1].axhline(1, color="gray", lw=0.8)
    axes[1].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()


plot_by_state(main_rows, f"zCDP's cost by state at (ε, δ) = {main_target} (Gaussian: ratio 1, ΔMSE 0)")

# %%
plot_by_state(appendix_rows, f"The same at (ε, δ) = {appendix_target} (Appendix D.3.2)")

# %% [markdown]
# The Gaussian calibrations coincide exactly: the Gaussian Rényi curve *is* its zCDP envelope ($\Gamma\equiv0$).
# The mixture, whose gap is of order $s^2$, needs only about 55% of the zCDP variance; Laplace, with a quartic
# gap, about 99%. Larger workloads (more queries) widen the difference in absolute terms.

# %% [markdown]
# ## Table 2 (Appendix D.3.2) at $(\varepsilon, \delta) = (5, 10^{-5})$

# %%
# NBVAL_CHECK_OUTPUT
def ranges(rows, family):
    ratios = [r[f"{family}_ratio"] for r in rows]
    dmse = [r[f"{family}_dmse"] for r in rows]
    return min(ratios), max(ratios), min(dmse), max(dmse)


def record_endpoints(prefix, source, paper, ours, quotes):
    """Ledger entries for the four printed endpoints (ratio min/max, ΔMSE min/max), to every printed digit."""
    for name, p, o, q in zip(("ratio_min", "ratio_max", "dmse_min", "dmse_max"), paper, ours, quotes):
        ledger.record(f"{prefix}.{name}", source=source, paper=p, ours=f"{o:.6g}", tolerance="printed", quote=q)


paper_table2 = {"mixture": ("0.553", "0.557", "265.0", "860.6"), "laplace": ("0.988", "0.996", "7.279", "7.313")}
table2_rows = {"mixture": "| Gaussian mixture | $265.0$–$860.6$ | $0.553$–$0.557$ |",
               "laplace": "| Laplace | $7.279$–$7.313$ | $0.988$–$0.996$ |"}
for family, paper in paper_table2.items():
    ours = ranges(appendix_rows, family)
    print(f"{family:>8}: ratio {ours[0]:.3f}–{ours[1]:.3f} (paper {paper[0]}–{paper[1]}), "
          f"dMSE {ours[2]:.{len(paper[2].split('.')[1])}f}–{ours[3]:.{len(paper[3].split('.')[1])}f} (paper {paper[2]}–{paper[3]})")
    record_endpoints(f"unifying.D3.table2.{family}", "Unifying paper, Appendix D.3.2, Table 2 ((5, 1e-5))", paper, ours,
                     [table2_rows[family]] * 4)
g = ranges(appendix_rows, "gaussian")
print(f"gaussian: ratio {g[0]:.0f}–{g[1]:.0f}, dMSE {g[2]:.0f}–{g[3]:.0f} (paper 1 and 0)")
_ = ledger.record("unifying.D3.table2.gaussian.ratio", source="Unifying paper, Appendix D.3.2, Table 2", paper="1",
                  ours=g[1], tolerance="exact", quote="| Gaussian | $0$ | $1$ |")
_ = ledger.record("unifying.D3.table2.gaussian.dmse", source="Unifying paper, Appendix D.3.2, Table 2", paper="0",
                  ours=g[3], tolerance="exact", quote="| Gaussian | $0$ | $1$ |")

# %% [markdown]
# ## Which target gives the main text's ranges?
#
# §5.1 reports mixture ratios 0.552–0.557 with ΔMSE 652.3–2115.7, and Laplace 0.989–0.997 with ΔMSE
# 16.170–16.205, without naming the $(\varepsilon,\delta)$. We search a grid of targets and count how many of the eight
# printed endpoints each reproduces to every printed digit.

# %%
# NBVAL_CHECK_OUTPUT
printed = {"mixture": ("0.552", "0.557", "652.3", "2115.7"), "laplace": ("0.989", "0.997", "16.170", "16.205")}
_ratio = {"mixture": "retaining the RDP curve needs only $0.552$–$0.557$ of the zCDP variance",
          "laplace": "For Laplace noise the ratio is $0.989$–$0.997$"}
_dmse = {"mixture": "with $\\Delta\\mathrm{MSE}$ from $652.3$ to $2115.7$",
         "laplace": "and $\\Delta\\mathrm{MSE}$ is $16.170$–$16.205$"}
main_quotes = {f: [_ratio[f], _ratio[f], _dmse[f], _dmse[f]] for f in printed}
extremes = (min(w["d"] for w in workloads), max(w["d"] for w in workloads))


def endpoints(target, family):
    eps, delta = target
    ratios = [acs.variance_ratio(family, d, eps, delta) for d in extremes]
    dmse = [acs.delta_mse(family, d, eps, delta) for d in extremes]
    return min(ratios), max(ratios), min(dmse), max(dmse)


def matches(target):
    count = 0
    for family, values in printed.items():
        for p, o in zip(values, endpoints(target, family)):
            count += ledger.judge(p, o, "printed")[0] == "pass"
    return count


scores = {(e, d): matches((e, d)) for e in search_epsilons for d in search_deltas}
for (e, d), score in sorted(scores.items()):
    print(f"epsilon = {e:.0f}, delta = {d:.0e}: {score}/8 endpoints reproduced")

# %% [markdown]
# Only $(\varepsilon, \delta) = (3, 10^{-5})$ reproduces all eight printed endpoints; no other target on the grid
# reproduces more than two (the ΔMSE endpoints move by whole units between neighbouring targets). We are confident
# this is the paper's main target. The ranges are attained at the smallest (AL, $d = 330$) and largest (TX, $d = 1060$) workloads,
# so the search uses those two.

# %%
# NBVAL_CHECK_OUTPUT
for family, values in printed.items():
    ours = ranges(main_rows, family)
    print(f"{family:>8} at {main_target}: ratio {ours[0]:.3f}–{ours[1]:.3f}, dMSE {ours[2]:.4f}–{ours[3]:.4f} "
          f"(paper {values[0]}–{values[1]}, {values[2]}–{values[3]})")
    record_endpoints(f"unifying.5.1.{family}", "Unifying paper §5.1 (main target, found to be (3, 1e-5))", values, ours,
                     main_quotes[family])

# %% [markdown]
# ## Monte Carlo check
#
# The analytic ΔMSE assumes nothing but the noise laws. A simulation releases every state's workload
# 20,000 times with shared base noise for the two calibrations (paired draws), and compares the empirical
# ΔMSE with the analytic one. The paper reports agreement within 0.158%.

# %%
# NBVAL_CHECK_OUTPUT
worst = 0.0
for family in ("mixture", "laplace"):
    for i, w in enumerate(workloads):
        check = acs.monte_carlo_delta_mse(family, w["d"], *main_target, releases=monte_carlo_releases, seed=seed + i)
        worst = max(worst, check["relative_difference"])
print(f"largest relative difference, empirical vs analytic dMSE: {worst:.3%} (paper: within 0.158%)")
_ = ledger.record("unifying.5.1.monte_carlo", source="Unifying paper §5.1 (Monte Carlo within 0.158%)",
                  quote="agree with the analytic $\\Delta\\mathrm{MSE}$ within $0.158\\%$",
                  paper="<0.158", ours=f"{100 * worst:.4f}", tolerance="bound")
