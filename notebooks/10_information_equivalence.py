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
# (chapter-infoeq)=
# # Information equivalence
#
# ```{admonition} What you will learn
# :class: tip
#
# - which descriptions of a pair of output distributions carry the *same* information, so that choosing among
#   them is a matter of convenience, not of privacy (Theorem 2.1 of {cite}`su2026unifying`);
# - how each recovery works as an algorithm: {term}`privacy-loss distribution` to profiles, trade-off function to
#   privacy-loss distribution, profiles to trade-off function by a convex conjugate, Rényi moments to
#   privacy-loss distribution by Prony's method;
# - why the theorem needs the Rényi curve to be finite at *some* order (Example 2.2), and why the usual two-sided
#   $\delta(\varepsilon)$ curve is *not* one of the equivalent descriptions (Example 2.3);
# - why symmetric noise needs only one of the two one-sided curves.
# ```
#
# ```{admonition} What you need
# :class: note
#
# From the {doc}`02_primer`: {term}`(ε, δ)-DP` ({prf:ref}`def-approx-dp`), the one-sided {term}`privacy profiles <privacy profile>`
# ({prf:ref}`def-privacy-profile`), trade-off functions ({prf:ref}`def-tradeoff`) and their duality with the profiles
# ({prf:ref}`prop-primer-duality`), the privacy-loss distribution ({prf:ref}`def-pld`) and Rényi DP ({prf:ref}`def-rdp`).
# Nothing else; every example here is a small discrete pair whose probabilities are fractions.
# ```
#
# For one ordered pair of output distributions $(P, Q)$ — what a {term}`mechanism` produces on two neighbouring
# datasets — four descriptions are on offer: the one-sided $(\varepsilon,\delta)$ curves
# $\delta_{P\Vert Q}(\varepsilon) = \sup_A\{P(A) - e^\varepsilon Q(A)\}$ and $\delta_{Q\Vert P}$, the {term}`trade-off functions <trade-off function>` $T_{P,Q}$ and
# $T_{Q,P}$, the law of the privacy loss $L = \log dP/dQ$ under $P$ (the {term}`PLD`, with $\pm\infty$ allowed), and the Rényi
# curve. The unifying paper's **Theorem 2.1**: the first three always carry the same information, and the
# Rényi curve joins them when it is finite at some order above 1. This chapter runs each recovery of the theorem
# as code (`accountlib.theory.pairs`) and checks the round trips, exactly, in rational arithmetic.
#
# ## The theorem
#
# The literature offers many ways to state how private a mechanism is, and each has its own conversion
# formulas: $(\varepsilon, \delta)$ profiles {cite}`dwork2006our,balle2020profiles`, trade-off functions and
# {term}`f-DP` {cite}`dong2022gaussian`, privacy-loss distributions {cite}`koskela2020computing,gopi2021numerical`, and
# Rényi DP {cite}`mironov2017renyi`. A natural worry is that each conversion loses something, so that the
# choice of language changes the guarantee one can certify. For a *single* pair of distributions the worry is
# unfounded, with two precise exceptions. Say that a description $\mathcal A$ *determines* a description
# $\mathcal B$ when any two pairs with the same $\mathcal A$ also have the same $\mathcal B$; two descriptions that
# determine each other are {term}`information-equivalent`.
#
# ```{prf:theorem} Information equivalence (unifying paper, Theorem 2.1)
# :label: thm-info-equivalence
#
# For any pair of probability measures $(P, Q)$ on a common space, the following carry the same information:
# 1. the pair of one-sided $(\varepsilon, \delta)$ curves $(\delta_{P\Vert Q}, \delta_{Q\Vert P})$;
# 2. the pair of trade-off functions $(T_{P,Q}, T_{Q,P})$;
# 3. the law of the extended privacy loss $L = \log dP/dQ \in [-\infty, \infty]$ under $P$.
#
# If moreover $D_{\alpha_0}(P\Vert Q) < \infty$ for some $\alpha_0 > 1$, the Rényi curve $\alpha \mapsto D_\alpha(P\Vert Q)$ carries
# the same information as well.
# ```
#
# Two words in the statement deserve attention. *Extended* means that $L$ may take the values $+\infty$ (outputs that
# only $P$ produces) and $-\infty$ (outputs that only $Q$ produces); the theorem needs no absolute continuity. And the
# first item is the *pair* of one-sided curves: as Example 2.3 below shows, their maximum — the curve usually
# reported — carries less. The theorem is about information, not computation: a conversion may need the whole
# curve and have no closed form. The sections below run each conversion as code and compare its output with the
# original exactly, with Python's `Fraction` (rational numbers with integer numerator and denominator, so equality
# means equality, not agreement to rounding).

