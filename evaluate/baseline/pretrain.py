"""Self-supervised pretraining of the baseline's 3D ResNet backbone on expected training videos.

The original froze a Kinetics-700-pretrained 3D ResNet-34 and trained only the heads. No weights can be
downloaded here, so this makes local ones: the backbone learns to predict video frames through the same
``out_dim``-vector the heads read, with a small decoder that is thrown away afterwards. Two objectives:

- ``future``: the backbone sees the first ``context`` frames and the decoder draws ``target_frames`` frames
  evenly spaced over the rest. To extrapolate the motion the vector must hold the objects' shapes, sizes,
  positions and speeds, which are most of the heads' features.
- ``clip``: the backbone sees the whole clip and the decoder redraws ``target_frames`` frames spaced over all of
  it. This matches how the frozen backbone is used afterwards (whole clips) and covers what happens after the
  event too (the posterior speeds of Table 5), at the price of being a plain autoencoder.

Both losses are the mean squared error of the frames plus that of their frame-to-frame differences, so the
moving objects, a few pixels against a static background, are not drowned by it. Targets are at
``target_size``² (area-averaged), far below the input's 112², which keeps the decoder small.

Only expected training videos may go in (the caller picks them; :func:`training_clips` does for a rendered
set): validation and test videos must stay unseen. :func:`save_backbone` writes the backbone alone as
``{"state_dict": ..., "pretraining": {...}}``, which ``train-baseline --pretrained FILE`` loads.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from .backbone import build_backbone

OBJECTIVES = ("future", "clip")


@dataclass
class PretrainConfig:
    objective: str = "future"
    backbone: str = "resnet34"
    width: int = 64
    epochs: int = 30
    batch_size: int = 32
    lr: float = 1e-3  # AdamW, cosine decay to 0 over the planned steps
    weight_decay: float = 1e-4
    context: int = 25  # frames the backbone sees (objective "future")
    target_frames: int = 8
    target_size: int = 32
    motion_weight: float = 1.0  # weight of the frame-difference term
    max_seconds: float | None = None  # stop after this many seconds of training (the weights are kept)
    seed: int = 1
    device: str = "auto"
    amp: bool = True  # bf16 autocast on CUDA


class FrameDecoder(nn.Module):
    """vector (B, dim) -> frames (B, 3, T, S, S) in [0, 1]: a linear map to a 4x4 grid per frame, then
    transposed 2D convolutions doubling the side up to S (S a power of two times 4)."""

    def __init__(self, dim: int, frames: int, size: int, channels: int = 64):
        super().__init__()
        ups = int(round(math.log2(size / 4)))
        if ups < 0 or 4 * 2**ups != size:
            raise ValueError(f"target size {size} is not 4 times a power of two")
        self.frames, self.channels = frames, channels
        self.fc = nn.Linear(dim, frames * channels * 16)
        layers: list[nn.Module] = []
        c = channels
        for i in range(ups):
            last = i == ups - 1
            out = 3 if last else max(c // 2, 16)
            layers.append(nn.ConvTranspose2d(c, out, 4, stride=2, padding=1))
            if not last:
                layers.append(nn.ReLU(inplace=True))
            c = out
        if not layers:
            layers.append(nn.Conv2d(c, 3, 1))
        self.up = nn.Sequential(*layers)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        b = z.shape[0]
        x = F.relu(self.fc(z)).view(b * self.frames, self.channels, 4, 4)
        x = torch.sigmoid(self.up(x).float())
        s = x.shape[-1]
        return x.view(b, self.frames, 3, s, s).transpose(1, 2)


def split_clip(clips: torch.Tensor, cfg: PretrainConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """uint8 clips (B, 3, T, H, W) -> (backbone input in [0, 1], target frames (B, 3, target_frames, S, S))."""
    x = clips.float().div_(255.0)
    t = x.shape[2]
    if cfg.objective == "future":
        if not 0 < cfg.context < t:
            raise ValueError(f"context {cfg.context} must be between 1 and the clip's {t - 1} frames")
        inp, rest = x[:, :, : cfg.context], x[:, :, cfg.context :]
    elif cfg.objective == "clip":
        inp, rest = x, x
    else:
        raise ValueError(f"objective must be one of {OBJECTIVES}")
    pick = torch.linspace(0, rest.shape[2] - 1, cfg.target_frames).round().long().to(rest.device)
    tgt = rest.index_select(2, pick)
    b, c, n, h, w = tgt.shape
    tgt = F.interpolate(tgt.transpose(1, 2).reshape(b * n, c, h, w), size=cfg.target_size, mode="area")
    return inp, tgt.view(b, n, c, cfg.target_size, cfg.target_size).transpose(1, 2)


def frame_loss(pred: torch.Tensor, target: torch.Tensor, motion_weight: float) -> torch.Tensor:
    loss = F.mse_loss(pred, target)
    if motion_weight and pred.shape[2] > 1:
        loss = loss + motion_weight * F.mse_loss(pred.diff(dim=2), target.diff(dim=2))
    return loss


def pretrain(clips: torch.Tensor, cfg: PretrainConfig, log=print) -> tuple[nn.Module, dict]:
    """Train a backbone on ``clips`` (N, 3, T, H, W) uint8 (CPU or GPU). Returns (backbone, record)."""
    from .train import pick_device, set_seed  # train imports this module's siblings only

    if cfg.objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}")
    n = len(clips)
    if n < 2:
        raise ValueError("pretraining needs at least 2 clips")
    set_seed(cfg.seed)
    dev = pick_device(cfg.device)
    amp = cfg.amp and dev.type == "cuda"
    backbone = build_backbone(cfg.backbone, cfg.width)
    decoder = FrameDecoder(backbone.out_dim, cfg.target_frames, cfg.target_size)
    net = nn.ModuleDict({"backbone": backbone, "decoder": decoder}).to(dev)
    if dev.type == "cuda":
        backbone.to(memory_format=torch.channels_last_3d)  # the 3D part only: the decoder is 2D
        torch.backends.cudnn.benchmark = True
        free, _ = torch.cuda.mem_get_info(dev)
        if clips.numel() < 0.4 * free:  # the clips on the GPU: no host copy per step
            clips = clips.to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    bs = min(cfg.batch_size, n)
    steps_per_epoch = n // bs  # drop the last partial batch: BatchNorm needs more than one clip
    total = max(1, cfg.epochs * steps_per_epoch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    history: list[dict] = []
    t_start = time.perf_counter()
    stopped_early = False
    net.train()
    for epoch in range(cfg.epochs):
        perm = torch.randperm(n)
        losses = []
        t0 = time.perf_counter()
        for k in range(steps_per_epoch):
            idx = perm[k * bs : (k + 1) * bs].to(clips.device)
            inp, tgt = split_clip(clips[idx].to(dev, non_blocking=True), cfg)
            if dev.type == "cuda":
                inp = inp.contiguous(memory_format=torch.channels_last_3d)
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=amp):
                pred = decoder(backbone(inp))
            loss = frame_loss(pred.float(), tgt, cfg.motion_weight)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.detach())
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        dt = time.perf_counter() - t0
        rec = {
            "epoch": epoch,
            "loss": float(torch.stack(losses).mean()),
            "epoch_s": dt,
            "clips_per_s": bs * steps_per_epoch / dt,
        }
        history.append(rec)
        log(
            f"pretrain {cfg.objective} epoch {epoch}: loss {rec['loss']:.5f} "
            f"({dt:.1f} s, {rec['clips_per_s']:.0f} clips/s)"
        )
        if cfg.max_seconds is not None and time.perf_counter() - t_start > cfg.max_seconds:
            stopped_early = epoch < cfg.epochs - 1
            break
    backbone.eval()
    record = {
        "config": asdict(cfg),
        "clips": n,
        "history": history,
        "seconds": time.perf_counter() - t_start,
        "stopped_early": stopped_early,
        "device": str(dev),
        "baseline_loss": _baseline_loss(clips, cfg, dev),
    }
    return backbone.cpu(), record


@torch.no_grad()
def _baseline_loss(clips: torch.Tensor, cfg: PretrainConfig, dev: torch.device) -> float:
    """The loss of predicting every target frame as the mean target over the clips (no information from the
    input): the number a trained backbone's loss should be well below. Over up to 256 clips spread evenly over
    the set, so every category counts (the clips come category by category)."""
    idx = torch.linspace(0, len(clips) - 1, min(len(clips), 256)).round().long().unique().to(clips.device)
    _, tgt = split_clip(clips[idx].to(dev), cfg)
    mean = tgt.mean(0, keepdim=True).expand_as(tgt)
    return float(frame_loss(mean, tgt, cfg.motion_weight))


def save_backbone(path, backbone: nn.Module, record: dict) -> None:
    """The backbone's weights in the form ``load_pretrained`` reads, with how they were made."""
    state = {k: v.detach().cpu() for k, v in backbone.state_dict().items()}
    torch.save({"state_dict": state, "pretraining": record}, path)


