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
# (chapter-calibration)=
# # Calibrating exactly
#
# ```{admonition} What you will learn
# :class: tip
#
# - why the {term}`zCDP` rule calibrates too much noise, and how to find the smallest noise the exact curve allows;
# - what a two-sided certificate for a calibration is, what it proves without assuming that privacy improves with
#   noise, and why, for discrete noise, that assumption can fail;
# - how a target given as a trade-off curve — a set of points, or $\mu$-GDP — is checked *between* its points and
#   in its tail, by the duality between trade-off functions and privacy profiles;
# - how much variance the exact calibration gives back for a census pair, for the whole census and for an
#   allocation of your own, and how the calibrations of Opacus and dp_accounting compare with the smallest.
# ```
#
# ```{admonition} What you need
# :class: note
#
# The {term}`privacy profile` $\delta(\varepsilon)$ and its certified evaluation ({doc}`04_fourier_inversion`,
# {doc}`06_sieve`), the census pairs ({doc}`07_census_dhc`), and the duality between {term}`trade-off functions
# <trade-off function>` and privacy profiles ({prf:ref}`prop-primer-duality` in the {doc}`02_primer`).
# ```
#
# Every chapter so far has asked how private a given release is. An analyst usually asks the converse: *how little
# noise can I add and still meet my privacy target?* That is {term}`noise calibration`, and every accountant in
# common use answers it on floating-point numbers with no statement about the answer's accuracy. This chapter
# answers it with a proof on both sides: at the noise returned the target holds, with the certified error bound
# of the exact privacy profile, and with one grid step less noise the target certainly fails.
#
# ## From the zCDP rule to the smallest noise
#
# A release of $m$ counts with discrete Gaussian noise $N_{\mathbb Z}(0, \sigma_i^2)$, $\sigma_i^2 = 1/\rho_i$, each count
# moved by one by a changed record, is $\rho'$-zCDP with $\rho' = \sum_i \rho_i / 2$ {cite}`canonne2020discrete`. The
# zCDP rule turns a target $(\varepsilon, \delta)$ into a budget through the conversion
# $\varepsilon = \rho' + 2\sqrt{\rho' \log(1/\delta)}$ {cite}`bun2016concentrated`: solve for $\rho'$, and scale the
# variances until the release has it. The rule is safe, since the conversion is a valid bound, but the bound is
# loose, so the rule adds more noise than the target needs.
#
# The exact rule keeps the *shape* of the release — the ratios of the $\rho_i$ — and looks for the smallest
# variance multiplier $v$ (every $\sigma_i^2$ becomes $v\,\sigma_i^2$) at which the exact profile meets the target.
# The multipliers live on a grid of step $h$, by default a thousandth of the zCDP multiplier rounded down to two significant digits. The answer is
# certified on both sides: at $v$ every level of the target holds with its certified bound (the computed
# $\delta(\varepsilon)$ plus its error bound is at most the target's), and at $v - h$ some level certainly fails
# (the computed $\delta$ minus its bound exceeds the target). The search is a bisection, which assumes that more
# noise never raises $\delta$. For continuous Gaussians that is post-processing: $N(0, v\sigma^2)$ is
# $N(0, \sigma^2)$ plus independent noise. For discrete Gaussians it is no theorem, and it can fail:
# {numref}`ex-calibrate-monotone` shows a single discrete Gaussian whose $\delta$ rises with its variance, and a
# target at which a smaller multiplier than the bisection's also meets the target. The two-sided statement at the
# end of the search is therefore checked, not assumed: it is computed at $v$ and at $v - h$, and it proves that the
# target holds at $v$ and fails at $v - h$. That no multiplier further below meets the target rests on $\delta$
# falling with the noise; for the census pair below, the certified $\delta$ falls at each of the multipliers drawn in
# {numref}`fig-calibrate-pair`.

# %% tags=["parameters", "hide-cell"]
target_eps = "26.340588852722"  # the Bureau's epsilon at delta = 1e-10 (rho = 4.9622), as in the Fourier chapter
target_delta = "1e-10"
pair = (13, 13)                 # one census pair, [M0, M0]
census_pairs = None             # None: all 946 pairs for the census-wide calibration; or a list of pairs
releases = 10                   # the peers' comparison: this many releases of one discrete Gaussian count
peer_eps, peer_delta = 1.0, 1e-6
weights = [1, 4, 9, 16, 25]     # the allocation example: the weight of each query's variance in the loss
mu = 1.0                        # the mu-GDP target
curve_budgets = ["1/2", "1/3"]  # the exercise on a curve given by two guarantees: the budgets calibrated to it

# %% tags=["hide-cell"]
import math
import warnings
from fractions import Fraction as F

import matplotlib.pyplot as plt
import numpy as np

import accountlib
from accountlib.applications import census
from accountlib.theory import calibration
from accountlib.theory.conversions import zcdp_epsilon

target = accountlib.ApproximateDP(target_eps, target_delta)


def grid_decimals(step) -> int:
    """The decimals that print every multiple of the grid step exactly (at least three): a step of 1/625 = 0.0016
    needs four, so 961/625 prints as 1.5376, not 1.538."""
    decimals = 3
    while (F(step) * 10 ** decimals).denominator != 1 and decimals < 12:
        decimals += 1
    return decimals


