"""Explorers: the book's curves for a grid of parameter values, switched by a slider.

Application layer of :mod:`accountlib`: every number comes from the layers below (:mod:`accountlib.theory.rdp`,
:mod:`accountlib.theory.composition`, :mod:`accountlib.theory.edgeworth`, :mod:`accountlib.engine.quadrature`,
:mod:`accountlib.applications.census`); this module only arranges them.

Each explorer exists in three forms:

* :func:`plotly_html` — a Plotly figure holding one set of traces per slider value, of which the slider
  shows one (client-side: the rendered book moves it without a kernel; Plotly itself ships with the book);
* :func:`static_figure` — a matplotlib figure of a few slider values, for print;
* :func:`live` — ipywidgets controls that recompute the curves with :mod:`accountlib` for *any* value
  (in Jupyter, e.g. ``make lab``), not only the precomputed grid.

The curves:

* :func:`gap_series` — the gap Γ(t) = ρ·t(t+1) − K(t) ≥ 0 between a mechanism's privacy-loss CGF and its
  optimal zCDP bound (unifying paper §4.1, Prop. 4.1; Figure 4(a)) for the Gaussian, the Gaussian
  mixture and the Laplace noise, at shift s;
* :func:`subsampled_gap_series` — Γ(t) of the Poisson-subsampled Gaussian (unifying paper Prop. 4.2,
  Figure 4(b)–(c)) at sampling rate q;
* :func:`discrete_continuous_series` — exact δ(ε) of m composed discrete Gaussians N_Z(0, σ²)
  (:class:`accountlib.theory.composition.Composition`, certified) against μ-GDP, μ² = m/σ² (the continuous Gaussian);
* :func:`trapezoid_series` — the trapezoid-rule error of Pr(X = t), X ~ N_Z(0, σ²), against the number
  of nodes N, with the strip bound (sieve paper §3.2, Prop. 3.5; :mod:`accountlib.engine.quadrature`);
* :func:`census_series` — δ(ε) and the trade-off curve f(α) of DHC pair (k, l) (sieve paper §4, the
  full sweep in ``results/dhc``), beside the zCDP bound the Bureau reports.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np

from accountlib.applications import census
from accountlib.engine import discrete_gaussian as dg, lattice, quadrature
from .notebook_sweep import BATCH_EXECUTION
from accountlib.theory import edgeworth, rdp
from accountlib.infrastructure.numbers import as_fraction
from accountlib.theory.conversions import zcdp_delta
from accountlib.theory.composition import Composition

__all__ = [
    "Series",
    "Explorer",
    "gap_series",
    "subsampled_gap_series",
    "discrete_continuous_series",
    "trapezoid_series",
    "census_series",
    "zcdp_parabola_series",
    "gap_explorer",
    "subsampled_gap_explorer",
    "discrete_continuous_explorer",
    "trapezoid_explorer",
    "census_explorer",
    "plotly_figure",
    "plotly_html",
    "static_figure",
    "live",
]

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
_DASH_MPL = {"solid": "-", "dash": "--", "dot": ":", "dashdot": "-."}


@dataclass
class Series:
    """One curve: ``y`` against ``x``, drawn in ``panel`` with colour number ``color`` and line ``dash``."""

    name: str
    x: np.ndarray
    y: np.ndarray
    color: int = 0
    dash: str = "solid"
    panel: int = 0
    markers: bool = False


@dataclass
class Panel:
    """Axes of one panel."""

    x_title: str
    y_title: str
    log_x: bool = False
    log_y: bool = False


@dataclass
class Explorer:
    """Curves precomputed for each value of one parameter (``frames[i]`` belongs to ``values[i]``)."""

    key: str
    title: str
    parameter: str
    values: list
    frames: list
    panels: list = field(default_factory=list)
    labels: list | None = None

    def label(self, i: int) -> str:
        return self.labels[i] if self.labels else f"{self.values[i]:.3g}"


# ----------------------------------------------------------------------------------------------------
# checks
# ----------------------------------------------------------------------------------------------------

def _grid(values, name: str, *, positive: bool = True, integer: bool = False) -> list:
    try:
        grid = list(values)
    except TypeError:
        raise ValueError(f"{name} must be a non-empty list of numbers; got {values!r}") from None
    if not grid:
        raise ValueError(f"{name} must be a non-empty list of numbers; got an empty list")
    for v in grid:
        if isinstance(v, bool) or not isinstance(v, (int, float, Fraction, np.integer, np.floating)):
            raise ValueError(f"{name} must hold numbers; got {v!r}")
        if not math.isfinite(float(v)):
            raise ValueError(f"{name} must hold finite numbers; got {v!r}")
        if positive and not v > 0:
            raise ValueError(f"{name} must hold numbers > 0; got {v!r}")
        if integer and int(v) != v:
            raise ValueError(f"{name} must hold whole numbers; got {v!r}")
    return [int(v) for v in grid] if integer else grid


def _exact(value, name: str) -> Fraction:
    """A float parameter as the exact rational it prints as (0.1 -> 1/10), for the exact engines."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number > 0; got {value!r}")
    exact = as_fraction(value if isinstance(value, Fraction) else float(value), name, floats="decimal")
    if not exact > 0 or not math.isfinite(float(exact)):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return exact