# %% tags=["parameters", "hide-cell"]
zeta_w = 3.0  # the exponent of Example 2.2's zeta pair
truth = "3/4"  # the exercise on randomised response: the probability of a truthful answer
asymmetric_tails = [2, 3]  # the exercise on asymmetric noise: q(k) ∝ a^-k for k ≥ 0 and ∝ b^k for k < 0, [a, b]

# %% tags=["hide-cell"]
from fractions import Fraction as F

import matplotlib.pyplot as plt
import mpmath
import numpy as np

from accountlib.theory import pairs
from accountbook import ledger

zeta_w = pairs.check_zeta_w(zeta_w)

# %% [markdown]
# ## A pair with mass outside the other's support
#
# $P$ puts $1/8$ on an output $Q$ never produces (privacy loss $+\infty$), and $Q$ puts $1/8$ where $P$ has none
# (loss $-\infty$). This is the hardest case for the theorem: the likelihood ratio $r = dP/dQ$ is $\infty$ on one output and
# $0$ on another, so no Rényi divergence of order above 1 is finite, yet the three descriptions of
# {prf:ref}`thm-info-equivalence` are still interchangeable. The PLD is reported as a list of likelihood ratios with their
# $P$-mass; from it both one-sided curves follow, since $\delta_{P\Vert Q}(\varepsilon) = \mathbb E_P[(1 - e^{\varepsilon}/R)_+]$ with
# $R = e^L$, and the reverse curve uses the same atoms read under $Q$. In the other direction, the trade-off function
# of a discrete pair is piecewise linear, and its slopes are exactly the likelihood ratios (by the Neyman–Pearson
# lemma, the best test rejects outputs in decreasing order of $r$), so its vertices give back the PLD.

# %% tags=["nbval-check-output"]
pair = pairs.LatticePair(p={"a": F(1, 2), "b": F(1, 4), "c": F(1, 8), "P only": F(1, 8)},
                         q={"a": F(1, 8), "b": F(1, 4), "c": F(1, 2), "Q only": F(1, 8)})
pld = pair.pld()
show = lambda value: "∞" if value == float("inf") else str(value)  # r = ∞: P-mass where Q has none
print("PLD under P (likelihood ratio r = dP/dQ, P-mass):", [(show(r), str(m)) for r, m in pld])
ratios = [F(1, 4), F(1, 2), F(1), F(2), F(3), F(4), F(8)]
exact = all(pairs.curves_from_pld(pld, r) == (pair.delta_at_ratio(r), pair.reverse().delta_at_ratio(r)) for r in ratios)
print("PLD -> both one-sided curves, exact at every tested ratio:", exact)
recovered = pairs.pld_from_tradeoff(pair.tradeoff_vertices())
print("trade-off function -> PLD, exact:", recovered == pld)

# %% [markdown]
# The curves-to-trade-off direction is a convex conjugate,
# $T_{P,Q}(\alpha) = \sup_{r>0}[1 - \delta_{Q\Vert P}(\log r) - r\alpha]$, with the reverse curve below $r = 1$ obtained from the
# forward one. On a log grid of ratios it converges to the exact piecewise-linear $T$; with the pair's own
# likelihood ratios in the grid it is exact.
#
# In words: each line $\beta = 1 - \delta_{Q\Vert P}(\log r) - r\alpha$ lies below the trade-off curve, and the curve is the
# upper envelope of these lines as $r$ ranges over $(0, \infty)$ — the duality of {prf:ref}`prop-primer-duality`.
# {numref}`fig-infoeq-tradeoff` draws the trade-off function computed directly by the Neyman–Pearson construction next to
# the one recovered from the two one-sided curves, and the reverse trade-off $T_{Q,P}$ for comparison; the dashed curve lies
# on top of the solid one, and the two agree at every $\alpha$ drawn.

