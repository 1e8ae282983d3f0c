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
# (chapter-primer)=
# # A primer: the privacy notions of this book, and the census
#
# ```{admonition} What you will learn
# :class: tip
#
# - what $(\varepsilon, \delta)$-differential privacy promises, and why a {term}`mechanism` has *two* one-sided
#   {term}`privacy profiles <privacy profile>` rather than one;
# - how the same promise reads as a statistical test: {term}`trade-off functions <trade-off function>`, {term}`f-DP` and {term}`μ-GDP`;
# - the {term}`privacy-loss distribution`, Rényi differential privacy and $\rho$-{term}`zCDP`, and how they relate;
# - what the 2020 Census releases, what a {term}`privacy-loss budget` *{term}`allocation`* is, and why the privacy of one
#   person's record involves a *pair* of allocations.
# ```
#
# ```{admonition} What you need
# :class: note
#
# From {doc}`01_foundations`: mechanisms, neighbouring data sets and sensitivity
# ({prf:ref}`def-found-neighbours`, {prf:ref}`def-found-sensitivity`), the Laplace and Gaussian mechanisms,
# post-processing and composition. Undergraduate probability (distributions, expectations, the normal
# distribution) and a little statistics (a hypothesis test, its type I and type II errors). To run the code, see [Running the book yourself](../book/running.md); the
# [glossary](../book/glossary.md) and the [notation table](../book/notation.md) collect every term and
# symbol used in the book.
# ```
#
# The {doc}`foundations chapter <01_foundations>` built the basic toolkit: the Laplace and Gaussian
# mechanisms, sensitivity, composition and post-processing, with $(\varepsilon, \delta)$ as a pair of numbers.
# This chapter turns the pair into curves and distributions. Every later chapter uses the words defined here,
# and every definition below appears once, numbered, so that later chapters can point back to it. Each definition is followed by a small example that
# `accountlib`, the library behind this book, computes; the notebook only narrates and draws.

# %% tags=["parameters", "hide-cell"]
sigma = 1.0  # noise scale of the one-mechanism examples (discrete vs continuous Gaussian)
sigma_rdp = 0.6  # noise scale of the Rényi example (small, so that the discrete effects are visible)
allocation = 13  # the census allocation drawn in the allocation figure below (13 is the sieve paper's Table 1, "M0")
epsilon_grid = 40  # number of ε values on the privacy-profile plots
pld_ratios = [1, 2, 3]  # the ratios e^ε at which the exercise on the privacy-loss distribution compares (fractions as "3/2")

# %% tags=["hide-cell"]
import math
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np

from accountlib.applications import census
from accountlib.theory import conversions, edgeworth, pairs, profiles, rdp

# %% [markdown]
# ## Differential privacy as a bound on two distributions
#
# A *mechanism* $M$ takes a data set $D$ and returns a random output, for instance a count with noise
# added. Two data sets are *neighbours* when they differ in one person's record; in the census, one
# record is *replaced* by another (the foundations chapter compares this with adding or removing a record,
# {prf:ref}`def-found-neighbours`). Differential privacy {cite}`dwork2006calibrating,dwork2006our`
# asks that the output distributions on {term}`neighbouring data sets` be close, so that nothing an observer
# sees depends much on any one person. Write $P$ for the law of $M(D)$ and $Q$ for the law of $M(D')$.
# All privacy accounting in this book is about such a fixed, ordered pair $(P, Q)$.
#
# ```{prf:definition} $(\varepsilon, \delta)$-differential privacy
# :label: def-approx-dp
#
# Let $\varepsilon \ge 0$ and $\delta \in [0, 1]$. A mechanism $M$ is $(\varepsilon, \delta)$-differentially
# private if for all neighbouring $D, D'$ and every set $S$ of outputs
#
# $$\Pr[M(D) \in S] \;\le\; e^{\varepsilon}\,\Pr[M(D') \in S] + \delta .$$
# ```
#
# The smaller $\varepsilon$ and $\delta$, the stronger the promise. For a fixed pair $(P, Q)$ the best
# $\delta$ that goes with a given $\varepsilon$ is a function of $\varepsilon$, and it is this whole
# function, not a single point on it, that exact accounting computes.
#
# ```{prf:definition} One-sided privacy profiles
# :label: def-privacy-profile
#
# For an ordered pair $(P, Q)$ the *privacy profile* from $P$ to $Q$ is
#
# $$\delta_{P\Vert Q}(\varepsilon) \;=\; \sup_S \bigl(P(S) - e^{\varepsilon} Q(S)\bigr)
#   \;=\; \sum_x \bigl(p(x) - e^{\varepsilon} q(x)\bigr)_+ ,$$
#
# the sum for distributions with masses $p$ and $q$. Exchanging the roles gives the other one-sided
# profile $\delta_{Q\Vert P}$. The mechanism is {term}`(ε, δ)-DP` on this pair exactly when
# $\max\bigl(\delta_{P\Vert Q}(\varepsilon), \delta_{Q\Vert P}(\varepsilon)\bigr) \le \delta$.
# ```
#
# The simplest private mechanism is *{term}`randomised response`*: a person answers a yes/no question truthfully
# with probability $3/4$ and lies otherwise. Neighbouring data sets are "the true answer is yes" ($P$)
# and "the true answer is no" ($Q$). Its profile is $\delta(0) = 1/2$ and $\delta(\varepsilon) = 0$ from
# $\varepsilon = \log 3$ on: randomised response is $(\log 3, 0)$-DP, "pure" differential privacy.

