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

__all__ = ["read_idx", "load_data", "Dataset", "build_model", "train_run", "paired_runs", "LEARNING_RATE",
           "SCHEDULE_STEPS"]

LEARNING_RATE = 0.05
WEIGHT_DECAY = 1e-4
SCHEDULE_STEPS = 2000
CLIP = 1.0


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
              eval_every: int = 50) -> dict:
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
    while step < steps:
        for xb, yb in loader:
            optimizer.zero_grad()
            if len(yb):
                criterion(model(xb), yb).backward()
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
                eval_every: int = 50) -> dict:
    """The zCDP-calibrated, RDP-calibrated and clipping-only runs of one setting and seed (paired)."""
    from .rdp import calibrate_dpsgd

    z_rdp = calibrate_dpsgd(q, steps, epsilon, delta, "rdp")
    z_zcdp = calibrate_dpsgd(q, steps, epsilon, delta, "zcdp")
    runs = {name: train_run(data, q=q, steps=steps, noise_multiplier=z, seed=seed, eval_every=eval_every)
            for name, z in (("rdp", z_rdp), ("zcdp", z_zcdp), ("clip_only", 0.0))}
    return {"q": q, "steps": steps, "epsilon": epsilon, "delta": delta, "seed": seed, "z_rdp": z_rdp,
            "z_zcdp": z_zcdp, "runs": runs}
