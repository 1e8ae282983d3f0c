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
# # The sieve
#
# At the paper's tolerance $\Delta = 10^{-35}$ the census pair $(13, 13)$ needs $N \approx 8\times10^5$
# quadrature nodes, and every node asks for the product of 160 characteristic functions at 35+ digits.
# Almost all of that work is wasted: the integrand $\varphi_S(\zeta) = \prod_g \varphi_{\sigma_g}(c_g\zeta)^{n_g}$
# is negligible except near the few $\zeta$ where *every* factor peaks. The sieve (sieve paper, §4 and
# Algorithm 1) finds those nodes without looking at the others.

# %% tags=["parameters"]
pair = (13, 13)
delta = 1e-35  # the paper's tolerance for the (ε, δ) curves
sample_pairs = 24  # pairs sampled for the node-count survey (946 for all of them)
seed = 2020

# %%
import random
import time

import matplotlib.pyplot as plt
import numpy as np

from accountlib import census, ledger, sieve
from accountlib.profiles import ShiftPair
from accountlib.tails import TailEngine

# %% [markdown]
# ## Periodic peaks
#
# $\varphi_\sigma$ is $2\pi$-periodic and peaks (at 1) on $2\pi\mathbb Z$, so the factor
# $\varphi_{\sigma_g}(c_g\zeta)^{n_g}$ peaks at $\zeta = 2\pi j/c_g$: $c_g$ narrow peaks per period, narrower the
# larger $\sigma_g^2 n_g$. The plot shows the rigorous bound on a factor that the sieve uses, for the two
# groups with the fewest peaks; the product of all twelve is large only where the peaks line up — near
# $\zeta = 0$ and, for some pairs, at "resonances" where every $c_g\zeta$ is close to $2\pi\mathbb Z$ at once.
# For pair (13, 13) the coefficients share no such resonance: only the central peak survives.

# %%
profile = ShiftPair(census.pair_rhos(*pair))
groups = profile.lattice.groups
zeta = np.linspace(0, np.pi, 200001)
fig, ax = plt.subplots(figsize=(8, 3.6))
for (sigma2, c), n in groups[:2]:
    ax.plot(zeta, sieve.log_factor_bound(sigma2, c, n, zeta) / np.log(10), lw=0.8,
            label=rf"$\sigma^2={float(sigma2):.1f},\ c={c},\ n={n}$")
total = sum(sieve.log_factor_bound(s2, c, n, zeta) for (s2, c), n in groups) / np.log(10)
ax.plot(zeta, total, "k", lw=1.2, label="product of all 12 bounds")
ax.axhline(np.log10(delta), color="gray", ls=":", label=r"$\Delta = 10^{-35}$")
ax.set_ylim(-120, 5)
ax.set_xlabel(r"$\zeta$")
ax.set_ylabel(r"$\log_{10}$ bound on $|\varphi|$")
ax.set_title(f"Rigorous bounds on the integrand's factors, pair {pair}")
ax.legend(fontsize=7, loc="lower right")
fig.tight_layout()

# %% [markdown]
# ## Which nodes survive
#
# A node is dropped when a rigorous bound on $|\varphi_S(\zeta_k)|$ is below $\tau = \Delta/(4(2U+1))$; all dropped
# nodes together then move the tail by at most $\Delta/4$ ([Derivations §5](../book/derivations.md)). Two stages, both by integer arithmetic
# on $k$, never a loop over all $N$ nodes:
#
# 1. **per factor** (the paper's Algorithm 1): factor $g$ keeps only the residues $c_g k \bmod N$ within
#    $w_g$ of $0$. Taking $N$ prime makes $c_g$ invertible mod $N$, so the narrowest factor's survivors are
#    listed directly as $k = m\,c_g^{-1} \bmod N$, $|m| \le w_g$, and the other factors only filter that list;
# 2. **on the product** (beyond the paper): a survivor of stage 1 is still dropped when the product of all the
#    factors' bounds is below $\tau$ — every factor may be "large enough" alone while the product is tiny.

