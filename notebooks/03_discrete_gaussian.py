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
# ```{admonition} What you will learn
# :class: tip
#
# - what the {term}`discrete Gaussian` $\mathcal N_{\mathbb Z}(0,\sigma^2)$ is, and how far it is from the
#   continuous normal distribution at the variances the 2020 Census uses;
# - the two forms of its {term}`characteristic function` — the direct sum over the integers and the dual sum
#   obtained by Poisson summation — and which one is cheaper at which $\sigma^2$;
# - why its tails obey the same {term}`sub-Gaussian` bound as the continuous Gaussian, and how that bound
#   lets the later chapters truncate infinite sums with a certified error;
# - the fourth {term}`cumulant` ratio $\lambda_4$, which is positive (the distribution is leptokurtic) and
#   falls like $e^{-2\pi^2\sigma^2}$, reproduced against the sieve paper's Appendix A.1;
# - why a sum of two discrete Gaussians oscillates around the normal density (the sieve paper's Figure 1).
# ```
#
# ```{admonition} What you need
# :class: note
#
# From the {doc}`primer <02_primer>`: the approximate-DP definition and the {term}`privacy profile`
# ({prf:ref}`def-approx-dp`, {prf:ref}`def-privacy-profile`), and the {term}`zCDP` budgets of the census
# ({prf:ref}`def-zcdp`, {prf:ref}`def-allocation`), which fix the variances $\sigma^2$ met below. From
# probability: the normal density, characteristic functions, moments and the idea of a Fourier series.
# Nothing about the quadrature engines is needed yet; this chapter only studies one noise distribution.
# ```
#
# The 2020 Census adds to every published count an integer drawn from the **discrete Gaussian**
# $\mathcal N_{\mathbb Z}(0,\sigma^2)$ {cite}`canonne2020discrete`:
#
# $$
# \Pr(X = x) = \frac{e^{-x^2/2\sigma^2}}{\Theta(\sigma^2)},\qquad
# \Theta(\sigma^2) = \sum_{y\in\mathbb Z} e^{-y^2/2\sigma^2},\qquad x\in\mathbb Z .
# $$
#
# The numerator is the familiar Gaussian bell; the denominator $\Theta(\sigma^2)$ is whatever makes the masses
# sum to one, and it is *not* $\sqrt{2\pi\sigma^2}$, although for large $\sigma^2$ it is extremely close to it.
# The census needs integer noise because its counts are integers and are post-processed as integers; adding
# a real number and rounding would change the privacy analysis, whereas the discrete Gaussian satisfies the
# same zCDP guarantee as the continuous Gaussian with the same $\sigma^2$ {cite}`canonne2020discrete`
# ({prf:ref}`def-zcdp`). The parameter $\sigma^2$ is a *scale*, not exactly the variance: the variance
# $\operatorname{Var}X$ is below $\sigma^2$, by an amount we compute below (tiny unless $\sigma^2 < 1$).
#
# It looks like a sampled bell curve, and for large $\sigma^2$ it nearly is one. This chapter
# meets the four facts the rest of the book leans on: the characteristic function and its two
# forms, sub-Gaussian tails, the fourth cumulant $\lambda_4$ that measures how un-Gaussian it is,
# and the oscillation that appears when two of them are added (the sieve paper's Figure 1,
# {cite}`su2026sieve`). All numerics come from `accountlib.engine.discrete_gaussian`; the chapter narrates,
# plots and checks.
#
# The parameters cell below lists the variances used. `sigma2_lambda4` is the table of the sieve paper's
# Appendix A.1; `sigma2_cf` runs from well below 1, where the distribution is nearly a three-point law, up to
# 909.1, the largest variance in the census {term}`allocations <allocation>`. `dps` is the {term}`working precision <dps>` of the
# high-precision checks: 60 significant decimal digits, far more than double precision's 16, so that two
# independent formulas can be compared to fifty digits.

# %% tags=["parameters", "hide-cell"]
dps = 60  # working precision (decimal digits) for the high-precision checks
sigma2_lambda4 = ["0.1", "0.2", "0.4", "1", "2", "4", "10"]  # the sieve paper's Appendix A.1 table
sigma2_cf = ["0.05", "0.3", "2.5", "20.9", "909.1"]  # from below the census' smallest σ² (0.668) to its largest

