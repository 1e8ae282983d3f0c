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


def parse_settings(items) -> list[tuple[float, int]]:
    """``["0.005,500", "0.01,2000"]`` → ``[(0.005, 500), (0.01, 2000)]``, the (q, n) settings of a command line;
    ValueError naming the form accepted otherwise."""
    try:
        return [(float(q), int(n)) for q, n in (item.split(",") for item in items)]
    except ValueError:
        raise ValueError(f"--settings takes Q,N pairs such as 0.005,500; got {' '.join(items)}") from None


def _tag(value: float) -> str:
    return f"{value:g}"


def result_path(out_dir, *, epsilon: float, delta: float, q: float, steps: int, seed: int) -> Path:
    """``out_dir/eps=E_delta=D/q=Q_n=N_seed=S.json``."""
    return Path(out_dir) / f"eps={_tag(epsilon)}_delta={_tag(delta)}" / f"q={_tag(q)}_n={steps}_seed={seed}.json"


def clip_only_path(out_dir, *, q: float, steps: int, seed: int, data_name: str) -> Path:
    """``out_dir/clip_only/<data set>_q=Q_n=N_seed=S.json``: the clipping-only run shared by the targets."""
    slug = "".join(c if c.isalnum() else "-" for c in data_name.lower())
    return Path(out_dir) / "clip_only" / f"{slug}_q={_tag(q)}_n={steps}_seed={seed}.json"


def checkpoint_path(out_dir, *, q: float, steps: int, seed: int, data_name: str) -> Path:
    """``out_dir/checkpoints/<data set>_q=Q_n=N_seed=S.pt``: the state of the runs of one setting and seed while they
    train (:mod:`accountbook.dpsgd.checkpoint`), removed once their results are stored."""
    slug = "".join(c if c.isalnum() else "-" for c in data_name.lower())
    return Path(out_dir) / "checkpoints" / f"{slug}_q={_tag(q)}_n={steps}_seed={seed}.pt"


def load_results(out_dir) -> list[dict]:
    """Every stored paired result under ``out_dir`` (see :func:`run_setting`), sorted by target and setting."""
    import json

    paths = sorted(Path(out_dir).glob("eps=*/*.json"))
    results = [json.loads(p.read_text()) for p in paths]
    return sorted(results, key=lambda r: (r["epsilon"], r["delta"], r["q"], r["steps"], r["seed"]))


def t_interval(values) -> tuple[float, float]:
    """Mean and Student-t 95% half-width (nan with fewer than two values)."""
    from scipy import stats

    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float(values.mean()), float("nan")
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values))
    return float(values.mean()), float(half)


DIVERGED_LOSS = 10 * math.log(10)
"""A run whose final test cross-entropy exceeds this (ten times a uniform guess's, ln 10), or is not finite, has
diverged: :func:`summarise` counts it and does not average it."""


def diverged(run: dict) -> bool:
    """Whether one stored run diverged (its final test cross-entropy above :data:`DIVERGED_LOSS`, or not finite)."""
    loss = run["cross_entropy"]
    return not (math.isfinite(loss) and loss <= DIVERGED_LOSS)


RUN_NAMES = (("zcdp", "Z"), ("rdp", "R"), ("clip_only", "0"))
"""The three runs of a seed and their letters in the paper's tables: zCDP-, RDP-calibrated and clipping-only."""


def summarise(results: list[dict]) -> list[dict]:
    """One row per (target, q, n) in the shape of the paper's Tables 3–4.

    ``Acc_Z``, ``Acc_R``, ``Acc_0``: mean final test accuracies in percent; ``L_Z``, ``L_R``, ``L_0``: mean final test
    cross-entropies; each with its Student-t 95% half-width over seeds (``Acc_Z_half`` …; nan with one seed).
    ``dL = L_Z − L_R`` and ``dAcc = Acc_R − Acc_Z`` (positive favours RDP): paired means over seeds with their 95%
    half-widths. ``epochs`` = nq, the expected number of passes. A cell with a diverged run (:func:`diverged`) is not
    averaged: its mean and half-width are nan and ``diverged_Z`` (…) counts the diverged runs; paired differences
    involving it are nan too.
    """
    groups: dict[tuple, list[dict]] = {}
    for r in results:
        groups.setdefault((r["epsilon"], r["delta"], r["q"], r["steps"]), []).append(r)
    rows = []
    for (epsilon, delta, q, steps), group in groups.items():
        row = {"epsilon": epsilon, "delta": delta, "q": q, "n": steps, "epochs": q * steps, "seeds": len(group),
               "z_rdp": group[0]["z_rdp"], "z_zcdp": group[0]["z_zcdp"]}
        final = {}
        for name, letter in RUN_NAMES:
            bad = sum(diverged(r["runs"][name]) for r in group)
            row[f"diverged_{letter}"] = bad
            for key, label, scale in (("accuracy", "Acc", 100), ("cross_entropy", "L", 1)):
                values = scale * np.array([r["runs"][name][key] for r in group], dtype=float)
                final[name, key] = values if not bad else np.full(len(group), math.nan)
                row[f"{label}_{letter}"], row[f"{label}_{letter}_half"] = (
                    t_interval(values) if not bad else (math.nan, math.nan))
        row["dL"], row["dL_half"] = t_interval(final["zcdp", "cross_entropy"] - final["rdp", "cross_entropy"])
        row["dAcc"], row["dAcc_half"] = t_interval(final["rdp", "accuracy"] - final["zcdp", "accuracy"])
        rows.append(row)
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


def endpoint_contrast(results: list[dict], *, epsilon: float, delta: float = 1e-5, ends=(250, 2000)) -> dict:
    """The paper's endpoint contrast (§5.2): per seed, the paired accuracy difference Acc_R − Acc_Z (points) at
    q = 0.01 and n = ``ends[1]`` minus that at n = ``ends[0]``; the two-sided one-sample t-test of the seeds'
    contrasts against zero. Returns ``{"mean", "p", "seeds"}`` (p nan with fewer than two seeds)."""
    from scipy import stats

    by_end = [{r["seed"]: 100 * (r["runs"]["rdp"]["accuracy"] - r["runs"]["zcdp"]["accuracy"]) for r in results
               if r["epsilon"] == epsilon and r["delta"] == delta and r["q"] == 0.01 and r["steps"] == n}
              for n in ends]
    seeds = sorted(set(by_end[0]) & set(by_end[1]))
    contrast = np.array([by_end[1][seed] - by_end[0][seed] for seed in seeds])
    p = float(stats.ttest_1samp(contrast, 0.0).pvalue) if len(seeds) >= 2 else float("nan")
    return {"mean": float(contrast.mean()) if len(seeds) else float("nan"), "p": p, "seeds": len(seeds)}


def coverage(results: list[dict]) -> dict:
    """The seeds stored for each (ε, δ, q, n): ``{(ε, δ, q, n): [seeds]}`` over the paper's targets and settings
    (empty lists where nothing is stored), so that what is trained can be printed beside what the paper ran."""
    found = {(e, d, q, n): [] for e, d in PAPER_TARGETS for q, n in paper_settings()}
    for r in results:
        found.setdefault((r["epsilon"], r["delta"], r["q"], r["steps"]), []).append(r["seed"])
    return {key: sorted(seeds) for key, seeds in found.items()}


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
