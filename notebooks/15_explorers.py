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
# (chapter-explorers)=
# # Explorers
#
# ```{admonition} What you will learn
# :class: tip
#
# - how to read five of the book's central pictures as families of curves, one curve per value of a parameter, and
#   what each family says: the {term}`Γ gap` of zCDP in the shift $s$ and in the sampling rate $q$, discrete against
#   continuous Gaussian noise, the convergence of the {term}`trapezoidal rule`, and the census
#   {term}`pairs <pair (of allocations)>` allocation by allocation;
# - what to expect *before* moving a slider, and why, from the propositions of the earlier chapters;
# - how to reproduce any curve of this page, or one that is not on it, by calling the functions of
#   `accountbook.explorers` with arguments of your own, and how to check what you see with a few lines of code.
# ```
#
# ```{admonition} What you need
# :class: note
#
# This chapter revisits the book rather than adding to it, so it draws on all of it. From the
# {doc}`primer <02_primer>`: the privacy profile ({prf:ref}`def-privacy-profile`), $\mu$-GDP ({prf:ref}`def-gdp`), the
# privacy-loss distribution ({prf:ref}`def-pld`), Rényi DP and zCDP ({prf:ref}`def-rdp`, {prf:ref}`def-zcdp`) with the
# conversion the Census Bureau used for the DHC ({prf:ref}`prop-primer-zcdp-to-dp`), and allocations
# ({prf:ref}`def-allocation`).
# The first two explorers build on {doc}`11_what_zcdp_forgets`, the third on {doc}`03_discrete_gaussian` and
# {doc}`08_edgeworth`, the fourth on {doc}`04_fourier_inversion` and {doc}`05_trapezoid_convergence`, and the fifth on
# {doc}`07_census_dhc`. You can read each section on its own once you have read the chapter it builds on.
# ```
#
# The other chapters of this book draw each picture for fixed parameters. An {term}`explorer` draws the same picture
# for a whole range of a parameter and lets you move through the range with a slider. On this page each explorer comes
# in three forms. The **interactive figure** holds the curves for a grid of parameter values, all computed with
# `accountlib` when the book was built; the slider under it switches between them in your browser. It is drawn with
# Plotly, a JavaScript plotting library that ships with the book, so it needs neither a network connection nor a
# running Python: drag the slider or click a point on its rail, and hover over a curve to read its values. A **printed
# copy** shows instead a still figure with three of the grid values (the first, the middle and the last) drawn
# together. Opened as a notebook (`make lab`, or the `.ipynb` in the download menu), each explorer is followed by a
# **live** version: ipywidgets controls, Jupyter's sliders that call Python each time they move, recompute the curves
# with `accountlib` for *any* value you pick, not only the stored ones. The live version needs a running kernel, so
# in the rendered book its cell shows only a note saying so.
#
# The chapter is written so that it reads also with the figures standing still. Each section says what is drawn, what
# to try, what you should see, and why the theory of the earlier chapters predicts it, with the numbers quoted from
# the same functions that draw the curves. The exercises at the end ask you to change the arguments of those
# functions in code and check a prediction with an `assert`, which is how a picture becomes evidence, and to derive
# three of the patterns you see by hand. This page only draws: every number comes from the library.

# %% tags=["parameters", "hide-cell"]
census_k = 13  # the allocation paired with every other one in the census explorer (13 is the paper's Table 1)
census_results = "../results/dhc"  # the full sweep's per-pair files
powers_shift = 0.02  # the exercise on the powers of s: the larger of the two shifts (the other is half of it)
noise_z = 2.0  # the exercise "More noise, same story": the noise multiplier z
aliasing_sigma2 = 8  # the exercise on the aliased mass: the variance σ²
census_row = 1  # the exercise "Another row of the census": the allocation k of the row

# %% tags=["hide-cell"]
import math
from fractions import Fraction

import matplotlib.pyplot as plt
import mpmath
import numpy as np
from IPython.display import HTML, display

from accountlib.applications import census
from accountlib.engine import discrete_gaussian as dg
from accountlib.theory import rdp
from accountbook import explorers

# %% [markdown]
# ## How an explorer is made
#
# Each explorer is built from one function that computes its curves for a single parameter value and returns them as a
# list of `Series` objects (a name, the $x$ and $y$ values, and how to draw them):
#
# | explorer | function for one value | the slider sets |
# |---|---|---|
# | 1. the gap in the shift | `gap_series(s, orders)` | the shift $s$ |
# | 2. the gap in the sampling rate | `subsampled_gap_series(q, orders, z=1.0)` | the rate $q$ |
# | 3. discrete against continuous | `discrete_continuous_series(sigma2, ms)` | the variance $\sigma^2$ |
# | 4. trapezoid error | `trapezoid_series(sigma2, node_counts, targets)` | the variance $\sigma^2$ |
# | 5. a census pair | `census_series(k, l, out_dir=...)` | the allocation $l$ |
#
# The other arguments are fixed in the book's explorers and free when you call the functions yourself: the orders $t$,
# the noise multiplier $z$, the numbers of compositions $m$, the node counts $N$ and points $t$, and the allocation
# $k$.
#
# The functions `gap_explorer`, `subsampled_gap_explorer` and so on call them once per value of a grid, and
# `plotly_html`, `static_figure` and `live` draw the result in the three forms described above. Nothing in the drawing
# code computes: to check a picture, call the function for one value and look at the numbers. For example, the gaps of
# the three noises of section 1 at shift $s = 1$:

# %%
for series in explorers.gap_series(1.0, [0.5, 1.0, 2.0, 4.0]):
    values = "  ".join(f"Γ({t:g}) = {abs(g):.4f}"
                       for t, g in zip(series.x, series.y))
    print(f"{series.name:>16}: {values}")