# %% mystnb={"figure": {"caption": "Trade-off functions of the pair with mass outside each other's support: T_{P,Q} from the Neyman\u2013Pearson construction (solid), the same function recovered from the two one-sided curves by the convex conjugate (dashed, on top of it), and the reverse trade-off T_{Q,P}.", "name": "fig-infoeq-tradeoff"}} tags=["hide-input"]
alphas = np.linspace(0, 1, 101)
direct = [float(pair.tradeoff(F(a).limit_denominator(10**6))) for a in alphas]
forward = lambda r: pair.delta_at_ratio(F(r).limit_denominator(10**9))
reverse = lambda r: pair.reverse().delta_at_ratio(F(r).limit_denominator(10**9))
grid = np.concatenate([np.logspace(-6, 6, 601), [float(r) for r, _ in pld if r not in (0, float("inf"))]])
conjugate = [pairs.tradeoff_from_curves(forward, reverse, a, ratios=grid) for a in alphas]
fig, ax = plt.subplots(figsize=(5, 4.5))
ax.plot(alphas, direct, label=r"$T_{P,Q}$ (Neyman–Pearson)")
ax.plot(alphas, conjugate, "--", label="from the one-sided curves")
ax.plot(alphas, [float(pair.reverse().tradeoff(F(a).limit_denominator(10**6))) for a in alphas], label=r"$T_{Q,P}$")
ax.set_xlabel(r"$\alpha$")
ax.set_ylabel(r"$\beta$")
ax.set_title("Trade-off functions of the pair")
ax.legend(fontsize=8)
fig.tight_layout()

# %% tags=["hide-input", "nbval-check-output"]
print("curves -> trade-off, the same as the Neyman–Pearson curve at all", len(alphas), "α:",
      bool(np.allclose(conjugate, direct, rtol=0, atol=1e-12)))

# %% [markdown]
# ## The Rényi curve, when it is finite
#
# Drop the output $Q$ never produces, so that $P \ll Q$: every order is finite, and the moments
# $\mathbb E_P[R^u] = e^{uD_{u+1}(P\Vert Q)}$ at the integer orders $2, \dots, 2J+1$ determine the $J$ atoms of the PLD (Prony's
# method: a Hankel system for the polynomial whose roots are the likelihood ratios, then a Vandermonde system for
# the masses — all in exact fractions).
#
# The reason Prony's method applies: if the PLD has atoms at likelihood ratios $r_1, \dots, r_J$ with $P$-masses
# $m_1, \dots, m_J$, then the moments $\mu_u = \mathbb E_P[R^u] = \sum_j m_j r_j^u$ are a sum of $J$ exponentials in $u$.
# Such a sequence satisfies a linear recurrence whose characteristic polynomial has the roots $r_j$; $2J$ consecutive
# moments fix its coefficients through a Hankel system (a matrix with constant anti-diagonals), its roots are the
# ratios, and the masses solve a Vandermonde system. Integer orders suffice here because the pair is finite; the
# theorem itself uses the real-order curve.

# %% tags=["nbval-check-output"]
absolutely = pairs.LatticePair(p={"a": F(1, 2), "b": F(1, 4), "c": F(1, 4)},
                               q={"a": F(1, 8), "b": F(1, 4), "c": F(1, 2), "Q only": F(1, 8)})
moments = [F(1)] + [absolutely.renyi_moment(order) for order in range(2, 8)]
recovered = pairs.pld_from_renyi(moments)
print("RDP moments -> PLD:", [(show(r), str(m)) for r, m in recovered])
print("equals the PLD:", recovered == absolutely.pld())
print("with the P-only output, D_2 =", show(pair.renyi_moment(2)), "(every order infinite)")

# %% [markdown]
# ## Example 2.2: every Rényi order infinite, the curves still finite
#
# $P\{k\} = k^{-w}/\zeta(w)$ and $Q\{k\} = P\{k\}e^{-k}$ for $k \ge 1$, with the rest of $Q$'s mass on an extra point. The
# privacy loss under $P$ is $L = k$, heavy-tailed: $\mathbb E_Pe^{tL} = \sum_k k^{-w}e^{tk}/\zeta(w) = \infty$ for every $t > 0$.
# Yet $\delta_{P\Vert Q}(\varepsilon) = \mathbb E_P[(1 - e^{\varepsilon - L})_+]$ is finite — the condition "finite at some order" cannot be
# dropped from the theorem.
#
# The example shows why {prf:ref}`thm-info-equivalence` needs $D_{\alpha_0}(P\Vert Q) < \infty$ somewhere: the Rényi curve of
# this pair is identically $+\infty$, the same as the curve of any pair with a $+\infty$ privacy loss, so it cannot
# determine the PLD, while the one-sided curves, finite, still do. At $\varepsilon = 0$ the forward curve equals $Q$'s mass on
# the extra point, because $\sum_k P\{k\}(1 - e^{-k}) = 1 - \sum_k Q\{k\}$; the printed values show it. The partial sums
# of $\mathbb E_P e^{0.01L}$ printed last stay near 1.2 for the first thousand terms and then explode, once the exponential
# $e^{0.01k}$ overtakes the polynomial $k^{-w}$.

