"""One-off measurement (issue 30, 2026-11-27): of the top-level aten operators of a training step (outside
autograd's backward and the optimizer), how many run inside transformers' rotary code (rotate_queries_or_keys,
get_position_ids). small-128 widths, 4 tokens a frame, batch 1, CPU, before evaluate/surprise/rope.py existed:
run against commit 69f09ba. Output: rope-share.txt."""

import sys

import numpy as np
import torch

sys.path.insert(0, "src")
from torch.profiler import profile, ProfilerActivity, record_function
import transformers.models.vjepa2.modeling_vjepa2 as mv
from voebench.evaluate.surprise import train
from voebench.evaluate.surprise.protocol import Protocol
from voebench.evaluate.surprise.vjepa2 import PRESETS

torch.set_num_threads(1)
cfg = dict(PRESETS["small-128"], crop_size=32, patch_size=16)
videos = [np.random.default_rng(k).integers(0, 256, (40, 32, 32, 3), dtype=np.uint8) for k in range(3)]


def count(steps):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        train.train_world_model(
            videos,
            "/tmp/rope-share",
            Protocol(),
            preset=cfg,
            steps=steps,
            batch=1,
            device="cpu",
            seed=0,
            log_every=10**6,
        )
    ev = prof.events()
    top = sum(1 for e in ev if e.cpu_parent is None and e.name.startswith("aten::"))
    rope = sum(
        1 for e in ev if e.cpu_parent is not None and e.cpu_parent.name == "ROPE" and e.name.startswith("aten::")
    )
    return top, rope


orig_rot = mv.rotate_queries_or_keys


def rot(x, pos):
    with record_function("ROPE"):
        return orig_rot(x, pos)


mv.rotate_queries_or_keys = rot
orig_pos = mv.VJEPA2RopeAttention.get_position_ids


def pos(self, *a, **k):
    with record_function("ROPE"):
        return orig_pos(self, *a, **k)


mv.VJEPA2RopeAttention.get_position_ids = pos
a = count(3)
b = count(1)
print(
    "per step: top-level aten outside rope forward",
    (a[0] - b[0]) / 2,
    "aten directly inside rope forward regions",
    (a[1] - b[1]) / 2,
)