# %% tags=["hide-cell"]
import html
import math

import matplotlib.pyplot as plt
import mpmath
import numpy as np
from IPython.display import HTML
from myst_nb import glue

from accountlib.engine import discrete_gaussian as dg
from accountbook import ledger

# %% [markdown]
# ## The pmf against the continuous density
#
# At $\sigma^2 = 0.3$ almost all mass sits on $\{-1,0,1\}$ and the continuous density with the
# same $\sigma$ is a poor description; at $\sigma^2 = 2.5$ (the smallest variance of allocation 13, the sieve paper's
# $M_0$; the census's smallest is 0.668, in allocation 6) the two are hard to tell apart by eye ({numref}`fig-dg-pmf`). The reason is visible in the formula: the
# continuous density spreads its mass over the whole real line, and for small $\sigma$ most of that mass
# lies between the integers, where the discrete law has none. Normalising by $\Theta(\sigma^2)$ instead of
# $\sqrt{2\pi\sigma^2}$ puts all of it on the integers, so the stems at $-1, 0, 1$ stand well above the
# density. Once $\sigma$ is a few units, the bell is wide compared with the spacing of the integers and
# sampling it at the integers loses almost nothing. How much "almost" is, is the subject of the rest of
# the chapter.

# %% mystnb={"figure": {"caption": "The discrete Gaussian pmf (stems) against the continuous normal density with the same parameter (line), at \u03c3\u00b2 = 0.3 (left: mass concentrated on \u22121, 0, 1, well above the density) and \u03c3\u00b2 = 2.5, the smallest variance of allocation 13 (right: the two agree to the eye; the census's smallest variance, 0.668 in allocation 6, lies between the two panels).", "name": "fig-dg-pmf"}} tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=False)
for ax, s2 in zip(axes, ["0.3", "2.5"]):
    xs = np.arange(-6, 7)
    grid = np.linspace(-6, 6, 400)
    ax.vlines(xs, 0, dg.pmf_float(xs, s2), lw=3, label=r"$\mathcal{N}_\mathbb{Z}(0,\sigma^2)$ pmf")
    ax.plot(grid, np.exp(-grid**2 / (2 * float(s2))) / np.sqrt(2 * np.pi * float(s2)), "C1", label=r"$\mathcal{N}(0,\sigma^2)$ density")
    ax.set_title(rf"$\sigma^2 = {s2}$")
    ax.set_xlabel("x")
    ax.set_ylabel("probability / density")
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
# a sum of Gaussians centred on the {term}`lattice` $2\pi\mathbb Z$, which needs only a handful of terms
# once $\sigma^2 \gtrsim 1$. `cf(form="auto")` picks the shorter one. Below, the two forms are
# evaluated independently at 60 digits; their largest disagreement is printed.
#
# ```{prf:proposition} Poisson summation for the discrete Gaussian
# :label: prop-dg-dual
#
# For every $\sigma^2 > 0$ and real $\theta$, the direct sum $\sum_{x\in\mathbb Z} p(x)\cos(\theta x)$ and the
# dual sum displayed above are equal. The terms of the direct sum decay like $e^{-x^2/2\sigma^2}$, those of
# the dual sum like $e^{-2\pi^2\sigma^2u^2}$.
# ```
#
# The proof is one application of the Poisson summation formula, $\sum_x f(x) = \sum_u \hat f(2\pi u)$, to
# the Gaussian $f(x) = e^{-x^2/2\sigma^2 + i\theta x}$, whose Fourier transform is again a Gaussian, now
# with variance $1/\sigma^2$. The two decay rates are mirror images: a wide bell in $x$ (large $\sigma^2$)
# is a narrow bell in the frequency $u$, and vice versa. So the direct form is cheap for small $\sigma^2$,
# the dual form for large $\sigma^2$, and near $\sigma^2 = 1/(2\pi)$ they cost the same. Because the two forms
# share no arithmetic — different sums, different terms, different truncations — their agreement to fifty
# digits is a strong check that both are implemented correctly. The characteristic function matters
# because the quadrature chapters ({doc}`04_fourier_inversion`, {doc}`05_trapezoid_convergence`) compute
# probabilities of sums of discrete Gaussians by integrating products of such functions.

