"""Training: the paper's CNN, one DP-SGD run (per-example gradients layer by layer, with torch.func or with
Opacus) and the paired zCDP / RDP / clipping-only runs of one setting and seed; the sweep's stored runs, trained
together, are :mod:`accountbook.dpsgd.jobs`."""

from __future__ import annotations

import math
from pathlib import Path

from .data import Dataset

LEARNING_RATE = 0.05
WEIGHT_DECAY = 1e-4
SCHEDULE_STEPS = 2000
CLIP = 1.0
EVAL_EVERY = 25  # test metrics every 25 steps, as in the paper (Appendix D.4.1)


MODEL_INITS = ("pytorch", "kaiming", "xavier")


MODEL = {"channels": (16, 32), "kernel_size": 5, "padding": "same", "hidden": 64, "init": "pytorch"}
"""The book's CNN, :func:`build_model`'s defaults: what the paper leaves open, chosen by the chapter's ablation
(:mod:`accountbook.dpsgd.ablation`). With 5×5 kernels the clipping-only run reaches the paper's level at the headline
setting (0.005, 500), where the first model (3×3 kernels) sat three points below it, for 1.3–1.7 times its CPU
time. Every run of the sweep records it (:func:`model_description`)."""


def model_description(options: dict | None = None) -> dict:
    """The whole model of :func:`build_model` for the keyword ``options`` (missing ones at :data:`MODEL`'s values),
    as stored with each run: ``{"channels": [16, 32], "kernel_size": 5, ...}``."""
    described = {**MODEL, **(options or {})}
    return {key: list(value) if isinstance(value, tuple) else value for key, value in described.items()}


def build_model(image_size: int, classes: int = 10, *, channels=MODEL["channels"], kernel_size: int = MODEL["kernel_size"],
                padding: str = MODEL["padding"], hidden: int = MODEL["hidden"], init: str = MODEL["init"]):
    """The paper's CNN: two convolution + max-pool stages, a hidden layer, no batch norm.

    The paper (unifying paper, Appendix D.4.1) does not give the widths or kernels; the defaults (:data:`MODEL`)
    are the book's choice, made by the chapter's ablation, and the keyword arguments are the choices it varies:

    channels : pair of int
        Output channels of the two convolutions (default 16 and 32).
    kernel_size : int
        Square kernels (default 5; the first model had 3).
    padding : {"same", "valid"}
        ``"same"``: zero padding ``kernel_size // 2`` (each stage halves the side); ``"valid"``: none.
    hidden : int
        Units of the hidden layer (default 64).
    init : {"pytorch", "kaiming", "xavier"}
        PyTorch's default initialisation, Kaiming-normal (He) weights for ReLU with zero biases, or
        Xavier-uniform weights with zero biases.
    """
    from torch import nn

    if init not in MODEL_INITS:
        raise ValueError(f"init must be one of {MODEL_INITS}; got {init!r}")
    if padding not in ("same", "valid"):
        raise ValueError(f"padding must be 'same' or 'valid'; got {padding!r}")
    if not (isinstance(kernel_size, int) and kernel_size >= 1 and kernel_size % 2 == 1):
        raise ValueError(f"kernel_size must be an odd positive integer; got {kernel_size!r}")
    first, second = (int(c) for c in channels)
    pad = kernel_size // 2 if padding == "same" else 0
    side = image_size
    for _ in range(2):
        side = (side + 2 * pad - kernel_size + 1) // 2
    if side < 1:
        raise ValueError(f"kernel_size={kernel_size} with padding={padding!r} leaves nothing of a {image_size}-pixel "
                         f"image after two stages")
    model = nn.Sequential(
        nn.Conv2d(1, first, kernel_size, padding=pad), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(first, second, kernel_size, padding=pad), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(second * side * side, hidden), nn.ReLU(), nn.Linear(hidden, classes),
    )
    if init != "pytorch":
        for layer in model:
            if isinstance(layer, (nn.Conv2d, nn.Linear)):
                if init == "kaiming":
                    nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
                else:
                    nn.init.xavier_uniform_(layer.weight)
                nn.init.zeros_(layer.bias)
    return model


def _evaluate(model, x, y) -> tuple[float, float]:
    import torch

    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(x))
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(y)).item()
        accuracy = (logits.argmax(1).numpy() == y).mean().item()
    model.train()
    return accuracy, loss


PER_SAMPLE_MODES = ("layerwise", "vmap", "opacus")


MEMORY_FORMATS = ("channels_last", "contiguous")


