"""One surprise run: pick the videos of a rendered set, build the scorer from a `--model` spec, score, report.

Specs name a world-model kind registered in `WORLD_MODELS` (kinds/, one file per kind): `vjepa2:<folder-or-hub-id>`
(transformers' VJEPA2Model.from_pretrained, e.g. `vjepa2:facebook/vjepa2-vitl-fpc64-256`),
`vjepa2-random:<tiny|small|vitl|vitl-128>` (random weights of that configuration: the chance control; vitl is the
released ViT-L's size), `videomae:<folder-or-hub-id>` and `videomae-random:<tiny|base|base-128>` (pixel
reconstruction, videomae.py), and `motion-energy` (no model: the frame-difference energy of the frames to be
predicted, motion.py; the motion confound's control).
"""

from __future__ import annotations

import json
import os
import sys

from voebench.errors import UsageError
from voebench.evaluate.surprise.protocol import Protocol
from voebench.evaluate.surprise.score import RUN, score_videos, video_items


def is_surprise_spec(spec: str) -> bool:
    """Whether `--model spec` names a registered world-model kind (kinds/)."""
    from voebench.evaluate.models.kind import WORLD_MODELS

    return spec.partition(":")[0] in WORLD_MODELS


def make_scorer(spec: str, device: str = "auto", dtype: str = "auto", seed: int = 0):
    """The scorer of a `--model` spec, built by its registered kind (kinds/: one file per kind); `seed` sets the
    random weights of the `-random` kinds."""
    from voebench.evaluate.models.kind import WORLD_MODELS

    kind, _, rest = spec.partition(":")
    return WORLD_MODELS.get(kind, shown=repr(spec)).scorer(rest, device=device, dtype=dtype, seed=seed)


def run_surprise(
    manifest,
    entries: list[dict],
    spec: str,
    out: str,
    protocol: Protocol,
    batch_windows: int = 32,
    device: str = "auto",
    dtype: str = "auto",
    progress: bool = False,
    scorer=None,
    extra: dict | None = None,
) -> dict:
    """Score `entries` of `manifest` into `out`; returns the run info written to run.json."""
    items = video_items(manifest, entries)
    if not items:
        raise UsageError("the selection has no videos to score (a --states-only set?)")
    scorer = scorer or make_scorer(spec, device, dtype)
    try:
        scorer.check(protocol.window, protocol.context_lengths)
    except ValueError as e:
        raise UsageError(str(e)) from None
    os.makedirs(out, exist_ok=True)
    run_path = os.path.join(out, RUN)
    if os.path.isfile(run_path):
        with open(run_path, encoding="utf-8") as fh:
            old = json.load(fh)
        if old.get("model_spec") != spec or old.get("protocol") != protocol.record():
            raise UsageError(f"--out {out}: holds a run of another model or protocol; choose a new directory")
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(items), unit="video", file=sys.stderr)
        except ImportError:
            bar = None
    try:
        timing = score_videos(scorer, items, protocol, out, batch_windows, bar.update if bar else None)
    except ValueError as e:
        raise UsageError(str(e)) from None
    finally:
        if bar:
            bar.close()
    n_pairs = len({it["pair_id"] for it in items if it["pair_id"]})
    sec = timing["seconds"]
    info = {
        "model_spec": spec,
        "model": scorer.info(),
        "protocol": protocol.record(),
        "batch_windows": batch_windows,
        "videos": len(items),
        "pairs": n_pairs,
        "throughput": None,
        **(extra or {}),
    }
    if timing["videos"] and sec > 0:
        scored_pairs = timing["videos"] / 2  # a pair is two videos
        info["throughput"] = {
            "seconds": sec,
            "videos": timing["videos"],
            "windows": timing["windows"],
            "pairs_per_s": scored_pairs / sec,
            "videos_per_s": timing["videos"] / sec,
            "windows_per_s": timing["windows"] / sec,
            "note": "decoding and model time of this invocation (videos already scored are not counted)",
        }
    elif os.path.isfile(run_path):
        with open(run_path, encoding="utf-8") as fh:
            info["throughput"] = json.load(fh).get("throughput")
    with open(run_path, "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=1)
    return info
