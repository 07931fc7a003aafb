"""Comparisons whose violation cannot appear in what the model sees: flagged and left out of the scores.

A world model sees one frame every `frame_step`, in windows of `window` sampled frames. A pair can then show its
two videos' difference to the model nowhere, and its two surprise curves tie in every window. Scoring that as a
tie (one half) would pull every score towards chance by a share that depends on the frame step, not on the model.
So a comparison (plausible video, violated video) is left out, with its reason, when:

- `after-scored-windows`: the violation window `[first_frame, last_frame]` starts after the last frame of every
  scored window (the video's tail beyond the last window start is never seen);
- `between-sampled-frames`: no sampled frame of a scored window lies inside the violation window (a short edit
  that falls between two sampled frames). The edit's effect may persist (a teleported object stays displaced),
  so the sampled frames after it can still differ: `frames_differ` says whether they did, where the run stored
  frame digests;
- `identical-frames`: the frames the model sees (after its crop) are byte-identical in both videos in every
  scored window, whatever the violation window says (e.g. a hidden edit whose effect is too small for the
  resolution): the surprise must tie.

The first two rules need only `violation_window`, `frame_step`, `window` and `window_end` (every run stores them);
the third needs `frame_digest` (runs scored since it was added). A record without a violation window is kept.
"""

from __future__ import annotations

from collections import Counter

#: Sampled frames per window where a record does not say (records written before `window` was stored).
WINDOW = 16
REASONS = ("after-scored-windows", "between-sampled-frames", "identical-frames")


def scored_frames(rec: dict) -> list[int]:
    """The original indices of the sampled frames that lie in at least one scored window, in order."""
    step = int(rec.get("frame_step", 1))
    span = (int(rec.get("window", WINDOW)) - 1) * step
    seen: set[int] = set()
    for end in rec["window_end"]:
        seen.update(range(end - span, end + 1, step))
    return sorted(f for f in seen if f >= 0)


def frames_differ(p: dict, v: dict) -> bool | None:
    """Whether the two videos differ in a scored sampled frame (None: the run stored no digests, or the two videos
    were sampled differently)."""
    dp, dv = p.get("frame_digest"), v.get("frame_digest")
    if dp is None or dv is None or p["window_end"] != v["window_end"] or len(dp) != len(dv):
        return None
    step = int(v.get("frame_step", 1))
    return any(dp[f // step] != dv[f // step] for f in scored_frames(v) if f // step < len(dp))


def unseen_reason(p: dict, v: dict) -> str | None:
    """Why the comparison (plausible p, violated v) cannot show the violation to the model; None if it can."""
    win = v.get("violation_window")
    if win and v.get("window_end"):
        first, last = int(win[0]), int(win[1])
        frames = scored_frames(v)
        if frames and first > frames[-1]:
            return "after-scored-windows"
        if not any(first <= f <= last for f in frames):
            return "between-sampled-frames"
    if frames_differ(p, v) is False:
        return "identical-frames"
    return None


def split(compared: list[tuple[dict, dict]]) -> tuple[list[tuple[dict, dict]], dict]:
    """(the comparisons to score, what was left out: counts by reason and by test, and each comparison)."""
    kept, items = [], []
    for p, v in compared:
        reason = unseen_reason(p, v)
        if reason is None:
            kept.append((p, v))
        else:
            items.append(
                {
                    "suite": v["suite"],
                    "test": v["test"],
                    "pair_id": v["pair_id"],
                    "id": v.get("id"),
                    "reason": reason,
                    "violation_window": v.get("violation_window"),
                    "frame_step": v.get("frame_step"),
                    "frames_differ": frames_differ(p, v),
                }
            )
    by_test: dict[tuple[str, str], Counter] = {}
    for it in items:
        by_test.setdefault((it["suite"], it["test"]), Counter())[it["reason"]] += 1
    left = {
        "comparisons": len(items),
        "pairs": len({it["pair_id"] for it in items}),
        "by_reason": dict(Counter(it["reason"] for it in items)),
        "by_test": [{"suite": s, "test": t, **dict(c)} for (s, t), c in sorted(by_test.items())],
        "items": items,
    }
    return kept, left
