#!/usr/bin/env python3
"""The learning curve of issue 30's self-trained world models against their random-weight distribution.

Reads the curves (surprise.jsonl) of trained snapshots laid out as bench/world_model_train.py writes them
(`ROOT/.../seed<N>/step<NNNNNN>/<set>/`), the train-summary.json files that say which step each snapshot reached
(a snapshot whose folder names a point its segment did not reach is skipped: a run stopped by time), and the runs of
bench/world_model_seeds.py (`ROOT/<model>/<dtype>/seed<NN>/<set>/`, `ROOT/motion-energy/<set>/`). For each test set
and step, on the comparisons every run scores (visibility.py's left-out ones removed), at the pre-declared context
(avg over windows):

- per trained seed: voebench's relative accuracy (ties one half) with its interval, tests then pairs;
- the trained seeds together: each comparison's outcome averaged over the seeds, the interval resampling tests, then
  pairs within tests (the seeds are fixed, not resampled: the interval is over stimuli);
- the random-weight seeds the same way, and their spread (mean, sd, min, max over seeds);
- trained minus random, per comparison, with the same interval: the claim the data allow;
- the motion-energy baseline, the share of trained verdicts (over seeds) that agree with it, and that share less the
  random seeds' (per comparison, the same interval);
- the reference protocol's numbers per seed from train-summary.json (strict at the fixed context, figure number).

    python bench/world_model_curve.py --trained T1 [T2 ...] --summaries S1.json [S2.json ...] \\
        --random R1 [R2 ...] --sets test-l2-128 test-avoe [--random-model vjepa2-random-small-128] --out curve.json

Prints a markdown table per set; curve.json holds every number and the per-comparison outcomes.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

CONTEXT = 8
AGG = "avg"


def _outcomes(run_dir: str) -> dict[tuple[str, str], float]:
    """(test, pair_id of the comparison) -> 1 / 0.5 / 0: the violated video more / equally / less surprising."""
    from voebench.evaluate.surprise import metrics, visibility
    from voebench.evaluate.surprise.score import load_curves

    kept, _left = visibility.split(metrics.comparisons(load_curves(run_dir)))
    out = metrics.relative_outcomes(kept, CONTEXT, AGG)
    return {(p["test"], v["id"]): float(o) for (p, v), o in zip(kept, out)}


def _interval(keys: list[tuple[str, str]], values: list[float]) -> dict:
    from voebench.evaluate import uncertainty

    iv = uncertainty.nested(keys, [(v, 1.0) for v in values], ["tests", "pairs"])
    return {"point": iv.point, "lo": iv.lo, "hi": iv.hi, "resampled": iv.resampled, "clusters": iv.clusters}


def _seed_of(path: str) -> int:
    """The N of the last `seed<N>` folder in a path."""
    found = re.findall(r"seed(\d+)", path)
    if not found:
        raise ValueError(f"{path}: no seed<N> folder")
    return int(found[-1])


def _reached(summaries: list[str]) -> dict[tuple[int, int], dict]:
    """(seed, step) -> the train-summary point that reached it."""
    out = {}
    for path in summaries:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        for seed, points in doc["runs"].items():
            for p in points:
                out[(int(seed), int(p["step"]))] = p
    return out


def _pooled(runs: list[dict[tuple[str, str], float]], keys: list[tuple[str, str]]) -> list[float]:
    return [float(np.mean([r[k] for r in runs])) for k in keys]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trained", nargs="+", required=True, help="folders holding seed<N>/step<NNNNNN>/<set>/")
    ap.add_argument("--summaries", nargs="+", required=True, help="train-summary.json of those runs")
    ap.add_argument("--random", nargs="+", required=True, help="bench/world_model_seeds.py output folders")
    ap.add_argument("--random-model", default="vjepa2-random-small-128")
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--sets", nargs="+", default=["test-l2-128", "test-avoe"])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    from checkout import import_evaluate

    import_evaluate()
    reached = _reached(args.summaries)
    result: dict = {"context": CONTEXT, "aggregate": AGG, "sets": {}}
    for name in args.sets:
        trained: dict[int, dict[int, dict]] = {}  # step -> seed -> outcomes
        for root in args.trained:
            for d in sorted(glob.glob(os.path.join(root, "**", "seed*", "step*", name), recursive=True)):
                m = re.search(r"seed(\d+)/step(\d+)/", d.replace(os.sep, "/") + "/")
                if not m or not os.path.isfile(os.path.join(d, "surprise.jsonl")):
                    continue
                seed, step = int(m.group(1)), int(m.group(2))
                if (seed, step) in reached:
                    trained.setdefault(step, {})[seed] = _outcomes(d)
        random_runs: dict[int, dict] = {}
        motion = None
        for root in args.random:
            for d in glob.glob(os.path.join(root, args.random_model, args.dtype, "seed*", name)):
                random_runs[_seed_of(d)] = _outcomes(d)
            me = os.path.join(root, "motion-energy", name)
            if motion is None and os.path.isfile(os.path.join(me, "surprise.jsonl")):
                motion = _outcomes(me)
        if not trained or not random_runs or motion is None:
            print(
                f"{name}: trained {len(trained)} steps, random {len(random_runs)} seeds, motion {motion is not None}:"
                " nothing to compare"
            )
            continue
        every = [r for by in trained.values() for r in by.values()] + list(random_runs.values()) + [motion]
        keys = sorted(set.intersection(*(set(r) for r in every)))
        rnd_vals = {s: float(np.mean([r[k] for k in keys])) for s, r in random_runs.items()}
        rnd_pooled = _pooled(list(random_runs.values()), keys)
        rows = []
        for step in sorted(trained):
            by = trained[step]
            pooled = _pooled(list(by.values()), keys)
            diff = [a - b for a, b in zip(pooled, rnd_pooled)]
            agree = float(np.mean([1.0 - abs(r[k] - motion[k]) for r in by.values() for k in keys]))
            agree_diff = [  # per comparison: trained seeds' agreement with motion less the random seeds'
                float(np.mean([1.0 - abs(r[k] - motion[k]) for r in by.values()]))
                - float(np.mean([1.0 - abs(r[k] - motion[k]) for r in random_runs.values()]))
                for k in keys
            ]
            seeds = {}
            for s, r in sorted(by.items()):
                pt = reached[(s, step)]
                suite = pt["suites"][keys[0][1].split("/")[0]]  # the set's suite: ids start with it
                seeds[s] = {
                    "voebench": _interval(keys, [r[k] for k in keys]),
                    "reference_strict_fixed": suite["reference_strict_fixed"],
                    "reference_figure": suite["reference_figure"],
                    "loss": pt["loss"],
                    "clips": pt["clips"],
                    "gpu_busy": (pt.get("gpu_busy") or {}).get("busy_mean"),
                }
            rows.append(
                {
                    "step": step,
                    "seeds": seeds,
                    "pooled": _interval(keys, pooled),
                    "minus_random": _interval(keys, diff),
                    "random_at_or_above_pooled": sum(v >= float(np.mean(pooled)) for v in rnd_vals.values()),
                    "agreement_with_motion": agree,
                    "agreement_minus_random": _interval(keys, agree_diff),
                }
            )
        rv = np.array(list(rnd_vals.values()))
        rnd_agree = float(np.mean([1.0 - abs(r[k] - motion[k]) for r in random_runs.values() for k in keys]))
        precision = _precision(args, name, keys, random_runs)
        result["sets"][name] = {
            "comparisons": len(keys),
            "tests": len({k[0] for k in keys}),
            "random": {
                "seeds": sorted(random_runs),
                "mean": float(rv.mean()),
                "sd": float(rv.std(ddof=1)),
                "min": float(rv.min()),
                "max": float(rv.max()),
                "pooled": _interval(keys, rnd_pooled),
                "agreement_with_motion": rnd_agree,
            },
            "float16_vs_bfloat16": precision,
            "motion": _interval(keys, [motion[k] for k in keys]),
            "steps": rows,
            "outcomes": {
                "keys": [list(k) for k in keys],
                "trained": {
                    str(st): {str(s): [r[k] for k in keys] for s, r in by.items()} for st, by in trained.items()
                },
                "random": {str(s): [r[k] for k in keys] for s, r in sorted(random_runs.items())},
                "motion": [motion[k] for k in keys],
            },
        }
        print(markdown(name, result["sets"][name]))
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1)
    return 0


def _precision(args, name: str, keys: list[tuple[str, str]], bf16: dict[int, dict]) -> list[dict]:
    """Random seeds scored in both float16 autocast (the reference's precision) and bfloat16: each seed's relative
    accuracy in both and how many comparisons changed verdict."""
    rows = []
    for root in args.random:
        for d in sorted(glob.glob(os.path.join(root, args.random_model, "float16", "seed*", name))):
            seed = _seed_of(d)
            if seed not in bf16:
                continue
            f16 = _outcomes(d)
            ks = [k for k in keys if k in f16]
            rows.append(
                {
                    "seed": seed,
                    "comparisons": len(ks),
                    "bfloat16": float(np.mean([bf16[seed][k] for k in ks])),
                    "float16": float(np.mean([f16[k] for k in ks])),
                    "changed_verdicts": sum(bf16[seed][k] != f16[k] for k in ks),
                }
            )
    return rows


def _pct(iv: dict) -> str:
    if iv["lo"] is None:
        return f"{100 * iv['point']:.1f}"
    return f"{100 * iv['point']:.1f} [{100 * iv['lo']:.0f}, {100 * iv['hi']:.0f}]"


def markdown(name: str, s: dict) -> str:
    r = s["random"]
    lines = [
        f"{name}: {s['comparisons']} comparisons in {s['tests']} tests; random {len(r['seeds'])} seeds: mean "
        f"{100 * r['mean']:.1f} sd {100 * r['sd']:.1f} [{100 * r['min']:.1f}, {100 * r['max']:.1f}], pooled "
        f"{_pct(r['pooled'])}, agreeing with motion {100 * r['agreement_with_motion']:.1f}%; "
        f"motion {_pct(s['motion'])}",
        "float16 vs bfloat16 (random seeds): "
        + "; ".join(
            f"seed {p['seed']} {100 * p['bfloat16']:.1f} -> {100 * p['float16']:.1f} ({p['changed_verdicts']} of "
            f"{p['comparisons']} verdicts changed)"
            for p in s["float16_vs_bfloat16"]
        ),
        "",
        "| step | "
        + " | ".join(f"seed {k}" for k in sorted(s["steps"][-1]["seeds"], key=int))
        + " | seeds pooled | minus random | random seeds >= | agree motion | agree minus random |",
        "|---:|" + "---|" * len(s["steps"][-1]["seeds"]) + "---|---|---:|---:|---|",
    ]
    for row in s["steps"]:
        cells = [
            _pct(row["seeds"][k]["voebench"]) if k in row["seeds"] else "-"
            for k in sorted(s["steps"][-1]["seeds"], key=int)
        ]
        lines.append(
            f"| {row['step']} | " + " | ".join(cells) + f" | {_pct(row['pooled'])} | {_pct(row['minus_random'])} | "
            f"{row['random_at_or_above_pooled']}/{len(r['seeds'])} | {100 * row['agreement_with_motion']:.1f} | "
            f"{_pct(row['agreement_minus_random'])} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
