#!/usr/bin/env python3
"""The world-model experiment of docs/world-models.md, in one command (made for one GPU call):

1. train a small V-JEPA 2 (evaluate/surprise/train.py, preset `small`) on the plausible videos of the training
   sets, for each of several training-set sizes (nested subsets, same number of steps), and score each on the
   held-out test sets with the surprise protocol;
2. score the same test sets with an untrained model of the same size and a random-weight V-JEPA 2 of the
   released ViT-L's size at 256 px (the chance controls), the latter also for throughput.

    python bench/world_model_experiment.py --test T1 [T2 ...] --train D1 [D2 ...] --out DIR \\
        [--sizes 0.25,0.5,1] [--steps 1500] [--batch 64] [--vitl] [--device cuda]

Each run directory (DIR/<model>/<test set>) holds surprise.jsonl, run.json, results.json, report.md and
curves.png; DIR/summary.json collects the headline numbers. Training and test sets must come from different base
seeds (checked: no trial seed in both). Runs from a checkout without `pip install` (`PYTHONPATH=src`, or
bench/checkout.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _paired_only(entries: list[dict], limit: int | None = None) -> list[dict]:
    """Videos whose trial has both conditions in the set (AVoE's training trials have only `expected`); with
    `limit`, the first `limit` pairs of each test (smoke runs)."""
    from collections import Counter

    n = Counter(e["pair_id"] for e in entries if e.get("pair_id"))
    out = [e for e in entries if e.get("pair_id") and n[e["pair_id"]] == 2]
    if limit:
        keep: dict[tuple, list] = {}
        for e in sorted(out, key=lambda e: e["pair_id"]):
            ids = keep.setdefault((e["suite"], e["test"]), [])
            if e["pair_id"] in ids or len(ids) < limit:
                ids.append(e["pair_id"])
        ok = {p for ids in keep.values() for p in ids}
        out = [e for e in out if e["pair_id"] in ok]
    return out


def _headline(summary: dict) -> dict:
    out = {}
    for s in summary["suites"]:
        f, b = s["fixed"], s["best"]
        out[s["suite"]] = {
            "pairs": s["pairs"],
            "relative_avg": f["avg"]["relative"],
            "relative_avg_ci": f["avg"]["relative_ci"],
            "relative_max": f["max"]["relative"],
            "relative_max_ci": f["max"]["relative_ci"],
            "auroc_avg": f["avg"]["auroc"],
            "absolute_avg": f["avg"]["absolute"],
            "best_context_avg": s["best_context"]["avg"],
            "relative_avg_at_best": b["avg"]["relative"],
            "pre_onset": s["pre_onset"],
            "tests_above_chance_ci": [
                t["test"]
                for t in summary["tests"]
                if t["suite"] == s["suite"] and t["fixed"]["avg"]["relative_ci"][0] > 0.5
            ],
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--test", nargs="+", required=True)
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="0.25,0.5,1", help="fractions of the training videos (nested subsets)")
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument(
        "--train-seconds",
        type=float,
        default=None,
        help="instead of --steps: time 20 steps first and train every size for the steps that fit this "
        "many seconds (the same steps for all sizes, so only the amount of video differs)",
    )
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--preset", default="small")
    ap.add_argument("--max-train-seconds", type=float, default=None)
    ap.add_argument("--vitl", action="store_true", help="also score a random-weight ViT-L V-JEPA 2 (chance control)")
    ap.add_argument("--vitl-batch", type=int, default=16)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, help="first N pairs per test only (smoke runs)")
    ap.add_argument("--only-vitl", action="store_true", help="skip the small models (a second call for the control)")
    args = ap.parse_args()

    from checkout import import_evaluate

    import_evaluate()
    import numpy as np
    import torch

    from voebench.evaluate.surprise import report, train, vjepa2
    from voebench.evaluate.surprise.protocol import Protocol
    from voebench.evaluate.surprise.run import run_surprise
    from voebench.evaluate.tasks import load_manifest

    os.makedirs(args.out, exist_ok=True)
    summary_name = "summary-vitl.json" if args.only_vitl else "summary.json"
    protocol = Protocol()
    t_start = time.perf_counter()
    tests = []
    for d in args.test:
        m = load_manifest(d)
        tests.append((os.path.basename(os.path.normpath(d)), m, _paired_only(m.entries, args.limit)))
    train_entries, train_sets = [], []
    for d in args.train:
        m = load_manifest(d)
        es = train.plausible_entries(m.entries)
        train_sets.append((m, es))
        train_entries += es
    for _, _, es in tests:
        train.check_disjoint(train_entries, es)
    videos = []
    for m, es in train_sets if not args.only_vitl else []:
        videos += train.load_videos(m, es, protocol)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(videos))
    videos = [videos[i] for i in order]
    env = {"torch": torch.__version__, "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    import transformers

    env["transformers"] = transformers.__version__
    summary: dict = {
        "env": env,
        "protocol": protocol.record(),
        "training_videos_total": len(videos),
        "test_sets": {n: len(es) for n, _, es in tests},
        "runs": {},
    }
    print(json.dumps({"training_videos": len(videos), "test_videos": summary["test_sets"], **env}), flush=True)

    def score(name: str, scorer, batch: int) -> None:
        for tname, m, es in tests:
            out = os.path.join(args.out, name, tname)
            info = run_surprise(m, es, f"experiment:{name}", out, protocol, batch_windows=batch, scorer=scorer)
            s = report.write_report(out)
            summary["runs"].setdefault(name, {})[tname] = {"throughput": info["throughput"], **_headline(s)}
            print(
                json.dumps(
                    {
                        "run": name,
                        "test": tname,
                        "pairs_per_s": (info["throughput"] or {}).get("pairs_per_s"),
                        **{k: round(v["relative_avg"], 3) for k, v in _headline(s).items()},
                    }
                ),
                flush=True,
            )
        with open(os.path.join(args.out, summary_name), "w") as fh:
            json.dump(summary, fh, indent=1)

    if args.only_vitl:
        args.sizes = ""
    else:  # the untrained model of the trained size: what training adds is measured against this
        score(
            f"random-{args.preset}",
            vjepa2.VJEPA2Scorer(vjepa2.random_model(args.preset, args.seed), args.device),
            batch=128,
        )
    steps = args.steps
    if args.train_seconds and args.sizes:
        probe = train.train_world_model(
            videos,
            os.path.join(args.out, "models", "probe"),
            protocol,
            preset=args.preset,
            steps=20,
            batch=args.batch,
            device=args.device,
            seed=args.seed,
        )
        steps = max(20, int(args.train_seconds * probe["steps"] / probe["seconds"]))
        shutil.rmtree(os.path.join(args.out, "models", "probe"))
        summary["steps_from_probe"] = {"probe_clips_per_s": probe["clips_per_s"], "steps": steps}
        print(json.dumps({"probe_clips_per_s": round(probe["clips_per_s"], 1), "steps": steps}), flush=True)
    for frac in [float(x) for x in args.sizes.split(",") if x]:
        n = max(1, int(round(frac * len(videos))))
        name = f"trained-{args.preset}-{n}videos"
        mdir = os.path.join(args.out, "models", name)
        info = train.train_world_model(
            videos[:n],
            mdir,
            protocol,
            preset=args.preset,
            steps=steps,
            batch=args.batch,
            lr=args.lr,
            device=args.device,
            seed=args.seed,
            max_seconds=args.max_train_seconds,
        )
        summary.setdefault("training", {})[name] = {k: v for k, v in info.items() if k != "log"} | {
            "first_loss": info["log"][0]["loss"],
            "last_loss": info["log"][-1]["loss"],
            "first_spread": info["log"][0]["target_spread"],
            "last_spread": info["log"][-1]["target_spread"],
        }
        print(
            json.dumps(
                {
                    "trained": name,
                    "seconds": round(info["seconds"], 1),
                    "steps": info["steps"],
                    "loss": [round(info["log"][0]["loss"], 4), round(info["log"][-1]["loss"], 4)],
                    "spread": [round(info["log"][0]["target_spread"], 4), round(info["log"][-1]["target_spread"], 4)],
                }
            ),
            flush=True,
        )
        score(name, vjepa2.VJEPA2Scorer.from_pretrained(mdir, device=args.device), batch=128)
        # the weights stay on the GPU machine (binaries do not belong in the repository); config.json and
        # train.json come back
        os.remove(os.path.join(mdir, "model.safetensors"))
    if args.vitl:
        score(
            "random-vitl",
            vjepa2.VJEPA2Scorer(vjepa2.random_model("vitl", args.seed), args.device),
            batch=args.vitl_batch,
        )
    summary["seconds"] = time.perf_counter() - t_start
    with open(os.path.join(args.out, summary_name), "w") as fh:
        json.dump(summary, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
