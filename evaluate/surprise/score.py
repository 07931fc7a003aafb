"""Run a surprise scorer over the videos of a rendered set; one JSON line per video in RUN_DIR/surprise.jsonl.

The videos and their pairs come from the set's manifest (voebench.contract): a paired video's onset is the
violation's `first_frame` of its pair's violated twin, so both videos of a pair carry the same onset. Windows of
several videos are packed into one batch (AVoE's short clips give only a few windows each), and the next videos
decode in the background while the model works (evaluate/frames.py). Re-running the same command resumes: videos
already in surprise.jsonl are skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable

import numpy as np

from voebench.contract import pairs as pairs_mod
from voebench.evaluate import frames as frames_mod
from voebench.evaluate.surprise.motion import MotionEnergyScorer, motion_energy
from voebench.evaluate.surprise.protocol import Protocol, window_ends

CURVES = "surprise.jsonl"
RUN = "run.json"


def is_plausible(condition: str) -> bool:
    """The first condition of a pair vocabulary (plausible, expected) is the one without a violation."""
    return any(condition == vocab[0] for vocab in pairs_mod.PAIR_VOCABULARIES)


def video_items(manifest, entries: list[dict]) -> list[dict]:
    """What the scorer needs of each entry: ids, pair, condition, onset and violation window, where the video is."""
    violation: dict[str, dict] = {}
    for e in entries:
        if e.get("pair_id") and e.get("violation"):
            violation[e["pair_id"]] = e["violation"]
    items = []
    for e in entries:
        if not e.get("video"):
            continue  # a --states-only set has no video to score
        v = violation.get(e.get("pair_id") or "")
        ref = manifest.video(e)
        items.append(
            {
                "id": e["id"],
                "suite": e["suite"],
                "test": e["test"],
                "pair_id": e.get("pair_id"),
                "condition": str(e.get("condition", "")),
                "plausible": is_plausible(str(e.get("condition", ""))),
                "violation_level": e.get("violation_level"),  # issue 24: the psychometric report's level
                "onset": int(v["first_frame"]) if v else None,
                "violation_window": [int(v["first_frame"]), int(v["last_frame"])] if v else None,
                "hidden": bool(v.get("hidden")) if v else None,
                "path": ref.path,
                "n_frames": ref.n_frames,
                "fps": ref.fps,
            }
        )
    return items


def done_ids(run_dir: str) -> set[str]:
    path = os.path.join(run_dir, CURVES)
    if not os.path.isfile(path):
        return set()
    out = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                out.add(json.loads(line)["id"])
            except (ValueError, KeyError):
                continue  # a line cut short by a kill: that video is scored again
    return out


def score_videos(
    scorer,
    items: list[dict],
    protocol: Protocol,
    run_dir: str,
    batch_windows: int = 32,
    progress: Callable[[int], None] | None = None,
) -> dict:
    """Score every item not yet in RUN_DIR/surprise.jsonl. Returns timing: seconds, videos, windows."""
    scorer.check(protocol.window, protocol.context_lengths)
    os.makedirs(run_dir, exist_ok=True)
    done = done_ids(run_dir)
    todo = [it for it in items if it["id"] not in done]
    plans = []
    for it in todo:
        idx = protocol.frames(it["n_frames"], it["fps"])
        starts = protocol.starts(len(idx))
        if not starts:
            raise ValueError(
                f"{it['id']}: {len(idx)} sampled frames, fewer than one window of {protocol.window} "
                "(lower --frame-step or --window)"
            )
        plans.append((it, idx, starts))
    frames_mod.ensure_cache_size(16)
    cs = list(protocol.context_lengths)
    t0 = time.perf_counter()
    n_windows = 0
    pending: list[tuple[int, int, np.ndarray]] = []  # (plan index, window index, clip)
    results: dict[int, np.ndarray] = {}
    digests: dict[int, list[str]] = {}
    # the motion-energy baseline beside every model's curves (motion.py); a motion-energy run needs no copy
    with_motion = not isinstance(scorer, MotionEnergyScorer)
    motion: dict[int, np.ndarray] = {}
    written = 0

    def flush(force: bool) -> None:
        nonlocal n_windows
        while pending and (force or len(pending) >= batch_windows):
            chunk, pending[:] = pending[:batch_windows], pending[batch_windows:]
            clips = np.stack([c for _, _, c in chunk])
            s = scorer.surprise(clips, cs)
            m = motion_energy(clips, cs) if with_motion else None
            n_windows += len(chunk)
            for k, (p, w, _) in enumerate(chunk):
                results[p][w] = s[k]
                if m is not None:
                    motion[p][w] = m[k]

    def write_next(out) -> None:
        """Write the next video's record, in plan order (its windows all scored), and forget its arrays."""
        nonlocal written
        record = _record(
            plans[written],
            results.pop(written),
            protocol,
            digests.pop(written),
            motion.pop(written) if with_motion else None,
        )
        out.write(json.dumps(record) + "\n")
        written += 1

    with open(os.path.join(run_dir, CURVES), "a", encoding="utf-8") as out:
        for p, (it, idx, starts) in enumerate(plans):
            frames_mod.prefetch((q[0]["path"], q[1]) for q in plans[p + 1 : p + 4])
            video = frames_mod.read_frames(it["path"], idx)
            digests[p] = frame_digests(video, getattr(scorer, "visible", None))
            results[p] = np.full((len(starts), len(cs)), np.nan, dtype=np.float64)
            motion[p] = np.full((len(starts), len(cs)), np.nan, dtype=np.float64)
            for w, s in enumerate(starts):
                pending.append((p, w, video[s : s + protocol.window]))
            flush(force=False)
            # write every video whose windows are all scored, in order
            while written <= p and not np.isnan(results[written]).any():
                write_next(out)
                out.flush()
                if progress:
                    progress(1)
        flush(force=True)
        while written < len(plans):
            write_next(out)
            if progress:
                progress(1)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "videos": len(plans), "windows": n_windows, "skipped_done": len(done)}


def frame_digests(video: np.ndarray, visible: Callable | None = None) -> list[str]:
    """A short hash of each sampled frame as the model sees it (`visible`: the scorer's crop, e.g. the central
    square; None: the whole frame). Equal digests in both videos of a pair mean the model cannot tell them apart
    there (visibility.py)."""
    view = visible(video) if visible is not None else video
    return [hashlib.blake2b(np.ascontiguousarray(f).tobytes(), digest_size=8).hexdigest() for f in view]


def _record(
    plan, surprise: np.ndarray, protocol: Protocol, digests: list[str] | None = None, motion: np.ndarray | None = None
) -> dict:
    it, idx, starts = plan
    rec = {k: v for k, v in it.items() if k not in ("path",)}
    rec["frame_step"] = idx[1] - idx[0] if len(idx) > 1 else 1
    rec["sampled_frames"] = len(idx)
    rec["window"] = protocol.window
    rec["window_end"] = window_ends(idx, starts, protocol.window)
    if digests is not None:
        rec["frame_digest"] = digests
    if motion is not None:
        rec["motion"] = {str(c): [float(x) for x in motion[:, j]] for j, c in enumerate(protocol.context_lengths)}
    rec["surprise"] = {str(c): [float(x) for x in surprise[:, j]] for j, c in enumerate(protocol.context_lengths)}
    return rec


def load_curves(run_dir: str) -> list[dict]:
    """The per-video records of a surprise run (a later line for the same id wins)."""
    path = os.path.join(run_dir, CURVES)
    by_id: dict[str, dict] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                by_id[rec["id"]] = rec
    return list(by_id.values())