# ----------------------------------------------------------------------------------------------------
# the curves for one parameter value
# ----------------------------------------------------------------------------------------------------

GAP_MECHANISMS = {"Gaussian": rdp.Gaussian(), "Gaussian mixture": rdp.GaussianMixture(1.0), "Laplace": rdp.Laplace()}


def gap_series(s: float, orders) -> list[Series]:
    """Γ(t) at shift ``s`` for the Gaussian, the Gaussian mixture (m = 1) and the Laplace noise (scale 1).

    Γ(t) = ρ(s)·t(t+1) − K(t) ≥ 0 (:meth:`accountlib.theory.rdp.NoiseMechanism.gap`). Unifying paper §4.1, Prop. 4.1 and
    Figure 4(a): Γ ≡ 0 for the Gaussian; for the other two it vanishes as s → 0 (the chapter "What zCDP forgets" fits the
    rates).
    """
    orders = np.asarray(_grid(orders, "orders"), dtype=float)
    return [Series(name, orders, np.array([mech.gap(t, s) for t in orders]), color=i)
            for i, (name, mech) in enumerate(GAP_MECHANISMS.items())]


def subsampled_gap_series(q: float, orders, *, z: float = 1.0, s: float = 1.0) -> list[Series]:
    """Γ(t) of the Poisson-subsampled Gaussian with rate ``q`` and noise multiplier ``z`` (unifying paper Prop. 4.2)."""
    orders = np.asarray(_grid(orders, "orders"), dtype=float)
    mech = rdp.PoissonSubsampledGaussian(q, z)
    return [Series(f"Γ(t), q = {q:.3g}, z = {z:.3g}", orders, np.array([mech.gap(t, s) for t in orders]), color=0)]


def discrete_continuous_series(sigma2: float, ms=(1, 4, 16), *, smallest_delta: float = 1e-12,
                               points: int = 24, rel_tol: float = 1e-6) -> list[Series]:
    """Exact δ(ε) of m composed N_Z(0, σ²) (certified to ``rel_tol``) and δ(ε) of μ-GDP, μ² = m/σ².

    The exact curve is :meth:`accountlib.theory.composition.Composition.delta` of the pair with m equal ρ_i = 1/σ²;
    the continuous one is :func:`accountlib.theory.edgeworth.gdp_delta`. ε runs from ``smallest_delta``'s ε/40 up to
    the ε where μ-GDP reaches ``smallest_delta``.
    """
    s2 = _exact(sigma2, "sigma2")
    ms = _grid(ms, "ms", integer=True)
    if not (isinstance(points, int) and points >= 2):
        raise ValueError(f"points must be a whole number >= 2; got {points!r}")
    if not 0 < smallest_delta < 0.5:
        raise ValueError(f"smallest_delta must lie in (0, 0.5); got {smallest_delta!r}")
    series = []
    for i, m in enumerate(ms):
        mu = math.sqrt(m / float(s2))
        top = edgeworth.gdp_epsilon_for_delta(smallest_delta, mu)
        eps = np.linspace(top / 40, top, points)
        exact = Composition([1 / s2] * m).delta([as_fraction(float(e), "eps", floats="decimal") for e in eps],
                                                 rel_tol=rel_tol)
        series.append(Series(f"discrete, m = {m}", eps, np.array([float(p.delta) for p in exact]), color=i))
        series.append(Series(f"continuous, m = {m}", eps, np.array([edgeworth.gdp_delta(e, mu) for e in eps]),
                             color=i, dash="dot"))
    return series


