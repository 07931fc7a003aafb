"""The reference protocol (evaluate/surprise/reference.py) on stored curves, against numbers recomputed by hand.

The fixture holds the stored curves of three Level 2 tests (4 pairs each) of a committed run (random small
V-JEPA 2, docs/world-models.md, call 1): t05, t09 and t13, whose pair 00002 ties in every window (a tie the
reference counts as wrong and voebench counts one half, or leaves out). Each expected number below is written out
from the formulas of facebookresearch/jepa-intuitive-physics `evals/intuitive_physics/eval.py` (`compute_metrics`)
with plain loops, not with the module's code.
"""

from __future__ import annotations

import csv
import json
import math
import os

import numpy as np
import pytest

from voebench.evaluate.surprise import metrics, reference, report

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "surprise_reference_curves.jsonl")
CONTEXTS = (2, 4, 6, 8, 10)


def _records() -> list[dict]:
    with open(FIXTURE, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _pairs(records, test=None):
    return [(p, v) for p, v in metrics.comparisons(records) if test is None or p["test"] == test]


def _hand(real: list[list[float]], fake: list[list[float]]) -> dict:
    """compute_metrics written out with loops (real[i] matched with fake[i])."""
    n = len(real)
    rmean = [sum(r) / len(r) for r in real]
    fmean = [sum(f) / len(f) for f in fake]
    rmax = [max(r) for r in real]
    fmax = [max(f) for f in fake]
    out = {
        "Relative Accuracy (avg)": 100 * sum(1 for a, b in zip(rmean, fmean) if a < b) / n,
        "Relative Accuracy (max)": 100 * sum(1 for a, b in zip(rmax, fmax) if a < b) / n,
    }
    k = math.ceil(0.9 * n)
    if k < n:
        thr = sorted(rmax)[k]
        out["Absolute Accuracy (max)"] = 100 * (sum(x < thr for x in rmax) + sum(x > thr for x in fmax)) / (2 * n)
    else:
        out["Absolute Accuracy (max)"] = None
    lo, hi = min(rmax), max(fmax)
    best = 0.0
    for i in range(100):
        t = lo + (hi - lo) * i / 99
        best = max(best, (sum(x < t for x in rmax) + sum(x > t for x in fmax)) / (n + n))
    out["Best Absolute Accuracy (max)"] = 100 * best
    for agg, r, f in (("avg", rmean, fmean), ("max", rmax, fmax)):
        # ROC of "real" (positive) scored by -loss: P(real loss < fake loss) + half the ties
        wins = sum((a < b) + 0.5 * (a == b) for a in r for b in f)
        out[f"AUROC ({agg})"] = wins / (n * n)
        # PR curve: one point per distinct score, highest first; trapezoids from recall 0 (precision 1)
        scored = [(-x, 1) for x in r] + [(-x, 0) for x in f]
        pts = [(0.0, 1.0)]
        for s in sorted({s for s, _ in scored}, reverse=True):
            tp = sum(1 for x, y in scored if x >= s and y == 1)
            fp = sum(1 for x, y in scored if x >= s and y == 0)
            pts.append((tp / n, tp / (tp + fp)))
        out[f"AUPRC ({agg})"] = sum((r2 - r1) * (p1 + p2) / 2 for (r1, p1), (r2, p2) in zip(pts, pts[1:]))
    return out


def _curves(pairs, row):
    def loss(rec):
        if row == "Filtered":
            return [min(rec["surprise"][str(c)][w] for c in CONTEXTS) for w in range(len(rec["window_end"]))]
        return list(rec["surprise"][str(row)])

    return [loss(p) for p, _ in pairs], [loss(v) for _, v in pairs]


@pytest.mark.parametrize("test", ["t05_permanence_pin", "t09_gravity_incline", "t13_gravity_continuity_gap"])
def test_rows_equal_the_formulas_by_hand(test):
    pairs = _pairs(_records(), test)
    rows = reference.block_rows(pairs, CONTEXTS)
    assert [r["row"] for r in rows] == [*CONTEXTS, "Filtered"]
    for r in rows:
        want = _hand(*_curves(pairs, r["row"]))
        for key, value in want.items():
            if value is None:
                assert r[key] is None, (test, r["row"], key)
            else:
                assert r[key] == pytest.approx(value, abs=1e-9), (test, r["row"], key)


def test_a_tie_counts_wrong_and_the_figure_takes_the_best_row():
    records = _records()
    pairs = _pairs(records, "t13_gravity_continuity_gap")
    tie = [(p, v) for p, v in pairs if p["surprise"] == v["surprise"]]
    assert len(tie) == 1  # pair 00002: equal curves in every window
    rows = reference.block_rows(pairs, CONTEXTS)
    at8 = next(r for r in rows if r["row"] == 8)
    others = [(p, v) for p, v in pairs if (p, v) != tie[0]]
    wins = sum(np.mean(v["surprise"]["8"]) > np.mean(p["surprise"]["8"]) for p, v in others)
    assert at8["Relative Accuracy (avg)"] == pytest.approx(100 * wins / 4)  # the tie is in the denominator, as 0
    value, row = reference.figure_value(rows)
    assert value == max(r["Relative Accuracy (avg)"] for r in rows)
    assert next(r for r in rows if r["row"] == row)["Relative Accuracy (avg)"] == value


def test_absolute_accuracy_needs_ten_real_videos():
    """The reference's threshold index ceil(0.9 n) is past the end below 10 pairs; with 12 it is defined."""
    records = _records()
    few = reference.block_rows(_pairs(records, "t05_permanence_pin"), CONTEXTS)
    assert all(r["Absolute Accuracy (max)"] is None for r in few)
    pooled = [(dict(p, test="all"), dict(v, test="all")) for p, v in _pairs(records)]
    assert len(pooled) == 12
    rows = reference.block_rows(pooled, CONTEXTS)
    real, fake = _curves(pooled, 8)
    thr = sorted(max(r) for r in real)[11]  # ceil(0.9 * 12) = 11
    at8 = next(r for r in rows if r["row"] == 8)
    assert at8["Classifier threhshold"] == thr
    want = 100 * (sum(max(r) < thr for r in real) + sum(max(f) > thr for f in fake)) / 24
    assert at8["Absolute Accuracy (max)"] == pytest.approx(want)


def test_auprc_matches_scikit_learn():
    sk = pytest.importorskip("sklearn.metrics")
    pairs = _pairs(_records())
    real, fake = _curves(pairs, 6)
    labels = np.r_[np.ones(len(real)), np.zeros(len(fake))]
    scores = -np.r_[[np.max(r) for r in real], [np.max(f) for f in fake]]
    p, r, _ = sk.precision_recall_curve(labels, scores)
    got = reference.compute_metrics([np.array(x) for x in real], [np.array(x) for x in fake])
    assert got["AUPRC (max)"] == pytest.approx(sk.auc(r, p), abs=1e-12)
    fpr, tpr, _ = sk.roc_curve(labels, scores)
    assert got["AUROC (max)"] == pytest.approx(sk.auc(fpr, tpr), abs=1e-12)


def test_report_writes_the_reference_csv_and_both_protocols(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    with open(FIXTURE, encoding="utf-8") as src, open(run / "surprise.jsonl", "w", encoding="utf-8") as dst:
        dst.write(src.read())
    summary = report.write_report(str(run), n_boot=200)
    path = run / "reference" / "grasp-l2" / "performance.csv"
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter=";"))
    assert tuple(rows[0]) == reference.HEADER
    assert len(rows) == 1 + 3 * 6  # three tests, five context lengths and Filtered each
    assert [r[1] for r in rows[1:7]] == ["2", "4", "6", "8", "10", "Filtered"]
    t09 = [r for r in rows[1:] if r[0] == "t09_gravity_incline" and r[1] == "8"][0]
    pairs = _pairs(_records(), "t09_gravity_incline")
    assert float(t09[3]) == pytest.approx(_hand(*_curves(pairs, 8))["Relative Accuracy (avg)"], abs=1e-5)
    suite = summary["reference"]["suites"][0]
    figures = [t["figure"]["value"] for t in summary["reference"]["tests"]]
    assert suite["figure"] == pytest.approx(np.mean(figures))
    text = (run / "report.md").read_text(encoding="utf-8")
    assert "Both protocols" in text and "reference figure" in text
