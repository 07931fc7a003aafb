#!/usr/bin/env python3
"""Random-weight controls of docs/world-models.md (issue 30): N seeds per architecture, under both protocols.

For each `--models` spec (a `-random` world-model kind, e.g. vjepa2-random:small) and each seed 0..N-1, scores the
test sets with freshly initialised weights (`make_scorer(spec, seed=k)`) and writes each run's report (both
protocols side by side, evaluate/surprise/report.py); `--fp16-seeds K` scores the first K seeds again in float16
autocast (the reference's precision) to show what the precision alone moves. Reports are computed in worker
processes while the GPU scores the next seed. A motion-energy run per test set gives the model-free baseline.

    python bench/world_model_seeds.py --test T1 [T2 ...] --out DIR --seeds 20 \\
        --models vjepa2-random:small,vjepa2-random:vitl-128,videomae-random:base-128 [--fp16-seeds 5] \\
        [--max-seconds 420] [--device cuda]

DIR/seeds-summary.json: per model, precision and suite, the distribution over seeds (mean, sd, min, max) of
voebench's relative accuracy (avg, pre-declared context), the reference's strict relative accuracy at that context
and its figure number (best of the context lengths and Filtered per test, mean over tests); per test, the mean
and range over seeds, the motion baseline's relative accuracy and the mean share of verdicts that agree with it.
`--max-seconds` stops starting new seeds once exceeded (the summary says how many ran); `--merge` adds the runs of an
earlier call's summary and skips what it scored, so the seeds can be spread over several GPU calls. Runs from a checkout
without `pip install` (bench/checkout.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _paired(entries: list[dict]) -> list[dict]:
    from collections import Counter

    n = Counter(e["pair_id"] for e in entries if e.get("pair_id"))
    return [e for e in entries if e.get("pair_id") and n[e["pair_id"]] == 2]


def _report(run_dir: str, n_boot: int) -> dict:
    """Worker: write the run's report and return what the summary needs."""
    from checkout import import_evaluate

    import_evaluate()
    from voebench.evaluate.surprise import report

    s = report.write_report(run_dir, n_boot=n_boot)
    ref = s["reference"]
    return {
        "run": run_dir,
        "suites": {
            x["suite"]: {
                "voebench": x["fixed"]["avg"]["relative"],
                "voebench_ci": x["fixed"]["avg"]["relative_ci"],
                "voebench_best_c": x["best"]["avg"]["relative"],
            }
            for x in s["suites"]
        },
        "reference": {
            x["suite"]: {
                "strict_fixed": x["pooled_strict_fixed"] / 100,
                "figure": x["figure"] / 100,
                "mean_at_fixed": x["mean_at_fixed"] / 100,
                "filtered": x["filtered"] / 100,
            }
            for x in ref["suites"]
        },
        "tests": {
            f"{t['suite']}/{t['test']}": {"voebench": t["fixed"]["avg"]["relative"], "pairs": t["pairs"]}
            for t in s["tests"]
        },
        "ref_tests": {f"{t['suite']}/{t['test']}": t["figure"]["value"] / 100 for t in ref["tests"]},
        "motion": {f"{r['suite']}/{r['test']}": r for r in s["motion_baseline"]["tests"]},
        "left_out": s["left_out"]["comparisons"],
    }


def _dist(xs: list[float]) -> dict:
    import numpy as np

    a = np.array([x for x in xs if x == x], float)
    if not len(a):
        return {"n": 0}
    return {
        "n": int(len(a)),
        "mean": float(a.mean()),
        "sd": float(a.std(ddof=1)) if len(a) > 1 else 0.0,
        "min": float(a.min()),
        "max": float(a.max()),
    }


