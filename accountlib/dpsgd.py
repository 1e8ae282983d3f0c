"""DP-SGD with Opacus, calibrated by RDP or by zCDP (unifying paper §5.2, Appendix D.4).

Optional extra ``dpsgd`` (``torch==2.13.0``, CPU build, then ``opacus``). The accounting itself
(:func:`accountlib.rdp.calibrate_dpsgd`) needs no torch; this module trains.

Setup, as in the paper: a CNN with two convolution + max-pool stages and a 64-unit hidden layer
(no batch norm); Opacus with Poisson sampling at rate q, flat per-example clipping at C = 1, noise
once per step, gradients divided by the expected batch size qN; SGD with learning rate 0.05, no
momentum, weight decay 1e-4, and a cosine schedule over 2000 steps shared by every horizon.

Pairing: for one seed, the zCDP-calibrated, RDP-calibrated and clipping-only runs start from the
same initialisation and see the same Poisson minibatches (one sampling generator per seed), and the
two private runs draw their Gaussian noise from the same standard-normal stream.

Data: Fashion-MNIST when its IDX files are in ``data_dir``; otherwise scikit-learn's bundled
handwritten digits (real 8×8 images that ship inside scikit-learn), and :func:`load_data` says so.
"""

from __future__ import annotations

import gzip
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["read_idx", "load_data", "Dataset", "build_model", "train_run", "paired_runs", "run_setting",
           "load_results", "summarise", "seedwise_trend", "paper_settings", "PAPER_TARGETS", "LEARNING_RATE",
           "SCHEDULE_STEPS", "EVAL_EVERY"]

LEARNING_RATE = 0.05
WEIGHT_DECAY = 1e-4
SCHEDULE_STEPS = 2000
CLIP = 1.0
EVAL_EVERY = 25  # test metrics every 25 steps, as in the paper (Appendix D.4.1)
PAPER_TARGETS = ((3.0, 1e-5), (5.0, 1e-5))


def read_idx(path) -> np.ndarray:
    """Read an IDX file (optionally gzipped): magic 0x0000 08 NN, NN dimensions of big-endian uint32 sizes."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        data = handle.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path.name} is not an IDX file (bad magic number)")
    if data[2] != 0x08:
        raise ValueError(f"{path.name}: only unsigned-byte IDX data (type 0x08) is supported; got {data[2]:#04x}")
    dims = data[3]
    shape = struct.unpack(f">{dims}I", data[4:4 + 4 * dims])
    body = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims)
    if body.size != math.prod(shape):
        raise ValueError(f"{path.name}: header says {shape} but holds {body.size} values")
    return body.reshape(shape)


@dataclass
class Dataset:
    name: str
    x_train: np.ndarray  # float32, shape (n, 1, h, w), scaled to [0, 1]
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    note: str


def _standardise(data: Dataset) -> Dataset:
    """Centre and scale pixels by the training set's mean and standard deviation (one scalar each)."""
    mean, std = float(data.x_train.mean()), float(data.x_train.std())
    data.x_train = ((data.x_train - mean) / std).astype(np.float32)
    data.x_test = ((data.x_test - mean) / std).astype(np.float32)
    return data


