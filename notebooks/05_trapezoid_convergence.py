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
# (chapter-trapezoid)=
# # The trapezoidal rule converges exponentially
#
# ```{admonition} What you will learn
# :class: tip
#
# - why the humble {term}`trapezoidal rule` is spectacularly accurate for smooth *periodic* integrands, and what
#   "analytic in a strip" has to do with it (the Trefethen–Weideman theorem);
# - why the {term}`characteristic function` of a sum of {term}`discrete Gaussians <discrete Gaussian>` is the best possible case: it is
#   *entire*, so every strip works, and the error falls like a Gaussian in the number of nodes $N$, faster
#   than any exponential;
# - how to check a convergence theorem against measurement: the measured error, the bound, and the rate
#   $-1/(2V)$ in $N^2$ that the theorem predicts.
# - what the same rule does when you write it yourself in float64, and where its error stops falling.
# ```
#
# ```{admonition} What you need
# :class: note
#
# {doc}`04_fourier_inversion`: the {term}`lattice` sum $S_L = \sum_i c_iX_i$, its characteristic function
# $\varphi_S$, {term}`Fourier inversion`, the trapezoidal sum as a {term}`DFT <discrete Fourier transform>` that is exact up to {term}`aliasing`
# ({prf:ref}`prop-fourier-aliasing`), and the {term}`sub-Gaussian` bound with variance proxy
# $V = \sum_i c_i^2\sigma_i^2$ ({prf:ref}`prop-fourier-subgaussian`). The discrete Gaussian from
# {doc}`03_discrete_gaussian`. From analysis: complex numbers $\zeta = x + iy$ and what it means for a
# function to have a power series (to be *analytic*). The privacy notions of the {doc}`primer <02_primer>`
# are not needed in this chapter: it is about numerical integration only.
# ```
#
# In {doc}`04_fourier_inversion` every probability of the lattice sum $S_L$ became an integral of its
# characteristic function over one period, and the trapezoidal rule on $N$ nodes turned out to return that
# probability plus its aliases $N$ lattice points away. This chapter asks *how fast* the error goes to zero
# as $N$ grows. The answer decides whether the exact method is practical at all: if the error fell only
# like $1/N^2$, as the trapezoidal rule does for a general smooth function on an interval, reaching
# $10^{-35}$ would take some $10^{17}$ nodes.
#
# ## Why periodic integrands are special
#
# On an interval, the trapezoidal rule is a second-order method: its error is of order $1/N^2$, with a
# constant given by the Euler–Maclaurin formula in terms of the derivatives of the integrand at the two
# ends. For a smooth *periodic* integrand integrated over a full period, those end corrections cancel —
# the derivatives at $0$ and $2\pi$ agree — and the error is far smaller. A cleaner way to see it is
# through Fourier series. Write $g(\zeta) = \sum_m \hat g_m e^{im\zeta}$. Averaging $e^{im\zeta}$ over the
# $N$ nodes gives 1 when $N$ divides $m$ and 0 otherwise (the roots-of-unity argument of
# {prf:ref}`prop-fourier-aliasing`), so
#
# $$
# \frac{2\pi}{N}\sum_{k=0}^{N-1} g(\zeta_k) - \int_0^{2\pi} g(\zeta)\,d\zeta = 2\pi\sum_{j\ne0}\hat g_{jN}:
# $$
#
# the error is the sum of the Fourier coefficients at multiples of $N$. For our integrand
# $\frac1{2\pi}e^{-i\zeta t}\varphi_S(\zeta)$ those coefficients are exactly the probabilities
# $\Pr(S_L = t + jN)$, which is {prf:ref}`prop-fourier-aliasing` again. So the question "how fast does the
# trapezoidal rule converge" is the question "how fast do the Fourier coefficients decay", and complex
# analysis answers it: coefficients decay exponentially exactly when the function extends analytically to a
# horizontal strip around the real axis.
#
# ```{prf:theorem} Trefethen–Weideman
# :label: thm-trapezoid-strip
#
# Let $g$ be $2\pi$-periodic and analytic in the strip $|\operatorname{Im}\zeta| < a$, with
# $|g(\zeta)| \le M$ there. Then for every $N \ge 1$, with $\zeta_k = 2\pi k/N$,
#
# $$
# \Bigl|\int_0^{2\pi} g(\zeta)\,d\zeta - \frac{2\pi}{N}\sum_{k=0}^{N-1} g(\zeta_k)\Bigr| \le \frac{4\pi M}{e^{aN} - 1}.
# $$
# ```
#
# This is Theorem 3.2 of Trefethen and Weideman's survey {cite}`trefethen2014trapezoidal`; the sieve paper
# uses it as its Lemma 4.3 {cite}`su2026sieve` to prove that its quadrature converges exponentially in
# $N$. The idea of the proof is to shift the contour of the Fourier-coefficient integral up or down by
# almost $a$, which multiplies $\hat g_m$ by $e^{-a|m|}$; summing the geometric series over the multiples of
# $N$ gives the denominator $e^{aN} - 1$.
#
# ## The best strip for a sum of discrete Gaussians
#
# How wide a strip may we take for $g(\zeta) = \frac1{2\pi}e^{-i\zeta t}\varphi_S(\zeta)$? A function
# analytic in the whole complex plane is called *{term}`entire <entire function>`*, and the characteristic
# function of a variable with Gaussian tails is entire: at $\zeta = x + iy$,
# $|\varphi_S(x + iy)| = |\mathbb E\,e^{ixS_L}e^{-yS_L}| \le \mathbb E\,e^{-yS_L} \le e^{y^2V/2}$ by the
# sub-Gaussian bound of {prf:ref}`prop-fourier-subgaussian`, which is finite for every $y$. The factor
# $e^{-i\zeta t}$ has modulus $e^{yt} \le e^{a|t|}$. So every strip works, each with its own bound $M(a)$:
#
# ```{prf:proposition} The trapezoidal error for one probability
# :label: prop-trapezoid-pmf-bound
#
# Let $T_N(t) = \frac1N\sum_{k=0}^{N-1}\varphi_S(\zeta_k)e^{-i\zeta_k t}$. For every integer $t$, every
# $N \ge 1$ and every $a > 0$,
#
# $$
# \bigl|T_N(t) - \Pr(S_L = t)\bigr| \le \frac{2e^{a^2V/2 + a|t|}}{e^{aN} - 1}.
# $$
#
# The choice $a = (N - |t|)/V$ (for $N > |t|$) gives approximately $2e^{-(N - |t|)^2/2V}$.
# ```
#
# The first line is {prf:ref}`thm-trapezoid-strip` with $M = M(a)/2\pi$ and the factor $1/2\pi$ of the
# inversion formula, which turns $4\pi$ into 2. For the second, minimise the exponent
# $a^2V/2 + a|t| - aN$ of the numerator over the denominator: the derivative vanishes at
# $a = (N - |t|)/V$, where the exponent is $-(N - |t|)^2/2V$ (the "$-1$" in the denominator is negligible
# once $aN$ is large). A fixed strip therefore gives a straight line on a logarithmic scale — *exponential*
# convergence, which is what the sieve paper proves — while letting the strip grow with $N$ bends that line
# into a downward parabola: the error falls like a Gaussian in $N$, faster than any exponential. The
# library computes the one-strip bound as `quadrature.trapezoid_pmf_strip_bound` and its minimum over a grid
# of strips around $a = (N - |t|)/V$ as `quadrature.trapezoid_pmf_error_bound` ([Derivations
# §4](../book/derivations.md)). This chapter measures both against the true error.

