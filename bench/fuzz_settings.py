"""Fuzz campaign: random settings over all three suites; each must be refused up front or give a valid set.

    .venv/bin/python bench/fuzz_settings.py --configs 200 --work /tmp/fuzz --results bench/results/fuzz-settings.jsonl
    .venv/bin/python bench/fuzz_settings.py --summary bench/results/fuzz-settings.jsonl

A configuration is a suite, a random subset of its tests, 1-2 trials per test, fps 8-60, 1-20 s, a resolution
from 48x36 to 960x540, and random `--set` overrides that shift and widen numeric ranges (x0.5-x2). It is run
through the real command line and then judged from outside:

- refused: exit 2, one line on stderr, and the output folder never created;
- rendered: exit 0, `voebench audit` passes every video, `voebench verify` is OK, every pair is complete, and every
  Level 1 statement is true of the ground truth (`scenes/grasp_l1/truth.py`, the gate's check, re-run here on the
  files);
- empty: exit 0 and no video (an AVoE sub-type none of whose category's first N trials shows; render says so);
- anything else is a failure, and so is a refusal that prints more than one line.

`--render-path dirty` renders every configuration through the dirty path (only what moves is redrawn,
docs/performance.md); `random` draws full or dirty per configuration from a stream of its own.

Results are appended one JSON line per configuration (resumable: configurations already in the file are
skipped). Most configurations are states-only (no pixels: fast); `--rendered-share` of them render every pass,
kept to short videos so a campaign fits in hours on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict

import numpy as np

SUITES = ("grasp-l1", "grasp-l2", "avoe")  # the default campaign; --suites picks others (e.g. newton,predict)


def draw_config(
    seed: int,
    i: int,
    rendered_share: float,
    max_trials: int,
    max_seconds: float = 20.0,
    suites: tuple = SUITES,
    render_path: str = "full",
) -> dict:
    from voebench.generator.params import Range
    from voebench.generator.suite import load_suite

    rng = np.random.default_rng([seed, i])
    suite_name = suites[i % len(suites)]
    suite = load_suite(suite_name)
    tests = list(rng.choice(suite.tests, size=min(len(suite.tests), int(rng.integers(1, 3))), replace=False))
    rendered = bool(rng.random() < rendered_share)
    seconds = float(np.round(np.exp(rng.uniform(np.log(1), np.log(min(max_seconds, 4 if rendered else 20)))), 2))
    fps = float(np.round(rng.uniform(8, 60), 1))
    width = int(rng.integers(24, 481)) * 2
    height = int(rng.integers(18, 271)) * 2
    sets = []
    clip = bool(rng.random() < 0.5)  # half the configurations keep widened ranges inside each leaf's domain
    for test in tests:
        ranges = [
            (k, v)
            for k, v in suite.space(test).leaves().items()
            if isinstance(v, Range) and not v.integer and v.hi > v.lo
        ]
        for j in rng.choice(len(ranges), size=min(len(ranges), int(rng.integers(0, 3))), replace=False):
            key, leaf = ranges[int(j)]
            centre, half = (leaf.lo + leaf.hi) / 2, (leaf.hi - leaf.lo) / 2
            centre *= rng.uniform(0.5, 2.0)
            half *= rng.uniform(0.5, 2.0)
            lo, hi = centre - half, centre + half
            domain = getattr(leaf, "domain", None)
            if clip and domain is not None:  # (the other half: out-of-domain values must be refused in one line)
                lo, hi = (float(np.clip(v, domain.lo, domain.hi)) for v in (lo, hi))
                if domain.lo_open and lo <= domain.lo or domain.hi_open and hi >= domain.hi:
                    continue
            sets.append(f"{test}.{key}={lo:.4g}:{hi:.4g}")
    return {
        "i": i,
        "clip": clip,
        "suite": suite_name,
        "tests": tests,
        "trials": int(rng.integers(1, max_trials + 1)),
        "seconds": seconds,
        "fps": fps,
        "resolution": f"{width}x{height}",
        "rendered": rendered,
        "sets": sets,
        # a stream of its own, so `--render-path full` draws exactly the configurations it always did
        "render_path": render_path
        if render_path != "random"
        else str(np.random.default_rng([seed, i, 1]).choice(["full", "dirty"])),
    }


def voebench(*args, timeout=3600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "voebench", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


def run_config(cfg: dict, work: str, workers: int) -> dict:
    out = os.path.join(work, f"c{cfg['i']:04d}")
    shutil.rmtree(out, ignore_errors=True)
    args = [
        "render",
        cfg["suite"],
        "--out",
        out,
        "--tests",
        ",".join(cfg["tests"]),
        "--videos-per-test",
        cfg["trials"],
        "--seconds",
        cfg["seconds"],
        "--fps",
        cfg["fps"],
        "--resolution",
        cfg["resolution"],
        "--workers",
        workers,
        "--quiet",
        "--seed",
        cfg["i"],
    ]
    if cfg["suite"] == "avoe":
        args.append("--both-conditions")
    if not cfg["rendered"]:
        args.append("--states-only")
    args += ["--render-path", cfg.get("render_path", "full")]  # always said: the suites' defaults differ
    for s in cfg["sets"]:
        args += ["--set", s]
    t0 = time.perf_counter()
    proc = voebench(*args)
    res = {**cfg, "rc": proc.returncode, "seconds_taken": round(time.perf_counter() - t0, 1)}
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    if proc.returncode == 2:
        res["outcome"] = "refused" if len(lines) == 1 and not os.path.exists(out) else "failure"
        res["message"] = lines[-1] if lines else ""
        if res["outcome"] == "failure":
            res["why"] = f"refusal printed {len(lines)} lines or created the folder"
        return res
    if proc.returncode != 0:
        return {**res, "outcome": "failure", "why": "render exit code", "stderr": proc.stderr[-2000:]}
    return {**res, **judge(out, cfg)}


def judge(out: str, cfg: dict) -> dict:
    """Check a rendered set from outside: audit, verify, whole pairs, Level 1 statements."""
    problems = []
    audit_json = os.path.join(out, "audit.json")
    a = voebench("audit", out, "--json", audit_json)
    audit = json.load(open(audit_json)) if os.path.exists(audit_json) else {"videos": 0, "passed": 0, "results": []}
    if a.returncode != 0:
        problems += [f"audit {r['id']}" for r in audit["results"] if not r["ok"]] or ["audit exit code"]
    v = voebench("verify", out)
    if v.returncode != 0:
        problems.append("verify: " + (v.stdout.strip().splitlines() or ["exit code"])[0])
    entries = [json.loads(line) for line in open(os.path.join(out, "manifest.jsonl"))]
    if not entries:  # an AVoE sub-type with no trial among its category's first N (render says so): nothing to judge
        return {"outcome": "empty", "videos": 0, "attempts": [], "accepted": []}
    pairs = defaultdict(list)
    for e in entries:
        if e.get("pair_id"):
            pairs[e["pair_id"]].append(e["condition"])
    problems += [f"incomplete pair {p}" for p, c in pairs.items() if len(c) != 2]
    if cfg["suite"] == "grasp-l1":
        problems += level1_statements(out, entries)
    trials = {e.get("pair_id") or e["id"]: e for e in entries}
    return {
        "outcome": "failure" if problems else "rendered",
        "problems": problems[:20],
        "videos": len(entries),
        "audited": audit["videos"],
        "attempts": [e["attempt"] + 1 for e in trials.values()],
        "accepted": [
            {"test": e["test"], "sampled": e["params"]["sampled"], "space": e["params"]["config"]["space"]}
            for e in trials.values()
        ],
    }


def level1_statements(out: str, entries: list) -> list:
    """Rebuild each Level 1 video's scene from its recorded draw and check its statements."""
    from voebench.generator.params import Params
    from voebench.generator.suite import Job, Timing, load_suite
    from voebench.scenes.grasp_l1 import truth

    suite = load_suite("grasp-l1")
    problems = []
    for e in entries:
        p = Params.wrap(e["params"]["sampled"])
        job = Job(e["suite"], e["test"], e["index"], e["condition"], e["seed"], None)
        scene = suite.make_scene(job, p, Timing(e["n_frames"] / e["fps"], e["fps"]))
        problems += [f"{e['id']}: {x}" for x in truth.check(e["test"], scene, p, e, e["width"], e["height"])]
    return problems


