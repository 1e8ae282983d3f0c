"""The runs of one (setting, seed) trained together, in one pass over the shared minibatches.

The runs of one setting and seed — clipping-only, and the RDP- and zCDP-calibrated runs of every privacy
target — start from the same initialisation, see the same Poisson minibatches and (the private ones) draw
the same standard-normal noise; they differ only in the noise multiplier. :func:`train_runs_together`
trains them side by side, step by step:

* one Poisson sampler: each minibatch is drawn and collated once for all runs;
* one noise draw per parameter and step, scaled by each run's ``z·C`` (the single-run path draws the same
  standard normals from the same stream, :func:`accountbook.dpsgd.train_run`);
* each run's clipped sum by :func:`accountbook.dpsgd.layerwise_clipped_sum`, the models laid out channels-last
  and the minibatch taken in cache-sized parts (as ``train_run``'s layerwise path does for its one model);
* the SGD update (weight decay, the cosine learning rate) as ``torch.optim.SGD`` applies it;
* the test metrics every 25 steps in chunks of :data:`EVAL_CHUNK` images (cache-sized), pooling before
  the ReLU (the same function);
* given a ``checkpoint`` file, the state after each evaluation saved there, and resumed from it by a later call
  (:mod:`accountbook.dpsgd.checkpoint`): a stopped sweep loses at most the steps since the last evaluation.

Each run therefore takes the steps that ``train_run`` takes alone, to float32 rounding (tested in
``tests/book/test_dpsgd.py``). Stacking the runs' convolutions was tried and not taken: the second as one grouped
convolution over the shared batch costs what the five separate ones cost (``benchmarks/bench_dpsgd_batched.py``
times both), and the first as one convolution with all the runs' channels, though its forward pass is cheaper,
cost more CPU time end to end once its output was split by run and the runs' gradients joined again for the
per-example products.
"""

from __future__ import annotations

import itertools
import math
import time

from .checkpoint import check_checkpoint_path, job_key, load_checkpoint, save_checkpoint
from .data import Dataset
from .training import (CLIP, EVAL_EVERY, LEARNING_RATE, MEMORY_FORMATS, MICRO_BATCH, WEIGHT_DECAY, build_model,
                       cosine_factor, layerwise_clipped_sum)

__all__ = ["train_runs_together", "evaluate_in_chunks", "EVAL_CHUNK"]

EVAL_CHUNK = 250
"""Test images evaluated at once by :func:`evaluate_in_chunks` (small enough for the CPU's caches)."""