# %% tags=["parameters", "hide-cell"]
dps = 80  # working precision for the reference values
node_counts = list(range(8, 201, 8))
kink_nodes = [32, 64, 128, 256]  # the exercise without analyticity: node counts, each twice the one before
floor_nodes = [152, 200]  # the exercise on the float64 floor: node counts at which the three variants are compared

# %% tags=["hide-cell"]
import matplotlib.pyplot as plt
import mpmath
import numpy as np

from accountlib.engine import discrete_gaussian as dg, lattice, quadrature
from accountbook import ledger

# %% [markdown]
# ## A convolution of discrete Gaussians
#
# We need an example where the true probabilities are known independently of any Fourier method, so we take
# a small one: four heterogeneous {term}`mechanisms <mechanism>` with budgets $\rho = 1/2, 2/5, 1, 1/7$ (noise variances
# $\sigma^2 = 2, 5/2, 1, 7$) and rational weights $1/3, 1/2, 1/6, 1/4$. {prf:ref}`prop-fourier-lattice` gives
# the lattice $L = 12$ and $c = (4, 6, 2, 3)$. The reference pmf is a brute-force convolution of the four
# pmfs at 80 significant digits ({term}`dps` = 80), far below any error we want to see.

# %% tags=["nbval-check-output"]
mechanisms = [("1/2", "1/3"), ("2/5", "1/2"), ("1", "1/6"), ("1/7", "1/4")]
lat = lattice.lattice_of(mechanisms)
lowest, pmf = dg.lattice_sum_pmf(list(lat.sigma2s), list(lat.coefficients), dps=dps)
exact = {lowest + i: p for i, p in enumerate(pmf)}
print(f"L = {lat.scale}, c = {lat.coefficients}, V = sum c_i^2 sigma_i^2 = {lat.variance_proxy} = {float(lat.variance_proxy):.1f}")

