"""Distinct frame states per video, per test (no rendering: build + simulate only).

    .venv/bin/python bench/unique_frames.py grasp-l1 grasp-l2 avoe --trials 3 --json /tmp/unique.json

Feeds the projections in bench/bench_render.py (`project`): rendered cost is proportional to distinct
frames, copied frames cost only encoding. `shared` counts a video's distinct states that an earlier video of
the same trial already has (same scene fingerprint): what a trial-wide FrameCache does not render again."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def survey(suite_name: str, trials: int, fraction: float | None = None) -> dict:
    from types import SimpleNamespace

    from voebench.generator.frame_cache import scene_fingerprint
    from voebench.generator.runner import RunConfig, effective_space, plan
    from voebench.scenes import REGISTRY

    suite = REGISTRY.get(suite_name)
    out = {
        "default_trials": suite.default_trials,
        "timing": [suite.default_timing.seconds, suite.default_timing.fps],
        "resolution": list(suite.default_resolution),
        "tests": {},
    }
    n = max(1, round(suite.default_trials * fraction)) if fraction else suite.default_trials
    out["fraction"] = fraction or 1.0
    out["videos"] = len(plan(RunConfig(out="-", suite=suite_name, tests=list(suite.tests), trials=n), suite))
    for test in suite.tests:
        cfg = RunConfig(out="-", suite=suite_name, tests=[test], trials=trials)
        rows, trial_states = [], {}
        for job in plan(cfg, suite):
            t0 = time.perf_counter()
            seed, p = suite.sample(test, effective_space(suite, test, {}), 0, job.index)
            scene = suite.make_scene(job, p, suite.default_timing)
            keys = set(scene.state_keys())
            fp = scene_fingerprint(scene, SimpleNamespace(), ())
            earlier = trial_states.setdefault(job.index, {}).setdefault(fp, set())
            rows.append(
                {
                    "frames": scene.n_frames,
                    "unique": len(keys),
                    "shared": len(keys & earlier),
                    "objects": len(scene.objects),
                    "build_s": round(time.perf_counter() - t0, 3),
                }
            )
            earlier |= keys
        out["tests"][test] = {
            "videos": len(rows),
            "frames": float(np.mean([r["frames"] for r in rows])),
            "unique": float(np.mean([r["unique"] for r in rows])),
            "shared": float(np.mean([r["shared"] for r in rows])),
            "unique_fraction": float(np.mean([r["unique"] / r["frames"] for r in rows])),
            "build_s": float(np.median([r["build_s"] for r in rows])),
            "rows": rows,
        }
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("suites", nargs="+")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    res = {s: survey(s, a.trials, 0.1 if s == "avoe" else None) for s in a.suites}
    for s, r in res.items():
        print(
            f"## {s}: {r['videos']} videos at {r['fraction']:.0%} of the default trials, "
            f"{r['timing'][0]} s at {r['timing'][1]} fps"
        )
        print("| test | frames | distinct (mean) | distinct fraction | shared within the trial (mean) |")
        print("|---|---|---|---|---|")
        for t, v in r["tests"].items():
            print(f"| {t} | {v['frames']:.0f} | {v['unique']:.1f} | {v['unique_fraction']:.3f} | {v['shared']:.1f} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
