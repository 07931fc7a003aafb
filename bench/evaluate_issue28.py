#!/usr/bin/env python3
"""Issue 28, the second GPU pass: the 418M random Qwen2.5-VL through `voebench evaluate` on a second run that reads
the frame store, with the processor in the prefetch thread (`VOEBENCH_PREPROCESS=thread`, the default) and in the
decoding worker processes (`workers`), at batch 32 and at `--batch-size auto`; plus one profiled `generate`.

Runs, each `voebench evaluate` in a fresh process (bench/evaluate_cold.py's `evaluate`), 128 plausibility questions,
16 frames, bf16, 8 new tokens (min pinned), 14 decoding workers:

1. `fill`: batch 32, empty store (fills it; a cold run);
2. `second-thread`, `second-workers`: batch 32, `--warmup`, store filled;
3. `auto-search`, `auto-cached`: `--batch-size auto` (workers), the first searches, the second reads the size kept;
4. `profile`: in one process, one batch of 32 from the store: the CUDA kernel time inside one `model.generate`
   against its wall time (torch.profiler), and the Python functions it spends the most time in (cProfile).

    python bench/evaluate_issue28.py --set SET --json bench/results/issue28-second-run.json [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PROFILE = r"""
import cProfile, io, json, pstats, sys, time
sys.path.insert(0, {here!r})
from checkout import import_evaluate
import_evaluate()
import torch
from voebench.evaluate import frames
from voebench.evaluate.models import make_adapter
from voebench.evaluate.run import EvalConfig, EvalJob, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select

m = load_manifest({set_dir!r})
samples = build_samples(m, select(m), "zero-shot")[:32]
r = EvalRunner.__new__(EvalRunner)
r.cfg, r._frames = EvalConfig("zero-shot", num_frames=16), {{}}
reqs = [r._request(EvalJob(s, 0, 7)) for s in samples]
frames.use_store({store!r})
a = make_adapter("hf:{model}", batch_size=32, max_new_tokens=8, do_sample=False, packed_vision_attention="auto")
inputs = a._inputs(reqs)
gen = dict(max_new_tokens=8, min_new_tokens=8, do_sample=False)
out = {{}}
with torch.inference_mode():
    for _ in range(2):
        a.model.generate(**inputs, **gen)
    torch.cuda.synchronize()
    walls = []
    for _ in range(3):
        t = time.perf_counter(); a.model.generate(**inputs, **gen); torch.cuda.synchronize()
        walls.append(time.perf_counter() - t)
    out["generate_wall_s"] = [round(w, 4) for w in walls]
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t = time.perf_counter(); a.model.generate(**inputs, **gen); torch.cuda.synchronize()
        wall = time.perf_counter() - t
    ev = prof.key_averages()
    kernel_us = sum(e.self_device_time_total for e in ev if e.device_type == torch.autograd.DeviceType.CUDA)
    out["profiled_wall_s"] = round(wall, 4)
    out["cuda_kernel_s"] = round(kernel_us / 1e6, 4)
    out["kernel_share_percent"] = round(100 * kernel_us / 1e6 / wall, 1)
    out["top_ops_by_cpu"] = [
        (e.key, e.count, round(e.self_cpu_time_total / 1e3, 1))
        for e in sorted(ev, key=lambda e: -e.self_cpu_time_total)[:15]
    ]
    pr = cProfile.Profile()
    pr.enable(); a.model.generate(**inputs, **gen); torch.cuda.synchronize(); pr.disable()
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(40)
    out["cprofile_cumulative"] = s.getvalue()[-12000:]
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--set", required=True, help="a synthetic set (bench_hf_adapter.make_set)")
    ap.add_argument("--json", required=True)
    ap.add_argument("--work", help="working folder (default: a temporary one, removed)")
    ap.add_argument("--preset", default="base", help="bench_hf_adapter's preset (base: 418M; tiny for a CPU check)")
    ap.add_argument("--skip", default="", help="comma-separated run names to leave out")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import evaluate_cold as cold

    work = a.work or tempfile.mkdtemp(prefix="voebench-i28-")
    log = os.path.join(work, "log.txt")
    folder = cold.build_model(a.preset, work)
    store = os.path.join(work, "store")
    shutil.rmtree(store, ignore_errors=True)
    skip = set(filter(None, a.skip.split(",")))
    thread, workers = {"VOEBENCH_PREPROCESS": "thread"}, {"VOEBENCH_PREPROCESS": "workers"}
    runs = [
        ("fill", "32", [], thread),
        ("second-thread", "32", ["--warmup"], thread),
        ("second-workers", "32", ["--warmup"], workers),
        ("auto-search", "auto", ["--warmup"], workers),
        ("auto-cached", "auto", ["--warmup"], workers),
    ]
    rows = []
    out = {"rows": rows}

    def save() -> None:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)

    for name, batch, extra, env in runs:
        if name in skip:
            continue
        run_dir = os.path.join(work, name)
        res = cold.evaluate(a.set, folder, run_dir, [*extra, "--frame-store", store], log, batch=batch, env=env)
        row = {"preset": a.preset, "run": name, **res}
        rows.append(row)
        print(json.dumps(row), flush=True)
        save()
    if "profile" not in skip:
        code = PROFILE.format(here=str(HERE), set_dir=a.set, store=store, model=folder)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if p.returncode == 0:
            out["profile"] = json.loads(p.stdout.strip().splitlines()[-1])
            print(json.dumps({k: v for k, v in out["profile"].items() if k != "cprofile_cumulative"}), flush=True)
        else:
            out["profile"] = {"error": p.stderr[-3000:]}
            print(p.stderr[-3000:], flush=True)
    import torch

    out["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    save()
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