def trapezoid_series(sigma2: float, node_counts, targets=(0, 2, 5), *, dps: int = 60) -> list[Series]:
    """|T_N − Pr(X = t)| for X ~ N_Z(0, σ²) against the number of nodes N, with the strip bound.

    T_N is the trapezoid rule on the characteristic function (:func:`accountlib.engine.quadrature.dft_pmf`); the
    reference is :func:`accountlib.engine.discrete_gaussian.pmf` at ``dps`` digits and the bound is
    :func:`accountlib.engine.quadrature.trapezoid_pmf_error_bound` (Trefethen and Weideman; sieve paper Lemma 4.3). Errors below the
    working precision (10^-(dps-5)) are not drawn, nor bounds there or ≥ 1.
    """
    s2 = _exact(sigma2, "sigma2")
    nodes = _grid(node_counts, "node_counts", integer=True)
    targets = _grid(targets, "targets", positive=False, integer=True)
    lat = lattice.lattice_of([(1 / s2, 1)])  # (ρ, weight) = (1/σ², 1): L = 1, S_L = X
    floor = 10.0 ** -(dps - 5)
    with mpmath.workdps(dps):
        exact = {t: dg.pmf(t, s2, dps=dps) for t in targets}
        errors = {t: [] for t in targets}
        for n in nodes:
            for t, value in zip(targets, quadrature.dft_pmf(lat.groups, targets, n, dps=dps)):
                errors[t].append(float(abs(value - exact[t])))
    series = []
    for i, t in enumerate(targets):
        err = np.array(errors[t])
        keep = err > floor
        series.append(Series(f"error, t = {t}", np.array(nodes)[keep], err[keep], color=i, markers=True))
        bound = np.array([quadrature.trapezoid_pmf_error_bound(lat.variance_proxy, t, n) for n in nodes])
        useful = (bound < 1) & (bound > floor)  # ≥ 1 says nothing; below the working precision is not checked
        series.append(Series(f"bound, t = {t}", np.array(nodes, dtype=float)[useful], bound[useful], color=i,
                             dash="dash"))
    return series


def census_series(k: int, l: int, *, out_dir=None, variance_scale: float | None = None, epsilons=None,
                  most: int = 80, rel_tol: float = 1e-12) -> list[Series]:
    """δ(ε) of DHC pair (k, l) beside the zCDP bound the Bureau reports, and how far it is from a Gaussian.

    Sieve paper §4. Panel 0: the exact δ(ε) and the zCDP δ(ε) (ε = ρ + 2·sqrt(ρ log(1/δ)), ρ = Σρ_i/2).
    Panel 1: |δ(ε)/δ_GDP(ε) − 1|, the relative distance to the continuous Gaussian with the same ρ
    (μ-GDP, μ² = 2ρ; :func:`accountlib.theory.edgeworth.gdp_delta`) — what the allocation's discreteness changes —
    next to the certified relative error of δ (a distance below it is not resolved).

    With ``out_dir`` the curves are read from the full sweep's files (:func:`accountlib.applications.census.read_pair_curves`).
    With ``variance_scale`` c, δ(ε) is recomputed exactly (to ``rel_tol``) for the pair with every noise variance
    multiplied by c (:func:`accountlib.applications.census.scaled_delta`) at ``epsilons``. ``most`` thins stored curves.
    """
    k, l = census.check_allocation(k, "k"), census.check_allocation(l, "l")
    k, l = min(k, l), max(k, l)
    if variance_scale is None:
        if out_dir is None:
            raise ValueError("census_series needs out_dir (the sweep's results) or variance_scale; got neither")
        rho = float(census.TOTAL_RHO)
        curves = census.read_pair_curves(Path(out_dir), k, l)
        pick = _thin_index(len(curves["epsilon"]), most)
        eps = np.array([float(curves["epsilon"][i]) for i in pick])
        delta = np.array([float(curves["delta"][i]) for i in pick])
        error = np.array([float(curves["delta_error"][i]) for i in pick])
        zcdp = np.array([float(curves["delta_zcdp"][i]) for i in pick])
    else:
        c = _exact(variance_scale, "variance_scale")
        rho = float(census.TOTAL_RHO / c)
        eps = np.asarray(_grid(epsilons if epsilons is not None else np.linspace(2, 40, 12), "epsilons"), dtype=float)
        points = [census.scaled_delta(k, l, c, as_fraction(float(e), "eps", floats="decimal"), rel_tol=rel_tol)
                  for e in eps]
        delta = np.array([float(p.delta) for p in points])
        error = np.array([float(p.error_bound) for p in points])
        zcdp = np.array([zcdp_delta(e, rho) for e in eps])
    mu = math.sqrt(2 * rho)
    gdp = np.array([edgeworth.gdp_delta(e, mu) for e in eps])
    return [Series(f"exact, pair ({k}, {l})", eps, delta, color=0),
            Series("zCDP bound", eps, zcdp, color=1, dash="dash"),
            Series(f"|δ/δ_Gauss − 1|, pair ({k}, {l})", eps, np.abs(delta / gdp - 1), color=2, panel=1,
                   markers=True),
            Series("certified error of δ (relative)", eps, error / delta, color=3, dash="dot", panel=1)]