# %%
response = pairs.LatticePair({"yes": Fraction(3, 4), "no": Fraction(1, 4)},
                             {"yes": Fraction(1, 4), "no": Fraction(3, 4)})
print("δ(0)      =", response.delta_at_ratio(1))
print("δ(log 3)  =", response.delta_at_ratio(3))
print("δ(log 2)  =", response.delta_at_ratio(2))

# %% [markdown]
# The two one-sided profiles of randomised response coincide because the mechanism is symmetric. In
# general they do not. Take a mechanism with three outcomes whose laws on two neighbouring data sets are
# $P = (3/5, 3/10, 1/10)$ and $Q = (1/5, 3/10, 1/2)$: outcome 0 is three times likelier under $P$,
# outcome 2 five times likelier under $Q$. {numref}`fig-primer-profiles` shows the two profiles, computed
# exactly by `accountlib.theory.pairs.LatticePair`: they differ, and their maximum (what $(\varepsilon,
# \delta)$-DP alone retains) no longer tells us which direction is the weaker one. The unifying paper
# {cite}`su2026unifying` shows that keeping *both* one-sided curves loses nothing, while keeping only
# their maximum can lose information.

# %% mystnb={"figure": {"caption": "The two one-sided privacy profiles of the three-outcome pair (Definition: one-sided privacy profiles). The pair is not symmetric, so the profile from P to Q (reaching 0 at \u03b5 = log 3) differs from the one from Q to P (reaching 0 at \u03b5 = log 5).", "name": "fig-primer-profiles"}} tags=["hide-input"]
three = pairs.LatticePair({0: Fraction(3, 5), 1: Fraction(3, 10), 2: Fraction(1, 10)},
                          {0: Fraction(1, 5), 1: Fraction(3, 10), 2: Fraction(1, 2)})
eps = np.linspace(0, 2, 201)
fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.plot(eps, [three.delta(e) for e in eps], label=r"$\delta_{P\|Q}(\varepsilon)$")
ax.plot(eps, [three.reverse().delta(e) for e in eps], "--", label=r"$\delta_{Q\|P}(\varepsilon)$")
ax.plot(eps, [response.delta(e) for e in eps], ":", color="grey", label="randomised response (both)")
ax.set_title("Two one-sided privacy profiles of one pair")
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel(r"$\delta(\varepsilon)$")
ax.legend()
plt.show()

# %% [markdown]
# ## Privacy as a hypothesis test
#
# Imagine an adversary who sees the output and must decide between $H_0$: "the data set is $D$" (the
# output follows $P$) and $H_1$: "the data set is $D'$" (it follows $Q$). Any test has a type I error
# $\alpha$ (rejecting $H_0$ when it is true) and a type II error $\beta$ (keeping it when it is false).
# Privacy means that no test can make both small. This view, due to
# {cite}`dong2022gaussian` and surveyed in {cite}`su2025statistical`, gives the most complete description
# of a pair, and the one the sieve paper {cite}`su2026sieve` computes for the census.
#
# ```{prf:definition} Trade-off function and $f$-DP
# :label: def-tradeoff
#
# The *trade-off function* of $(P, Q)$ is
#
# $$T(P, Q)(\alpha) \;=\; \inf\{\beta_\phi : \alpha_\phi \le \alpha\},$$
#
# the smallest type II error $\beta_\phi = 1 - \mathbb{E}_Q\phi$ of a (possibly randomised) test $\phi$ with
# type I error $\alpha_\phi = \mathbb{E}_P\phi \le \alpha$. A mechanism is *$f$-DP* if
# $T(M(D), M(D')) \ge f$ for all neighbours. Perfect privacy is $f(\alpha) = 1 - \alpha$: the adversary
# does no better than a coin.
# ```
#
# The Neyman–Pearson lemma says that the best tests reject $H_0$ on the outputs where $q/p$ is largest,
# so for finitely many outcomes $T(P, Q)$ is the piecewise-linear curve through the points obtained by
# rejecting outcomes one group at a time. A trade-off function and the profiles carry the same
# information, through convex duality {cite}`dong2022gaussian`:
#
# ```{prf:proposition} Profiles and trade-off functions
# :label: prop-primer-duality
#
# For every $\varepsilon \ge 0$, $\delta_{Q\Vert P}(\varepsilon) = \max_{\alpha \in [0,1]}
# \bigl(1 - T(P,Q)(\alpha) - e^{\varepsilon}\alpha\bigr)$ (a test's $\alpha$ is measured under $P$, its
# power $1 - \beta$ under $Q$), and conversely
#
# $$T(P,Q)(\alpha) = \sup_{\varepsilon \ge 0} \max\Bigl(0,\; 1 - \delta_{Q\Vert P}(\varepsilon) - e^{\varepsilon}\alpha,\;
#   e^{-\varepsilon}\bigl(1 - \delta_{P\Vert Q}(\varepsilon) - \alpha\bigr)\Bigr).$$
#
# So the pair of one-sided profiles and the trade-off function determine each other.
# ```
#
# The most important trade-off functions are those of two Gaussians with the same variance. Adding
# $N(0, \sigma^2)$ noise to a count that changes by 1 between neighbours gives the pair $N(0, \sigma^2)$
# against $N(1, \sigma^2)$, whose trade-off function depends only on $\mu = 1/\sigma$.
#
# ```{prf:definition} $\mu$-Gaussian differential privacy ($\mu$-GDP)
# :label: def-gdp
#
# Let $\Phi$ be the standard normal distribution function and
# $G_\mu(\alpha) = \Phi\bigl(\Phi^{-1}(1 - \alpha) - \mu\bigr) = T\bigl(N(0,1), N(\mu,1)\bigr)(\alpha)$.
# A mechanism is *$\mu$-GDP* if it is $G_\mu$-DP. Its privacy profile is
#
# $$\delta_\mu(\varepsilon) = \Phi\Bigl(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Bigr)
#   - e^{\varepsilon}\,\Phi\Bigl(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Bigr),$$
#
# and composing mechanisms that are $\mu_1$-, …, $\mu_k$-GDP gives $\sqrt{\mu_1^2 + \dots + \mu_k^2}$-GDP.
# ```
#
# The census does not add continuous Gaussian noise: counts must stay integers, so it adds the
# *{term}`discrete Gaussian`* $N_{\mathbb Z}(0, \sigma^2)$ of {cite}`canonne2020discrete`, whose mass at the integer
# $x$ is proportional to $e^{-x^2/2\sigma^2}$. {numref}`fig-primer-tradeoff` compares the exact trade-off
# function of $N_{\mathbb Z}(0, \sigma^2)$ against $N_{\mathbb Z}(1, \sigma^2)$, computed by
# `accountlib.theory.profiles.ShiftPair` with a {term}`certified error bound`, with $G_\mu$ for $\mu = 1/\sigma$, which
# `accountlib` obtains from the Gaussian profile through {prf:ref}`prop-primer-duality`. The two curves
# are close but not equal: the discrete Gaussian is *not* $\mu$-GDP with the same $\mu$, and the rest of
# the book is about computing its curve exactly.

