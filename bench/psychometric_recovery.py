"""Does the psychometric fit recover a known curve? Simulated runs of `fake:psychometric` (and of flat scorers) on
the method of constant stimuli: every trial seen at every level, answers drawn by the adapters themselves (the
same `generate` the evaluation runner calls) and read with the project's yes/no parser; each run is fitted with
evaluate.psychometrics.fit, and the bench counts how often the true threshold lies inside the 95% interval
(target: >= 90%), with the slope's coverage and the fitted thresholds' spread beside it. Flat scorers (fake:yes,
never noticing; fake:no, always; fake:random, a coin) must give no threshold, with wide or unbounded intervals.

    .venv/bin/python bench/psychometric_recovery.py --json bench/results/psychometric-recovery-<date>.json
    .venv/bin/python bench/psychometric_recovery.py --quick          # 10 runs per curve, 200 draws: a smoke test
    .venv/bin/python bench/psychometric_recovery.py --figure docs/img/psychometrics-example.png   # one run each
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkout import import_evaluate

import_evaluate()

from voebench.evaluate.models import make_adapter  # noqa: E402
from voebench.evaluate.models.base import Request  # noqa: E402
from voebench.evaluate.parsing import parse_binary  # noqa: E402
from voebench.evaluate.psychometrics import fit  # noqa: E402
from voebench.evaluate.tasks import Sample  # noqa: E402

#: (name, true curve (threshold, slope, guess, lapse, sigmoid), the fit's guess rule and sigmoid, runs share)
CURVES = [
    ("default", (0.4, 8.0, 0.5, 0.02, "logistic"), "level0", 1.0),
    ("default-2afc-guess", (0.4, 8.0, 0.5, 0.02, "logistic"), 0.5, 0.5),
    ("steep-low-fa", (0.25, 16.0, 0.1, 0.02, "logistic"), "level0", 0.5),
    ("shallow-high", (0.6, 4.0, 0.2, 0.05, "logistic"), "level0", 0.5),
    ("normal", (0.4, 5.0, 0.1, 0.02, "normal"), "level0", 0.5),
]
FLAT = ["fake:yes", "fake:no", "fake:random"]


def samples(levels: np.ndarray, trials: int) -> list[Sample]:
    """One plausibility question per (trial, level); level 0 is the plausible twin."""
    out = []
    for t in range(trials):
        for j, x in enumerate(levels):
            out.append(
                Sample(
                    sample_id=f"t{t:03d}-L{j}",
                    video_id=f"t{t:03d}-L{j}",
                    suite="sim",
                    test="sim",
                    kind="plausibility",
                    truth="yes" if x == 0 else "no",
                    polarity="positive" if x == 0 else "negative",
                    strategy="zero-shot",
                    turns=[],
                    pair_id=f"t{t:03d}",
                    meta={"violation_level": float(x)},
                )
            )
    return out


def answers(spec: str, batch: list[Sample], repeat_seed: int) -> list[tuple[str, float, bool]]:
    """(trial, level, noticed) of one run: the adapter's answers to the batch, parsed as the evaluator does."""
    adapter = make_adapter(spec)
    reqs = [Request(messages=[], seed=repeat_seed, repeat=0, turn=0, n_turns=1, sample=s) for s in batch]
    rows = []
    for s, reply in zip(batch, adapter.generate(reqs)):
        if isinstance(reply, BaseException):
            raise reply
        parsed = parse_binary(reply)
        if not parsed.valid:
            raise RuntimeError(f"{spec}: unparsed answer {reply!r}")
        rows.append((str(s.pair_id), float((s.meta or {})["violation_level"]), parsed.answer == "no"))
    return rows


def run_curve(
    name: str, truth: tuple, guess: float | str, runs: int, levels: np.ndarray, trials: int, n_boot: int, n_gof: int
) -> dict:
    thr, slope, g, lapse, sigmoid = truth
    batch = samples(levels, trials)
    rows_out, t0 = [], time.time()
    for r in range(runs):
        spec = f"fake:psychometric:threshold={thr},slope={slope},guess={g},lapse={lapse},sigmoid={sigmoid},seed={r}"
        f = fit(answers(spec, batch, repeat_seed=0), guess=guess, sigmoid=sigmoid, n_boot=n_boot, n_gof=n_gof, seed=r)
        rows_out.append(
            {
                "run": r,
                "threshold": f.threshold.point,
                "lo": f.threshold.lo,
                "hi": f.threshold.hi,
                "covered": f.threshold.contains(thr),
                "slope": f.slope.point,
                "slope_lo": f.slope.lo,
                "slope_hi": f.slope.hi,
                "slope_covered": f.slope.contains(slope),
                "guess": f.guess,
                "lapse": f.lapse,
                "flat": f.flat,
                "gof_p": f.gof_p,
                "notes": f.notes,
            }
        )
    pts = np.array([r["threshold"] for r in rows_out if r["threshold"] is not None], dtype=float)
    widths = [r["hi"] - r["lo"] for r in rows_out if r["lo"] is not None and r["hi"] is not None]
    gof = [r["gof_p"] for r in rows_out if r["gof_p"] is not None]
    return {
        "name": name,
        "truth": dict(zip(("threshold", "slope", "guess", "lapse", "sigmoid"), truth)),
        "fit_guess": guess,
        "runs": runs,
        "covered": sum(r["covered"] for r in rows_out),
        "slope_covered": sum(r["slope_covered"] for r in rows_out),
        "no_threshold": sum(r["threshold"] is None for r in rows_out),
        "open_interval": sum(r["lo"] is None or r["hi"] is None for r in rows_out),
        "flat": sum(bool(r["flat"]) for r in rows_out),
        "threshold_median": float(np.median(pts)) if len(pts) else None,
        "threshold_sd": float(np.std(pts, ddof=1)) if len(pts) > 1 else None,
        "closed_interval_width_median": float(np.median(widths)) if widths else None,
        "gof_p_below_0.05": sum(p < 0.05 for p in gof) if gof else None,
        "seconds": round(time.time() - t0, 1),
        "per_run": rows_out,
    }


