"""accountbook.explorers: the curves behind the book's sliders, their Plotly figures and live controls."""

import math
from pathlib import Path

import numpy as np
import pytest

from accountlib.applications import census
from accountlib.theory import edgeworth, rdp
from accountbook import explorers

ROOT = Path(__file__).resolve().parents[2]
DHC = ROOT / "results" / "dhc"


def test_gap_series_is_the_mechanisms_gap_and_zero_for_the_gaussian():
    orders = [0.5, 1.0, 3.0]
    series = {s.name: s for s in explorers.gap_series(0.3, orders)}
    assert set(series) == {"Gaussian", "Gaussian mixture", "Laplace"}
    assert np.max(np.abs(series["Gaussian"].y)) < 1e-12
    laplace = rdp.Laplace()
    assert series["Laplace"].y.tolist() == [laplace.gap(t, 0.3) for t in orders]
    for name in ("Gaussian mixture", "Laplace"):
        assert np.all(series[name].y > 0) and np.all(np.diff(series[name].y) > 0), name
    smaller = {s.name: s for s in explorers.gap_series(0.05, orders)}
    assert np.all(smaller["Laplace"].y < series["Laplace"].y)


def test_subsampling_gap_grows_as_the_rate_falls_and_stays_below_the_zcdp_bound():
    orders = np.array([1.0, 4.0])
    rare = explorers.subsampled_gap_series(0.001, orders)[0].y
    often = explorers.subsampled_gap_series(0.5, orders)[0].y
    assert np.all(rare > often) and np.all(often > 0)
    rho = rdp.PoissonSubsampledGaussian(0.001, 1.0).rho(1.0)
    assert np.all(rare <= rho * orders * (orders + 1) * (1 + 1e-12))


def test_discrete_and_continuous_gaussian_agree_for_wide_noise_and_not_for_narrow():
    wide = explorers.discrete_continuous_series(50, [4], points=4)
    exact, continuous = wide
    assert np.all(np.diff(exact.y) < 0)
    mu = math.sqrt(4 / 50)
    assert continuous.y.tolist() == [edgeworth.gdp_delta(e, mu) for e in continuous.x]
    assert np.max(np.abs(exact.y / continuous.y - 1)) < 0.05
    narrow_exact, narrow_continuous = explorers.discrete_continuous_series(0.25, [1], points=4)
    assert narrow_exact.y[-1] < 0.1 * narrow_continuous.y[-1]


def test_trapezoid_error_stays_under_its_bound_and_falls_exponentially():
    series = explorers.trapezoid_series(2, range(8, 65, 8), targets=(0, 3), dps=40)
    errors = {s.name: s for s in series}
    for t in (0, 3):
        error, bound = errors[f"error, t = {t}"], errors[f"bound, t = {t}"]
        bound_at = dict(zip(bound.x, bound.y))
        checked = [(n, e) for n, e in zip(error.x, error.y) if n in bound_at]
        assert checked, t
        assert all(e <= bound_at[n] for n, e in checked), t
        assert error.y[0] > 1e-12 and (len(error.x) < 8 or error.y[-1] < 1e-25)


def test_census_series_reads_the_sweep_and_orders_the_pair():
    series = explorers.census_series(20, 13, out_dir=DHC, most=1000)
    exact, zcdp, distance, error = series
    assert exact.name == "exact, pair (13, 20)" and distance.panel == 1
    stored = census.read_pair_curves(DHC, 13, 20)
    assert exact.y.tolist() == [float(d) for d in stored["delta"]]
    assert np.all(zcdp.y >= exact.y)
    assert np.all(error.y < 1e-8) and np.all(distance.y < 1e-6)
    thinned = explorers.census_series(13, 20, out_dir=DHC, most=10)[0]
    assert len(thinned.x) == 10 and thinned.x[0] == exact.x[0] and thinned.x[-1] == exact.x[-1]


def test_census_recomputed_at_unit_scale_matches_the_sweep():
    stored = explorers.census_series(13, 13, out_dir=DHC, most=1000)[0]
    epsilon = stored.x[30]
    live = explorers.census_series(13, 13, variance_scale=1, epsilons=[epsilon], rel_tol=1e-8)
    assert live[0].y[0] == pytest.approx(stored.y[30], rel=1e-7)


def _explorer():
    frames = [explorers.gap_series(s, [0.5, 1.0, 2.0]) for s in (0.1, 0.5)]
    return explorers.Explorer("test", "a test", "shift s", [0.1, 0.5], frames, [explorers.Panel("t", "Γ")])


def test_plotly_figure_shows_one_frame_per_slider_step():
    fig = explorers.plotly_figure(_explorer())
    assert len(fig.data) == 6
    assert [t.visible for t in fig.data] == [True] * 3 + [False] * 3
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == ["0.1", "0.5"]
    assert list(steps[1].args[0]["visible"]) == [False] * 3 + [True] * 3
    assert fig.layout.xaxis.title.text == "t"