# %% [markdown]
# The variance proxy is $V = 16\cdot2 + 36\cdot\tfrac52 + 4\cdot1 + 9\cdot7 = 189$, so $S_L$ has a standard
# deviation of a little under $\sqrt{189} \approx 13.7$ lattice points. We now compute the trapezoidal
# sum $T_N(t)$ for $N = 8, 16, \dots, 200$ at three points — the centre $t = 0$, and $t = 10$ and $t = 25$
# further out — and compare it with the exact pmf and with the best-strip bound of
# {prf:ref}`prop-trapezoid-pmf-bound`. {numref}`fig-trapezoid-error` shows the result on a logarithmic
# scale.

# %% mystnb={"figure": {"caption": "Trapezoidal error |T_N(t) \u2212 Pr(S_L = t)| for the four-mechanism sum (V = 189) at t = 0, 10 and 25 (dots), and the best-strip bound of the proposition on the trapezoidal error for one probability (lines), against the number of nodes N. Both fall on downward parabolas: faster than any exponential.", "name": "fig-trapezoid-error"}} tags=["hide-input"]
targets = [0, 10, 25]
errors = {t: [] for t in targets}
bounds = {t: [] for t in targets}
for n_nodes in node_counts:
    values = quadrature.dft_pmf(lat.groups, targets, n_nodes, dps=dps)
    for t, value in zip(targets, values):
        with mpmath.workdps(dps):
            errors[t].append(float(abs(value - exact.get(t, 0))))
        bounds[t].append(quadrature.trapezoid_pmf_error_bound(lat.variance_proxy, t, n_nodes))

fig, ax = plt.subplots(figsize=(7, 4))
for i, t in enumerate(targets):
    ax.semilogy(node_counts, np.maximum(errors[t], 1e-85), "o", color=f"C{i}", label=f"error, t = {t}")
    ax.semilogy(node_counts, bounds[t], "-", color=f"C{i}", label=f"strip bound, t = {t}")
ax.set_xlabel("number of nodes N")
ax.set_ylabel(r"$|\,T_N - \Pr(S_L = t)\,|$")
ax.set_ylim(1e-60, 10)
ax.legend(fontsize=8, ncol=2)
ax.set_title("Trapezoidal rule for a discrete Gaussian convolution")
fig.tight_layout()

# %% [markdown]
# The measured error (dots) sits below the strip bound (lines) at every $N$, and both fall on parabolas
# on this log scale: $\log(\text{error}) \approx -(N - |t|)^2/2V$. The error is the aliased mass
# $\sum_{j\ne0}\Pr(S_L = t + jN)$, and the bound is nearly tight because aliasing *is* the whole error.
# Points further out converge later: for $t = 25$ the nearest alias is $t - N$, only $N - 25$ points from
# the centre, which is why the curves are shifted to the right by $|t|$. At $N = 200$ the error at $t = 0$
# is below $10^{-45}$; a method whose error falls like $1/N^2$ would need some $10^{22}$ nodes for that.

# %% tags=["nbval-check-output"]
ok = all(e <= b for t in targets for e, b in zip(errors[t], bounds[t]))
print("measured error below the strip bound at every N and t:", ok)
n_index = node_counts.index(64)
print(f"N = 64, t = 0: error {errors[0][n_index]:.1e}, bound {bounds[0][n_index]:.1e}")

# %% [markdown]
# The bound is a guarantee, not an estimate, so it overshoots; at $N = 64$ and $t = 0$ it is about 35 times
# the measured error. Most of that factor is the prefactor the bound ignores: the error is roughly
# $2\Pr(S_L = N) \approx 2e^{-N^2/2V}/\sqrt{2\pi V}$, and $\sqrt{2\pi\cdot189} \approx 34$.
#
# ## A single strip versus the best strip
#
# With one fixed strip half-width $a$, the bound $2M(a)/(e^{aN}-1)$ with $M(a) = e^{a^2V/2}$ at $t = 0$
# falls exponentially — a straight line on the log scale, its logarithm falling with slope $-a$ — but its
# starting height $e^{a^2V/2}$ is enormous for a wide strip. Optimising $a$ for each $N$ bends the lines into
# the parabola of {numref}`fig-trapezoid-strips`: each fixed strip is the best one only near $N = aV$, where
# it touches the parabola ($N = 94.5$ for $a = 0.5$, $N = 189$ for $a = 1$; for $a = 2$ that point lies
# beyond the plot). The sieve paper fixes a strip to prove *exponential* convergence; the entire integrand gives
# more.