# %%
alphas = np.linspace(0.002, 0.998, 60)
one_mechanism = profiles.ShiftPair([Fraction(1) / Fraction(sigma) ** 2])  # N_Z(0, σ²) against N_Z(1, σ²)
discrete_tradeoff = one_mechanism.tradeoff(list(alphas))
worst_bound = max(float(point.error_bound) for point in discrete_tradeoff)
mu = 1 / sigma
gdp_epsilons = np.linspace(0, 12, 1201)
gdp_profile = [edgeworth.gdp_delta(e, mu) for e in gdp_epsilons]
gaussian_tradeoff = conversions.profile_to_tradeoff(gdp_epsilons, gdp_profile, alphas)
print(f"σ = {sigma}: largest certified error bound on the discrete trade-off curve {worst_bound:.1e}")

# %% tags=["remove-cell"]
from myst_nb import glue

glue("tradeoff_gap_to_gdp", max(abs(float(p.beta) - g) for p, g in zip(discrete_tradeoff, gaussian_tradeoff)),
     display=False)
glue("tradeoff_error_bound", worst_bound, display=False)

# %% mystnb={"figure": {"caption": "Trade-off functions (Definition: trade-off function and f-DP). Solid: the exact curve of the discrete Gaussian pair N_Z(0, \u03c3\u00b2) against N_Z(1, \u03c3\u00b2); dashed: \u03bc-GDP with \u03bc = 1/\u03c3; dotted: the three-outcome pair above, a piecewise-linear curve. The diagonal 1 \u2212 \u03b1 is perfect privacy.", "name": "fig-primer-tradeoff"}} tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.2, 5.0))
ax.plot(alphas, [float(p.beta) for p in discrete_tradeoff], label=rf"discrete Gaussian, $\sigma = {sigma:g}$")
ax.plot(alphas, gaussian_tradeoff, "--", label=rf"$G_\mu$, $\mu = {mu:g}$")
vertices = three.tradeoff_vertices()
ax.plot([float(a) for a, _ in vertices], [float(b) for _, b in vertices], ":o", markersize=3,
        label=r"$T(P, Q)$, three-outcome pair")
ax.plot([0, 1], [1, 0], color="lightgrey", lw=0.8, label=r"$1 - \alpha$")
ax.set_title("Trade-off functions")
ax.set_xlabel(r"type I error $\alpha$")
ax.set_ylabel(r"type II error $\beta$")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## The privacy-loss distribution
#
# Both descriptions so far are built from one random quantity, the log-likelihood ratio of the output.
#
# ```{prf:definition} Privacy loss and privacy-loss distribution (PLD)
# :label: def-pld
#
# The *privacy loss* of an output $y$ is $L(y) = \log\bigl(p(y)/q(y)\bigr)$, with $L = +\infty$ where
# $q(y) = 0 < p(y)$. The *privacy-loss distribution* of $(P, Q)$ is the law of $L(Y)$ when $Y \sim P$;
# the *extended* {term}`PLD` keeps the mass at $+\infty$.
# ```
#
# For two Gaussians the privacy loss is itself Gaussian, $N(\mu^2/2, \mu^2)$; for a finite pair it has
# finitely many atoms. {term}`Composition` of independent mechanisms adds their privacy losses, so PLDs
# *convolve* — which is why numerical accountants {cite}`koskela2020computing,gopi2021numerical` and the
# characteristic-function method of {cite}`zhu2022optimal` work with them, and why the census problem
# becomes the tail of a sum of many independent terms. The profile is an expectation over the PLD:
# $\delta_{P\Vert Q}(\varepsilon) = \mathbb{E}_P\bigl[(1 - e^{\varepsilon - L})_+\bigr]$.
# {numref}`fig-primer-pld` shows the PLD of the three-outcome pair in both directions.

