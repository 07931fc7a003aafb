#!/usr/bin/env bash
# The second GPU call of issue 30 (2026-11-27): seeds 1 and 2 of the 10x training (small-128, batch 256, 1963 steps =
# 502,528 clips each, Level 2 + AVoE 128-px training sets), one process per seed, side by side on the one GPU (seed 0
# was trained to the end in the first call, bench/results/issue30-fast/call.sh; a 58 MB training state cannot come
# back through a call's output, so each seed is trained within one call); beside them, the random-weight control of
# the same architecture on the same test sets (vjepa2-random:small-128, seeds 0-2 in bf16 and fp16 autocast first,
# then up to 20 bf16 seeds while time allows). Run from the repository root with runs/wmdata carried. Ends inside
# LIMIT seconds; writes at most 8 files to $OUT.
set -u
LIMIT=${LIMIT:-505}
START=$(date +%s)
left() { echo $((START + LIMIT - $1 - $(date +%s))); }
export PYTHONUNBUFFERED=1
D=runs/wmdata
# what a CPU dry run changes (DEVICE=cpu PRESET=tiny RANDOM=vjepa2-random:tiny ...); the defaults are the GPU call's
DEVICE=${DEVICE:-cuda} PRESET=${PRESET:-small-128} BATCH=${BATCH:-256} STEPS=${STEPS:-1963}
POINTS=${POINTS:-500,1000,1963} SEEDS=${SEEDS:-"1 2"} RANDOM_MODEL=${RANDOM_MODEL:-vjepa2-random:small-128}
RSEEDS=${RSEEDS:-20} FP16=${FP16:-3} TESTS=${TESTS:-"$D/test-l2-128 $D/test-avoe"}
TRAIN="$D/train-l2-128 $D/train-avoe-128"
LOG=$OUT/call.log
nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -lms 100 > "$OUT/smi.csv" &
SMI=$!
{ nvidia-smi -L; python3 -c 'import torch, transformers; print(torch.__version__, transformers.__version__)'; } >> "$LOG" 2>&1
echo "== training seeds $SEEDS side by side, $PRESET, batch $BATCH, $STEPS steps, points $POINTS ($(date +%T))" >> "$LOG"
PIDS=""
for s in $SEEDS; do
    timeout $(left 15) python3 bench/world_model_train.py --train $TRAIN --test $TESTS --out /tmp/wmtrain/s$s \
        --state-dir /tmp/wmstate --preset $PRESET --steps $STEPS --points $POINTS --seeds $s --batch $BATCH \
        --max-seconds $(left 40) --score-reserve 45 --device $DEVICE > "/tmp/train-s$s.log" 2>&1 &
    PIDS="$PIDS $!"
done
echo "== random $RANDOM_MODEL: seeds 0-$((FP16 - 1)) bf16 + fp16, then up to $RSEEDS bf16 ($(date +%T))" >> "$LOG"
timeout $(left 200) python3 bench/world_model_seeds.py --test $TESTS --out /tmp/seedsA --seeds $FP16 \
    --fp16-seeds $FP16 --models $RANDOM_MODEL --batch 128 --workers 4 --device $DEVICE >> "$LOG" 2>&1
cp /tmp/seedsA/seeds-summary.json "$OUT/seeds-summary-fp16.json" 2>> "$LOG"
T=$(left 90)
MERGE=""
[ -f /tmp/seedsA/seeds-summary.json ] && MERGE="--merge /tmp/seedsA/seeds-summary.json"
[ "$T" -ge 30 ] && timeout $((T + 60)) python3 bench/world_model_seeds.py --test $TESTS --out /tmp/seedsB \
    --seeds $RSEEDS --models $RANDOM_MODEL --batch 128 --workers 4 --max-seconds "$T" $MERGE \
    --device $DEVICE >> "$LOG" 2>&1
cp /tmp/seedsB/seeds-summary.json "$OUT/seeds-summary.json" 2>> "$LOG"
echo "== waiting for the trainings ($(date +%T))" >> "$LOG"
for p in $PIDS; do wait "$p"; echo "training process $p: exit $?" >> "$LOG"; done
for s in $SEEDS; do
    grep -v -e '^Writing' -e '^Loading' "/tmp/train-s$s.log" | sed "s/^/[seed $s] /" >> "$LOG"
    cp "/tmp/wmtrain/s$s/train-summary.json" "$OUT/train-summary-s$s.json" 2>> "$LOG"
done
kill $SMI
python3 bench/world_model_throughput.py busy --smi "$OUT/smi.csv" \
    --intervals $(ls "$OUT"/train-summary-s*.json 2>/dev/null) >> "$LOG" 2>&1
tar czf "$OUT/train-runs.tgz" --exclude=model -C /tmp wmtrain 2>> "$LOG"
tar czf "$OUT/seeds-runs.tgz" --exclude=curves.png --exclude=results.json -C /tmp seedsA seedsB 2>> "$LOG"
echo "== done after $(( $(date +%s) - START )) s" >> "$LOG"
