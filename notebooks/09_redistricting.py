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
# (chapter-redistricting)=
# # The redistricting data, exactly
#
# ```{admonition} What you will learn
# :class: tip
#
# - how the budgets of the redistricting data follow from the production code's global scale, geolevel shares and
#   query shares, and why a block's {term}`geographic path` can have one of 16 allocations;
# - why the worst case is over *pairs* of paths, and why it is taken here over every pattern the code can produce;
# - the exact $\delta$ at the published $\varepsilon$ and the exact $\varepsilon$ at $\delta = 10^{-10}$ for persons
#   and units, US and Puerto Rico, beside the certificate, the Bureau's conversion, the classical zCDP conversion
#   and the continuous Gaussian, and why each of them differs;
# - why the {term}`lattice` engine of the earlier chapters cannot compute these budgets, and what the smoothed
#   engine does instead.
# ```
#
# ```{admonition} What you need
# :class: note
#
# The census background of the {doc}`primer <02_primer>` (the TopDown algorithm, {term}`allocations <allocation>`,
# the {term}`replacement model`), the {term}`privacy profile` $\delta(\varepsilon)$ and its certified evaluation
# ({doc}`04_fourier_inversion`, {doc}`06_sieve`), the pairs of allocations of {doc}`07_census_dhc`, and the two
# zCDP conversions ({prf:ref}`prop-primer-zcdp-to-dp`, and the Rényi one of {doc}`07_census_dhc`).
# ```
#
# The first data the Census Bureau published from the 2020 Census were not the {term}`DHC` File of
# {doc}`07_census_dhc` but the *P.L. 94-171 redistricting data*: the counts of persons and of housing units that
# every state needs to redraw its electoral districts, by race, Hispanic origin, voting age and group quarters,
# down to the census block. They were protected by the same {term}`TopDown` algorithm with the same
# {term}`discrete Gaussian` noise, and the Bureau signed one privacy certificate for each of its four runs
# (persons and units, for the United States and for Puerto Rico), each stating a {term}`zCDP` budget $\rho$ and
# the $(\varepsilon, \delta)$ it implies at $\delta = 10^{-10}$. This chapter computes the exact
# $(\varepsilon, \delta)$ of those four runs, with certified error bounds, from allocations derived from the
# Bureau's production code.
#
# ## Where the budgets come from
#
# TopDown measures a list of {term}`marginal queries <marginal query>` at every geounit of every
# {term}`geographic level`, from the nation down to the block, and adds discrete Gaussian noise to every cell.
# The production code (`uscensusbureau/DAS_2020_Redistricting_Production_Code`) sets each measurement's noise from
# three numbers: a *global scale* $g$ (339/542 for persons), the *geolevel share* $p_\ell$ of the measurement's
# level (the six shares sum to one), and the *query share* $s_{\ell,q}$ of the query at that level (the shares of
# one level sum to one). A measurement of query $q$ at a geounit of level $\ell$ gets noise of variance
#
# $$\sigma^2_{\ell,q} = \frac{g^2}{p_\ell\, s_{\ell,q}}.$$
#
# The library holds these numbers with the file and line of each (`accountlib/applications/census/pl94.py` and
# `accountlib/data/pl94_allocations/README.md`) and derives the allocation from them; nothing of the Bureau's code is
# copied. The table gives the plain path of US persons level by level: the share, the number of queries measured,
# the level's budget $\sum_q 1/\sigma^2_{\ell,q} = p_\ell/g^2$, and its largest single budget.

# %% tags=["parameters", "hide-cell"]
releases = ["pl94-persons", "pl94-units", "pl94-persons-pr", "pl94-units-pr"]
target_delta = "1e-10"           # the certificates' delta
abs_tol = 1e-6                   # width of each certified epsilon interval
figure_release = "pl94-persons"  # the release whose worst pair the figure draws
figure_eps = (10, 22, 97)        # the figure's epsilon range: first, last, number of points
dhc_pair = (13, 13)              # the DHC pair [M0, M0] for the comparison
cross_release = "pl94-persons"   # the exercise "The curves cross": the release whose two pairs are compared
engines_release = "pl94-units"   # the exercise "Two engines, one answer": the release whose plain pair is computed

# %% tags=["hide-cell"]
from collections import defaultdict
from fractions import Fraction as F

import matplotlib.pyplot as plt
import numpy as np

import accountlib
from accountlib.applications import census
from accountlib.applications.census import pl94
from accountlib.engine.results import certified_digits
from accountlib.engine.smoothed import lattice_candidates, lattice_nodes
from accountlib.theory.conversions import (gaussian_delta, gaussian_epsilon, zcdp_delta, zcdp_delta_via_rdp,
                                           zcdp_epsilon, zcdp_epsilon_via_rdp)
from accountlib.theory.profiles import LATTICE_UP_TO

DELTA = F(target_delta)
NAMES = {"pl94-persons": "US persons", "pl94-units": "US units", "pl94-persons-pr": "PR persons",
         "pl94-units-pr": "PR units"}