MICRO_BATCH = 128
"""Examples whose clipped gradients :func:`layerwise_clipped_sum` computes at once by default. Per-example clipping
makes the clipped sum a sum over examples, so a minibatch may be taken in parts; parts of about this size keep a
part's activations and per-example gradients in the CPU's caches, which saves a quarter to a third of a step's CPU time
at the paper's largest minibatches (q = 0.05, about 3,000 images) and changes little below a few hundred images
(``train_run`` at q = 0.05 with ``micro_batch`` 128 against ``None``)."""


def train_run(data: Dataset, *, q: float, steps: int, noise_multiplier: float, seed: int,
              eval_every: int = EVAL_EVERY, per_sample: str = "layerwise",
              memory_format: str = "channels_last", micro_batch: int | None = MICRO_BATCH) -> dict:
    """One DP-SGD run; returns the final test accuracy and cross-entropy and the evaluation history.

    ``seed`` fixes the initialisation, the Poisson sampling stream and the noise stream, so runs with
    the same seed and different ``noise_multiplier`` are paired (the noise is z·C·N with shared N).

    ``per_sample`` chooses how the per-example gradients are computed; all give the same DP-SGD step
    (Opacus's flat clipping ``min(1, C/(‖g_i‖ + 1e-6))``, noise ``z·C·N(0, I)`` drawn parameter by
    parameter from the noise generator, division by the expected batch size ``qN``), to float rounding:

    * ``"layerwise"`` (default): one forward and one backward pass to the layers' outputs, then each
      layer's per-example gradients (convolutions) or only their norms (linear layers) from the stored
      inputs and output gradients, and the clipped sum without a second backward (see
      :func:`layerwise_clipped_sum`) — the fastest on a CPU (``benchmarks/RESULTS_dpsgd.md``);
    * ``"vmap"``: ``torch.func.vmap(grad(...))`` over the minibatch, then clipping and noise here;
    * ``"opacus"``: Opacus's ``PrivacyEngine`` with its backward hooks (the paper's implementation).

    All sample minibatches with Opacus's Poisson sampler (``DPDataLoader``) from the same generator.

    ``memory_format`` lays out the layerwise path's activations: ``"channels_last"`` (default; PyTorch's CPU
    convolutions and max-pooling take about half the time on it, ``benchmarks/RESULTS_dpsgd_batched.md``) or
    ``"contiguous"`` (NCHW, PyTorch's default). The two agree to float32 rounding; the vmap and Opacus paths
    keep PyTorch's default layout.

    ``micro_batch``: the layerwise path takes a minibatch in parts of at most this many examples
    (:data:`MICRO_BATCH`; ``None``: at once), the same sums to float32 rounding (:func:`layerwise_clipped_sum`).
    """
    import warnings

    import torch
    from opacus.data_loader import DPDataLoader
    from torch.utils.data import TensorDataset

    if not 0 < q <= 1:
        raise ValueError(f"q must be in (0, 1]; got {q!r}")
    if per_sample not in PER_SAMPLE_MODES:
        raise ValueError(f"per_sample must be one of {PER_SAMPLE_MODES}; got {per_sample!r}")
    if not (isinstance(steps, int) and steps >= 1):
        raise ValueError(f"steps must be a positive integer; got {steps!r}")
    if not (math.isfinite(noise_multiplier) and noise_multiplier >= 0):
        raise ValueError(f"noise_multiplier must be finite and >= 0; got {noise_multiplier!r}")
    if memory_format not in MEMORY_FORMATS:
        raise ValueError(f"memory_format must be one of {MEMORY_FORMATS}; got {memory_format!r}")
    torch.manual_seed(seed)
    model = build_model(data.x_train.shape[-1])
    if per_sample == "layerwise" and memory_format == "channels_last":
        model = model.to(memory_format=torch.channels_last)
    dataset = TensorDataset(torch.from_numpy(data.x_train), torch.from_numpy(data.y_train))
    sampling = torch.Generator().manual_seed(10_000 + seed)
    noise = torch.Generator().manual_seed(20_000 + seed)
    loader = DPDataLoader(dataset, sample_rate=q, generator=sampling)
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=0.0, weight_decay=WEIGHT_DECAY)
    expected_batch_size = q * len(dataset)
    if per_sample == "opacus":
        from opacus import PrivacyEngine

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Opacus warns about secure RNG: this is a study, not a deployment
            engine = PrivacyEngine()
            model, optimizer, loader = engine.make_private(
                module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=noise_multiplier,
                max_grad_norm=CLIP, poisson_sampling=False, noise_generator=noise)
        optimizer.expected_batch_size = expected_batch_size  # divide by qN exactly
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer.original_optimizer, cosine_factor)
        criterion = torch.nn.CrossEntropyLoss()
        empty_criterion = torch.nn.CrossEntropyLoss(reduction="sum")

        def step_on(xb, yb):
            optimizer.zero_grad()
            # an empty Poisson batch still needs its (empty) per-sample gradients: Opacus then adds the noise
            # alone, as DP-SGD prescribes; the sum-reduced loss of an empty batch is 0, not nan
            loss = criterion(model(xb), yb) if len(yb) else empty_criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
    else:
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, cosine_factor)
        clipped_sum = (layerwise_clipped_sum(model, micro_batch) if per_sample == "layerwise"
                       else vmap_clipped_sum(model))

        def step_on(xb, yb):
            summed = clipped_sum(xb, yb)
            with torch.no_grad():
                for p, g in zip(model.parameters(), summed):
                    if noise_multiplier:
                        g = g + torch.normal(mean=0, std=noise_multiplier * CLIP, size=g.shape, generator=noise)
                    p.grad = g / expected_batch_size
            optimizer.step()

    history, step = [], 0
    while step < steps:
        for xb, yb in loader:
            step_on(xb, yb)
            schedule.step()
            step += 1
            if step % eval_every == 0 or step == steps:
                accuracy, loss = _evaluate(model, data.x_test, data.y_test)
                history.append({"step": step, "accuracy": accuracy, "cross_entropy": loss})
            if step >= steps:
                break
    return {"accuracy": history[-1]["accuracy"], "cross_entropy": history[-1]["cross_entropy"], "history": history}


