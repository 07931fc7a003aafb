"""The reference protocol: the metrics of facebookresearch/jepa-intuitive-physics, computed as its code computes them.

voebench's own protocol (metrics.py) is stricter: ties count one half, comparisons the model cannot see are left
out, absolute accuracy sets its threshold leaving the pair out, the headline context is fixed in advance. A user
comparing with the paper (Garrido et al. 2025) needs the paper's numbers instead, so every report also computes
them on the same curves, following `evals/intuitive_physics/eval.py` (`compute_metrics` and its caller) and the
figure notebook (`figures.ipynb`, `get_average_acc` / `get_perf`), read line by line:

- A *block* is a property; here it is a test (the paper's GRASP blocks are GRASP's tests). Its videos are the
  pairs of the test, real (plausible, label 1) and fake (violated, label 0), matched in order.
- For each context length C, a video's loss is its per-window surprise at C. For the **Filtered** row, a window's
  loss is the minimum over the context lengths (`all_losses.min(1)`: the dimension of context lengths).
- **Relative Accuracy (avg / max)**: the share of pairs with `real.mean() < fake.mean()` (or max), **strict**:
  a tie counts as wrong. In percent.
- **Absolute Accuracy (max)**: threshold = the real videos' max-losses sorted, element `ceil(0.9 n)`; accuracy =
  (reals below + fakes above) / all videos. For n < 10 real videos that index is past the end (the reference
  raises IndexError); here the value is None and the report says why.
- **Best Absolute Accuracy (max)**: the best accuracy over 100 thresholds evenly spaced from the smallest real
  max-loss to the largest fake max-loss (an oracle threshold chosen on the test data), divided by twice the number
  of real videos (the reference's denominator; equal to all videos for pairs).
- **AUPRC (avg / max)**: scikit-learn's `precision_recall_curve(labels, -loss)` then `auc(recall, precision)`
  (trapezoids), written out here in numpy: the positive class is the *real* video, scored by minus its loss.
- **AUROC (avg / max)**: the area under the ROC curve of the same scores (trapezoids; equal to the Mann-Whitney
  probability that a real video has the lower loss, ties one half).
- The **figure** number of a property is the maximum of a metric over its rows, the five context lengths *and*
  the Filtered row (`df[df["Block"] == prop][key_metric].max()`); a dataset's number is the mean over properties.
  It is selected on the test data, so it is optimistic (see report.md's side-by-side table).
- The reference computes in float16 autocast (`torch.cuda.amp.autocast(dtype=torch.float16)`); `voebench
  evaluate --protocol reference` scores with float16 autocast on CUDA (the curves, not these formulas, carry it).

Every comparison is scored, as in the reference: none is left out for being invisible (metrics.py leaves those
out). Videos of one block have the same number of windows here; where they would not, a video's mean and max are
over its own windows (the reference pads with zeros to the longest video, which lowers the mean of shorter ones).

CSV files in the reference's layout (semicolon-separated, `%.5f`, one row per context length then `Filtered`):
`write_csvs` writes `reference/<suite>/performance.csv` in a run folder, the file the figure notebook reads.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from typing import Any

import numpy as np

from voebench.evaluate.surprise import metrics

FILTERED = "Filtered"
METRICS = (
    "Relative Accuracy (avg)",
    "Relative Accuracy (max)",
    "Absolute Accuracy (max)",
    "Classifier threhshold",  # sic: the reference's column name
    "Best Absolute Accuracy (max)",
    "Best Classifier threhshold",
    "AUPRC (avg)",
    "AUPRC (max)",
    "AUROC (avg)",
    "AUROC (max)",
)
HEADER = ("Block", "Context length(s)", "Frame skip", *METRICS)
CSV_NAME = "performance.csv"
SOURCE = "facebookresearch/jepa-intuitive-physics: evals/intuitive_physics/eval.py compute_metrics; figures.ipynb"
CSV_DIR = "reference"
#: The metric the paper's figures plot.
KEY_METRIC = "Relative Accuracy (avg)"


def pr_curve(labels: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's `precision_recall_curve` (drop_intermediate=False): precision and recall at each distinct
    score, from the highest threshold down, then the point (recall 0, precision 1)."""
    labels = np.asarray(labels, float)
    scores = np.asarray(scores, float)
    order = np.argsort(scores, kind="mergesort")[::-1]
    s, y = scores[order], labels[order]
    last = np.r_[np.where(np.diff(s))[0], len(s) - 1]  # the last index of each distinct score
    tps = np.cumsum(y)[last]
    fps = 1 + last - tps
    precision = np.divide(tps, tps + fps, out=np.zeros_like(tps), where=(tps + fps) != 0)
    recall = np.ones_like(tps) if tps[-1] == 0 else tps / tps[-1]
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0]