def power_of_ten(x) -> str:
    """A level for a figure's text in mathtext: a power of ten as $10^{k}$, any other value as :g prints it."""
    k = math.log10(float(x))
    return rf"$10^{{{round(k)}}}$" if k == round(k) else f"{float(x):g}"

# %% [markdown]
# ## One census pair
#
# Pair $[M_0, M_0] = (13, 13)$ of {doc}`07_census_dhc` is the pair whose allocation the Bureau published as its own;
# its zCDP budget $\rho' = \sum_i \rho_i / 2$ over the pair's 160 budgets is the Bureau's $\rho = 4.9622$. The
# Bureau's statement, $\varepsilon = 26.34$ at $\delta = 10^{-10}$, is the zCDP rule's, so at the Bureau's own target
# (the default parameters) the zCDP multiplier is exactly 1.

# %% tags=["nbval-check-output"]
one = accountlib.calibrate(census.pair_rhos(*pair), target)
held = one.checks[0]
places = grid_decimals(one.step)
print(f"smallest variance multiplier: {float(one.scale):.{places}f} (grid step {float(one.step):.{places}f})")
print(f"zCDP rule: {float(one.zcdp_scale):.3f}")
print(f"at {float(one.scale):.{places}f}: delta = {float(held.point.delta):.4e} <= {float(held.level.allowed):.1e}"
      f" (bound {float(held.point.error_bound):.0e})")
print(f"at {float(one.scale - one.step):.{places}f}: delta = {float(one.failure.point.delta):.4e} > "
      f"{float(one.failure.level.witness):.1e} (bound {float(one.failure.point.error_bound):.0e})")
print(f"variance given back: {one.variance_saved:.1%}")

# %% [markdown]
# The same release with about nine tenths of its variance already meets the Bureau's own target: the certified
# $\delta$ at the returned multiplier sits below $10^{-10}$ by far more than its error bound, and one step below it
# sits above by far more than its bound, so neither side is a matter of rounding.
# {numref}`fig-calibrate-pair` shows where the answer sits on the exact curve.

# %% mystnb={"figure": {"caption": "Pair (13, 13): the exact \u03b4 at the target \u03b5 as every variance is multiplied by v (blue; each value certified, its bound far below the line's width), against the target \u03b4 (dashed). The smallest multiplier on the grid (dot) lies below the zCDP rule's multiplier (red): the variance between them is given back.", "name": "fig-calibrate-pair"}} tags=["hide-input"]
low, high = 0.9 * float(min(one.scale, one.zcdp_scale)), 1.05 * float(max(one.scale, one.zcdp_scale))
scales = np.linspace(low, high, 26)
deltas = [float(accountlib.ShiftPair([r / F(str(v)) for r in census.pair_rhos(*pair)]).delta([F(target_eps)])[0].delta)
          for v in scales]
assert all(b < a for a, b in zip(deltas, deltas[1:]))  # more variance, less delta, at every multiplier drawn
fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.semilogy(scales, deltas, color="C0", label=f"exact δ at ε = {float(F(target_eps)):.2f}")
ax.axhline(float(F(target_delta)), color="gray", ls="--", label=f"target δ = {power_of_ten(F(target_delta))}")
ax.axvline(float(one.zcdp_scale), color="C3", label="zCDP rule")
ax.plot([float(one.scale)], [float(held.point.delta)], "o", color="k", label="smallest certified")
ax.set_xlabel("variance multiplier v")
ax.set_ylabel("δ")
ax.set_title(f"Pair {pair}: exact δ at the target ε against the variance multiplier", fontsize=9)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## The whole census
#
# A multiplier meets the target census-wide when it meets it for every one of the 946 pairs, since the census-wide
# guarantee is the worst pair's. `census.calibrate_census` ranks the pairs by their $\delta$ at the zCDP multiplier,
# calibrates the likeliest binding pair, checks every pair at its answer, and calibrates again any pair that does
# not hold there. The certificate is all 946 pairs holding at the multiplier, and the deciding pair failing one step
# below it.

# %% tags=["nbval-check-output"]
wide = census.calibrate_census(target, pairs=census_pairs)
print(f"census-wide smallest multiplier: {float(wide.scale):.{grid_decimals(wide.calibration.step)}f}; {wide.pairs_checked} pairs hold there")
print(f"their delta at it: {float(wide.delta_range[0]):.6e} to {float(wide.delta_range[1]):.6e}")
print(f"first to bind: pair {wide.deciding}; given back against the zCDP rule: "
      f"{wide.calibration.variance_saved:.1%}")

# %% [markdown]
# Every pair has the same total budget, so the zCDP rule gives every pair — and the census — the same multiplier.
# The exact curves differ from pair to pair, and the census-wide answer is the largest of the pairs' smallest
# multipliers. At this target the differences are far below one grid step: the 946 certified $\delta$ at the answer
# agree to about four digits (the second line), so every pair holds there and fails one step below, and the pair
# named is merely the first of them to bind. The computation takes about a minute: one exact calibration and one
# certified $\delta$ for each of the 946 pairs at the answer.
#
# ## An allocation of your own
#
# A release of several queries, each with a weight $w_i$ on its variance in the loss $\sum_i w_i \sigma_i^2$, is
# allocated by zCDP in closed form: minimising $\sum_i w_i/\rho_i$ at a fixed $\sum_i \rho_i$ gives
# $\rho_i \propto \sqrt{w_i}$. `accountlib.allocate` starts there, snaps the shape to a coarse rational grid the
# exact engine handles (multiples of $\max_i \rho_i / 2^{10}$), calibrates it exactly, then tries the shapes
# $\rho_i \propto w_i^{\gamma}$ for a few $\gamma$ around $1/2$ and keeps the one with the least loss.