# %% tags=["nbval-check-output"]
thetas = ["0.001", "0.1", "1/3", "1", "2", "3", "3.14159"]
print(f"{'sigma2':>7} {'direct terms':>13} {'dual terms':>11} {'max |direct - dual|':>20}")
for s2 in sigma2_cf:
    gap = max(abs(dg.cf(t, s2, form="direct", dps=dps) - dg.cf(t, s2, form="dual", dps=dps)) for t in thetas)
    terms = dg.cf_terms(s2, dps=dps)
    print(f"{s2:>7} {terms['direct']:>13d} {terms['dual']:>11d} {'below 1e-50' if gap < mpmath.mpf('1e-50') else 'ABOVE 1e-50':>20}")

# %% [markdown]
# The table shows the trade-off in numbers: the direct sum needs more terms as $\sigma^2$ grows (its terms
# decay more slowly), while the dual sum needs fewer. {numref}`fig-dg-cf` draws $\varphi$ over one period
# for three variances. Each curve is a peak at $\theta = 0$; the larger $\sigma^2$, the narrower the peak,
# since a wide distribution decorrelates quickly under a phase $e^{i\theta x}$. For $\sigma^2 = 0.3$ the curve
# does not reach zero: at $\theta = \pi$ the phases $\cos(\pi x) = (-1)^x$ of a law concentrated on
# $\{-1, 0, 1\}$ do not cancel. This periodic peak structure, one peak per period $2\pi$, is what the
# {term}`sieve` of {doc}`06_sieve` exploits when it multiplies many such functions with different scalings.

# %% mystnb={"figure": {"caption": "The characteristic function of the discrete Gaussian over one period, for \u03c3\u00b2 = 0.3, 2.5 and 20.9: a peak at \u03b8 = 0 that narrows as \u03c3\u00b2 grows; for small \u03c3\u00b2 it stays well above zero at \u03b8 = \u03c0.", "name": "fig-dg-cf"}} tags=["hide-input"]
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
# The discrete Gaussian is sub-Gaussian with the *same* parameter as its continuous cousin.
#
# ```{prf:proposition} Sub-Gaussian tails (sieve paper, Appendix A.1, after Canonne, Kamath and Steinke)
# :label: prop-dg-subgaussian
#
# If $X \sim \mathcal N_{\mathbb Z}(0, \sigma^2)$, then $\mathbb E e^{tX} \le e^{t^2\sigma^2/2}$ for every real
# $t$, and consequently $\Pr(X \ge k) \le e^{-k^2/2\sigma^2}$ for every $k \ge 0$.
# ```
#
# The first statement is proved in {cite}`canonne2020discrete` and used by the sieve paper
# {cite}`su2026sieve`; the second follows by the {term}`Chernoff bound`: by Markov's inequality,
# $\Pr(X \ge k) \le e^{-tk}\,\mathbb E e^{tX} \le e^{-tk + t^2\sigma^2/2}$, and the choice $t = k/\sigma^2$
# minimises the exponent. This is the bound the quadrature engine uses to truncate the lattice: it says
# how far out one must go before the neglected probability is below a target such as $10^{-35}$, and it is
# a rigorous inequality, not an estimate. The exact tail, computed by `dg.tail` as a certified sum, sits
# below the bound by a factor that grows slowly with $k$ ({numref}`fig-dg-tail`) and levels off: far out, the
# tail is dominated by its first term $p(k) = e^{-k^2/2\sigma^2}/\Theta(\sigma^2)$, so the ratio bound / exact
# can never exceed $\Theta(\sigma^2) \approx \sqrt{2\pi\sigma^2}$ (about 4 at $\sigma^2 = 2.5$). The Chernoff
# bound loses only this constant, and keeps the exponent, which is what matters for {term}`truncation`.