# %%
# NBVAL_CHECK_OUTPUT
engine = TailEngine(profile.lattice, delta)
summary = engine.node_summary
print(f"pair {pair}, Delta = {delta:.0e}: U = {summary['U']:,}, N = {summary['N']:,}")
print(f"nodes in [0, pi]: {(summary['N'] + 1) // 2:,}")
print(f"  after the per-factor sieve (Algorithm 1): {summary['per_factor_nodes']}")
print(f"  after pruning on the product bound:       {summary['nodes']}")
print("radii r_g of the per-factor windows (radians):")
for ((sigma2, c), n), radius in engine.sieve.radii.items():
    print(f"  sigma^2 = {float(sigma2):8.2f}, c = {c:5d}, n = {n:3d}: r = {radius:.3e}")

# %%
# %% [markdown]
# The [benchmarks page](../book/benchmarks.md) counts nodes for the same pair with other numbers: it times the
# engine that a *relative* accuracy request builds, whose $\Delta$ is chosen from $\delta$ ([Derivations §6](../book/derivations.md))
# and whose deepest levels move to the tilted contour (below), so its $N$ and node counts differ from these, which are
# at the paper's fixed $\Delta = 10^{-35}$. The benchmarks page lists both.
#
# ### The paper's $|\mathcal C| = 203$, counted like for like
#
# The sieve paper reports $|\mathcal C| = 203$ for this pair (§4, Step 4). Our engine's numbers above are not the same
# count: they cover only the half circle $k \in [0, (N-1)/2]$, with our prime $N \ge 2U+2$, radii from a rigorous
# upper bound on $|\varphi|$ and the threshold $\Delta/(4(2U+1))$. The paper's $\mathcal C$ (its eq. (4.5)) is a set of
# $k \in [N] = \{1, \dots, N\}$ — the whole circle — with $N = 2(U+1) + dL\log(2dL)$ (§4, Step 3), kept when every
# factor is at least $\Delta/(8U)$. `sieve.algorithm1_count` counts exactly that, taking each group of identical
# mechanisms as one factor $\varphi^{n_g}$ with the exact characteristic function. (With one factor per mechanism, as
# the paper's prose reads, thousands of nodes survive — printed below — so the 203 cannot be that.)

# %%
# NBVAL_CHECK_OUTPUT
like_for_like = {d: sieve.algorithm1_count(profile.lattice, d) for d in (1e-35, 1e-25)}
for d, c in like_for_like.items():
    print(f"Delta = {d:.0e}: U = {c['U']:,}, N = {c['N']:,} (paper's formula); |C| over k = 1..N: {c['count']} "
          f"(half circle: {c['half_count']}); one factor per mechanism instead: {c['per_mechanism']:,}")

# %% [markdown]
# At the paper's $(\varepsilon,\delta)$ tolerance $\Delta = 10^{-35}$ the like-for-like count is 323, not 203; at
# $\Delta = 10^{-25}$, the tolerance the paper uses for its $f$-DP curves (§3.2), it is exactly 203. The sentence
# around the 203 speaks of Figure 4, the $(\varepsilon,\delta)$ curves, but the number matches the $f$-DP tolerance: we
# record the comparison at $10^{-35}$ with that explanation and its check. (The count moves by a few nodes when $\Delta$
# changes by a factor of two, so an exact match is informative but not proof.) The paper's other number here,
# $N = 10^6$ nodes without the sieve, is the order of the $N$ its own formula gives at $\Delta = 10^{-35}$.

# %%
quote_203 = "our method evaluates $F(\\zeta_{k})$ only for $k\\in\\mathcal{C}$, where $|\\mathcal{C}|=203$"
_ = ledger.record(
    "sieve.§4.nodes_13_13", source="Sieve paper §4, Step 4 (Algorithm 1), pair [M0, M0]", quote=quote_203,
    paper="203", ours=like_for_like[1e-35]["count"], tolerance="exact",
    explanation="Counted like for like (k = 1..N, the paper's N, windows at Δ/(8U), exact φ per group of identical "
    "mechanisms), the paper's 203 is the count at Δ = 1e-25, the tolerance of its f-DP curves (§3.2), not at the "
    "Δ = 1e-35 of its (ε, δ) curves.",
    check={"claim": "like-for-like |C| at Δ = 1e-25", "expected": "203", "ours": like_for_like[1e-25]["count"],
           "tolerance": "exact"})