def _thin_index(n: int, most: int) -> np.ndarray:
    if n <= most:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, most).round().astype(int))


# ----------------------------------------------------------------------------------------------------
# the explorers (a grid of values each)
# ----------------------------------------------------------------------------------------------------

def gap_explorer(shifts=(0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0), orders=None) -> Explorer:
    orders = np.linspace(0.05, 4.0, 40) if orders is None else orders
    shifts = _grid(shifts, "shifts")
    return Explorer("gap", "The gap Γ(t) between the privacy-loss CGF and its zCDP bound", "shift s", shifts,
                    [gap_series(s, orders) for s in shifts], [Panel("order t", "Γ(t)")])


def zcdp_parabola_series(rho: float, orders, *, color: int = 7) -> Series:
    """The zCDP parabola ρ·t(t+1) at ``orders``: the most the gap Γ(t) = ρ·t(t+1) − K(t) can be, since K ≥ 0."""
    orders = np.asarray(_grid(orders, "orders"), dtype=float)
    return Series("zCDP parabola ρ·t(t+1)", orders, rho * orders * (orders + 1), color=color, dash="dash")


def subsampled_gap_explorer(rates=(0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.6), orders=None, *, z: float = 1.0
                            ) -> Explorer:
    """Γ(t) of the Poisson-subsampled Gaussian for each rate, with the zCDP parabola ρ·t(t+1) it rises towards."""
    orders = np.linspace(0.1, 12.0, 40) if orders is None else orders
    rates = _grid(rates, "rates")
    frames = [subsampled_gap_series(q, orders, z=z)
              + [zcdp_parabola_series(rdp.PoissonSubsampledGaussian(q, z).rho(1.0), orders)] for q in rates]
    return Explorer("subsampled-gap", f"Γ(t) of the Poisson-subsampled Gaussian (z = {z:g})", "sampling rate q",
                    rates, frames, [Panel("order t", "Γ(t)", log_y=True)])


def discrete_continuous_explorer(sigma2s=(0.25, 0.5, 1, 2, 5, 10, 50), ms=(1, 4, 16)) -> Explorer:
    sigma2s = _grid(sigma2s, "sigma2s")
    return Explorer("discrete-continuous", "Discrete vs continuous Gaussian: δ(ε) of m compositions", "σ²",
                    sigma2s, [discrete_continuous_series(s2, ms) for s2 in sigma2s],
                    [Panel("ε", "δ(ε)", log_y=True)])


def trapezoid_explorer(sigma2s=(0.5, 2, 8, 32), node_counts=range(4, 101, 4), targets=(0, 2, 5), *, dps: int = 50
                       ) -> Explorer:
    sigma2s = _grid(sigma2s, "sigma2s")
    return Explorer("trapezoid", "Trapezoid-rule error of Pr(X = t), X ~ N_Z(0, σ²)", "σ²", sigma2s,
                    [trapezoid_series(s2, node_counts, targets, dps=dps) for s2 in sigma2s],
                    [Panel("number of nodes N", "|T_N − Pr(X = t)|", log_y=True)])


def census_explorer(out_dir, k: int = 13, allocations=None) -> Explorer:
    allocations = list(census.ALLOCATIONS) if allocations is None else _grid(allocations, "allocations", integer=True)
    return Explorer("census", f"DHC pair ({k}, l): exact δ(ε), the zCDP bound, distance to a Gaussian", "allocation l", allocations,
                    [census_series(k, l, out_dir=out_dir) for l in allocations],
                    [Panel("ε", "δ(ε)", log_y=True), Panel("ε", "relative distance to the Gaussian", log_y=True)],
                    labels=[str(l) for l in allocations])


