#!/usr/bin/env python3
"""Issue 28: `voebench evaluate` as users run it (a fresh process, one cold run) against the bench's steady speed.

For each random-weight Qwen2.5-VL (the 418M `base` preset and, with `--7b`, the real 7B architecture, saved to
disk so the normal `--model hf:DIR` path loads it), in ONE session on one GPU:

1. `bench`: bench/bench_hf_adapter.py's timed run (one discarded warm-up run first), in its own process;
2. `cold-no-warmup`: `voebench evaluate` in a fresh process with `--frame-store off` (the path before issue 28);
3. `cold`: `voebench evaluate` in a fresh process with `--warmup` and an empty frame store;
4. `second`: the same again in a fresh process, reading the frame store the cold run filled.

Every run asks the same 128 plausibility questions (one per synthetic 320x240 50 fps 10 s video) with 16 frames,
batch 32, 8 new tokens (min_new_tokens pinned in the saved generation config, as the bench pins it), bf16.
Prints one JSON line per run (samples/s over the whole run and after the warm-up, time to first answer, GPU busy
while generating, stage split) and writes them to `--json`.

    python bench/evaluate_cold.py --json bench/results/issue28-evaluate-cold.json [--7b]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUN = """
import sys
sys.path.insert(0, {here!r})
from checkout import import_evaluate
import_evaluate()
from voebench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def evaluate(set_dir, model_dir, out, extra, log, batch="32", env=None, timeout=None):
    """One `voebench evaluate` in a fresh process (`env`: variables added to this one's; `timeout`: seconds before
    it is killed, reported as rc 124); its run.json digested."""
    cmd = [sys.executable, "-c", RUN.format(here=str(HERE)), "evaluate", set_dir, "--model", f"hf:{model_dir}"]
    cmd += ["--out", out, "--batch-size", str(batch), "--num-frames", "16", "--repeats", "1", "--max-new-tokens", "8"]
    cmd += ["--strategy", "zero-shot", *extra]
    t = time.perf_counter()
    try:
        p = subprocess.run(
            cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout
        )
    except subprocess.TimeoutExpired as e:
        with open(log, "a") as fh:
            fh.write(" ".join(cmd) + f"\nkilled after {timeout} s\n" + str(e.stderr or "")[-3000:] + "\n")
        return {"error": f"killed after {timeout} s", "rc": 124, "process_wall_s": round(time.perf_counter() - t, 2)}
    wall = time.perf_counter() - t
    with open(log, "a") as fh:
        fh.write(" ".join(cmd) + "\n" + p.stdout[-3000:] + p.stderr[-3000:] + "\n")
    if p.returncode not in (0, 1):
        return {"error": p.stderr[-1500:], "rc": p.returncode}
    info = json.load(open(os.path.join(out, "run.json")))
    t = info["timing"]
    busy = (t.get("gpu_utilisation") or {}).get("during_generate") or {}
    return {
        "process_wall_s": round(wall, 2),
        "env": env or {},
        "batch_size": info.get("batch_size"),
        "batch_size_auto": {k: v for k, v in (info.get("batch_size_auto") or {}).items() if k != "key_parts"},
        "samples": t["model_calls"],
        "samples_per_s": t["calls_per_s"],
        "samples_per_s_after_warmup": t.get("calls_per_s_after_warmup"),
        "warmup_s": t.get("warmup_s"),
        "time_to_first_answer_s": t.get("time_to_first_answer_s"),
        "gpu_busy_during_generate_percent": busy.get("mean_percent"),
        "gpu_busy_during_generate_median_percent": busy.get("median_percent"),
        "gpu_busy_during_generate_samples": busy.get("samples"),
        "clips_decoded": t.get("clips_decoded"),
        "clips_from_store": t.get("clips_from_store"),
        "stages_s": {k: v["seconds"] for k, v in t.get("stages", {}).items()},
    }


def bench(preset, set_dir, log):
    cmd = [sys.executable, str(HERE / "bench_hf_adapter.py"), "--preset", preset, "--set", set_dir]
    cmd += ["--batch-sizes", "32", "--samples", "128", "--num-frames", "16", "--num-workers", str(workers())]
    cmd += ["--dtype", "bfloat16", "--packed-vision-attention"]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    with open(log, "a") as fh:
        fh.write(" ".join(cmd) + "\n" + p.stderr[-3000:] + "\n")
    if p.returncode != 0:
        return {"error": p.stderr[-1500:]}
    r = json.loads(p.stdout.strip().splitlines()[-1])["results"][0]
    busy = (r.get("gpu_util") or {}).get("during_generate") or {}
    return {"samples_per_s": r["samples_per_s"], "gpu_busy_during_generate_percent": busy.get("mean_percent")}


def workers():
    return max(1, min(16, (os.cpu_count() or 2) - 2))


def build_model(preset, work):
    """A model folder `voebench evaluate --model hf:DIR` loads: random weights, min_new_tokens pinned to 8."""
    sys.path.insert(0, str(HERE))
    from checkout import import_evaluate

    import_evaluate()
    import bench_hf_adapter as b

    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    if preset in b.PRESETS:
        folder = build_tiny_qwen25vl(os.path.join(work, preset), **b.PRESETS[preset])
        from transformers import GenerationConfig

        g = GenerationConfig.from_pretrained(folder)
    else:
        import torch

        arch = b.IN_MEMORY[preset]
        folder = build_tiny_qwen25vl(os.path.join(work, preset), max_pixels=arch["max_pixels"])
        model = b.build_in_memory(arch, folder, torch.device("cuda"), torch.bfloat16)
        model.save_pretrained(folder)
        g = model.generation_config
        del model
        torch.cuda.empty_cache()
    g.min_new_tokens = 8
    g.save_pretrained(folder)
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--json", required=True)
    ap.add_argument("--7b", dest="big", action="store_true", help="also the 7B architecture (16 GB written to disk)")
    ap.add_argument("--work", help="working folder (default: a temporary one, removed)")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    work = a.work or tempfile.mkdtemp(prefix="voebench-cold-")
    sys.path.insert(0, str(HERE))
    from checkout import import_evaluate

    import_evaluate()
    import bench_hf_adapter as b

    set_dir = os.path.join(work, "set")
    if not os.path.exists(os.path.join(set_dir, "manifest.jsonl")):
        b.make_set(set_dir, 128, 50, 10.0, 320, 240)
    log = os.path.join(work, "log.txt")
    rows = []
    for preset in ["base"] + (["qwen2.5-vl-7b"] if a.big else []):
        folder = build_model(preset, work)
        store = os.path.join(work, f"store-{preset}")
        shutil.rmtree(store, ignore_errors=True)
        runs = [
            ("bench", None),
            ("cold-no-warmup", ["--frame-store", "off"]),
            ("cold", ["--warmup", "--frame-store", store]),
            ("second", ["--warmup", "--frame-store", store]),
        ]
        for name, extra in runs:
            if extra is None:
                result = bench(preset, set_dir, log)
            else:
                result = evaluate(set_dir, folder, os.path.join(work, f"{preset}-{name}"), extra, log)
            row = {"preset": preset, "run": name, **result}
            rows.append(row)
            print(json.dumps(row), flush=True)
        if preset != "base":
            shutil.rmtree(folder, ignore_errors=True)
    import torch

    out = {"device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu", "rows": rows}
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as fh:
        json.dump(out, fh, indent=1)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