def outcome(r: dict) -> str:
    # rows written before the "empty" outcome existed: an empty set failed only because audit refuses to judge it
    if r["outcome"] == "failure" and r.get("videos") == 0 and r.get("problems") == ["audit exit code"]:
        return "empty"
    return r["outcome"]


def summarize(results: list) -> str:
    by = defaultdict(list)
    for r in results:
        r["outcome"] = outcome(r)
        by[r["outcome"]].append(r)
    attempts = [a for r in by["rendered"] for a in r["attempts"]]
    videos = sum(r.get("videos", 0) for r in by["rendered"])
    lines = [
        f"configurations: {len(results)}  refused: {len(by['refused'])}  rendered: {len(by['rendered'])} "
        f"(with pixels: {sum(r['rendered'] for r in by['rendered'])})  empty (an AVoE sub-type with no trial): "
        f"{len(by['empty'])}  failures: {len(by['failure'])}",
        f"videos: {videos}  trials: {len(attempts)}",
    ]
    if attempts:
        lines.append(
            f"attempts per trial: median {statistics.median(attempts):g}, max {max(attempts)}, "
            f"mean {statistics.mean(attempts):.2f}"
        )
    per_suite = defaultdict(lambda: [0, 0, 0])
    for r in results:
        row = per_suite[r["suite"]]
        row[0] += 1
        row[1] += r["outcome"] == "refused"
        row[2] += r["outcome"] == "rendered"
    for s, (n, ref, ren) in sorted(per_suite.items()):
        lines.append(f"  {s}: {n} configurations, {ref} refused, {ren} rendered")
    kinds: dict = defaultdict(int)
    infeasible_tests: dict = defaultdict(int)
    for r in by["refused"]:
        msg = r.get("message", "")
        if "can be honoured" in msg:
            kinds["too few valid draws (the probe)"] += 1
            infeasible_tests[msg.split("error: ", 1)[-1].split(":", 1)[0]] += 1
        elif "outside the allowed values" in msg or "not a finite number" in msg:
            kinds["an override outside its leaf's domain"] += 1
        else:
            kinds[msg.split("error: ", 1)[-1][:60]] += 1
    lines.append("refused because: " + "; ".join(f"{k} ({v})" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))
    lines.append(
        "  tests refused by the probe: "
        + ", ".join(f"{t} ({n})" for t, n in sorted(infeasible_tests.items(), key=lambda kv: (-kv[1], kv[0])))
    )
    lines += [f"FAILURE c{r['i']:04d} {r['suite']}: {r.get('why') or r.get('problems')}" for r in by["failure"]]
    lines += distribution_shift(by["rendered"])
    return "\n".join(lines)


