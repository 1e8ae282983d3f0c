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
# (chapter-foundations)=
# # Differential privacy from the ground up
#
# ```{admonition} What you will learn
# :class: tip
#
# - what a {term}`mechanism` and a neighbouring relation are, and how the {term}`sensitivity` of a query
#   ($\ell_1$ or $\ell_2$) fixes how much noise it needs;
# - the {term}`Laplace mechanism` and the {term}`Gaussian mechanism`, with their privacy profiles, and why the
#   textbook calibration of Gaussian noise is loose;
# - {term}`post-processing`: nothing computed from a private output can be less private;
# - {term}`basic composition` and {term}`advanced composition`, and how far both are from the exact composition;
# - the two neighbouring relations, {term}`add/remove <add/remove model>` and
#   {term}`replace <replacement model>`, and what changes when the 2020 Census uses the second.
# ```
#
# ```{admonition} What you need
# :class: note
#
# Undergraduate probability: densities, the normal and Laplace distributions, the binomial distribution,
# expectations and Markov's inequality. No prior knowledge of differential privacy is assumed; this chapter
# is where the book starts. The code is plain NumPy, with `accountlib` where it has the function. To run
# it, see [Running the book yourself](../book/running.md); the [glossary](../book/glossary.md) collects
# every term.
# ```
#
# The papers this book reproduces take the basic toolkit of differential privacy for granted: two noise
# distributions, a notion of sensitivity, two composition theorems and the fact that post-processing is
# free. This chapter builds that toolkit from scratch, each result with a small computation that checks
# it. The {doc}`primer <02_primer>` then refines the same objects into the exact descriptions (privacy
# profiles, trade-off functions, privacy-loss distributions, Rényi and zero-concentrated privacy) that
# the rest of the book computes.

# %% tags=["parameters", "hide-cell"]
laplace_scale = 1.0  # Laplace noise scale b of the profile figure (sensitivity 1)
epsilon0 = 0.1  # the ε of each of the k composed mechanisms
delta_slack = 1e-6  # δ' of advanced composition; the δ at which compositions are read
k_max = 10_000  # the largest number of composed mechanisms drawn
calibration_targets = [[0.5, 1e-5], [1.0, 1e-5], [2.0, 1e-8]]  # the exercise calibrating the Gaussian: [ε, δ] each
sigma_post = 1.0  # noise of the Gaussian count in the post-processing example
threshold = 0.5  # post-processing: publish only whether the noisy count exceeds this

# %% tags=["hide-cell"]
import itertools
import math
import random
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from accountlib.applications import census
from accountlib.theory import conversions, edgeworth, pairs

# %% [markdown]
# ## Mechanisms, neighbours and sensitivity
#
# A *mechanism* $M$ takes a data set $D$ and returns a random output: a count with noise added, a noisy
# histogram, the weights of a model trained with noisy gradients. Privacy is a statement about how the
# law of $M(D)$ changes when one person's record changes, so it needs a precise notion of "one record
# changes".
#
# ```{prf:definition} Neighbouring relations
# :label: def-found-neighbours
#
# Two data sets are neighbours under *add/remove* if one is obtained from the other by adding or removing
# one record; they are neighbours under *replace* if they have the same size and differ in one record.
# ```
#
# Differential privacy {cite}`dwork2006calibrating,dwork2014algorithmic` asks that for all neighbours
# $D, D'$ and every set $S$ of outputs, $\Pr[M(D) \in S] \le e^{\varepsilon}\Pr[M(D') \in S] + \delta$.
# With $\delta = 0$ this is *pure* $\varepsilon$-DP: every output is at most $e^\varepsilon$ times likelier
# under one neighbour than under the other. With $\delta > 0$ it is *approximate* DP: the inequality may
# fail on events of probability about $\delta$. The primer states it formally
# ({prf:ref}`def-approx-dp`) and refines it into the whole curve of $\delta$ against $\varepsilon$.
#
# Most mechanisms in this book add noise to a numerical query $q(D) \in \mathbb{R}^d$. How much noise is
# needed depends on how far one record can move the query.
#
# ```{prf:definition} Sensitivity
# :label: def-found-sensitivity
#
# For a query $q$ with values in $\mathbb{R}^d$ and a neighbouring relation, the $\ell_p$ sensitivity is
#
# $$\Delta_p q = \max_{D \sim D'} \lVert q(D) - q(D') \rVert_p , \qquad p \in \{1, 2\},$$
#
# the maximum over all pairs of neighbours.
# ```
#
# A single count ("how many people are over 65?") has sensitivity 1 under both relations: adding,
# removing or replacing one record changes it by at most one. A *histogram*, the count of every category
# of one variable, behaves differently. Adding or removing a record changes one cell by one, so
# $\Delta_1 = \Delta_2 = 1$; replacing a record moves it from one cell to another, so two cells change by
# one each, $\Delta_1 = 2$ and $\Delta_2 = \sqrt 2$. The code below checks this by brute force on a toy
# data set of six people in four age groups, enumerating every neighbour under each relation.

# %%
categories = 4
people = np.array([0, 1, 1, 2, 3, 3])  # the age group of each of six people


def histogram(records):
    return np.bincount(records, minlength=categories)


def neighbours(records, relation):
    if relation == "add/remove":
        for i in range(len(records)):
            yield np.delete(records, i)
        for c in range(categories):
            yield np.append(records, c)
    if relation == "replace":
        for i, c in itertools.product(range(len(records)), range(categories)):
            changed = records.copy()
            changed[i] = c
            yield changed


for relation in ("add/remove", "replace"):
    moves = [histogram(other) - histogram(people)
             for other in neighbours(people, relation)]
    l1 = max(np.abs(m).sum() for m in moves)
    l2 = max(np.sqrt((m**2).sum()) for m in moves)
    print(f"{relation:>10}: {len(moves):2d} neighbours, l1 = {l1}, l2 = {l2:.4f}")