# %% mystnb={"figure": {"caption": "The privacy-loss distribution (Definition: privacy loss and PLD) of the three-outcome pair: atoms at log(p/q) with their probability under the first distribution, for the pair (P, Q) and for the reversed pair (Q, P).", "name": "fig-primer-pld"}} tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 3.4))
for shift, (name, pair) in zip((-0.03, 0.03), (("(P, Q)", three), ("(Q, P)", three.reverse()))):
    atoms = pair.pld()
    ax.stem([math.log(r) + shift for r, _ in atoms], [float(m) for _, m in atoms],
            linefmt="C0-" if shift < 0 else "C1--", markerfmt="C0o" if shift < 0 else "C1s",
            basefmt=" ", label=f"PLD of {name}")
ax.set_title("Privacy-loss distributions of the three-outcome pair")
ax.set_xlabel(r"privacy loss $L = \log(p/q)$")
ax.set_ylabel("probability")
ax.legend()
plt.show()

# %% [markdown]
# ## Rényi differential privacy and zCDP
#
# The last two notions summarise the PLD by its exponential moments. They are the ones the Census
# Bureau and most {term}`DP-SGD` libraries use, because they compose by simple addition.
#
# ```{prf:definition} Rényi divergence and Rényi differential privacy (RDP)
# :label: def-rdp
#
# For an order $a > 1$ the *Rényi divergence* is
# $D_a(P\Vert Q) = \frac{1}{a-1}\log \mathbb{E}_Q\bigl[(p/q)^a\bigr]$. A mechanism is $(a, \tau)$-{term}`RDP`
# {cite}`mironov2017renyi` if $D_a(M(D)\Vert M(D')) \le \tau$ for all neighbours; its *RDP curve* is
# $a \mapsto D_a$. This book writes it through the privacy-loss {term}`cumulant` generating function
# $K(t) = \log \mathbb{E}_P\bigl[e^{tL}\bigr] = t\,D_{t+1}(P\Vert Q)$, $t > 0$.
# ```
#
# ```{prf:definition} $\rho$-zero-concentrated differential privacy ($\rho$-zCDP)
# :label: def-zcdp
#
# A mechanism is *$\rho$-zCDP* {cite}`bun2016concentrated` if $D_a(M(D)\Vert M(D')) \le \rho\,a$ for every
# order $a > 1$ and all neighbours; equivalently $K(t) \le \rho\,t(t+1)$ for all $t > 0$. The smallest
# such $\rho$ is $\rho = \sup_{t > 0} K(t)/(t(t+1))$, and the *zCDP–RDP gap* is
# $\Gamma(t) = \rho\,t(t+1) - K(t) \ge 0$ {cite}`su2026unifying`.
# ```
#
# zCDP keeps one number from a whole curve. For Gaussian noise nothing is lost: $K(t) =
# t(t+1)/(2\sigma^2)$ exactly, $\rho = 1/(2\sigma^2)$ and $\Gamma \equiv 0$. For the discrete Gaussian the
# same $\rho$ is attained, but $K$ dips below the zCDP line between integer orders, and the gap is
# periodic in $t$. {numref}`fig-primer-rdp` shows both, computed by `accountlib.theory.rdp`.

# %%
gaussian, discrete = rdp.Gaussian(sigma=sigma_rdp), rdp.DiscreteGaussian(sigma=sigma_rdp)
orders_t = np.linspace(0.02, 3, 150)
rho_gaussian, rho_discrete = gaussian.rho(1), discrete.rho(1)
gap_discrete = [discrete.gap(t, 1) for t in orders_t]
print(f"σ = {sigma_rdp}: ρ (Gaussian) = {rho_gaussian:.6f}, ρ (discrete Gaussian) = {rho_discrete:.6f}")
print(f"largest gap Γ(t) of the discrete Gaussian on (0, 3]: {max(gap_discrete):.3e}")

# %% tags=["remove-cell"]
glue("rho_gaussian", float(rho_gaussian), display=False)
glue("rho_discrete", float(rho_discrete), display=False)
glue("largest_gap", float(max(gap_discrete)), display=False)

# %% mystnb={"figure": {"caption": "R\u00e9nyi and zCDP (Definitions: RDP and \u03c1-zCDP) at shift 1, for the Gaussian and the discrete Gaussian of the same \u03c3. Left: K(t)/(t(t+1)), whose supremum over t is \u03c1 (the R\u00e9nyi divergence is $D_{t+1} = K(t)/t$): constant at \u03c1 for the Gaussian; the discrete Gaussian reaches the same \u03c1 at integer t and dips below it in between (the vertical axis spans a few thousandths). Right: the zCDP\u2013RDP gap \u0393(t) of the discrete Gaussian; it vanishes at integer t and is zero throughout for the Gaussian.", "name": "fig-primer-rdp"}} tags=["hide-input"]
fig, (left, right) = plt.subplots(1, 2, figsize=(9.6, 3.6))
left.plot(orders_t, [gaussian.cgf(t, 1) / (t * (t + 1)) for t in orders_t], label=r"Gaussian: $\rho$ at every $t$")
left.plot(orders_t, [discrete.cgf(t, 1) / (t * (t + 1)) for t in orders_t], "--", label="discrete Gaussian")
left.set_title(rf"$K(t)/(t(t+1))$, whose supremum is $\rho$; $\sigma = {sigma_rdp:g}$")
left.set_xlabel(r"$t$")
left.set_ylabel(r"$K(t)/(t(t+1))$")
left.legend(loc="lower right")
right.plot(orders_t, gap_discrete, color="C1")
right.set_title(r"zCDP–RDP gap $\Gamma(t)$ of the discrete Gaussian")
right.set_xlabel(r"$t$")
right.set_ylabel(r"$\Gamma(t)$")
fig.tight_layout()
plt.show()