# %% tags=["nbval-check-output"]
mine = accountlib.allocate(weights, accountlib.ApproximateDP(peer_eps, peer_delta))
print("budgets:", ", ".join(f"{float(r):.5f}" for r in mine.rhos))
print(f"loss {float(mine.loss):.1f}; zCDP allocation {float(mine.zcdp_loss):.1f} ({mine.loss_saved:.1%} less)")
print(f"best exponent {mine.exponent}; proven smallest: {mine.calibration.proven_smallest}")

# %% [markdown]
# Most of the gain is the calibration itself, the same looseness of the zCDP conversion as for the census pair;
# the shape moves the loss by much less, since the exponents tried differ by a few percent in loss at most.
#
# ## Targets that are curves
#
# A target may be a whole {term}`trade-off function <trade-off function>` $g$: the release must satisfy $f \ge g$ everywhere, where $f$ is its
# trade-off function. Checking $f \ge g$ at a grid of points proves nothing between them. Duality does: for a convex
# piecewise-linear $g$, each segment lies on a line of slope $-e^{\varepsilon}$, and $f$ lies above that line on all of
# $[0, 1]$ exactly when $\delta_f(\varepsilon) \le 1 - \beta - e^{\varepsilon}\alpha$ at the segment's ends, because
# $1 - \delta_f(\varepsilon) - e^{\varepsilon}\alpha$ is the supporting line of $f$ of that slope
# ({prf:ref}`prop-primer-duality`). So a curve of $k$ segments is $k$ certified values of $\delta_f$, and the check
# holds between the points. Segments flatter than $-1$ are checked on the reflected curve, which suffices because
# every composition here is symmetric. At $\alpha = 0$, where a curve with $g(0) = 1$ meets $f(0) = 1$, no finite set
# of lines reaches; the curve is therefore checked as $f \ge \max(g - \eta, 0)$ with $\eta = 10^{-30}$, an absolute
# allowance like the error bound of every certified $\beta$ in the book. For such a curve the allowance is not
# idle: a $g$ with $g(0) = 1$ and a finite slope there cannot be met by discrete noise at all (its $\delta(\varepsilon)$ is
# positive at every $\varepsilon$), so the answer is decided by $\eta$. Curves from $(\varepsilon, \delta)$ guarantees
# start at $g(0) = 1 - \delta < 1$ and do not meet the problem.
#
# A {term}`μ-GDP` target, $f \ge G_\mu$ with $G_\mu(\alpha) = \Phi(\Phi^{-1}(1 - \alpha) - \mu)$ {cite}`dong2022gaussian`,
# is checked on the privacy profiles: both curves are symmetric, so $f \ge G_\mu$ is $\delta(\varepsilon) \le
# \delta_\mu(\varepsilon)$ for every $\varepsilon \ge 0$, with the exact profile of $\mu$-GDP
# $\delta_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2)$.
# Finitely many certified $\delta$ decide it *between* grid points too: as functions of $x = e^{\varepsilon}$ both
# profiles are convex and decreasing, so on an interval the composition's $\delta$ lies below the chord of its
# certified values at the ends and $\delta_\mu$ above its tangents there (slope $-\Phi(-\varepsilon/\mu - \mu/2)$);
# the chord below the larger tangent settles the whole interval, to second order in its width. Intervals that
# cannot be settled are halved, and a grid point where the certified $\delta$ exceeds $\delta_\mu$ shows failure.

# %% tags=["hide-input", "nbval-check-output"]
gaussian = accountlib.GaussianDP(mu)
gdp = accountlib.calibrate(["1/2", "1/3"], gaussian)
at_rule = accountlib.check([r / gdp.zcdp_scale for r in (F(1, 2), F(1, 3))], gaussian)
print(f"{mu:g}-GDP met at multiplier {float(gdp.scale):.4f}; shown to fail one step below: {gdp.proven_smallest}")
print(f"the rule rho' = mu^2/2: {float(gdp.zcdp_scale):.4f}")
unsafe = [c for c in at_rule if c.status == "fails"]
print(f"at the rule's multiplier the target {'certainly fails' if unsafe else 'is not shown to fail'}")
if unsafe:
    print(f"  at epsilon = {float(unsafe[0].level.epsilon):.3g}: delta {float(unsafe[0].point.delta):.3e} > "
          f"{float(unsafe[0].level.witness):.3e}")

