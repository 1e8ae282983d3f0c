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
# # Explorers
#
# Five of the book's pictures, each under a slider. On this page the curves for a grid of parameter values
# were computed when the book was built, and the slider under each figure switches between them in your
# browser, with no Python running. Drag it, or click a point on its rail; hover over a curve to read values.
# A printed copy shows a still figure at three of the values instead.
#
# Opened as a notebook (`make lab`, or the `.ipynb` in the download menu), each explorer is followed by a
# **live** version: ipywidgets controls that recompute the curves with `accountlib` for any value you pick,
# not only the ones stored here. Every number comes from the library; this page only draws.

# %% tags=["parameters"]
census_k = 13  # the allocation paired with every other one in the census explorer (13 is the paper's Table 1)
census_results = "../results/dhc"  # the full sweep's per-pair files

# %%
import matplotlib.pyplot as plt
from IPython.display import HTML, display

from accountlib import explorers

# %% [markdown]
# ## 1. The gap Γ(t) in the shift s
#
# The gap $\Gamma(t) = \rho\,t(t+1) - K(t)$ is what zCDP forgets of a mechanism's privacy-loss cumulant
# generating function $K$ (chapter 7; unifying paper §4.1). Here it is for the three noises of chapter 7
# (Gaussian, Gaussian mixture, Laplace, each of scale 1) at shift $s$, as a function of the order $t$.
#
# **What to look for.** The Gaussian line stays at zero for every $s$: zCDP describes Gaussian noise exactly.
# The Laplace and mixture gaps grow with the order $t$, and both collapse as $s$ shrinks — at small shifts
# every noise looks Gaussian to zCDP — but at different rates (chapter 7 fits them). The mixture's gap is the
# larger at small shifts and low orders and levels off near $\log 2 \approx 0.69$; the Laplace gap overtakes it
# as $s$ and $t$ grow (at $s = 2$, $t = 4$ it is twenty times larger).

# %% tags=["remove-input"]
gap = explorers.gap_explorer()
display(HTML(explorers.plotly_html(gap)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(gap)
plt.show()

# %% [markdown]
# Live (in Jupyter): any shift $s$ and range of orders.

# %% tags=["remove-output", "nbval-ignore-output"]
explorers.live("gap")

# %% [markdown]
# ## 2. The gap in the sampling rate q
#
# DP-SGD's step is a Poisson-subsampled Gaussian (unifying paper Prop. 4.2). Its zCDP parameter $\rho$ does not
# depend on the sampling rate $q$, while its Rényi curve $K$ falls to zero as $q \to 0$, so the gap
# $\Gamma(t) = \rho\,t(t+1) - K(t)$ grows as $q$ shrinks.
#
# **What to look for.** Move $q$ down from 0.6: the curve rises towards $\rho\,t(t+1)$ itself — at small $q$ zCDP
# forgets almost everything the subsampling bought. This is why chapter 10 finds zCDP-calibrated DP-SGD
# noisier than RDP-calibrated DP-SGD.

# %% tags=["remove-input"]
subsampled = explorers.subsampled_gap_explorer()
display(HTML(explorers.plotly_html(subsampled)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(subsampled)
plt.show()

# %% [markdown]
# Live: any rate $q$ and noise multiplier $z$.

# %% tags=["remove-output", "nbval-ignore-output"]
explorers.live("subsampled-gap")

# %% [markdown]
# ## 3. Discrete vs continuous Gaussian: δ(ε) in σ² and m
#
# Compose $m$ discrete Gaussian mechanisms $N_{\mathbb Z}(0, \sigma^2)$ (sensitivity 1): solid lines are the exact
# $\delta(\varepsilon)$ (certified to $10^{-6}$ relative), dotted lines the continuous Gaussian with the same
# variance ($\mu$-GDP with $\mu^2 = m/\sigma^2$). Each $m$ has its own colour; the slider sets $\sigma^2$.
#
# **What to look for.** From $\sigma^2 \approx 5$ up the solid and dotted lines almost coincide: even at
# $\delta \approx 10^{-12}$ they differ by tens of percent at most, a sliver on this scale (chapter 9 measures
# the gap). Below $\sigma^2 = 1$ they part: the discrete noise has lighter tails, and at $\sigma^2 = 0.25$ a
# single mechanism's $\delta$ in the tail is over a hundred times smaller than the continuous formula says.
# More compositions (larger $m$) move both curves to the right.

# %% tags=["remove-input"]
discrete = explorers.discrete_continuous_explorer()
display(HTML(explorers.plotly_html(discrete)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(discrete)
plt.show()

# %% [markdown]
# Live: any $\sigma^2$ and any number of compositions $m$.

# %% tags=["remove-output", "nbval-ignore-output"]
explorers.live("discrete-continuous")

# %% [markdown]
# ## 4. Trapezoid error against the number of nodes
#
# The engine computes $\Pr(X = t)$ by the trapezoid rule on $N$ nodes of the characteristic function
# (chapter 3; sieve paper Prop. 3.5). Markers: the actual error against a 50-digit reference, for three points
# $t$; dashed: the rigorous strip bound the engine uses to choose $N$. Points below the working precision are
# not drawn.
#
# **What to look for.** The error falls exponentially — a straight line on this log scale — until it reaches
# the working precision, and the bound stays above it everywhere: choosing $N$ by the bound is safe. Larger
# $\sigma^2$ tilts both lines: wider noise needs more nodes for the same accuracy.

# %% tags=["remove-input"]
trapezoid = explorers.trapezoid_explorer()
display(HTML(explorers.plotly_html(trapezoid)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(trapezoid)
plt.show()

# %% [markdown]
# Live: any $\sigma^2$ and range of node counts.

# %% tags=["remove-output", "nbval-ignore-output"]
explorers.live("trapezoid")

# %% [markdown]
# ## 5. A census pair's curves by allocation
#
# The 2020 Census DHC used 43 allocations of its privacy-loss budget. The slider picks allocation $l$, paired
# with allocation 13; the curves are read from the full sweep (chapter 5), each value certified. Left: the
# exact $\delta(\varepsilon)$ and the zCDP bound the Bureau reports. Right: how far the exact curve is from a
# continuous Gaussian with the same $\rho$, next to the certified error of $\delta$.
#
# **What to look for.** On the left the allocations are indistinguishable: every pair has the same total
# $\rho$, and at this scale the composition is Gaussian; the zCDP bound overstates $\delta$ by a factor that
# grows with $\varepsilon$. On the right each allocation leaves its own trace, about $10^{-10}$ relative —
# above the certified error, so real, and far too small to matter for the release.

# %% tags=["remove-input"]
census_pairs = explorers.census_explorer(census_results, k=census_k)
display(HTML(explorers.plotly_html(census_pairs)))

# %% tags=["remove-input", "print-only"]
explorers.static_figure(census_pairs)
plt.show()

# %% [markdown]
# Live: any pair $(k, l)$ with every noise variance scaled by $c$, recomputed exactly (a few seconds per move).

# %% tags=["remove-output", "nbval-ignore-output"]
explorers.live("census")
