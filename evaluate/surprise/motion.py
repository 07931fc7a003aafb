"""The motion-energy baseline: "surprise" = how much the frames to be predicted change, with no model at all.

A world model's prediction error grows with the motion it has to predict, so a video with less motion after the
violation (an object that vanishes or stops) can look *less* surprising for a reason that has nothing to do with
expectations. This baseline measures that confound directly. For a window of T sampled frames and a context length
C, its surprise is the mean absolute difference between consecutive frames over the frames a model would predict:

    energy(C) = mean over t in [C, T) of mean |x_t - x_(t-1)|   (x in [0, 1], RGB, the central square of the frame)

the same windows, context lengths and central-square crop as the world models (protocol.square_box), so its curves
go through the same metrics. `--model motion-energy` scores it alone; every world-model run also stores it beside
the model's curves (`motion` in surprise.jsonl), and the report gives per test the baseline's relative accuracy
and how often the model's verdict on a comparison is the baseline's (motion_agreement).

Only numpy: it runs anywhere, on the CPU.
"""

from __future__ import annotations

import numpy as np

from voebench.evaluate.surprise import metrics
from voebench.evaluate.surprise.protocol import center_square


def motion_energy(clips: np.ndarray, context_lengths) -> np.ndarray:
    """(B, len(context_lengths)) energy of windows (B, T, H, W, 3) uint8 for each context length C (1 <= C < T)."""
    x = center_square(np.asarray(clips)).astype(np.float32) / 255.0
    step = np.abs(np.diff(x, axis=1)).mean(axis=(2, 3, 4))  # (B, T-1): change from frame t-1 to t
    return np.stack([step[:, c - 1 :].mean(axis=1) for c in context_lengths], axis=1).astype(np.float64)


class MotionEnergyScorer:
    """The scorer interface of score.py (check, info, surprise, visible) for the motion-energy baseline."""

    name = "motion-energy"

    def check(self, window: int, context_lengths) -> None:
        bad = [c for c in context_lengths if not 1 <= c < window]
        if bad:
            raise ValueError(f"context lengths must lie in 1..{window - 1}: {bad}")

    def info(self) -> dict:
        return {"kind": "motion-energy", "name": self.name, "parameters": 0, "device": "cpu",
                "preprocess": "center-square-crop"}  # fmt: skip

    def surprise(self, clips, context_lengths) -> np.ndarray:
        return motion_energy(clips, context_lengths)

    def visible(self, video):
        return center_square(video)


def per_test(compared_by_test: dict, context: int, agg: str = "avg") -> list[dict]:
    """For each test: the model's and the motion baseline's relative accuracy over the same comparisons, and the
    share of comparisons where both give the same verdict (violated more surprising, tie, or less). Comparisons
    without stored motion curves (runs before it was stored) are skipped; a test without any has no row."""
    rows = []
    for (suite, test), pairs in sorted(compared_by_test.items()):
        both = [(p, v) for p, v in pairs if "motion" in p and "motion" in v]
        if not both:
            continue
        model = metrics.relative_outcomes(both, context, agg)
        moved = [(dict(p, surprise=p["motion"]), dict(v, surprise=v["motion"])) for p, v in both]
        motion = metrics.relative_outcomes(moved, context, agg)
        rows.append({"suite": suite, "test": test, "comparisons": len(both), "model": float(model.mean()),
                     "motion": float(motion.mean()), "agreement": float((model == motion).mean())})  # fmt: skip
    return rows