def path_name(path: str) -> str:
    """A path of the spine in words: "plain", or the levels whose shares moved up, e.g. "absorbed: Tract, Block"."""
    if path == "plain":
        return "plain"
    return "absorbed: " + ", ".join(level.replace("_Group", " group") for level in path.split("-")[1:])


def interval_digits(interval) -> str:
    """The digits of a certified epsilon interval that every number in it shares."""
    return certified_digits((interval.lower + interval.upper) / 2, max(interval.upper - interval.lower, F(1, 10**9)))


# %% tags=["nbval-check-output"]
rows = pl94.derive_pl94_allocation("pl94-persons", "plain")
scale2 = 1 / pl94.certificate("pl94-persons")["rho"]  # g^2: the certificate's rho is 1/g^2
by_level = defaultdict(list)
for level, query, rho in rows:
    by_level[level].append(rho)
print(f"global scale^2 = {scale2} (g = 339/542); {len(rows)} measurements on the plain path")
print(f"{'level':12} {'share p':>10} {'queries':>8} {'level budget':>13} {'largest budget':>15}")
for level, rhos in by_level.items():
    share = sum(rhos) * scale2
    print(f"{level.replace('_Group', ' group'):12} {str(share):>10} {len(rhos):>8} {float(sum(rhos)):>13.6f} "
          f"{float(max(rhos)):>15.6f}")
assert sum(r for _, _, r in rows) == 1 / scale2
print(f"total budget {sum(r for _, _, r in rows)} = 1/g^2, exactly")

# %% [markdown]
# The level budgets add up to $1/g^2 = 293764/114921 \approx 2.56$, which is the $\rho$ the certificate prints: in the
# Bureau's accounting every measurement's zCDP cost is $\Delta_2^2/(2\sigma^2)$, and every query has $\Delta_2^2 = 2$
# (below), so the cost of a measurement is exactly its precision $1/\sigma^2$. The budgets themselves are exact
# rationals whose denominators are products like $4099 \cdot 4097 \cdot 339^2$, near $10^{12}$; the persons path has
# 33 distinct ones. Housing units are simpler: one query (`detailed`, the occupancy status) at every level, with
# global scale $12343/3379$, so $\rho = (3379/12343)^2 \approx 0.075$, printed as 0.07.
#
# ### Sixteen paths
#
# The geography is not measured level by level as the table suggests. The production code optimises the
# *spine* {cite}`cumingsmenon2024spines`: a geounit with a single child is not worth measuring twice, so the child's
# share is handed to the parent, which measures with its own query shares at the summed share, and the child is
# not measured at all. A block that is the only block of its block group gives its share to the block group; a
# block group alone in its tract gives it to the tract, and so on, and the moves chain. Any of the four levels
# County, Tract, Block group and Block can be absorbed into the next measured level above (a state is never alone
# in the nation), so a block's path has one of $2^4 = 16$ allocations in the US; in Puerto Rico, whose state has 78
# municipios, the county is never absorbed and there are $2^3 = 8$. Absorption changes the *split* of the budget,
# never its total.
#
# Which of these patterns actually occur is a property of the geography (the Geography Division's files), which
# is not in the repository. This chapter therefore takes every pattern the spine rule *can* produce. A worst case
# over more paths than exist can only be worse than the true one: the answer errs towards less privacy.
#
# ### One record, two paths
#
# The certificates state $\rho$ for *modify one record* neighbours: every marginal query has unit sensitivity per
# record, so changing a record's attributes moves one cell down by one and another up by one, $\Delta_2^2 = 2$. If
# the record also moves from one block to another, the cell that goes down is in the old block's geounits and the
# cell that goes up is in the new block's. Each measurement then contributes one term on the old block's path and
# one on the new block's, so one change is the composition of two paths' budgets, exactly as for the DHC
# ({doc}`07_census_dhc`), and the release's guarantee is the worst case over every *pair* of paths, a path with
# itself included: $16 \cdot 17/2 = 136$ pairs in the US, 36 in Puerto Rico. Every pair has the same zCDP $\rho$,
# so zCDP cannot tell them apart; the exact curves can.

# %% tags=["nbval-check-output"]
for release in releases:
    paths = pl94.pl94_paths(release)
    sizes = [len(pl94.pl94_allocation(release, p)) for p in paths]
    same = all(accountlib.ShiftPair(pl94.pl94_rhos(release, p, q)).rho == pl94.certificate(release)["rho"]
               for p, q in [(paths[0], paths[0]), (paths[0], paths[-1]), (paths[-1], paths[-1])])
    assert same  # every pair's rho is the certificate's
    print(f"{NAMES[release]:11} {len(paths):>2} paths, {len(paths) * (len(paths) + 1) // 2:>3} pairs, "
          f"{max(sizes)} to {min(sizes)} measurements per path")
print("every pair of every release has its certificate's rho")