# %% [markdown]
# To report a zCDP guarantee in the language of {prf:ref}`def-approx-dp`, one converts it. The
# conversion the Census Bureau used for the 2020 DHC File (the census chapters' release) is
#
# ```{prf:proposition} From $\rho$-zCDP to $(\varepsilon, \delta)$-DP
# :label: prop-primer-zcdp-to-dp
#
# A $\rho$-zCDP mechanism is $(\varepsilon, \delta)$-DP for every $\delta \in (0, 1)$ with
# $\varepsilon_{\mathrm{zCDP}}(\delta) = \rho + 2\sqrt{\rho \log(1/\delta)}$
# {cite}`bun2016concentrated`.
# ```
#
# It is an upper bound, and not the best one: converting through the Rényi curve gives a smaller
# $\varepsilon$ — the Bureau's redistricting data (P.L. 94-171) were converted that way, by Canonne, Kamath and
# Steinke's tighter bound ({doc}`09_redistricting`) — and the exact profile of the actual noise a smaller one still.
# The census chapters measure how much smaller.

# %%
delta_report = 1e-10
rho_census = float(census.TOTAL_RHO)
print(f"ρ = {rho_census}: ε_zCDP(1e-10) = {conversions.zcdp_epsilon(census.TOTAL_RHO, delta_report):.4f} (the DHC's conversion)")
print(f"                 ε via the Rényi conversion = {conversions.zcdp_epsilon_via_rdp(rho_census, delta_report):.4f}")

# %% [markdown]
# ## How the notions fit together
#
# For one ordered pair $(P, Q)$, the two one-sided profiles, the two trade-off functions and the extended
# PLD determine one another, and so does the full Rényi curve when it is finite at some order above one
# {cite}`su2026unifying`. These are *{term}`information-equivalent`*: choosing among them changes how a guarantee
# reads and how it is computed, not what it says. Two operations lose information: keeping only the
# maximum of the two profiles, and compressing the Rényi curve into the single number $\rho$. The chapter
# on information equivalence proves the first statement on examples; the chapter on what zCDP forgets
# measures the second.
#
# ## The 2020 Census in one page
#
# The Census Bureau protects the 2020 Demographic and Housing Characteristics ({term}`DHC`) File
# {cite}`uscensus2020dhc` with the *{term}`TopDown`* algorithm of its Disclosure Avoidance System
# {cite}`abowd2022topdown`. The data are counts: for each geographic unit, ten *{term}`marginal queries <marginal query>`* (age, sex,
# race, Hispanic or Latino origin, household type, and so on) tabulate how many people fall in each
# category. The geographic units are nested in eight *{term}`geographic levels <geographic level>`*, from the whole nation down to
# the census block: US, State, County, PRIM, Tract Subset Group, Tract Subset, Block Group and Block
# {cite}`cumingsmenon2024spines`. PRIM is the level of the Bureau's *primitive* units: the pieces into which places
# and county subdivisions cut a county; the tract subsets and their groups regroup census tracts within them. TopDown adds independent discrete Gaussian noise to every count at every
# level and then post-processes the noisy counts (makes them consistent and non-negative), which costs no
# privacy.
#
# How much noise each count gets is set by a *privacy-loss budget*. A block determines one unit at each
# of the eight levels — its *{term}`geographic path`* — and the Bureau assigns a zCDP budget $\rho$ to each of the
# $10 \times 8$ (query, level) cells along the path {cite}`uscensus2022allocation`.
#
# ```{prf:definition} Allocation
# :label: def-allocation
#
# An *allocation* is a $10 \times 8$ table of non-negative rationals $\rho_{q,g}$ (marginal query $q$,
# geographic level $g$), zero where a path does not use a level. The count of query $q$ at level $g$
# receives discrete Gaussian noise $N_{\mathbb Z}(0, \sigma_{q,g}^2)$ with $\sigma_{q,g}^2 = 1/\rho_{q,g}$.
# Every allocation of the DHC File sums to $\sum_{q,g}\rho_{q,g} = 4.9622$.
# ```
#
# Paths through different parts of the country use different tables: there are 43 distinct allocations,
# shipped with `accountlib` and read by `accountlib.applications.census.load_allocation`. Allocation 13 is the table the
# sieve paper prints as its Table 1, called $M_0$ in this book. {numref}`fig-primer-allocation` draws
# it, with how many cells each of the 43 allocations uses.

# %%
shipped = ["Block", "Block Group", "County", "PRIM", "State", "Tract Subset", "Tract Subset Group", "US"]  # file order
levels = ["US", "State", "County", "PRIM", "Tract Subset Group", "Tract Subset", "Block Group", "Block"]  # top down
table = np.array([float(r) for r in census.load_allocation(allocation)]).reshape(10, 8)[:, [shipped.index(g) for g in levels]]
used = [sum(1 for r in census.load_allocation(k) if r) for k in census.ALLOCATIONS]
totals = {sum(census.load_allocation(k)) for k in census.ALLOCATIONS}
print(f"{len(census.ALLOCATIONS)} allocations; every one sums to {sorted(totals)} (= {float(census.TOTAL_RHO)})")
print(f"allocation {allocation}: {int((table > 0).sum())} cells used, largest budget {table.max():.4f}, "
      f"smallest nonzero {table[table > 0].min():.4f}")