def run_flat(spec: str, runs: int, levels: np.ndarray, trials: int, n_boot: int) -> dict:
    batch = samples(levels, trials)
    rows_out, t0 = [], time.time()
    for r in range(runs):
        f = fit(answers(spec, batch, repeat_seed=r), n_boot=n_boot, n_gof=0, seed=r)
        rows_out.append(
            {
                "run": r,
                "threshold": f.threshold.point,
                "lo": f.threshold.lo,
                "hi": f.threshold.hi,
                "flat": f.flat,
                "notes": f.notes,
            }
        )
    span = float(levels[-1] - levels[0])
    return {
        "scorer": spec,
        "runs": runs,
        "no_threshold": sum(r["threshold"] is None for r in rows_out),
        "flat": sum(bool(r["flat"]) for r in rows_out),
        "open_interval": sum(r["lo"] is None or r["hi"] is None for r in rows_out),
        "wide_interval": sum(r["lo"] is None or r["hi"] is None or r["hi"] - r["lo"] >= span / 2 for r in rows_out),
        "seconds": round(time.time() - t0, 1),
        "per_run": rows_out,
    }


FIGURE = [
    ("fake:psychometric threshold 0.4, slope 8", "fake:psychometric:threshold=0.4,slope=8"),
    ("fake:psychometric threshold 0.25, slope 16, guess 0.1", "fake:psychometric:threshold=0.25,slope=16,guess=0.1"),
    ("fake:random (coin)", "fake:random"),
    ("fake:yes (never notices)", "fake:yes"),
]


def figure(path: str, levels: np.ndarray, trials: int, n_boot: int) -> None:
    """One simulated run of each FIGURE scorer, fitted and drawn on one axes; the per-level tables printed."""
    from voebench.evaluate.psychometrics import level_table
    from voebench.evaluate.psychometrics.plot import plot_test
    from voebench.evaluate.psychometrics.table import markdown

    batch = samples(levels, trials)
    curves = {}
    for name, spec in FIGURE:
        rows = answers(spec, batch, repeat_seed=0)
        f = fit(rows, n_boot=n_boot, n_gof=200)
        curves[name] = (f, level_table(rows, f))
        print(
            f"\n{name}: threshold {f.threshold.text()}, slope {f.slope.text()}, x75 {f.x75.text()}, guess "
            f"{f.guess}, lapse {f.lapse}, deviance {f.deviance} (df {f.df}, p {f.gof_p}); notes {f.notes}"
        )
        print(markdown(curves[name][1]))
    plot_test(curves, path, title=f"simulated: {trials} trials x {len(levels)} levels, one run each")
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100, help="runs of the default curve (the others get their share)")
    ap.add_argument("--flat-runs", type=int, default=20)
    ap.add_argument("--trials", type=int, default=16)
    ap.add_argument("--levels", type=int, default=7, help="levels from 0 to 1, evenly spaced (0 = plausible twin)")
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--n-gof", type=int, default=0, help="goodness-of-fit draws per run (0: skip; slow)")
    ap.add_argument("--curves", default=",".join(c[0] for c in CURVES))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--figure", help="only draw one run of each example scorer to this PNG")
    a = ap.parse_args()
    if a.quick:
        a.runs, a.flat_runs, a.n_boot = 10, 4, 200
    levels = np.linspace(0.0, 1.0, a.levels)
    if a.figure:
        figure(a.figure, levels, a.trials, a.n_boot)
        return
    wanted = set(a.curves.split(","))
    out: dict = {
        "command": " ".join(sys.argv),
        "levels": levels.tolist(),
        "trials": a.trials,
        "n_boot": a.n_boot,
        "n_gof": a.n_gof,
        "curves": [],
        "flat": [],
    }
    for name, truth, guess, share in CURVES:
        if name not in wanted:
            continue
        res = run_curve(name, truth, guess, max(1, math.ceil(a.runs * share)), levels, a.trials, a.n_boot, a.n_gof)
        out["curves"].append(res)
        print(
            f"{name:20s} truth thr={truth[0]} slope={truth[1]} guess={truth[2]} lapse={truth[3]} {truth[4]:8s} "
            f"fit guess={guess!s:6s}: threshold in 95% CI {res['covered']}/{res['runs']}, slope in CI "
            f"{res['slope_covered']}/{res['runs']}, median thr {res['threshold_median']}, sd "
            f"{res['threshold_sd']}, no threshold {res['no_threshold']}, open CI {res['open_interval']} "
            f"({res['seconds']} s)",
            flush=True,
        )
    for spec in FLAT:
        res = run_flat(spec, a.flat_runs, levels, a.trials, a.n_boot)
        out["flat"].append(res)
        print(
            f"{spec:20s} no threshold {res['no_threshold']}/{res['runs']}, flat {res['flat']}, open CI "
            f"{res['open_interval']}, CI open or >= half the range {res['wide_interval']} ({res['seconds']} s)",
            flush=True,
        )
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)
        print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