# %% [markdown]
# ## The exact guarantee, worst case over the pairs
#
# For each release, `pl94.pl94_pair_deltas` computes the certified $\delta$ at the certificate's $\varepsilon$ for
# every pair of paths, worst first; `pl94.pl94_worst_epsilon` computes the certified $\varepsilon$ at
# $\delta = 10^{-10}$: an interval $[\varepsilon_{lo}, \varepsilon_{hi}]$ of width at most $10^{-6}$ for the pair
# that decides it, with that pair not $(\varepsilon_{lo}, \delta)$-DP and *every* pair checked to be
# $(\varepsilon_{hi}, \delta)$-DP. Only the digits that the certified bounds support are printed.

# %% tags=["hide-input"]
certificates = {release: pl94.certificate(release) for release in releases}
sweeps = {release: pl94.pl94_pair_deltas(release, certificates[release]["epsilon"]) for release in releases}
worst = {release: pl94.pl94_worst_epsilon(release, DELTA, abs_tol=abs_tol, ranked=sweeps[release])
         for release in releases}

# %% tags=["nbval-check-output"]
for release in releases:
    top, w = sweeps[release][0].point, worst[release]
    plain = next(r.point for r in sweeps[release] if r.path == r.other == "plain")
    print(f"{NAMES[release]}: at the certificate's epsilon {certificates[release]['epsilon_printed']},")
    print(f"  worst pair: delta = {certified_digits(top.delta, top.error_bound)},")
    print(f"    {path_name(sweeps[release][0].path)}\n    {path_name(sweeps[release][0].other)}")
    print(f"  plain / plain: delta = {certified_digits(plain.delta, plain.error_bound)}")
    print(f"  at delta = {target_delta}: epsilon = {interval_digits(w)} ({w.checked} pairs checked), decided by")
    print(f"    {path_name(w.pair[0])}\n    {path_name(w.pair[1])}")

# %% [markdown]
# Two things stand out. The pair that is worst at the certificate's $\varepsilon$ need not be the pair that decides
# $\varepsilon$ at $10^{-10}$: the pairs' curves cross, because they differ in how their budget is split (a path
# whose shares have moved up has fewer, larger budgets), and the split matters in the tail differently at
# different levels. And the spread between the pairs is small beside the certificate's margin: at the certificate's
# $\varepsilon$ the worst pair's $\delta$ exceeds the plain path's by about a fifth for US persons and by far less for
# the other three releases, while both lie several times below the certificate's $10^{-10}$.
#
# ### Beside the certificate and the conversions
#
# The table puts the exact values beside five others. *Printed* is the certificate's $\varepsilon$ as printed.
# *Bureau* is the Bureau's own conversion of its $\rho$, recomputed the way its code does it (`pl94.bureau_epsilon`):
# it reproduces the printed fraction exactly. *CKS* is the same conversion in the book's implementation
# (`zcdp_epsilon_via_rdp`, {cite}`canonne2020discrete` Cor. 13 in the Rényi form of {cite}`balle2020hypothesis`);
# *classical* is $\rho + 2\sqrt{\rho\log(1/\delta)}$ {cite}`bun2016concentrated`, the conversion the Bureau used for
# the DHC; *Gaussian* is the exact $\varepsilon$ of the same budgets with *continuous* Gaussian noise, a Gaussian
# mechanism with $\mu = \sqrt{2\rho}$ ({term}`μ-GDP`, {cite}`dong2022gaussian` Cor. 2.13); *exact* is the certified
# worst case over the pairs. The last row is the DHC's pair $[M_0, M_0]$ of {doc}`07_census_dhc`, whose printed
# $\varepsilon$ is the classical conversion of $\rho = 4.9622$; it is one pair, not the worst case over the DHC's pairs
# (that one is in {doc}`07_census_dhc`). The lower table gives $\delta$ at the printed $\varepsilon$ (for the
# redistricting runs the certificate's exact fraction, of which 17.14 and 2.47 are the first digits).

# %% tags=["hide-input"]
dhc = accountlib.ShiftPair(census.pair_rhos(*dhc_pair))
dhc_eps_printed = F(str(round(zcdp_epsilon(float(census.TOTAL_RHO), float(DELTA)), 12)))
(dhc_point,) = dhc.delta([dhc_eps_printed])
dhc_interval = accountlib.epsilon(dhc, DELTA, abs_tol=abs_tol)
table = {}
for release in releases:
    c, w, rho = certificates[release], worst[release], float(certificates[release]["rho"])
    top = sweeps[release][0].point
    table[NAMES[release]] = dict(
        printed=c["epsilon_printed"], bureau=f"{float(pl94.bureau_epsilon(release)):.5f}",
        cks=f"{zcdp_epsilon_via_rdp(rho, float(DELTA)):.5f}", classical=f"{zcdp_epsilon(rho, float(DELTA)):.5f}",
        gaussian=f"{gaussian_epsilon(rho, float(DELTA)):.5f}", exact=interval_digits(w),
        d_exact=certified_digits(top.delta, top.error_bound),
        d_cks=f"{zcdp_delta_via_rdp(float(c['epsilon']), rho):.3e}",
        d_classical=f"{zcdp_delta(float(c['epsilon']), rho):.3e}",
        d_gaussian=f"{gaussian_delta(float(c['epsilon']), rho):.3e}")
