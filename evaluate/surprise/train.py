"""Train a small V-JEPA 2 on the plausible videos of a rendered set: the world model voebench can grow itself.

The objective is the scoring protocol itself (vjepa2.window_surprise): from the first C frames of a 16-frame
window (C drawn from the protocol's context lengths each step) the predictor predicts the layer-normed latents of
the remaining frames, as encoded by a target encoder that is an exponential moving average (EMA) of the trained
encoder (V-JEPA's guard against collapse: the targets move slowly and receive no gradient). Loss: mean L1. The
saved folder (checkpoint.py) holds both encoders: the EMA encoder with the predictor (save_pretrained, as the
released V-JEPA checkpoints hold one encoder) and the online encoder beside it, so that `voebench evaluate --model
vjepa2:<folder>` encodes the context with the online encoder the predictor was trained on and the targets with
the EMA encoder, as the reference protocol does.

Only plausible (`plausible` / `expected`) videos are used; `check_disjoint` refuses a training set that shares a
trial seed with the test set. The per-step log records the target latents' spread across tokens: a value falling
towards 0 means the representation collapsed (every token the same), and the model then cannot be surprised.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import time
from collections.abc import Callable

import numpy as np
import torch

from voebench.evaluate import frames as frames_mod
from voebench.evaluate.surprise import checkpoint, rope
from voebench.evaluate.surprise.protocol import Protocol
from voebench.evaluate.surprise.score import is_plausible
from voebench.evaluate.surprise.vjepa2 import PRESETS, VJEPA2Scorer, prediction_error, random_model, targets


#: The format of train.json `call_wall` (this call's training loop, local wall clock): nvidia-smi's timestamps,
#: so a GPU log can be cut to the training (bench/world_model_throughput.py busy).
WALL_CLOCK = "%Y/%m/%d %H:%M:%S.%f"


def plausible_entries(entries: list[dict]) -> list[dict]:
    return [e for e in entries if e.get("video") and is_plausible(str(e.get("condition", "")))]


def check_disjoint(train_entries: list[dict], test_entries: list[dict]) -> None:
    """Refuse training videos whose trial also appears in the test set (same seed)."""
    shared = {e["seed"] for e in train_entries} & {e["seed"] for e in test_entries}
    if shared:
        raise ValueError(
            f"{len(shared)} trial seed(s) are in both the training and the test set; render the "
            "training set with another --seed"
        )


def load_videos(manifest, entries: list[dict], protocol: Protocol) -> list[np.ndarray]:
    """Each entry's sampled frames (T, H, W, 3) uint8, decoded in parallel; videos shorter than a window dropped."""
    plans = []
    for e in entries:
        ref = manifest.video(e)
        idx = protocol.frames(ref.n_frames, ref.fps)
        if len(idx) >= protocol.window:
            plans.append((ref.path, idx))
    frames_mod.ensure_cache_size(len(plans) + 1)
    frames_mod.prefetch(plans)
    out = [frames_mod.read_frames(p, i) for p, i in plans]
    frames_mod.clear_cache()
    return out


class WindowSampler:
    """Random windows from a list of videos (each video weighted by its number of window starts), as one uint8
    tensor on the device so a batch is a gather on the device, not a copy from host memory.

    The draws come from a NumPy generator on the host (seeded, saved in the resumable state), so a seed gives the
    same windows on any device and the same as before this class moved its work to the device. Per batch only
    the draws travel, B x 2 integers (first frame, mirror or not) in one page-locked, non-blocking copy on CUDA:
    no step waits for the device, and the host can queue the next steps while the device computes (a blocking
    copy, as `.to(device)` of pageable memory is, synchronises the stream: the GPU then idles while the host
    launches the next step's kernels)."""

    def __init__(self, videos: list[np.ndarray], window: int, device: torch.device, seed: int = 0):
        if not videos:
            raise ValueError("no training video is as long as one window")
        self.window = window
        self.lengths = np.array([len(v) for v in videos])
        self.offsets = np.concatenate([[0], np.cumsum(self.lengths)[:-1]])
        self.frames = torch.from_numpy(np.concatenate(videos)).to(device)
        self.frame_steps = torch.arange(window, device=self.frames.device)
        self.pin = self.frames.device.type == "cuda"
        n_starts = self.lengths - window + 1
        self.p = n_starts / n_starts.sum()
        self.n_starts = n_starts
        self.rng = np.random.default_rng(seed)

    def draw(self, batch: int) -> np.ndarray:
        """(batch, 2) int64: each window's first frame in `frames` and 1 where it is mirrored left-right."""
        v = self.rng.choice(len(self.lengths), size=batch, p=self.p)
        s = self.offsets[v] + (self.rng.random(batch) * self.n_starts[v]).astype(np.int64)
        flip = self.rng.random(batch) < 0.5
        return np.stack([s, flip.astype(np.int64)], 1)

    def sample(self, batch: int) -> torch.Tensor:
        """(batch, window, H, W, 3) uint8 clips on the device."""
        d = torch.from_numpy(self.draw(batch))
        if self.pin:
            d = d.pin_memory()  # the caching host allocator keeps the buffer until the copy has run
        d = d.to(self.frames.device, non_blocking=True)
        clips = self.frames[d[:, :1] + self.frame_steps]  # (B, T, H, W, 3)
        flip = d[:, 1].bool()[:, None, None, None, None]
        return torch.where(flip, clips.flip(3), clips)  # left-right mirror