# %% mystnb={"figure": {"caption": "Left: allocation 13 (M0, the sieve paper's Table 1), the budget \u03c1 of each marginal query (rows) at each geographic level (columns, from the nation down to the block; PRIM is the level of the primitive units that places and county subdivisions cut a county into). Right: how many of the 80 cells each of the 43 allocations uses (the others are 0: levels a path does not use).", "name": "fig-primer-allocation"}} tags=["hide-input"]
fig, (left, right) = plt.subplots(1, 2, figsize=(10.5, 4.0), gridspec_kw={"width_ratios": [1.4, 1]})
image = left.imshow(np.log10(np.where(table > 0, table, np.nan)), cmap="viridis", aspect="auto")
left.set_xticks(range(8), levels, rotation=45, ha="right", fontsize=8)
left.set_yticks(range(10), [f"query {q}" for q in range(1, 11)], fontsize=8)
left.set_title(f"Allocation {allocation}: " + r"$\log_{10}\rho_{q,g}$")
left.set_xlabel("geographic level")
left.set_ylabel("marginal query")
fig.colorbar(image, ax=left, shrink=0.8)
right.bar(list(census.ALLOCATIONS), used, color="C2")
right.set_title("Cells used by each allocation")
right.set_xlabel("allocation k")
right.set_ylabel("nonzero budgets")
fig.tight_layout()
plt.show()

# %% [markdown]
# ### Why a record involves a pair of allocations
#
# Neighbouring data sets in the census differ by *replacing* one person's record with another's. Each
# query is coarsened into categories (for instance "18 and older" and "17 and younger"), so removing the
# old record lowers one count by 1 and adding the new one raises one count by 1. The old record lies on
# the geographic path of its block, with allocation $k$; the new record lies on the path of its own
# block, with allocation $l$, possibly the same. Every count that changes changes by exactly 1, and the
# counts that change are those along both paths. So the privacy of one record is that of the
# *composition* of all the discrete Gaussian mechanisms of allocation $k$ together with all those of
# allocation $l$:
#
# $$P = \bigotimes_{i=1}^{m} N_{\mathbb Z}(0, 1/\rho_i), \qquad Q = \bigotimes_{i=1}^{m} N_{\mathbb Z}(1, 1/\rho_i),
#   \qquad m = n_k + n_l ,$$
#
# where $\rho_1, \dots, \rho_m$ are the nonzero budgets of $k$ followed by those of $l$. There are
# $43 \cdot 42 / 2 + 43 = 946$ pairs $(k, l)$ with $k \le l$, and the census-wide guarantee is the worst
# over all of them {cite}`su2026sieve`. Since each allocation sums to 4.9622 and a discrete Gaussian with
# budget $\rho_i$ and shift 1 is $\rho_i/2$-zCDP, every pair is $\rho$-zCDP with
# $\rho = (\sum_i \rho_i)/2 = 4.9622$ — the Bureau's published budget.

# %%
m_pair = len(census.pair_rhos(allocation, allocation))
pair_rho = sum(census.pair_rhos(allocation, allocation)) / 2
print(f"pair ({allocation}, {allocation}): m = {m_pair} mechanisms, ρ = Σρ_i / 2 = {pair_rho} = {float(pair_rho)}")
print(f"number of pairs k ≤ l: {len(census.all_pairs())}")

# %% [markdown]
# Computing the exact trade-off function and profile of each of these 946 pairs means computing tail
# probabilities of a weighted sum of up to 160 independent discrete Gaussians, to about 35 correct
# digits. That is what the chapters on the discrete Gaussian, {term}`Fourier inversion`, the {term}`trapezoidal rule` and
# the {term}`sieve` build up to, and what the census chapter then reports.
#
# ## Summary
#
# - A mechanism acting on two neighbouring data sets gives an ordered pair of output distributions
#   $(P, Q)$; every notion of this book describes that pair.
# - $(\varepsilon, \delta)$-DP ({prf:ref}`def-approx-dp`) bounds the two one-sided privacy profiles
#   ({prf:ref}`def-privacy-profile`); keeping both loses nothing, keeping their maximum can.
# - The trade-off function ({prf:ref}`def-tradeoff`) reads privacy as the errors of the best test; it is
#   dual to the profiles. $\mu$-GDP ({prf:ref}`def-gdp`) is the Gaussian case, and the discrete Gaussian
#   is close to it but not equal.
# - The PLD ({prf:ref}`def-pld`) is the law of the log-likelihood ratio; it convolves under composition.
# - RDP ({prf:ref}`def-rdp`) records the PLD's exponential moments; $\rho$-zCDP ({prf:ref}`def-zcdp`) keeps
#   one number and loses the gap $\Gamma$, which is zero only for Gaussian noise.
# - The census adds discrete Gaussian noise to 10 queries × 8 geographic levels with budgets given by one
#   of 43 allocations ({prf:ref}`def-allocation`); replacing one record changes counts along two paths, so
#   its privacy is that of a *pair* of allocations, and there are 946 pairs.
#
# The next chapter starts from the discrete Gaussian itself. Works cited here are listed in the
# [bibliography](../book/bibliography.md); the exercises follow.
#
# ## Exercises
#
# ```{exercise} Randomised response (★, derive)
# :label: ex-primer-response
#
# A person answers truthfully with probability $p > 1/2$. Show that randomised response is
# $(\varepsilon, 0)$-DP exactly for $\varepsilon \ge \log\bigl(p/(1-p)\bigr)$. Check it with
# `accountlib.theory.pairs.LatticePair` for $p = 9/10$: $\delta$ vanishes at the ratio $e^\varepsilon = 9$ and
# is positive just below it.
# ```
#
# ```{solution-start} ex-primer-response
# :class: dropdown
# ```
#
# The largest likelihood ratio is $p/(1-p)$ (the output equals the true answer). For
# $e^{\varepsilon} \ge p/(1-p)$ every term $(p(x) - e^{\varepsilon} q(x))_+$ vanishes; just below, the term
# of that output is positive. In exact arithmetic:

