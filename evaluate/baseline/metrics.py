"""VoE metrics over surprise scores (numpy only).

A *score* is how surprising a model finds a video (higher = more surprising); the label is 1 for a surprising and
0 for an expected video; the two videos of one trial share a ``pair_id``.

- ``hit_rate`` -- the number in supplementary Table 4, as the original code computes it: over (expected,
  surprising) pairs of the same trial, 1 if score(expected) < score(surprising), 0.5 if equal, 0 otherwise, averaged.
- ``relative_accuracy`` -- the strict paired relative accuracy: the fraction of pairs whose surprising video scores
  strictly higher (ties count as wrong). With binary scores (OFPR-Net, OF-Net) it is the fraction of pairs where
  exactly the surprising video is flagged; ``hit_rate`` gives ties half credit instead.
- ``absolute_accuracy`` -- per video, score >= 0.5 read as "surprising", compared with the label.
- ``auc`` -- area under the ROC curve of the scores against the labels over all videos (the original uses
  ``sklearn.metrics.roc_auc_score``; this is the same Mann-Whitney statistic, ties counting one half).

The original averaged hit rate and AUC over test batches of 100 videos; with complete pairs in every batch that is
the same hit rate as over the whole set, and AUC differs only slightly. ``batched`` reproduces it when wanted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def make_pairs(labels: Sequence[int], pair_ids: Sequence[str]) -> list[tuple[int, int]]:
    """(index of expected, index of surprising) for every pair_id that has exactly one video of each kind."""
    seen: dict[str, dict[int, int]] = {}
    for i, (lab, pid) in enumerate(zip(labels, pair_ids)):
        if pid is None:
            continue
        seen.setdefault(str(pid), {})[int(lab)] = i
    return [(d[0], d[1]) for d in seen.values() if 0 in d and 1 in d]


def hit_rate(scores, labels, pair_ids) -> float:
    """Original AVoE hit rate: mean over pairs of 1 / 0.5 / 0 for exp < / == / > surprising. NaN without pairs."""
    s = np.asarray(scores, dtype=np.float64)
    pairs = make_pairs(labels, pair_ids)
    if not pairs:
        return float("nan")
    e, u = np.array(pairs).T
    return float(np.mean(np.where(s[e] < s[u], 1.0, np.where(s[e] == s[u], 0.5, 0.0))))


def relative_accuracy(scores, labels, pair_ids) -> float:
    """Strict paired relative accuracy: fraction of pairs with score(surprising) > score(expected)."""
    s = np.asarray(scores, dtype=np.float64)
    pairs = make_pairs(labels, pair_ids)
    if not pairs:
        return float("nan")
    e, u = np.array(pairs).T
    return float(np.mean(s[u] > s[e]))


def absolute_accuracy(scores, labels, threshold: float = 0.5) -> float:
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    if len(s) == 0:
        return float("nan")
    return float(np.mean((s >= threshold).astype(np.int64) == y))


def auc(scores, labels) -> float:
    """ROC AUC (= P(score of a random surprising video > that of a random expected one), ties 1/2). NaN if one
    class is missing."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    pos, neg = s[y == 1], s[y == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    # rank-based (average ranks for ties): U / (n_pos * n_neg)
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    u = ranks[y == 1].sum() - len(pos) * (len(pos) + 1) / 2.0
    return float(u / (len(pos) * len(neg)))


def batched(metric: Callable[..., float], batch_size: int, *arrays) -> float:
    """Mean of ``metric`` over consecutive batches of ``batch_size`` videos (the original's test batching),
    skipping batches where it is NaN."""
    n = len(arrays[0])
    vals = []
    for start in range(0, n, batch_size):
        v = metric(*(np.asarray(a)[start : start + batch_size] for a in arrays))
        if not np.isnan(v):
            vals.append(v)
    return float(np.mean(vals)) if vals else float("nan")


def all_metrics(scores, labels, pair_ids) -> dict[str, float]:
    """Every metric above, plus the counts they came from."""
    return {
        "hit_rate": hit_rate(scores, labels, pair_ids),
        "relative_accuracy": relative_accuracy(scores, labels, pair_ids),
        "absolute_accuracy": absolute_accuracy(scores, labels),
        "auc": auc(scores, labels),
        "n_videos": int(len(scores)),
        "n_pairs": len(make_pairs(labels, pair_ids)),
    }