rho = float(census.TOTAL_RHO)
table[f"DHC {dhc_pair}"] = dict(
    printed="26.34", bureau=f"{zcdp_epsilon(rho, float(DELTA)):.5f}", cks=f"{zcdp_epsilon_via_rdp(rho, float(DELTA)):.5f}",
    classical=f"{zcdp_epsilon(rho, float(DELTA)):.5f}", gaussian=f"{gaussian_epsilon(rho, float(DELTA)):.5f}",
    exact=interval_digits(dhc_interval), d_exact=certified_digits(dhc_point.delta, dhc_point.error_bound),
    d_cks=f"{zcdp_delta_via_rdp(float(dhc_eps_printed), rho):.3e}",
    d_classical=f"{zcdp_delta(float(dhc_eps_printed), rho):.3e}",
    d_gaussian=f"{gaussian_delta(float(dhc_eps_printed), rho):.3e}")

# %% tags=["nbval-check-output"]
print(f"epsilon at delta = {target_delta}")
print(f"{'':12} {'printed':>7} {'Bureau':>9} {'CKS':>9} {'classical':>9} {'Gaussian':>9} {'exact':>11}")
for name, t in table.items():
    print(f"{name:12} {t['printed']:>7} {t['bureau']:>9} {t['cks']:>9} {t['classical']:>9} {t['gaussian']:>9} "
          f"{t['exact']:>11}")
print()
print("delta at the printed epsilon")
print(f"{'':12} {'CKS':>10} {'classical':>10} {'Gaussian':>10} {'exact':>16}")
for name, t in table.items():
    print(f"{name:12} {t['d_cks']:>10} {t['d_classical']:>10} {t['d_gaussian']:>10} {t['d_exact']:>16}")
print()
same = all(pl94.bureau_epsilon(release) == certificates[release]["epsilon"] for release in releases)
assert same
print("the Bureau's conversion gives each certificate's printed fraction exactly")

# %% tags=["remove-cell"]
# the reproduction ledger: each certificate's rho, its epsilon by the Bureau's conversion, and its (epsilon, 1e-10)
# statement against the exact delta (the certified upper end, worst case over the pairs of paths)
from accountbook import ledger

ledger.reproduce({
    **{f"certificate.{r}.rho": accountlib.ShiftPair(pl94.pl94_rhos(r)).rho for r in releases},
    **{f"certificate.{r}.epsilon_conversion": pl94.bureau_epsilon(r) for r in releases},
    **{f"certificate.{r}.delta_at_epsilon": sweeps[r][0].point.delta + sweeps[r][0].point.error_bound for r in releases},
})

# %% [markdown]
# Each column differs from the next for a reason.
#
# - **Bureau against classical.** Both convert the one number $\rho$, and both are valid for every mechanism that is
#   $\rho$-zCDP. The classical bound $\rho + 2\sqrt{\rho\log(1/\delta)}$ comes from a Chernoff bound on the privacy
#   loss at its best order; Canonne, Kamath and Steinke's Cor. 13 keeps the factor $c_t = t^t/(1+t)^{1+t}$ that the
#   Chernoff bound throws away, and so gives a smaller $\varepsilon$ for the same guarantee: 17.14 instead of 17.90
#   for persons. For P.L. 94-171 the Bureau used this tighter conversion; for the DHC it used the classical one,
#   which is why the DHC's printed 26.34 sits in the classical column and its CKS value is smaller.
# - **zCDP against the exact value.** A zCDP statement is a bound on the Rényi divergences of every order, and the
#   conversion has to hold for every mechanism with that bound, including the worst one. The exact computation knows
#   the mechanism: a sum of discrete Gaussians with these particular variances. So the exact $\delta$ at the
#   printed $\varepsilon$ is several times smaller than the certificate's $10^{-10}$, and the exact $\varepsilon$ at
#   $10^{-10}$ is smaller than the printed one by about 0.7 for persons and 0.1 for units: the certificates are
#   conservative, as a certificate should be, but by a margin one can now state.
# - **Continuous against discrete.** With continuous Gaussian noise, the composition would be exactly
#   $\sqrt{2\rho}$-GDP whatever the split, and its $\varepsilon$ depends on $\rho$ alone. Discrete noise is not
#   Gaussian: its Rényi divergences are at most the continuous ones {cite}`canonne2020discrete`, which is why it
#   has the same $\rho$, but its privacy loss lives on a lattice and its $(\varepsilon, \delta)$ curve depends on
#   how $\rho$ is split among the measurements. The plain paths sit close to the continuous value, and so does the
#   DHC pair, whose noise variances are all large. The worst pairs of the redistricting data have absorbed levels
#   and so fewer, larger budgets (on the path with every level absorbed, the state's `total` has
#   $\rho_i \approx 2.29$, a noise variance below one half). At $\delta = 10^{-10}$ their exact $\varepsilon$ lies
#   above the continuous one (16.46775 against 16.46516 for US persons), and along the curve the exact $\delta$
#   swings to either side of the continuous one by up to two percent (the lattice of its largest budgets; {numref}`fig-redistricting-profile`,
#   right). The continuous value is therefore neither a bound nor a safe substitute: at $10^{-10}$, for the worst
#   pair of persons, it would claim a little more privacy than the release has.

