"""Catch videos: attention checks that test watching, not reading (issue 25).

A catch trial shows a video the participant has already seen earlier in the session and asks whether a red dot
appeared in it. Half of them (alternating, the first one drawn per participant) show the video with a large bright
red dot drawn over its middle part (from 35% to 75% of its frames), the others show it unchanged; only someone who
watched can answer. The answer is known ("yes" where the dot was drawn), so a catch trial is scored as an attention
check (phase "attention", `expect`) and counts in the exclusion rule like the instructed checks.

`--catch-videos N` places N catch trials per participant, evenly over the trials after practice/familiarization
(the i-th after i/(N+1) of them). The videos with the dot are made when the study is made, from the set's own files
(imageio's ffmpeg), one per source video, under STUDY/catch/; the page receives them by trial position like any
video, so it never learns which trials are catch trials with a dot.
"""

from __future__ import annotations

import hashlib
import os
import random

import numpy as np

from voebench.errors import UsageError

QUESTION = "Attention check: did a red dot appear in this video?"
#: Where the videos with a dot live, inside the study folder.
FOLDER = "catch"
#: The share of the frames, from and to, that show the dot.
SPAN = (0.35, 0.75)
#: The dot's radius as a share of the frame's shorter side, and its colour.
RADIUS = 0.22
RED = (255, 0, 0)


def insert(trials: list[dict], n: int, rng: random.Random) -> None:
    """Put `n` catch trials into one participant's `trials` (before positions are assigned), evenly over the trials
    after the practice/familiarization ones, each on a video seen earlier (a judged or practice video); "yes" and
    "no" alternate from a seeded first one."""
    if n <= 0:
        return
    first = next((i for i, t in enumerate(trials) if t["phase"] != "practice"), len(trials))
    span = len(trials) - first
    at = sorted({first + round((i + 1) * span / (n + 1)) for i in range(n)}, reverse=True)
    expect = rng.choice(("yes", "no"))
    answers = [expect if i % 2 == 0 else ("no" if expect == "yes" else "yes") for i in range(len(at))][::-1]
    for slot, want in zip(at, answers):
        seen = [t for t in trials[:slot] if t.get("video") and t["phase"] != "attention"]
        if not seen:  # nothing watched yet: after the first video instead
            seen = [next(t for t in trials if t.get("video") and t["phase"] != "attention")]
            slot = trials.index(seen[0]) + 1
        src = rng.choice(seen)
        trial = {
            "phase": "attention",
            "check": "catch",
            "response": "yesno",
            "question": QUESTION,
            "expect": want,
            "catch_of": src["video_id"],
            "source": src["video"],
            "entry": src.get("entry"),
            "video": src["video"],
        }
        if want == "yes":
            trial.update(video=file_for(src["video"]), video_root="study")
        trials.insert(slot, trial)


def file_for(source: str) -> str:
    """The study-relative path of the dotted copy of the set's video `source` (one per source video)."""
    return f"{FOLDER}/{hashlib.sha256(source.encode()).hexdigest()[:20]}.mp4"


def make_files(set_root: str, study_dir: str, plans: list[list[dict]]) -> int:
    """Write every dotted video the plans show that is not there yet; returns how many were written."""
    todo = {t["video"]: t["source"] for trials in plans for t in trials if t.get("video_root") == "study"}
    made = 0
    for rel, source in sorted(todo.items()):
        out = os.path.join(study_dir, rel)
        if os.path.isfile(out):
            continue
        os.makedirs(os.path.dirname(out), exist_ok=True)
        draw_dot(os.path.join(set_root, source), out)
        made += 1
    return made


def draw_dot(src: str, dst: str) -> None:
    """Copy video `src` to `dst` with the red dot over SPAN of its frames (same size and frame rate)."""
    import imageio.v2 as iio  # only a study with catch videos needs the decoder

    try:
        reader = iio.get_reader(src, format="FFMPEG")
        fps = float(reader.get_meta_data().get("fps") or 25.0)
        frames = [np.asarray(f) for f in reader]
        reader.close()
    except (OSError, RuntimeError, ValueError) as e:
        raise UsageError(f"{src}: cannot read this video to make a catch video from it ({e})") from None
    if not frames:
        raise UsageError(f"{src}: no frames; a catch video needs a video that plays")
    h, w = frames[0].shape[:2]
    lo, hi = (round(x * len(frames)) for x in SPAN)
    hi = max(hi, lo + 1)
    yy, xx = np.ogrid[:h, :w]
    dot = (yy - h / 2) ** 2 + (xx - w / 2) ** 2 <= (RADIUS * min(h, w)) ** 2
    tmp = dst + ".part.mp4"
    writer = iio.get_writer(
        tmp, format="FFMPEG", fps=fps, codec="libx264", pixelformat="yuv420p", macro_block_size=1,
        ffmpeg_log_level="error",
    )  # fmt: skip
    for i, frame in enumerate(frames):
        f = frame[..., :3].copy()
        if lo <= i < hi:
            f[dot] = RED
        writer.append_data(f)
    writer.close()
    os.replace(tmp, dst)