def test_plotly_html_is_stable_self_contained_and_guarded():
    html = explorers.plotly_html(_explorer())
    assert html == explorers.plotly_html(_explorer())
    assert 'id="explorer-test"' in html and "window.Plotly &&" in html
    assert "<script src" not in html and "cdn" not in html.lower()


def test_static_figure_and_live_controls(monkeypatch):
    import matplotlib

    monkeypatch.delenv("ACCOUNTLIB_BATCH_EXECUTION", raising=False)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = explorers.static_figure(_explorer())
    assert fig.axes[0].get_xlabel() == "t" and fig.axes[0].get_legend() is not None
    plt.close(fig)
    view = explorers.live("gap")
    assert [c.description for c in view.children[:-1]] == ["s", "t_max"]
    view.children[0].value = 0.05  # any value, not only the stored grid: recomputes without error
    plt.close("all")


def test_batch_runs_get_a_note_instead_of_live_widgets(monkeypatch):
    monkeypatch.setenv("ACCOUNTLIB_BATCH_EXECUTION", "1")
    note = explorers.live("census")
    assert "run this chapter in Jupyter" in note.data
    with pytest.raises(ValueError, match="key"):
        explorers.live("nope")


@pytest.mark.parametrize("call, name", [
    (lambda: explorers.gap_explorer(shifts=[]), "shifts"),
    (lambda: explorers.gap_series(0.3, [0.5, float("nan")]), "orders"),
    (lambda: explorers.discrete_continuous_series(-1), "sigma2"),
    (lambda: explorers.discrete_continuous_series(1, [1.5]), "ms"),
    (lambda: explorers.trapezoid_series(1, [0.5]), "node_counts"),
    (lambda: explorers.census_series(13, 99, out_dir=DHC), "l"),
    (lambda: explorers.census_series(13, 13), "out_dir"),
    (lambda: explorers.live("nope"), "key"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ----------------------------------------------------------------------------------------------------
# the layout of every explorer of the book: legends clear of the title, every trace named, axis titles
# inside their own panel (issue 28); the figures are built with small grids of the book's explorers
# ----------------------------------------------------------------------------------------------------

def _book_explorers():
    return {
        "gap": explorers.gap_explorer(shifts=[0.1, 1.0], orders=[0.5, 1.0, 2.0]),
        "subsampled-gap": explorers.subsampled_gap_explorer(rates=[0.01, 0.3], orders=[0.5, 2.0, 8.0]),
        "discrete-continuous": explorers.discrete_continuous_explorer(sigma2s=[5], ms=(1, 4)),
        "trapezoid": explorers.trapezoid_explorer(sigma2s=[2], node_counts=range(4, 33, 4), dps=40),
        "census": explorers.census_explorer(DHC, k=13, allocations=[13, 20]),
    }


@pytest.fixture(scope="module")
def book_figures():
    return {key: (explorer, explorers.plotly_figure(explorer)) for key, explorer in _book_explorers().items()}


# Plotly's default sizes, in pixels: a legend entry's row at font 13, a tick label's height at font 14 and an
# axis title's (with its standoff); the gap between stacked panels must hold the upper panel's tick labels and
# its x-axis title.
_LEGEND_ROW, _TICK_LABEL, _AXIS_TITLE = 21, 22, 30


def _axis(layout, kind, p):
    return layout[f"{kind}axis{p + 1 if p else ''}"]


def _pixels(layout):
    """(top margin, plot-area height) in pixels."""
    return layout.margin.t, layout.height - layout.margin.t - layout.margin.b


@pytest.mark.parametrize("key", ["gap", "subsampled-gap", "discrete-continuous", "trapezoid", "census"])
def test_every_trace_is_named_in_a_legend(book_figures, key):
    explorer, fig = book_figures[key]
    assert len(fig.data) == sum(len(frame) for frame in explorer.frames)
    for trace in fig.data:
        assert trace.name and trace.name.strip(), f"{key}: a trace without a name"
        assert trace.showlegend is not False, f"{key}: trace {trace.name!r} is left out of the legend"
    # each legend lists the traces of one panel only
    panels_of = {}
    for trace in fig.data:
        panels_of.setdefault(trace.legend or "legend", set()).add(trace.yaxis or "y")
    assert all(len(axes) == 1 for axes in panels_of.values()), (key, panels_of)


@pytest.mark.parametrize("key", ["gap", "subsampled-gap", "discrete-continuous", "trapezoid", "census"])
def test_legends_stay_clear_of_the_title_and_of_each_other(book_figures, key):
    explorer, fig = book_figures[key]
    layout = fig.layout
    top_margin, plot_height = _pixels(layout)
    assert layout.title.text and layout.title.yref == "container"
    # the title sits in the top margin: its anchor is above the plot area
    assert layout.title.yanchor == "top" and (1 - layout.title.y) * layout.height < top_margin - 17
    panels = explorer.panels or [explorers.Panel("x", "y")]
    for p in range(len(panels)):
        legend = layout[explorers.legend_name(p)]
        y_domain = _axis(layout, "y", p).domain
        # outside the plot area on the right, so it covers no curve and no axis
        assert legend.xanchor == "left" and legend.x >= 1.0, (key, p, legend.x)
        assert all(_axis(layout, "x", q).domain[1] <= 1.0 for q in range(len(panels)))
        # hanging from the top of its own panel: never up into the title's margin
        assert legend.yanchor == "top" and legend.y <= 1.0 and abs(legend.y - y_domain[1]) < 1e-9, (key, p)
        # tall enough: the entries of one slider step fit within the panel's height
        entries = max(sum(s.panel == p for s in frame) for frame in explorer.frames)
        assert entries * _LEGEND_ROW <= (y_domain[1] - y_domain[0]) * plot_height, (key, p, entries)


@pytest.mark.parametrize("key", ["gap", "subsampled-gap", "discrete-continuous", "trapezoid", "census"])
def test_axis_titles_stay_inside_their_own_panel(book_figures, key):
    explorer, fig = book_figures[key]
    layout = fig.layout
    _, plot_height = _pixels(layout)
    panels = explorer.panels or [explorers.Panel("x", "y")]
    domains = []
    for p, panel in enumerate(panels):
        x_axis, y_axis = _axis(layout, "x", p), _axis(layout, "y", p)
        assert x_axis.title.text == panel.x_title and y_axis.title.text == panel.y_title, (key, p)
        assert x_axis.anchor == f"y{p + 1 if p else ''}" and y_axis.anchor == f"x{p + 1 if p else ''}", (key, p)
        # every panel spans the full width: a y-axis title (left of its axis) has only the left margin to its left
        assert tuple(x_axis.domain) == (0.0, 1.0) and layout.margin.l >= 70, (key, p)
        domains.append(tuple(y_axis.domain))
        if panel.log_y:  # labels at powers of ten only, at most about seven of them: none crowd the panel
            values = np.concatenate([s.y for frame in explorer.frames for s in frame if s.panel == p])
            values = values[values > 0]
            decades = math.log10(values.max()) - math.log10(values.min())
            assert isinstance(y_axis.dtick, int) and y_axis.dtick >= 1, (key, p, y_axis.dtick)
            assert decades / y_axis.dtick <= 7, (key, p, decades, y_axis.dtick)
    domains.sort()
    for (lower_bottom, lower_top), (upper_bottom, upper_top) in zip(domains, domains[1:]):
        gap = (upper_bottom - lower_top) * plot_height
        # the upper panel's tick labels and x-axis title lie in the gap, above the lower panel
        assert gap >= _TICK_LABEL + _AXIS_TITLE, (key, gap)
    # below the last panel its tick labels and x-axis title come first, the slider below them
    assert layout.sliders[0].pad.t >= _TICK_LABEL + _AXIS_TITLE


@pytest.mark.parametrize("key", ["gap", "subsampled-gap", "discrete-continuous", "trapezoid", "census"])
def test_the_slider_and_every_panel_fit_on_one_screen(book_figures, key):
    """A reader drags the slider while watching every panel: the figure fits a 900-pixel-high viewport."""
    explorer, fig = book_figures[key]
    assert fig.layout.height <= explorers.MOST_HEIGHT < 900, (key, fig.layout.height)
    _, plot_height = _pixels(fig.layout)
    panels = explorer.panels or [explorers.Panel("x", "y")]
    for p in range(len(panels)):
        low, high = _axis(fig.layout, "y", p).domain
        assert (high - low) * plot_height >= 200, (key, p)  # each panel still tall enough to read


def test_the_subsampling_explorer_draws_the_zcdp_parabola():
    explorer = explorers.subsampled_gap_explorer(rates=[0.001, 0.3], orders=[0.5, 2.0, 8.0])
    for q, frame in zip(explorer.values, explorer.frames):
        gap, parabola = frame
        assert parabola.name.startswith("zCDP parabola")
        rho = rdp.PoissonSubsampledGaussian(q, 1.0).rho(1.0)
        assert np.allclose(parabola.y, rho * parabola.x * (parabola.x + 1))
        assert np.all(gap.y <= parabola.y * (1 + 1e-12))
    # at q = 0.001 the gap is the parabola to three digits, as 15_explorers says
    assert np.allclose(explorer.frames[0][0].y, explorer.frames[0][1].y, rtol=2e-3)
