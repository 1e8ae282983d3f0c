"""The data: Fashion-MNIST's IDX files (the Debian package ``dataset-fashion-mnist`` or a folder), else the book's
sample of them (shipped as package data), or scikit-learn's bundled digits; standardised, optionally subsampled."""

from __future__ import annotations

import gzip
import math
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accountlib.infrastructure.atomic import read_capped

MAX_IDX_BYTES = 1 << 26
"""The most bytes :func:`read_idx` reads (decompressed): 64 MiB, above Fashion-MNIST's largest file (47 MB)."""


def read_idx(path) -> np.ndarray:
    """Read an IDX file (optionally gzipped): magic 0x0000 08 NN, NN dimensions of big-endian uint32 sizes.

    At most :data:`MAX_IDX_BYTES` bytes are read, counted after decompression (a small gzip bomb is refused
    after 64 MiB, not inflated whole); a truncated header or body raises ``ValueError`` naming the file."""
    path = Path(path)
    try:
        data = read_capped(path, MAX_IDX_BYTES, opener=gzip.open if path.suffix == ".gz" else None)
    except (OSError, EOFError, zlib.error) as error:  # gzip.BadGzipFile is an OSError
        raise ValueError(f"{path.name}: cannot be read ({type(error).__name__}: {error})") from None
    except ValueError as error:
        raise ValueError(f"{path.name}: {error}") from None
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{path.name} is not an IDX file (bad magic number)")
    if data[2] != 0x08:
        raise ValueError(f"{path.name}: only unsigned-byte IDX data (type 0x08) is supported; got {data[2]:#04x}")
    dims = data[3]
    if len(data) < 4 + 4 * dims:
        raise ValueError(f"{path.name}: truncated header (it announces {dims} dimensions, {4 * dims} bytes of sizes, "
                         f"but the file has {len(data)} bytes)")
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


SYSTEM_DATA_DIR = Path("/usr/share/datasets/fashion-mnist")  # Debian/Ubuntu package dataset-fashion-mnist
_IDX_FILES = (("xtr", "train", "images", 3), ("ytr", "train", "labels", 1),
              ("xte", "t10k", "images", 3), ("yte", "t10k", "labels", 1))


def _idx_files(folder: Path) -> dict | None:
    """The four Fashion-MNIST IDX files in ``folder`` (gzipped), or None when any is missing."""
    names = {key: sorted(folder.glob(f"{prefix}*-{kind}-idx{d}-ubyte.gz")) for key, prefix, kind, d in _IDX_FILES}
    return {key: paths[0] for key, paths in names.items()} if all(names.values()) else None


def find_fashion_mnist(data_dir=None) -> Path | None:
    """Where Fashion-MNIST is installed: ``data_dir`` if it holds the four IDX files, else the Debian
    package's folder ``/usr/share/datasets/fashion-mnist`` (``apt-get install dataset-fashion-mnist``),
    else None."""
    for folder in ([Path(data_dir)] if data_dir is not None else []) + [SYSTEM_DATA_DIR]:
        if folder.is_dir() and _idx_files(folder) is not None:
            return folder
    return None


DATASETS = ("auto", "fashion-mnist", "fashion-mnist-sample", "digits")
SAMPLE_DATA = "data/fashion-mnist-sample"
"""The book's sample of Fashion-MNIST (package data of accountbook): the first 3,000 training and 600 test images,
MIT licence (its README and LICENSE)."""
NORMALISATIONS = ("standardise", "unit", "symmetric")
"""Pixel scalings of :func:`load_data`: centred and scaled by the training set's mean and standard deviation
(the default), in [0, 1], or in [-1, 1]."""


def _normalise(data: Dataset, normalise: str) -> Dataset:
    if normalise == "standardise":
        return _standardise(data)
    if normalise == "symmetric":
        data.x_train = (2 * data.x_train - 1).astype(np.float32)
        data.x_test = (2 * data.x_test - 1).astype(np.float32)
    return data


