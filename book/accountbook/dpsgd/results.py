"""Results: the paper's settings and tables, where each run is stored, the stored runs read back and
summarised over seeds, and the seedwise trend test."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

PAPER_TARGETS = ((3.0, 1e-5), (5.0, 1e-5))


# -- the paper's sweeps, one results file per (target, setting, seed) ---------------------------


Q_SWEEP = (0.005, 0.0075, 0.01, 0.02, 0.05)
"""The sampling rates of the paper's q sweep, at n = 500 steps (unifying paper §5.2, Appendix D.4)."""
N_SWEEP = (250, 500, 1000, 1500, 2000)
"""The step counts of the paper's n sweep, at q = 0.01."""


def paper_settings() -> list[tuple[float, int]]:
    """The nine distinct (q, n) settings of the two sweeps (q at n = 500; n at q = 0.01), Table 3's order."""
    by_q = [(q, 500) for q in Q_SWEEP]
    by_n = [(0.01, n) for n in N_SWEEP if n != 500]
    return by_q + by_n


def _tag(value: float) -> str:
    return f"{value:g}"


def result_path(out_dir, *, epsilon: float, delta: float, q: float, steps: int, seed: int) -> Path:
    """``out_dir/eps=E_delta=D/q=Q_n=N_seed=S.json``."""
    return Path(out_dir) / f"eps={_tag(epsilon)}_delta={_tag(delta)}" / f"q={_tag(q)}_n={steps}_seed={seed}.json"


def clip_only_path(out_dir, *, q: float, steps: int, seed: int, data_name: str) -> Path:
    """``out_dir/clip_only/<data set>_q=Q_n=N_seed=S.json``: the clipping-only run shared by the targets."""
    slug = "".join(c if c.isalnum() else "-" for c in data_name.lower())
    return Path(out_dir) / "clip_only" / f"{slug}_q={_tag(q)}_n={steps}_seed={seed}.json"


def load_results(out_dir) -> list[dict]:
    """Every stored paired result under ``out_dir`` (see :func:`run_setting`), sorted by target and setting."""
    import json

    paths = sorted(Path(out_dir).glob("eps=*/*.json"))
    results = [json.loads(p.read_text()) for p in paths]
    return sorted(results, key=lambda r: (r["epsilon"], r["delta"], r["q"], r["steps"], r["seed"]))


def _t_interval(values) -> tuple[float, float]:
    """Mean and Student-t 95% half-width (nan with fewer than two values)."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float(values.mean()), float("nan")
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values))
    return float(values.mean()), float(half)


def summarise(results: list[dict]) -> list[dict]:
    """One row per (target, q, n) in the shape of the paper's Tables 3–4.

    Accuracies in percent; ``L_*`` final test cross-entropies; ``dL = L_Z − L_R`` and
    ``dAcc = Acc_R − Acc_Z`` (positive favours RDP) as paired means over seeds with Student-t 95%
    half-widths; ``epochs`` = nq, the expected number of passes (n · q).
    """
    groups: dict[tuple, list[dict]] = {}
    for r in results:
        groups.setdefault((r["epsilon"], r["delta"], r["q"], r["steps"]), []).append(r)
    rows = []
    for (epsilon, delta, q, steps), group in groups.items():
        final = {name: {key: np.array([r["runs"][name][key] for r in group]) for key in ("accuracy", "cross_entropy")}
                 for name in ("zcdp", "rdp", "clip_only")}
        d_loss = _t_interval(final["zcdp"]["cross_entropy"] - final["rdp"]["cross_entropy"])
        d_acc = _t_interval(100 * (final["rdp"]["accuracy"] - final["zcdp"]["accuracy"]))
        rows.append({"epsilon": epsilon, "delta": delta, "q": q, "n": steps, "epochs": q * steps,
                     "seeds": len(group), "z_rdp": group[0]["z_rdp"], "z_zcdp": group[0]["z_zcdp"],
                     "Acc_Z": 100 * final["zcdp"]["accuracy"].mean(), "Acc_R": 100 * final["rdp"]["accuracy"].mean(),
                     "Acc_0": 100 * final["clip_only"]["accuracy"].mean(),
                     "L_Z": final["zcdp"]["cross_entropy"].mean(), "L_R": final["rdp"]["cross_entropy"].mean(),
                     "L_0": final["clip_only"]["cross_entropy"].mean(),
                     "dL": d_loss[0], "dL_half": d_loss[1], "dAcc": d_acc[0], "dAcc_half": d_acc[1]})
    return rows


def seedwise_trend(results: list[dict], *, epsilon: float, delta: float, along: str) -> dict:
    """The seedwise log-q (or log-n) trend test of the paired differences (paper §5.2).

    For each seed, the least-squares slope of the paired difference against log q (the n = 500 sweep)
    or log n (the q = 0.01 sweep); the p-value is the two-sided one-sample t-test of those slopes
    against zero. Returns the p-values for ``dL`` (L_Z − L_R) and ``dAcc`` (Acc_R − Acc_Z) and the
    mean slopes.
    """
    from scipy import stats

    if along not in ("q", "n"):
        raise ValueError(f"along must be 'q' or 'n'; got {along!r}")
    chosen = [r for r in results if r["epsilon"] == epsilon and r["delta"] == delta
              and (r["steps"] == 500 if along == "q" else r["q"] == 0.01)]
    out = {}
    for key, sign, name in (("cross_entropy", 1, "dL"), ("accuracy", -100, "dAcc")):
        slopes = []
        for seed in sorted({r["seed"] for r in chosen}):
            points = [(math.log(r["q"] if along == "q" else r["steps"]),
                       sign * (r["runs"]["zcdp"][key] - r["runs"]["rdp"][key])) for r in chosen if r["seed"] == seed]
            if len(points) >= 3:
                x, y = np.array(points).T
                slopes.append(np.polyfit(x, y, 1)[0])
        test = stats.ttest_1samp(slopes, 0.0) if len(slopes) >= 2 else None
        out[name] = {"slope": float(np.mean(slopes)) if slopes else float("nan"),
                     "p": float(test.pvalue) if test is not None else float("nan"), "seeds": len(slopes)}
    return out


def _paper_tables() -> dict:
    """The unifying paper's Tables 3 and 4 as printed (``data/dpsgd_paper_tables.csv``), keyed by (ε, q, n).

    Comparison values for the reproduction ledger; nothing in this module is computed from them."""
    import csv
    from importlib import resources

    text = resources.files("accountbook").joinpath("data/dpsgd_paper_tables.csv").read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    tables = {}
    for row in csv.DictReader(lines):
        key = (float(row.pop("epsilon")), float(row.pop("q")), int(row.pop("n")))
        tables[key] = {name: float(value) for name, value in row.items()}
    return tables


PAPER_TABLES = _paper_tables()
