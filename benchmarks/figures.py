"""The Performance page's plots, drawn from the results files (``benchmarks/run.py`` redraws them after a run).

    .venv/bin/python benchmarks/figures.py [FOLDER]      # default: benchmarks/ (into FOLDER/figures/)

* ``time_accuracy.svg`` (``results_engine.json``): for each DHC pair, seconds against accuracy — our certified
  bound, the paper's method (its fixed absolute Δ as a fraction of the smallest δ asked) and dp_accounting's PLD at
  each discretisation (its worst relative error where δ > 10⁻¹²: an error, not a bound).
* ``composition.svg`` (``results_composition.json``): seconds against the number of budgets composed, ours and
  dp_accounting's PLD.

The SVG files are reproducible (no date, fixed ids, text kept as text), so ``tests/book/test_benchmarks.py`` can
check that the committed plots are the ones these results give.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

FIGURES = {"time_accuracy.svg": "results_engine.json", "composition.svg": "results_composition.json"}
"""Each plot and the results file it is drawn from."""


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "accountlib-benchmarks", "svg.fonttype": "none", "font.size": 10,
                         "axes.spines.top": False, "axes.spines.right": False})
    return plt


def _save(figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    return path


def time_accuracy(results: dict, path: Path) -> Path:
    plt = _pyplot()
    pairs = results["pairs"]
    figure, axes = plt.subplots(1, len(pairs), figsize=(4.2 * len(pairs), 3.6), sharey=True, squeeze=False)
    for axis, (name, row) in zip(axes[0], pairs.items()):
        ours, paper = row["ours"], row["paper"]
        smallest = min(ours["deltas"])
        axis.scatter([ours["seconds"]], [ours["worst_relative_bound"]], marker="o", s=50, color="C0", zorder=3,
                     label="ours: certified bound")
        axis.scatter([paper["extrapolated_seconds"]], [1e-35 / smallest], marker="s", s=50, color="C3", zorder=3,
                     label="the paper's method: certified")
        peers = row["dp_accounting"]
        if peers:
            axis.plot([p["seconds"] for p in peers], [p["worst_relative_error_delta_above_1e-12"] for p in peers],
                      marker="^", color="C1", label="dp_accounting PLD: error, not a bound")
            for p in peers:
                axis.annotate(f"{p['interval']:g}", (p["seconds"], p["worst_relative_error_delta_above_1e-12"]),
                              textcoords="offset points", xytext=(4, 4), fontsize=8, color="C1")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(f"pair ({name.replace(',', ', ')})")
        axis.set_xlabel("seconds")
        axis.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("relative error of δ (worst level)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, fontsize=8, loc="lower center", ncol=3, frameon=False, bbox_to_anchor=(0.5, -0.02))
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    out = _save(figure, path)
    plt.close(figure)
    return out


def composition(results: dict, path: Path) -> Path:
    plt = _pyplot()
    rows = results["rows"]
    m = [r["m"] for r in rows]
    figure, axis = plt.subplots(figsize=(6.0, 3.8))
    axis.plot(m, [r["ours"]["seconds"] for r in rows], marker="o", color="C0", label="ours: certified, 1e-6 relative")
    for i, interval in enumerate(results["intervals"]):
        axis.plot(m, [r["pld"][i]["seconds"] for r in rows], marker="^", linestyle="--", color=f"C{1 + i}",
                  label=f"dp_accounting PLD, discretisation {interval:g}")
    axis.set_xscale("log", base=2)
    axis.set_xticks(m, [f"{x:,}" for x in m])
    axis.minorticks_off()
    axis.set_yscale("log")
    axis.set_xlabel("number of budgets composed")
    axis.set_ylabel("seconds")
    axis.grid(True, which="major", alpha=0.3)
    axis.legend(fontsize=8, frameon=False)
    figure.tight_layout()
    out = _save(figure, path)
    plt.close(figure)
    return out


DRAW = {"time_accuracy.svg": time_accuracy, "composition.svg": composition}


def write_all(folder: Path = HERE, out: Path | None = None) -> list[Path]:
    """Draw every plot whose results file is in ``folder``, into ``out`` (default ``folder/figures``)."""
    folder = Path(folder)
    out = Path(out) if out else folder / "figures"
    written = []
    for name, results in FIGURES.items():
        path = folder / results
        if path.is_file():
            written.append(DRAW[name](json.loads(path.read_text(encoding="utf-8")), out / name))
    return written


if __name__ == "__main__":
    for written in write_all(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(written)