# %% [markdown]
# {numref}`fig-redistricting-profile` shows the curve of the pair that decides the US persons' $\varepsilon$, for
# $\varepsilon$ from 10 to 22, against the two zCDP curves and the continuous Gaussian (left), and its ratio to the
# continuous Gaussian (right).

# %% mystnb={"figure": {"caption": "US persons: the exact \u03b4(\u03b5) of the pair of paths that decides the certified \u03b5 at $\\delta = 10^{-10}$, the path with Tract and Block absorbed against the path with every level absorbed (County, Tract, Block group and Block; blue dots, each certified to a relative $10^{-6}$, far below the dots' size), against the two conversions of the certificate's \u03c1 = 2.56 (the classical one, red; Canonne, Kamath and Steinke's Cor. 13, the Bureau's, orange dashed) and the same budgets with continuous Gaussian noise (grey line, drawn over the dots: at this scale it runs through them, within two percent). The cross is the certificate's $(17.14, 10^{-10})$; lower is more private. Right: the exact \u03b4 divided by the continuous Gaussian's, on a linear axis: within two percent, on either side.", "name": "fig-redistricting-profile"}} tags=["hide-input"]
fig_pair = worst[figure_release].pair
fig_rho = float(certificates[figure_release]["rho"])
grid = [F(str(e)) for e in np.round(np.linspace(*figure_eps), 6)]
points = accountlib.ShiftPair(pl94.pl94_rhos(figure_release, *fig_pair)).delta(grid)
eps = np.array([float(e) for e in grid])
fig, (ax, ratio_ax) = plt.subplots(1, 2, figsize=(9.6, 4.0), gridspec_kw={"width_ratios": [3, 2]})
ax.semilogy(eps, [zcdp_delta(e, fig_rho) for e in eps], "C3-", label=r"zCDP, classical: $\rho + 2\sqrt{\rho\log(1/\delta)}$")
ax.semilogy(eps, [zcdp_delta_via_rdp(e, fig_rho) for e in eps], "C1--", label="zCDP, CKS Cor. 13 (the Bureau's)")
ax.semilogy(eps, [float(p.delta) for p in points], "C0o", ms=4, label="exact, the deciding pair")
# drawn after the dots and over them: the continuous curve lies within two percent of the exact one
ax.semilogy(eps, [gaussian_delta(e, fig_rho) for e in eps], color="0.35", lw=1.2, zorder=3,
            label=r"continuous Gaussian, $\mu = \sqrt{2\rho}$")
ax.plot([float(certificates[figure_release]["epsilon"])], [float(DELTA)], "kx", ms=9, mew=2, label="certificate")
ax.set_xlabel(r"$\varepsilon$")
ax.set_ylabel(r"$\delta$")
ax.set_title(f"{NAMES[figure_release]}: exact δ(ε) against the zCDP conversions", fontsize=9)
ax.legend(fontsize=7, loc="lower left")
continuous = np.array([gaussian_delta(e, fig_rho) for e in eps])
ratio_ax.plot(eps, [float(p.delta) for p in points] / continuous, "C0o-", ms=4)
ratio_ax.axhline(1, color="0.5", lw=1)
ratio_ax.set_xlabel(r"$\varepsilon$")
ratio_ax.set_ylabel(r"exact $\delta$ / continuous-Gaussian $\delta$")
ratio_ax.set_title("the exact curve against the continuous Gaussian", fontsize=9)
fig.tight_layout()
plt.show()

# %% [markdown]
# At every $\varepsilon$ of the figure the exact curve lies below both zCDP curves, by a factor that grows into the
# tail, and within two percent of the continuous Gaussian, above it at some $\varepsilon$ and below at others
# (right panel; the swing has a period of about 5.3 in $\varepsilon$, with maxima near $\varepsilon = 12$ and $17.4$ and
# minima near $14.75$ and $20$): the discrete worst pair and the continuous mechanism differ far less than either
# differs from what zCDP can say, but in no fixed direction.
#
# ## Why the lattice engine cannot do this
#
# The engines of {doc}`04_fourier_inversion` and {doc}`06_sieve` compute the distribution of the privacy loss on its
# lattice $\frac1L\mathbb Z$, where $L$ is fixed by the common denominator of the weights $\rho_i/\rho$. For the DHC
# the weights are multiples of $1/10{,}000$ and $L$ is modest. Here they are products of shares with denominators
# like 4097, 4099 and 4102, and $L$ is their least common multiple.