def distribution_shift(rendered: list, min_n: int = 8) -> list:
    """Where accepted draws sit inside their declared range: u = (v - lo) / (hi - lo), uniform -> mean 0.5.
    Lists the (test, key) pairs whose accepted draws lean most to one end."""
    us = defaultdict(list)
    for r in rendered:
        for a in r["accepted"]:
            for key, declared in _flat(a["space"]).items():
                if isinstance(declared, str) and ":" in declared:
                    lo, hi = (float(x) for x in declared.split(":"))
                    v = _flat(a["sampled"]).get(key)
                    if isinstance(v, (int, float)) and hi > lo:
                        us[(a["test"], key)].append((v - lo) / (hi - lo))
    rows = sorted(
        ((abs(np.mean(u) - 0.5), t, k, np.mean(u), len(u)) for (t, k), u in us.items() if len(u) >= min_n), reverse=True
    )
    out = [f"accepted draws vs declared ranges ({len(us)} keys with samples; uniform mean 0.5); most shifted:"]
    out += [f"  {t}.{k}: mean position {m:.2f} over {n} trials" for _, t, k, m, n in rows[:10]]
    return out


def _flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", type=int, default=200)
    ap.add_argument("--first", type=int, default=0, help="index of the first configuration")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default="/tmp/voebench-fuzz", help="scratch folder for the rendered sets")
    ap.add_argument("--results", default="bench/results/fuzz-settings.jsonl")
    ap.add_argument("--rendered-share", type=float, default=0.2)
    ap.add_argument("--max-trials", type=int, default=2)
    ap.add_argument("--max-seconds", type=float, default=20.0, help="cap the sampled video length")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--suites", default=",".join(SUITES), help="comma list of suites to draw from")
    ap.add_argument(
        "--render-path",
        choices=("full", "dirty", "random"),
        default="full",
        help="`voebench render --render-path` of every configuration, or `random`: each drawn full or dirty",
    )
    ap.add_argument("--keep", action="store_true", help="keep each configuration's output folder")
    ap.add_argument("--summary", metavar="JSONL", help="only summarize an existing results file")
    args = ap.parse_args(argv)
    if args.summary:
        print(summarize([json.loads(line) for line in open(args.summary)]))
        return 0
    done = set()
    if os.path.exists(args.results):
        done = {json.loads(line)["i"] for line in open(args.results)}
    os.makedirs(args.work, exist_ok=True)
    for i in range(args.first, args.first + args.configs):
        if i in done:
            continue
        suites = tuple(args.suites.split(","))
        cfg = draw_config(
            args.seed, i, args.rendered_share, args.max_trials, args.max_seconds, suites, args.render_path
        )
        res = run_config(cfg, args.work, args.workers)
        with open(args.results, "a") as f:
            f.write(json.dumps(res) + "\n")
        print(
            f"c{i:04d} {cfg['suite']:8s} {cfg['render_path']:5s} {res['outcome']:8s} {res['seconds_taken']:7.1f}s "
            f"{res.get('message', '')[:150] or res.get('problems', '')}",
            flush=True,
        )
        if not args.keep:
            shutil.rmtree(os.path.join(args.work, f"c{i:04d}"), ignore_errors=True)
    results = [json.loads(line) for line in open(args.results)]
    print(summarize(results))
    return 1 if any(outcome(r) == "failure" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