# %% [markdown]
# The $\ell_1$ sensitivity doubles under replace and the $\ell_2$ sensitivity grows by $\sqrt 2$. Which of
# the two matters depends on the noise: Laplace noise is calibrated to $\ell_1$, Gaussian noise to $\ell_2$.
# We return to the neighbouring relation at the end of the chapter, where it decides the census's budget.
#
# ## What a guarantee says: (ε, δ), the privacy profile and the privacy loss
#
# ```{prf:definition} (ε, δ)-differential privacy, privacy profile, privacy loss
# :label: def-found-dp
#
# $M$ is $(\varepsilon, \delta)$-DP if $\Pr[M(D) \in S] \le e^{\varepsilon}\Pr[M(D') \in S] + \delta$ for all
# neighbouring $D, D'$ and all sets of outputs $S$ {cite}`dwork2006our`; $\varepsilon$-DP means $\delta = 0$. For
# one pair of neighbours with output laws $P$ and $Q$ (densities $p$, $q$), the smallest such $\delta$ at each
# $\varepsilon$ is the *privacy profile*
# $\delta(\varepsilon) = \sup_S \bigl(P(S) - e^{\varepsilon}Q(S)\bigr) = \mathbb E_P\bigl[(1 - e^{\varepsilon - L})_+\bigr]$,
# where $L = \log\bigl(p(Y)/q(Y)\bigr)$, $Y \sim P$, is the *privacy loss*. The mechanism's profile is the
# largest over all pairs of neighbours.
# ```
#
# The primer treats these objects in full ({prf:ref}`def-privacy-profile`, {prf:ref}`def-pld`); here they are what
# the mechanisms below are measured by. Below, $\Phi$ is the standard normal distribution function.
#
# ## The Laplace mechanism
#
# The oldest private mechanism {cite}`dwork2006calibrating` adds to each coordinate of the query an
# independent Laplace variable with density $e^{-|x|/b}/(2b)$ and scale $b$.
#
# ```{prf:proposition} The Laplace mechanism
# :label: prop-found-laplace
#
# If $q$ has $\ell_1$ sensitivity $\Delta_1$, then $M(D) = q(D) + (Z_1, \dots, Z_d)$ with independent
# $Z_j \sim \mathrm{Lap}(b)$ is $\varepsilon$-DP for $\varepsilon = \Delta_1 / b$. For one count
# ($d = 1$) with shift $r = \Delta_1/b$, its exact privacy profile is
#
# $$\delta(\varepsilon) = \bigl(1 - e^{(\varepsilon - r)/2}\bigr)_+ .$$
# ```
#
# The first statement is one line: the ratio of the two densities at an output $y$ is
# $\exp\bigl((\lVert y - q(D')\rVert_1 - \lVert y - q(D)\rVert_1)/b\bigr)$, and the triangle inequality bounds
# the exponent by $\Delta_1/b$. The profile is derived in an exercise below. It says more than the
# $\varepsilon$-DP statement: $\delta$ is zero from $\varepsilon = r$ on, as pure DP promises, and below
# $r$ it is positive but much smaller than one, so the Laplace mechanism also satisfies a whole family of
# $(\varepsilon, \delta)$ guarantees with $\varepsilon < r$. The code computes the profile
# $\delta(\varepsilon) = \int (p(y) - e^{\varepsilon} q(y))_+\,dy$ by plain numerical integration and
# compares it with the closed form.

# %%
grid = np.linspace(-40, 41, 810_001)
step = grid[1] - grid[0]


def laplace_density(y, centre, scale):
    return np.exp(-np.abs(y - centre) / scale) / (2 * scale)


def profile_by_integration(p, q, epsilon):
    """δ_{P‖Q}(ε) = ∫ (p − e^ε q)_+ for densities on the grid (Riemann sum)."""
    return float(np.sum(np.clip(p - math.exp(epsilon) * q, 0, None)) * step)


r = 1 / laplace_scale  # a count (sensitivity 1) with Laplace noise of scale b
p_lap = laplace_density(grid, 0, laplace_scale)
q_lap = laplace_density(grid, 1, laplace_scale)
laplace_eps = np.linspace(0, 1.5 * r, 31)
laplace_numeric = np.array([profile_by_integration(p_lap, q_lap, e)
                            for e in laplace_eps])
laplace_closed = np.clip(1 - np.exp((laplace_eps - r) / 2), 0, None)
gap = np.max(np.abs(laplace_numeric - laplace_closed))
print(f"b = {laplace_scale}: largest |numerical − closed form| = {gap:.1e}")
print(f"δ(0) = {1 - math.exp(-r / 2):.4f}, δ(r/2) = {1 - math.exp(-r / 4):.4f}, "
      f"δ(ε) = 0 for ε ≥ r = {r:g}")

# %% [markdown]
# ## The Gaussian mechanism
#
# Adding Gaussian noise $N(0, \sigma^2 I)$ instead is calibrated to the $\ell_2$ sensitivity, which for
# vector queries can be much smaller than $\ell_1$ (a histogram of $d$ cells, each moved by one:
# $\Delta_1 = d$, $\Delta_2 = \sqrt d$). The price is that Gaussian noise is never pure DP: the ratio of
# two Gaussian densities with different means is unbounded, so $\delta > 0$ at every $\varepsilon$.
#
# ```{prf:proposition} The Gaussian mechanism
# :label: prop-found-gaussian
#
# If $q$ has $\ell_2$ sensitivity $\Delta_2$, then $M(D) = q(D) + N(0, \sigma^2 I)$ has the privacy profile
# of one Gaussian pair $N(0,1)$ against $N(\mu, 1)$ with $\mu = \Delta_2/\sigma$:
#
# $$\delta(\varepsilon) = \Phi\Bigl(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Bigr)
#   - e^{\varepsilon}\,\Phi\Bigl(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Bigr)$$
#
# {cite}`balle2018improving`. The classical sufficient condition is
# $\sigma \ge \Delta_2\sqrt{2\log(1.25/\delta)}/\varepsilon$, valid for $\varepsilon < 1$
# {cite}`dwork2014algorithmic`.
# ```
#
# Only the component of the noise along $q(D) - q(D')$ matters (the others have the same law under both
# neighbours), which is why a $d$-dimensional Gaussian mechanism behaves like a single one with shift
# $\mu$. The classical condition comes from a tail bound on the privacy loss and is loose. The code
# calibrates $\sigma$ both ways for a count ($\Delta_2 = 1$): the exact one finds by bisection the
# smallest $\sigma$ at which the profile, evaluated by `accountlib.theory.conversions.gaussian_delta`,
# reaches the target $\delta$.