def evaluate_in_chunks(model, x, y, chunk: int = EVAL_CHUNK) -> tuple[float, float]:
    """Test accuracy and mean cross-entropy of ``model`` on the arrays ``x``, ``y``, ``chunk`` images at a
    time, ReLU-then-pool evaluated as pool-then-ReLU with the fast pooling (the same function)."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    from .pooling import pooling_of

    layers = list(model)
    correct, loss = 0, 0.0
    with torch.no_grad():
        for start in range(0, len(y), chunk):
            h = torch.from_numpy(x[start:start + chunk])
            labels = torch.from_numpy(y[start:start + chunk])
            k = 0
            while k < len(layers):
                layer = layers[k]
                if isinstance(layer, nn.ReLU) and k + 1 < len(layers) and isinstance(layers[k + 1], nn.MaxPool2d):
                    h, k = torch.relu(pooling_of(layers[k + 1])(h)), k + 2
                    continue
                h = (pooling_of(layer) if isinstance(layer, nn.MaxPool2d) else layer)(h)
                k += 1
            loss += float(F.cross_entropy(h, labels, reduction="sum"))
            correct += int((h.argmax(1) == labels).sum())
    return correct / len(y), loss / len(y)


def consistent_state(saved: dict, *, runs: int, steps: int, eval_every: int, epoch: int):
    """``(step, in_epoch, cpu_seconds, histories)`` of a loaded checkpoint, or ``ValueError`` if they do not fit
    together: a step before the last, a position within the sampler's epoch, one model and one history per run,
    each history the evaluations up to the step."""
    step, in_epoch, spent, histories = saved["step"], saved["in_epoch"], saved["cpu_seconds"], saved["histories"]
    evaluated = list(range(eval_every, step + 1, eval_every)) if isinstance(step, int) else None
    if not (isinstance(step, int) and 0 < step < steps and isinstance(in_epoch, int) and 0 < in_epoch <= epoch
            and isinstance(spent, float) and spent >= 0 and len(saved["models"]) == runs
            and isinstance(histories, list) and len(histories) == runs
            and all([h.get("step") for h in history] == evaluated for history in histories)):
        raise ValueError("the checkpoint's contents do not fit together")
    return step, in_epoch, spent, histories


def train_runs_together(data: Dataset, *, q: float, steps: int, noise_multipliers, seed: int,
                        eval_every: int = EVAL_EVERY, model_options: dict | None = None,
                        memory_format: str = "channels_last", micro_batch: int | None = MICRO_BATCH,
                        checkpoint=None) -> list[dict]:
    """The DP-SGD runs of one setting and seed, one per noise multiplier, trained together.

    Parameters
    ----------
    data : Dataset
        Training and test images (:func:`accountbook.dpsgd.load_data`).
    q : float
        The Poisson sampling rate, in (0, 1].
    steps : int
        The number of steps, ≥ 1.
    noise_multipliers : sequence of float
        One run per value (0 for a clipping-only run), each finite and ≥ 0.
    seed : int
        Fixes the initialisation, the sampling stream and the noise stream as in
        :func:`accountbook.dpsgd.train_run`: run ``r`` takes the steps of
        ``train_run(data, q=q, steps=steps, noise_multiplier=noise_multipliers[r], seed=seed)``, to float32
        rounding.
    eval_every : int
        Test metrics every ``eval_every`` steps and at the last.
    model_options : dict, optional
        Keyword arguments of :func:`accountbook.dpsgd.build_model` (the chapter's ablation).
    memory_format : {"channels_last", "contiguous"}
        The activations' layout, as in :func:`accountbook.dpsgd.train_run` (channels-last by default: about
        half the CPU time of NCHW; the same values to float32 rounding).
    micro_batch : int or None
        Each run's clipped sum takes the minibatch in parts of at most this many examples
        (:data:`accountbook.dpsgd.training.MICRO_BATCH`; ``None``: at once), as in :func:`train_run`.
    checkpoint : path, optional
        A file for the runs' state, written (atomically) after each evaluation but the last; a call that finds
        there a checkpoint of the same job (:func:`accountbook.dpsgd.checkpoint.job_key`: the data's arrays, the
        setting, seed, multipliers, evaluation interval, model, layout and training code) resumes from it and takes
        the steps an uninterrupted call takes. The caller deletes it once the results are stored
        (:func:`accountbook.dpsgd.train_setting` does).

    Returns
    -------
    list of dict
        Per noise multiplier, ``{"accuracy", "cross_entropy", "history"}`` as :func:`train_run` returns, and
        ``"cpu_seconds"``: its equal share of the CPU time (``time.process_time``) of training them, counting the
        time spent before a resumed checkpoint.

    Examples
    --------
    >>> from accountbook import dpsgd
    >>> data = dpsgd.load_data(dataset="digits")
    >>> clip_only, noisy = dpsgd.train_runs_together(data, q=0.05, steps=20, noise_multipliers=[0, 2], seed=0,
    ...                                              eval_every=10)
    >>> [h["step"] for h in noisy["history"]]
    [10, 20]
    """
    import copy

    import torch
    from opacus.data_loader import DPDataLoader
    from torch.utils.data import TensorDataset

    try:
        multipliers = [float(z) for z in noise_multipliers]
    except (TypeError, ValueError):
        raise ValueError(f"noise_multipliers must be a sequence of numbers; got {noise_multipliers!r}") from None
    if not multipliers:
        raise ValueError("noise_multipliers must hold at least one value")
    for i, z in enumerate(multipliers):
        if not (math.isfinite(z) and z >= 0):
            raise ValueError(f"noise_multipliers[{i}] must be finite and >= 0; got {z!r}")
    if not 0 < q <= 1:
        raise ValueError(f"q must be in (0, 1]; got {q!r}")
    if not (isinstance(steps, int) and steps >= 1):
        raise ValueError(f"steps must be a positive integer; got {steps!r}")
    if not (isinstance(eval_every, int) and eval_every >= 1):
        raise ValueError(f"eval_every must be a positive integer; got {eval_every!r}")
    if memory_format not in MEMORY_FORMATS:
        raise ValueError(f"memory_format must be one of {MEMORY_FORMATS}; got {memory_format!r}")
    started = time.process_time()
    torch.manual_seed(seed)
    first = build_model(data.x_train.shape[-1], **(model_options or {}))
    if memory_format == "channels_last":
        first = first.to(memory_format=torch.channels_last)
    models = [first] + [copy.deepcopy(first) for _ in multipliers[1:]]
    sums = [layerwise_clipped_sum(model, micro_batch) for model in models]
    params = [list(model.parameters()) for model in models]
    dataset = TensorDataset(torch.from_numpy(data.x_train), torch.from_numpy(data.y_train))
    sampling = torch.Generator().manual_seed(10_000 + seed)
    noise = torch.Generator().manual_seed(20_000 + seed)
    loader = DPDataLoader(dataset, sample_rate=q, generator=sampling)
    expected_batch_size = q * len(dataset)
    noisy = any(multipliers)
    histories = [[] for _ in multipliers]
    step, in_epoch, spent_before = 0, 0, 0.0  # steps taken, of which in the sampler's current epoch; CPU s before
    if checkpoint is not None:
        checkpoint = check_checkpoint_path(checkpoint)  # before the job key hashes the data
    key = None if checkpoint is None else job_key(
        data, q=q, steps=steps, multipliers=multipliers, seed=seed, eval_every=eval_every,
        model_options=model_options, memory_format=memory_format, micro_batch=micro_batch)
    saved = None if checkpoint is None else load_checkpoint(checkpoint, key)
    if saved is not None:
        fresh = copy.deepcopy(models[0].state_dict())
        try:
            step, in_epoch, spent_before, histories = consistent_state(saved, runs=len(multipliers), steps=steps,
                                                                       eval_every=eval_every, epoch=len(loader))
            for model, state in zip(models, saved["models"], strict=True):
                model.load_state_dict(state)
            noise.set_state(saved["noise"])
            torch.Generator().set_state(saved["sampling"])  # a valid generator state, set below
        except (AttributeError, KeyError, TypeError, ValueError, RuntimeError):  # inconsistent: from step 0
            for model in models:
                model.load_state_dict(fresh)
            noise.manual_seed(20_000 + seed)
            step, in_epoch, spent_before, histories, saved = 0, 0, 0.0, [[] for _ in multipliers], None

    def save():
        save_checkpoint(checkpoint, {
            "job": key, "step": step, "in_epoch": in_epoch, "models": [model.state_dict() for model in models],
            "sampling": sampling.get_state(), "noise": noise.get_state(), "histories": histories,
            "cpu_seconds": spent_before + time.process_time() - started})

    while step < steps:
        batches = iter(loader)  # a new epoch of the sampler (creating it may draw from the sampling generator)
        if saved is not None:  # resumed mid-epoch: the sampler's state after the epoch's first in_epoch batches
            sampling.set_state(saved["sampling"])
            saved = None
        else:
            in_epoch = 0
        for xb, yb in itertools.islice(batches, len(loader) - in_epoch):  # (a resumed epoch: the rest of it)
            in_epoch += 1
            lr = LEARNING_RATE * cosine_factor(step)  # LambdaLR's factor at this step
            summed = [clipped_sum(xb, yb) for clipped_sum in sums]
            with torch.no_grad():
                for j in range(len(params[0])):
                    # one standard-normal draw per parameter, shared by the runs (train_run's stream)
                    draw = torch.normal(mean=0, std=1.0, size=params[0][j].shape, generator=noise) if noisy else None
                    for r, z in enumerate(multipliers):
                        g = summed[r][j]
                        if z:
                            g = g + (z * CLIP) * draw
                        p = params[r][j]
                        p.add_((g / expected_batch_size).add(p, alpha=WEIGHT_DECAY), alpha=-lr)  # SGD's update
            step += 1
            if step % eval_every == 0 or step == steps:
                for history, model in zip(histories, models):
                    accuracy, loss = evaluate_in_chunks(model, data.x_test, data.y_test)
                    history.append({"step": step, "accuracy": accuracy, "cross_entropy": loss})
                if checkpoint is not None and step < steps:
                    save()
            if step >= steps:
                break
    share = (spent_before + time.process_time() - started) / len(multipliers)
    return [{"accuracy": h[-1]["accuracy"], "cross_entropy": h[-1]["cross_entropy"], "history": h,
             "cpu_seconds": share} for h in histories]