def summarize(results: list[dict]) -> dict:
    """Distributions over seeds per (model, precision, test set)."""
    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(f"{r['model']}|{r['dtype']}|{r['set']}", []).append(r)
    out = {}
    for key, rs in sorted(groups.items()):
        model, dtype, tset = key.split("|")
        suites = sorted({s for r in rs for s in r["suites"]})
        tests = sorted({t for r in rs for t in r["tests"]})
        out[key] = {
            "model": model,
            "dtype": dtype,
            "set": tset,
            "seeds": sorted(r["seed"] for r in rs),
            "suites": {
                s: {
                    "voebench_fixed": _dist([r["suites"][s]["voebench"] for r in rs]),
                    "voebench_best_context": _dist([r["suites"][s]["voebench_best_c"] for r in rs]),
                    "reference_strict_fixed": _dist([r["reference"][s]["strict_fixed"] for r in rs]),
                    "reference_figure": _dist([r["reference"][s]["figure"] for r in rs]),
                    "reference_filtered": _dist([r["reference"][s]["filtered"] for r in rs]),
                    "seeds_ci_excluding_chance": sum(
                        1
                        for r in rs
                        if r["suites"][s]["voebench_ci"][0] > 0.5 or r["suites"][s]["voebench_ci"][1] < 0.5
                    ),
                }
                for s in suites
            },
            "tests": {
                t: {
                    "pairs": rs[0]["tests"][t]["pairs"],
                    "voebench_fixed": _dist([r["tests"][t]["voebench"] for r in rs if t in r["tests"]]),
                    "reference_figure": _dist([r["ref_tests"][t] for r in rs if t in r["ref_tests"]]),
                    "motion": rs[0]["motion"].get(t, {}).get("motion"),
                    "agreement_with_motion": _dist([r["motion"][t]["agreement"] for r in rs if t in r["motion"]]),
                }
                for t in tests
            },
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--test", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default="vjepa2-random:small,vjepa2-random:vitl-128,videomae-random:base-128")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--fp16-seeds", type=int, default=0, help="score the first K seeds again in float16 autocast")
    ap.add_argument("--batch", type=int, default=64, help="windows per forward pass")
    ap.add_argument("--max-seconds", type=float, default=None, help="start no new seed after this long")
    ap.add_argument("--n-boot", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    ap.add_argument("--device", default="auto")
    ap.add_argument(
        "--merge",
        help="an earlier call's seeds-summary.json: its runs join this call's distributions, and the (model, "
        "precision, seed) it already scored are skipped, so seeds can be added across GPU calls",
    )
    args = ap.parse_args()
    earlier = []
    if args.merge:
        with open(args.merge, encoding="utf-8") as fh:
            earlier = [r for r in json.load(fh)["runs"] if r["model"] != "motion-energy"]
    done = {(r["model"], r["dtype"], r["seed"]) for r in earlier}

    from checkout import import_evaluate

    import_evaluate()
    import torch

    from voebench.evaluate.surprise.protocol import Protocol
    from voebench.evaluate.surprise.run import make_scorer, run_surprise
    from voebench.evaluate.tasks import load_manifest

    protocol = Protocol()
    sets = []
    for d in args.test:
        m = load_manifest(d)
        sets.append((os.path.basename(os.path.normpath(d)), m, _paired(m.entries)))
    t0 = time.perf_counter()
    jobs, timing = [], []
    pool = ProcessPoolExecutor(max_workers=args.workers)
    for name, m, es in sets:  # the model-free baseline, once per set
        out = os.path.join(args.out, "motion-energy", name)
        run_surprise(m, es, "motion-energy", out, protocol, batch_windows=args.batch)
        jobs.append(
            ({"model": "motion-energy", "dtype": "-", "seed": 0, "set": name}, pool.submit(_report, out, args.n_boot))
        )
    # seeds outermost, so that a stop at --max-seconds leaves every architecture with the same seeds
    plan = [(spec, "bfloat16", k) for k in range(args.seeds) for spec in args.models.split(",")]
    plan += [(spec, "float16", k) for k in range(args.fp16_seeds) for spec in args.models.split(",")]
    plan = [(spec, dtype, k) for spec, dtype, k in plan if (spec, dtype, k) not in done]
    stopped = None
    for spec, dtype, k in plan:
        if args.max_seconds and time.perf_counter() - t0 > args.max_seconds:
            stopped = f"stopped after {time.perf_counter() - t0:.0f} s before {spec} {dtype} seed {k}"
            break
        t1 = time.perf_counter()
        with torch.device("cuda" if torch.cuda.is_available() and args.device != "cpu" else "cpu"):
            scorer = make_scorer(spec, device=args.device, dtype=dtype, seed=k)
        built = time.perf_counter() - t1
        for name, m, es in sets:
            out = os.path.join(args.out, spec.replace(":", "-"), dtype, f"seed{k:02d}", name)
            info = run_surprise(m, es, spec, out, protocol, batch_windows=args.batch, scorer=scorer,
                                extra={"seed": k})  # fmt: skip
            tp = info.get("throughput") or {}
            timing.append({"model": spec, "dtype": dtype, "seed": k, "set": name, "build_s": built,
                           "score_s": tp.get("seconds"), "windows_per_s": tp.get("windows_per_s")})  # fmt: skip
            jobs.append(
                ({"model": spec, "dtype": dtype, "seed": k, "set": name}, pool.submit(_report, out, args.n_boot))
            )
            print(f"{spec} {dtype} seed {k} {name}: {tp.get('windows_per_s', 0):.0f} windows/s", flush=True)
        del scorer
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    scored = time.perf_counter() - t0
    results = list(earlier)
    for meta, fut in jobs:
        results.append({**meta, **fut.result()})
    pool.shutdown()
    summary = {
        "models": args.models.split(","),
        "seeds_asked": args.seeds,
        "fp16_seeds_asked": args.fp16_seeds,
        "stopped": stopped,
        "merged_from": args.merge,
        "scoring_seconds": scored,
        "total_seconds": time.perf_counter() - t0,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "timing": timing,
        "distributions": summarize(results),
        "runs": results,
    }
    with open(os.path.join(args.out, "seeds-summary.json"), "w", encoding="utf-8") as fh:
        json.dump(summary, fh, indent=1)
    print(f"{len(results)} runs, scoring {scored:.0f} s, total {summary['total_seconds']:.0f} s; {stopped or ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