# %%
def classical_sigma(epsilon, delta, sensitivity=1.0):
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon


def exact_sigma(epsilon, delta, sensitivity=1.0):
    """The smallest σ with δ(ε) ≤ δ (gaussian_delta takes ρ = Δ²/(2σ²))."""
    def excess(s):
        return conversions.gaussian_delta(epsilon, sensitivity**2 / (2 * s**2)) - delta
    return brentq(excess, 1e-3, 1e4, xtol=1e-12)


print(f"{'epsilon':>8} {'delta':>6} {'classical sigma':>16} {'exact sigma':>12} "
      f"{'variance saved':>15}")
for eps_target in (0.25, 0.5, 1.0):
    classical = classical_sigma(eps_target, 1e-5)
    exact = exact_sigma(eps_target, 1e-5)
    assert exact < classical
    saved = 1 - (exact / classical) ** 2
    print(f"{eps_target:>8} {1e-5:>6.0e} {classical:>16.3f} {exact:>12.3f}"
          f" {saved:>15.0%}")

# %% [markdown]
# At $\varepsilon = 1$, the edge of the classical formula's range (where it still gives more noise than
# needed), the exact calibration needs about 40% less variance than the textbook formula for the same
# guarantee, and more than half less at $\varepsilon = 0.25$. This is the theme of the book in miniature:
# an exact computation of the privacy of the noise actually added allows less noise than a convenient
# bound. {numref}`fig-found-profiles` puts
# the two mechanisms side by side, with the same noise variance ($\sigma^2 = 2b^2$): the Laplace
# profile reaches zero at $\varepsilon = r$, while the Gaussian one decays fast but never vanishes.

# %% mystnb={"figure": {"caption": "Privacy profiles of a count (sensitivity 1) with Laplace noise of scale b = 1 (the closed form, with points from numerical integration) and with Gaussian noise of the same variance 2b\u00b2 (\u03bc = 1/\u221a2), on a log scale. The Laplace profile is exactly zero from \u03b5 = 1 on (the dotted line); the Gaussian one is positive at every \u03b5.", "name": "fig-found-profiles"}} tags=["hide-input"]
eps_axis = np.linspace(0, 4, 401)
mu_same_variance = 1 / (math.sqrt(2) * laplace_scale)
gaussian_profile = [edgeworth.gdp_delta(e, mu_same_variance) for e in eps_axis]
laplace_profile = np.clip(1 - np.exp((eps_axis - r) / 2), 0, None)
fig, ax = plt.subplots(figsize=(6.8, 3.8))
shown, dots = laplace_profile > 0, laplace_numeric > 0  # δ = 0 has no place on a log axis
ax.semilogy(eps_axis[shown], laplace_profile[shown], label=f"Laplace, b = {laplace_scale:g}")
ax.semilogy(laplace_eps[dots], laplace_numeric[dots], "o", color="C0", markersize=3,
            label="Laplace, numerical integral")
ax.semilogy(eps_axis, gaussian_profile, "--", color="C1",
            label=rf"Gaussian, same variance ($\mu = {mu_same_variance:.3f}$)")
ax.axvline(r, color="grey", lw=0.8, ls=":")
ax.set_ylim(1e-8, 1)
ax.set_title("Privacy profiles of the Laplace and Gaussian mechanisms")
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel(r"$\delta(\varepsilon)$")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Post-processing
#
# Once a private output is published, anything computed from it alone, without the data, is private with
# the same parameters.
#
# ```{prf:proposition} Post-processing
# :label: prop-found-postprocessing
#
# If $M$ is $(\varepsilon, \delta)$-DP and $K$ is any (possibly randomised) map that does not look at the
# data, then $K \circ M$ is $(\varepsilon, \delta)$-DP. More precisely, for every pair of output laws
# $(P, Q)$ and every $\varepsilon$, $\delta_{KP \Vert KQ}(\varepsilon) \le \delta_{P\Vert Q}(\varepsilon)$.
# ```
#
# For a deterministic map $g$ the proof is a change of sets: $\Pr[g(M(D)) \in S] = \Pr[M(D) \in g^{-1}(S)]$,
# and the DP inequality holds for the set $g^{-1}(S)$; a randomised map is a mixture of deterministic ones.
# The census relies on this: its TopDown algorithm makes the noisy counts consistent and non-negative after
# the noise is added, at no cost in privacy {cite}`abowd2022topdown`. Post-processing can also *reduce*
# the privacy loss. The code publishes only whether a noisy count $q(D) + N(0, \sigma^2)$ exceeds a
# threshold, and computes the profile of that yes/no answer exactly.

# %%
def binary_profile(p_yes, q_yes, epsilon):
    """δ(ε) of a yes/no output, the larger of the two directions."""
    growth = math.exp(epsilon)
    forward = (max(0.0, p_yes - growth * q_yes)
               + max(0.0, (1 - p_yes) - growth * (1 - q_yes)))
    backward = (max(0.0, q_yes - growth * p_yes)
                + max(0.0, (1 - q_yes) - growth * (1 - p_yes)))
    return max(forward, backward)


p_yes = norm.sf(threshold, loc=0, scale=sigma_post)  # Pr[yes] when the count is 0
q_yes = norm.sf(threshold, loc=1, scale=sigma_post)  # ... and at the neighbour's 1
pure_epsilon = math.log(max(q_yes / p_yes, (1 - p_yes) / (1 - q_yes)))
post_profile = [binary_profile(p_yes, q_yes, e) for e in eps_axis]
noisy_profile = [edgeworth.gdp_delta(e, 1 / sigma_post) for e in eps_axis]
assert all(a <= b + 1e-15 for a, b in zip(post_profile, noisy_profile))
print(f"Pr[yes] = {p_yes:.4f} (count 0) and {q_yes:.4f} (count 1)")
print(f"the yes/no answer is {pure_epsilon:.4f}-DP (δ = 0)")

# %% [markdown]
# The answer is never less private than the noisy count, as the proposition requires, and here it is
# much more private: two outputs with bounded probability ratios make a pure-DP mechanism, although the
# Gaussian count it is computed from is not pure DP at any $\varepsilon$ ({numref}`fig-found-post`).