# %% mystnb={"figure": {"caption": "Tail probabilities of the discrete Gaussian with \u03c3\u00b2 = 2.5: exact Pr(X \u2265 k) (points) and the sub-Gaussian bound exp(\u2212k\u00b2/(2\u03c3\u00b2)) (line), on a log scale. The bound holds at every k and is loose by a factor that grows slowly with k.", "name": "fig-dg-tail"}} tags=["hide-input"]
s2 = "2.5"
ks = np.arange(0, 26)
exact_tail = [float(dg.tail(int(k), s2, dps=30)) for k in ks]
bound = [dg.subgaussian_tail_bound(int(k), s2) for k in ks]
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.semilogy(ks, exact_tail, "o", label=r"exact $\Pr(X\geq k)$")
ax.semilogy(ks, bound, "-", label=r"bound $e^{-k^2/2\sigma^2}$")
ax.set_xlabel("k")
ax.set_ylabel("tail probability")
ax.set_title(r"Tail of $\mathcal{N}_\mathbb{Z}(0, 2.5)$")
ax.legend()
fig.tight_layout()

# %% tags=["nbval-check-output"]
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
# differentiates only the latter. The sieve paper's Appendix A.1 lists $\lambda_4$ for seven variances,
# which this section recomputes.
#
# A word on the vocabulary. The {term}`cumulant`s $\kappa_j$ are the Taylor coefficients of the cumulant
# generating function $K(t) = \log \mathbb E e^{tX}$: $\kappa_2$ is the variance, and for a normal
# distribution every cumulant beyond the second is zero. So $\kappa_4$ is a direct measure of
# non-normality, and dividing by $\kappa_2^2$ makes it scale-free. "Catastrophic cancellation" means
# subtracting two nearly equal numbers: $m_4$ and $3m_2^2$ agree in their first eighty digits at
# $\sigma^2 = 10$, so computing their difference would need more than eighty digits of {term}`working precision <dps>`
# just to get the first digit of $\kappa_4$ right. The Poisson-summation split avoids this:
#
# $$
# K(t) = \frac{\sigma^2t^2}{2} + \log\frac{\sum_{u} e^{-2\pi^2\sigma^2u^2}\cos(2\pi u\sigma^2t)}{\sum_{u} e^{-2\pi^2\sigma^2u^2}},
# $$
#
# whose first term is the cumulant generating function of the continuous Gaussian and contributes only to
# $\kappa_2$. Every higher cumulant comes from the second term alone, which is small and computed directly.
# Keeping only the $u = \pm1$ terms, with $q = e^{-2\pi^2\sigma^2}$, the second term is about
# $2q(\cos(2\pi\sigma^2t) - 1)$, whose fourth derivative at zero gives $\kappa_4 \approx 2q(2\pi\sigma^2)^4 > 0$,
# and whose second derivative gives $\kappa_2 \approx \sigma^2 - 2q(2\pi\sigma^2)^2 < \sigma^2$: the variance is
# slightly *smaller* than the parameter, as announced. The table below prints $\kappa_4$ and $\lambda_4$ at
# the seven variances of the sieve paper's table.

# %% tags=["hide-input", "nbval-check-output"]
lambda4_values = {}
print(f"{'sigma2':>6} {'kappa4':>10} {'lambda4':>12}")
for s2 in sigma2_lambda4:
    lambda4_values[s2] = dg.lambda4(s2, dps=dps)
    kappa4 = dg.cumulants(s2, 4, dps=dps)[3]
    print(f"{s2:>6} {mpmath.nstr(kappa4, 3):>10} {mpmath.nstr(lambda4_values[s2], 6):>12}")