def cosine_factor(t: int) -> float:
    """The paper's learning-rate factor: a cosine schedule over SCHEDULE_STEPS, flat at 0 afterwards."""
    return 0.5 * (1 + math.cos(math.pi * min(t, SCHEDULE_STEPS) / SCHEDULE_STEPS))


def vmap_clipped_sum(model):
    """A function (x, y) -> per-parameter sums of per-example gradients, each clipped to norm CLIP.

    Per-example gradients come from ``torch.func.vmap(torch.func.grad(loss of one example))``; the
    clipping factor is Opacus's, ``min(1, C / (‖g_i‖₂ + 1e-6))`` with ‖g_i‖ over all parameters. An empty
    batch gives zero sums (DP-SGD then steps on the noise alone).
    """
    import torch
    from torch.func import functional_call, grad, vmap

    names = [name for name, _ in model.named_parameters()]

    def loss_one(params, x, y):
        logits = functional_call(model, params, (x.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(logits, y.unsqueeze(0))

    per_example = vmap(grad(loss_one), in_dims=(None, 0, 0))

    def clipped_sum(xb, yb):
        params = {name: p.detach() for name, p in model.named_parameters()}
        if len(yb) == 0:
            return [torch.zeros_like(params[name]) for name in names]
        grads = per_example(params, xb, yb)
        norms = torch.stack([grads[name].reshape(len(yb), -1).norm(2, dim=-1) for name in names], dim=1).norm(2, dim=1)
        factor = (CLIP / (norms + 1e-6)).clamp(max=1.0)
        return [torch.einsum("i,i...", factor, grads[name]) for name in names]

    return clipped_sum


def check_layerwise_model(model) -> list:
    """The layers of ``model`` if the layerwise per-example path takes them, else ``ValueError`` naming the
    layer: an ``nn.Sequential`` of ``Conv2d`` (stride 1, dilation 1, one group, numeric zero padding),
    ``ReLU`` (not in place: it would overwrite the convolution output whose gradient the path records),
    ``MaxPool2d`` (values only), ``Flatten`` and ``Linear`` layers."""
    from torch import nn

    layers = list(model)
    for layer in layers:
        if isinstance(layer, nn.Conv2d):
            if (layer.stride != (1, 1) or layer.dilation != (1, 1) or layer.groups != 1 or layer.padding_mode != "zeros"
                    or isinstance(layer.padding, str)):
                raise ValueError(f"model: per_sample='layerwise' takes Conv2d layers with stride 1, dilation 1, one "
                                 f"group and numeric zero padding; got {layer!r}")
        elif isinstance(layer, nn.ReLU) and layer.inplace:
            raise ValueError(f"model: per_sample='layerwise' takes ReLU layers that are not in place "
                             f"(nn.ReLU(inplace=False)); got {layer!r}")
        elif isinstance(layer, nn.MaxPool2d) and layer.return_indices:
            raise ValueError(f"model: per_sample='layerwise' takes MaxPool2d layers that return values only; "
                             f"got {layer!r}")
        elif not isinstance(layer, (nn.ReLU, nn.MaxPool2d, nn.Flatten, nn.Linear)):
            raise ValueError(f"model: per_sample='layerwise' takes Conv2d, ReLU, MaxPool2d, Flatten and Linear layers; "
                             f"got {layer!r}")
    return layers


def layerwise_clipped_sum(model, micro_batch: int | None = MICRO_BATCH):
    """A function (x, y) -> per-parameter sums of per-example gradients, each clipped to norm CLIP.

    The same quantity as :func:`vmap_clipped_sum` and Opacus's hooks (clipping factor
    ``min(1, C / (‖g_i‖₂ + 1e-6))``, ‖g_i‖ over all parameters), from one forward pass and one backward
    pass that stops at the layers' outputs (no parameter gradient is formed by autograd):

    * a convolution's per-example weight gradient is the correlation of its input with its output
      gradient (:func:`conv_per_example`), its bias gradient the output gradient summed over positions;
    * a linear layer's per-example weight gradient ``g_i a_iᵀ`` is never formed: its squared norm is
      ``‖a_i‖²‖g_i‖²`` ("ghost" norm; Goodfellow 2015, arXiv:1510.01799; Li et al. 2022,
      arXiv:2110.05679), and the clipped sum is one matrix product ``(c ⊙ g)ᵀ a``, so no second backward
      pass is needed (book-keeping; Bu et al. 2023, arXiv:2210.00038).

    The forward pass runs the model's own layers, so its values (and therefore the max-pooling choices,
    which a different convolution algorithm's rounding can flip at near-ties) are those of the model;
    ReLU followed by max-pooling is evaluated as pooling then ReLU, which is the same function with the
    same gradient routing (max and ReLU commute) and saves the ReLU and its backward on the larger tensor.

    Accepts an ``nn.Sequential`` of ``Conv2d`` (stride 1, dilation 1, one group, zero padding),
    ``ReLU``, ``MaxPool2d``, ``Flatten`` and ``Linear`` layers, such as :func:`build_model`'s. An empty
    batch gives zero sums.

    A minibatch of more than ``micro_batch`` examples is taken in equal parts of at most that many, whose
    clipped sums are added (the clipped sum is a sum over examples); ``None`` takes the whole minibatch at
    once. The parts change the sums only by float32 rounding (:data:`MICRO_BATCH`).
    """
    import torch
    from torch import nn
    from torch.nn import functional as F

    layers = check_layerwise_model(model)
    params = list(model.parameters())
    if micro_batch is not None and (isinstance(micro_batch, bool) or not isinstance(micro_batch, int)
                                    or micro_batch < 1):
        raise ValueError(f"micro_batch must be a positive integer or None; got {micro_batch!r}")

    def clipped_sum(xb, yb):
        if len(yb) == 0:
            return [torch.zeros_like(p) for p in params]
        if micro_batch is None or len(yb) <= micro_batch:
            return clipped_sum_of_part(xb, yb)
        parts = -(-len(yb) // micro_batch)
        size = -(-len(yb) // parts)  # equal parts, no small last one
        sums = clipped_sum_of_part(xb[:size], yb[:size])
        for start in range(size, len(yb), size):
            for total, part in zip(sums, clipped_sum_of_part(xb[start:start + size], yb[start:start + size])):
                total.add_(part)
        return sums

    def clipped_sum_of_part(xb, yb):
        batch = len(yb)
        recorded, h, k = [], xb, 0
        while k < len(layers):
            layer = layers[k]
            if isinstance(layer, nn.ReLU) and k + 1 < len(layers) and isinstance(layers[k + 1], nn.MaxPool2d):
                h, k = torch.relu(layers[k + 1](h)), k + 2  # pool, then ReLU on the pooled values only
                continue
            if isinstance(layer, nn.Linear) and h.dim() != 2:
                raise ValueError(f"model: per_sample='layerwise' takes Linear layers on flattened inputs "
                                 f"(batch, features); got input of shape {tuple(h.shape)} for {layer!r}")
            out = layer(h)
            if isinstance(layer, (nn.Conv2d, nn.Linear)):
                recorded.append((layer, h.detach(), out))
            h, k = out, k + 1
        loss = F.cross_entropy(h, yb, reduction="sum")  # per-example losses: their gradients are g_i
        grads = torch.autograd.grad(loss, [out for _, _, out in recorded])
        squared = torch.zeros(batch, dtype=h.dtype)
        parts = []
        for (layer, inp, _), g in zip(recorded, grads):
            if isinstance(layer, nn.Conv2d):
                weight = conv_per_example(layer, inp, g).reshape(batch, -1)
                squared += torch.linalg.vector_norm(weight, dim=1).square()  # no squared copy
                pieces = [weight]
                if layer.bias is not None:
                    bias = g.sum((2, 3))
                    squared += bias.square().sum(1)
                    pieces.append(bias)
                parts.append(("conv", layer, pieces))
            else:
                g2 = g.square().sum(1)
                squared += inp.square().sum(1) * g2 + (g2 if layer.bias is not None else 0)
                parts.append(("linear", layer, (inp, g)))
        factor = (CLIP / (squared.sqrt() + 1e-6)).clamp(max=1.0)
        sums = []
        for kind, layer, part in parts:
            if kind == "conv":
                sums += [(factor @ piece).reshape(p.shape) for piece, p in zip(part, layer.parameters())]
            else:
                inp, g = part
                scaled = g * factor[:, None]
                sums.append(scaled.t() @ inp)
                if layer.bias is not None:
                    sums.append(scaled.sum(0))
        return sums

    return clipped_sum


def conv_per_example(layer, inp, g):
    """Per-example weight gradients of a stride-1 ``Conv2d``: shape (batch, out, in, kh, kw), contiguous.

    ``w_i[o, c, s, t] = Σ_{u,v} g_i[o, u, v] · x_i[c, u + s, v + t]`` on the zero-padded input. With one input
    channel the patches are few: one strided view of the padded image holds them all (``unfold`` builds them
    image by image, at twice the cost), then one batched product. Otherwise the
    examples are the groups of one grouped convolution's weight gradient (``torch.nn.grad.conv2d_weight``
    with ``groups = batch`` on the input and output gradient viewed as one image of ``batch·channels``
    channels): PyTorch's convolution kernel then forms every example's gradient in one call, and no patch matrix
    is built. It replaced ``kh`` batched products over strided views of the padded input, which copied every
    example's patches (``benchmarks/bench_dpsgd_step.py`` measured the layerwise step before and after).
    """
    import torch
    from torch.nn import functional as F

    batch, out_channels, out_h, out_w = g.shape
    in_channels = inp.shape[1]
    kh, kw = layer.kernel_size
    ph, pw = layer.padding
    if in_channels == 1:  # the kh·kw patches of every position as one strided view of the padded image
        padded = F.pad(inp.reshape(batch, inp.shape[2], inp.shape[3]), (pw, pw, ph, ph))
        width = padded.shape[2]
        patches = padded.as_strided((batch, kh, kw, out_h, out_w), (padded.stride(0), width, 1, width, 1))
        return torch.bmm(g.reshape(batch, out_channels, -1),
                         patches.reshape(batch, kh * kw, out_h * out_w).transpose(1, 2)).view(
            batch, out_channels, 1, kh, kw)
    weight = torch.nn.grad.conv2d_weight(inp.reshape(1, batch * in_channels, *inp.shape[2:]),
                                         (batch * out_channels, in_channels, kh, kw),
                                         g.reshape(1, batch * out_channels, out_h, out_w), padding=(ph, pw),
                                         groups=batch)
    return weight.view(batch, out_channels, in_channels, kh, kw)


def paired_runs(data: Dataset, *, q: float, steps: int, epsilon: float, delta: float, seed: int,
                eval_every: int = EVAL_EVERY, clip_only: dict | None = None) -> dict:
    """The zCDP-calibrated, RDP-calibrated and clipping-only runs of one setting and seed (paired).

    ``clip_only`` reuses a clipping-only run of the same (q, steps, seed) — it does not depend on the
    privacy target — instead of training it again.
    """
    from accountlib.theory.dpsgd_calibration import calibrate_dpsgd

    z_rdp = calibrate_dpsgd(q, steps, epsilon, delta, "rdp")
    z_zcdp = calibrate_dpsgd(q, steps, epsilon, delta, "zcdp")
    common = dict(q=q, steps=steps, seed=seed, eval_every=eval_every)
    runs = {"rdp": train_run(data, noise_multiplier=z_rdp, **common),
            "zcdp": train_run(data, noise_multiplier=z_zcdp, **common),
            "clip_only": clip_only if clip_only is not None else train_run(data, noise_multiplier=0.0, **common)}
    return {"q": q, "steps": steps, "epsilon": epsilon, "delta": delta, "seed": seed, "z_rdp": z_rdp,
            "z_zcdp": z_zcdp, "model": model_description(), "data": data.name, "train_size": int(len(data.y_train)),
            "test_size": int(len(data.y_test)), "runs": runs}