# %% [markdown]
# Here the zCDP-style rule lands on the *unsafe* side: a discrete Gaussian with $\rho' = \mu^2/2$ is not $\mu$-GDP,
# and the certificate says so at a named $\varepsilon$. The exact answer needs a little more variance than the rule.
# The first line says that the target also certainly fails one grid step below the answer: the halving goes on
# near the $\varepsilon$ where the two profiles come closest until one side is certain, so the answer is the
# smallest multiplier in the local sense of the certificate.
#
# ## The peers, side by side
#
# Opacus' `get_noise_multiplier` {cite}`yousefpour2021opacus` and dp_accounting's `calibrate_dp_mechanism`
# calibrate the *continuous* Gaussian mechanism on floats, through an accountant: {term}`RDP`, the privacy-random-
# variable (PRV) accountant of {cite}`gopi2021numerical` (a discretised {term}`PLD`), or dp_accounting's PLD
# accountant {cite}`doroshenko2022connect`. The comparison below asks each for the noise of ten releases of one count (`releases` in the parameters cell) at
# $(\varepsilon, \delta) = (1, 10^{-6})$, and then asks the exact accountant whether the discrete mechanism with that
# variance meets the target (the last column: *holds*, or *UNSAFE* where the certified $\delta$ minus its bound
# exceeds $10^{-6}$). The last row runs dp_accounting's own calibration routine on this book's accountant
# (`accountlib.applications.accountant`), which accepts discrete Gaussian events and returns certified values.

# %% tags=["hide-input", "nbval-check-output"]
import dp_accounting as dpa
from dp_accounting.pld import PLDAccountant

try:
    from opacus.accountants.utils import get_noise_multiplier
except ImportError:  # Opacus (with torch) comes with make lab-dpsgd; without it the table lacks its two rows
    get_noise_multiplier = None

from accountlib.applications.accountant import CertifiedDiscreteGaussianAccountant, DiscreteGaussianDpEvent

peer_target = accountlib.ApproximateDP(peer_eps, F(str(peer_delta)))
smallest = accountlib.calibrate([1] * releases, peer_target)
bracket = dpa.mechanism_calibration.ExplicitBracketInterval(1.0, 100.0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    variances = {"zCDP rule": float(smallest.zcdp_scale)}
    for accountant in ("rdp", "prv") if get_noise_multiplier else ():
        variances[f"Opacus, {accountant.upper()} accountant"] = get_noise_multiplier(
            target_epsilon=peer_eps, target_delta=peer_delta, sample_rate=1.0, steps=releases,
            accountant=accountant) ** 2
    variances |= {
        "dp_accounting, PLD accountant": dpa.calibrate_dp_mechanism(
            PLDAccountant, lambda s: dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(s), releases), peer_eps, peer_delta,
            bracket) ** 2,
        "dp_accounting on this book's accountant": dpa.calibrate_dp_mechanism(
            CertifiedDiscreteGaussianAccountant, lambda s: dpa.SelfComposedDpEvent(DiscreteGaussianDpEvent(s), releases),
            peer_eps, peer_delta, bracket) ** 2,
    }
verdicts = {}
for name, variance in variances.items():
    (state,) = calibration.check([1 / F(variance)] * releases, peer_target)
    verdicts[name] = {"holds": "holds", "fails": "UNSAFE", "undecided": "undecided"}[state.status]
smallest_variance = float(smallest.scale)
short = {"zCDP rule": "zCDP rule", "Opacus, RDP accountant": "Opacus RDP", "Opacus, PRV accountant": "Opacus PRV",
         "dp_accounting, PLD accountant": "dp_accounting PLD",
         "dp_accounting on this book's accountant": "dp_accounting, certified"}
print(f"grid step of the smallest: {float(smallest.step):.{grid_decimals(smallest.step)}f}")
print(f"{'calibration':25} {'variance':>9} {'excess':>8}  target")
print(f"{'smallest on the grid':25} {smallest_variance:9.2f} {'':>8}  holds")
for name, variance in variances.items():
    print(f"{short[name]:25} {variance:9.2f} {variance / smallest_variance - 1:+8.2%}  {verdicts[name]}")

# %% [markdown]
# The zCDP rule asks for most extra variance, the RDP accountant for less, the PRV accountant for a few percent more
# than the smallest on the grid. dp_accounting's PLD accountant, which knows only the continuous Gaussian, lands
# within a hair of the smallest — on one side or the other, depending on how the continuous and the discrete curves
# cross at this target; the last column says which. Run on the certified accountant, the same routine returns a
# variance the target holds at, a little below the grid's smallest because Brent's method is not tied to the grid:
# the true smallest lies between the two dp_accounting rows.
# {numref}`fig-calibrate-peers` draws the table.

# %% mystnb={"figure": {"caption": "The variance each calibration asks for, relative to the smallest on this chapter's grid, for ten releases of one discrete Gaussian count at $(\\varepsilon, \\delta) = (1, 10^{-6})$, each bar labelled with its excess. Grey bars meet the target for the discrete mechanism; red labels mark those that certainly fail it (the certified \u03b4 minus its bound exceeds $10^{-6}$), however short the bar.", "name": "fig-calibrate-peers"}} tags=["hide-input"]
names = list(variances)
excess = [100 * (variances[n] / smallest_variance - 1) for n in names]
colors = ["C3" if verdicts[n] == "UNSAFE" else "0.6" for n in names]
fig, ax = plt.subplots(figsize=(6.4, 3.2))
ax.barh(range(len(names)), excess, color=colors)
for k, (value, name) in enumerate(zip(excess, names)):
    label = f"{value:+.2f}%" + ("  UNSAFE" if verdicts[name] == "UNSAFE" else "")
    ax.text(max(value, 0) + 1, k, label, va="center", fontsize=8, color="C3" if "UNSAFE" in label else "k")