# %% mystnb={"figure": {"caption": "Post-processing. The privacy profile of a count with Gaussian noise (\u03c3 = 1, sensitivity 1; dashed) and of the yes/no answer \u201cthe noisy count exceeds 0.5\u201d computed from it (solid), on a log scale. The answer's profile lies below at every \u03b5 and is zero from \u03b5 = log(\u03a6(0.5)/\u03a6(\u22120.5)) \u2248 0.81 on.", "name": "fig-found-post"}} tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.8, 3.8))
positive = np.array(post_profile) > 0
ax.semilogy(eps_axis, noisy_profile, "--", color="C1",
            label=rf"noisy count, $\sigma = {sigma_post:g}$")
ax.semilogy(eps_axis[positive], np.array(post_profile)[positive], color="C2",
            label=f"yes/no: noisy count > {threshold:g}")
ax.axvline(pure_epsilon, color="grey", lw=0.8, ls=":")
ax.set_ylim(1e-8, 1)
ax.set_title("Post-processing can only lower the privacy profile")
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel(r"$\delta(\varepsilon)$")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Composition
#
# A release is rarely one query. The census publishes ten tables at eight geographic levels; a model is
# trained with thousands of noisy gradient steps. {term}`Composition` asks how the privacy of the whole
# release follows from that of its parts, when the parts use independent noise (and may even be chosen
# adaptively, each after seeing the earlier outputs).
#
# ```{prf:proposition} Basic composition
# :label: prop-found-basic
#
# If $M_i$ is $(\varepsilon_i, \delta_i)$-DP for $i = 1, \dots, k$, their composition is
# $\bigl(\sum_i \varepsilon_i, \sum_i \delta_i\bigr)$-DP {cite}`dwork2006our`.
# ```
#
# For pure DP the proof multiplies the ratio bounds of the factors of a product density. Basic
# composition is exact for the worst case at $\delta = 0$, but once a small $\delta$ is allowed the
# privacy loss of $k$ independent mechanisms behaves like a sum of $k$ independent terms: its mean grows
# like $k$ times a small number, its fluctuations like $\sqrt k$, and a tail bound gives a much smaller
# $\varepsilon$.
#
# ```{prf:proposition} Advanced composition
# :label: prop-found-advanced
#
# If each of $M_1, \dots, M_k$ is $(\varepsilon, \delta)$-DP, then for every $\delta' > 0$ their
# composition is $(\varepsilon', k\delta + \delta')$-DP with
#
# $$\varepsilon' = \sqrt{2k\log(1/\delta')}\,\varepsilon + k\varepsilon\,(e^{\varepsilon} - 1)$$
#
# {cite}`dwork2010boosting,dwork2014algorithmic`.
# ```
#
# Neither theorem is the exact answer. For $k$ mechanisms that are each $\varepsilon_0$-DP and nothing
# more, the exact (optimal) composition is attained by {term}`randomised response`
# {cite}`kairouz2017composition`: each mechanism reports a bit, truthfully with probability
# $e^{\varepsilon_0}/(1 + e^{\varepsilon_0})$. The privacy loss of one report is $\pm\varepsilon_0$, so the
# privacy loss of $k$ reports is $\varepsilon_0(2B - k)$ with $B$ binomial, and the exact
# $\delta(\varepsilon) = \mathbb{E}\bigl[(1 - e^{\varepsilon - L})_+\bigr]$ is a finite sum. The code
# computes it from scratch and solves for the $\varepsilon$ at which it equals $\delta'$.

# %%
def composed_rr_delta(epsilon, k, eps0):
    """Exact δ(ε) of k-fold randomised response with parameter ε₀:
    E[(1 − e^{ε − L})_+] with L = ε₀(2B − k), B binomial."""
    truthful = math.exp(eps0) / (1 + math.exp(eps0))
    j = np.arange(k + 1)
    log_choose = np.array([math.lgamma(k + 1) - math.lgamma(i + 1)
                           - math.lgamma(k - i + 1) for i in j])
    log_pmf = log_choose + j * math.log(truthful) + (k - j) * math.log1p(-truthful)
    loss = eps0 * (2 * j - k)
    positive_part = -np.expm1(np.minimum(epsilon - loss, 0.0))  # (1 − e^{ε − L})_+
    return float(np.sum(np.exp(log_pmf) * positive_part))


def composed_rr_epsilon(k, eps0, delta):
    if composed_rr_delta(0.0, k, eps0) <= delta:
        return 0.0
    def excess(e):
        return composed_rr_delta(e, k, eps0) - delta
    return brentq(excess, 0.0, k * eps0, xtol=1e-12)


def advanced_epsilon(k, eps0, delta_prime):
    return (math.sqrt(2 * k * math.log(1 / delta_prime)) * eps0
            + k * eps0 * math.expm1(eps0))


ks = np.unique(np.logspace(0, math.log10(k_max), 41).astype(int))
basic = ks * epsilon0
advanced = np.array([advanced_epsilon(k, epsilon0, delta_slack) for k in ks])
exact_composition = np.array([composed_rr_epsilon(k, epsilon0, delta_slack)
                              for k in ks])
assert np.all(exact_composition <= np.minimum(basic, advanced) + 1e-9)
print(f"ε at δ = {delta_slack:g}:")
print(f"{'k':>6} {'basic':>9} {'advanced':>9} {'exact':>8}")
for k in (10, 100, 1000, k_max):
    i = int(np.searchsorted(ks, k))
    exact_i = exact_composition[i]
    print(f"{ks[i]:>6} {basic[i]:>9.2f} {advanced[i]:>9.2f} {exact_i:>8.2f}")

# %% [markdown]
# {numref}`fig-found-composition` draws the three on log axes. For a few mechanisms basic composition is
# the better bound (advanced composition pays $\sqrt{2k\log(1/\delta')}$ up front); from a few dozen on the
# $\sqrt k$ growth wins, and by $k = 10^4$ advanced composition is six times smaller than basic
# composition. Even so it is over one and a half times the exact value, which also grows like $\sqrt k$
# but with a smaller constant. Gaussian mechanisms compose even more simply: $k$ Gaussian mechanisms with
# shifts $\mu_i$ behave exactly like one with $\mu = (\sum_i \mu_i^2)^{1/2}$, the rule the primer states
# for Gaussian differential privacy ({prf:ref}`def-gdp`).