# %% [markdown]
# $\lambda_4$ falls like $e^{-2\pi^2\sigma^2}$: by $\sigma^2 = 2.5$, the smallest variance of allocation 13,
# a single discrete Gaussian is Gaussian to about seventeen digits in its cumulants ($\lambda_4 \approx 7\times10^{-18}$).
# The census's smallest variance is lower, $\sigma^2 = 0.668$ (allocation 6), where $\lambda_4 \approx 2.6\times10^{-3}$. Yet composing
# many of them is *not* the same as composing Gaussians, as the next figure starts to show.
#
# Two remarks keep this in proportion. First, a small $\lambda_4$ says that the *moments* are nearly
# Gaussian; it does not say that probabilities at a single integer are close to densities, because the
# lattice itself is a non-Gaussian feature that no finite set of moments captures. Second, the values at
# $\sigma^2 = 0.1$ and $0.2$ are large ($\lambda_4 \approx 72$ and $4$): there the law is essentially
# three points, and a three-point law with most of its mass at 0 is strongly peaked, hence strongly
# leptokurtic. All seven values agree with the paper's table.

# %% tags=["remove-cell"]
rows = "".join(f"<tr><td>{s2}</td><td>{mpmath.nstr(v, 6)}</td>"
               f"<td>{html.escape(ledger.claim(f'sieve.A1.lambda4.sigma2={s2}')['paper'])}</td></tr>"
               for s2, v in lambda4_values.items())
glue("lambda4_against_the_paper",
     HTML("<table class='table'><thead><tr><th>σ²</th><th>λ₄ (this chapter)</th>"
          f"<th>λ₄ (sieve paper)</th></tr></thead><tbody>{rows}</tbody></table>"),
     display=False)
_ = ledger.reproduce({f"sieve.A1.lambda4.sigma2={s2}": mpmath.nstr(v, 12) for s2, v in lambda4_values.items()})

# %% [markdown]
# ````{dropdown} Reproduction notes
# The sieve paper's Appendix A.1 prints $\lambda_4$ at these seven variances. The
# [reproduction ledger](../book/ledger.md) records both columns and checks that our value, rounded as the paper
# rounds it, equals the paper's digits (and, at $\sigma^2 = 10$, that the paper's inequality holds).
#
# ```{glue} lambda4_against_the_paper
# ```
# ````

# %% [markdown]
# ## Adding two discrete Gaussians (the sieve paper's Figure 1)
#
# The census sums many independent noise terms. The pmf of a sum is a convolution, computed here
# exactly by `lattice_sum_pmf` (a direct convolution, independent of any Fourier method). Against
# the continuous Gaussian density with the same variance, the lattice pmf oscillates: it overshoots
# at some integers and undershoots at others. The paper does not state the variances behind its
# Figure 1; we use $\sigma_1^2 = 0.2$ and $\sigma_2^2 = 0.3$, small enough for the discrepancy to
# be visible. The lower panel of {numref}`fig-dg-sum` shows the difference, pmf minus density.
#
# Why do sums matter? Each census count receives its own noise, but the privacy loss of a whole release
# is governed by a weighted sum of the noise terms along a {term}`geographic path` (see
# {doc}`04_fourier_inversion`). If sums of discrete Gaussians were again discrete Gaussians, or close enough to
# normal, exact accounting would reduce to the closed forms of Gaussian differential privacy
# {cite}`dong2022gaussian`. The figure shows that they are not: the mismatch is small but systematic, and it
# has the sign pattern of a lattice effect rather than of random error.

# %% mystnb={"figure": {"caption": "The sieve paper's Figure 1 recomputed with \u03c3\u2081\u00b2 = 0.2 and \u03c3\u2082\u00b2 = 0.3: top, the exact pmf of X\u2081 + X\u2082 (points) and the normal density with the same variance (line); bottom, pmf minus density at each integer, which changes sign from the centre outwards.", "name": "fig-dg-sum"}} tags=["hide-input"]
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
top.set_ylabel("probability / density")
top.set_title(r"Sum of two discrete Gaussians against the normal density")
top.legend()
bottom.axhline(0, color="gray", lw=0.8)
bottom.vlines(support[keep], 0, values[keep] - density(support[keep]), lw=3, color="C2")
bottom.set_xlabel("x")
bottom.set_ylabel("pmf − density")
fig.tight_layout()

# %% tags=["nbval-check-output"]
print(f"Var(X1 + X2) = {var_sum:.6f}  (sum of sigma^2 = {sum(map(float, pair)):.1f})")
print(f"largest |pmf - density| on the integers: {np.max(np.abs(values - density(support))):.4f}")