def trapezoid_auc(x: np.ndarray, y: np.ndarray) -> float:
    """scikit-learn's `auc`: the trapezoid area under y(x), x monotonic (a decreasing x counts positive)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    dx = np.diff(x)
    direction = -1.0 if np.all(dx <= 0) else 1.0
    return float(direction * np.sum(dx * (y[1:] + y[:-1]) / 2.0))


def compute_metrics(real: list[np.ndarray], fake: list[np.ndarray]) -> dict[str, float | None]:
    """The reference's `compute_metrics` for matched lists of per-window losses (real[i] pairs with fake[i])."""
    if not real or len(real) != len(fake):
        raise ValueError("compute_metrics needs matched, non-empty lists of real and fake videos")
    r_mean = np.array([float(np.mean(r)) for r in real])
    f_mean = np.array([float(np.mean(f)) for f in fake])
    r_max = np.array([float(np.max(r)) for r in real])
    f_max = np.array([float(np.max(f)) for f in fake])
    n = len(real)
    out: dict[str, float | None] = {
        "Relative Accuracy (avg)": float((r_mean < f_mean).sum()) / n * 100,
        "Relative Accuracy (max)": float((r_max < f_max).sum()) / n * 100,
    }
    k = math.ceil(0.90 * n)
    if k < n:
        thresh = float(np.sort(r_max)[k])
        out["Absolute Accuracy (max)"] = float((r_max < thresh).sum() + (f_max > thresh).sum()) / (2 * n) * 100
        out["Classifier threhshold"] = thresh
    else:  # the reference indexes past the end of the sorted list (IndexError)
        out["Absolute Accuracy (max)"] = None
        out["Classifier threhshold"] = None
    threshs = np.linspace(r_max.min(), f_max.max(), 100)
    accs = np.array([((r_max < t).sum() + (f_max > t).sum()) / (n + n) for t in threshs])
    out["Best Absolute Accuracy (max)"] = float(accs.max()) * 100
    out["Best Classifier threhshold"] = float(threshs[int(np.argmax(accs))])
    labels = np.r_[np.ones(n), np.zeros(n)]
    for agg, r, f in (("avg", r_mean, f_mean), ("max", r_max, f_max)):
        precision, recall = pr_curve(labels, -np.r_[r, f])
        out[f"AUPRC ({agg})"] = trapezoid_auc(recall, precision)
    for agg, r, f in (("avg", r_mean, f_mean), ("max", r_max, f_max)):
        out[f"AUROC ({agg})"] = metrics.auroc(-r, -f)  # equal to roc_curve + auc (trapezoids)
    return out


def _losses(rec: dict, row: int | str, contexts) -> np.ndarray:
    """A video's per-window losses for a context length, or the per-window minimum over contexts (Filtered)."""
    if row == FILTERED:
        return np.min(np.array([rec["surprise"][str(c)] for c in contexts], float), axis=0)
    return np.asarray(rec["surprise"][str(row)], float)


def block_rows(pairs: list[tuple[dict, dict]], contexts) -> list[dict]:
    """One row per context length, then the Filtered row: {"row": C or "Filtered", **metrics}."""
    rows = []
    for row in [*contexts, FILTERED]:
        real = [_losses(p, row, contexts) for p, _v in pairs]
        fake = [_losses(v, row, contexts) for _p, v in pairs]
        rows.append({"row": row, **compute_metrics(real, fake)})
    return rows


