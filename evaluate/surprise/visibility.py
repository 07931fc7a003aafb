"""Comparisons whose violation cannot appear in what the model sees: flagged and left out of the scores.

A world model sees one frame every `frame_step`, in windows of `window` sampled frames. A pair can then show its
two videos' difference to the model nowhere, and its two surprise curves tie in every window. Scoring that as a
tie (one half) would pull every score towards chance by a share that depends on the frame step, not on the model.
So a comparison (plausible video, violated video) is **left out**, with its reason, when:

- `after-scored-windows`: the violation window `[first_frame, last_frame]` starts after the last frame of every
  scored window (a video's tail beyond the last window is never seen; before `first_frame` the twins are equal);
- `between-sampled-frames`: no sampled frame of a scored window lies inside the violation window (a short edit
  that falls between two sampled frames) **and** the frames the model sees are the same in both videos;
- `identical-frames`: the frames the model sees (after its crop) are byte-identical in both videos in every
  scored window although the violation window is sampled (e.g. a hidden edit whose effect the resolution or the
  crop loses);
- `identical-surprise`, only for runs scored before frame digests were stored (`frame_digest`): the surprise is
  exactly equal in every window at every context length, which for a deterministic model means it saw no
  difference (the digests' exact rule replaces it where they exist).

An edit that falls between sampled frames whose *effect* persists (a colour change, a displaced object) still
shows in the later sampled frames: such a comparison is scored, and **flagged** (`edit-between-samples`), since
the model sees the result of the edit and not the edit. Measured on the committed Level 2 runs of
docs/world-models.md (64 pairs, frame step 4): 8 pairs of t01, t02, t12 and t16 have their edit between sampled
frames, and in all 8 the two curves differ; the one pair whose curves tie in every window (t13) has its violation
window sampled and is left out as `identical-surprise`.

A record without a violation window or windows (hand-made records, e.g. in tests) is always kept: nothing says
what the model could see, and its ties count one half as before.
"""

from __future__ import annotations

from collections import Counter

#: Sampled frames per window where a record does not say (records written before `window` was stored).
WINDOW = 16
REASONS = ("after-scored-windows", "between-sampled-frames", "identical-frames", "identical-surprise")


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


def edit_between_samples(v: dict) -> bool:
    """No sampled frame of a scored window lies inside v's violation window (False without a window)."""
    win = v.get("violation_window")
    if not win or not v.get("window_end"):
        return False
    first, last = int(win[0]), int(win[1])
    return not any(first <= f <= last for f in scored_frames(v))


def surprise_equal(p: dict, v: dict) -> bool:
    """The two curves are exactly equal in every window at every context length."""
    return p["window_end"] == v["window_end"] and p["surprise"] == v["surprise"]


def unseen_reason(p: dict, v: dict) -> str | None:
    """Why the comparison (plausible p, violated v) cannot show the violation to the model; None if it can."""
    win = v.get("violation_window")
    if not win or not v.get("window_end"):
        return None  # not a scored run's record (hand-made): nothing says what the model could see
    frames = scored_frames(v)
    if frames and int(win[0]) > frames[-1]:
        return "after-scored-windows"
    differ = frames_differ(p, v)
    same = (not differ) if differ is not None else surprise_equal(p, v)
    if not same:
        return None
    if edit_between_samples(v):
        return "between-sampled-frames"
    return "identical-frames" if differ is not None else "identical-surprise"


def split(compared: list[tuple[dict, dict]]) -> tuple[list[tuple[dict, dict]], dict]:
    """(the comparisons to score, what was left out: counts by reason and by test, each comparison, and the scored
    comparisons flagged `edit-between-samples`)."""
    kept, items, flagged = [], [], []
    for p, v in compared:
        reason = unseen_reason(p, v)
        if reason is None:
            kept.append((p, v))
            if edit_between_samples(v):
                flagged.append({"suite": v["suite"], "test": v["test"], "pair_id": v["pair_id"], "id": v.get("id"),
                                "flag": "edit-between-samples", "violation_window": v.get("violation_window"),
                                "frame_step": v.get("frame_step")})  # fmt: skip
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
        "scored_but_flagged": flagged,
    }
    return kept, left