# %%
p = Fraction(9, 10)
truthful = pairs.LatticePair({"yes": p, "no": 1 - p}, {"yes": 1 - p, "no": p})
ratio = p / (1 - p)
assert ratio == 9
assert truthful.delta_at_ratio(ratio) == 0
assert truthful.delta_at_ratio(ratio - Fraction(1, 1000)) > 0
print("ε* = log", ratio, "=", math.log(ratio))

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The privacy-loss distribution determines the profile (★, code)
# :label: ex-primer-pld
#
# % change: pld_ratios = ["3/2", 4, 5]
# Write a function that takes only `three.pld()` (the atoms $(r_j, w_j)$: likelihood ratio and $P$-mass) and
# returns $\delta_{P\Vert Q}(\log s)$ through the identity
# $\delta_{P\Vert Q}(\varepsilon) = \mathbb{E}_P[(1 - e^{\varepsilon - L})_+]$, in exact fractions. Compare it with the
# direct computation at the ratios $e^\varepsilon$ of `pld_ratios` in the parameters cell ($1, 2, 3$), then do the
# same for the reverse direction from the PLD of the reversed pair. (`accountlib.theory.pairs.curves_from_pld`
# computes both one-sided curves from one PLD; use it as a check.) Then set `pld_ratios = ["3/2", 4, 5]` and run
# it again: which of the six values are zero, and why?
# ```
#
# ```{solution-start} ex-primer-pld
# :class: dropdown
# ```
#
# With atoms $(r_j, P\text{-mass } w_j)$ of the likelihood ratio $r = e^{L}$, the identity reads
# $\delta_{P\Vert Q}(\log s) = \sum_j w_j (1 - s/r_j)_+$ (an atom at $r = \infty$ contributes its whole mass).
# The function below, the direct sum and the library's recovery give the same exact fractions, in both
# directions. A one-sided profile is zero from the largest likelihood ratio on: $\delta_{P\Vert Q}$ for
# $e^\varepsilon \ge 3$ (outcome 0 is three times likelier under $P$) and $\delta_{Q\Vert P}$ for $e^\varepsilon \ge 5$
# (outcome 2 is five times likelier under $Q$).

# %%
def delta_from_pld(pld, s):
    """δ(log s) = Σ_j w_j (1 − s/r_j)_+ over the atoms (r_j, w_j); an atom at r = ∞ counts whole."""
    s = Fraction(s)
    return sum((w if r == math.inf else w * max(Fraction(0), 1 - s / r) for r, w in pld),
               Fraction(0))