_ = ledger.record(
    "sieve.§4.N_13_13", source="Sieve paper §4, Step 4 (nodes without Algorithm 1, allocation of Table 1)",
    quote="would require evaluating $F(\\zeta_{k})$ at all $k\\in[N]$ with $N=10^{6}$",
    paper="1e6", ours=like_for_like[1e-35]["N"], tolerance="printed")

# %% [markdown]
# The product test removes two thirds of our per-factor survivors. Where the survivors sit, and how large the
# integrand is there (certified values):

# %%
zetas, logs = engine.integrand_at_nodes()
fig, ax = plt.subplots(figsize=(8, 3.4))
ax.plot(zetas, logs, "o", ms=4)
ax.axhline(np.log10(engine.threshold), color="gray", ls=":", label=r"$\tau$")
ax.set_xlabel(r"$\zeta_k = 2\pi k/N$ of the surviving nodes")
ax.set_ylabel(r"$\log_{10}|\varphi_S(\zeta_k)|$")
ax.set_title(f"The integrand at the {zetas.size} nodes that survive, pair {pair}, Δ = {delta:.0e}")
ax.legend()
fig.tight_layout()

# %% [markdown]
# ## Across the census: node counts vary by orders of magnitude
#
# $L$ ranges from about $5\times10^4$ to $5\times10^6$ over the 946 pairs, and with it $N$ and the number of
# resonances. The survey below samples pairs (all 946 with `sample_pairs = 946`).

# %%
rng = random.Random(seed)
pairs = census.all_pairs()
chosen = sorted(set(rng.sample(pairs, min(sample_pairs, len(pairs))) + [pair]))
rows = []
for k, l in chosen:
    started = time.perf_counter()
    survey = TailEngine(ShiftPair(census.pair_rhos(k, l)).lattice, delta).node_summary
    rows.append((k, l, survey["N"], survey["per_factor_nodes"], survey["nodes"], time.perf_counter() - started))
per_factor = np.array([r[3] for r in rows])
product = np.array([r[4] for r in rows])
fig, ax = plt.subplots(figsize=(5.5, 4))
ax.loglog(per_factor, product, "o")
ax.set_xlabel("nodes after the per-factor sieve")
ax.set_ylabel("nodes after product pruning")
ax.set_title(f"{len(rows)} DHC pairs, Δ = 1e-35")
fig.tight_layout()

# %%
# NBVAL_CHECK_OUTPUT
print(f"pairs surveyed: {len(rows)}")
print(f"per-factor survivors: min {per_factor.min():,}, median {int(np.median(per_factor)):,}, max {per_factor.max():,}")
print(f"after product pruning: min {product.min():,}, median {int(np.median(product)):,}, max {product.max():,}")
print(f"reduction by the product test: median {np.median(per_factor / product):.0f}x, max {np.max(per_factor / product):.0f}x")

# %% [markdown]
# ## Deep tails: tilting the contour
#
# The sieve keeps every node where $|\varphi_S| > \tau$, and $\tau$ follows the *absolute* accuracy $\Delta$. A
# census $\delta$ of $10^{-60}$ asks for $\Delta \approx 10^{-67}$: hundreds of thousands of nodes at 230 bits for the
# heaviest pairs. Tilting the distribution by $e^{\theta s}$ with $\theta = \mathrm{lo}/V$ (the saddle point)
# rewrites the tail as
#
# $$P(S_L \ge \mathrm{lo}) = M(\theta)\,e^{-\theta\,\mathrm{lo}} \sum_{s\ge \mathrm{lo}} e^{-\theta(s-\mathrm{lo})}\,p_\theta(s),$$
#
# where $M(\theta) = E\,e^{\theta S_L}$ is known in closed form (each tilted discrete Gaussian is a *shifted*
# discrete Gaussian, whose dual form we have) and the sum $J$ is of order $1/(\lambda\sqrt{2\pi})$,
# $\lambda = \mathrm{lo}/\sqrt V$, however small the tail. Relative accuracy $10^{-9}$ on the tail is then absolute
# accuracy $\sim 10^{-11}$ on $J$: float64 with a rigorous rounding bound, and a sieve threshold some twenty orders of
# magnitude higher (`accountlib.tilted`). The same trapezoidal rule, on another contour.

