"""`voebench verify`: every file of a rendered set against its manifest and docs/schema.md."""

from __future__ import annotations

import json
import os

import h5py
import numpy as np

from voebench.generator.output import mp4_complete

ROOT_ATTRS = ("id", "suite", "test", "condition", "seed", "fps", "params", "generator_version", "n_frames",
              "width", "height")
MANIFEST_KEYS = ("id", "suite", "test", "condition", "pair_id", "seed", "video", "states", "n_frames", "fps",
                 "width", "height", "prompts")
OBJECT_SERIES = {"position": 3, "quaternion": 4, "color": 3}


def check_h5(path: str, entry: dict) -> list[str]:
    errs = []
    T, H, W = entry["n_frames"], entry["height"], entry["width"]
    try:
        with h5py.File(path, "r") as f:
            for a in ROOT_ATTRS:
                if a not in f.attrs:
                    errs.append(f"missing attribute {a}")
            if not f.attrs.get("complete", False):
                errs.append("not marked complete")
            if f.attrs.get("id") != entry["id"]:
                errs.append(f"id {f.attrs.get('id')!r} does not match the manifest")
            json.loads(f.attrs.get("params", "{}"))
            seg = None
            for name, dtype in (("depth", np.float32), ("segmentation", np.uint16)):
                if name not in f:
                    if name in entry.get("params", {}).get("config", {}).get("passes", [name]):
                        errs.append(f"missing dataset {name}")
                    continue
                if f[name].shape != (T, H, W):
                    errs.append(f"{name} has shape {f[name].shape}, expected {(T, H, W)}")
                    continue
                unique = f[f"_unique/{name}"][()] if f[name].is_virtual else f[name][()]
                if name == "segmentation":
                    seg = unique
                elif not np.all((unique > 0) | np.isinf(unique)):
                    errs.append("depth has non-positive values")
            mapping = f["_unique/frame_to_unique"][()] if "_unique/frame_to_unique" in f else np.arange(T)
            ids = {}
            for name, g in f["objects"].items():
                ids[int(g.attrs["id"])] = name
                for k in ("id", "role", "shape", "dimensions"):
                    if k not in g.attrs:
                        errs.append(f"objects/{name}: missing attribute {k}")
                for k, width in OBJECT_SERIES.items():
                    if k not in g or g[k].shape != (T, width):
                        errs.append(f"objects/{name}/{k}: missing or wrong shape")
                for k in ("visible", "visible_pixels"):
                    if k not in g or g[k].shape != (T,):
                        errs.append(f"objects/{name}/{k}: missing or wrong shape")
                if "quaternion" in g and not np.allclose(np.linalg.norm(g["quaternion"][()], axis=1), 1, atol=1e-6):
                    errs.append(f"objects/{name}/quaternion: not unit length")
                if seg is not None and "visible_pixels" in g:
                    counts = (seg == g.attrs["id"]).sum(axis=(1, 2))[mapping]
                    if not np.array_equal(counts, g["visible_pixels"][()]):
                        errs.append(f"objects/{name}/visible_pixels: differs from the segmentation")
            if seg is not None:
                stray = set(np.unique(seg).tolist()) - set(ids) - {0}
                if stray:
                    errs.append(f"segmentation holds ids {sorted(stray)} that name no object")
            cam = f.get("camera")
            if cam is None or cam["intrinsics"].shape != (3, 3) or cam["extrinsics"].shape != (T, 4, 4):
                errs.append("camera: missing or wrong shape")
    except (OSError, KeyError, ValueError) as e:
        errs.append(f"unreadable ({type(e).__name__}: {e})")
    return errs


def check_mp4(path: str, entry: dict) -> list[str]:
    from voebench.generator.io.video import count_frames

    if not mp4_complete(path):
        return ["truncated or not an mp4"]
    try:
        n = count_frames(path)
    except Exception as e:  # ffmpeg's error text varies; any failure to decode is a broken file
        return [f"cannot be decoded ({e})"]
    return [] if n == entry["n_frames"] else [f"has {n} frames, expected {entry['n_frames']}"]


def verify(out: str, repair: bool = False) -> tuple[list[str], int]:
    problems = []
    mpath = os.path.join(out, "manifest.jsonl")
    if not os.path.exists(mpath):
        return [f"{mpath}: missing (run `voebench merge {out}` after sharded renders)"], 0
    entries = []
    with open(mpath) as f:
        for i, line in enumerate(f, 1):
            try:
                e = json.loads(line)
            except ValueError:
                problems.append(f"manifest.jsonl line {i}: not JSON")
                continue
            missing = [k for k in MANIFEST_KEYS if k not in e]
            if missing:
                problems.append(f"manifest.jsonl line {i}: missing {', '.join(missing)}")
                continue
            entries.append(e)
    listed = set()
    for e in entries:
        bad = []
        h5 = os.path.join(out, e["states"])
        listed.add(os.path.normpath(h5))
        bad += [f"{e['states']}: {m}" for m in (check_h5(h5, e) if os.path.exists(h5) else ["missing"])]
        if e.get("video"):
            mp4 = os.path.join(out, e["video"])
            listed.add(os.path.normpath(mp4))
            bad += [f"{e['video']}: {m}" for m in (check_mp4(mp4, e) if os.path.exists(mp4) else ["missing"])]
        problems += bad
        if bad and repair:
            for rel in (e["states"], e.get("video")):
                if rel and os.path.exists(os.path.join(out, rel)):
                    os.remove(os.path.join(out, rel))
    return problems, len(entries)