def load_data(data_dir=None, *, seed: int = 0) -> Dataset:
    """Fashion-MNIST from ``data_dir`` if its four IDX files are there, else scikit-learn's digits (said so).

    Pixels are standardised with the training set's mean and standard deviation.
    """
    if data_dir is not None:
        folder = Path(data_dir)
        names = {key: sorted(folder.glob(f"{prefix}*-{kind}-idx{d}-ubyte.gz"))
                 for key, prefix, kind, d in (("xtr", "train", "images", 3), ("ytr", "train", "labels", 1),
                                              ("xte", "t10k", "images", 3), ("yte", "t10k", "labels", 1))}
        if all(names.values()):
            arrays = {key: read_idx(paths[0]) for key, paths in names.items()}
            scale = lambda x: (x.astype(np.float32) / 255.0)[:, None, :, :]
            return _standardise(Dataset("Fashion-MNIST", scale(arrays["xtr"]), arrays["ytr"].astype(np.int64),
                                        scale(arrays["xte"]), arrays["yte"].astype(np.int64),
                                        f"Fashion-MNIST from {folder}"))
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0)[:, None, :, :]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    cut = int(0.8 * len(y))
    train, test = order[:cut], order[cut:]
    note = ("FASHION-MNIST NOT FOUND: trained on scikit-learn's bundled handwritten digits (1,797 real 8x8 "
            "images), not on the paper's data; accuracies are not comparable with the paper's.")
    return _standardise(Dataset("scikit-learn digits", x[train], y[train], x[test], y[test], note))


def build_model(image_size: int, classes: int = 10):
    """Two convolution + max-pool stages, a 64-unit hidden layer, no batch norm."""
    from torch import nn

    side = image_size // 4
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * side * side, 64), nn.ReLU(), nn.Linear(64, classes),
    )


def _evaluate(model, x, y) -> tuple[float, float]:
    import torch

    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(x))
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(y)).item()
        accuracy = (logits.argmax(1).numpy() == y).mean().item()
    model.train()
    return accuracy, loss


def train_run(data: Dataset, *, q: float, steps: int, noise_multiplier: float, seed: int,
              eval_every: int = EVAL_EVERY) -> dict:
    """One DP-SGD run; returns the final test accuracy and cross-entropy and the evaluation history.

    ``seed`` fixes the initialisation, the Poisson sampling stream and the noise stream, so runs with
    the same seed and different ``noise_multiplier`` are paired (the noise is z·C·N with shared N).
    """
    import warnings

    import torch
    from opacus import PrivacyEngine
    from opacus.data_loader import DPDataLoader
    from torch.utils.data import TensorDataset

    if not 0 < q <= 1:
        raise ValueError(f"q must be in (0, 1]; got {q!r}")
    torch.manual_seed(seed)
    model = build_model(data.x_train.shape[-1])
    dataset = TensorDataset(torch.from_numpy(data.x_train), torch.from_numpy(data.y_train))
    sampling = torch.Generator().manual_seed(10_000 + seed)
    noise = torch.Generator().manual_seed(20_000 + seed)
    loader = DPDataLoader(dataset, sample_rate=q, generator=sampling)
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=0.0, weight_decay=WEIGHT_DECAY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Opacus warns about secure RNG: this is a study, not a deployment
        engine = PrivacyEngine()
        model, optimizer, loader = engine.make_private(
            module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=noise_multiplier,
            max_grad_norm=CLIP, poisson_sampling=False, noise_generator=noise)
    optimizer.expected_batch_size = q * len(dataset)  # divide by qN exactly
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer.original_optimizer, lambda t: 0.5 * (1 + math.cos(math.pi * min(t, SCHEDULE_STEPS) / SCHEDULE_STEPS)))
    history, step = [], 0
    criterion = torch.nn.CrossEntropyLoss()
    empty_criterion = torch.nn.CrossEntropyLoss(reduction="sum")
    while step < steps:
        for xb, yb in loader:
            optimizer.zero_grad()
            # an empty Poisson batch still needs its (empty) per-sample gradients: Opacus then adds the noise
            # alone, as DP-SGD prescribes; the sum-reduced loss of an empty batch is 0, not nan
            loss = criterion(model(xb), yb) if len(yb) else empty_criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            schedule.step()
            step += 1
            if step % eval_every == 0 or step == steps:
                accuracy, loss = _evaluate(model, data.x_test, data.y_test)
                history.append({"step": step, "accuracy": accuracy, "cross_entropy": loss})
            if step >= steps:
                break
    return {"accuracy": history[-1]["accuracy"], "cross_entropy": history[-1]["cross_entropy"], "history": history}