# %% mystnb={"figure": {"caption": "Composition of k mechanisms that are each \u03b5\u2080-DP (the chapter's \u03b5\u2080, 0.1 by default; the title gives the value used), read at \u03b4 = \u03b4' (the chapter's \u03b4', 10\u207b\u2076 by default; the axis label gives the value used) on log axes: basic composition k\u03b5\u2080, advanced composition, and the exact composition of k randomised responses, which is optimal for \u03b5\u2080-DP mechanisms.", "name": "fig-found-composition"}} tags=["hide-input"]
power = math.log10(delta_slack)
delta_tex = rf"10^{{{round(power)}}}" if power == round(power) else f"{delta_slack:g}"  # the δ' the curves are read at
fig, ax = plt.subplots(figsize=(6.8, 4.0))
ax.loglog(ks, basic, label=r"basic: $k\varepsilon_0$")
ax.loglog(ks, advanced, "--", label=rf"advanced, $\delta' = {delta_tex}$")
exact_shown = exact_composition > 0
ax.loglog(ks[exact_shown], exact_composition[exact_shown], "-.",
          label="exact (randomised response)")
ax.set_title(rf"Composing $k$ mechanisms, each $\varepsilon_0 = {epsilon0:g}$")
ax.set_xlabel("number of mechanisms k")
ax.set_ylabel(rf"$\varepsilon$ of the composition at $\delta = {delta_tex}$")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# Exact composition is the subject of this book. The primer shows that it is a convolution of
# {term}`privacy-loss distributions <privacy-loss distribution>` ({prf:ref}`def-pld`), exactly what the
# binomial sum above computes for randomised response; the engine chapters do the same for up to 160
# discrete Gaussians with certified error bounds.
#
# ## Add/remove against replace
#
# The neighbouring relation is part of the guarantee: "$\varepsilon = 1$" means different things under
# add/remove and under replace. A replacement is a removal followed by an addition, so a mechanism that
# is $(\varepsilon, \delta)$-DP under add/remove is $(2\varepsilon, (1 + e^{\varepsilon})\delta)$-DP under
# replace (group privacy for two steps, an exercise below). The converse fails: publishing the size of
# the data set is perfectly private under replace and not private at all under add/remove.
#
# For the noise mechanisms of this chapter the change is a change of sensitivity. The 2020 Census uses
# replace {cite}`abowd2022topdown`: a person's record is swapped for another's, possibly in another block.
# Each of the ten marginal queries at each geographic level is a histogram. Removing a record lowers one of
# its cells by one and adding the new record raises one cell by one (of the same geographic unit's
# histogram when both records lie in that unit, of another unit's otherwise), so the $\ell_2$ sensitivity of
# each (query, level) release is $\sqrt2$ instead of 1. With discrete Gaussian noise of variance $\sigma^2 = 1/\rho_i$, the zero-concentrated privacy parameter of one such release is
# $\Delta_2^2/(2\sigma^2)$ (the primer defines $\rho$-zCDP, {prf:ref}`def-zcdp`): $\rho_i/2$ under
# add/remove and $\rho_i$ under replace, and these add up over the (query, level) cells along the record's
# *{term}`geographic path`*, the units that contain its block, one per level. The budgets $\rho_i$ of those cells
# form an *{term}`allocation`*, a table of 10 queries by 8 levels that the primer defines
# ({prf:ref}`def-allocation`). The DHC File uses 43 allocations, because paths through different parts of the country
# skip different levels: allocation 13, the table the sieve paper prints, uses all 80 cells, the others between 20
# and 70. The code does the sums for allocation 13, with both records on paths of that allocation.

# %%
budgets = census.load_allocation(13)
add_remove_rho = sum(rho * 1 / 2 for rho in budgets)  # ρ_i Δ²/2 with Δ² = 1
replace_rho = sum(rho * 2 / 2 for rho in budgets)  # two cells move: Δ² = 2
pair_rho = sum(census.pair_rhos(13, 13)) / 2  # the primer's view: two paths, shift 1
assert replace_rho == pair_rho == census.TOTAL_RHO == 2 * add_remove_rho
print(f"allocation 13: ρ = {float(add_remove_rho)} under add/remove, "
      f"{float(replace_rho)} under replace")
eps_add_remove = conversions.zcdp_epsilon(add_remove_rho, 1e-10)
eps_replace = conversions.zcdp_epsilon(replace_rho, 1e-10)
print(f"ε at δ = 10⁻¹⁰ (Bun–Steinke): {eps_add_remove:.2f} and {eps_replace:.2f}")