for s in map(Fraction, pld_ratios):
    assert delta_from_pld(three.pld(), s) == three.delta_at_ratio(s)
    assert delta_from_pld(three.reverse().pld(), s) == three.reverse().delta_at_ratio(s)
    forward, reverse = pairs.curves_from_pld(three.pld(), s)
    assert forward == three.delta_at_ratio(s)
    assert reverse == three.reverse().delta_at_ratio(s)
    assert (forward == 0) == (s >= 3) and (reverse == 0) == (s >= 5)  # zero from the largest likelihood ratio on
    print(f"e^ε = {s}: δ_P‖Q = {forward}, δ_Q‖P = {reverse}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Discrete against continuous (★, run)
# :label: ex-primer-sigma
#
# % change: sigma = 0.5
# % change: sigma = 2.0
# In the parameters cell at the top, set `sigma = 0.5`, then `sigma = 2.0`, and re-run the chapter. How does the
# largest difference between the discrete Gaussian's profile $\delta(\varepsilon)$ and the $\mu$-GDP profile with
# $\mu = 1/\sigma$ change with $\sigma$? Explain why in one sentence.
# ```
#
# ```{solution-start} ex-primer-sigma
# :class: dropdown
# ```
#
# The largest difference over $\varepsilon \in [0.1, 4]$ falls quickly as $\sigma$ grows: the code computes it at
# the chapter's `sigma` and at twice and four times that. A wide discrete Gaussian is nearly a sampled continuous
# Gaussian (its {term}`characteristic function`'s periodic images are tiny), while a narrow one puts most of its
# mass on a few integers and behaves very differently. (The fall starts near $\sigma = 0.4$, where the difference
# peaks at about 0.3; for narrower noise neither mechanism hides much, both profiles approach 1 over this range of
# $\varepsilon$, and their difference shrinks again.)

# %%
def largest_difference(noise_scale, epsilons=np.linspace(0.1, 4, 40)):
    pair = profiles.ShiftPair([Fraction(1) / Fraction(noise_scale) ** 2])
    points = pair.delta(list(epsilons))
    return max(abs(float(pt.delta) - edgeworth.gdp_delta(float(pt.epsilon), 1 / noise_scale)) for pt in points)


differences = {s: largest_difference(s) for s in (sigma, 2 * sigma, 4 * sigma)}
for s, d in differences.items():
    print(f"σ = {s:g}: max |δ_discrete − δ_GDP| = {d:.3e}")
falling = [d for s, d in differences.items() if s >= 0.4]  # past the peak near σ = 0.4
assert all(a > b for a, b in zip(falling, falling[1:])) and len(falling) >= 2

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The census budget through two conversions (★★, derive)
# :label: ex-primer-census
#
# (a) Check that every pair $(k, k)$ of the census has $\rho = 4.9622$. (b) At $\delta = 10^{-10}$,
# compare $\varepsilon_{\mathrm{zCDP}}(\delta)$ of {prf:ref}`prop-primer-zcdp-to-dp` with the Rényi
# conversion `accountlib.theory.conversions.zcdp_epsilon_via_rdp`. Which is smaller, and why must it be?
# ```
#
# ```{solution-start} ex-primer-census
# :class: dropdown instructor-only
# ```
#
# (a) Each allocation sums to 4.9622 and the pair doubles it before halving. (b) The Rényi conversion is
# smaller. Both minimise over the order $t$ a bound built from $K(t) \le \rho\,t(t+1)$: the Bureau's
# formula is $\inf_t \rho(t+1) + \log(1/\delta)/t$, while the Rényi conversion uses the sharper tail bound
# $\delta \le c_t\,e^{K(t) - t\varepsilon}$ with $c_t = t^t/(1+t)^{1+t} < 1$ {cite}`su2026unifying`,
# which subtracts $\log(1/c_t)/t > 0$ at every order.

# %%
assert all(sum(census.pair_rhos(k, k)) / 2 == census.TOTAL_RHO for k in census.ALLOCATIONS)
bureau = conversions.zcdp_epsilon(census.TOTAL_RHO, 1e-10)
renyi = conversions.zcdp_epsilon_via_rdp(float(census.TOTAL_RHO), 1e-10)
print(f"ε_zCDP = {bureau:.4f}, Rényi conversion = {renyi:.4f}")
assert renyi <= bureau

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Gaussian differential privacy composes in squares (★★, derive)
# :label: ex-primer-gdp-composition
#
# (a) Show that the privacy loss of the pair $N(0, 1)$ against $N(\mu, 1)$, with $Y \sim N(0, 1)$, is
# $L = \mu^2/2 - \mu Y$, so the PLD ({prf:ref}`def-pld`) is $N(\mu^2/2, \mu^2)$. (b) Deduce that composing
# $\mu_1$-, …, $\mu_k$-GDP Gaussian mechanisms gives the PLD of $\mu$-GDP with $\mu^2 = \sum_i \mu_i^2$, as
# {prf:ref}`def-gdp` states. (c) Derive the profile $\delta_\mu(\varepsilon)$ of {prf:ref}`def-gdp` from
# $\delta(\varepsilon) = \mathbb{E}_P[(1 - e^{\varepsilon - L})_+]$, and check (b) and (c) numerically.
# ```
#
# ```{solution-start} ex-primer-gdp-composition
# :class: dropdown instructor-only
# ```
#
# (a) $\log\bigl(\phi(y)/\phi(y - \mu)\bigr) = \bigl((y - \mu)^2 - y^2\bigr)/2 = \mu^2/2 - \mu y$; with $Y \sim N(0, 1)$
# this is normal with mean $\mu^2/2$ and variance $\mu^2$. (b) Independent mechanisms have product densities,
# so their privacy losses add: a sum of independent $N(\mu_i^2/2, \mu_i^2)$ is $N(\mu^2/2, \mu^2)$ with
# $\mu^2 = \sum_i\mu_i^2$, the PLD of a single pair with shift $\mu$. Since the PLD determines the profile
# and the trade-off function, the composition is $\mu$-GDP. (c) With $L = \mu^2/2 + \mu Z$, $Z \sim N(0, 1)$,
#
# $$\delta(\varepsilon) = \Pr[L > \varepsilon] - e^{\varepsilon}\,\mathbb{E}\bigl[e^{-L}\mathbf 1\{L > \varepsilon\}\bigr]
#   = \Phi\Bigl(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Bigr) - e^{\varepsilon}\,\Phi\Bigl(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Bigr),$$
#
# because $\mathbb{E}[e^{-L}\mathbf 1\{L > \varepsilon\}]$ is the probability of $\{L > \varepsilon\}$ under $Q$, where
# $L \sim N(-\mu^2/2, \mu^2)$. The code integrates $(1 - e^{\varepsilon - L})_+$ against the composed PLD of three
# mechanisms and compares it with the closed form at the combined $\mu$.

# %%
from scipy.integrate import quad

mus = [0.3, 0.5, 1.2]
mu_total = math.sqrt(sum(m**2 for m in mus))
mean, sd = sum(m**2 for m in mus) / 2, mu_total  # the composed PLD N(Σμ²/2, Σμ²)

def pld_density(loss):
    return math.exp(-((loss - mean) / sd) ** 2 / 2) / (sd * math.sqrt(2 * math.pi))


for eps_check in (0.0, 0.5, 1.0, 3.0):
    def integrand(loss):
        return -math.expm1(eps_check - loss) * pld_density(loss)  # (1 − e^{ε − L})_+

    numeric, _ = quad(integrand, eps_check, mean + 40 * sd, epsabs=1e-14, epsrel=1e-12)
    closed = edgeworth.gdp_delta(eps_check, mu_total)
    assert abs(numeric - closed) < 1e-10, (eps_check, numeric, closed)
    print(f"ε = {eps_check}: δ from the composed PLD {numeric:.10f}, "
          f"δ_μ at μ = {mu_total:.4f}: {closed:.10f}")

# %% [markdown]
# ```{solution-end}
# ```
