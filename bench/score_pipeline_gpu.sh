#!/usr/bin/env bash
# Issue 13's measurement in one go (one GPU call): today's scoring path against the pipeline (decoding workers,
# processor a batch ahead on the GPU), random-weight Qwen2.5-VL 418M preset and the real 7B architecture,
# 16 frames, bf16, batch sizes 1, 8, 32. Writes JSON lines and logs to OUT_DIR.
#
#   bench/score_pipeline_gpu.sh BASELINE_CHECKOUT OUT_DIR
#
# BASELINE_CHECKOUT: a checkout of the code before the pipeline (its own bench/bench_hf_adapter.py is run, so
# "today" really is today's code, in the same call). Environment: SAMPLES (128), WORKERS (14), SMALL (base),
# BIG (qwen2.5-vl-7b), EXTRA (more bench arguments for every run; e.g. "--device cpu --seconds 1" to try the script
# on a CPU), NEW_EXTRA (only for the new code's runs, e.g. --packed-vision-attention), WORKER_LIST (the new code's
# worker counts for SMALL, default "0,WORKERS"), ORDER ("big-second": BIG runs before the new code's
# SMALL runs, so a call cut short still has it).
set -u
BASE=$1
OUT=$2
N=${SAMPLES:-128}
W=${WORKERS:-14}
SMALL=${SMALL:-base}
BIG=${BIG:-qwen2.5-vl-7b}
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
COMMON="--samples $N --num-frames 16 --dtype bfloat16 --batch-sizes 1,8,32 ${EXTRA:-}"
TMP=$(mktemp -d /tmp/voebench-issue13-XXXX)
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || echo "no nvidia-smi"; echo "cpus $(nproc)"; } > "$OUT/machine.txt"
t0=$(date +%s)
NEW="${NEW_EXTRA:-}"
big() {
    $PY bench/bench_hf_adapter.py --preset "$BIG" $COMMON $NEW --num-workers "$W" --set "$TMP/set" --keep "$TMP/big" \
        > "$OUT/pipeline-$BIG.json" 2> "$OUT/pipeline-$BIG.log"
    echo "pipeline $BIG rc=$? $(( $(date +%s) - t0 ))s"
}
$PY "$BASE/bench/bench_hf_adapter.py" --preset "$SMALL" $COMMON --keep "$TMP/today" > "$OUT/today-$SMALL.json" 2> "$OUT/today-$SMALL.log"
echo "today $SMALL rc=$? $(( $(date +%s) - t0 ))s"
mv "$TMP/today/set" "$TMP/set"
[ "${ORDER:-}" = big-second ] && big
$PY bench/bench_hf_adapter.py --preset "$SMALL" $COMMON $NEW --num-workers "${WORKER_LIST:-0,$W}" --set "$TMP/set" \
    --keep "$TMP/new" > "$OUT/pipeline-$SMALL.json" 2> "$OUT/pipeline-$SMALL.log"
echo "pipeline $SMALL rc=$? $(( $(date +%s) - t0 ))s"
[ "${ORDER:-}" = big-second ] || big
rm -rf "$TMP"