# %% [markdown]
# Under replace the budget is twice the add/remove one; the generic group-privacy argument for zCDP would
# have given four times ({cite}`bun2016concentrated` prove that zCDP degrades with the square of the group
# size), so computing the sensitivity directly matters. The Bureau's published $\rho = 4.9622$ for the DHC File is
# the replace value (every one of its 43 allocations sums to it). The primer reads the same number in another way, as a {term}`pair (of allocations)`: the
# old record's path and the new record's path each contribute shifts of one, and when both records lie in
# the same block the two paths coincide.
#
# ## Summary
#
# - Privacy is a statement about the laws of a mechanism's output on neighbouring data sets
#   ({prf:ref}`def-found-neighbours`); the sensitivity of a query ({prf:ref}`def-found-sensitivity`) sets
#   how much noise it needs, in $\ell_1$ for Laplace noise and in $\ell_2$ for Gaussian noise.
# - The Laplace mechanism ({prf:ref}`prop-found-laplace`) is pure $\varepsilon$-DP with
#   $\varepsilon = \Delta_1/b$; the Gaussian mechanism ({prf:ref}`prop-found-gaussian`) is never pure DP, and
#   its exact profile allows about 40% less variance than the textbook calibration at $\varepsilon = 1$.
# - Post-processing never increases $\delta(\varepsilon)$ ({prf:ref}`prop-found-postprocessing`) and can
#   decrease it.
# - Basic composition adds the $\varepsilon$s ({prf:ref}`prop-found-basic`); advanced composition grows
#   like $\sqrt k$ ({prf:ref}`prop-found-advanced`); the exact composition, a convolution of privacy
#   losses, is smaller than both.
# - Replace costs twice the add/remove budget for histograms under Gaussian noise; the census uses
#   replace, and the DHC File's $\rho = 4.9622$ is the replace value.
#
# The {doc}`primer <02_primer>` takes these objects further: the whole privacy profile, the hypothesis
# testing view, the privacy-loss distribution and the Rényi and zCDP summaries that the census reports.
#
# ## Exercises
#
# ```{exercise} The Laplace mechanism's privacy profile (★★, derive)
# :label: ex-found-laplace
#
# Let $P = \mathrm{Lap}(0, b)$ and $Q = \mathrm{Lap}(\Delta, b)$, $\Delta > 0$, and $r = \Delta/b$. Show that the
# privacy loss $L(y) = \log(p(y)/q(y))$ equals $-r$ for $y \ge \Delta$, $r$ for $y \le 0$ and is linear in
# between, and derive $\delta_{P\Vert Q}(\varepsilon) = (1 - e^{(\varepsilon - r)/2})_+$. Conclude that the
# Laplace mechanism with $b = \Delta_1/\varepsilon$ is $\varepsilon$-DP, and that it is not
# $\varepsilon'$-DP for any $\varepsilon' < \varepsilon$.
# ```
#
# ```{solution-start} ex-found-laplace
# :class: dropdown instructor-only
# ```
#
# For $y \le 0$, $|y - \Delta| - |y| = \Delta$, so $L = r$; for $y \ge \Delta$ it is $-\Delta$, so $L = -r$; for
# $0 \le y \le \Delta$, $L(y) = (\Delta - 2y)/b$. For $0 \le \varepsilon < r$ the set where $L > \varepsilon$,
# which is where $p > e^{\varepsilon}q$, is $\{y < y_0\}$ with $y_0 = b(r - \varepsilon)/2$. Then
#
# $$\delta(\varepsilon) = P(Y < y_0) - e^{\varepsilon}Q(Y < y_0)
#   = \bigl(1 - \tfrac12 e^{-(r - \varepsilon)/2}\bigr) - e^{\varepsilon}\,\tfrac12 e^{-(r + \varepsilon)/2}
#   = 1 - e^{(\varepsilon - r)/2},$$
#
# using $P(Y < y_0) = 1 - \frac12 e^{-y_0/b}$ and $Q(Y < y_0) = \frac12 e^{-(\Delta - y_0)/b}$. For
# $\varepsilon \ge r$ the set is empty and $\delta = 0$. So $\delta(\varepsilon) = 0$ exactly from
# $\varepsilon = r = \Delta_1/b$, which is $\varepsilon$-DP for $b = \Delta_1/\varepsilon$; below $r$,
# $\delta > 0$, so no smaller $\varepsilon$ gives pure DP. The code checks the closed form against the
# numerical integral at other scales and in the other direction (by symmetry the two directions agree).

# %%
for b in (0.5, 2.0):
    shift = 1 / b
    p_b, q_b = laplace_density(grid, 0, b), laplace_density(grid, 1, b)
    for e in (0.0, shift / 3, shift / 2, shift, 1.5 * shift):
        closed = max(0.0, 1 - math.exp((e - shift) / 2))
        assert abs(profile_by_integration(p_b, q_b, e) - closed) < 1e-4, (b, e)
        assert abs(profile_by_integration(q_b, p_b, e) - closed) < 1e-4, (b, e)
print("closed form = numerical integral at b = 0.5 and 2, both directions")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Post-processing cannot increase δ (★★, derive)
# :label: ex-found-post
#
# Let $P, Q$ be distributions on a finite set $X$ and $K(y \mid x)$ a Markov kernel to a finite set $Y$
# (each row a probability vector). Prove that $\delta_{KP\Vert KQ}(\varepsilon) \le \delta_{P\Vert Q}(\varepsilon)$
# for every $\varepsilon$, using only $\delta_{P\Vert Q}(\varepsilon) = \sum_x (p(x) - e^{\varepsilon}q(x))_+$.
# Then check it in exact rational arithmetic on random kernels applied to a pair of your choice.
# ```
#
# ```{solution-start} ex-found-post
# :class: dropdown
# ```
#
# Write $a_x = p(x) - e^{\varepsilon}q(x)$. The pushed-forward pair has
# $(KP)(y) - e^{\varepsilon}(KQ)(y) = \sum_x K(y\mid x)\,a_x$, and $(\sum_x K(y\mid x) a_x)_+ \le \sum_x K(y\mid x)(a_x)_+$
# because $K \ge 0$ and $t \mapsto t_+$ is convex and positively homogeneous. Summing over $y$ and using
# $\sum_y K(y \mid x) = 1$,
#
# $$\delta_{KP\Vert KQ}(\varepsilon) = \sum_y \Bigl(\sum_x K(y\mid x)a_x\Bigr)_+ \le \sum_x (a_x)_+ \sum_y K(y\mid x)
#   = \delta_{P\Vert Q}(\varepsilon).$$
#
# Equality holds when $K$ never mixes an $x$ with $a_x > 0$ and one with $a_x < 0$ into the same $y$, for
# instance when $K$ is invertible. The code draws random rational kernels and checks the inequality with
# `accountlib.theory.pairs.LatticePair`, exactly.

# %%
rng = random.Random(7)
P = {0: Fraction(3, 5), 1: Fraction(3, 10), 2: Fraction(1, 10)}
Q = {0: Fraction(1, 5), 1: Fraction(3, 10), 2: Fraction(1, 2)}
original = pairs.LatticePair(P, Q)
for trial in range(200):
    weights = {x: [Fraction(rng.randint(0, 5)) for _ in range(4)] for x in P}
    kernel = {x: [w / sum(ws) if sum(ws) else Fraction(1, 4) for w in ws]
              for x, ws in weights.items()}

    def push(law):
        return {y: sum(law[x] * kernel[x][y] for x in law) for y in range(4)}

    processed = pairs.LatticePair(push(P), push(Q))
    for ratio in (1, Fraction(3, 2), 2, 3, 5):
        for after, before in ((processed, original),
                              (processed.reverse(), original.reverse())):
            assert after.delta_at_ratio(ratio) <= before.delta_at_ratio(ratio)