# %% [markdown]
# The variance of the sum is a little below $0.2 + 0.3 = 0.5$ (each term's variance is below its
# parameter, as shown above), and the largest discrepancy between pmf and density on the integers is about
# 0.03 in probability — visible on the plot, and far larger than any numerical error. {doc}`08_edgeworth` explains this oscillation through the lattice {term}`Edgeworth expansion`
# and measures when it matters for privacy; the quadrature chapters show how to compute tail probabilities
# of such sums exactly, for eighty terms at a time, to 35 digits.
#
# ## Summary
#
# - The discrete Gaussian $\mathcal N_{\mathbb Z}(0,\sigma^2)$ puts mass $e^{-x^2/2\sigma^2}/\Theta(\sigma^2)$ on
#   each integer; its parameter $\sigma^2$ exceeds its variance, noticeably only for $\sigma^2$ below about 1.
# - Its characteristic function has a direct and a dual form ({prf:ref}`prop-dg-dual`), related by Poisson
#   summation; the direct one is cheap for small $\sigma^2$, the dual for large, and they agree to fifty
#   digits at every variance tested.
# - It is sub-Gaussian with parameter $\sigma^2$ ({prf:ref}`prop-dg-subgaussian`), so its tails can be cut
#   with a rigorous error bound — the basis of every truncation in the quadrature chapters.
# - Its fourth cumulant is positive: the law is leptokurtic, and $\lambda_4$ falls like $e^{-2\pi^2\sigma^2}$,
#   from about 72 at $\sigma^2 = 0.1$ to below $10^{-50}$ at $\sigma^2 = 10$, matching the sieve paper's
#   Appendix A.1 at all seven variances.
# - Sums of discrete Gaussians oscillate around the normal density; {doc}`08_edgeworth` explains the
#   oscillation and measures when it matters for privacy accounting.
#
# ## Exercises
#
# ```{exercise} Which form is cheaper? (★, run)
# :label: ex-dg-terms
#
# % change: sigma2_cf = ["0.05", "0.3", "2.5", "5", "20.9", "50", "909.1"]
# Add `"5"` and `"50"` to `sigma2_cf` in the parameters cell and re-run the chapter. How do the numbers of
# terms of the direct and the dual form change with $\sigma^2$, and do the two forms still agree to fifty
# digits? Explain the trend with {prf:ref}`prop-dg-dual`.
# ```

# %% [markdown]
# ```{solution-start} ex-dg-terms
# :class: dropdown
# ```
#
# The direct sum's terms decay like $e^{-x^2/2\sigma^2}$, so the number needed for $D$ digits grows like
# $\sigma\sqrt{2D\ln 10}$; the dual sum's terms decay like $e^{-2\pi^2\sigma^2u^2}$, so it needs *fewer* terms
# as $\sigma^2$ grows. The code checks both trends over the variances of `sigma2_cf`, and the agreement of the two
# forms at each.

# %%
by_variance = sorted(sigma2_cf, key=mpmath.mpf)
counts = {s2: dg.cf_terms(s2, dps=dps) for s2 in by_variance}
for s2 in by_variance:
    assert max(abs(dg.cf(th, s2, form="direct", dps=dps) - dg.cf(th, s2, form="dual", dps=dps))
               for th in ["0.1", "1", "3"]) < mpmath.mpf(10) ** (10 - dps)  # the forms agree to the working digits
    print(f"σ² = {s2:>6}: direct form {counts[s2]['direct']:>4} terms, dual form {counts[s2]['dual']:>3}")