def load_data(data_dir=None, *, dataset: str = "auto", seed: int = 0, subsample: int | None = None,
              normalise: str = "standardise") -> Dataset:
    """Fashion-MNIST (from ``data_dir``, else from the Debian package's folder), its shipped sample, or
    scikit-learn's digits.

    ``dataset``: ``"auto"`` (the default) takes Fashion-MNIST where it is installed and falls back to the book's
    sample of it (the first 3,000 training and 600 test images, shipped with ``accountbook``:
    :data:`SAMPLE_DATA`); ``"fashion-mnist"`` raises when the whole data set is not installed;
    ``"fashion-mnist-sample"`` always takes the sample; ``"digits"`` takes scikit-learn's 8×8 digits.
    Which one was used, and from where, is in the returned ``name`` and ``note``. Pixels are
    standardised with the training set's mean and standard deviation, or with ``normalise="unit"``
    left in [0, 1], with ``"symmetric"`` mapped to [-1, 1] (:data:`NORMALISATIONS`). ``subsample`` keeps that many
    training images (and a fifth as many test images; a seeded random subset, said in the name and
    note) for quick runs.
    """
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}; got {dataset!r}")
    if normalise not in NORMALISATIONS:
        raise ValueError(f"normalise must be one of {NORMALISATIONS}; got {normalise!r}")
    if subsample is not None and not (isinstance(subsample, int) and subsample >= 10):
        raise ValueError(f"subsample must be an integer >= 10 or None; got {subsample!r}")
    folder = None if dataset in ("digits", "fashion-mnist-sample") else find_fashion_mnist(data_dir)
    if folder is None and dataset == "fashion-mnist":
        raise ValueError(f"dataset='fashion-mnist' but no Fashion-MNIST IDX files were found in data_dir={data_dir!r} "
                         f"or in {SYSTEM_DATA_DIR} (Debian/Ubuntu: apt-get install dataset-fashion-mnist); "
                         f"dataset='fashion-mnist-sample' takes the book's sample of it")
    scale = lambda x: (x.astype(np.float32) / 255.0)[:, None, :, :]
    if folder is not None:
        arrays = {key: read_idx(path) for key, path in _idx_files(folder).items()}
        note = f"Fashion-MNIST ({len(arrays['ytr']):,} training and {len(arrays['yte']):,} test images)"
        if data_dir is not None and folder != Path(data_dir):
            note += f"; no IDX files in data_dir, so the installed copy was used"
        data = Dataset("Fashion-MNIST", scale(arrays["xtr"]), arrays["ytr"].astype(np.int64),
                       scale(arrays["xte"]), arrays["yte"].astype(np.int64), note)
        return _subsample(_normalise(data, normalise), subsample, seed)
    if dataset != "digits":  # "auto" without the whole data set, or the sample by name
        from importlib import resources

        with resources.as_file(resources.files("accountbook").joinpath(SAMPLE_DATA)) as sample:
            arrays = {key: read_idx(path) for key, path in _idx_files(Path(sample)).items()}
        note = (f"the book's sample of Fashion-MNIST: its first {len(arrays['ytr']):,} training and "
                f"{len(arrays['yte']):,} test images")
        if dataset == "auto":
            note += (" (the whole data set is not installed: Debian/Ubuntu apt-get install dataset-fashion-mnist, "
                     "or pass data_dir)")
        data = Dataset("Fashion-MNIST sample", scale(arrays["xtr"]), arrays["ytr"].astype(np.int64),
                       scale(arrays["xte"]), arrays["yte"].astype(np.int64), note)
        return _subsample(_normalise(data, normalise), subsample, seed)
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.images.astype(np.float32) / 16.0)[:, None, :, :]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    cut = int(0.8 * len(y))
    train, test = order[:cut], order[cut:]
    note = ("scikit-learn's bundled handwritten digits (1,797 real 8x8 images), not the paper's data: accuracies "
            "are not comparable with the paper's")
    data = _normalise(Dataset("scikit-learn digits", x[train], y[train], x[test], y[test], note), normalise)
    return _subsample(data, subsample, seed)


def _subsample(data: Dataset, size: int | None, seed: int) -> Dataset:
    """Keep a seeded random subset of ``size`` training and ``size // 5`` test images (quick runs)."""
    if size is None or size >= len(data.y_train):
        return data
    rng = np.random.default_rng(1_000 + seed)
    train = np.sort(rng.permutation(len(data.y_train))[:size])
    test = np.sort(rng.permutation(len(data.y_test))[:max(size // 5, 10)])
    return Dataset(f"{data.name} (quick subset)", data.x_train[train], data.y_train[train], data.x_test[test], data.y_test[test],
                   data.note + f"; of these, a random {len(train):,} training and {len(test):,} test images")


def data_slug(name: str) -> str:
    """A folder name for a data set name: ``"Fashion-MNIST"`` → ``"fashion-mnist"``."""
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