# %% tags=["nbval-check-output"]
persons = accountlib.ShiftPair(pl94.pl94_rhos("pl94-persons"))
units = accountlib.ShiftPair(pl94.pl94_rhos("pl94-units"))
for name, pair in [("US persons, plain", persons), ("US units, plain", units), (f"DHC {dhc_pair}", dhc)]:
    print(f"{name}: engine {pair.engine_kind}")
    print(f"  L = {float(pair.lattice.scale):.3e}, nodes N ~ {lattice_nodes(pair.lattice):.2e}, "
          f"sieve candidates ~ {lattice_candidates(pair.lattice):.2e}")
print(f"the lattice engines take up to {LATTICE_UP_TO:.0e} candidates")

# %% [markdown]
# For persons the lattice has some $10^{15}$ quadrature nodes and even the {term}`sieve` would have to scan some
# $10^{13}$ candidates, billions of times the DHC's work; the units, one query per level with shares over 4100,
# stay on the lattice. `ShiftPair` (with its default `engine="auto"`) therefore sends the persons budgets to the
# *smoothed engine*, `accountlib.engine.smoothed`. It never forms the lattice. It writes $\delta(\varepsilon)$ as the
# expectation $\mathbb E\,k(S - s_0)$, where $S = \sum_i (\rho_i/\rho) X_i$ is the weighted noise (the privacy loss
# is $\rho(1 + S)$), $s_0 = \varepsilon/\rho - 1$ and $k(x) = (1 - e^{-\rho x})_+$ the hockey-stick function; it smooths the kink of
# $k$ with a narrow Gaussian of width $\eta$, and bounds the smoothing error rigorously on both sides by a
# bracket of width $O(\eta^2)$. The smoothed expectation is then an inverse Laplace transform along a tilted line,
# computed by the trapezoidal rule whose aliasing, truncation, sieved nodes and floating-point rounding are all
# bounded, with the angles of the characteristic functions reduced in double-double arithmetic so that
# denominators near $10^{12}$ cost nothing. Its cost depends on the number of *distinct* budgets (33 here) and the
# accuracy asked for, not on $L$: one persons pair takes a fraction of a second. The module's docstring gives the
# derivation and the bounds; the [API reference](../book/api.md) lists `ShiftPair` and its `engine` argument.
#
# ## The DHC's allocations are spine patterns too
#
# The 43 DHC allocations that {doc}`07_census_dhc` uses came from the Bureau's published allocation tables. Read
# against the DHC production code (`uscensusbureau/DAS_2020_DHC_Production_Code`), they are exactly the
# single-child absorption patterns of the production DHC persons strategy: allocation 13, $M_0$, is the strategy
# itself on the plain path, and each of the other 42 has some levels with all budgets zero and the level above
# carrying allocation 13's column scaled to its own share plus the absorbed ones, the same rule as here. They are 43
# of the $2^6 = 64$ patterns possible over the DHC's absorbable levels. The evidence, by file and line, is in the
# section "The DHC allocations" of `accountlib/data/pl94_allocations/README.md`, and the library's tests check it. So
# the DHC comparison of {doc}`07_census_dhc` and the redistricting comparison of this chapter rest on the same
# construction: a worst case over pairs of spine patterns. The difference is that the DHC used the patterns that
# occur (the Bureau published them), and here every possible pattern is taken.
#
# ## Summary
#
# - The redistricting data's budgets are exact rationals derived from the production code's global scale,
#   geolevel shares and query shares; the optimised spine gives a block's path one of 16 splits (8 in Puerto Rico)
#   with the same total $\rho = 1/g^2$, and a modified record composes its old and new blocks' paths, so the
#   worst case is over pairs of paths — here over every pattern the spine rule can produce, erring towards less
#   privacy.
# - Worst case over the pairs, the exact $\delta$ at the certificates' $\varepsilon$ is several times below
#   $10^{-10}$, and the exact $\varepsilon$ at $10^{-10}$ is about 16.47 for persons against the printed 17.14 and
#   about 2.3635 for units against 2.47, in the US and in Puerto Rico alike: the certificates are conservative.
# - The Bureau's printed $\varepsilon$ is Canonne, Kamath and Steinke's conversion of $\rho$, reproduced exactly;
#   the classical conversion is looser, and the continuous Gaussian with the same $\rho$ lies within two
#   percent of the exact curve, on either side of it (at $10^{-10}$, on the side of more privacy).
# - These budgets have lattices of some $10^{15}$ nodes, out of the lattice engine's reach; the smoothed engine
#   computes them with certified bounds at a cost set by the number of distinct budgets.
#
# ## Exercises
#
# ```{exercise} Every path has the certificate's rho (★, derive)
# :label: ex-redistricting-total
#
# Show that for every path, plain or absorbed, the budgets of one modified record satisfy
# $\tfrac12\sum_i \rho_i = 1/g^2$, the certificate's $\rho$. Then check it with exact fractions for all 16 US
# persons paths.
# ```
#
# ```{solution-start} ex-redistricting-total
# :class: dropdown
# ```
#
# On the plain path, $\sum_{\ell}\sum_q \rho_{\ell,q} = \sum_\ell \sum_q p_\ell s_{\ell,q}/g^2 = \sum_\ell p_\ell/g^2 =
# 1/g^2$, because each level's query shares sum to one and the level shares sum to one. Absorbing level $\ell$ into
# the measured level $m$ above replaces $p_m$ by $p_m + p_\ell$ and $p_\ell$ by 0: the level shares still sum to one,
# and level $m$'s query shares still sum to one, so the total is unchanged (a chain of absorptions is a sequence of
# such moves). One modified record lists every measurement of its old path and of its new path, each once, so
# $\sum_i \rho_i = 2/g^2$ for every pair and $\tfrac12\sum_i\rho_i = 1/g^2$.