print("200 random kernels: δ never increased, in either direction,")
print("at e^ε = 1, 3/2, 2, 3, 5")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Replace costs at most a factor two (★★, derive)
# :label: ex-found-replace
#
# (a) Show that a mechanism that is $(\varepsilon, \delta)$-DP under add/remove is
# $(2\varepsilon, (1 + e^{\varepsilon})\delta)$-DP under replace. (b) Show that the Laplace mechanism on a
# histogram, $\varepsilon$-DP under add/remove with $b = 1/\varepsilon$, is exactly $2\varepsilon$-DP under
# replace, so the factor two of (a) cannot be improved for pure DP. (c) Give a mechanism that is
# $0$-DP under replace but not $(\varepsilon, \delta)$-DP under add/remove for any $\varepsilon$ and
# $\delta < 1$.
# ```
#
# ```{solution-start} ex-found-replace
# :class: dropdown instructor-only
# ```
#
# (a) If $D'$ replaces a record of $D$, let $D''$ be $D$ with that record removed: $D \sim D''$ and
# $D'' \sim D'$ under add/remove. For every set $S$,
#
# $$\Pr[M(D) \in S] \le e^{\varepsilon}\Pr[M(D'') \in S] + \delta
#   \le e^{\varepsilon}\bigl(e^{\varepsilon}\Pr[M(D') \in S] + \delta\bigr) + \delta
#   = e^{2\varepsilon}\Pr[M(D') \in S] + (1 + e^{\varepsilon})\delta .$$
#
# (b) Under replace, two cells move by one in opposite directions, $\Delta_1 = 2$, so by
# {prf:ref}`prop-found-laplace` the mechanism is $2\varepsilon$-DP. It is no better: the output ratio of
# the two cells that move is $e^{\varepsilon}$ each at outputs far on the appropriate sides, so the ratio
# $e^{2\varepsilon}$ is attained on a set of positive probability. (c) Publish the number of records $n$:
# under replace it never changes, so the output laws are equal ($\varepsilon = 0$, $\delta = 0$); under
# add/remove the two laws are point masses at $n$ and $n + 1$, with $\delta(\varepsilon) = 1$ for every
# $\varepsilon$. The code checks (b) on a grid: the largest log-ratio of the two product densities is
# $2\varepsilon$.

# %%
eps_hist = 0.5
b_hist = 1 / eps_hist
y = np.linspace(-30, 30, 6001)
# density ratios of the cell the record leaves (count 1 -> 0) and of the cell it enters
cell_a = laplace_density(y, 0, b_hist) / laplace_density(y, 1, b_hist)
cell_b = laplace_density(y, 1, b_hist) / laplace_density(y, 0, b_hist)
largest_log_ratio = math.log(cell_a.max() * cell_b.max())
one_cell = max(np.log(cell_a).max(), np.log(cell_b).max())  # add/remove: one cell moves
assert abs(largest_log_ratio - 2 * eps_hist) < 1e-12
assert abs(one_cell - eps_hist) < 1e-12
print(f"add/remove: largest log-ratio {one_cell:.6f}; replace: {largest_log_ratio:.6f}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} When does advanced composition beat basic composition? (★, run)
# :label: ex-found-crossover
#
# % change: epsilon0 = 0.5
# % change: epsilon0 = 1.0
# Change `epsilon0` in the parameters cell to $0.5$ and then to $1$ and re-run the chapter. From which $k$
# on is advanced composition smaller than basic composition? Derive the crossover
# $k^* = 2\log(1/\delta')/(2 - e^{\varepsilon_0})^2$ from {prf:ref}`prop-found-advanced`, and say why
# advanced composition never beats basic composition once $e^{\varepsilon_0} \ge 2$.
# ```
#
# ```{solution-start} ex-found-crossover
# :class: dropdown
# ```
#
# Advanced is smaller than basic when $\sqrt{2k\log(1/\delta')}\,\varepsilon_0 + k\varepsilon_0(e^{\varepsilon_0} - 1)
# < k\varepsilon_0$, that is $\sqrt{2k\log(1/\delta')} < k(2 - e^{\varepsilon_0})$. For $e^{\varepsilon_0} < 2$ this
# is $k > 2\log(1/\delta')/(2 - e^{\varepsilon_0})^2$; for $e^{\varepsilon_0} \ge 2$ the right side is not
# positive and it never holds. The code finds the first such $k$ by scanning and compares, at $\varepsilon_0 = 0.01$,
# at the chapter's `epsilon0` and at $0.5$; at $\varepsilon_0 = 1$, where $e^{\varepsilon_0} \ge 2$, it says so and
# checks that advanced composition stays above basic composition.

# %%
def crossover(eps0, delta_prime):
    return 2 * math.log(1 / delta_prime) / (2 - math.exp(eps0)) ** 2


for eps0 in dict.fromkeys((0.01, epsilon0, 0.5)):
    if math.exp(eps0) >= 2:
        assert all(advanced_epsilon(k, eps0, delta_slack) >= k * eps0 for k in range(1, 10**5))
        print(f"ε₀ = {eps0}: e^ε₀ = {math.exp(eps0):.3f} ≥ 2, advanced composition never beats basic composition "
              "(checked for k < 100,000)")
        continue
    first = next(k for k in range(1, 10**7)
                 if advanced_epsilon(k, eps0, delta_slack) < k * eps0)
    k_star = crossover(eps0, delta_slack)
    assert first == math.floor(k_star) + 1
    print(f"ε₀ = {eps0}: advanced beats basic from k = {first} (k* = {k_star:.1f})")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Calibrating the Gaussian mechanism from scratch (★★, code)
# :label: ex-found-calibrate
#
# % change: calibration_targets = [[0.25, 1e-6], [4.0, 1e-3]]
# Write, with only `math.erf` for the normal distribution function, a function that returns the smallest
# $\sigma$ for which the Gaussian mechanism on a count is $(\varepsilon, \delta)$-DP, by bisection on
# $\sigma$ using the profile of {prf:ref}`prop-found-gaussian`. Compare it with `exact_sigma` above at the targets
# `calibration_targets` of the parameters cell, then at $(0.25, 10^{-6})$ and $(4, 10^{-3})$, and explain why bisection
# is valid (what is monotone in what?).
# ```
#
# ```{solution-start} ex-found-calibrate
# :class: dropdown
# ```
#
# At fixed $\varepsilon$, $\delta(\varepsilon)$ increases with $\mu = 1/\sigma$ (a larger shift is easier to
# detect; the profile of a larger $\mu$ dominates, as post-processing shows: $N(0,1)$ against $N(\mu, 1)$ is a
# post-processing of the pair with a larger $\mu$ by adding noise and rescaling). So $\delta$ decreases in
# $\sigma$, and the set of good $\sigma$ is an interval $[\sigma^*, \infty)$ that bisection brackets. Double
# precision loses the profile to cancellation when $\delta$ is below about $10^{-12}$; the library evaluates
# it with 30 digits.

# %%
def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def gaussian_profile_float(epsilon, mu):
    return phi(-epsilon / mu + mu / 2) - math.exp(epsilon) * phi(-epsilon / mu - mu / 2)


def sigma_by_bisection(epsilon, delta, low=1e-2, high=1e3, steps=200):
    for _ in range(steps):
        middle = (low + high) / 2
        if gaussian_profile_float(epsilon, 1 / middle) > delta:
            low = middle  # too little noise
        else:
            high = middle
    return high


for eps_target, delta_target in calibration_targets:
    mine = sigma_by_bisection(eps_target, delta_target)
    library = exact_sigma(eps_target, delta_target)
    print(f"ε = {eps_target}, δ = {delta_target:g}: σ = {mine:.6f} (bisection), "
          f"{library:.6f} (library)")
    if delta_target < 1e-12:
        print("  below δ = 1e-12 double precision loses the profile to cancellation: the bisection is not to be trusted")
    else:
        assert abs(mine - library) < 1e-6 * library, (mine, library)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} How much privacy does the census's post-processing add? (★★★, open)
