"""DP-SGD: calibration against Opacus, the IDX reader, paired runs, a tiny training run."""

import gzip
import math
import struct

import numpy as np
import pytest

from accountlib import rdp

torch = pytest.importorskip("torch")
opacus = pytest.importorskip("opacus")
from accountlib import dpsgd  # noqa: E402


def test_rdp_epsilon_agrees_with_opacus_on_its_order_grid():
    from opacus.accountants import RDPAccountant
    from opacus.accountants.analysis import rdp as opacus_rdp

    q, z, n, delta = 0.01, 1.1, 500, 1e-5
    orders = RDPAccountant.DEFAULT_ALPHAS
    theirs, _ = opacus_rdp.get_privacy_spent(orders=orders, rdp=opacus_rdp.compute_rdp(
        q=q, noise_multiplier=z, steps=n, orders=orders), delta=delta)
    mechanism = rdp.PoissonSubsampledGaussian(q, z)
    on_grid = min(n * mechanism.cgf(a - 1, 1.0) / (a - 1) - (math.log(delta) + math.log(a)) / (a - 1)
                  + math.log((a - 1) / a) for a in orders)
    assert on_grid == pytest.approx(theirs, rel=1e-9)
    continuous = rdp.rdp_to_epsilon(lambda a: n * mechanism.cgf(a - 1, 1.0) / (a - 1), delta, alpha_max=1e4)
    assert continuous <= theirs * (1 + 1e-12)  # an infimum over all orders is at most the grid's minimum
    assert continuous == pytest.approx(theirs, rel=1e-5)


def write_idx(path, array):
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    with gzip.open(path, "wb") as handle:
        handle.write(header + array.astype(np.uint8).tobytes())


def test_idx_reader_and_fashion_mnist_loading(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(12, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=12, dtype=np.uint8)
    assert np.array_equal(dpsgd.read_idx(write_idx(tmp_path / "x.gz", images) or tmp_path / "x.gz"), images)
    write_idx(tmp_path / "train-images-idx3-ubyte.gz", images)
    write_idx(tmp_path / "train-labels-idx1-ubyte.gz", labels)
    write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", images[:4])
    write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", labels[:4])
    data = dpsgd.load_data(tmp_path)
    assert data.name == "Fashion-MNIST" and data.x_train.shape == (12, 1, 28, 28) and data.y_test.shape == (4,)
    (tmp_path / "bad.gz").write_bytes(gzip.compress(b"\x01\x02\x03\x04"))
    with pytest.raises(ValueError, match="not an IDX file"):
        dpsgd.read_idx(tmp_path / "bad.gz")


def test_fallback_data_says_so():
    data = dpsgd.load_data(None)
    assert data.name == "scikit-learn digits" and "NOT FOUND" in data.note
    assert data.x_train.shape[1:] == (1, 8, 8)


def test_pairing_same_streams_give_identical_runs_and_training_learns():
    data = dpsgd.load_data(None)
    a = dpsgd.train_run(data, q=0.05, steps=40, noise_multiplier=0.0, seed=3, eval_every=20)
    b = dpsgd.train_run(data, q=0.05, steps=40, noise_multiplier=0.0, seed=3, eval_every=20)
    assert a["history"] == b["history"]
    noisy = dpsgd.train_run(data, q=0.05, steps=40, noise_multiplier=5.0, seed=3, eval_every=20)
    assert noisy["history"] != a["history"]
    assert a["cross_entropy"] < math.log(10)  # better than the uniform guess after 40 steps


def test_empty_poisson_batches_add_noise_only():
    """At q = 0.001 on 1,437 images a quarter of the batches are empty; DP-SGD still steps (noise alone)."""
    data = dpsgd.load_data(None)
    run = dpsgd.train_run(data, q=0.001, steps=30, noise_multiplier=1.0, seed=0, eval_every=15)
    assert len(run["history"]) == 2 and all(math.isfinite(h["cross_entropy"]) for h in run["history"])


def test_run_setting_stores_resumes_and_shares_the_clipping_only_run(tmp_path):
    data = dpsgd.load_data(None)
    first = dpsgd.run_setting(data, q=0.05, steps=10, epsilon=3.0, delta=1e-5, seed=1, out_dir=tmp_path, eval_every=5)
    assert set(first["runs"]) == {"rdp", "zcdp", "clip_only"} and first["data"] == data.name
    assert dpsgd.run_setting(data, q=0.05, steps=10, epsilon=3.0, delta=1e-5, seed=1, out_dir=tmp_path) == first
    other = dpsgd.run_setting(data, q=0.05, steps=10, epsilon=5.0, delta=1e-5, seed=1, out_dir=tmp_path, eval_every=5)
    assert other["runs"]["clip_only"] == first["runs"]["clip_only"] and other["z_rdp"] < first["z_rdp"]
    assert len(list((tmp_path / "clip_only").glob("*.json"))) == 1
    assert len(dpsgd.load_results(tmp_path)) == 2