ax.set_xlim(min(0, min(excess)) - 2, max(excess) * 1.3 + 5)
ax.set_yticks(range(len(names)), names, fontsize=8)
ax.axvline(0, color="k", lw=0.8)
ax.set_xlabel("variance beyond the smallest certified (%)")
ax.set_ylabel("calibration")
ax.set_title(f"{releases} discrete Gaussian releases at (ε, δ) = ({peer_eps:g}, {power_of_ten(peer_delta)})", fontsize=9)
ax.invert_yaxis()
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Summary
#
# - The smallest noise meeting a target is found on a grid of variance multipliers and certified on both sides: the
#   target holds at the answer with the certified bound of the exact profile, and certainly fails one step below.
#   That it is the smallest overall rests on $\delta$ falling as the noise grows, which discrete Gaussians do not
#   always do ({numref}`ex-calibrate-monotone`).
# - For census pair (13, 13) at the Bureau's $(26.34, 10^{-10})$ about a tenth of the variance comes back; the
#   census-wide answer, the largest of the pairs' smallest multipliers, is checked on all 946 pairs, which at this
#   target agree to well within a grid step.
# - A trade-off target given as points is checked by duality: one certified $\delta$ per segment, holding between
#   the points, up to an allowance of $10^{-30}$ on $\beta$ that decides only curves starting at $g(0) = 1$; a $\mu$-GDP
#   target is checked on the profiles, between grid points by convexity, and shows that the rule $\rho' = \mu^2/2$ is
#   unsafe for discrete noise.
# - Float calibrations of the continuous Gaussian either add variance (a few percent to the zCDP rule's sixty here)
#   or land just below the true smallest, on the unsafe side for discrete noise, as dp_accounting's PLD calibration
#   does at this target; dp_accounting's own routine, run on the certified accountant, returns an answer the target
#   holds at.

# %% [markdown]
# ## Exercises
#
# ```{exercise} A stricter delta (★, run)
# :label: ex-calibrate-delta
#
# % change: target_delta = "1e-15"
# Set `target_delta = "1e-15"` in the parameters cell (the Bureau's $\varepsilon$ unchanged) and run the chapter. Does
# pair (13, 13) need more or less variance than the zCDP rule now, and does more or less of it come back than at the
# Bureau's $\delta = 10^{-10}$?
# ```
#
# ```{solution-start} ex-calibrate-delta
# :class: dropdown
# ```
#
# A smaller $\delta$ at the same $\varepsilon$ is a stricter target, so both rules need more variance; the zCDP
# multiplier is no longer 1. The exact rule still needs less than the zCDP rule, but less of the variance comes back
# than at $10^{-10}$. The code reads the chapter's calibration of the pair at the target of the parameters cell and
# compares it with the one at the Bureau's target.

# %%
bureau = accountlib.calibrate(census.pair_rhos(*pair), accountlib.ApproximateDP(target_eps, "1e-10"))
for name, fitted in ((f"δ = {target_delta}", one), ("the Bureau's δ = 1e-10", bureau)):
    print(f"pair {tuple(pair)} at {name}: exact {float(fitted.scale):.{grid_decimals(fitted.step)}f}, "
          f"zCDP {float(fitted.zcdp_scale):.3f}, "
          f"saved {fitted.variance_saved:.1%}")
    assert fitted.proven_smallest and fitted.scale < fitted.zcdp_scale
if F(target_delta) < F("1e-10"):  # a stricter target at the same ε
    assert one.zcdp_scale > bureau.zcdp_scale and one.scale > bureau.scale
    assert one.variance_saved < bureau.variance_saved

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The certified epsilon of a delta (★, run)
# :label: ex-calibrate-epsilon
#
# % change: target_delta = "1e-15"
# `accountlib.epsilon(composition, delta)` returns an interval $[\varepsilon_{lo}, \varepsilon_{hi}]$ with the
# composition $(\varepsilon_{hi}, \delta)$-DP and not $(\varepsilon_{lo}, \delta)$-DP. Compute it for pair (13, 13) at
# the `target_delta` of the parameters cell ($10^{-10}$) and compare it with the zCDP statement's $\varepsilon$ there (the
# Bureau's 26.34). How far apart are the ends of the interval? Then at `target_delta = "1e-15"`.
# ```
#
# ```{solution-start} ex-calibrate-epsilon
# :class: dropdown
# ```
#
# At $10^{-10}$ the exact $\varepsilon$ is about 24.46, nearly two units below the zCDP statement; the interval is
# narrower than the tolerance asked for ($10^{-9}$ by default).

