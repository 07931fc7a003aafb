"""NEWTON Track 2 at full scale on a repository the user brings (docs/newton.md, Measured).

    .venv/bin/python bench/newton_track2_scale.py --repository confident_questions.csv [--out DIR] [--seeds 0,1,2]

For each seed, `voebench newton generate --track 2 --n max` and a few n the old generator failed at (2200, 2300)
or that the paper fine-tunes on (40000), each timed (wall clock of the command), then every question checked:
distinct (statement, or option set per attribute and polarity), and its answer true to the repository's Likert
extremes. Then the same with the three prompt variants, and the refusal of maximum + 1. Prints one line per run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from voebench.evaluate.newton.repository import filter_pairs, read_repository


def generate(repo: str, out: str, n: str, seed: int, variants: str = "v1") -> tuple[int, float, str]:
    cmd = [sys.executable, "-m", "voebench.cli", "newton", "generate", "--repository", repo, "--track", "2"]
    cmd += ["--n", n, "--seed", str(seed), "--variants", variants, "--out", out]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, time.perf_counter() - t0, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""


def check(out: str, values: dict) -> dict:
    """Counts of questions, duplicates and answers not true to the repository."""
    qs = [json.loads(line) for line in open(os.path.join(out, "questions.jsonl"), encoding="utf-8")]
    keys, texts, wrong = Counter(), Counter(), 0
    for q in qs:
        mc = q["qtype"] == "multiple_choice"
        keys[(q["qtype"], q["polarity"], q["attribute"], tuple(sorted(q["objects"]) if mc else q["objects"]))] += 1
        texts[q["texts"]["v1"]] += 1
        vals = [values[(q["attribute"], o)] for o in q["objects"]]
        pos = q["polarity"] == "positive"
        if q["qtype"] == "boolean":
            ok = q["answer"] == str((vals[0] == 3) == pos)
        elif q["qtype"] == "comparison":
            ok = sorted(vals) == [1, 3] and q["answer"] == str((vals[0] > vals[1]) == pos)
        else:
            k, want = q["position"] - 1, 3 if pos else 1
            ok = vals[k] == want and all(v == 4 - want for i, v in enumerate(vals) if i != k)
        wrong += not ok
    meta = json.load(open(os.path.join(out, "newton.json"), encoding="utf-8"))
    return {
        "n": len(qs),
        "maximum": meta["maximum"],
        "duplicate_keys": sum(c - 1 for c in keys.values()),
        "duplicate_texts": sum(c - 1 for c in texts.values()),
        "wrong_answers": wrong,
        "by_type": dict(sorted(Counter(q["qtype"] for q in qs).items())),
        "mb": round(os.path.getsize(os.path.join(out, "questions.jsonl")) / 2**20, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repository", required=True)
    ap.add_argument("--out", default=None, help="folder for the question sets (default: a temporary one)")
    ap.add_argument("--seeds", default="0,1,2")
    args = ap.parse_args()
    data = filter_pairs(read_repository(args.repository).pairs)
    values = {(p.attribute, p.category): p.majority for p in data.pairs}
    root = args.out or tempfile.mkdtemp(prefix="newton-t2-")
    seeds = [int(s) for s in args.seeds.split(",")]
    runs = [(n, s, "v1") for s in seeds for n in ("max", "2200", "2300", "40000")] + [("max", seeds[0], "v1,v2,v3")]
    maximum = None
    for n, seed, variants in runs:
        out = os.path.join(root, f"n{n}-s{seed}-{variants.replace(',', '')}")
        rc, wall, _ = generate(args.repository, out, n, seed, variants)
        if rc:
            print(f"n={n} seed={seed}: exit {rc}")
            return 1
        c = check(out, values)
        maximum = c["maximum"]
        print(f"n={n} seed={seed} variants={variants}: {wall:.1f} s, {json.dumps(c)}", flush=True)
    same = open(os.path.join(root, f"nmax-s{seeds[0]}-v1", "questions.jsonl"), "rb").read()
    rc, wall, _ = generate(args.repository, os.path.join(root, "again"), "max", seeds[0])
    again = open(os.path.join(root, "again", "questions.jsonl"), "rb").read()
    print(f"seed {seeds[0]} again: same bytes {same == again} ({wall:.1f} s)")
    rc, _, err = generate(args.repository, os.path.join(root, "over"), str(int(maximum or 0) + 1), seeds[0])
    print(f"n = maximum + 1: exit {rc}, {err!r}, folder written {os.path.exists(os.path.join(root, 'over'))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
