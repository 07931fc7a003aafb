#!/usr/bin/env python3
"""The self-trained world model of issue 30 as a learning curve, resumable across GPU commands of a few minutes.

For each seed, trains a V-JEPA 2 (evaluate/surprise/train.py, preset `--preset`, default small-128) on the
plausible videos of the training sets towards `--steps` planned steps (the learning-rate and EMA schedules read the
planned count), stopping at each of `--points` (steps) to save a snapshot and score it on the test sets (both
protocols, evaluate/surprise/report.py). The training state lives in `--state-dir` (one file per seed); running
the same command again, on a machine that still has that folder, resumes where the last command stopped and skips
the points already scored. `--max-seconds` stops before the next segment once exceeded, and a segment itself stops
`--score-reserve` seconds before it (that point is scored at the step it reached, and the command stops there),
so a command ends inside its time limit; the summary says where each seed stands. Each point records `train_wall`,
the local wall-clock interval of its training segment, which `bench/world_model_throughput.py busy` matches against
an nvidia-smi log.

    python bench/world_model_train.py --train D1 [D2 ...] --test T1 [T2 ...] --out DIR --state-dir S \\
        --steps 8000 --points 250,1000,2000,4000,8000 --seeds 0,1,2 [--batch 64] [--max-seconds 420]

DIR/train-summary.json: per seed and point, the step, training seconds, clips/s, loss, and per suite voebench's
relative accuracy (avg, pre-declared context) with its interval (tests, then pairs), the reference protocol's
strict relative accuracy at that context and its figure number. Training and test sets must not share a trial
seed (checked). Runs from a checkout without `pip install` (bench/checkout.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _paired(entries: list[dict]) -> list[dict]:
    from collections import Counter

    n = Counter(e["pair_id"] for e in entries if e.get("pair_id"))
    return [e for e in entries if e.get("pair_id") and n[e["pair_id"]] == 2]


def _point(summary: dict) -> dict:
    ref = {s["suite"]: s for s in summary["reference"]["suites"]}
    return {
        s["suite"]: {
            "pairs": s["pairs"],
            "voebench": s["fixed"]["avg"]["relative"],
            "voebench_ci": s["fixed"]["avg"]["relative_ci"],
            "voebench_onset": s["fixed"]["onset"]["relative"],
            "voebench_onset_ci": s["fixed"]["onset"]["relative_ci"],
            "reference_strict_fixed": ref[s["suite"]]["pooled_strict_fixed"] / 100,
            "reference_strict_fixed_ci": [
                None if x is None else x / 100 for x in ref[s["suite"]]["pooled_strict_fixed_ci"]
            ],
            "reference_figure": ref[s["suite"]]["figure"] / 100,
            "motion": next(
                (
                    r["motion"]
                    for r in summary["motion_baseline"]["tests"]
                    if r["test"] == "**all**" and r["suite"] == s["suite"]
                ),
                None,
            ),  # fmt: skip
            "agreement_with_motion": next(
                (
                    r["agreement"]
                    for r in summary["motion_baseline"]["tests"]
                    if r["test"] == "**all**" and r["suite"] == s["suite"]
                ),
                None,
            ),  # fmt: skip
        }
        for s in summary["suites"]
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--test", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--state-dir", required=True)
    ap.add_argument("--preset", default="small-128")
    ap.add_argument("--steps", type=int, default=8000, help="planned steps of a run (the schedules read it)")
    ap.add_argument("--points", default="250,1000,2000,4000,8000", help="steps at which to snapshot and score")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--score-batch", type=int, default=128, help="windows per scoring pass")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="no segment starts after this; a segment stops --score-reserve s before it")  # fmt: skip
    ap.add_argument("--score-reserve", type=float, default=30.0, help="seconds kept for scoring the last segment")
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()

    from checkout import import_evaluate

    import_evaluate()
    import torch

    from voebench.evaluate.surprise import report, train
    from voebench.evaluate.surprise.protocol import Protocol
    from voebench.evaluate.surprise.run import run_surprise
    from voebench.evaluate.surprise.vjepa2 import VJEPA2Scorer
    from voebench.evaluate.tasks import load_manifest

    protocol = Protocol()
    points = sorted(int(p) for p in args.points.split(",") if int(p) <= args.steps)
    seeds = [int(s) for s in args.seeds.split(",")]
    t0 = time.perf_counter()
    tests = []
    for d in args.test:
        m = load_manifest(d)
        tests.append((os.path.basename(os.path.normpath(d)), m, _paired(m.entries)))
    videos = []
    n_plausible = 0
    for d in args.train:
        m = load_manifest(d)
        es = train.plausible_entries(m.entries)
        for _name, tm, _tes in tests:
            train.check_disjoint(es, tm.entries)
        n_plausible += len(es)
        videos += train.load_videos(m, es, protocol)
    load_s = time.perf_counter() - t0
    print(f"{len(videos)} training videos ({n_plausible} plausible entries) loaded in {load_s:.0f} s", flush=True)
    os.makedirs(args.state_dir, exist_ok=True)
    summary_path = os.path.join(args.out, "train-summary.json")
    summary: dict = {"runs": {}}
    if os.path.isfile(summary_path):
        with open(summary_path, encoding="utf-8") as fh:
            summary = json.load(fh)
    summary.update({"preset": args.preset, "steps_planned": args.steps, "points": points, "batch": args.batch,
                    "train_videos": len(videos), "train_sets": args.train, "test_sets": args.test,
                    "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None})  # fmt: skip
    stopped = None
    for seed in seeds:
        state = os.path.join(args.state_dir, f"seed{seed}.pt")
        run = summary["runs"].setdefault(str(seed), [])
        done_points = {r["step"] for r in run}
        for p in points:
            if p in done_points:
                continue
            if args.max_seconds and time.perf_counter() - t0 > args.max_seconds:
                stopped = f"stopped after {time.perf_counter() - t0:.0f} s before seed {seed} step {p}"
                break
            snap = os.path.join(args.out, f"seed{seed}", f"step{p:06d}")
            left = None  # this segment's seconds: what the command has left, less the time to score it
            if args.max_seconds:
                left = max(1.0, args.max_seconds - args.score_reserve - (time.perf_counter() - t0))
            info = train.train_world_model(videos, os.path.join(snap, "model"), protocol, preset=args.preset,
                                           steps=args.steps, batch=args.batch, lr=args.lr, device=args.device,
                                           seed=seed, state=state, stop_at=p, log_every=50,
                                           max_seconds=left)  # fmt: skip
            scorer = VJEPA2Scorer.from_pretrained(os.path.join(snap, "model"), device=args.device)
            last = info["log"][-1]
            point = {"step": info["steps"], "train_seconds": info["seconds"], "clips_per_s": info["call_clips_per_s"],
                     "clips": info["steps"] * args.batch, "train_wall": info["call_wall"], "adamw": info.get("adamw"),
                     "loss": last["loss"], "target_spread": last["target_spread"], "encoders": scorer.encoders,
                     "suites": {}}  # fmt: skip
            for name, m, es in tests:
                out = os.path.join(snap, name)
                run_surprise(m, es, f"trained:{args.preset}:seed{seed}:step{p}", out, protocol,
                             batch_windows=args.score_batch, scorer=scorer)  # fmt: skip
                point["suites"].update(_point(report.write_report(out)))
            run.append(point)
            with open(summary_path, "w", encoding="utf-8") as fh:
                json.dump(summary, fh, indent=1)
            brief = {s: round(v["voebench"], 3) for s, v in point["suites"].items()}
            print(json.dumps({"seed": seed, "step": point["step"], "loss": point["loss"], **brief}), flush=True)
            if info["steps"] < p:  # the segment ran out of time: no later segment would have any left either
                stopped = f"stopped by time at seed {seed} step {info['steps']} of {p}"
                break
        if stopped:
            break
    summary["stopped"] = stopped
    summary["total_seconds_last_call"] = time.perf_counter() - t0
    with open(summary_path, "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=1)
    print(stopped or "all points done")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