# %%
rho_persons = pl94.certificate("pl94-persons")["rho"]
for path in pl94.pl94_paths("pl94-persons"):
    assert sum(r for _, _, r in pl94.derive_pl94_allocation("pl94-persons", path)) == rho_persons
    assert accountlib.ShiftPair(pl94.pl94_rhos("pl94-persons", "plain", path)).rho == rho_persons
assert rho_persons == F(542, 339) ** 2
print(f"all {len(pl94.pl94_paths('pl94-persons'))} paths sum to {rho_persons} = (542/339)^2")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The curves cross (★★, code)
# :label: ex-redistricting-cross
#
# % change: cross_release = "pl94-units"
# For US persons (`cross_release` in the parameters cell) the pair with the largest $\delta$ at the certificate's
# $\varepsilon$ is not the pair that decides $\varepsilon$ at $10^{-10}$. Compute both pairs' $\delta$ at the
# certificate's $\varepsilon$ and at the certified $\varepsilon_{hi}$ of the worst case, and say which is larger where.
# What does that mean for a worst case decided at one $\varepsilon$ and reported at another? Then do the same for US
# housing units, `cross_release = "pl94-units"`.
# ```
#
# ```{solution-start} ex-redistricting-cross
# :class: dropdown instructor-only
# ```
#
# For US persons, at the certificate's $\varepsilon$ the first pair has the larger $\delta$; at $\varepsilon_{hi}$, where
# $\delta$ is near $10^{-10}$, the deciding pair has. Their curves cross in between. A ranking made at one
# $\varepsilon$ is therefore only a guess at another, which is why `pl94_worst_epsilon` checks every pair at the
# $\varepsilon$ it reports instead of trusting the ranking it started from. Where one pair is first at both levels,
# as the code says when it finds it so, nothing crosses for that release.

# %%
first = (sweeps[cross_release][0].path, sweeps[cross_release][0].other)
deciding = worst[cross_release].pair
levels = [certificates[cross_release]["epsilon"], worst[cross_release].upper]
found = {}
for name, pair in [(f"first at ε = {float(levels[0]):.2f}", first), (f"deciding at δ = {target_delta}", deciding)]:
    found[name] = accountlib.ShiftPair(pl94.pl94_rhos(cross_release, *pair)).delta(levels)
    print(f"{cross_release}, {name}:\n    {path_name(pair[0])}\n    {path_name(pair[1])}")
    print("    " + ", ".join(f"delta({float(e):.4f}) = {certified_digits(p.delta, p.error_bound)}"
                             for e, p in zip(levels, found[name])))
if first == deciding:
    print("one pair is first at both levels: the curves do not cross for this release")
else:  # each pair leads where it was chosen, by more than the certified bounds
    (at_cert_first, at_hi_first), (at_cert_deciding, at_hi_deciding) = found.values()
    assert at_cert_first.delta - at_cert_first.error_bound >= at_cert_deciding.delta + at_cert_deciding.error_bound
    assert at_hi_deciding.delta - at_hi_deciding.error_bound >= at_hi_first.delta + at_hi_first.error_bound

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} Two engines, one answer (★, run)
# :label: ex-redistricting-engines
#
# % change: engines_release = "pl94-units-pr"
# The US units' plain pair (`engines_release` in the parameters cell) stays on the lattice. Compute its $\delta$ at the
# certificate's $\varepsilon$ with `engine="lattice"` and with `engine="smoothed"`, and check that the two certified
# intervals overlap. Then do it for Puerto Rico's units, `engines_release = "pl94-units-pr"`.
# ```
#
# ```{solution-start} ex-redistricting-engines
# :class: dropdown
# ```
#
# Both are certified, so the two intervals $[\delta - b, \delta + b]$ must contain the same true value and overlap;
# their centres agree to well within the bounds.

# %%
eps_units = pl94.certificate(engines_release)["epsilon"]
answers = {kind: accountlib.ShiftPair(pl94.pl94_rhos(engines_release), engine=kind).delta([eps_units])[0]
           for kind in ("lattice", "smoothed")}
