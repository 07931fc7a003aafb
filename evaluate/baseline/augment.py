"""Clip augmentation on the device the clips live on (the GPU in training), so no CPU touches a batch.

Only label-preserving changes: every feature, rule and outcome of an AVoE video survives a small shift of the
whole picture and a change of brightness and contrast. Mirroring would swap left and right, which the labels
name (sizes, directions, speeds of the left and right objects), so it is not offered. One shift and one
brightness/contrast draw per clip, the same for all its frames, so motion is untouched.

The original AVoE baselines trained without augmentation; training uses this only with ``augment=True``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Augment:
    max_shift: int = 8  # pixels at 112 x 112 (about 7 %), edges replicated
    brightness: float = 0.1  # additive, uniform in +-brightness (inputs are in [0, 1])
    contrast: float = 0.1  # multiplicative about the clip's mean, uniform in 1 +- contrast


def shift_clips(x: torch.Tensor, dy: torch.Tensor, dx: torch.Tensor) -> torch.Tensor:
    """Shift each clip of (B, C, T, H, W) by (dy[b], dx[b]) pixels (down, right), replicating the edges."""
    b, c, t, h, w = x.shape
    ys = (torch.arange(h, device=x.device)[None, :] - dy[:, None]).clamp_(0, h - 1)  # (B, H)
    xs = (torch.arange(w, device=x.device)[None, :] - dx[:, None]).clamp_(0, w - 1)  # (B, W)
    x = x.gather(3, ys.view(b, 1, 1, h, 1).expand(b, c, t, h, w))
    return x.gather(4, xs.view(b, 1, 1, 1, w).expand(b, c, t, h, w))


def augment_clips(x: torch.Tensor, cfg: Augment = Augment(), generator: torch.Generator | None = None) -> torch.Tensor:
    """Float clips (B, C, T, H, W) in [0, 1] -> augmented float clips in [0, 1], on x's device."""
    b = x.shape[0]
    dev = x.device

    def u(lo: float, hi: float) -> torch.Tensor:
        return torch.rand(b, device=dev, generator=generator) * (hi - lo) + lo

    if cfg.max_shift > 0:
        s = cfg.max_shift
        dy = torch.randint(-s, s + 1, (b,), device=dev, generator=generator)
        dx = torch.randint(-s, s + 1, (b,), device=dev, generator=generator)
        x = shift_clips(x, dy, dx)
    if cfg.contrast > 0 or cfg.brightness > 0:
        gain = u(1 - cfg.contrast, 1 + cfg.contrast).view(b, 1, 1, 1, 1)
        bias = u(-cfg.brightness, cfg.brightness).view(b, 1, 1, 1, 1)
        mean = x.mean(dim=(1, 2, 3, 4), keepdim=True)
        x = ((x - mean) * gain + mean + bias).clamp_(0.0, 1.0)
    return x