# %% tags=["nbval-check-output"]
delta, q_boundary = pairs.zeta_pair(zeta_w)
print(f"w = {zeta_w:g}: Q on the extra point = {mpmath.nstr(q_boundary, 10)}")
for eps in (0, 1, 2, 5, 10):
    print(f"  delta_P||Q({eps:>2}) = {mpmath.nstr(delta(eps), 10)}")
with mpmath.workdps(30):
    partial = [mpmath.nsum(lambda k: k ** -zeta_w * mpmath.exp(0.01 * k), [1, n]) for n in (10, 100, 1000, 5000)]
print("partial sums of E_P exp(0.01 L) (times zeta(w)):", ", ".join(mpmath.nstr(s, 6) for s in partial), "... diverge")

# %% [markdown]
# ## Example 2.3: the usual two-sided curve loses information
#
# Two integer noise laws added to a count of {term}`sensitivity` 1 share the right tail $q(k) = \tfrac{6}{11}4^{-k}$ ($k \ge 0$)
# and differ on the left: $q_A(k) = \tfrac3{11}2^{k}$, $q_B(k) = \tfrac6{11}3^{k}$ ($k < 0$), geometric left tails that
# reproduce every number of the paper's example (see the reproduction notes below). Both have
# $\delta_{P\Vert Q}(\varepsilon) = \tfrac2{11}(4 - e^\varepsilon)_+$, and the reverse curves lie below, so
# $\max\{\delta_{P\Vert Q}, \delta_{Q\Vert P}\}$ is the same for A and B — yet the pairs differ.
#
# This is the second precise exception: the usual two-sided curve is a function of the pair of one-sided curves, but not
# conversely. A mechanism reported by its two-sided curve alone may therefore be less well described than its own
# trade-off function or Rényi curve would describe it. The cell below computes, for both variants, the forward curve at
# several ratios, the reverse curve at $e^\varepsilon = 3$ and $\exp D_2(P\Vert Q)$; {numref}`ex-infoeq-example-2-3`
# derives all three by hand.

# %% tags=["hide-input", "nbval-check-output"]
found = []
for variant in ("A", "B"):
    ex = pairs.example_2_3(variant)
    same_forward = all(ex["forward"](r) == F(2, 11) * max(0, 4 - r) for r in (1, F(3, 2), 2, 3, 4, 5))
    print(f"{variant}: delta_P||Q(eps) = (2/11)(4 - e^eps)_+ at every tested eps: {same_forward}; "
          f"delta_Q||P(log 3) = {ex['reverse'](3)}; exp D_2(P||Q) = {ex['exp_d2']}")
    found.append((variant, ex["reverse"](3), ex["exp_d2"]))

# %% [markdown]
# ```{dropdown} Reproduction notes
# The paper's display of the two laws of Example 2.3 was lost; the geometric left tails used here are the ones that
# reproduce every number its text states. The two fractions printed for each variant, the reverse curve at $\log 3$
# and $\exp D_2$, are recorded in the reproduction ledger and compared there, exactly, with the paper's fractions.
# ```

# %% tags=["remove-cell"]
_ = ledger.reproduce({f"unifying.ex2.3.{variant}.{what}": str(value) for variant, rev, d2 in found
                      for what, value in (("reverse_delta_log3", rev), ("exp_D2", d2))})

# %% [markdown]
# ## Symmetric noise needs one curve
#
# If $Z \overset{d}{=} -Z$, the reflection $x \mapsto s - x$ swaps $P = \mathrm{Law}(s+Z)$ and $Q = \mathrm{Law}(Z)$, so
# $\delta_{P\Vert Q} = \delta_{Q\Vert P}$ and $T_{P,Q} = T_{Q,P}$ (Corollary A.1). Checked exactly for discrete {term}`Laplace noise`
# ($q(k) \propto 2^{-|k|}$, truncated symmetrically and renormalised) shifted by 1. The reason: the reflection maps $P$ to $Q$
# and $Q$ to $P$ and is a bijection of the output space, so every event $A$ for $(P, Q)$ corresponds to an event for
# $(Q, P)$ with the same probabilities, and the suprema defining the two curves agree. Every noise in {doc}`11_what_zcdp_forgets`
# — Gaussian, {term}`Gaussian mixture`, Laplace — is symmetric, which is why that chapter works with one direction only.

# %% tags=["nbval-check-output"]
support = range(-30, 31)
weights = {k: F(1, 2 ** abs(k)) for k in support}
total = sum(weights.values())
noise = {k: w / total for k, w in weights.items()}
shifted = {k + 1: w for k, w in noise.items()}
symmetric = pairs.LatticePair(p=shifted, q=noise)
print("one-sided curves equal:", all(symmetric.delta_at_ratio(r) == symmetric.reverse().delta_at_ratio(r)
                                      for r in (1, F(3, 2), 2, F(5, 2))))