(a, b) = answers.values()
assert abs(a.delta - b.delta) <= a.error_bound + b.error_bound
for kind, p in answers.items():
    print(f"{kind:8}: delta = {certified_digits(p.delta, p.error_bound)}")

# %% [markdown]
# ```{solution-end}
# ```
#
# ```{exercise} The continuous benchmark: $\mu = \sqrt{2\rho}$ (★★, derive)
# :label: ex-redistricting-gdp
#
# Replace every discrete Gaussian of a pair by a continuous one with the same variance $\sigma_i^2 = 1/\rho_i$. Show
# that the privacy loss of one term with a unit shift is normal, $\mathcal N(\rho_i/2, \rho_i)$ under the first data
# set and $\mathcal N(-\rho_i/2, \rho_i)$ under the second; that the pair's loss is $\mathcal N(\mu^2/2, \mu^2)$ with
# $\mu^2 = \sum_i\rho_i = 2\rho$; and derive from $\delta(\varepsilon) = \Pr_P(L > \varepsilon) - e^{\varepsilon}\Pr_Q(L > \varepsilon)$
# the profile of {prf:ref}`def-gdp`, $\Phi(-\varepsilon/\mu + \mu/2) - e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2)$. Why
# must the Gaussian column of the table lie below the classical one? Check the formula against
# `gaussian_delta` for US persons, and that the $\varepsilon$ of `gaussian_epsilon` gives back $\delta = 10^{-10}$.
# ```
#
# ```{solution-start} ex-redistricting-gdp
# :class: dropdown instructor-only
# ```
#
# One term: $Y \sim \mathcal N(0, \sigma^2)$ against $Y + 1$. The log-likelihood ratio at $y$ is
# $\bigl(-y^2 + (y - 1)^2\bigr)/(2\sigma^2) = (1 - 2y)/(2\sigma^2)$, affine in $y$; with $y$ drawn from the first
# distribution ($y \sim \mathcal N(0, \sigma^2)$, for the loss of "first against second") it is normal with mean
# $1/(2\sigma^2) = \rho_i/2$ and variance $4\sigma^2/(2\sigma^2)^2 = 1/\sigma^2 = \rho_i$, and under the second
# ($y \sim \mathcal N(1, \sigma^2)$) with mean $-\rho_i/2$ and the same variance. Independent terms add their losses,
# so the pair's loss is $\mathcal N(\mu^2/2, \mu^2)$ under $P$ and $\mathcal N(-\mu^2/2, \mu^2)$ under $Q$, with
# $\mu^2 = \sum_i \rho_i = 2\rho$ (the certificate's $\rho$ is half the pair's sum, {ref}`ex-redistricting-total`).
# The hockey-stick divergence is $\delta(\varepsilon) = \int (p - e^{\varepsilon}q)_+ = P(L > \varepsilon) -
# e^{\varepsilon}Q(L > \varepsilon)$, since $p > e^{\varepsilon}q$ exactly where $L > \varepsilon$. Standardising,
# $P(L > \varepsilon) = \Phi\bigl((\mu^2/2 - \varepsilon)/\mu\bigr) = \Phi(-\varepsilon/\mu + \mu/2)$ and
# $Q(L > \varepsilon) = \Phi(-\varepsilon/\mu - \mu/2)$: the profile of $\mu$-GDP. It depends on the budgets only
# through their sum, whatever the split. The continuous Gaussian mechanism is itself $\rho$-zCDP
# ($D_\alpha = \alpha\mu^2/2 = \alpha\rho$), and the classical conversion holds for every $\rho$-zCDP mechanism, so its
# $\varepsilon$ at a given $\delta$ cannot be smaller than the Gaussian's exact one.

# %%
from scipy.stats import norm

rho_us = float(certificates["pl94-persons"]["rho"])
mu = np.sqrt(2 * rho_us)
for e in (12.0, 16.0, float(certificates["pl94-persons"]["epsilon"])):
    formula = norm.cdf(-e / mu + mu / 2) - np.exp(e) * norm.cdf(-e / mu - mu / 2)
    loss_form = norm.sf(e, loc=mu**2 / 2, scale=mu) - np.exp(e) * norm.sf(e, loc=-mu**2 / 2, scale=mu)
    assert np.isclose(formula, gaussian_delta(e, rho_us), rtol=1e-6) and np.isclose(formula, loss_form, rtol=1e-6)
e_gauss = gaussian_epsilon(rho_us, float(DELTA))
assert np.isclose(gaussian_delta(e_gauss, rho_us), float(DELTA), rtol=1e-6)
assert e_gauss < zcdp_epsilon(rho_us, float(DELTA))
print(f"US persons: mu = sqrt(2 rho) = {mu:.6f}")
print(f"Gaussian epsilon at delta = {target_delta}: {e_gauss:.5f} (classical {zcdp_epsilon(rho_us, float(DELTA)):.5f})")

# %% [markdown]
# ```{solution-end}
# ```