# :label: ex-found-open
#
# {prf:ref}`prop-found-postprocessing` says that TopDown's post-processing (making the noisy counts
# consistent across geographic levels, non-negative and integer) costs no privacy; the yes/no example
# showed that post-processing can also *remove* privacy loss. The census's accounting, and this book's,
# measures only the noisy counts. How much smaller is the privacy loss of the *published* tables? Start
# with a toy: a parent count and its two children, each with independent Gaussian noise, then (i) the
# least-squares projection onto consistent tables and (ii) rounding and clamping at zero. This is an open
# problem: no exact accounting of TopDown's published output is known.
# ```
#
# ```{solution-start} ex-found-open
# :class: dropdown
# ```
#
# What can be said, and what remains open:
#
# - *Linear consistency gains nothing.* With equal noise variances, the projection onto the consistent
#   tables (parent = sum of children) keeps the component of the noisy vector in the consistent subspace
#   and discards the orthogonal one. The change of the true counts between neighbours lies in that subspace,
#   so the discarded component has the same law under both neighbours and carries no information: the
#   projected output has exactly the same privacy profile as the noisy counts. (With unequal variances the
#   same holds for the generalised least-squares projection.) The code checks that the shift's length in
#   the noise's metric, which fixes $\mu$, is unchanged.
# - *Clamping and rounding help only near zero.* A clamp at zero is inactive when the true counts are large,
#   so the worst case over neighbouring data sets is unchanged; any gain is data-dependent, which worst-case
#   differential privacy does not credit. Even at the true counts 0 and 1 the clamp can lower only the profile
#   from 0 to 1 (decided by small outputs, which it merges into one atom); the profile from 1 to 0 is
#   decided by large outputs, which it leaves alone, so the larger of the two, the $(\varepsilon, \delta)$
#   guarantee, does not move. The code computes both directions exactly.
# - *Open:* whether the full nonlinear post-processing of TopDown (many levels, non-negativity and integer
#   constraints at once) gives a worst-case gain, and how to state and compute a data-dependent
#   (per-instance) guarantee for the tables actually published. Approaches: exact computation on small
#   hierarchies by enumeration, lower bounds from explicit attacks (tests whose errors bound the trade-off
#   function from above), and the hypothesis-testing view of the primer, in which post-processing is the
#   data-processing inequality for trade-off functions {cite}`dong2022gaussian`.

# %%
sigma_toy = 1.0
# consistent tables (parent, child 1, child 2) = consistent @ (c1, c2)
consistent = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
projection = consistent @ np.linalg.pinv(consistent)  # orthogonal projection onto them
shift = np.array([1.0, 1.0, 0.0])  # a record added to child 1 moves the parent too
assert np.allclose(projection @ shift, shift)
mu_noisy = np.linalg.norm(shift) / sigma_toy
mu_projected = np.linalg.norm(projection @ shift) / sigma_toy
assert math.isclose(mu_noisy, mu_projected)


def clamped_profiles(epsilon, sigma):
    """δ(ε) of max(0, count + N(0, σ²)) for counts 0 against 1, both directions."""
    xs = np.linspace(1e-9, 14, 140_001)
    dx = xs[1] - xs[0]
    p, q = norm.pdf(xs, 0, sigma), norm.pdf(xs, 1, sigma)
    atom_p, atom_q = norm.cdf(0, 0, sigma), norm.cdf(0, 1, sigma)  # mass clamped to 0
    g = math.exp(epsilon)
    forward = max(0.0, atom_p - g * atom_q) + np.sum(np.clip(p - g * q, 0, None)) * dx
    backward = max(0.0, atom_q - g * atom_p) + np.sum(np.clip(q - g * p, 0, None)) * dx
    return float(forward), float(backward)


for e in (0.5, 1.0, 2.0):
    forward, backward = clamped_profiles(e, sigma_toy)
    unclamped = edgeworth.gdp_delta(e, 1 / sigma_toy)  # the same in both directions
    assert forward <= unclamped + 1e-6 and abs(backward - unclamped) < 1e-6
    assert e < 1 or forward < unclamped - 0.01  # from ε = 1 on, the clamp helps 0 -> 1
    print(f"ε = {e}: clamped δ from count 0 to 1 = {forward:.5f}, "
          f"from 1 to 0 = {backward:.5f}; unclamped {unclamped:.5f}")
print(f"consistency projection: μ = {mu_noisy:.4f} before, {mu_projected:.4f} after")

# %% [markdown]
# ```{solution-end}
# ```