def training_clips(
    root, categories, size: int = 112, n_frames: int | None = None, cache_dir="auto", limit: int | None = None
) -> torch.Tensor:
    """The expected training videos of ``categories`` in a rendered set (the first ``limit`` per category), as
    one uint8 (N, 3, T, S, S) tensor. Never validation or test videos: the backbone must not have seen what the
    baselines are scored on."""
    from .data import AVoEDataset, avoe_records

    parts = []
    for cat in categories:
        recs = avoe_records(root, cat, "train", ("expected",))[:limit]
        ds = AVoEDataset(root, cat, "train", size=size, n_frames=n_frames, cache_dir=cache_dir, records=recs)
        if len(ds):
            n_frames = ds.n_frames
            parts.append(ds.stacked(workers=4))
    if not parts:
        raise ValueError(f"{root}: no expected training videos of categories {', '.join(categories)}")
    return torch.cat(parts)


def pack_training_clips(packs: dict, decoded: dict) -> np.ndarray:
    """The expected training clips of several packs (``pack.decode_pack`` arrays), concatenated."""
    from .pack import SPLITS, read_pack

    parts = []
    for cat, path in packs.items():
        p = read_pack(path)
        keep = np.nonzero((p["split"] == SPLITS.index("train")) & (p["surprising"] == 0))[0]
        parts.append(np.asarray(decoded[cat][keep]))
    return np.concatenate(parts)