# %% [markdown]
# ## The gap Γ(t) in the shift s
#
# The Rényi curve of a pair $(P, Q)$ is the cumulant generating function of the privacy loss,
# $K(t) = \log \mathbb E_Q\bigl[(dP/dQ)^{t+1}\bigr]$ for orders $t > 0$ ({prf:ref}`def-rdp`). zCDP keeps a single
# number of it, the smallest $\rho$ with $K(t) \le \rho\,t(t+1)$ for all $t$ ({prf:ref}`def-zcdp`), and forgets the
# rest, the gap
#
# $$\Gamma(t) = \rho\,t(t+1) - K(t) \;\ge\; 0 .$$
#
# A positive gap is privacy that zCDP does not credit: every conversion from $\rho$ to $(\varepsilon, \delta)$ uses
# the parabola in place of the curve. {numref}`fig-explorers-gap` draws $\Gamma(t)$ against the order $t$ for the
# three additive noises of the unifying paper's Proposition 4.1 {cite}`su2026unifying`, restated as
# {prf:ref}`prop-zcdp-three-noises`: Gaussian noise, the {term}`Gaussian mixture`
# $\tfrac12 N(-1, 1) + \tfrac12 N(1, 1)$ and {term}`Laplace noise` of density $\tfrac12 e^{-|x|}$, each added to a
# query whose value changes by the shift $s$ between neighbouring data sets. The slider moves $s$ through nine values
# from 0.05 to 2.
#
# **What to try, and what to expect.** Start at the smallest shift and move right. The Gaussian line stays at zero for
# every $s$: the Gaussian's Rényi curve *is* the parabola $t(t+1)s^2/2$, so zCDP describes it exactly. The two other
# gaps collapse as $s$ shrinks, because at small shifts every privacy loss is nearly Gaussian, but at different rates:
# the proposition says the mixture's gap is of order $s^2$ and the Laplace gap of order $s^4$
# ({numref}`ex-explorers-powers` measures the powers, {numref}`ex-explorers-laplace` derives the Laplace one). At $s = 0.05$ and
# $t = 4$ the mixture's gap is about 0.011 and the Laplace gap about $2 \times 10^{-4}$; at $s = 1$ they are 0.69 and
# 3.95 (the table printed above). The reason for the powers is the local expansion of the unifying paper's Theorem
# 3.1, which writes $K(t)$ in powers of $s$ through the {term}`cumulant`s of the privacy loss. The parabola is exactly
# what a Gaussian privacy loss produces, so the gap is made of the terms in which the loss departs from a Gaussian,
# and the lowest power of $s$ among them is the order of the gap. {doc}`11_what_zcdp_forgets` fits the two powers and
# records them in the reproduction ledger.
#
# The two non-Gaussian gaps also differ in the order $t$. The Laplace gap keeps growing with $t$, and at large shifts
# it overtakes the mixture's: at $s = 2$ and $t = 4$ it is more than twenty times larger. The mixture's gap instead
# levels off near $\log 2 \approx 0.69$ however large the order, and from $s = 1$ on the plateau is nearly reached by
# $t = 4$; {numref}`ex-explorers-log2` asks why. Both gaps add up under composition
# ({prf:ref}`thm-zcdp-gap-composition`), so a release of many queries forgets many times what one query forgets. The
# numbers behind these curves come from `accountlib.theory.rdp`: closed forms for the Gaussian and the Laplace noise, and
# {term}`Gauss–Hermite quadrature` for the mixture, with an accuracy check (`cgf_check`) that compares the rule with
# one of twice as many nodes.