direct, dual = [counts[s2]["direct"] for s2 in by_variance], [counts[s2]["dual"] for s2 in by_variance]
assert all(a <= b for a, b in zip(direct, direct[1:])) and all(a >= b for a, b in zip(dual, dual[1:]))

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} How loose is the tail bound? (★★, derive)
# :label: ex-dg-tail
#
# Prove that the ratio of the bound of {prf:ref}`prop-dg-subgaussian` to the exact tail,
# $e^{-k^2/2\sigma^2}/\Pr(X \ge k)$, is at most $\Theta(\sigma^2)$ for every integer $k \ge 0$, and that it tends to
# $\Theta(\sigma^2)$ as $k \to \infty$. Then redo the tail comparison of {numref}`fig-dg-tail` at $\sigma^2 = 10$
# for $k = 0, 1, \dots, 40$ and check both statements.
# ```
#
# ```{solution-start} ex-dg-tail
# :class: dropdown instructor-only
# ```
#
# The tail $\Pr(X \ge k) = \sum_{x \ge k} e^{-x^2/2\sigma^2}/\Theta(\sigma^2)$ is at least its first term
# $e^{-k^2/2\sigma^2}/\Theta(\sigma^2)$, so the ratio is at most $\Theta(\sigma^2)$. For the limit, divide the tail
# by its first term:
#
# $$\frac{\Theta(\sigma^2)\Pr(X \ge k)}{e^{-k^2/2\sigma^2}} = \sum_{j \ge 0} e^{-(2kj + j^2)/2\sigma^2}
#   \le 1 + \sum_{j \ge 1} e^{-kj/\sigma^2} = 1 + \frac{e^{-k/\sigma^2}}{1 - e^{-k/\sigma^2}} \;\longrightarrow\; 1,$$
#
# so the ratio tends to $\Theta(\sigma^2)$: the bound is tight in the exponent and loose by at most the
# constant $\Theta(\sigma^2) \approx \sqrt{2\pi\sigma^2}$, reached far out. The code checks the bound, the
# constant and the geometric estimate at $\sigma^2 = 10$.

# %%
ks10 = range(0, 41)
exact10 = [dg.tail(k, "10", dps=30) for k in ks10]
bound10 = [dg.subgaussian_tail_bound(k, "10") for k in ks10]
assert all(e <= b for e, b in zip(exact10, bound10))
ratio10 = [b / float(e) for e, b in zip(exact10, bound10)]
assert ratio10[40] > ratio10[10] > 1
theta10 = float(mpmath.exp(dg.log_normalizer("10", dps=30)))
assert max(ratio10) <= theta10 * (1 + 1e-12)
for k in range(1, 41):  # Θ·tail / first term lies between 1 and 1 + e^{-k/σ²}/(1 − e^{-k/σ²})
    excess = theta10 * float(exact10[k]) / math.exp(-k**2 / 20)
    assert 1 <= excess <= 1 + math.exp(-k / 10) / (1 - math.exp(-k / 10)) + 1e-12
