#!/usr/bin/env bash
# NEWTON end to end with fake models (docs/newton.md): the three text tracks generated from the tests' small
# repository and scored by fake:oracle / fake:first / fake:random, then the rendered `newton` suite (tiny
# renders), audited, and scored with the video and in the text-only control. Prints one summary table.
#   bench/newton_e2e.sh [OUT_DIR]        (default /tmp/newton-e2e; about a minute on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
V=${VOEBENCH:-.venv/bin/voebench}
PY=${PYTHON:-.venv/bin/python}
OUT=${1:-/tmp/newton-e2e}
rm -rf "$OUT" && mkdir -p "$OUT/runs"
$PY -c "import sys; sys.path.insert(0, 'tests/evaluate'); import newton_repository as r; r.write('$OUT/repository.csv')"
for t in 1 2 3; do
  $V newton generate --repository "$OUT/repository.csv" --track $t --n 48 --seed 0 --variants v1,v2,v3 --out "$OUT/track$t"
  for m in oracle first random; do
    $V evaluate "$OUT/track$t" --model fake:$m --repeats 1 --out "$OUT/runs/text-track$t-$m" --no-progress 2>/dev/null
  done
done
$V render newton --out "$OUT/videos" --videos-per-test 6 --resolution 64x48 --seconds 1 --fps 10 --workers 1 --quiet
$V audit "$OUT/videos" | tail -5
for m in oracle first; do
  for s in zero-shot text; do
    $V evaluate "$OUT/videos" --model fake:$m --strategy $s --repeats 1 --out "$OUT/runs/video-$m-$s" --no-progress 2>/dev/null
  done
done
$PY - "$OUT/runs" <<'PY'
import json, os, sys
runs = sys.argv[1]
print(f"{'run':28s} {'track':>5s} {'stream':16s} {'n':>4s} {'acc':>6s} {'chance':>6s} {'agreement':>9s} ensemble")
for name in sorted(os.listdir(runs)):
    res = json.load(open(os.path.join(runs, name, "results.json")))["newton"]
    ens = {(r["track"], r["stream"]): r["acc"] for r in res["prompt_variants"] if r["variant"] == "ensemble"}
    for r in res["streams"]:
        agr = f"{100 * r['agreement']:.1f}" if "agreement" in r else "-"
        e = ens.get((r["track"], r["stream"]))
        print(f"{name:28s} {r['track']:5d} {r['stream']:16s} {r['n']:4d} {100 * r['acc']:6.1f} {100 * r['chance']:6.1f} "
              f"{agr:>9s} {'-' if e is None else f'{100 * e:.1f}'}")
PY
