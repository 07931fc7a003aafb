"""A tiny synthetic AVoE set in the rendered-set layout (manifest.jsonl + mp4 + HDF5), for tests and smoke runs.

Labels are random but consistent: features are sampled per category, prior rules follow from the features and the
expected posterior rules from features and priors by fixed toy physics (below); a surprising video is the same
trial with its relevant posterior rules flipped. The clips are drawn so the labels are visible: an object-like
rectangle whose size follows the first two relevant scalars and whose colour follows the shape class, one gauge
bar per relevant feature along the top (its length is the value), and, in the second half of the clip, a bar
whose position encodes the observed posterior rules. So a model that reads the features and knows the toy physics
can tell expected from surprising; one that only looks at the outcome cannot. No torch, no bpy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from voebench.contract import avoe_labels as L

SPLITS = ("train", "validation", "test")


def _toy_trial(category: str, rng: np.random.Generator) -> tuple[dict, dict, dict]:
    """(features, prior_rules, expected posterior_rules) for one trial of ``category``."""
    u = lambda lo, hi: float(np.round(rng.uniform(lo, hi), 2))  # noqa: E731
    shape = lambda: L.SHAPES[int(rng.integers(len(L.SHAPES)))]  # noqa: E731
    f: dict[str, Any]
    if category == "A":
        f = {
            "object_height": u(0.6, 1.4),
            "object_width": u(0.4, 1.8),
            "contact_point": u(0.2, 0.8),
            "object_shape": shape(),
        }
        falls = f["contact_point"] > 0.5
        pri = {"object_majority_contact": not falls, "object_majority_volume": not falls}
        post = {"support_holds_object": not falls}
    elif category == "B":
        f = {
            "object_height": u(0.4, 1.6),
            "object_width": u(0.4, 1.6),
            "middle_segment_height": u(0.1, 0.9),
            "object_shape": shape(),
        }
        taller = f["object_height"] * 0.5 > f["middle_segment_height"]
        pri = {"object_taller_than_middle": taller}
        post = {"object_seen_in_middle": taller}
    elif category == "C":
        f = {
            "object_height": u(0.4, 1.4),
            "object_width": u(0.4, 1.4),
            "container_height": u(0.5, 1.5),
            "container_width": u(0.5, 1.5),
            "object_shape": shape(),
            "container_shape": L.CONTAINER_SHAPES[int(rng.integers(2))],
        }
        taller = f["object_height"] > f["container_height"]
        thinner = f["object_width"] < f["container_width"]
        pri = {"object_taller_than_container": taller, "object_thinner_than_container": thinner}
        post = {"object_fit": thinner, "object_protruded": thinner and taller}
    elif category == "D":
        sizes = [0.5, 0.75, 1.0, 1.25, 1.5]
        speeds = [0.5, 1.0, 1.5, 2.0, 2.5]
        hl, hr = (float(rng.choice(sizes)) for _ in range(2))
        vl, vr = (float(rng.choice(speeds)) for _ in range(2))
        # momentum exchange of the toy: the lighter/slower object bounces back
        pl, pr = hl**3 * vl, hr**3 * vr
        left_turns, right_turns = pr >= pl, pl >= pr
        f = {
            "left_size": hl,
            "right_size": hr,
            "left_prior_velocity": vl,
            "right_prior_velocity": -vr,
            "left_posterior_velocity": (-1 if left_turns else 1) * vl * 0.5,
            "right_posterior_velocity": (1 if right_turns else -1) * vr * 0.5,
            "left_shape": shape(),
            "right_shape": shape(),
        }
        pri = {
            "right_object_larger": hr > hl,
            "objects_same_size": hr == hl,
            "right_object_faster": vr > vl,
            "objects_same_speed": vr == vl,
        }
        post = {
            "right_object_changed_direction": right_turns,
            "left_object_changed_direction": left_turns,
            "right_object_sped_up": False,
            "left_object_sped_up": False,
        }
    elif category == "E":
        kind = ["open", "soft", "normal"][int(rng.integers(3))]
        f = {
            "object_height": u(0.4, 1.4),
            "object_width": u(0.4, 1.6),
            "wall_opening": kind == "open",
            "wall_soft": kind == "soft",
            "opening_width": u(0.6, 1.6) if kind == "open" else 0.0,
            "opening_height": u(0.6, 1.8) if kind == "open" else 0.0,
            "object_shape": shape(),
        }
        thinner = f["object_width"] < f["opening_width"]
        shorter = f["object_height"] < f["opening_height"]
        pri = {
            "wall_has_opening": kind == "open",
            "blocker_soft": kind == "soft",
            "object_thinner_than_opening": thinner,
            "object_shorter_than_opening": shorter,
        }
        post = {"object_passed_through_wall": kind == "soft" or (kind == "open" and thinner and shorter)}
    else:
        raise ValueError(category)
    return f, pri, post


def _surprising(category: str, post: dict) -> dict:
    if category == "C":  # the object falls through the container instead, or bounces off
        return {"object_fit": not post["object_fit"], "object_protruded": False}
    if category == "D":
        return {k: (not v if "direction" in k else v) for k, v in post.items()}
    return {k: not v for k, v in post.items()}


def _draw(category: str, feats: dict, post: dict, n_frames: int, size: int, rng) -> np.ndarray:
    """(T, size, size, 3) uint8 frames showing the features and the observed outcome."""
    frames = np.full((n_frames, size, size, 3), 60, np.uint8)
    scalars = [feats[n] for n in L.RELEVANT_FEATURES[category] if L.MODEL_FEATURE_BY_NAME[n].head == "regression"]
    a, b = (scalars + [1.0, 1.0])[:2]
    shape_name = next(
        (feats[n] for n in ("object_shape", "left_shape") if feats.get(n) not in (None, L.IRRELEVANT)), "cube"
    )
    k = L.SHAPES.index(shape_name)
    colour = np.array([(40 * k + 80) % 256, (90 * k + 30) % 256, (150 + 15 * k) % 256], np.uint8)
    w = max(2, int(size * 0.15 * (0.5 + a)))
    h = max(2, int(size * 0.15 * (0.5 + b)))
    bits = [bool(post[n]) for n in L.RELEVANT_POSTERIOR_RULES[category]]
    code = sum(int(x) << i for i, x in enumerate(bits))
    n_codes = 2 ** len(bits)
    # gauges: one bar per relevant feature along the top, length = value (scalars up to 2.5; classes by index),
    # so every feature the labels hold is visible and a network can read it
    band = max(1, size // 48)
    gauges = np.zeros((size, size), bool)
    for k, name in enumerate(L.RELEVANT_FEATURES[category]):
        f = L.MODEL_FEATURE_BY_NAME[name]
        frac = (
            min(float(feats[name]), 2.5) / 2.5
            if f.head == "regression"
            else (f.classes.index(feats[name]) + 1) / len(f.classes)
        )
        y = 1 + k * 2 * band
        gauges[y : y + band, : max(1, int(round(frac * size)))] = True
    for t in range(n_frames):
        frames[t][gauges] = 200
        x0 = int((size - w) * t / max(n_frames - 1, 1))
        y0 = size // 2 - h // 2 + size // 8
        frames[t, y0 : y0 + h, x0 : x0 + w] = colour
        if t >= n_frames // 2:  # the outcome bar
            bx = int((size - 4) * code / max(n_codes - 1, 1))
            frames[t, size - 4 :, bx : bx + 4] = 255
    noise = rng.integers(0, 12, frames.shape, dtype=np.uint8)
    return np.minimum(frames, 243) + noise  # no uint8 wrap-around


def write_video(path: Path, frames: np.ndarray, fps: int) -> None:
    """mp4 of (T, H, W, 3) uint8 RGB frames: H.264 yuv420p with PyAV; else MPEG-4 with OpenCV; else imageio."""
    try:
        import av  # encoders are optional: whichever is installed
    except ImportError:
        av = None  # type: ignore[assignment]
    if av is not None:
        with av.open(str(path), "w") as out:
            stream = out.add_stream("libx264", rate=fps)
            stream.width, stream.height = frames.shape[2], frames.shape[1]
            stream.pix_fmt = "yuv420p"
            stream.options = {"crf": "18"}
            for fr in frames:
                for packet in stream.encode(av.VideoFrame.from_ndarray(fr, format="rgb24")):
                    out.mux(packet)
            for packet in stream.encode():
                out.mux(packet)
        return
    try:
        import cv2  # optional encoder
    except ImportError:
        import imageio.v2 as iio  # the fallback encoder

        iio.mimwrite(str(path), list(frames), fps=fps, codec="libx264", pixelformat="yuv420p", macro_block_size=1)
        return
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (frames.shape[2], frames.shape[1]))
    for fr in frames:
        writer.write(cv2.cvtColor(fr, cv2.COLOR_RGB2BGR))
    writer.release()


def write_synthetic_avoe(
    out: str | os.PathLike,
    categories=("A",),
    trials: dict | int = 4,
    n_frames: int = 8,
    size: int = 32,
    fps: int = 24,
    seed: int = 0,
) -> Path:
    """Write a synthetic AVoE set to ``out``; ``trials`` per split (int, or {"train": n, ...}), each trial an
    expected + surprising pair. Returns ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if isinstance(trials, int):
        trials = {s: trials for s in SPLITS}
    rng = np.random.default_rng(seed)
    lines = []
    for cat in categories:
        index = 0
        for split in SPLITS:
            for _ in range(trials.get(split, 0)):
                feats, pri, post = _toy_trial(cat, rng)
                test = f"{cat}1"
                for condition in ("expected", "surprising"):
                    observed = post if condition == "expected" else _surprising(cat, post)
                    lab = L.make_labels(cat, feats, pri, observed)
                    vid = f"avoe/{test}/{index:05d}-{condition}"
                    rel = Path("avoe") / test / f"{index:05d}-{condition}"
                    (out / rel).parent.mkdir(parents=True, exist_ok=True)
                    frames = _draw(cat, lab["features"], observed, n_frames, size, rng)
                    write_video(out / rel.with_suffix(".mp4"), frames, fps)
                    with h5py.File(out / rel.with_suffix(".h5"), "w") as h:
                        h.attrs.update(
                            {
                                "id": vid,
                                "suite": "avoe",
                                "test": test,
                                "index": index,
                                "condition": condition,
                                "pair_id": f"avoe/{test}/{index:05d}",
                                "fps": fps,
                                "n_frames": n_frames,
                                "width": size,
                                "height": size,
                            }
                        )
                        g = h.create_group("labels")
                        for key in ("features", "prior_rules", "posterior_rules"):
                            g.attrs[key] = json.dumps(lab[key])
                    lines.append(
                        {
                            "id": vid,
                            "suite": "avoe",
                            "test": test,
                            "index": index,
                            "condition": condition,
                            "pair_id": f"avoe/{test}/{index:05d}",
                            "seed": int(seed),
                            "split": split,
                            "video": str(rel.with_suffix(".mp4")),
                            "states": str(rel.with_suffix(".h5")),
                            "n_frames": n_frames,
                            "fps": fps,
                            "width": size,
                            "height": size,
                            "labels": lab,
                            "prompts": [],
                            "description": "synthetic",
                            "violation": None,
                            "params": {},
                        }
                    )
                index += 1
    (out / "dataset.json").write_text(
        json.dumps({"generator": "voebench.evaluate.baseline.synthetic", "counts": {"videos": len(lines)}})
    )
    with open(out / "manifest.jsonl", "w") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")
    return out