print(f"bound / exact at k = 10: {ratio10[10]:.2f}, at k = 40: {ratio10[40]:.2f}; Theta(10) = {theta10:.2f}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The leading term of the fourth cumulant (★★, derive)
# :label: ex-dg-kappa4
#
# Starting from the Poisson-summation form of $K(t)$ above, keep only the $u = \pm 1$ terms and derive
# $\kappa_4 \approx 2q(2\pi\sigma^2)^4$ with $q = e^{-2\pi^2\sigma^2}$, hence $\lambda_4 \approx 2q(2\pi\sigma^2)^4/\sigma^4$
# for large $\sigma^2$. What is the relative size of the neglected terms? Check the approximation against
# `dg.lambda4` at $\sigma^2 = 2$ and $4$.
# ```
#
# ```{solution-start} ex-dg-kappa4
# :class: dropdown
# ```
#
# With only $u = 0, \pm1$, the ratio inside the logarithm is $(1 + 2q\cos(2\pi\sigma^2 t))/(1 + 2q)$, so
# $K(t) - \sigma^2t^2/2 = \log(1 + 2q\cos(2\pi\sigma^2t)) - \log(1 + 2q) = 2q(\cos(2\pi\sigma^2 t) - 1) + O(q^2)$.
# The fourth derivative of $\cos(ct)$ at $0$ is $c^4$, so $\kappa_4 = 2q(2\pi\sigma^2)^4(1 + O(q))$; the second
# derivative is $-c^2$, so $\kappa_2 = \sigma^2 - 2q(2\pi\sigma^2)^2 + O(q^2)$ and $\kappa_2^2 = \sigma^4(1 + O(q))$
# for $\sigma^2 \ge 1$. The neglected terms (the $u = \pm2$ terms, of size $q^4$, the square of the $u = \pm1$ term
# in the logarithm, and the correction to $\kappa_2$) are of relative size $q = e^{-2\pi^2\sigma^2}$, about
# $10^{-17}$ at $\sigma^2 = 2$. So the approximation should agree to many digits, which the code checks at a
# loose $10^{-8}$; it also checks that $\lambda_4$ is positive.

# %%
for s2_check in ["2", "4"]:
    with mpmath.workdps(dps):
        s2_mp = mpmath.mpf(s2_check)
        q = mpmath.exp(-2 * mpmath.pi**2 * s2_mp)
        leading = 2 * q * (2 * mpmath.pi * s2_mp) ** 4 / s2_mp**2
        exact_l4 = dg.lambda4(s2_check, dps=dps)
        assert exact_l4 > 0
        assert abs(exact_l4 / leading - 1) < mpmath.mpf("1e-8"), (s2_check, exact_l4, leading)
        print(f"sigma^2 = {s2_check}: lambda4 = {mpmath.nstr(exact_l4, 10)}, leading term {mpmath.nstr(leading, 10)}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The variance is below the parameter (★★, derive)
# :label: ex-dg-variance
#
# Differentiate the dual form of the characteristic function twice at $\theta = 0$ to show that
#
# $$\operatorname{Var}X = \sigma^2 - \sigma^4\,\frac{\sum_{u\in\mathbb Z}(2\pi u)^2 e^{-2\pi^2\sigma^2u^2}}{\sum_{u\in\mathbb Z} e^{-2\pi^2\sigma^2u^2}}$$
#
# for $X \sim \mathcal N_{\mathbb Z}(0, \sigma^2)$, so that $\operatorname{Var}X < \sigma^2$ for every $\sigma^2 > 0$.
# Check the formula against `dg.variance` at $\sigma^2 \in \{0.1, 0.5, 1, 2.5\}$.
# ```
#
# ```{solution-start} ex-dg-variance
# :class: dropdown instructor-only
# ```
#
# Write $g(x) = e^{-\sigma^2x^2/2}$ and $Z = \sum_u g(2\pi u)$, so that $\varphi(\theta) = \sum_u g(\theta - 2\pi u)/Z$
# ({prf:ref}`prop-dg-dual`). The series converges uniformly with its derivatives, so it may be differentiated
# term by term, and $g''(x) = (\sigma^4x^2 - \sigma^2)g(x)$. Since $X$ is symmetric, $\mathbb E X = 0$ and
#
# $$\operatorname{Var}X = -\varphi''(0) = \frac{1}{Z}\sum_u \bigl(\sigma^2 - \sigma^4(2\pi u)^2\bigr)\,g(2\pi u)
#   = \sigma^2 - \frac{\sigma^4}{Z}\sum_u (2\pi u)^2 e^{-2\pi^2\sigma^2u^2}.$$
#
# Every term of the last sum is non-negative and those with $u \ne 0$ are positive, so the variance is
# strictly below $\sigma^2$. For large $\sigma^2$ the deficit is about $2\sigma^4(2\pi)^2e^{-2\pi^2\sigma^2}$,
# the $\kappa_2$ correction of the cumulant derivation above.

# %%
for s2_check in ["0.1", "0.5", "1", "2.5"]:
    with mpmath.workdps(dps):
        s2_mp = mpmath.mpf(s2_check)
        weights = [mpmath.exp(-2 * mpmath.pi**2 * s2_mp * u**2) for u in range(-30, 31)]
        moment = sum((2 * mpmath.pi * u) ** 2 * w for u, w in zip(range(-30, 31), weights)) / sum(weights)
        formula = s2_mp - s2_mp**2 * moment
        direct = dg.variance(s2_check, dps=dps)
        assert formula < s2_mp and abs(formula - direct) < mpmath.mpf(10) ** (-40), (s2_check, formula, direct)
        print(f"sigma^2 = {s2_check}: Var X = {mpmath.nstr(direct, 12)} (formula {mpmath.nstr(formula, 12)})")

# %% [markdown]
# ```{solution-end}
# ```