# ----------------------------------------------------------------------------------------------------
# drawing
# ----------------------------------------------------------------------------------------------------

def _compact(values) -> np.ndarray:
    """Single precision where it loses nothing visible (7 digits, |v| within 1e-37 ... 1e37), else double."""
    values = np.asarray(values, dtype=float)
    nonzero = np.abs(values[values != 0])
    if nonzero.size == 0 or (nonzero.min() > 1e-37 and nonzero.max() < 1e37):
        return values.astype(np.float32)
    return values


PANEL_HEIGHT = 330  # pixels of plot area of a figure with one panel
STACKED_PANEL_HEIGHT = 240  # pixels of plot area per panel where panels are stacked
MOST_HEIGHT = 820  # the tallest figure: the slider and all the panels fit on a screen 900 pixels high
PANEL_GAP = 95  # pixels between stacked panels: the upper panel's tick labels and x-axis title fit in it
TITLE_MARGIN = 60  # pixels above the first panel, for the title alone
SLIDER_MARGIN = 150  # pixels below the last panel: tick labels, x-axis title, then the slider


def _log_ticks(explorer: Explorer, p: int, panel: Panel) -> dict:
    """Tick labels at powers of ten only (every k-th decade, at most about six labels) on a logarithmic y axis:
    Plotly's own choice adds labels 2 and 5 between decades, which crowd a panel a few hundred pixels high."""
    if not panel.log_y:
        return {}
    values = np.concatenate([np.asarray(series.y, dtype=float) for frame in explorer.frames for series in frame
                             if series.panel == p] or [np.array([1.0])])
    values = values[np.isfinite(values) & (values > 0)]
    if values.size == 0:
        return {}
    decades = math.log10(values.max()) - math.log10(values.min())
    return {"dtick": max(1, math.ceil(decades / 6)), "tick0": 0}


def legend_name(panel: int) -> str:
    """The layout key of panel ``panel``'s legend: ``legend``, ``legend2``, ``legend3``, ..."""
    return "legend" if panel == 0 else f"legend{panel + 1}"