def paired_runs(data: Dataset, *, q: float, steps: int, epsilon: float, delta: float, seed: int,
                eval_every: int = EVAL_EVERY, clip_only: dict | None = None) -> dict:
    """The zCDP-calibrated, RDP-calibrated and clipping-only runs of one setting and seed (paired).

    ``clip_only`` reuses a clipping-only run of the same (q, steps, seed) — it does not depend on the
    privacy target — instead of training it again.
    """
    from .rdp import calibrate_dpsgd

    z_rdp = calibrate_dpsgd(q, steps, epsilon, delta, "rdp")
    z_zcdp = calibrate_dpsgd(q, steps, epsilon, delta, "zcdp")
    common = dict(q=q, steps=steps, seed=seed, eval_every=eval_every)
    runs = {"rdp": train_run(data, noise_multiplier=z_rdp, **common),
            "zcdp": train_run(data, noise_multiplier=z_zcdp, **common),
            "clip_only": clip_only if clip_only is not None else train_run(data, noise_multiplier=0.0, **common)}
    return {"q": q, "steps": steps, "epsilon": epsilon, "delta": delta, "seed": seed, "z_rdp": z_rdp,
            "z_zcdp": z_zcdp, "data": data.name, "train_size": int(len(data.y_train)),
            "test_size": int(len(data.y_test)), "runs": runs}


# -- the paper's sweeps, one results file per (target, setting, seed) ---------------------------


def paper_settings() -> list[tuple[float, int]]:
    """The nine distinct (q, n) settings of the two sweeps (q at n = 500; n at q = 0.01), Table 3's order."""
    by_q = [(q, 500) for q in (0.005, 0.0075, 0.01, 0.02, 0.05)]
    by_n = [(0.01, n) for n in (250, 1000, 1500, 2000)]
    return by_q + by_n


def _tag(value: float) -> str:
    return f"{value:g}"


def result_path(out_dir, *, epsilon: float, delta: float, q: float, steps: int, seed: int) -> Path:
    """``out_dir/eps=E_delta=D/q=Q_n=N_seed=S.json``."""
    return Path(out_dir) / f"eps={_tag(epsilon)}_delta={_tag(delta)}" / f"q={_tag(q)}_n={steps}_seed={seed}.json"


def _clip_only_path(out_dir, *, q: float, steps: int, seed: int, data_name: str) -> Path:
    slug = "".join(c if c.isalnum() else "-" for c in data_name.lower())
    return Path(out_dir) / "clip_only" / f"{slug}_q={_tag(q)}_n={steps}_seed={seed}.json"


def _cached_run(path: Path, train):
    import json

    from .sweep import write_text_atomically

    if path.is_file():
        return json.loads(path.read_text())
    result = train()
    write_text_atomically(path, json.dumps(result, indent=1))
    return result


def run_setting(data: Dataset, *, q: float, steps: int, epsilon: float, delta: float, seed: int, out_dir,
                eval_every: int = EVAL_EVERY) -> dict:
    """The paired zCDP / RDP / clipping-only runs of one setting and seed, written to one JSON file.

    Re-running returns the stored file without training. The clipping-only run does not depend on the
    privacy target, so it is stored once under ``out_dir/clip_only/`` and shared by both targets (as in
    the paper, Appendix D.4.1). Files are written atomically: an interrupted sweep loses only the run
    in flight.
    """
    path = result_path(out_dir, epsilon=epsilon, delta=delta, q=q, steps=steps, seed=seed)

    def train_all() -> dict:
        clip_only = _cached_run(_clip_only_path(out_dir, q=q, steps=steps, seed=seed, data_name=data.name),
                                lambda: train_run(data, q=q, steps=steps, noise_multiplier=0.0, seed=seed,
                                                  eval_every=eval_every))
        return paired_runs(data, q=q, steps=steps, epsilon=epsilon, delta=delta, seed=seed, eval_every=eval_every,
                           clip_only=clip_only)

    return _cached_run(path, train_all)


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
