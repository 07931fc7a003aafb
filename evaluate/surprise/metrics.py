"""Scores of a surprise run (one record per video, score.py), per test and per suite.

- A video's surprise is the mean ("avg") or the maximum ("max") of its windows' surprise, for one context length,
  or ("onset", voebench only) the mean over the windows that contain the pair's onset frame: the moment the two
  videos start to differ. "avg" and "max" also weigh how much is left to predict after the violation (a video
  whose object vanished has less motion to predict); "onset" looks only where the violation happens.
- Pairs and comparisons: a pair_id with one plausible video and one violated video is one comparison; a swept
  trial (issue 24: one plausible video and one violated video per violation level, all sharing the pair_id) gives
  one comparison per violated video, each against the plausible twin. Comparisons of one pair_id are resampled
  together (the pair is the cluster), and the plausible video is counted once where videos are counted (AUROC,
  absolute accuracy). For two-video pairs nothing changes.
- Relative accuracy: share of comparisons whose violated video is the more surprising one (a tie counts one half);
  chance 50%. Bootstrap 95% interval (evaluate/uncertainty.py, percentile, fixed seed): per test over its pairs;
  for a suite over tests, then pairs within tests, since pairs of one test share its scene and its difficulty
  (issue 23, 16 tests x 4 pairs: resampling pairs alone gave [25, 48] for Level 2, tests then pairs [23, 52]).
- AUROC: violated videos against plausible ones of the same test, unpaired (Mann-Whitney, ties count one half);
  chance 0.5.
- Absolute accuracy: a video is called violated when its surprise exceeds a threshold taken from plausible videos
  only: the `quantile` (default 0.9) of the plausible videos of the *other* pairs of the test (leave one pair out,
  so a video never sets its own threshold). Mean of the two per-condition accuracies; chance 50%.
- Best context length: per test, the context length with the highest relative accuracy, as the reference figures
  report (selected on the test data, hence optimistic), beside the context length declared in advance.
- Pre-onset gap: before the onset the two videos of a pair show the same frames, so the windows that end before
  the onset must have equal surprise. Reported as the mean absolute difference over those windows, relative to
  the mean surprise, and the share of pairs where it is exactly zero. A gap means the inputs differ (e.g. lossy
  video coding that depends on later frames) or the model is not deterministic.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from voebench.evaluate import uncertainty
from voebench.evaluate.surprise import visibility

AGGREGATES = ("avg", "max", "onset")
N_BOOT = 2000
#: Sampled frames per window where a record does not say (records written before `window` was stored).
WINDOW = 16


def onset_windows(rec: dict) -> list[int]:
    """Indices of the windows whose frames include the onset (last frame in [onset, onset + span)); where none
    does, the first window that ends after the onset, or else the last window."""
    ends, onset = rec["window_end"], rec.get("onset")
    if onset is None:
        return list(range(len(ends)))
    span = (int(rec.get("window", WINDOW)) - 1) * int(rec.get("frame_step", 1)) + 1
    sel = [i for i, e in enumerate(ends) if onset <= e < onset + span]
    if sel:
        return sel
    after = [i for i, e in enumerate(ends) if e >= onset]
    return after[:1] or [len(ends) - 1]


def video_score(rec: dict, context: int, agg: str) -> float:
    s = rec["surprise"][str(context)]
    if agg == "onset":
        return float(np.mean([s[i] for i in onset_windows(rec)]))
    return float(np.mean(s) if agg == "avg" else np.max(s))


def _level_key(r: dict) -> tuple[float, str]:
    """Violated videos of one trial in order of their level (a sweep's ids end in -1, -2, ..., -10: by id alone
    -10 would come before -2), then by id."""
    level = r.get("violation_level")
    return (float(level) if level is not None else 0.0, str(r.get("id", "")))


def comparisons(records: list[dict]) -> list[tuple[dict, dict]]:
    """(plausible record, violated record) for every violated video whose pair_id has a plausible video: one per
    pair, or for a swept trial one per violated video (in order of level); pairs in order of pair_id. A pair_id
    with several plausible records keeps the last, as before sweeps."""
    by: dict[str, tuple[dict[bool, dict], list[dict]]] = defaultdict(lambda: ({}, []))
    for r in records:
        if r.get("pair_id"):
            plausible, violated = by[r["pair_id"]]
            if r["plausible"]:
                plausible[True] = r
            else:
                violated.append(r)
    return [
        (plausible[True], v)
        for _pid, (plausible, violated) in sorted(by.items())
        if True in plausible
        for v in sorted(violated, key=_level_key)
    ]


def complete_pairs(records: list[dict]) -> dict[str, tuple[dict, dict]]:
    """pair_id -> (plausible record, violated record), for pairs with a video of each; a swept trial is
    represented by its largest level (all of its comparisons: `comparisons`)."""
    return {p["pair_id"]: (p, v) for p, v in comparisons(records)}


def relative_outcomes(pairs: list[tuple[dict, dict]], context: int, agg: str) -> np.ndarray:
    out = []
    for p, v in pairs:
        a, b = video_score(p, context, agg), video_score(v, context, agg)
        out.append(1.0 if b > a else 0.5 if b == a else 0.0)
    return np.array(out)


def relative_interval(
    pairs: list[tuple[dict, dict]], outcomes: np.ndarray, n_boot: int = N_BOOT, by_test: bool = False, seed: int = 0
) -> uncertainty.Interval:
    """The interval of the relative accuracy (mean outcome over pairs): pairs resampled, or with `by_test` tests
    then pairs within tests."""
    keys = [((p["test"], p["pair_id"]) if by_test else (p["pair_id"],)) for p, _v in pairs]
    levels = ["tests", "pairs"] if by_test else ["pairs"]
    return uncertainty.nested(keys, [(float(o), 1.0) for o in outcomes], levels, n_boot=n_boot, seed=seed)


def _ci(iv: uncertainty.Interval) -> tuple[float, float]:
    """(lo, hi); NaN where there is no interval (the interval dict beside it says why)."""
    return (float("nan"), float("nan")) if iv.lo is None or iv.hi is None else (iv.lo, iv.hi)


def auroc(positive, negative) -> float:
    """P(a positive scores above a negative), ties one half."""
    pos, neg = np.asarray(positive, float), np.asarray(negative, float)
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    gt = (pos[:, None] > neg[None, :]).sum()
    eq = (pos[:, None] == neg[None, :]).sum()
    return float((gt + 0.5 * eq) / (len(pos) * len(neg)))


def _plausible_once(pairs: list[tuple[dict, dict]]) -> list[dict]:
    """The plausible records of `pairs`, each once (a swept trial's plausible twin is in several comparisons)."""
    return list({p["pair_id"]: p for p, _v in pairs}.values())


def absolute_accuracy(pairs: list[tuple[dict, dict]], context: int, agg: str, quantile: float = 0.9) -> float:
    """Mean of the accuracy on plausible videos (each once) and on violated videos, each judged against the
    threshold of the other pairs' plausible videos (a swept trial's violated videos all leave their pair out)."""
    plausible = _plausible_once(pairs)
    if len(plausible) < 2:
        return float("nan")
    plaus = np.array([video_score(p, context, agg) for p in plausible])
    row = {p["pair_id"]: i for i, p in enumerate(plausible)}
    thr = [float(np.quantile(np.delete(plaus, i), quantile)) for i in range(len(plausible))]
    ok_p = [plaus[i] <= thr[i] for i in range(len(plausible))]
    ok_v = [video_score(v, context, agg) > thr[row[p["pair_id"]]] for p, v in pairs]
    return 0.5 * (float(np.mean(ok_p)) + float(np.mean(ok_v)))


def pre_onset_gap(pairs: list[tuple[dict, dict]], contexts) -> dict:
    """Mean |difference| of the windows that end before the onset, over pairs that have such windows."""
    gaps, scales, exact = [], [], []
    for p, v in pairs:
        onset = v.get("onset")
        if onset is None or p["window_end"] != v["window_end"]:
            continue
        keep = [i for i, e in enumerate(p["window_end"]) if e < onset]
        if not keep:
            continue
        d = [abs(p["surprise"][str(c)][i] - v["surprise"][str(c)][i]) for c in contexts for i in keep]
        s = [abs(p["surprise"][str(c)][i]) for c in contexts for i in keep]
        gaps.append(float(np.mean(d)))
        scales.append(float(np.mean(s)))
        exact.append(max(d) == 0.0)
    if not gaps:
        return {"pairs": 0, "mean_abs_diff": None, "relative": None, "exactly_equal": None}
    return {
        "pairs": len(gaps),
        "mean_abs_diff": float(np.mean(gaps)),
        "max_abs_diff": float(np.max(gaps)),
        "relative": float(np.mean(gaps)) / max(float(np.mean(scales)), 1e-12),
        "exactly_equal": float(np.mean(exact)),
    }


def test_scores(
    pairs: list[tuple[dict, dict]], contexts, fixed: int, n_boot: int, quantile: float, by_test: bool = False
) -> dict:
    """Scores of a set of pairs (one test, or with `by_test` a suite, whose interval resamples tests then pairs)."""
    per_c: dict[str, dict] = {}
    for c in contexts:
        row = {}
        for agg in AGGREGATES:
            o = relative_outcomes(pairs, c, agg)
            pos = [video_score(v, c, agg) for _, v in pairs]
            neg = [video_score(p, c, agg) for p in _plausible_once(pairs)]
            iv = relative_interval(pairs, o, n_boot, by_test)
            row[agg] = {
                "relative": float(o.mean()) if len(o) else float("nan"),
                "relative_ci": _ci(iv),
                "interval": iv.as_dict(),
                "auroc": auroc(pos, neg),
                "absolute": absolute_accuracy(pairs, c, agg, quantile),
            }
        per_c[str(c)] = row

    def best_for(agg: str) -> int:  # ties go to the context nearest the pre-declared one
        return max(contexts, key=lambda c: (per_c[str(c)][agg]["relative"], -abs(c - fixed)))

    best = {agg: best_for(agg) for agg in AGGREGATES}
    return {
        "pairs": len({p["pair_id"] for p, _v in pairs}),
        "comparisons": len(pairs),
        "by_context": per_c,
        "fixed_context": fixed,
        "fixed": {agg: per_c[str(fixed)][agg] for agg in AGGREGATES},
        "best_context": {agg: best[agg] for agg in AGGREGATES},
        "best": {agg: per_c[str(best[agg])][agg] for agg in AGGREGATES},
        "pre_onset": pre_onset_gap(pairs, contexts),
    }


def summarize(records: list[dict], contexts, fixed: int, n_boot: int = N_BOOT, quantile: float = 0.9) -> dict:
    """Per test and per suite (all pairs of the suite pooled) scores; chance levels. Comparisons whose violation
    cannot appear in the scored frames are left out and counted (visibility.py), not scored as ties."""
    compared, left_out = visibility.split(comparisons(records))
    pairs = {p["pair_id"] for p, _v in compared}
    by_test: dict[tuple[str, str], list] = defaultdict(list)
    by_suite: dict[str, list] = defaultdict(list)
    for pv in compared:
        by_test[(pv[0]["suite"], pv[0]["test"])].append(pv)
        by_suite[pv[0]["suite"]].append(pv)
    tests = [
        {"suite": s, "test": t, **test_scores(pv, contexts, fixed, n_boot, quantile)}
        for (s, t), pv in sorted(by_test.items())
    ]
    suites = [
        {"suite": s, **test_scores(pv, contexts, fixed, n_boot, quantile, by_test=True)}
        for s, pv in sorted(by_suite.items())
    ]
    twinned = pairs | {it["pair_id"] for it in left_out["items"]}
    unpaired = len([r for r in records if r.get("pair_id") and r["pair_id"] not in twinned])
    return {
        "chance": {"relative": 0.5, "auroc": 0.5, "absolute": 0.5},
        "contexts": list(contexts),
        "fixed_context": fixed,
        "threshold_quantile": quantile,
        "videos": len(records),
        "pairs": len(pairs),
        "comparisons": len(compared),
        "videos_without_twin": unpaired,
        "left_out": left_out,
        "tests": tests,
        "suites": suites,
    }
