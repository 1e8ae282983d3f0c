"""2×2 max-pooling for evaluation, from four strided views: the values of ``nn.MaxPool2d(2)``, at a fraction of
its cost on contiguous (NCHW) tensors.

PyTorch's CPU kernel for ``max_pool2d`` with indices costs about ten times an elementwise pass on the chapter's
activations (``benchmarks/bench_dpsgd_batched.py``). Without gradients (the test metrics), a 2×2 window with
stride 2 is the elementwise maximum of the four strided views of its corners: the same values exactly (a
maximum is exact). In training the model's own pooling stays: its gradient routing on ties (to the first
maximum) is what the single-run path computes, and the elementwise form's backward is no cheaper.
"""

from __future__ import annotations

__all__ = ["max_pool2x2_values", "pooling_of"]


def max_pool2x2_values(h):
    """``nn.MaxPool2d(2)(h)`` for a tensor of shape (..., H, W), without indices or gradient."""
    import torch

    height, width = h.shape[-2] // 2 * 2, h.shape[-1] // 2 * 2  # floor mode: an odd last row/column is dropped
    top = torch.maximum(h[..., 0:height:2, 0:width:2], h[..., 0:height:2, 1:width:2])
    return torch.maximum(top, torch.maximum(h[..., 1:height:2, 0:width:2], h[..., 1:height:2, 1:width:2]))


def pooling_of(layer):
    """The callable that evaluates the ``nn.MaxPool2d`` ``layer`` without gradients: :func:`max_pool2x2_values`
    where it is a plain 2×2 pool with stride 2 (no padding, dilation, ceil mode or indices), else the layer."""
    plain = (layer.kernel_size in (2, (2, 2)) and layer.stride in (2, (2, 2)) and layer.padding in (0, (0, 0))
             and layer.dilation in (1, (1, 1)) and not layer.ceil_mode and not layer.return_indices)
    return max_pool2x2_values if plain else layer
