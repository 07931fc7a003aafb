"""A simulated human panel in a constant-stimuli study (issue 24): does the humans report's pooled psychometric fit
recover the panel's threshold? Each run plans a study of a sweep with the real design code (design.plan,
`--design constant-stimuli`: every participant judges every (trial, level), blocks, never one trial back to back;
a study seed per run), draws every participant's yes/no answers from a known curve, and fits them with the
report's own code (humans/curves.py: pooled over participants with a bootstrap over trials, and per participant).
It counts how often the pooled threshold's 95% interval holds the true threshold (target >= 90 of 100 runs): the
fit's own interval (bootstrap over trials) and the crossed one (participants x trials, curves.crossed); and the
per-participant intervals' coverage beside them.

Scenarios:
- `same`: every participant has the same curve (threshold 0.3, slope 15, false alarms 0.1, lapses 0.02): the
  pooled curve is that curve.
- `differ`: participants' thresholds drawn per run from a normal around 0.3 (sd `--threshold-sd`, default 0.05),
  the rest as above. The truth for the pooled fit is 0.3 (the population's median threshold; the pooled curve of
  a symmetric spread of thresholds is halfway between guess and ceiling there); the bootstrap over trials does not
  resample participants, so this shows what that choice costs when people differ. `--clusters participants`
  refits the pooled data with participants as the resampled clusters instead, for comparison.

    .venv/bin/python bench/humans_constant_stimuli.py --runs 100 --workers 16 --json OUT.json
    .venv/bin/python bench/humans_constant_stimuli.py --runs 100 --scenario differ --clusters participants
    .venv/bin/python bench/humans_constant_stimuli.py --quick     # 8 runs, few draws: a smoke test
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkout import import_evaluate

import_evaluate()

from voebench.evaluate.humans import curves, design  # noqa: E402
from voebench.evaluate.psychometrics import fit, psi  # noqa: E402

LEVELS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
TRUE = {"threshold": 0.3, "slope": 15.0, "guess": 0.1, "lapse": 0.02}


def sweep_entries(trials: int, test: str = "t08", suite: str = "grasp-l2") -> list[dict]:
    """A sweep's manifest entries (as the generator writes them; only what the design reads)."""
    swept = [0.0, *LEVELS]
    out = []
    for i in range(trials):
        for rank, level in enumerate(swept):
            cond = "implausible" if rank else "plausible"
            stem = f"{i:05d}-{cond}" + (f"-{rank}" if rank else "")
            out.append(
                {
                    "id": f"{suite}/{test}/{stem}",
                    "suite": suite,
                    "test": test,
                    "index": i,
                    "condition": cond,
                    "pair_id": f"{suite}/{test}/{i:05d}",
                    "pair_conditions": ["plausible", *[f"implausible-{r}" for r in range(1, len(swept))]],
                    "video": f"{suite}/{test}/{stem}.mp4",
                    "test_number": 8,
                    "violation_level": level,
                    "violation_unit": "m",
                    "sweep_levels": swept,
                    **({"sweep_rank": rank} if rank else {}),
                    "prompts": [{"kind": "plausibility", "text": "Plausible?", "answer": "no" if rank else "yes"}],
                }
            )
    return out