print("trade-off functions equal:", symmetric.tradeoff_vertices() == symmetric.reverse().tradeoff_vertices())

# %% [markdown]
# ## Summary
#
# - For one pair $(P, Q)$, the pair of one-sided profiles, the pair of trade-off functions and the law of the extended
#   privacy loss carry the same information; the Rényi curve joins them when it is finite at some order above 1
#   ({prf:ref}`thm-info-equivalence`). Each recovery runs here as code and round-trips exactly in fractions.
# - The finite-order condition cannot be dropped: the zeta pair of Example 2.2 has every Rényi order infinite and finite
#   one-sided curves.
# - The usual two-sided curve $\max\{\delta_{P\Vert Q}, \delta_{Q\Vert P}\}$ is not equivalent: the two pairs of Example 2.3 share it but
#   differ in their reverse curves ($3/22$ against $0$ at $\log 3$) and in $\exp D_2$ ($265/88$ against $3$).
# - Symmetric noise has equal one-sided curves, so one suffices; asymmetric noise needs both.
# - Choosing among the equivalent descriptions is a matter of convenience. Replacing the Rényi curve by {term}`zCDP`'s single
#   $\rho$ is not: {doc}`11_what_zcdp_forgets` measures what it loses.

# %% [markdown]
# ## Exercises
#
# ```{exercise} Another zeta pair (★, run)
# :label: ex-infoeq-zeta
#
# % change: zeta_w = 2.5
# Set `zeta_w = 2.5` in the parameters cell and re-run the chapter. Is the forward curve
# still finite and decreasing in $\varepsilon$? Explain why $\delta_{P\Vert Q}(0)$ equals $Q$'s mass on the extra point, and check it.
# ```
#
# ```{solution-start} ex-infoeq-zeta
# :class: dropdown
# ```
#
# For every $w > 1$ the loss $L = k$ still has $\mathbb E_P e^{tL} = \infty$ for every $t > 0$, and
# $\delta_{P\Vert Q}(\varepsilon) = \mathbb E_P[(1 - e^{\varepsilon - L})_+] \le 1$ is finite and non-increasing. At $\varepsilon = 0$ it is
# $\sum_k P\{k\}(1 - e^{-k}) = 1 - \sum_k Q\{k\}$, which is $Q$'s mass on the extra point.

