"""`voebench verify`: every file of a rendered set against its manifest and docs/schema.md, and whole pairs.

The folder itself must be one voebench wrote (dataset.json, a manifest whose every line parses): otherwise
`open_set` refuses it (UsageError, exit 2) and nothing is touched. Problems with the videos are reported (exit
1): a broken or missing file, a file made by other code than dataset.json records, an orphan (a paired video
whose twin is not in the manifest) and a pair with a broken video. `--repair` deletes every file of each such
trial and drops its manifest lines, so the next `render` makes the whole trial again from one code.
"""

from __future__ import annotations

import glob
import json
import os

import h5py
import numpy as np

from voebench.contract import dataset as ds
from voebench.contract import hdf5 as layout
from voebench.contract import manifest as mf
from voebench.contract import pairs
from voebench.errors import UsageError
from voebench.generator.output import mp4_complete


def open_set(out: str) -> tuple[dict, list[dict]]:
    """(dataset.json, manifest entries) of a finished set, read strictly; UsageError for anything else."""
    if not os.path.isdir(out):
        raise UsageError(f"{out}: no such directory")
    path = os.path.join(out, ds.NAME)
    if not os.path.exists(path):
        raise UsageError(f"{out}: no {ds.NAME}; not a set voebench rendered")
    info = ds.read_dataset(path)
    mpath = os.path.join(out, mf.NAME)
    if not os.path.exists(mpath):
        raise UsageError(f"{mpath}: missing (run `voebench merge {out}` after sharded renders)")
    return info, mf.read_manifest(mpath, truncated="error")


def check_h5(path: str, entry: dict, code: dict | None = None) -> list[str]:
    """Problems of one HDF5 against its manifest entry; `code` is dataset.json's identity.code of its suite."""
    errs = []
    T, H, W = entry["n_frames"], entry["height"], entry["width"]
    try:
        with h5py.File(path, "r") as f:
            for a in layout.ROOT_ATTRS:
                if a not in f.attrs:
                    errs.append(f"missing attribute {a}")
            if not f.attrs.get("complete", False):
                errs.append("not marked complete")
            if f.attrs.get("id") != entry["id"]:
                errs.append(f"id {f.attrs.get('id')!r} does not match the manifest")
            if (
                code is not None
                and "code_fingerprint" in f.attrs
                and (
                    f.attrs["code_fingerprint"] != code.get("core")
                    or f.attrs.get("scene_fingerprint") != code.get("tests", {}).get(entry["test"])
                )
            ):
                errs.append("made by other code than dataset.json records")
            json.loads(f.attrs.get("params", "{}"))
            seg = None
            for name in ("depth", "segmentation"):
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
                for k in layout.OBJECT_REQUIRED_ATTRS:
                    if k not in g.attrs:
                        errs.append(f"objects/{name}: missing attribute {k}")
                for k, rest in layout.OBJECT_SERIES.items():
                    if k not in g or g[k].shape != (T, *rest):
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
            elif any(a not in cam.attrs for a in layout.CAMERA_ATTRS):
                errs.append(f"camera: missing attribute {', '.join(layout.CAMERA_ATTRS)}")
            if entry.get("violation") and "violation" not in f:
                errs.append("missing group violation (the manifest records one)")
    except (OSError, KeyError, ValueError) as e:
        errs.append(f"unreadable ({type(e).__name__}: {e})")
    return errs


def check_mp4(path: str, entry: dict) -> list[str]:
    from voebench.generator.io.video import count_frames

    if not mp4_complete(path):
        return ["truncated or not an mp4"]
    try:
        n = count_frames(path)
    except Exception as e:  # noqa: BLE001 (ffmpeg's errors vary; any failure to decode is a broken file)
        return [f"cannot be decoded ({e})"]
    return [] if n == entry["n_frames"] else [f"has {n} frames, expected {entry['n_frames']}"]


def verify(out: str, repair: bool = False) -> tuple[list[str], int]:
    """(problems, videos checked). Refuses (UsageError) a folder that is not a finished voebench set."""
    info, entries = open_set(out)
    problems = []
    for vid in mf.duplicate_ids(entries):
        problems.append(f"{mf.NAME}: {vid} is listed more than once")
    entries = list(mf.by_id(entries).values())
    broken_trials: set[str] = set()
    for e in entries:
        bad = []
        code = info["suites"].get(e["suite"], {}).get("identity", {}).get("code")
        h5 = os.path.join(out, e["states"])
        bad += [f"{e['states']}: {m}" for m in (check_h5(h5, e, code) if os.path.exists(h5) else ["missing"])]
        if e.get("video"):
            mp4 = os.path.join(out, e["video"])
            bad += [f"{e['video']}: {m}" for m in (check_mp4(mp4, e) if os.path.exists(mp4) else ["missing"])]
        problems += bad
        if bad:
            broken_trials.add(e.get("pair_id") or e["id"])
    # whole pairs: an orphan's twin is not in the manifest; a pair with a broken video is incomplete too
    orphans = pairs.incomplete_pairs(entries)
    for e in entries:
        if e.get("pair_id") in orphans:
            problems.append(f"{e['id']}: orphan: its twin ({', '.join(orphans[e['pair_id']])}) is missing")
    for pid in sorted(t for t in broken_trials if t in {e.get("pair_id") for e in entries} and t not in orphans):
        problems.append(f"{pid}: incomplete pair (a video of it is broken)")
    if repair:
        doomed = broken_trials | set(orphans)
        gone = [e for e in entries if (e.get("pair_id") or e["id"]) in doomed]
        files = {os.path.join(out, rel) for e in gone for rel in (e["states"], e.get("video")) if rel}
        for pid in doomed & {e.get("pair_id") for e in entries}:  # a twin missing from the manifest may be on disk
            files.update(
                p for p in glob.glob(os.path.join(out, glob.escape(pid) + "-*")) if p.endswith((".h5", ".mp4"))
            )
        for path in sorted(files):
            if os.path.exists(path):
                os.remove(path)
        if gone:
            ids = {e["id"] for e in gone}
            mf.write_manifest(os.path.join(out, mf.NAME), [e for e in entries if e["id"] not in ids])
    return problems, len(entries)