# %% mystnb={"figure": {"caption": "Explorer 1: the gap \u0393(t) = \u03c1\u00b7t(t+1) \u2212 K(t) against the order t for Gaussian, Gaussian-mixture and Laplace noise of scale 1; the slider sets the shift s (0.05 to 2). The Gaussian gap is zero at every shift.", "name": "fig-explorers-gap"}} tags=["remove-input"]
gap = explorers.gap_explorer()
display(HTML(explorers.plotly_html(gap)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(gap)
plt.show()

# %% [markdown]
# Live (in Jupyter): any shift $s$ between 0.01 and 3.2, and orders up to 10. At large shifts and orders the
# mixture's integrand peaks far out, near $x \approx (t+1)s$, so the library centres its quadrature rule on that peak;
# `rdp.GaussianMixture(1.0).cgf_check(t, s)` compares the rule with one of twice as many nodes, and you can check
# any point of a live curve with it.

# %% tags=["nbval-ignore-output"]
explorers.live("gap")

# %% [markdown]
# ## The gap in the sampling rate q
#
# A step of {term}`DP-SGD` adds Gaussian noise of standard deviation $zC$ to a sum of clipped gradients over a random
# batch, into which each record enters independently with probability $q$ ({term}`Poisson subsampling`; $z$ is the
# {term}`noise multiplier`, $C$ the clipping norm). On neighbouring data sets its outputs are $Q = N(0, z^2C^2)$ and
# the mixture $P_q = (1 - q)Q + q\,N(v, z^2C^2)$: with probability $1 - q$ the differing record was not sampled and
# the step looks exactly like $Q$. The unifying paper's Proposition 4.2, stated as {prf:ref}`prop-zcdp-subsampling`,
# says that the zCDP parameter of this pair is $\rho = s^2/(2z^2)$ with $s = \Vert v\Vert /C$, whatever $q$, while its Rényi
# curve $K_q$ falls to zero as $q \to 0$. The gap therefore grows as the sampling rate shrinks, towards the whole
# parabola. It can never exceed the parabola, since $K_q(t) = t\,D_{t+1}(P_q\Vert Q) \ge 0$ gives
# $0 \le \Gamma(t) \le \rho\,t(t+1)$.
#
# {numref}`fig-explorers-subsampled` draws $\Gamma(t)$ of one step with $z = 1$ and $s = 1$, so $\rho = 1/2$, against
# orders up to 12, on a logarithmic vertical axis, together with the zCDP parabola $\rho\,t(t+1)$ (dashed grey), the
# ceiling the gap can never pass; the slider sets $q$ from 0.001 to 0.6.
#
# **What to try, and what to expect.** Without subsampling ($q = 1$) the step is a plain Gaussian mechanism, whose
# Rényi curve is exactly the parabola $\rho\,t(t+1)$. The gap is therefore precisely the amount by which subsampling
# lowers the Rényi curve, and zCDP, whose $\rho$ does not move, credits none of it. Watch the distance between the
# solid gap and the dashed parabola: it is the Rényi curve $K_q(t)$ itself. Move $q$ down from 0.6. At
# $q = 0.6$ the gap at $t = 1$ is already about half the parabola (0.52 of $\rho\,t(t+1) = 1$): subsampling has about
# halved $K(1)$. At $q = 0.01$ the curve lies on the parabola at the low orders and bends away from it only at the
# highest ones (at $t = 12$ the gap is 60 of 78), and at $q = 0.001$ the solid line lies on the dashed one, the
# parabola itself to three digits over the whole range: the subsampled step's Rényi curve is nearly zero, while zCDP still charges the full Gaussian
# parabola. Why does $\rho$ not fall with $q$ when the Rényi curve does? Because $\rho$ is a supremum over *all*
# orders, and at very high orders the Rényi divergence is driven by the rare event that the record was sampled, which
# is the full Gaussian step: $K_q(t)/(t(t+1))$ climbs back to $1/(2z^2)$ as $t \to \infty$. That climb is the bend you
# see at $q = 0.01$. The low orders decide $(\varepsilon, \delta)$ at practical $\delta$, and those are exactly what
# zCDP throws away; this is why {doc}`13_dpsgd` finds zCDP-calibrated training noisier than training calibrated with
# the Rényi curve. `accountlib` computes $K_q$ by an exact binomial sum at integer orders {cite}`mironov2019sampled`
# and by Gauss–Hermite quadrature between them.

# %% mystnb={"figure": {"caption": "Explorer 2: the gap \u0393(t) of one Poisson-subsampled Gaussian step (noise multiplier z = 1, shift 1, so \u03c1 = 1/2) against the order t, on a logarithmic axis; the slider sets the sampling rate q (0.001 to 0.6). Dashed: the zCDP parabola \u03c1\u00b7t(t+1), the most the gap can be; as q falls the gap rises onto it.", "name": "fig-explorers-subsampled"}} tags=["remove-input"]
subsampled = explorers.subsampled_gap_explorer()
display(HTML(explorers.plotly_html(subsampled)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(subsampled)
plt.show()

# %% [markdown]
# Live: any rate $q$ and noise multiplier $z$. {numref}`ex-explorers-noise` repeats the explorer with more noise.

# %% tags=["nbval-ignore-output"]
explorers.live("subsampled-gap")

# %% [markdown]
# ## Discrete against continuous Gaussian: δ(ε) in σ² and m
#
# The census adds {term}`discrete Gaussian` noise $N_{\mathbb Z}(0, \sigma^2)$ to its counts, because a count must
# stay an integer {cite}`canonne2020discrete`. How different is its privacy from that of the continuous Gaussian with
# the same $\sigma^2$? {numref}`fig-explorers-discrete` composes $m$ discrete Gaussian mechanisms of sensitivity 1 and
# draws, for $m = 1, 4, 16$ (one colour each), the exact {term}`privacy profile` $\delta(\varepsilon)$ (solid),
# computed with a {term}`certified error bound` of $10^{-6}$ relative, against the profile of $m$ continuous Gaussian
# mechanisms (dotted), which is $\mu$-GDP with $\mu^2 = m/\sigma^2$ ({prf:ref}`prop-edgeworth-gdp`). Each curve runs
# over the range of $\varepsilon$ where the continuous $\delta$ falls from near its top to $10^{-12}$, on a
# logarithmic $\delta$ axis; the slider sets $\sigma^2$ from 0.25 to 50.
#
# Two facts explain the picture. First, the privacy loss of one discrete Gaussian mechanism lives on a
# {term}`lattice`: for $P = N_{\mathbb Z}(1, \sigma^2)$ and $Q = N_{\mathbb Z}(0, \sigma^2)$,
#
# $$L(x) = \log\frac{p(x)}{q(x)} = \frac{x^2 - (x - 1)^2}{2\sigma^2} = \frac{2x - 1}{2\sigma^2},
#   \qquad x \in \mathbb Z,$$
#
# so its values are spaced $1/\sigma^2$ apart, and a sum of $m$ such losses is spaced $1/\sigma^2$ apart too. The
# profile $\delta(\varepsilon) = \mathbb E_P\bigl[(1 - e^{\varepsilon - L})_+\bigr]$ ({prf:ref}`def-pld`) is then a
# sum over the atoms of $L$ above $\varepsilon$. Between two neighbouring atoms it stays nearly flat and then plunges
# as $\varepsilon$ approaches the next atom, whose contribution vanishes there. Where the atoms are far apart the
# exact curve is therefore a staircase of scallops around the smooth continuous profile: below it at the start of each
# step, above it by the end, and far below it at the atoms themselves. Second, as $m$ grows the composed loss becomes
# more nearly Gaussian: the central limit theorem, with the lattice {term}`Edgeworth expansion` of {doc}`08_edgeworth`
# measuring how fast.
#
# **What to try, and what to expect.** Start at $\sigma^2 = 0.25$, where the atoms of one mechanism's loss are 4
# apart: the single mechanism ($m = 1$) is a string of scallops around its dotted partner, from about $10^{-4}$ times
# the continuous $\delta$ at an atom to 5 times it at the end of a step. The continuous formula is not a bound for the
# discrete noise in either direction. With $m = 4$ and $m = 16$ the scallops shrink (within a factor 0.04 to 2.9 and
# 0.24 to 1.7 of the dotted curves). Now move $\sigma^2$ up. From $\sigma^2 = 5$ on, solid and dotted lines almost
# coincide on this scale: one mechanism stays within about 30% of the continuous $\delta$ down to $10^{-12}$, and at
# $\sigma^2 = 50$ all three are within 4%. Larger $m$ moves both curves to the right, since $\mu$ grows like
# $\sqrt m$. For census-scale noise, with 40 to 160 heterogeneous mechanisms per pair, {doc}`08_edgeworth` finds the
# difference (at most about $10^{-6}$ relative, for pair (6, 6)) far
# below anything that matters for a release, though exactness is still needed to *certify* it.

# %% mystnb={"figure": {"caption": "Explorer 3: the exact privacy profile \u03b4(\u03b5) of m composed discrete Gaussian mechanisms N_Z(0, \u03c3\u00b2) (solid, certified to a relative $10^{-6}$) against m continuous Gaussian mechanisms, \u03bc-GDP with \u03bc\u00b2 = m/\u03c3\u00b2 (dotted), for m = 1, 4, 16; the slider sets \u03c3\u00b2 (0.25 to 50).", "name": "fig-explorers-discrete"}} tags=["remove-input"]
discrete = explorers.discrete_continuous_explorer()
display(HTML(explorers.plotly_html(discrete)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(discrete)
plt.show()

# %% [markdown]
# Live: any $\sigma^2$ and any number of compositions $m$. {numref}`ex-explorers-lattice` derives why composing
# four mechanisms is not the same as shrinking the variance of one.

# %% tags=["nbval-ignore-output"]
explorers.live("discrete-continuous")

# %% [markdown]
# ## Trapezoid error against the number of nodes
#
# The exact engine of this book computes each probability of a sum of discrete Gaussians from its characteristic
# function, by the {term}`trapezoidal rule` on $N$ {term}`nodes <quadrature node>` (sieve paper §3.2
# {cite}`su2026sieve`; {doc}`04_fourier_inversion`). For one discrete Gaussian $X \sim N_{\mathbb Z}(0, \sigma^2)$ the
# rule returns $T_N(t)$, and {prf:ref}`prop-fourier-aliasing` says exactly what it gets wrong: the {term}`aliasing` of
# probabilities $N$ lattice points apart,
#
# $$T_N(t) - \Pr(X = t) = \sum_{j \ne 0} \Pr(X = t + jN).$$
#
# {prf:ref}`prop-trapezoid-pmf-bound` turns the Trefethen–Weideman theorem {cite}`trefethen2014trapezoidal`
# ({prf:ref}`thm-trapezoid-strip`) into a rigorous bound on this error, about $2e^{-(N - |t|)^2/2\sigma^2}$, and the
# engine chooses $N$ by that bound. {numref}`fig-explorers-trapezoid` draws, for the three points $t = 0, 2, 5$, the
# actual error (markers) against a reference computed at 50 significant digits ({term}`dps`), and the bound (dashed),
# against $N$ from 4 to 100 on a logarithmic vertical axis; the slider sets $\sigma^2$ to 0.5, 2, 8 or 32. Errors
# below the working precision ($10^{-45}$) are not drawn, nor bounds that exceed 1 and so say nothing.
#
# **What to try, and what to expect.** Three things. The bound lies above the error everywhere: choosing $N$ by the
# bound is safe. Neither line is straight: each bends downwards, because the error falls like a Gaussian in $N$,
# faster than any exponential (the aliased mass $\Pr(X = t \pm N)$ is a Gaussian tail); at $\sigma^2 = 2$ and $t = 0$
# the error drops from $10^{-2}$ at $N = 4$ to $6 \times 10^{-8}$, $10^{-16}$, $9 \times 10^{-29}$ and
# $2 \times 10^{-44}$ at $N = 8, 12, 16, 20$, each step of 4 nodes gaining more digits than the one before. And wider
# noise needs more nodes, in proportion to $\sigma$, not $\sigma^2$: at $t = 0$ the last error drawn above the working
# precision is at $N = 20$, 40 and 80 for $\sigma^2 = 2$, 8 and 32, doubling each time the variance quadruples, since
# the exponent depends on $N/\sigma$. Points farther from the centre ($t = 5$) need a few more nodes, by the $|t|$ in
# the exponent.

# %% mystnb={"figure": {"caption": "Explorer 4: the trapezoid-rule error |T_N \u2212 Pr(X = t)| for X ~ N_Z(0, \u03c3\u00b2) at t = 0, 2, 5 (markers; reference at 50 digits) and the rigorous strip bound the engine uses (dashed), against the number of nodes N; the slider sets \u03c3\u00b2 (0.5 to 32).", "name": "fig-explorers-trapezoid"}} tags=["remove-input"]
trapezoid = explorers.trapezoid_explorer()
display(HTML(explorers.plotly_html(trapezoid)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(trapezoid)
plt.show()

# %% [markdown]
# Live: any $\sigma^2$ and range of node counts. {numref}`ex-explorers-aliasing` checks the aliasing identity point by
# point.

# %% tags=["nbval-ignore-output"]
explorers.live("trapezoid")

# %% [markdown]
# ## A census pair's curves by allocation
#
# The 2020 Census {term}`DHC` File used 43 {term}`allocations <allocation>` of its privacy-loss budget, and the
# privacy of one record is that of a *pair* of allocations $(k, l)$: replacing a record changes counts along the
# geographic path of the old record and along that of the new one ({prf:ref}`prop-census-pairs`). The full sweep of
# {doc}`07_census_dhc` computed every pair's curves with certified bounds; this explorer reads them.
# {numref}`fig-explorers-census` pairs allocation `census_k` = 13 ({term}`M0`, the sieve paper's Table 1) with
# allocation $l$, chosen by the slider. The upper panel draws the pair's exact $\delta(\varepsilon)$ beside the
# $\delta$ of the Bureau's $\rho$-zCDP statement, with $\rho = 4.9622$ converted by
# $\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}$ ({prf:ref}`prop-primer-zcdp-to-dp`). The lower panel draws how far
# the exact curve is from a continuous Gaussian with the same $\rho$ ($\mu$-GDP with $\mu^2 = 2\rho$), as the relative
# distance $|\delta/\delta_{\mathrm{Gauss}} - 1|$, next to the certified relative error of $\delta$: a distance below
# that error is not resolved.
#
# **What to try, and what to expect.** In the upper panel nothing moves: every allocation sums to the same $\rho$, and with
# 100 to 160 mechanisms composed (allocation 13's 80 and the 20 to 80 of allocation $l$) the pair behaves like a Gaussian: each of the 43 curves is within a relative
# $3 \times 10^{-5}$ of the same Gaussian curve, invisible on this scale. The zCDP curve lies above the exact one
# everywhere, and by a factor that grows with $\varepsilon$: about 7 at $\varepsilon = 8.7$, 57 at
# $\varepsilon = 26.7$ (where the Bureau's $\delta$ is $5 \times 10^{-11}$) and 140 at $\varepsilon = 42$. The reason
# is that the conversion is a {term}`Chernoff bound`: its $\delta = e^{-(\varepsilon - \rho)^2/4\rho}$ keeps the
# exponential rate of a Gaussian tail but not the factor in front of it. For a Gaussian privacy loss with
# $\mu^2 = 2\rho$ the exact profile is about $e^{-(\varepsilon - \rho)^2/4\rho}\,\mu/(\sqrt{2\pi}\,x_1x_2)$ with
# $x_{1,2} = \varepsilon/\mu \mp \mu/2$ (the normal tail $\Phi(-x) \approx e^{-x^2/2}/(x\sqrt{2\pi})$ applied to
# {prf:ref}`def-gdp`), so the overstatement grows roughly like $\varepsilon^2$. In the lower panel each allocation leaves
# its own trace. For most allocations the distance to the Gaussian peaks between about $10^{-10}$ and $10^{-8}$; it is
# largest for allocations 6 and 12 (about $3 \times 10^{-5}$) and 39 (about $8 \times 10^{-6}$), and for allocations
# 14 and 21 the distance stays below the certified error at every $\varepsilon$, so the exact curve cannot be told
# apart from the Gaussian at all. Where the distance is above the certified error it is real, and everywhere it is far
# too small to matter for the release. {doc}`08_edgeworth` finds the pairs (13, 13) and (6, 6) this close to a Gaussian; the
# explorer shows the same for all 43 partners of allocation 13, each with its certified error beside it.

# %% mystnb={"figure": {"caption": "Explorer 5: census pair (13, l), read from the full sweep. Upper panel: the exact \u03b4(\u03b5) and the \u03b4 of the Bureau's zCDP statement (\u03c1 = 4.9622). Lower panel: the relative distance of the exact \u03b4 to a continuous Gaussian with the same \u03c1, and the certified relative error of \u03b4. The slider sets the allocation l (1 to 43).", "name": "fig-explorers-census"}} tags=["remove-input"]
census_pairs = explorers.census_explorer(census_results, k=census_k)
display(HTML(explorers.plotly_html(census_pairs)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(census_pairs)
plt.show()

# %% [markdown]
# Live: any pair $(k, l)$ with every noise variance scaled by $c$, recomputed exactly (a few seconds per move). With
# $c < 1$ (less noise) the exact $\delta$ rises, and so does the zCDP curve, since $\rho$ becomes $4.9622/c$.
# {numref}`ex-explorers-census` runs the explorer's checks on another row of the census.

# %% tags=["nbval-ignore-output"]
explorers.live("census")

# %% [markdown]
# ## Summary
#
# - The zCDP parameter $\rho$ keeps one number of a Rényi curve. What it forgets, the gap $\Gamma(t)$, is zero for
#   Gaussian noise, of order $s^2$ for a Gaussian mixture (levelling off at $\log 2$ at high orders) and $s^4$ for
#   Laplace noise ({prf:ref}`prop-zcdp-three-noises`), and under Poisson subsampling it rises to the whole parabola
#   $\rho\,t(t+1)$ as $q \to 0$ ({prf:ref}`prop-zcdp-subsampling`).
# - The privacy loss of discrete Gaussian noise lives on a lattice with spacing $1/\sigma^2$; at small $\sigma^2$ its
#   profile is scalloped around the continuous one, above and below it, and the two merge as $\sigma^2$ or the number
#   of compositions grows.
# - The trapezoid rule's error is the aliased probability mass $N$ lattice points away; it falls like a Gaussian in
#   $N/\sigma$, and the rigorous bound the engine uses lies above it.
# - Every census pair $(13, l)$ is within $3 \times 10^{-5}$ relative of a continuous Gaussian with the same $\rho$,
#   and the Bureau's zCDP statement overstates its $\delta$ by a factor from about 7 to 140 over the range drawn.
# - Each picture is one function of `accountbook.explorers` evaluated over a grid; calling it with your own arguments,
#   and checking a prediction with an `assert`, turns a picture into evidence.

# %% [markdown]
# ## Exercises

# %% [markdown]
# ```{exercise} The powers of s, from two shifts (★, run)
# :label: ex-explorers-powers
#
# % change: powers_shift = 0.01
# Call `explorers.gap_series(s, [1.0, 2.0])` with $s$ = `powers_shift` of the parameters cell (0.02) and again with
# half of it; then set `powers_shift = 0.01` and run the chapter again. By what factor does each
# noise's gap shrink when the shift is halved, and which power of $s$ does that indicate? Check your answer against
# {prf:ref}`prop-zcdp-three-noises`.
# ```
#
# ```{solution-start} ex-explorers-powers
# :class: dropdown
# ```
#
# If $\Gamma(t) \approx c(t)\,s^p$ at small $s$, halving the shift divides the gap by $2^p$, so
# $p \approx \log_2\bigl(\Gamma_{s}(t)/\Gamma_{s/2}(t)\bigr)$. The proposition predicts $p = 2$ for the mixture and
# $p = 4$ for the Laplace noise, that is factors of about 4 and 16, and a gap that stays at zero for the Gaussian. The
# code computes the two estimates of $p$ at both orders and checks them.

# %%
orders_ex = [1.0, 2.0]
coarse = {series.name: series.y for series in explorers.gap_series(powers_shift, orders_ex)}
fine = {series.name: series.y for series in explorers.gap_series(powers_shift / 2, orders_ex)}
powers = {name: np.log2(coarse[name] / fine[name]) for name in ("Gaussian mixture", "Laplace")}
for name, p in powers.items():
    print(f"{name}: halving s = {powers_shift:g} divides the gap by {2 ** p[0]:.2f} (t = 1) and {2 ** p[1]:.2f} "
          f"(t = 2); power {p.round(2)}")
assert np.max(np.abs(coarse["Gaussian"])) < 1e-12 and np.max(np.abs(fine["Gaussian"])) < 1e-12
assert np.all(np.abs(powers["Gaussian mixture"] - 2) < 0.1)
assert np.all(np.abs(powers["Laplace"] - 4) < 0.1)

# %% [markdown]
# At $s = 0.02$ the estimated powers are 2 and 4 to within a few hundredths, at both orders. At larger shifts the two-point estimate
# drifts away from the limit (try $s = 0.5$ and $s = 0.25$), which is why {doc}`11_what_zcdp_forgets` fits the slope
# over $s \le 0.01$ only.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} Why the mixture's gap levels off at log 2 (★★, derive)
# :label: ex-explorers-log2
#
# In {numref}`fig-explorers-gap` at $s = 1$ the mixture's gap climbs to about 0.69 and stays there. Explain why the
# limit as $t \to \infty$ is $\log 2$, and check it with `rdp.GaussianMixture(1.0).gap(t, 1.0)` at a few large orders,
# together with the quadrature check `cgf_check`.
# ```
#
# ```{solution-start} ex-explorers-log2
# :class: dropdown
# ```
#
# Write $\phi$ for the standard normal density, so that $q(x) = \tfrac12\phi(x - 1) + \tfrac12\phi(x + 1)$ and
# $p(x) = q(x - s)$. The factor $(p/q)^{t+1}$ in $K(t) = \log \mathbb E_Q[(p/q)^{t+1}]$ puts, for a large order $t$,
# almost all the weight of the expectation on large outputs $x$, on the side of the shift. There only the right-hand
# components matter: $p(x) \approx \tfrac12\phi(x - s - 1)$ and $q(x) \approx \tfrac12\phi(x - 1)$, so
# $p/q \approx e^{s(x - 1) - s^2/2}$, the likelihood ratio of two Gaussians. Under the right-hand component of $Q$,
# which carries probability $\tfrac12$,
#
# $$\mathbb E_Q\bigl[(p/q)^{t+1}\bigr] \approx \tfrac12\,\mathbb E_{X \sim N(1,1)}\bigl[e^{(t+1)(s(X-1) - s^2/2)}\bigr]
#   = \tfrac12\, e^{t(t+1)s^2/2},$$
#
# while the left-hand component's share becomes negligible as $t$ grows. With $\rho = s^2/2$ (the proposition) this
# says $K(t) \approx \rho\,t(t+1) - \log 2$, so $\Gamma(t) \to \log 2$: zCDP charges for both components, while at
# high orders only one of them, carrying half the mass, is seen. The code checks the limit and that the quadrature
# behind $K$ has converged (the difference between 192 and 384 nodes).

# %%
mixture_ex = rdp.GaussianMixture(1.0)
large_orders = [6.0, 8.0, 10.0]
gaps_large = [mixture_ex.gap(t, 1.0) for t in large_orders]
for t, g in zip(large_orders, gaps_large):
    print(f"t = {t:g}: Γ(t) = {g:.9f}, log 2 - Γ(t) = {math.log(2) - g:.1e}, "
          f"quadrature check {mixture_ex.cgf_check(t, 1.0):.0e}")
assert all(mixture_ex.cgf_check(t, 1.0) < 1e-9 for t in large_orders)
assert gaps_large[0] < gaps_large[1] < gaps_large[2] < math.log(2) + 1e-9
assert abs(gaps_large[-1] - math.log(2)) < 1e-6

# %% [markdown]
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} The Laplace gap is of order s⁴ (★★, derive)
# :label: ex-explorers-laplace
#
# For Laplace noise of scale 1 and shift $s$ the Rényi curve and the zCDP parameter are, by
# {prf:ref}`prop-zcdp-three-noises`,
#
# $$K(t) = \log\Bigl[\tfrac{t+1}{2t+1}\,e^{ts} + \tfrac{t}{2t+1}\,e^{-(t+1)s}\Bigr], \qquad \rho = s + e^{-s} - 1 .$$
#
# Expand both in powers of $s$ and show that $\Gamma(t) = \rho\,t(t+1) - K(t) = \tfrac1{12}\,t^2(t+1)^2 s^4 + O(s^5)$:
# the terms in $s^2$ and $s^3$ cancel. Check the constant with `rdp.Laplace().gap(t, s)` at a small shift, and
# compare with the slope 4 that {numref}`ex-explorers-powers` measures.
# ```
#
# ```{solution-start} ex-explorers-laplace
# :class: dropdown instructor-only
# ```
#
# Write $u = t(t+1)$, $A = \tfrac{t+1}{2t+1}$ and $B = \tfrac{t}{2t+1}$, so that $A + B = 1$, and expand
# $M = Ae^{ts} + Be^{-(t+1)s} = \sum_k c_k s^k/k!$ with $c_k = At^k + B(-(t+1))^k$:
#
# - $c_0 = A + B = 1$ and $c_1 = \bigl(t(t+1) - t(t+1)\bigr)/(2t+1) = 0$;
# - $c_2 = \bigl((t+1)t^2 + t(t+1)^2\bigr)/(2t+1) = t(t+1) = u$;
# - $c_3 = t(t+1)\bigl(t^2 - (t+1)^2\bigr)/(2t+1) = -u$;
# - $c_4 = t(t+1)\bigl(t^3 + (t+1)^3\bigr)/(2t+1) = u\,(t^2 + t + 1) = u(u + 1)$, using
#   $a^3 + b^3 = (a + b)(a^2 - ab + b^2)$ with $a + b = 2t + 1$.
#
# So $M = 1 + \tfrac u2 s^2 - \tfrac u6 s^3 + \tfrac{u(u+1)}{24}s^4 + O(s^5)$, and since $M - 1 = O(s^2)$,
#
# $$K(t) = \log M = (M - 1) - \tfrac12 (M - 1)^2 + O(s^6)
#   = \tfrac u2 s^2 - \tfrac u6 s^3 + \Bigl(\tfrac{u(u+1)}{24} - \tfrac{u^2}{8}\Bigr)s^4 + O(s^5).$$
#
# On the other side $\rho = s + e^{-s} - 1 = \tfrac{s^2}2 - \tfrac{s^3}6 + \tfrac{s^4}{24} + O(s^5)$, so
# $\rho\,u = \tfrac u2 s^2 - \tfrac u6 s^3 + \tfrac u{24}s^4 + O(s^5)$. The terms in $s^2$ and $s^3$ agree, and
#
# $$\Gamma(t) = \Bigl(\tfrac u{24} - \tfrac{u^2 + u}{24} + \tfrac{u^2}8\Bigr)s^4 + O(s^5)
#   = \tfrac{u^2}{12}\,s^4 + O(s^5) = \tfrac1{12}\,t^2(t+1)^2 s^4 + O(s^5).$$
#
# The gap is therefore of order $s^4$ at every fixed order $t$, the Laplace slope of {numref}`ex-explorers-powers`,
# and its constant grows like $t^4$, which is why the Laplace gap keeps rising with the order in
# {numref}`fig-explorers-gap`. (The cancellation of the $s^2$ and $s^3$ terms is no accident: $\rho$ is the
# supremum of $K(t)/u$, here its limit as $t \to 0$, the Kullback–Leibler divergence $s + e^{-s} - 1$, and the
# coefficients of $s^2$ and $s^3$ in $K(t)/u$ do not depend on $t$.) The code compares
# $\Gamma(t)/s^4$ with $u^2/12$ at three shifts: the ratio tends to 1, with a deviation proportional to $s$, the
# $O(s^5)$ term.

# %%
laplace_ex = rdp.Laplace()
for s_ex in (0.04, 0.02, 0.01):
    ratios_ex = [laplace_ex.gap(t, s_ex) / (s_ex**4 * (t * (t + 1)) ** 2 / 12) for t in (0.5, 1.0, 2.0, 4.0)]
    print(f"s = {s_ex}: Γ(t) / (t²(t+1)² s⁴/12) at t = 0.5, 1, 2, 4: {np.round(ratios_ex, 4)}")
    assert all(abs(r - 1) < 1.2 * s_ex for r in ratios_ex)  # 1 + O(s)
assert abs(laplace_ex.rho(0.01) - (0.01 + math.exp(-0.01) - 1)) < 1e-15

# %% [markdown]
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} More noise, same story (★, run)
# :label: ex-explorers-noise
#
# % change: noise_z = 4.0
# Repeat the explorer with the noise multiplier $z$ = `noise_z` of the parameters cell (2) instead of 1, then with
# $z = 4$: call `explorers.subsampled_gap_series(q, orders, z=noise_z)` for $q = 0.001, 0.01, 0.1, 1$ at the orders
# $t = 0.5, 1, 2, 4, 8$. Does $\rho$ depend on $q$? Is the gap between $0$ and $\rho\,t(t+1)$, and does it fall as $q$
# grows? What share of the parabola does it reach at $q = 0.1$, compared with $z = 1$?
# ```
#
# ```{solution-start} ex-explorers-noise
# :class: dropdown
# ```
#
# By {prf:ref}`prop-zcdp-subsampling`, $\rho = 1/(2z^2)$ ($1/8$ at $z = 2$) for every $q$; the bounds
# $0 \le \Gamma(t) \le \rho\,t(t+1)$ hold because $K_q \ge 0$; and at $q = 1$ the step is the plain Gaussian, whose
# gap is zero. A larger $q$ means a larger $K_q$ at every order (more of the step's signal reaches the output), hence
# a smaller gap. The code checks all four statements.

# %%
z_ex = noise_z
rates_ex = [0.001, 0.01, 0.1, 1.0]
orders_sub = np.array([0.5, 1.0, 2.0, 4.0, 8.0])
rhos_ex = [rdp.PoissonSubsampledGaussian(q, z_ex).rho(1.0) for q in rates_ex]
gaps_sub = np.array([explorers.subsampled_gap_series(q, orders_sub, z=z_ex)[0].y for q in rates_ex])
parabola = rhos_ex[0] * orders_sub * (orders_sub + 1)
for q, row in zip(rates_ex, gaps_sub):
    print(f"z = {z_ex:g}, q = {q:<5g}: Γ(t) / (ρ t(t+1)) = {np.round(row / parabola, 4)}")
assert all(rho == 1 / (2 * z_ex**2) for rho in rhos_ex)  # ρ does not depend on q
assert np.all(gaps_sub >= -1e-12) and np.all(gaps_sub <= parabola + 1e-12)
assert np.all(np.diff(gaps_sub, axis=0) <= 1e-12)  # the gap falls as q grows, at every order
assert np.max(np.abs(gaps_sub[-1])) < 1e-9  # q = 1: the plain Gaussian step

# %% [markdown]
# With $z = 2$ the gap at $q = 0.1$ still reaches about 99% of the parabola, where with $z = 1$ it reached 98% at
# $t = 1$ and only 58% at $t = 8$: with more noise a sampled record hides better, $K_q$ stays small to higher orders,
# and the share of the parabola that zCDP charges for nothing is even larger.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} Four mechanisms or one with a quarter of the variance? (★★, derive)
# :label: ex-explorers-lattice
#
# For continuous Gaussians, composing $m = 4$ mechanisms of variance $\sigma^2 = 1$ is exactly as private as one
# mechanism of variance $1/4$: both are $\mu$-GDP with $\mu = 2$. Is the same true of discrete Gaussians? Derive the
# atoms of the two privacy losses, the loss of one $N_{\mathbb Z}(0, 1/4)$ and the sum of the losses of four
# $N_{\mathbb Z}(0, 1)$, and show that the two privacy profiles cannot be equal. Then check what you derived with
# `explorers.discrete_continuous_series(1.0, [4])` and `explorers.discrete_continuous_series(0.25, [1])`.
# ```
#
# ```{solution-start} ex-explorers-lattice
# :class: dropdown
# ```
#
# By section 3, one mechanism $N_{\mathbb Z}(0, \sigma^2)$ with a unit shift has the loss
# $L(x) = (2x - 1)/(2\sigma^2)$ at output $x \in \mathbb Z$. For $\sigma^2 = 1/4$ that is $L = 2(2x - 1)$: the atoms
# are $\dots, -6, -2, 2, 6, 10, \dots$, spaced 4 apart, and none lies strictly between 2 and 6. For four mechanisms
# of variance 1 the losses add, $\sum_{i=1}^4 (2x_i - 1)/2 = x_1 + x_2 + x_3 + x_4 - 2$, and as the $x_i$ range over
# $\mathbb Z$ the sum takes every integer value: atoms spaced 1 apart, among them 3, 4 and 5, each with positive
# probability under $P$.
#
# Now compare the profiles on $(2, 6)$. Writing $\delta(\varepsilon) = \sum_{\ell > \varepsilon}
# P(L = \ell)\,(1 - e^{\varepsilon - \ell})$ ({prf:ref}`def-pld`), the single mechanism's profile on $[2, 6]$ is
# $A - B e^{\varepsilon}$ with constants $A, B > 0$ (the same atoms $\ell \ge 6$ contribute throughout), so
# $\varepsilon \mapsto \delta(\varepsilon) = A - Be^\varepsilon$ is smooth there. The composition's profile loses the
# contribution of the atom $\ell = 4$ as $\varepsilon$ passes 4: its slope
# $\delta'(\varepsilon) = -\sum_{\ell > \varepsilon} P(L = \ell)\,e^{\varepsilon - \ell}$ jumps by
# $P(L = 4)\,e^{0} > 0$ there, so it has a kink at $\varepsilon = 4$ where the single mechanism's profile has none.
# The two profiles are different functions, although both pairs have the same variance of the loss. Composition is
# not the same as shrinking the variance: the sum of four discrete Gaussians is not a discrete Gaussian.
#
# The code checks it: the two calls use the same $\mu$, hence the same grid of $\varepsilon$ and the same continuous
# curve, while the discrete curves differ by far more than their certified error of $10^{-6}$ relative.

# %%
four = explorers.discrete_continuous_series(1.0, [4], points=12)  # four mechanisms N_Z(0, 1)
one = explorers.discrete_continuous_series(0.25, [1], points=12)  # one mechanism N_Z(0, 1/4)
assert np.array_equal(four[0].x, one[0].x)  # the same ε grid (the same μ = 2)
assert np.allclose(four[1].y, one[1].y, rtol=1e-12)  # the continuous profiles coincide
ratio_ex = four[0].y / one[0].y
print("ε:                          ", np.round(four[0].x, 2))
print("δ(4 × N_Z(0, 1)) / δ(N_Z(0, 1/4)):", np.array2string(ratio_ex, precision=3))
assert np.max(np.abs(np.log(ratio_ex))) > 0.5  # the discrete profiles differ by far more than 1e-6

# %% [markdown]
# The ratio swings above and below 1 as $\varepsilon$ passes the atoms $2, 6, 10, 14$ of the single mechanism's loss,
# the scallops of {numref}`fig-explorers-discrete` at $\sigma^2 = 0.25$.
#
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} The error is the aliased mass (★★, code)
# :label: ex-explorers-aliasing
#
# % change: aliasing_sigma2 = 18
# Take $\sigma^2$ = `aliasing_sigma2` of the parameters cell (8) and $t = 0$:
# `explorers.trapezoid_series(aliasing_sigma2, range(8, 41, 4), targets=(0,))`. Check that each
# drawn error equals the alias sum $\sum_{j \ne 0}\Pr(X = jN)$, computed with `accountlib.engine.discrete_gaussian.pmf`, and
# that the bound lies above it. Then change the variance: find the smallest $N$ on the grid $2, 4, 6, \dots$ with an
# error below $10^{-20}$ for a quarter, one and four times $\sigma^2$, and check that it grows like $\sigma$. Do it
# again at $\sigma^2 = 18$.
# ```
#
# ```{solution-start} ex-explorers-aliasing
# :class: dropdown instructor-only
# ```
#
# The identity of {prf:ref}`prop-fourier-aliasing` holds exactly, so the measured error and the alias sum must agree
# to the working precision, far better than the $10^{-6}$ relative tolerance checked below; the terms with $|j| > 6$
# are smaller than the $j = \pm1$ terms by a factor below $10^{-80}$ and can be left out. For the growth, the error at
# $t = 0$ is about $2\Pr(X = N) \propto e^{-N^2/2\sigma^2}$, so the $N$ that reaches a fixed accuracy is proportional
# to $\sigma$: quadrupling $\sigma^2$ should double it, up to the spacing of the grid.

# %%
sigma2_alias = Fraction(aliasing_sigma2)
error_ex, bound_ex = explorers.trapezoid_series(aliasing_sigma2, range(8, 41, 4), targets=(0,))
bound_at = dict(zip(bound_ex.x, bound_ex.y))
with mpmath.workdps(60):
    for n, err in zip(error_ex.x, error_ex.y):
        aliases = mpmath.fsum(dg.pmf(j * int(n), sigma2_alias, dps=60) for j in range(-6, 7) if j)
        assert abs(err / float(aliases) - 1) < 1e-6  # the error is the aliased mass
        assert n not in bound_at or bound_at[n] >= err  # the bound lies above the error
print(f"σ² = {sigma2_alias}: {len(error_ex.x)} errors, each equal to its alias sum, all below the bound")

variances = (sigma2_alias / 4, sigma2_alias, 4 * sigma2_alias)
needed = {}
for sigma2_ex in variances:
    errors_ex = explorers.trapezoid_series(sigma2_ex, range(2, 101, 2), targets=(0,))[0]
    needed[sigma2_ex] = int(next(n for n, e in zip(errors_ex.x, errors_ex.y) if e < 1e-20))
print("smallest N with error < 1e-20:", {str(s2): n for s2, n in needed.items()})
assert all(1.5 <= needed[b] / needed[a] <= 2.5 for a, b in zip(variances, variances[1:]))

# %% [markdown]
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} Another row of the census (★★, code)
# :label: ex-explorers-census
#
# % change: census_row = 2
# Write a loop that calls `explorers.census_series(k, l, out_dir=census_results)` for every allocation `l` in
# `census.ALLOCATIONS`, with $k$ = `census_row` of the parameters cell (row 1 of the census, where the explorer shows
# row `census_k` = 13). Check that the Bureau's zCDP curve lies above the exact $\delta$ for every pair $(k, l)$, even
# after adding the certified error, and find the allocation $l$ whose curve is farthest from the Gaussian. Is it the
# same as in row 13? Then take row 2.
# ```
#
# ```{solution-start} ex-explorers-census
# :class: dropdown
# ```
#
# {prf:ref}`prop-primer-zcdp-to-dp` is a valid conversion, so the zCDP $\delta$ bounds the exact $\delta$ of every
# pair; the check adds the certified error so that it holds for the true value, not only for the computed one. The
# code runs the check on row `census_row` and on row `census_k` and prints, for each, the allocation farthest from the
# Gaussian.

# %%
row_k = census_row
farthest = {}
for k in (row_k, census_k):
    distances = {}
    for l in census.ALLOCATIONS:
        exact, zcdp, distance, relative_error = explorers.census_series(k, l, out_dir=census_results)
        assert np.all(exact.y * (1 + relative_error.y) <= zcdp.y)  # the zCDP statement is a bound
        distances[l] = float(np.max(distance.y))
    farthest[k] = max(distances, key=distances.get)
    print(f"row k = {k}: zCDP bound above all 43 pairs; farthest from the Gaussian: l = {farthest[k]} "
          f"(relative distance {distances[farthest[k]]:.1e})")

# %% [markdown]
# In rows 1 and 13 the farthest allocation is 6, at the same relative distance: the departure from the Gaussian is
# carried by allocation 6's own path, whatever its partner. The bound holds for every pair of both rows.
#
# ```{solution-end}
# ```