# %%
delta_ex, boundary_ex = pairs.zeta_pair(zeta_w)
values_ex = [delta_ex(eps) for eps in (0, 1, 2, 5)]
assert all(0 < b < a <= 1 for a, b in zip(values_ex, values_ex[1:]))
assert abs(values_ex[0] - boundary_ex) < 1e-12
print(f"w = {zeta_w:g}: δ_P‖Q(0), (1), (2), (5) =", ", ".join(mpmath.nstr(v, 8) for v in values_ex),
      f"; Q on the extra point = {mpmath.nstr(boundary_ex, 8)}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Round trips for randomised response (★, code)
# :label: ex-infoeq-response
#
# % change: truth = "9/10"
# {term}`randomised response` with truth probability $p$ (`truth` in the parameters cell, $3/4$) is the pair
# $P = (p, 1 - p)$, $Q = (1 - p, p)$ on {yes, no}. Build it as a `pairs.LatticePair`, compute its PLD, and check that the
# PLD gives back both one-sided curves and that the trade-off function gives back the PLD, exactly. What is
# $\delta_{P\Vert Q}(\log 3)$ at $p = 3/4$, and why? Then set `truth = "9/10"`: at which $\varepsilon$ does the forward
# curve reach zero now?
# ```
#
# ```{solution-start} ex-infoeq-response
# :class: dropdown
# ```
#
# The likelihood ratios are $r = p/(1 - p)$ (on "yes", $P$-mass $p$) and $1/r$ (on "no", $P$-mass $1 - p$); at $p = 3/4$
# they are $3$ and $1/3$. At $e^\varepsilon = r$ the forward curve is $\sum_A (P - rQ)_+ = 0$: no output has a ratio above
# $r$, so randomised response is $(\log r, 0)$-DP — $(\log 3, 0)$ at $p = 3/4$, $(\log 9, 0)$ at $p = 9/10$ — and at
# $\varepsilon = 0$ the curve is the total variation distance $2p - 1$. The round trips are exact equalities of
# fractions.

# %%
p_true = F(truth)
response = pairs.LatticePair(p={"yes": p_true, "no": 1 - p_true}, q={"yes": 1 - p_true, "no": p_true})
response_pld = response.pld()
top_ratio = p_true / (1 - p_true)
assert sorted(r for r, _ in response_pld) == [1 / top_ratio, top_ratio]
assert all(pairs.curves_from_pld(response_pld, r) == (response.delta_at_ratio(r), response.reverse().delta_at_ratio(r))
           for r in (F(1), F(2), top_ratio, top_ratio + 1))
assert pairs.pld_from_tradeoff(response.tradeoff_vertices()) == response_pld
assert response.delta_at_ratio(top_ratio) == 0 < response.delta_at_ratio(top_ratio - F(1, 1000))
assert response.delta_at_ratio(F(1)) == 2 * p_true - 1
print(f"p = {p_true}: PLD", [(str(r), str(m)) for r, m in response_pld],
      f"; δ_P‖Q(0) = {response.delta_at_ratio(F(1))}, zero from ε = log {top_ratio} on")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Asymmetric noise needs both curves (★★, code)
# :label: ex-infoeq-asymmetric
#
# % change: asymmetric_tails = [2, 5]
# Replace the discrete Laplace noise of the last section by an asymmetric one, $q(k) \propto a^{-k}$ for $k \ge 0$ and
# $q(k) \propto b^{k}$ for $k < 0$ (truncated to $|k| \le 20$), shifted by 1, with $[a, b]$ = `asymmetric_tails` of the
# parameters cell ($[2, 3]$; then $[2, 5]$). Are the two one-sided curves still equal? Are they equal at
# $\varepsilon = 0$?
# ```
#
# ```{solution-start} ex-infoeq-asymmetric
# :class: dropdown instructor-only
# ```
#
# Without a reflection that swaps $P$ and $Q$ nothing forces the curves to agree, and here they do not: the two tails
# decay at different rates, so the likelihood ratios on the two sides differ. At $\varepsilon = 0$ they do agree, for every
# pair: $\delta_{P\Vert Q}(0) = \sup_A\{P(A) - Q(A)\}$ is the total variation distance, which is symmetric.

# %%
right, left = (F(base) for base in asymmetric_tails)
weights_ex = {k: right ** -k if k >= 0 else left**k for k in range(-20, 21)}
total_ex = sum(weights_ex.values())
noise_ex = {k: w / total_ex for k, w in weights_ex.items()}
asymmetric = pairs.LatticePair(p={k + 1: w for k, w in noise_ex.items()}, q=noise_ex)
assert asymmetric.delta_at_ratio(F(1)) == asymmetric.reverse().delta_at_ratio(F(1))
assert any(asymmetric.delta_at_ratio(r) != asymmetric.reverse().delta_at_ratio(r) for r in (F(3, 2), F(2), F(5, 2)))
assert asymmetric.tradeoff_vertices() != asymmetric.reverse().tradeoff_vertices()
print(f"tails {right}^-k and {left}^k: δ_P‖Q(log 2) = {float(asymmetric.delta_at_ratio(F(2))):.6g}, "
      f"δ_Q‖P(log 2) = {float(asymmetric.reverse().delta_at_ratio(F(2))):.6g}; "
      f"both at ε = 0: {float(asymmetric.delta_at_ratio(F(1))):.6g}")

# %% [markdown]
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} Example 2.3 by hand (★★, derive)
# :label: ex-infoeq-example-2-3
#
# For the two noise laws of Example 2.3, $q(k) = \tfrac6{11}4^{-k}$ for $k \ge 0$ and on the left
# $q_A(k) = \tfrac3{11}2^k$ or $q_B(k) = \tfrac6{11}3^k$ for $k < 0$, with $P = \mathrm{Law}(1 + Z)$ and
# $Q = \mathrm{Law}(Z)$: derive the PLD of each pair (its likelihood ratios with their $P$- and $Q$-masses), and
# from it show that both pairs have $\delta_{P\Vert Q}(\varepsilon) = \tfrac2{11}(4 - e^\varepsilon)_+$, that
# $\delta_{Q\Vert P}(\log 3)$ is $3/22$ for A and $0$ for B, and that $\exp D_2(P\Vert Q)$ is $265/88$ for A and $3$
# for B. Check your fractions against `pairs.example_2_3`.
# ```
#
# ```{solution-start} ex-infoeq-example-2-3
# :class: dropdown instructor-only
# ```
#
# Both laws are normalised: $\sum_{k \ge 0}\tfrac6{11}4^{-k} = \tfrac6{11}\cdot\tfrac43 = \tfrac8{11}$, and the left
# tails carry $\tfrac3{11}\sum_{j\ge1}2^{-j} = \tfrac3{11}$ and $\tfrac6{11}\sum_{j\ge1}3^{-j} = \tfrac3{11}$. With
# $p(k) = q(k - 1)$ the likelihood ratio $r(k) = q(k-1)/q(k)$ is
#
# - for $k \ge 1$: $4^{-(k-1)}/4^{-k} = 4$, in both variants;
# - for $k = 0$: $q(-1)/q(0)$, that is $\tfrac3{22}/\tfrac6{11} = \tfrac14$ (A) or $\tfrac2{11}/\tfrac6{11} = \tfrac13$ (B);
# - for $k < 0$: $q(k-1)/q(k)$, that is $\tfrac12$ (A) or $\tfrac13$ (B).
#
# The masses follow by summing: the outputs $k \ge 1$ carry $P$-mass $\sum_{j \ge 0} q(j) = \tfrac8{11}$ and $Q$-mass
# $\tfrac8{11} - \tfrac6{11} = \tfrac2{11}$. For A, ratio $\tfrac14$ (at $k = 0$) has $P$-mass $q(-1) = \tfrac3{22}$ and
# $Q$-mass $\tfrac6{11}$, and ratio $\tfrac12$ has $P$-mass $\tfrac3{11} - \tfrac3{22} = \tfrac3{22}$ and $Q$-mass
# $\tfrac3{11}$. For B the two left atoms merge into ratio $\tfrac13$ with $P$-mass $\tfrac3{11}$ and $Q$-mass
# $\tfrac9{11}$ (each mass is the other times the ratio, as it must be).
#
# *Forward curve.* $\delta_{P\Vert Q}(\varepsilon) = \mathbb E_P[(1 - e^\varepsilon/R)_+]$ gets a contribution only
# from ratios above $e^\varepsilon \ge 1$, that is from $R = 4$ alone:
# $\tfrac8{11}(1 - e^\varepsilon/4)_+ = \tfrac2{11}(4 - e^\varepsilon)_+$, the same for A and B.
#
# *Reverse curve.* $\delta_{Q\Vert P}(\varepsilon) = \mathbb E_Q[(1 - e^\varepsilon R)_+]$ gets contributions from the
# ratios below $e^{-\varepsilon}$. At $e^\varepsilon = 3$ these are the ratios below $\tfrac13$: for A only
# $\tfrac14$, giving $\tfrac6{11}(1 - \tfrac34) = \tfrac3{22}$; for B none, since its smallest ratio is exactly
# $\tfrac13$ and $(1 - 3\cdot\tfrac13)_+ = 0$.
#
# *Rényi moment.* $\exp D_2(P\Vert Q) = \mathbb E_Q[R^2] = \mathbb E_P[R]$: for A,
# $\tfrac8{11}\cdot 4 + \tfrac3{22}\cdot\tfrac14 + \tfrac3{22}\cdot\tfrac12 = \tfrac{256 + 3 + 6}{88} = \tfrac{265}{88}$;
# for B, $\tfrac{32}{11} + \tfrac3{11}\cdot\tfrac13 = 3$.
#
# The two-sided curve is the same for A and B as well: $\delta_{Q\Vert P} \le \delta_{P\Vert Q}$ at every
# $\varepsilon \ge 0$ in both (for A on $1 \le e^\varepsilon \le 2$ the difference is $(e^\varepsilon - 1)/11 \ge 0$,
# and beyond 2 only the atom $\tfrac14$ remains), so the maximum of the two is the shared forward curve, while the
# reverse curves, the trade-off functions and the PLDs differ.

