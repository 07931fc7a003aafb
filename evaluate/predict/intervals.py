"""Bootstrap intervals of a predict group's exact scores (micro and macro F1, outcome accuracy, strict), from the
one uncertainty routine (evaluate/uncertainty.py): the clips (samples) are resampled, each with all its repeats,
so the repeats of one clip never count as independent evidence.

Each statistic is the one exact.aggregate prints, computed on weighted sums: micro F1 from the pooled tp, fp and fn
(precision or recall 1 where its denominator is 0, F1 0 where both are 0, as aggregate does); the others are
means over answers (an unparsed answer scores 0 and stays in the denominator).
"""

from __future__ import annotations

import numpy as np

from voebench.evaluate import uncertainty

METRICS = ("micro_f1", "macro_f1", "outcome_accuracy", "strict")


def micro_f1(sums: np.ndarray) -> np.ndarray:
    """Micro F1 of weighted sums with columns (tp, fp, fn), exactly as exact.aggregate computes it."""
    tp, fp, fn = sums[..., 0], sums[..., 1], sums[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        mp = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1.0), 1.0)
        mr = np.where(tp + fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1.0), 1.0)
        return np.where(mp + mr > 0, 2 * mp * mr / np.where(mp + mr > 0, mp + mr, 1.0), 0.0)


def exact_intervals(answered: list[dict]) -> dict[str, dict]:
    """metric -> interval dict (`uncertainty.Interval.as_dict`) over the answered records of one group."""
    keys = [(str(r["sample_id"]),) for r in answered]
    ex = [r["exact"] for r in answered]
    out = {
        "micro_f1": uncertainty.nested(keys, [(e["tp"], e["fp"], e["fn"]) for e in ex], ["clips"], stat=micro_f1),
        "macro_f1": uncertainty.nested(keys, [(float(e["f1"]), 1.0) for e in ex], ["clips"]),
        "outcome_accuracy": uncertainty.nested(keys, [(float(e["outcome_correct"]), 1.0) for e in ex], ["clips"]),
        "strict": uncertainty.nested(keys, [(float(e["strict"]), 1.0) for e in ex], ["clips"]),
    }
    return {k: iv.as_dict() for k, iv in out.items()}


def ci_text(iv: dict | None) -> str:
    """'0.412–0.688' or '-' (no interval); '*' marks an interval with a note (zero width, one clip, ...)."""
    if not iv or iv.get("lo") is None:
        return "-" + ("*" if iv and iv.get("note") else "")
    return f"{iv['lo']:.3f}–{iv['hi']:.3f}" + ("*" if iv.get("note") else "")