def figure_value(rows: list[dict], key: str = KEY_METRIC) -> tuple[float | None, int | str | None]:
    """The figure's number for a block: the maximum of `key` over its rows (context lengths and Filtered), and
    the row that gave it (the first, in row order, on a tie)."""
    vals = [(r[key], r["row"]) for r in rows if r.get(key) is not None]
    if not vals:
        return None, None
    best = max(v for v, _ in vals)
    return best, next(row for v, row in vals if v == best)


def strict_outcomes(pairs: list[tuple[dict, dict]], context: int, agg: str) -> np.ndarray:
    """1 where the violated video's loss is strictly above the plausible twin's, else 0 (ties wrong)."""
    return np.array(
        [1.0 if metrics.video_score(v, context, agg) > metrics.video_score(p, context, agg) else 0.0 for p, v in pairs]
    )


def summarize(records: list[dict], contexts, fixed: int, n_boot: int = metrics.N_BOOT) -> dict:
    """The reference protocol's blocks (tests) and datasets (suites) on every comparison of `records`.

    Per test: the reference rows and the figure value; per suite: the figure's number (mean over tests of their
    figure values), the mean at the pre-declared context, and, for comparison with metrics.py, the strict relative
    accuracy pooled over the suite's comparisons at the pre-declared context with a bootstrap 95% interval over
    tests, then pairs within tests."""
    by_test: dict[tuple[str, str], list] = defaultdict(list)
    for pv in metrics.comparisons(records):
        by_test[(pv[0]["suite"], pv[0]["test"])].append(pv)
    tests: list[dict[str, Any]] = []
    for (suite, test), pairs in sorted(by_test.items()):
        rows = block_rows(pairs, contexts)
        value, row = figure_value(rows)
        tests.append(
            {
                "suite": suite,
                "test": test,
                "pairs": len(pairs),
                "frame_step": int(pairs[0][0].get("frame_step", 1)),
                "rows": rows,
                "figure": {"metric": KEY_METRIC, "value": value, "row": row},
            }
        )
    suites = []
    for suite in sorted({t["suite"] for t in tests}):
        ts = [t for t in tests if t["suite"] == suite]
        pairs = [pv for (s, _t), pvs in sorted(by_test.items()) if s == suite for pv in pvs]
        fixed_vals = [next(r for r in t["rows"] if r["row"] == fixed)[KEY_METRIC] for t in ts]
        o = strict_outcomes(pairs, fixed, "avg")
        iv = metrics.relative_interval(pairs, o, n_boot, by_test=True)
        suites.append(
            {
                "suite": suite,
                "tests": len(ts),
                "comparisons": len(pairs),
                "figure": float(np.mean([t["figure"]["value"] for t in ts])),
                "mean_at_fixed": float(np.mean(fixed_vals)),
                "filtered": float(
                    np.mean([next(r for r in t["rows"] if r["row"] == FILTERED)[KEY_METRIC] for t in ts])
                ),
                "pooled_strict_fixed": float(o.mean()) * 100,
                "pooled_strict_fixed_ci": [
                    None if iv.lo is None else 100 * iv.lo,
                    None if iv.hi is None else 100 * iv.hi,
                ],
                "interval": iv.as_dict(),
            }
        )
    return {
        "source": SOURCE,
        "metric": KEY_METRIC,
        "contexts": list(contexts),
        "fixed_context": fixed,
        "tests": tests,
        "suites": suites,
    }


def _cell(x) -> str:
    return "nan" if x is None else "%.5f" % x  # noqa: UP031  (the reference's CSVLogger format)


def csv_text(tests: list[dict]) -> str:
    """The reference's performance.csv for the blocks of one suite."""
    lines = [";".join(HEADER)]
    for t in tests:
        for r in t["rows"]:
            lines.append(
                ";".join([t["test"], str(r["row"]), str(int(t["frame_step"])), *(_cell(r[k]) for k in METRICS)])
            )
    return "\n".join(lines) + "\n"


def write_csvs(run_dir: str, summary: dict) -> list[str]:
    """reference/<suite>/performance.csv for each suite of `summary` (from `summarize`); returns the paths."""
    paths = []
    for suite in sorted({t["suite"] for t in summary["tests"]}):
        folder = os.path.join(run_dir, CSV_DIR, suite)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, CSV_NAME)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(csv_text([t for t in summary["tests"] if t["suite"] == suite]))
        paths.append(path)
    return paths