def one_run(job: tuple) -> dict:
    run, a = job
    rng = random.Random(f"bench/{run}")
    d = design.default_design("grasp", a["participants"], design="constant-stimuli", seed=run, attention_checks=0)
    plans = design.plan(d, sweep_entries(a["trials"]), [])
    thresholds = [
        TRUE["threshold"] + (rng.gauss(0.0, a["threshold_sd"]) if a["scenario"] == "differ" else 0.0) for _ in plans
    ]
    records = []
    for p, (trials, thr) in enumerate(zip(plans, thresholds)):
        for t in trials:
            if t["phase"] != "main":
                continue
            level = t["entry"]["violation_level"]
            noticed = rng.random() < float(psi(level, thr, TRUE["slope"], TRUE["guess"], TRUE["lapse"]))
            records.append(
                {
                    "suite": t["entry"]["suite"],
                    "test": t["entry"]["test"],
                    "video_id": t["video_id"],
                    "pair_id": t["entry"]["pair_id"],
                    "violation_level": level,
                    "violation_unit": "m",
                    "participant": f"P{p + 1:03d}",
                    "parsed": "no" if noticed else "yes",
                    "valid": True,
                }
            )
    t0 = time.perf_counter()
    c = curves.curves(records, pooled_boot=a["boot"], participant_boot=a["participant_boot"], gof=a["gof"], seed=run)
    assert c is not None
    (test,) = c["tests"]
    thr = test["pooled"]["threshold"]
    truth = TRUE["threshold"]
    out = {
        "run": run,
        "point": thr["point"],
        "lo": thr["lo"],
        "hi": thr["hi"],
        "covered": (thr["lo"] is None or thr["lo"] <= truth) and (thr["hi"] is None or truth <= thr["hi"]),
        "closed": thr["lo"] is not None and thr["hi"] is not None,
        "seconds": time.perf_counter() - t0,
    }
    cr = test["crossed"]
    out["crossed"] = {
        "lo": cr["lo"],
        "hi": cr["hi"],
        "covered": (cr["lo"] is None or cr["lo"] <= truth) and (cr["hi"] is None or truth <= cr["hi"]),
        "closed": cr["lo"] is not None and cr["hi"] is not None,
    }
    per = [(p["fit"]["threshold"], thresholds[int(p["participant"][1:]) - 1]) for p in test["participants"] if p["fit"]]
    out["participants_fitted"] = len(per)
    out["participants_covered"] = sum(
        (e["lo"] is None or e["lo"] <= x) and (e["hi"] is None or x <= e["hi"]) for e, x in per
    )
    out["participants_closed"] = sum(e["lo"] is not None and e["hi"] is not None for e, _ in per)
    if a["clusters"] == "participants":
        rows = [(r["participant"], r["violation_level"], r["parsed"] == "no") for r in records]
        f = fit(rows, n_boot=a["boot"], n_gof=0, seed=run)
        e = f.threshold
        out["by_participants"] = {"point": e.point, "lo": e.lo, "hi": e.hi, "covered": e.contains(truth)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--participants", type=int, default=20)
    ap.add_argument("--trials", type=int, default=16, help="sweep trials (one is set aside for practice)")
    ap.add_argument("--scenario", choices=("same", "differ"), default="same")
    ap.add_argument("--threshold-sd", type=float, default=0.05)
    ap.add_argument("--boot", type=int, default=curves.POOLED_BOOT, help="pooled bootstrap draws")
    ap.add_argument("--gof", type=int, default=0, help="pooled goodness-of-fit draws (not needed for coverage)")
    ap.add_argument("--participant-boot", type=int, default=curves.PARTICIPANT_BOOT)
    ap.add_argument("--clusters", choices=("trials", "participants"), default="trials")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="8 runs, 200 draws")
    ap.add_argument("--json", help="write every run and the summary here")
    a = vars(ap.parse_args())
    if a["quick"]:
        a.update(runs=8, boot=200, participant_boot=100)
    t0 = time.perf_counter()
    jobs = [(r, a) for r in range(a["runs"])]
    if a["workers"] > 1:
        with ProcessPoolExecutor(a["workers"]) as pool:
            runs = list(pool.map(one_run, jobs))
    else:
        runs = [one_run(j) for j in jobs]
    pts = np.array([r["point"] for r in runs if r["point"] is not None])
    widths = [r["hi"] - r["lo"] for r in runs if r["closed"]]
    summary = {
        "settings": {k: v for k, v in a.items() if k not in ("json", "quick")},
        "true": TRUE,
        "levels": [0.0, *LEVELS],
        "runs": len(runs),
        "covered": sum(r["covered"] for r in runs),
        "closed": sum(r["closed"] for r in runs),
        "no_point": sum(r["point"] is None for r in runs),
        "median_threshold": float(np.median(pts)) if len(pts) else None,
        "sd_threshold": float(np.std(pts)) if len(pts) else None,
        "median_closed_width": float(np.median(widths)) if widths else None,
        "covered_crossed": sum(r["crossed"]["covered"] for r in runs),
        "closed_crossed": sum(r["crossed"]["closed"] for r in runs),
        "median_closed_width_crossed": float(
            np.median([r["crossed"]["hi"] - r["crossed"]["lo"] for r in runs if r["crossed"]["closed"]] or [np.nan])
        ),
        "participant_fits": sum(r["participants_fitted"] for r in runs),
        "participant_covered": sum(r["participants_covered"] for r in runs),
        "participant_closed": sum(r["participants_closed"] for r in runs),
        "seconds_per_run_fitting": float(np.mean([r["seconds"] for r in runs])),
        "wall_seconds": time.perf_counter() - t0,
    }
    if a["clusters"] == "participants":
        summary["covered_by_participants"] = sum(r["by_participants"]["covered"] for r in runs)
    print(json.dumps(summary, indent=1))
    if a["json"]:
        with open(a["json"], "w", encoding="utf-8") as fh:
            json.dump({"summary": summary, "runs": runs}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
