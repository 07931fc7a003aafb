#!/usr/bin/env python3
"""Issue 28, `voebench evaluate --replicas N`: do N copies of a small model on one GPU answer more questions per
second than one?

For one GPU call on one card. Every `voebench evaluate` is a fresh process (evaluate_cold.evaluate): plausibility
questions on the synthetic 320x240 50 fps 10 s set, 16 frames, bf16, 8 new tokens (min pinned), batch 32, the
default decoding workers (shared out between the replicas), generate intervals recorded
(VOEBENCH_RECORD_INTERVALS=1) so the busy share while generating is read from this script's own nvidia-smi log
(every 100 ms, `--smi-log`): the samples inside the union of every replica's `generate` calls.

  cold        the 418M random Qwen2.5-VL, default options + --batch-size 32, fills an empty frame store;
  r1, r2, r3  the same model from the filled store, --repeats 4 (512 calls), --replicas 1, 2, 3;
  r1-again    --replicas 1 once more (the card's drift over the call);
  7b-r1/r2    with `--7b`: the 7B architecture (random weights written to disk), from the same store (frames are
              stored at the video's size, for every model), --repeats 2 (256 calls), --replicas 1 and 2.

Each row: samples/s over the run (the runner's wall: from the run's start, the model loaded), after the first
answer ((calls - one batch) / (wall - time to first answer)), the process's whole wall clock (imports and model
loading included), busy while generating (mean and median of the 100 ms samples), the GPU memory peak, and whether
the answers equal the --replicas 1 run's (cache.jsonl, by sample, repeat and turn). `--budget`: no run starts
later than it allows, none runs past it.

    python bench/evaluate_replicas.py --json OUT/replicas.json --work /tmp/i28r --smi-log OUT/smi.csv \\
        --set runs/h28/set --budget 500 [--7b]
    python bench/evaluate_replicas.py --json OUT/long.json --work /tmp/i28r --smi-log OUT/smi.csv --set runs/h28/set \\
        --replicas 1,2,1,2,3 --repeats 16 --runs-json OUT/runs --budget 380          # 2048 calls a run
    python bench/evaluate_replicas.py --json /tmp/dry.json --work /tmp/dry --preset tiny --set runs/h28/set  # CPU
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def memory_peak(path: str, t0: float, t1: float) -> float | None:
    """The largest memory.used (MiB) of the nvidia-smi log between two epoch times."""
    import csv
    from datetime import datetime

    best = None
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        for row in csv.reader(fh):
            try:
                t = datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
                mib = float(row[2].strip().split()[0])
            except (ValueError, IndexError):
                continue
            if t0 <= t <= t1:
                best = mib if best is None else max(best, mib)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--work", required=True, help="working folder (models, store, runs)")
    ap.add_argument("--set", required=True, help="the synthetic set (bench_hf_adapter.make_set)")
    ap.add_argument("--smi-log", help="nvidia-smi log written here (100 ms)")
    ap.add_argument("--preset", default="base", help="the small model's preset (tiny: a CPU check of this script)")
    ap.add_argument(
        "--replicas", default="1,2,3", help="replica counts of the second runs, in order (a count again: a new run)"
    )
    ap.add_argument("--runs-json", help="copy each run's run.json here (generate intervals, per-stage timing)")
    ap.add_argument("--repeats", default="4", help="--repeats of the second runs (4: 512 calls)")
    ap.add_argument("--7b", dest="big", action="store_true", help="then the 7B architecture, 1 and 2 replicas")
    ap.add_argument("--budget", type=float, help="seconds from the start: no run starts later, none runs past it")
    a = ap.parse_args()
    from evaluate_issue28_final import Rows, answers, busy_while, measurement_env, smi_samples, start_smi

    measurement_env()
    import evaluate_cold as cold

    os.makedirs(a.work, exist_ok=True)
    log = os.path.join(a.work, "log-replicas.txt")
    started = time.time()
    smi = start_smi(a.smi_log)
    out: dict = {"rows": [], "argv": sys.argv[1:]}
    cpu = a.preset == "tiny"
    rows = Rows(a.json, out)
    row, save = rows.row, rows.save

    store = os.path.join(a.work, "store")
    base_answers: dict[str, dict] = {}

    def evaluate(name: str, folder: str, extra: list[str], reference: str | None = None) -> None:
        timeout = None
        if a.budget is not None:  # the device call's own limit: stop in time to write what was measured
            left = a.budget - (time.time() - started)
            if left < 40:
                row(name, skipped=f"{left:.0f} s of --budget left")
                return
            timeout = left - 5
        run_dir = os.path.join(a.work, name)
        extra = [*extra, "--frame-store", store, *(["--device", "cpu"] if cpu else [])]
        t0 = time.time()
        res = cold.evaluate(a.set, folder, run_dir, extra, log, batch="4" if cpu else "32", timeout=timeout)
        t1 = time.time()
        got = answers(run_dir)
        res["answered"] = len(got)
        if reference is None:
            base_answers[name] = got
        elif reference in base_answers:
            ref = base_answers[reference]
            both = set(ref) & set(got)
            res["answers_vs"] = reference
            res["answers_compared"] = len(both)
            res["answers_equal"] = sum(ref[k] == got[k] for k in both)
        info_path = os.path.join(run_dir, "run.json")
        if "error" not in res and os.path.exists(info_path):
            with open(info_path) as fh:
                info = json.load(fh)
            timing = info["timing"]
            res["replicas"] = info.get("replicas")
            res["adapter_stats"] = info.get("adapter_stats")
            wall, first, calls = timing["wall_seconds"], timing.get("time_to_first_answer_s"), timing["model_calls"]
            batch = int(info.get("batch_size") or 1)
            if first is not None and wall > first and calls > batch:
                res["samples_per_s_after_first_answer"] = round((calls - batch) / (wall - first), 2)
            if a.smi_log:
                res["busy_while_generating_100ms"] = busy_while(
                    smi_samples(a.smi_log), timing.get("generate_intervals") or []
                )
                res["gpu_memory_peak_mib"] = memory_peak(a.smi_log, t0, t1)
        row(name, t_start=round(t0, 2), **res)
        if a.runs_json and os.path.exists(info_path):
            import shutil

            os.makedirs(a.runs_json, exist_ok=True)
            shutil.copy(info_path, os.path.join(a.runs_json, f"run-{name}.json"))

    try:
        import bench_hf_adapter as b

        if not os.path.exists(os.path.join(a.set, "manifest.jsonl")):
            b.make_set(a.set, 128, 50, 10.0, 320, 240)
        t = time.perf_counter()
        folder = os.path.join(a.work, a.preset)
        if not os.path.exists(os.path.join(folder, "generation_config.json")):
            folder = cold.build_model(a.preset, a.work)
        out["model_build_s"] = round(time.perf_counter() - t, 1)
        evaluate("cold", folder, [])  # fills the store: the runs below read it
        many = ["--repeats", a.repeats]
        counts = [int(n) for n in a.replicas.split(",") if n]
        seen: dict[int, int] = {}
        for n in counts:
            seen[n] = seen.get(n, 0) + 1
            name = f"r{n}" if seen[n] == 1 else f"r{n}-{seen[n]}"
            evaluate(name, folder, [*many, "--replicas", str(n)], reference=None if name == "r1" else "r1")
        if seen.get(1) == 1:
            evaluate("r1-again", folder, [*many, "--replicas", "1"], reference="r1")
        if a.big and (a.budget is None or a.budget - (time.time() - started) > 150):
            t = time.perf_counter()
            big = os.path.join(a.work, "qwen2.5-vl-7b")
            if not os.path.exists(os.path.join(big, "generation_config.json")):
                big = cold.build_model("qwen2.5-vl-7b", a.work)
            out["model_build_7b_s"] = round(time.perf_counter() - t, 1)
            evaluate("7b-r1", big, ["--repeats", "2", "--replicas", "1"])
            evaluate("7b-r2", big, ["--repeats", "2", "--replicas", "2"], reference="7b-r1")
        try:
            import torch

            out["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
            out["torch"] = torch.__version__
            out["transformers"] = __import__("transformers").__version__
        except ImportError:
            pass
        save()
    finally:
        if smi is not None:
            smi.terminate()


if __name__ == "__main__":
    main()
