#!/usr/bin/env bash
# The one GPU call of issue 30's training-throughput fix (2026-11-27), run from the repository root on the device
# machine with runs/wmdata/* (the rendered sets) and runs/h30/legacy_train.py (git show 3355135:evaluate/surprise/
# train.py) carried. Ends inside LIMIT seconds: each step has its own time limit, training stops itself in time.
set -u
LIMIT=${LIMIT:-408}
START=$(date +%s)
left() { echo $((START + LIMIT - $1 - $(date +%s))); }
export PYTHONUNBUFFERED=1
D=runs/wmdata
# what a CPU dry run of this script changes (DEVICE=cpu PRESET=tiny ...); the defaults are the GPU call's
DEVICE=${DEVICE:-cuda} PRESET=${PRESET:-small-128} BATCH=${BATCH:-256} STEPS=${STEPS:-1963} POINTS=${POINTS:-500,1963}
BENCH=${BENCH:-legacy:64:80,new:64:150,new:256:80,new:512:40} PAR=${PAR:-new:256:50}
TESTS=${TESTS:-"$D/test-l2-128 $D/test-avoe"} SEEDTEST=${SEEDTEST:-$D/test-l2}
TRAIN="$D/train-l2-128 $D/train-avoe-128"
[ -f "$D/train-l2-128-s3/manifest.jsonl" ] && TRAIN="$TRAIN $D/train-l2-128-s3"
LOG=$OUT/call.log
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -lms 100 > "$OUT/smi.csv" &
SMI=$!
{ nvidia-smi -L; python3 -c 'import torch, transformers; print(torch.__version__, transformers.__version__)'; } >> "$LOG" 2>&1
echo "== 1 throughput, one process: legacy (3355135) vs this checkout; train sets: $TRAIN" >> "$LOG"
timeout $(( $(left 0) < 100 ? $(left 0) : 100 )) python3 bench/world_model_throughput.py run --train $TRAIN --out "$OUT/bench.json" --device $DEVICE \
    --phases $BENCH --legacy runs/h30/legacy_train.py --preset $PRESET >> "$LOG" 2>&1
echo "== 2 throughput, 3 processes at once (seeds 0-2), $PAR ($(date +%T))" >> "$LOG"
[ "$(left 0)" -ge 60 ] && timeout 60 python3 bench/world_model_throughput.py run --train $TRAIN --out "$OUT/bench-par.json" \
    --device $DEVICE --phases $PAR --parallel 3 --preset $PRESET >> "$LOG" 2>&1
echo "== 3 training, small-128, batch 256, 1963 planned steps = 502,528 clips (10x 785 x 64) ($(date +%T))" >> "$LOG"
T=$(left 32)
[ "$T" -ge 80 ] && timeout $((T + 20)) python3 bench/world_model_train.py --train $TRAIN --test $TESTS \
    --out /tmp/wmtrain --state-dir /tmp/wmstate --preset $PRESET --steps $STEPS --points $POINTS \
    --seeds 0,1,2 --batch $BATCH --max-seconds "$T" --score-reserve 40 --device $DEVICE >> "$LOG" 2>&1
cp /tmp/wmtrain/train-summary.json "$OUT/" 2>> "$LOG"
echo "== 4 random V-JEPA 2 small, seed 0, bf16 and fp16 autocast, test-l2 ($(date +%T))" >> "$LOG"
T=$(left 6)
[ "$T" -ge 20 ] && timeout "$T" python3 bench/world_model_seeds.py --test $SEEDTEST --out /tmp/seeds --seeds 1 \
    --fp16-seeds 1 --models vjepa2-random:small --batch 128 --device $DEVICE >> "$LOG" 2>&1
cp /tmp/seeds/seeds-summary.json "$OUT/fp16-seeds-summary.json" 2>> "$LOG"
kill $SMI
python3 bench/world_model_throughput.py busy --smi "$OUT/smi.csv" \
    --intervals $(ls "$OUT"/bench.json "$OUT"/bench-par.json "$OUT"/train-summary.json 2>/dev/null) >> "$LOG" 2>&1
tar czf "$OUT/train-runs.tgz" --exclude=model -C /tmp wmtrain 2>> "$LOG"
echo "== done after $(( $(date +%s) - START )) s" >> "$LOG"