# %%
interval = accountlib.epsilon(accountlib.ShiftPair(census.pair_rhos(*pair)), target_delta)
zcdp_statement = zcdp_epsilon(float(sum(census.pair_rhos(*pair))) / 2, float(F(target_delta)))
assert interval.upper - interval.lower <= F(1, 10**9) and interval.upper < zcdp_statement
print(f"δ = {target_delta}: ε in [{float(interval.lower):.9f}, {float(interval.upper):.9f}]; "
      f"the zCDP statement {zcdp_statement:.4f}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} A curve given by two guarantees (★★, code)
# :label: ex-calibrate-curve
#
# % change: curve_budgets = ["1", "1/5", "1/5"]
# A release must be both $(1, 10^{-2})$-DP and $(3, 10^{-8})$-DP. The trade-off function of $(\varepsilon, \delta)$-DP is
# $\max\{0, 1 - \delta - e^{\varepsilon}\alpha, e^{-\varepsilon}(1 - \delta - \alpha)\}$; the curve of both guarantees is the
# larger of the two. Write it as points on the curve, calibrate the budgets `curve_budgets` of the parameters cell,
# $\rho = (1/2, 1/3)$, to it as a `TradeoffCurve`, and check that the calibrated release lies above the curve halfway
# between two of the points, where no level of the check was evaluated. Then calibrate $\rho = (1, 1/5, 1/5)$.
# ```
#
# ```{solution-start} ex-calibrate-curve
# :class: dropdown instructor-only
# ```
#
# Points on the curve at every multiple of $1/400$ will do (between two kinks they are collinear, and a chord across
# a kink lies above the curve, so the target only gets stricter); `TradeoffCurve` checks the segments between them by
# duality. The curve starts at $1 - 10^{-8}$, below 1, so the allowance $\eta$ plays no part. At $\alpha = 0.00375$,
# halfway between two points, the certified $\beta$ must lie above the segment's value there.

# %%
def dp_curve(eps, dlt, a):
    """The trade-off function of (eps, dlt)-DP at alpha = a (exact rationals where the inputs are)."""
    grow = F(np.exp(eps)).limit_denominator(10**12)
    return max(F(0), 1 - dlt - grow * a, (1 - dlt - a) / grow)


both = lambda a: max(dp_curve(1, F(1, 100), a), dp_curve(3, F(1, 10**8), a))  # noqa: E731
grid = [F(k, 400) for k in range(401)]  # points on the curve; collinear ones share one level of the check
fit = accountlib.calibrate(curve_budgets, accountlib.TradeoffCurve([(a, both(a)) for a in grid]))
a0, a1, mid = F(1, 400), F(2, 400), F(3, 800)  # halfway between two of the points
chord = both(a0) + (both(a1) - both(a0)) * (mid - a0) / (a1 - a0)
(between,) = accountlib.ShiftPair(list(fit.rhos)).tradeoff([mid], abs_tol=1e-20)
assert float(between.beta - between.error_bound) >= float(chord) and fit.proven_smallest
print(f"budgets {', '.join(curve_budgets)}: multiplier {float(fit.scale):.4f}; "
      f"f(0.00375) = {float(between.beta):.6f} >= {float(chord):.6f}")

# %% [markdown]
# ```{solution-end}
# ```

# %% [markdown]
# ```{exercise} The zCDP rule in closed form (★, derive)
# :label: ex-calibrate-zcdp-rule
#
# Solve the conversion $\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}$ for the largest budget $\rho^\ast$ that meets
# a target $(\varepsilon, \delta)$, and derive the variance multiplier the zCDP rule gives a release of zCDP budget
# $\rho'$. Check your formula against `one.zcdp_scale` for pair (13, 13), and explain why it is 1 at the Bureau's own
# target.
# ```
#
# ```{solution-start} ex-calibrate-zcdp-rule
# :class: dropdown
# ```
#
# Write $L = \log(1/\delta)$ and $x = \sqrt\rho$. The conversion reads $x^2 + 2\sqrt L\,x = \varepsilon$, that is
# $(x + \sqrt L)^2 = \varepsilon + L$, whose positive root is $x = \sqrt{\varepsilon + L} - \sqrt L$. Its left side
# increases with $x$, so every $\rho \le \rho^\ast$ meets the target and
#
# $$\rho^\ast = \bigl(\sqrt{\varepsilon + \log(1/\delta)} - \sqrt{\log(1/\delta)}\bigr)^2 .$$
#
# Multiplying every variance by $v$ divides every $\rho_i = 1/\sigma_i^2$ by $v$, and so divides the release's zCDP
# budget $\rho' = \sum_i\rho_i/2$ by $v$. The rule's multiplier is the smallest $v$ with $\rho'/v \le \rho^\ast$:
# $v_{\mathrm{zCDP}} = \rho'/\rho^\ast$. The Bureau's $\varepsilon = 26.340588852722$ at $\delta = 10^{-10}$ is the
# conversion evaluated at its own $\rho = 4.9622$, which is the $\rho'$ of pair (13, 13), so $\rho^\ast = \rho'$ and
# $v_{\mathrm{zCDP}} = 1$ (to the twelve digits of $\varepsilon$; the library rounds $\rho^\ast$ down to twelve
# significant digits, on the safe side).

# %%
log_inv_delta = float(np.log(1 / float(F(target_delta))))
rho_star = (np.sqrt(float(F(target_eps)) + log_inv_delta) - np.sqrt(log_inv_delta)) ** 2
rho_pair = float(sum(census.pair_rhos(*pair))) / 2
print(f"at ({float(F(target_eps)):g}, {target_delta}): ρ* = {rho_star:.10f}, ρ' of pair {tuple(pair)} = {rho_pair:.10f}, "
      f"rule's multiplier {rho_pair / rho_star:.10f} (library: {float(one.zcdp_scale):.10f})")
assert abs(rho_pair / rho_star - float(one.zcdp_scale)) < 1e-9
log_inv_bureau = math.log(1e10)  # the Bureau's own target: its ε is the conversion at ρ = 4.9622, so v = 1 there
rho_star_bureau = (math.sqrt(26.340588852722 + log_inv_bureau) - math.sqrt(log_inv_bureau)) ** 2
assert abs(float(census.TOTAL_RHO) / rho_star_bureau - 1) < 1e-9

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The zCDP allocation (★★, derive)
# :label: ex-calibrate-allocation
#
# Show that among budgets $\rho_1, \dots, \rho_k > 0$ with a fixed zCDP total $\sum_i \rho_i/2 = \rho^\ast$, the loss
# $\sum_i w_i\sigma_i^2 = \sum_i w_i/\rho_i$ is smallest for $\rho_i \propto \sqrt{w_i}$, with minimum
# $\bigl(\sum_i\sqrt{w_i}\bigr)^2/(2\rho^\ast)$. Check the minimum against `mine.zcdp_loss`, the loss of the zCDP
# allocation in the section on allocations, and check that the shapes $\rho_i \propto w_i^\gamma$ for other $\gamma$
# lose more under the zCDP rule.
# ```
#
# ```{solution-start} ex-calibrate-allocation
# :class: dropdown instructor-only
# ```
#
# By the Cauchy–Schwarz inequality,
#
# $$\Bigl(\sum_i \sqrt{w_i}\Bigr)^2 = \Bigl(\sum_i \sqrt{w_i/\rho_i}\,\sqrt{\rho_i}\Bigr)^2
#   \le \Bigl(\sum_i \frac{w_i}{\rho_i}\Bigr)\Bigl(\sum_i \rho_i\Bigr) = 2\rho^\ast\sum_i \frac{w_i}{\rho_i},$$
#
# so every allocation has loss at least $(\sum_i\sqrt{w_i})^2/(2\rho^\ast)$, with equality exactly when the vectors
# $(\sqrt{w_i/\rho_i})$ and $(\sqrt{\rho_i})$ are proportional, that is $\rho_i = c\sqrt{w_i}$. The constraint fixes
# $c = 2\rho^\ast/\sum_j\sqrt{w_j}$, and then $\sum_i w_i/\rho_i = \sum_i \sqrt{w_i}/c =
# (\sum_i\sqrt{w_i})^2/(2\rho^\ast)$. (A Lagrange multiplier gives the same: $w_i/\rho_i^2 = \lambda$ for every $i$.)
# The exact calibration then keeps this shape, or one of the shapes $w_i^\gamma$ near it, and scales it as far as the
# exact profile allows; the zCDP loss is the baseline it is compared with.

# %%
rho_target = float(calibration.zcdp_rho_for(peer_eps, F(str(peer_delta))))
roots_w = np.sqrt(np.array(weights, dtype=float))
zcdp_minimum = roots_w.sum() ** 2 / (2 * rho_target)
print(f"(sum sqrt w)^2 / (2 rho*) = {zcdp_minimum:.6f}; library's zCDP loss {float(mine.zcdp_loss):.6f}")
assert abs(zcdp_minimum / float(mine.zcdp_loss) - 1) < 1e-9
for gamma in (0.3, 0.4, 0.45, 0.55, 0.6, 0.7):
    shape = np.array(weights, dtype=float) ** gamma
    rhos_gamma = 2 * rho_target * shape / shape.sum()  # the same zCDP total
    assert np.sum(np.array(weights) / rhos_gamma) > zcdp_minimum

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Is the bisection's answer the smallest? (★★★, open)
# :label: ex-calibrate-monotone
#
# The calibration certifies that the target holds at the multiplier $v$ it returns and fails at $v - h$. It is the
# smallest multiplier meeting the target only if $\delta(\varepsilon)$ never rises as the noise grows. Take one
# discrete Gaussian mechanism with $\sigma^2 = 10$ (`[F(1, 10)]`) and the target $(\varepsilon, \delta) =
# (2, 6.75 \times 10^{-12})$: compare the multiplier `accountlib.calibrate` returns with the certified check
# (`accountlib.check`) at $v = 1.025$, and explain what you see from the lattice of the privacy loss. Then the open
# question: for which compositions of discrete Gaussians is $\delta(\varepsilon)$ non-increasing in the variance
# multiplier (for the census pairs, say), and how could a calibration certify that its answer is the smallest
# without that property?
# ```
#
# ```{solution-start} ex-calibrate-monotone
# :class: dropdown
# ```
#
# *What the computation shows.* The bisection returns $v \approx 1.04$ with its two-sided certificate, yet at
# $v = 1.025$, more than ten grid steps below, the target holds too, with its certified bound. The certified
# $\delta(2)$ falls from $1.8 \times 10^{-11}$ at $v = 1$ to about $6.72 \times 10^{-12}$ at $v = 1.025$, *rises* to about
# $6.82 \times 10^{-12}$ at $v = 1.033$, and falls again; every step of that rise is larger than the certified errors
# by about eight orders of magnitude. So the set of multipliers that meet the target is not an interval, and neither a
# bisection nor the one-step-below certificate can find its smallest element.
#
# *Why.* By section 3 of {doc}`15_explorers`, the loss of one $N_{\mathbb Z}(0, \sigma^2)$ with a unit shift takes the
# values $\ell_x = (2x - 1)/(2\sigma^2)$, and $\delta(\varepsilon) = \sum_{\ell_x > \varepsilon} P(x)\,(1 -
# e^{\varepsilon - \ell_x})$. The atom $x = 21$ sits at $\ell = 41/(2\sigma^2)$, which crosses $\varepsilon = 2$ at
# $\sigma^2 = 10.25$. Just before the crossing its term is a mass times $1 - e^{\varepsilon - \ell}$, which falls
# steeply to zero: $\delta$ falls fast. After the crossing that term is gone, and what remains is the sum over the
# atoms above $\varepsilon$, whose $P$-mass grows as the wider noise moves mass outward: $\delta$ rises, until the
# next atom approaches $\varepsilon$. A continuous Gaussian has no atoms, and the rise never wins.
#
# *Why the continuous proof does not carry over.* For the continuous Gaussian, $N(0, v\sigma^2) = N(0, \sigma^2) *
# N(0, (v - 1)\sigma^2)$, so the noisier mechanism is a post-processing of the other and cannot be less private. For
# the discrete Gaussian the analogous kernel would be a distribution $\nu$ on $\mathbb Z$ with
# $N_{\mathbb Z}(0, \sigma_2^2) = N_{\mathbb Z}(0, \sigma_1^2) * \nu$; its Fourier coefficients are those of the
# ratio of the two characteristic functions, and the code below finds a negative one (for $\sigma_1^2 = 1/4$,
# $\sigma_2^2 = 1/2$), so no such $\nu$ exists. More generally, for one pair of distributions a post-processing from
# the less noisy to the noisier pair exists exactly when the trade-off functions are ordered (Blackwell's theorem for
# binary experiments, on which f-DP is built {cite}`dong2022gaussian`), and the computation above shows they are not.
#
# *What is known, and approaches.* (i) Blackwell's theorem reduces the question for compositions to single
# mechanisms in one direction: if each mechanism's trade-off function grows with its variance over the range used,
# each noisier pair is a post-processing of the less noisy one, the product of these kernels post-processes the whole
# composition, and so every composition is monotone too. The example shows that the condition fails for one
# mechanism already at $\sigma^2 \approx 10$, so a proof for the census pairs must use the composition itself. (ii) As the number of mechanisms grows, the composed loss
# becomes nearly Gaussian ({doc}`08_edgeworth`), and the rises, which come from single atoms crossing $\varepsilon$,
# shrink with the atoms' masses; a quantitative form of this, a bound on how far $\delta$ can rise between two
# multipliers in terms of the largest atom of the composed loss, would settle the census case if it came out below
# the certified errors. We know of no such bound. (iii) Without monotonicity a calibration can still certify a global
# answer: a bound on the derivative of $\delta(\varepsilon)$ in $v$ between grid points (each term of the sum is
# smooth in $v$ between atom crossings) would turn finitely many certified checks below $v$ into a proof that no
# multiplier in an interval $[v_0, v)$ meets the target, with $v_0$ from a lower bound on $\delta$ such as that of the
# continuous Gaussian of the same $\rho$ plus its distance to the discrete one. Nobody has carried this out for the
# census pairs; for them the evidence is only the monotone certified values of {numref}`fig-calibrate-pair`.

# %%
single = [F(1, 10)]  # one discrete Gaussian, sigma^2 = 10
tight = accountlib.ApproximateDP(2, "6.75e-12")
bisected = accountlib.calibrate(single, tight)
lower_v = F(1025, 1000)
(at_lower,) = accountlib.check([r / lower_v for r in single], tight)
print(f"bisection: v = {float(bisected.scale):.4f} (step {float(bisected.step):.4f}), "
      f"fails one step below: {bisected.proven_smallest}")
print(f"at v = {float(lower_v)}: delta = {float(at_lower.point.delta):.4e} + bound {float(at_lower.point.error_bound):.0e}"
      f" <= 6.75e-12: {at_lower.status}")
assert bisected.proven_smallest and lower_v < bisected.scale - 10 * bisected.step and at_lower.status == "holds"

grid_v = [F(1000 + 3 * k, 1000) for k in range(15)]
points = [accountlib.ShiftPair([r / v for r in single]).delta([F(2)])[0] for v in grid_v]
for v, point in zip(grid_v, points):
    print(f"v = {float(v):.3f} (sigma^2 = {float(10 * v):.2f}): delta(2) = {float(point.delta):.4e}")
rises = [(v, a, b) for v, a, b in zip(grid_v[1:], points, points[1:])
         if b.delta - b.error_bound > a.delta + a.error_bound]  # certified rises
print("certified rises of delta with more noise at v =", [float(v) for v, _, _ in rises])
assert rises

# the would-be convolution kernel from sigma^2 = 1/4 to 1/2 has a negative coefficient
ks = np.arange(-40, 41)
pmf_narrow, pmf_wide = (np.exp(-ks**2 / (2 * s2)) / np.exp(-ks**2 / (2 * s2)).sum() for s2 in (0.25, 0.5))
theta = 2 * np.pi * np.arange(512) / 512
char = lambda pmf: (pmf[None, :] * np.cos(np.outer(theta, ks))).sum(axis=1)  # noqa: E731
kernel = np.real(np.fft.ifft(char(pmf_wide) / char(pmf_narrow)))
print(f"kernel coefficients nu_0..nu_3: {np.round(kernel[:4], 5)}")
assert kernel.min() < -1e-3 and abs(kernel.sum() - 1) < 1e-12

# %% [markdown]
# ```{solution-end}
# ```