# %% mystnb={"figure": {"caption": "Bounds on the trapezoidal error for Pr(S_L = 0), V = 189. Dashed: the Trefethen\u2013Weideman bound for one fixed strip |Im \u03b6| < a (a = 0.5, 1, 2), straight lines on this log scale; solid: the best strip for each N, a parabola below every line that touches the line of strip a near N = aV; dots: the measured error.", "name": "fig-trapezoid-strips"}} tags=["hide-input"]
v = float(lat.variance_proxy)
fig, ax = plt.subplots(figsize=(7, 3.6))
for a in (0.5, 1.0, 2.0):
    fixed = [quadrature.trapezoid_pmf_strip_bound(lat.variance_proxy, 0, n, a) for n in node_counts]
    ax.semilogy(node_counts, fixed, "--", label=f"one strip, a = {a}")
ax.semilogy(node_counts, bounds[0], "k-", label="best strip for each N")
ax.semilogy(node_counts, np.maximum(errors[0], 1e-85), "ko", ms=4, label="measured, t = 0")
ax.set_ylim(1e-60, 1e40)
ax.set_xlabel("number of nodes N")
ax.set_ylabel(r"error bound for $\Pr(S_L = 0)$")
ax.set_title("One fixed strip (exponential) versus the best strip for each N")
ax.legend(fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## Measuring the rate
#
# If $\log(\text{error}) \approx -N^2/2V + \text{const}$ at $t = 0$, a straight-line fit of the logarithm of
# the measured error against $N^2$ should have slope $-1/(2V) = -1/378 \approx -0.002646$. We fit over
# $N = 32, \dots, 120$, leaving out the smallest $N$, where the asymptotic form has not yet set in. The
# prediction is derived here (the sieve paper's Lemma 4.3 states only exponential convergence), and the fit should
# meet it within a few percent, not exactly: the prefactor $2/\sqrt{2\pi V}$ and the lattice's corrections bend the
# line slightly.

# %%
slope = np.polyfit(np.array(node_counts[3:15]) ** 2, np.log(np.maximum(errors[0][3:15], 1e-300)), 1)[0]
print(f"fitted d log(error) / d N^2 = {slope:.5f}; predicted -1/(2V) = {-1 / (2 * v):.5f}")

# %% tags=["remove-cell"]
_ = ledger.reproduce({"derived.trapezoid_gaussian_rate": {"ours": f"{slope:.6g}", "paper": f"{-1 / (2 * v):.6g}"}})

# %% [markdown]
# The fitted slope agrees with $-1/(2V)$ to the three digits printed. For the census pair of
# {doc}`04_fourier_inversion`, where $V \approx 10^9$, the same Gaussian rate holds; the exercise
# {ref}`ex-trapezoid-census` and {doc}`06_sieve` show what it means there.

# %% [markdown]
# ## The same experiment from scratch, in float64
#
# The reference values above were computed at 80 digits. It is instructive to redo the experiment the way one
# would write it first, in a dozen lines of plain NumPy and float64: the characteristic function of each discrete
# Gaussian summed directly over its support, the product over the four mechanisms, and the average over the nodes
# (the trapezoidal rule for $\frac1{2\pi}\int e^{-i\zeta t}\varphi_S(\zeta)\,d\zeta$; only the cosine survives because
# $\varphi_S$ is real and even).

# %%
def dg_cf(sigma2, theta):
    """Characteristic function of N_Z(0, sigma2) at the angles theta, in float64."""
    reach = int(12 * sigma2**0.5) + 2
    x = np.arange(-reach, reach + 1)
    p = np.exp(-x**2 / (2 * sigma2))
    p /= p.sum()
    return np.cos(np.multiply.outer(theta, x)) @ p


def trapezoid_float(sigma2s, cs, n_nodes, t):
    """T_N(t) = mean of phi_S(zeta_k) cos(zeta_k t) over the N nodes, in float64."""
    zeta = 2 * np.pi * np.arange(n_nodes) / n_nodes
    phi = np.ones(n_nodes)
    for sigma2, c in zip(sigma2s, cs):
        phi *= dg_cf(sigma2, c * zeta)
    return np.mean(phi * np.cos(zeta * t))


float_sigma2s = [float(s) for s in lat.sigma2s]
float_errors = {}
for t in targets:
    values = [trapezoid_float(float_sigma2s, lat.coefficients, n, t) for n in node_counts]
    float_errors[t] = [float(abs(mpmath.mpf(v) - exact.get(t, 0))) for v in values]

# %% [markdown]
# {numref}`fig-trapezoid-float64` sets the float64 errors beside the 80-digit ones. Down to about $10^{-15}$ the two
# agree: the trapezoidal rule does exactly what the theorem says, in any arithmetic. Below that, the float64 error
# stops at a floor of about $10^{-16}$ and wanders there, whatever $N$: it is machine epsilon times the largest
# term of the sum, $\varphi_S(0) = 1$, an *absolute* floor that does not care how small the probability is. The
# parabola is still there; float64 cannot see it. The engine of this book needs errors near $10^{-35}$, which is why
# it computes in {term}`ball arithmetic` at about 200 bits and bounds its rounding, and why a float64 value is used
# only at nodes where the integrand is small enough for its rounding bound to be negligible ({doc}`06_sieve`).

# %% mystnb={"figure": {"caption": "The trapezoidal error at t = 0 and t = 25 for the four-mechanism sum (V = 189), computed from scratch in float64 (open markers) and at 80 digits (dots), against N. Float64 follows the parabola down to about $10^{-15}$ and then stops at its rounding floor of about $10^{-16}$ (grey band: from a tenth of machine epsilon $2.2 \\times 10^{-16}$ to machine epsilon); the 80-digit errors continue below the plotted range.", "name": "fig-trapezoid-float64"}} tags=["hide-input"]
fig, ax = plt.subplots(figsize=(7, 3.6))
for i, t in enumerate((0, 25)):
    colour = f"C{2 * i}"
    ax.semilogy(node_counts, np.maximum(errors[t], 1e-60), "o", ms=4, color=colour, label=f"80 digits, t = {t}")
    ax.semilogy(node_counts, np.maximum(float_errors[t], 1e-25), "s", ms=7, mfc="none", color=colour,
                label=f"float64 from scratch, t = {t}")
ax.axhspan(2.2e-17, 2.2e-16, color="gray", alpha=0.25, lw=0, label="float64 rounding floor")
ax.set_ylim(1e-25, 1)
ax.set_xlabel("number of nodes N")
ax.set_ylabel(r"$|\,T_N - \Pr(S_L = t)\,|$")
ax.set_title("The same trapezoidal rule in float64 and at 80 digits")
ax.legend(fontsize=8, loc="lower left")
fig.tight_layout()

# %% [markdown]
# ## Summary
#
# - For a periodic integrand the trapezoidal rule's error is the sum of the Fourier coefficients at the
#   multiples of $N$; for the inversion integral of {doc}`04_fourier_inversion` these coefficients are the
#   aliased probabilities $\Pr(S_L = t + jN)$.
# - If the integrand is analytic and bounded by $M$ in the strip $|\operatorname{Im}\zeta| < a$, the error is
#   at most $4\pi M/(e^{aN} - 1)$ ({prf:ref}`thm-trapezoid-strip`, {cite}`trefethen2014trapezoidal`): exponential
#   convergence, the sieve paper's Lemma 4.3.
# - The characteristic function of a sum of discrete Gaussians is entire, with $M(a) = e^{a^2V/2}$ from the
#   sub-Gaussian bound; optimising the strip for each $N$ gives an error of about $2e^{-(N-|t|)^2/2V}$
#   ({prf:ref}`prop-trapezoid-pmf-bound`), faster than any exponential.
# - Measurement agrees: for $V = 189$ the error stays below the bound at every $N$ and $t$, and the fitted
#   slope of $\log(\text{error})$ in $N^2$ is $-1/(2V)$ within 5%.
# - Without analyticity (a kink) the rate drops to $1/N^2$.
# - Written from scratch in float64, the same rule follows the parabola down to about $10^{-15}$ and then stops at
#   an absolute rounding floor of about $10^{-16}$, set by the rounding of the integrand's values; going further
#   needs more precision and a bound on the rounding.
#
# Even so, the census pair (13, 13) needs hundreds of thousands of nodes, each a product of 160 factors evaluated
# with certified error; {doc}`06_sieve` shows that almost all of them can be skipped.
#
# ## Exercises
#
# ```{exercise} The best strip (★★, derive)
# :label: ex-trapezoid-best-strip
#
# Show that $h(a) = a^2V/2 + a|t| - aN$ is minimised at $a^\ast = (N - |t|)/V$ with minimum
# $-(N - |t|)^2/2V$, and hence that the bound of {prf:ref}`prop-trapezoid-pmf-bound` at $a^\ast$ equals
# $2e^{-(N-|t|)^2/2V}/(1 - e^{-a^\ast N})$. Check with `quadrature.trapezoid_pmf_strip_bound` for $V = 189$
# and a few $(N, t)$ that this closed form is right, that $a^\ast$ beats the strips $0.9a^\ast$ and
# $1.1a^\ast$, and that the library's best-strip bound is no larger.
# ```
#
# ```{solution-start} ex-trapezoid-best-strip
# :class: dropdown
# ```
#
# $h$ is a parabola in $a$ with $h'(a) = aV + |t| - N$, zero at $a^\ast$, and
# $h(a^\ast) = \tfrac{(N-|t|)^2}{2V} - \tfrac{(N-|t|)^2}{V} = -\tfrac{(N-|t|)^2}{2V}$. Dividing numerator and
# denominator of the bound by $e^{a^\ast N}$ gives the closed form. The strips $0.9a^\ast$ and $1.1a^\ast$
# lose a factor of about $e^{0.01(N-|t|)^2/2V}$.

# %%
import math

v_check = lat.variance_proxy
for n_nodes, t in [(40, 0), (96, 10), (160, 25)]:
    a_star = (n_nodes - abs(t)) / float(v_check)
    at_best = quadrature.trapezoid_pmf_strip_bound(v_check, t, n_nodes, a_star)
    closed_form = 2 * math.exp(-((n_nodes - abs(t)) ** 2) / (2 * float(v_check))) / -math.expm1(-a_star * n_nodes)
    assert math.isclose(at_best, closed_form, rel_tol=1e-9)
    assert at_best < quadrature.trapezoid_pmf_strip_bound(v_check, t, n_nodes, 0.9 * a_star)
    assert at_best < quadrature.trapezoid_pmf_strip_bound(v_check, t, n_nodes, 1.1 * a_star)
    assert quadrature.trapezoid_pmf_error_bound(v_check, t, n_nodes) <= at_best
    print(f"N = {n_nodes:>3}, t = {t:>2}: a* = {a_star:.4f}, bound at a* = {at_best:.3e}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Precision (★, run)
# :label: ex-trapezoid-dps
#
# % change: dps = 30
# Set `dps = 30` in the parameters cell and re-run the chapter. Which dots of {numref}`fig-trapezoid-error`
# change, and why? Does the fitted slope change?
# ```
#
# ```{solution-start} ex-trapezoid-dps
# :class: dropdown
# ```
#
# Only the smallest errors change: the dots for $t = 0$ at the largest $N$. At 30 digits both the reference
# pmf and the trapezoidal sum carry rounding errors (somewhat below $10^{-30}$, because the library works
# with guard digits: `dft_pmf` computes ten digits above `dps`), and once the true error falls below that
# rounding level the measured "error" is rounding, which stops following the parabola. Rounding is not
# covered by the strip bound, so the check "measured error below the strip bound" will then typically print
# `False` at the largest $N$ — a reminder that a certified result must bound its rounding too. Errors that
# are large compared with the rounding are unchanged; the slope is fitted over $N \le 120$, where the error
# is above $10^{-19}$, so it does not change. The code measures the error at $t = 0$ at the chapter's `dps` and at
# forty digits more, and compares.

# %%
def errors_at(digits, node_list):
    low, values = dg.lattice_sum_pmf(list(lat.sigma2s), list(lat.coefficients), dps=digits)
    centre = values[-low]  # Pr(S_L = 0)
    with mpmath.workdps(digits):
        return [float(abs(quadrature.dft_pmf(lat.groups, [0], n, dps=digits)[0] - centre)) for n in node_list]


check_nodes = [40, 80, 120, 160, 200]
more = dps + 40
coarse, fine = errors_at(dps, check_nodes), errors_at(more, check_nodes)
for n, at_dps, at_more in zip(check_nodes, coarse, fine):
    print(f"N = {n:>3}: error at {dps} digits {at_dps:.2e}, at {more} digits {at_more:.2e}")
    assert abs(at_dps - at_more) < 10.0 ** (3 - dps)  # they differ by rounding at the level of dps digits only
    if at_more > 10.0 ** (10 - dps):
        assert math.isclose(at_dps, at_more, rel_tol=1e-6)  # errors far above the rounding are unchanged
assert fine[-1] < fine[-2] < fine[-3]  # with forty digits more the parabola continues
print(f"the fitted slope at {dps} digits: {slope:.5f} (predicted {-1 / (2 * v):.5f}); "
      f"every error below its strip bound: {ok}")
assert abs(slope + 1 / (2 * v)) < 0.05 / (2 * v)  # the fit uses N <= 120, far above the rounding

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Two views of the same error (★★, derive)
# :label: ex-trapezoid-census
#
# {doc}`04_fourier_inversion` chose $N \ge 2U + 2$ so that aliases stay outside $[-U, U]$, with
# $2e^{-U^2/2V} \le \Delta/4$. Show that {prf:ref}`prop-trapezoid-pmf-bound` gives the same conclusion for
# every $|t| \le U$, and check it for the census pair $(13, 13)$ at $\Delta = 10^{-35}$ with the library's
# $U$ and $N$. Then find the smallest $N$ for which the best-strip bound for $\Pr(S_L = 0)$ alone is below
# $10^{-35}$. Why is it about half of the chapter's $N$?
# ```
#
# ```{solution-start} ex-trapezoid-census
# :class: dropdown instructor-only
# ```
#
# For $|t| \le U$ and $N \ge 2U + 2$ we have $N - |t| \ge U + 2$, so the best-strip bound is at most about
# $2e^{-(U+2)^2/2V} < 2e^{-U^2/2V} \le \Delta/4$. For the centre alone the bound
# $2e^{-N^2/2V} \le \Delta$ needs only $N \approx \sqrt{2V\log(2/\Delta)}$, while $U \approx
# \sqrt{2V\log(8/\Delta)}$: the extra factor 2 in $N \approx 2U$ is the price of protecting the points near
# $\pm U$, whose aliases are only $N - U$ away.

# %%
from accountlib import ShiftPair
from accountlib.applications import census

budget = 1e-35
census_v = ShiftPair(census.pair_rhos(13, 13)).lattice.variance_proxy
cut = quadrature.truncation_point(census_v, budget)
n_census = quadrature.node_count(cut)
for t in (0, cut // 2, cut):
    assert quadrature.trapezoid_pmf_error_bound(census_v, t, n_census) <= budget / 4

low_n, high_n = 1, n_census  # bound(low_n) > budget >= bound(high_n)
while high_n - low_n > 1:
    middle = (low_n + high_n) // 2
    if quadrature.trapezoid_pmf_error_bound(census_v, 0, middle) <= budget:
        high_n = middle
    else:
        low_n = middle
predicted = math.sqrt(2 * float(census_v) * math.log(2 / budget))
assert abs(high_n - predicted) / predicted < 1e-3
assert high_n < n_census / 2
print(f"U = {cut:,}, N = {n_census:,}; the centre alone needs N = {high_n:,} "
      f"(prediction sqrt(2V log(2/Delta)) = {predicted:,.0f}), {high_n / n_census:.3f} of N")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Without analyticity (★, code)
# :label: ex-trapezoid-kink
#
# The function $|\sin\zeta|$ is periodic and continuous but has kinks at $0$ and $\pi$, so it is analytic
# % change: kink_nodes = [24, 48, 96, 192, 384]
# in no strip. Its integral over a period is 4. Compute the trapezoidal error for the node counts of `kink_nodes` in
# the parameters cell ($N = 32, 64, 128, 256$), then for $N = 24, 48, \dots, 384$, and find the rate. (For even $N$
# the sum is $\frac{4\pi}{N}\cot\frac{\pi}{N}$.)
# ```
#
# ```{solution-start} ex-trapezoid-kink
# :class: dropdown
# ```
#
# Doubling $N$ divides the error by 4: the error is of order $1/N^2$ (from the closed form,
# $4 - \frac{4\pi}{N}\cot\frac{\pi}{N} \approx \frac{4\pi^2}{3N^2}$), the rate of the trapezoidal rule on
# an interval. Periodicity alone is not enough; the fast convergence of this chapter needs analyticity in
# a strip, and its Gaussian rate needs an entire integrand.

# %%
kink_errors = []
for n in kink_nodes:
    nodes_kink = 2 * np.pi * np.arange(n) / n
    kink_errors.append(abs(2 * np.pi / n * np.abs(np.sin(nodes_kink)).sum() - 4))
    assert math.isclose(kink_errors[-1], 4 - 4 * np.pi / n / np.tan(np.pi / n), rel_tol=1e-6)
ratios = [e1 / e2 for e1, e2 in zip(kink_errors, kink_errors[1:])]
print("errors:", [f"{e:.2e}" for e in kink_errors], "ratios:", [f"{r:.3f}" for r in ratios])
assert all(3.9 < r < 4.1 for r in ratios)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Where the float64 floor comes from (★★, code)
# :label: ex-trapezoid-floor
#
# The float64 error of {numref}`fig-trapezoid-float64` stops near $10^{-16}$. Is that the summation over the nodes, or
# the values $\varphi_S(\zeta_k)$ being summed? Starting from `trapezoid_float`, write two variants for $t = 0$:
# (a) the same values summed exactly with `math.fsum`; (b) each $\varphi_S(\zeta_k)$ computed at 40 digits with
# % change: floor_nodes = [136, 176]
# `mpmath`, rounded once to float64, and then summed with `math.fsum`. Compare the three errors at the node counts of
# `floor_nodes` in the parameters cell ($N = 152$ and $N = 200$), where the true trapezoidal error is far below
# $10^{-30}$; then at $N = 136$ and $176$.
# ```
#
# ```{solution-start} ex-trapezoid-floor
# :class: dropdown instructor-only
# ```
#
# Exact summation changes nothing: the floor is in the values. Each float64 $\varphi_S(\zeta_k)$ carries a rounding
# error of a few units in the last place of numbers up to 1 — from the sums of cosines in `dg_cf`, the cosines of
# arguments as large as $c\zeta x$, and the product — and averaging $N$ such errors leaves an absolute error of order
# $10^{-16}$, even though $\Pr(S_L = 0) \approx 0.029$ could be represented to $2\times10^{-18}$. With correctly
# rounded values, variant (b), the error drops to about half a unit in the last place of the answer itself. A
# certified engine must therefore bound the rounding of the *integrand*, not only of the sum; the engine does it
# with {term}`ball arithmetic`, which carries an error radius through every operation.

# %%
import math as _math


def trapezoid_fsum(n_nodes, t):
    zeta = 2 * np.pi * np.arange(n_nodes) / n_nodes
    phi = np.ones(n_nodes)
    for sigma2, c in zip(float_sigma2s, lat.coefficients):
        phi *= dg_cf(sigma2, c * zeta)
    return _math.fsum(phi * np.cos(zeta * t)) / n_nodes


def trapezoid_rounded_once(n_nodes, digits=40):
    """Variant (b) at t = 0: phi_S(zeta_k) correctly rounded to float64, then summed exactly."""
    with mpmath.workdps(digits):
        factors = []
        for sigma2 in lat.sigma2s:
            s2 = mpmath.mpf(sigma2.numerator) / sigma2.denominator
            reach = int(30 * float(sigma2) ** 0.5) + 2
            weight = [mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in range(-reach, reach + 1)]
            total = mpmath.fsum(weight)
            factors.append([(x, w / total) for x, w in zip(range(-reach, reach + 1), weight)])
        values = []
        for k in range(n_nodes):
            zeta_k = 2 * mpmath.pi * k / n_nodes
            phi_k = mpmath.fprod(mpmath.fsum(w * mpmath.cos(c * zeta_k * x) for x, w in factor)
                                 for factor, c in zip(factors, lat.coefficients))
            values.append(float(phi_k))
    return _math.fsum(values) / n_nodes


summed_errors = []
for n in floor_nodes:
    plain = float(abs(mpmath.mpf(trapezoid_float(float_sigma2s, lat.coefficients, n, 0)) - exact[0]))
    summed = float(abs(mpmath.mpf(trapezoid_fsum(n, 0)) - exact[0]))
    rounded = float(abs(mpmath.mpf(trapezoid_rounded_once(n)) - exact[0]))
    summed_errors.append(summed)
    print(f"N = {n}: numpy mean {plain:.1e}, math.fsum {summed:.1e}, correctly rounded values {rounded:.1e}")
    assert rounded < 1e-17 and rounded < plain  # within a few units in the last place of 0.029
assert max(summed_errors) > 2e-17  # exact summation of the float64 values keeps the floor

# %% [markdown]
# ```{solution-end}
# ```