# %%
example_fractions = {"A": (F(3, 22), F(265, 88)), "B": (F(0), F(3))}
for variant, (reverse_log3, exp_d2) in example_fractions.items():
    ex = pairs.example_2_3(variant)
    assert ex["reverse"](3) == reverse_log3 and ex["exp_d2"] == exp_d2
    assert all(ex["forward"](r) == F(2, 11) * max(0, 4 - r) for r in (1, F(3, 2), 2, 3, 4, 5))
    print(f"{variant}: delta_Q||P(log 3) = {reverse_log3}, exp D_2(P||Q) = {exp_d2}: as derived")
# the P-mass of each ratio, by the sums above (A), against the pair itself
pld_a = {r: m for r, m in pairs.example_2_3("A")["pair"].pld()}
assert pld_a[F(4)] > F(8, 11) - F(1, 10**15) and pld_a[F(1, 4)] == F(3, 22)
assert abs(pld_a[F(1, 2)] - F(3, 22)) < F(1, 10**15)

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Prony's method by hand (★★, derive)
# :label: ex-infoeq-prony
#
# For {term}`randomised response` with truth probability $3/4$ (the pair of {numref}`ex-infoeq-response`), compute the
# moments $\mu_u = \mathbb E_P[R^u]$ for $u = 0, 1, 2, 3$ as fractions. Show that any PLD with two atoms $r_1, r_2$
# has moments obeying the recurrence $\mu_{u+2} = (r_1 + r_2)\,\mu_{u+1} - r_1r_2\,\mu_u$, solve the $2 \times 2$
# Hankel system for the two coefficients, and recover the ratios and the masses. Check with `pairs.pld_from_renyi`.
# ```
#
# ```{solution-start} ex-infoeq-prony
# :class: dropdown
# ```
#
# *The recurrence.* With $\mu_u = m_1 r_1^u + m_2 r_2^u$, each term $x = r_j$ satisfies
# $x^{u+2} - (r_1 + r_2)x^{u+1} + r_1r_2 x^u = x^u(x - r_1)(x - r_2) = 0$; multiplying by $m_j$ and adding gives
# $\mu_{u+2} = a\,\mu_{u+1} + b\,\mu_u$ with $a = r_1 + r_2$ and $b = -r_1r_2$. Written for $u = 0, 1$ this is the
# Hankel system
#
# $$\begin{pmatrix}\mu_1 & \mu_0\\ \mu_2 & \mu_1\end{pmatrix}\begin{pmatrix}a\\ b\end{pmatrix}
#   = \begin{pmatrix}\mu_2\\ \mu_3\end{pmatrix},$$
#
# and the ratios are the roots of $x^2 - ax - b$.
#
# *The numbers.* The ratios are 3 (on "yes", $P$-mass $\tfrac34$) and $\tfrac13$ ($P$-mass $\tfrac14$), so
# $\mu_0 = 1$, $\mu_1 = \tfrac94 + \tfrac1{12} = \tfrac73$, $\mu_2 = \tfrac{27}4 + \tfrac1{36} = \tfrac{61}9$,
# $\mu_3 = \tfrac{81}4 + \tfrac1{108} = \tfrac{547}{27}$; each is also $\exp(u\,D_{u+1}(P\Vert Q))$, which is how
# Rényi DP reports them. The determinant of the matrix is $\mu_1^2 - \mu_0\mu_2 = \tfrac{49}9 - \tfrac{61}9 =
# -\tfrac43 \ne 0$, and Cramer's rule gives
#
# $$a = \frac{\mu_2\mu_1 - \mu_0\mu_3}{\mu_1^2 - \mu_0\mu_2} = \frac{\tfrac{427}{27} - \tfrac{547}{27}}{-\tfrac43}
#   = \frac{10}3, \qquad
#   b = \frac{\mu_1\mu_3 - \mu_2^2}{\mu_1^2 - \mu_0\mu_2} = \frac{\tfrac{3829}{81} - \tfrac{3721}{81}}{-\tfrac43} = -1 .$$
#
# The roots of $x^2 - \tfrac{10}3x + 1$ are $3$ and $\tfrac13$, and the masses solve $m_1 + m_2 = \mu_0 = 1$,
# $3m_1 + \tfrac13 m_2 = \mu_1 = \tfrac73$, so $m_1 = \tfrac34$ and $m_2 = \tfrac14$: the PLD, recovered from
# four numbers of the Rényi curve.

# %%
rr = pairs.LatticePair(p={"yes": F(3, 4), "no": F(1, 4)}, q={"yes": F(1, 4), "no": F(3, 4)})
mu_rr = [F(1)] + [rr.renyi_moment(u + 1) for u in range(1, 4)]
assert mu_rr == [F(1), F(7, 3), F(61, 9), F(547, 27)]
det = mu_rr[1] ** 2 - mu_rr[0] * mu_rr[2]
a_rr = (mu_rr[2] * mu_rr[1] - mu_rr[0] * mu_rr[3]) / det
b_rr = (mu_rr[1] * mu_rr[3] - mu_rr[2] ** 2) / det
assert (det, a_rr, b_rr) == (F(-4, 3), F(10, 3), F(-1))
assert pairs.pld_from_renyi(mu_rr) == [(F(1, 3), F(1, 4)), (F(3), F(3, 4))] == rr.pld()
print("moments:", [str(m) for m in mu_rr], "; a =", a_rr, ", b =", b_rr, "; PLD:",
      [(str(r), str(m)) for r, m in pairs.pld_from_renyi(mu_rr)])

# %% [markdown]
# ```{solution-end}
# ```