def plotly_figure(explorer: Explorer, *, height: int | None = None):
    """A Plotly figure with one set of traces per value and a slider that shows one set at a time.

    The panels are stacked one above the other, each with its own legend to the right of it, so that no
    legend covers the title or a curve and no axis title reaches into another panel; every trace is named
    in its panel's legend. ``height`` defaults to :data:`PANEL_HEIGHT` pixels of plot area for one panel and
    :data:`STACKED_PANEL_HEIGHT` per panel for more, so that a reader sees the slider and every panel together.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    panels = explorer.panels or [Panel("x", "y")]
    n = len(panels)
    if height is None:
        height = TITLE_MARGIN + SLIDER_MARGIN + (n * STACKED_PANEL_HEIGHT + (n - 1) * PANEL_GAP if n > 1
                                                 else PANEL_HEIGHT)
    plot_height = height - TITLE_MARGIN - SLIDER_MARGIN
    spacing = PANEL_GAP / plot_height if n > 1 else 0.0
    fig = make_subplots(rows=n, cols=1, vertical_spacing=spacing)
    owner = []
    for i, frame in enumerate(explorer.frames):
        for series in frame:
            fig.add_trace(go.Scatter(
                x=_compact(series.x), y=_compact(series.y), name=series.name, legendgroup=series.name,
                legend=legend_name(series.panel), showlegend=True, visible=i == 0,
                mode="lines+markers" if series.markers else "lines",
                line={"color": _PALETTE[series.color % len(_PALETTE)], "dash": series.dash,
                      "width": 1 if series.markers else 2.5},
                marker={"size": 7},
            ), row=series.panel + 1, col=1)
            owner.append(i)
    legends = {}
    for p, panel in enumerate(panels):
        fig.update_xaxes(title_text=panel.x_title, type="log" if panel.log_x else "linear", row=p + 1, col=1,
                         exponentformat="power")
        fig.update_yaxes(title_text=panel.y_title, type="log" if panel.log_y else "linear", row=p + 1, col=1,
                         exponentformat="power", **_log_ticks(explorer, p, panel))
        top = fig.layout[f"yaxis{p + 1 if p else ''}"].domain[1]
        legends[legend_name(p)] = {"x": 1.02, "xanchor": "left", "y": top, "yanchor": "top",
                                   "font": {"size": 13}, "tracegroupgap": 2}
    steps = [{"method": "update", "label": explorer.label(i),
              "args": [{"visible": [o == i for o in owner]}]} for i in range(len(explorer.frames))]
    fig.update_layout(
        title={"text": explorer.title, "font": {"size": 17}, "x": 0, "xanchor": "left", "xref": "paper",
               "y": 1 - 18 / height, "yanchor": "top", "yref": "container"},
        template="plotly_white", height=height, font={"size": 14},
        margin={"l": 80, "r": 20, "t": TITLE_MARGIN, "b": SLIDER_MARGIN},
        sliders=[{"active": 0, "steps": steps, "pad": {"t": 70}, "len": 1.0,
                  "currentvalue": {"prefix": f"{explorer.parameter} = ", "font": {"size": 15}}}],
        **legends,
    )
    return fig


def plotly_html(explorer: Explorer, div_id: str | None = None) -> str:
    """The figure as an HTML fragment for a page that loads Plotly itself (the book ships ``plotly.min.js``).

    The id is fixed (``explorer-<key>``) so stored outputs stay identical between runs. Where Plotly is not
    loaded (a notebook front end), the fragment draws nothing instead of raising.
    """
    import plotly.io as pio

    div_id = div_id or f"explorer-{explorer.key}"
    html = pio.to_html(plotly_figure(explorer), include_plotlyjs=False, full_html=False, div_id=div_id,
                       config={"displaylogo": False, "displayModeBar": False, "responsive": True})
    guard = f'if (document.getElementById("{div_id}")) {{'
    if guard not in html:  # pragma: no cover - depends on plotly's template
        raise RuntimeError("plotly's HTML template changed; update accountbook.explorers.plotly_html")
    html = html.replace(guard, f'if (window.Plotly && document.getElementById("{div_id}")) {{')
    return f'<div class="plotly-explorer">{html}</div>'


def _draw(axes, panels, frames_and_labels):
    styles = ["-", "--", ":", "-."]
    for f, (frame, label) in enumerate(frames_and_labels):
        for series in frame:
            ax = axes[series.panel]
            line = _DASH_MPL.get(series.dash, "-")
            kwargs = {"color": _PALETTE[(series.color + f * len(frame)) % len(_PALETTE)]} if len(
                frames_and_labels) == 1 else {"color": f"C{f}", "alpha": 0.9}
            if len(frames_and_labels) > 1:
                line = styles[series.color % len(styles)] if series.dash == "solid" else line
            name = series.name if label is None else f"{label}: {series.name}"
            ax.plot(series.x, series.y, line, marker="o" if series.markers else None, markersize=3,
                    label=name, **kwargs)
    for ax, panel in zip(axes, panels):
        ax.set_xlabel(panel.x_title)
        ax.set_ylabel(panel.y_title)
        if panel.log_x:
            ax.set_xscale("log")
        if panel.log_y:
            ax.set_yscale("log")
        ax.legend(fontsize=8)


def static_figure(explorer: Explorer, picks=None):
    """A matplotlib figure of the curves at a few values (first, middle, last unless ``picks`` are indices)."""
    import matplotlib.pyplot as plt

    n = len(explorer.frames)
    picks = sorted({0, n // 2, n - 1}) if picks is None else list(picks)
    panels = explorer.panels or [Panel("x", "y")]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.2), squeeze=False)
    _draw(list(axes[0]), panels, [(explorer.frames[i], f"{explorer.parameter} = {explorer.label(i)}") for i in picks])
    fig.suptitle(explorer.title)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------------------------------
# live: ipywidgets controls that recompute
# ----------------------------------------------------------------------------------------------------

def _live_view(compute, panels, title, **controls):
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    def show(**values):
        frame = compute(**values)
        fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.0), squeeze=False)
        _draw(list(axes[0]), panels, [(frame, None)])
        fig.suptitle(title + " — " + ", ".join(f"{k} = {v:.3g}" if isinstance(v, float) else f"{k} = {v}"
                                                 for k, v in values.items()))
        fig.tight_layout()
        plt.show()

    return widgets.interactive(show, {"manual": False}, **controls)


LIVE_KEYS = ("gap", "subsampled-gap", "discrete-continuous", "trapezoid", "census")


def live(key: str, *, out_dir=None):
    """ipywidgets controls for explorer ``key`` that recompute with accountlib for any value (use in Jupyter).

    ``key`` is one of "gap", "subsampled-gap", "discrete-continuous", "trapezoid", "census". The census
    explorer recomputes δ(ε) exactly for any pair (k, l) and any variance scale c.

    In a batch run of a chapter (the book build, the test suite, papermill sweeps), where no one can move a
    slider, the environment variable ``ACCOUNTLIB_BATCH_EXECUTION=1`` makes this return a short note instead:
    executing ipywidgets' interactive output without a frontend can deadlock the notebook client
    (jupyter/nbclient#312, jupyter/nbconvert#2029). ``make book``, and
    :func:`accountbook.notebook_sweep.batch_environment` (the test suite, ``sweep notebook``) set it.
    """
    if key not in LIVE_KEYS:
        raise ValueError(f"key must be one of {', '.join(repr(k) for k in LIVE_KEYS)}; got {key!r}")
    if os.environ.get(BATCH_EXECUTION) == "1":
        from IPython.display import HTML

        return HTML("<p><em>Live controls for this explorer appear here when you run this chapter in Jupyter "
                    "(<code>make lab</code>): sliders that recompute its curves with accountlib for any value, "
                    "not only the precomputed ones above.</em></p>")
    import ipywidgets as widgets

    log_slider = widgets.FloatLogSlider
    slider_layout = {"continuous_update": False}
    if key == "gap":
        return _live_view(lambda s, t_max: gap_series(s, np.linspace(0.05, t_max, 40)), [Panel("order t", "Γ(t)")],
                          "Γ(t)", s=log_slider(value=0.3, base=10, min=-2, max=0.5, step=0.05, **slider_layout),
                          t_max=widgets.FloatSlider(value=4.0, min=0.5, max=10.0, step=0.5, **slider_layout))
    if key == "subsampled-gap":
        return _live_view(lambda q, z: subsampled_gap_series(q, np.linspace(0.1, 12, 40), z=z) + [
                              zcdp_parabola_series(rdp.PoissonSubsampledGaussian(q, z).rho(1.0),
                                                   np.linspace(0.1, 12, 40))],
                          [Panel("order t", "Γ(t)", log_y=True)], "Poisson-subsampled Gaussian",
                          q=log_slider(value=0.01, base=10, min=-3, max=0, step=0.1, **slider_layout),
                          z=widgets.FloatSlider(value=1.0, min=0.5, max=4.0, step=0.1, **slider_layout))
    if key == "discrete-continuous":
        return _live_view(lambda sigma2, m: discrete_continuous_series(sigma2, [m]),
                          [Panel("ε", "δ(ε)", log_y=True)], "discrete vs continuous Gaussian",
                          sigma2=log_slider(value=1.0, base=10, min=-1, max=2, step=0.05, **slider_layout),
                          m=widgets.IntSlider(value=4, min=1, max=64, **slider_layout))
    if key == "trapezoid":
        return _live_view(lambda sigma2, n_max: trapezoid_series(sigma2, range(4, n_max + 1, 4)),
                          [Panel("number of nodes N", "|T_N − Pr(X = t)|", log_y=True)], "trapezoid rule",
                          sigma2=log_slider(value=2.0, base=10, min=-1, max=2, step=0.05, **slider_layout),
                          n_max=widgets.IntSlider(value=80, min=8, max=200, step=4, **slider_layout))
    if key == "census":
        return _live_view(lambda k, l, c: census_series(k, l, variance_scale=c, epsilons=np.linspace(4, 34, 7),
                                                        rel_tol=1e-10),
                          [Panel("ε", "δ(ε)", log_y=True), Panel("ε", "relative distance to the Gaussian", log_y=True)], "DHC pair",
                          k=widgets.IntSlider(value=13, min=1, max=43, **slider_layout),
                          l=widgets.IntSlider(value=13, min=1, max=43, **slider_layout),
                          c=log_slider(value=1.0, base=10, min=-1, max=1, step=0.05, **slider_layout))
    raise ValueError(f"key must be one of 'gap', 'subsampled-gap', 'discrete-continuous', 'trapezoid', 'census'; "
                     f"got {key!r}")