def train_world_model(
    videos: list[np.ndarray],
    out: str,
    protocol: Protocol,
    preset: str | dict = "small",
    steps: int = 1000,
    batch: int = 64,
    lr: float = 5e-4,
    weight_decay: float = 0.04,
    ema: tuple[float, float] = (0.99, 0.999),
    device: str = "auto",
    seed: int = 0,
    max_seconds: float | None = None,
    log_every: int = 50,
    on_step: Callable[[int, torch.Tensor], None] | None = None,
    state: str | None = None,
    stop_at: int | None = None,
) -> dict:
    """Train, save the model to `out` (save_pretrained) with train.json beside it; returns the training log.
    `on_step(step, loss)` is called after every step (the command line's progress bar); `loss` is the detached
    tensor, so a caller that does not read it costs no device sync.

    Resumable training (`state`, a file): where it exists, training goes on from it (weights, EMA encoder,
    optimiser, both random generators, step, log, seconds); when this call stops before `steps` (at step
    `stop_at`, or after `max_seconds` of this call) the state is written there and `out` gets the model as it
    is then (train.json `finished` false), so a run of many steps can span several commands of a few minutes and
    each stop gives a learning-curve point. Stopped and resumed with the same seed equals uninterrupted (the
    schedule reads the planned `steps`; tests/evaluate/test_world_model_resume.py)."""
    model = random_model(preset, seed).train()
    scorer = VJEPA2Scorer(model, device=device)  # moves the model; gives preprocessing and autocast
    dev = scorer.device
    scorer.check(protocol.window, protocol.context_lengths)
    target = copy.deepcopy(model.encoder).eval()
    for p in target.parameters():
        p.requires_grad_(False)
    # fused: one kernel for the whole update on CUDA (the same AdamW, to rounding); CPU keeps the reference loop
    fused = True if dev.type == "cuda" else None
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, betas=(0.9, 0.95), fused=fused)
    online_params = list(model.encoder.parameters())
    target_params = list(target.parameters())
    warmup = max(1, steps // 10)

    def lr_at(i: int) -> float:  # linear warm-up, then cosine decay to 0
        if i < warmup:
            return lr * (i + 1) / warmup
        return lr * 0.5 * (1 + math.cos(math.pi * (i - warmup) / max(1, steps - warmup)))

    sampler = WindowSampler(videos, protocol.window, dev, seed)
    rng = np.random.default_rng(seed + 1)
    contexts = list(protocol.context_lengths)

    log: list[dict] = []
    first, before = 0, 0.0  # the first step of this call; seconds trained by earlier calls
    if state and os.path.isfile(state):
        first, before, log = _load_state(state, model, target, opt, sampler, rng, steps, seed)
    t0 = time.perf_counter()
    wall0 = datetime.datetime.now()
    model.train()
    done = first
    with rope.cached_rotary() as rotary:  # the rotary tables once per shape, not per layer (rope.py)
        for i in range(first, steps):
            if (stop_at is not None and i >= stop_at) or (
                max_seconds and i > first and time.perf_counter() - t0 > max_seconds
            ):
                break
            for g in opt.param_groups:
                g["lr"] = lr_at(i)
            x = scorer.preprocess(sampler.sample(batch))
            c = int(rng.choice(contexts))
            logged = i % log_every == 0 or i == steps - 1
            loss, spread = _step_loss(model, target, x, c, scorer._autocast, spread=logged)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            m = ema[0] + (ema[1] - ema[0]) * i / max(1, steps - 1)
            with torch.no_grad():  # target = m * target + (1 - m) * online, all tensors at once
                torch._foreach_mul_(target_params, m)
                torch._foreach_add_(target_params, online_params, alpha=1 - m)
            done = i + 1
            if on_step is not None:
                on_step(i, loss.detach())
            if logged:  # the only reads of device values: one sync per `log_every` steps
                log.append(
                    {
                        "step": i,
                        "loss": float(loss.detach()),
                        "target_spread": float(spread) if spread is not None else None,
                        "context": c,
                        "lr": lr_at(i),
                        "seconds": before + time.perf_counter() - t0,
                    }
                )
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)  # the host runs ahead of the device: time the work, not its queueing
    seconds = before + time.perf_counter() - t0
    call_seconds = time.perf_counter() - t0
    call_wall = [wall0.strftime(WALL_CLOCK), datetime.datetime.now().strftime(WALL_CLOCK)]
    if state:  # also when finished: running the same command again then trains no further step
        _save_state(state, done, model, target, opt, sampler, rng, log, seconds, steps, seed)
    model.eval()
    online = copy.deepcopy(model.encoder)
    gap = checkpoint.encoder_gap(online, target)  # how far the EMA encoder trails the online one
    checkpoint.save(model, online, target, out)  # model.encoder now holds the EMA weights
    info = {
        "preset": preset if isinstance(preset, str) else "custom",
        "config": PRESETS[preset] if isinstance(preset, str) else preset,
        "videos": len(videos),
        "windows_available": int(sampler.n_starts.sum()),
        "steps": done,
        "steps_planned": steps,
        "finished": done >= steps,
        "resumed_from_step": first,
        "call_seconds": call_seconds,
        "call_wall": call_wall,
        "call_clips_per_s": (done - first) * batch / call_seconds if call_seconds > 0 else None,
        "batch": batch,
        "adamw": "fused" if fused else "for-loop",
        "rotary": "cached" if rotary["applied"] else "transformers",
        "lr": lr,
        "ema": list(ema),
        "seconds": seconds,
        "clips_per_s": done * batch / seconds if seconds > 0 else None,
        "parameters": sum(p.numel() for p in model.parameters()),
        "device": str(dev),
        "encoders": {
            "context": f"online ({checkpoint.ONLINE_ENCODER})",
            "target": "ema (model.safetensors)",
            "max_abs_weight_difference": gap,
        },
        "log": log,
    }
    with open(os.path.join(out, "train.json"), "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=1)
    return info


def _save_state(path, step, model, target, opt, sampler, rng, log, seconds, steps, seed) -> None:
    """Everything that continues a run exactly (written to a temporary file, then renamed into place)."""
    tmp = path + ".tmp"
    torch.save(
        {
            "step": step,
            "steps": steps,
            "seed": seed,
            "model": model.state_dict(),
            "target": target.state_dict(),
            "opt": opt.state_dict(),
            "sampler_rng": sampler.rng.bit_generator.state,
            "rng": rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "log": log,
            "seconds": seconds,
        },
        tmp,
    )
    os.replace(tmp, path)


def check_state(path: str, steps: int, seed: int) -> dict:
    """The saved state at `path` (torch.load), refusing one of another planned step count or seed: the schedule
    and the data order would differ from an uninterrupted run."""
    st = torch.load(path, map_location="cpu", weights_only=False)
    if st["steps"] != steps or st["seed"] != seed:
        raise ValueError(
            f"{path}: a state of a run of {st['steps']} steps, seed {st['seed']} (asked: {steps} steps, seed {seed})"
        )
    return st


def _load_state(path, model, target, opt, sampler, rng, steps, seed) -> tuple[int, float, list[dict]]:
    """Restore a state written by `_save_state` into the freshly built objects; (step, seconds, log). A state of
    another planned step count or seed is refused: the schedule and the data order would differ."""
    st = check_state(path, steps, seed)
    model.load_state_dict(st["model"])
    target.load_state_dict(st["target"])
    opt.load_state_dict(st["opt"])
    sampler.rng.bit_generator.state = st["sampler_rng"]
    rng.bit_generator.state = st["rng"]
    torch.set_rng_state(st["torch_rng"])
    return int(st["step"]), float(st["seconds"]), list(st["log"])


def _step_loss(
    model, target_encoder, x: torch.Tensor, context: int, autocast, spread: bool = True
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The protocol's surprise as a loss: the EMA encoder gives the targets (no gradient), the trained encoder sees
    the context frames and the predictor predicts the rest. Also (`spread`) the targets' spread across tokens, as
    a device tensor: reading it is the caller's choice (a read waits for the device)."""
    with torch.no_grad():
        tgt = targets(target_encoder, x, autocast)
        sd = tgt.std(1).mean() if spread else None
    return prediction_error(model, tgt, x, context, autocast).mean(), sd


__all__ = ["check_disjoint", "load_videos", "plausible_entries", "train_world_model"]
