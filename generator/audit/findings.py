"""What a failed check reports: a `Finding` (check, object, frames, detail), and how frame lists are quoted."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from voebench.generator.audit.tolerances import MAX_FRAMES_LISTED


@dataclass
class Finding:
    """One failed check on one object over some frames."""

    check: str
    object: str
    frames: list
    detail: str
    other: str | None = None  # the other object, for pair checks


def frame_list(mask_or_list) -> list:
    """Frame indices as plain ints, from a boolean mask or an index array."""
    idx = np.flatnonzero(mask_or_list) if np.asarray(mask_or_list).dtype == bool else np.asarray(mask_or_list)
    return [int(i) for i in idx]


def fmt_frames(frames: list) -> str:
    """`1,2,3`, or the first MAX_FRAMES_LISTED and a count."""
    if len(frames) <= MAX_FRAMES_LISTED:
        return ",".join(map(str, frames))
    return ",".join(map(str, frames[:MAX_FRAMES_LISTED])) + f",... ({len(frames)} frames)"