# %%
# NBVAL_CHECK_OUTPUT
from accountlib.tilted import TiltedTailEngine

lattice = ShiftPair(census.pair_rhos(*pair)).lattice
spread = float(lattice.variance_proxy) ** 0.5
indices = [int(x * spread) for x in (3, 6, 9, 12)]
reference = TailEngine(lattice, 1e-60)  # untilted, absolute accuracy 1e-60
tilted_engine = TiltedTailEngine(lattice, smallest_index=indices[0], j_tol=1e-12)
print(f"pair {pair}: untilted engine at Δ = 1e-60 keeps {reference.node_summary['nodes']:,} nodes "
      f"({reference.bits} bits); the tilted engine keeps {tilted_engine.nodes.size:,} (float64)")
print(f"{'lo/sqrt(V)':>10} {'P(S_L >= lo), tilted':>22} {'relative bound < 1e-8':>22} {'agrees with untilted':>21}")
for lo, a, b in zip(indices, reference.tail_indices(indices), tilted_engine.tail_indices(indices)):
    print(f"{lo / spread:>10.1f} {float(b.value):>22.10e} {str(b.error_bound < 1e-8 * float(b.value)):>22} "
          f"{str(abs(a.value - b.value) <= a.error_bound + b.error_bound):>21}")

# %% [markdown]
# For this light pair the saving is modest. For the heaviest pairs, whose integrand stays large on $10^5$ nodes, it is
# what brings the full 946-pair sweep from 13 minutes to about 3 (see the Benchmarks page): untilted, their deepest
# $(\varepsilon, \delta)$ levels needed up to 825,362 nodes in arb at up to 230 bits; on the tilted contour they need at
# most about 60,000 nodes in float64.

# %% [markdown]
# ## What cannot be reproduced here
#
# The sieve paper measures its speed against the prior state of the art — about 1,000 CPU-hours per allocation pair,
# against 0.5 for its own method, "a 1,824-fold speedup". Those are timings of the authors' codes on the authors' machines;
# neither the prior code nor their infrastructure is available to this book, so the ledger records them as not
# reproducible here. What we can measure — our engine against our re-implementation of the paper's method, on one
# machine — is on the [benchmarks page](../book/benchmarks.md).

# %%
_ = ledger.not_reproducible(
    "sieve.abstract.speedup_1824", source="Sieve paper, Abstract", paper="1824",
    quote="achieving a 1,824-fold speedup over prior methods while maintaining census-mandated error tolerances",
    reason="a ratio of two timings on the authors' CPU infrastructure, one of them of the prior method's code, which is "
    "not available here; the benchmarks page times our engine against our re-implementation of the paper's method instead")
_ = ledger.not_reproducible(
    "sieve.§1.1.prior_cpu_hours_1000", source="Sieve paper §1.1 (Contributions)", paper="1000",
    quote="compared to the roughly 1,000 CPU hours required by the prior state-of-the-art",
    reason="a timing of the prior method's code (Su, Su and Wang, 2025) on the authors' machines; neither is available here")
_ = ledger.not_reproducible(
    "sieve.§1.1.cpu_hours_0.5", source="Sieve paper §1.1 (Contributions)", paper="0.5",
    quote="our proposed method requires only 0.5 CPU hours to evaluate a single privacy budget allocation",
    reason="a timing of the authors' code on their machines; the benchmarks page extrapolates our re-implementation of "
    "their method on this book's machine, which is a different measurement")
