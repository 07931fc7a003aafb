#!/usr/bin/env python3
"""Issue 28, third GPU pass: `voebench evaluate` after the host work left `generate` (rotary positions on the CPU,
the packed attention's layout once per batch), with the blank warm-up, against the bench and the pre-issue path.

Two parts, each for one GPU call on one card; every `voebench evaluate` is a fresh process (evaluate_cold.evaluate),
128 plausibility questions on synthetic 320x240 50 fps 10 s videos, 16 frames, bf16, 8 new tokens (min pinned),
14 decoding workers, run.json's generate intervals recorded (VOEBENCH_RECORD_INTERVALS=1) so that the busy share
while generating is read from this script's own nvidia-smi log (every 100 ms, `--smi-log`) as well as from the
runner's 0.25 s sampler.

`small` (the 418M random Qwen2.5-VL):
  probe x2      a fresh python: import torch, CUDA init, first matmul and attention (the machine's first CUDA
                process against the second: why a fresh machine's first run is slow);
  cold          default options + --batch-size 32, an empty default frame store (the blank warm-up on);
  cold-nowarm   the same with VOEBENCH_WARMUP=off and --frame-store off (decode, no warm-up: the old cold path);
  bench         bench/bench_hf_adapter.py, steady (after its discarded run);
  second-*      the store filled, --repeats 4 (512 calls): thread / workers / workers with the positions left to
                generate (VOEBENCH_CPU_POSITIONS=0) / workers with VOEBENCH_KV_CACHE=static (time-capped);
  profile       one batch of 32 from the store: kernel time vs wall, launches and host syncs, positions on/off.
`7b` (the 7B architecture, random weights written to disk so `--model hf:DIR` loads it):
  legacy-bench  the pre-issue path (`--legacy`: bench/bench_hf_adapter.py of the commit before issue 28's first
                change, b364df9, from a `git archive` copy), batch 32;
  bench         today's bench, batch 32;
  cold          default options + --batch-size 32, empty store;  profile  as above, positions on the CPU.
`static` (the 418M): `cold` fills the store, then from it at --repeats 4, at batch 32 and at --batch-size auto, the
                default path with the dynamic KV cache and with VOEBENCH_KV_CACHE=static (compiles on CUDA;
                recompiles logged), and how many answers are equal (`--budget`: no run passes the device call's limit).

    python bench/evaluate_issue28_final.py small --json OUT/small.json --work /tmp/i28 --smi-log OUT/smi.csv
    python bench/evaluate_issue28_final.py 7b --json OUT/7b.json --work /tmp/i28 --legacy runs/h28/legacy
    python bench/evaluate_issue28_final.py static --json OUT/static.json --work /tmp/i28 --skip probe --budget 495
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PROBE = r"""
import json, time
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
x = torch.ones(1, device="cuda"); torch.cuda.synchronize()
t2 = time.perf_counter()
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16); (a @ a).sum().item()
q = torch.randn(32, 16, 1024, 80, device="cuda", dtype=torch.bfloat16)
torch.nn.functional.scaled_dot_product_attention(q, q, q).sum().item()
t3 = time.perf_counter()
print(json.dumps({"import_torch_s": round(t1 - t0, 3), "cuda_init_s": round(t2 - t1, 3),
                  "first_kernels_s": round(t3 - t2, 3), "total_s": round(t3 - t0, 3)}))
"""

PROFILE = r"""
import json, sys, time
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
gen = dict(max_new_tokens=8, min_new_tokens=8, do_sample=False)
out = {{}}
from torch.profiler import ProfilerActivity, profile
for flag in {flags}:
    a.cpu_positions = flag
    inputs = a._inputs(reqs)
    row = out["cpu_positions" if flag else "positions_in_generate"] = {{}}
    with torch.inference_mode():
        for _ in range(2):
            a.model.generate(**inputs, **gen)
        torch.cuda.synchronize()
        walls = []
        for _ in range(5):
            t = time.perf_counter(); a.model.generate(**inputs, **gen); torch.cuda.synchronize()
            walls.append(time.perf_counter() - t)
        row["generate_wall_s"] = [round(w, 4) for w in walls]
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            t = time.perf_counter(); a.model.generate(**inputs, **gen); torch.cuda.synchronize()
            wall = time.perf_counter() - t
    ev = prof.key_averages()
    kernel_us = sum(e.self_device_time_total for e in ev if e.device_type == torch.autograd.DeviceType.CUDA)
    count = {{e.key: e.count for e in ev}}
    row["profiled_wall_s"] = round(wall, 4)
    row["cuda_kernel_s"] = round(kernel_us / 1e6, 4)
    row["kernel_share_percent"] = round(100 * kernel_us / 1e6 / wall, 1)
    row["launches"] = count.get("cudaLaunchKernel", 0) + count.get("cuLaunchKernelEx", 0)
    row["stream_syncs"] = count.get("cudaStreamSynchronize", 0)
    row["memcpy_async"] = count.get("cudaMemcpyAsync", 0)
    row["top_ops_by_cpu"] = [
        (e.key, e.count, round(e.self_cpu_time_total / 1e3, 1))
        for e in sorted(ev, key=lambda e: -e.self_cpu_time_total)[:12]
    ]
print(json.dumps(out))
"""


def _run(cmd: list[str], log: str, timeout: float | None = None, env: dict | None = None) -> tuple[int, str, float]:
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, str(e.stdout or ""), str(e.stderr or "")
    wall = time.perf_counter() - t
    with open(log, "a") as fh:
        fh.write(" ".join(cmd)[:2000] + f"\nrc={rc} wall={wall:.2f}\n" + out[-4000:] + err[-4000:] + "\n")
    return rc, out, wall


def smi_samples(path: str) -> list[tuple[float, float]]:
    """(epoch seconds, utilisation %) from `nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv -lms`."""
    out: list[tuple[float, float]] = []
    if not os.path.exists(path):
        return out
    with open(path) as fh:
        for row in csv.reader(fh):
            try:
                t = datetime.strptime(row[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
                out.append((t, float(row[1].strip().split()[0])))
            except (ValueError, IndexError):
                continue
    return out


def busy_while(samples: list[tuple[float, float]], intervals: list[list[float]]) -> dict:
    inside = [u for t, u in samples if any(a <= t <= b for a, b in intervals)]
    return {
        "samples": len(inside),
        "mean_percent": round(statistics.fmean(inside), 1) if inside else None,
        "median_percent": round(statistics.median(inside), 1) if inside else None,
    }


def answers(run_dir: str) -> dict[str, str]:
    """The run's raw responses by sample id, repeat and turn (cache.jsonl, appended per model call: a killed run
    leaves the lines it wrote)."""
    got: dict[str, str] = {}
    path = os.path.join(run_dir, "cache.jsonl")
    if not os.path.exists(path):
        return got
    with open(path) as fh:
        for line in fh:
            try:
                p = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by the kill
            got[f"{p.get('sample_id')}#{p.get('repeat')}#{p.get('turn')}"] = p.get("response")
    return got


def measurement_env() -> None:
    """What every GPU run of these benches sets: no Hub access, each `generate` interval recorded (the busy share
    reads them), unbuffered output of the child processes."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ["VOEBENCH_RECORD_INTERVALS"] = "1"
    os.environ["PYTHONUNBUFFERED"] = "1"


def start_smi(path: str | None) -> subprocess.Popen | None:
    """nvidia-smi's utilisation and memory every 100 ms, appended to `path` (None: no log); terminate it at the end."""
    if not path:
        return None
    return subprocess.Popen(
        ["nvidia-smi", "--query-gpu=timestamp,utilization.gpu,memory.used", "--format=csv", "-lms", "100"],
        stdout=open(path, "a"),  # the child holds it open until terminated
        stderr=subprocess.DEVNULL,
    )


class Rows:
    """The results JSON of a bench call, `out`, whose `rows` list gets one entry per run: `row(name, **fields)` adds
    the run with its end time, prints it (without the `hide` fields) and rewrites the file, so that a call cut by
    its time limit still brings back every run it finished."""

    def __init__(self, path: str, out: dict, hide: tuple[str, ...] = ()):
        self.path, self.out, self.hide = path, out, hide
        out.setdefault("rows", [])

    def save(self) -> None:
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        with open(self.path, "w") as fh:
            json.dump(self.out, fh, indent=1)

    def row(self, name: str, **r) -> None:
        r = {"run": name, "t_end": round(time.time(), 2), **r}
        self.out["rows"].append(r)
        print(json.dumps({k: v for k, v in r.items() if k not in self.hide})[:3000], flush=True)
        self.save()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("part", choices=("small", "7b", "static"))
    ap.add_argument("--json", required=True)
    ap.add_argument("--work", required=True, help="working folder (kept: the set and models are reused)")
    ap.add_argument("--smi-log", help="nvidia-smi log written here (100 ms)")
    ap.add_argument("--set", help="the synthetic set (bench_hf_adapter.make_set; default: made in --work)")
    ap.add_argument("--legacy", help="a copy of the pre-issue checkout (its bench/bench_hf_adapter.py)")
    ap.add_argument("--preset", help="override the part's model preset (tiny: a CPU check of this script)")
    ap.add_argument("--static-timeout", type=float, default=150.0, help="seconds allowed for the static-cache run")
    ap.add_argument("--skip", default="", help="comma-separated run names to leave out")
    ap.add_argument("--budget", type=float, help="seconds from the start: no run starts later, none runs past it")
    a = ap.parse_args()
    measurement_env()
    import evaluate_cold as cold

    os.makedirs(a.work, exist_ok=True)
    log = os.path.join(a.work, f"log-{a.part}.txt")
    skip = set(filter(None, a.skip.split(",")))
    started = time.time()
    smi = start_smi(a.smi_log)
    out: dict = {"part": a.part, "rows": []}
    rows = Rows(a.json, out, hide=("top_ops_by_cpu",))
    row, save = rows.row, rows.save

    try:
        if "probe" not in skip:  # first, so that on a fresh machine the first one is its first CUDA process
            for i in range(2):
                rc, got, wall = _run([sys.executable, "-c", PROBE], log)
                row(f"probe-{i + 1}", process_wall_s=round(wall, 2), **(json.loads(got) if rc == 0 else {"rc": rc}))
        import bench_hf_adapter as b

        set_dir = a.set or os.path.join(a.work, "set")
        if not os.path.exists(os.path.join(set_dir, "manifest.jsonl")):
            b.make_set(set_dir, 128, 50, 10.0, 320, 240)
        preset = a.preset or ("qwen2.5-vl-7b" if a.part == "7b" else "base")
        t = time.perf_counter()
        folder = os.path.join(a.work, preset)
        if not os.path.exists(os.path.join(folder, "generation_config.json")):
            folder = cold.build_model(preset, a.work)
        out["model_build_s"] = round(time.perf_counter() - t, 1)
        tag = a.part

        def evaluate(name: str, extra: list[str], env: dict, batch: str = "32", timeout: float | None = None):
            if name in skip:
                return
            if a.budget is not None:  # the device call's own limit: stop in time to write what was measured
                left = a.budget - (time.time() - started)
                if left < 30:
                    row(name, skipped=f"{left:.0f} s of --budget left")
                    return
                timeout = min(timeout or left, left - 5)
            run_dir = os.path.join(a.work, f"{tag}-{name}")
            t0 = time.time()
            res = cold.evaluate(set_dir, folder, run_dir, extra, log, batch=batch, env=env, timeout=timeout)
            res["answered"] = len(answers(run_dir))  # a killed run: how far it got
            info_path = os.path.join(run_dir, "run.json")
            if "error" not in res and os.path.exists(info_path):
                with open(info_path) as fh:
                    timing = json.load(fh)["timing"]
                res["warmup"] = timing.get("warmup")
                if a.smi_log:
                    res["busy_while_generating_100ms"] = busy_while(
                        smi_samples(a.smi_log), timing.get("generate_intervals") or []
                    )
            row(name, t_start=round(t0, 2), **res)

        def bench(name: str, script: Path, env: dict | None = None) -> None:
            if name in skip:
                return
            cmd = [sys.executable, str(script), "--preset", preset, "--set", set_dir, "--batch-sizes", "32"]
            cmd += ["--samples", "128", "--num-frames", "16", "--num-workers", str(cold.workers())]
            cmd += ["--dtype", "bfloat16", "--packed-vision-attention"]
            t0 = time.time()
            rc, got, wall = _run(cmd, log, env=env)
            if rc != 0:
                row(name, rc=rc, process_wall_s=round(wall, 2))
                return
            r = json.loads(got.strip().splitlines()[-1])["results"][0]
            g = (r.get("gpu_util") or {}).get("during_generate") or {}
            row(
                name,
                t_start=round(t0, 2),
                script=str(script),
                env=env or {},
                process_wall_s=round(wall, 2),
                samples_per_s=r["samples_per_s"],
                gpu_busy_during_generate_percent=g.get("mean_percent"),
                gpu_busy_during_generate_samples=g.get("samples"),
                stages_s=r.get("stages_s"),
            )

        def profile(name: str, store: str, flags: tuple = (True, False)) -> None:
            if name in skip:
                return
            code = PROFILE.format(here=str(HERE), set_dir=set_dir, store=store, model=folder, flags=flags)
            rc, got, wall = _run([sys.executable, "-c", code], log, timeout=240)
            if rc == 0:
                row(name, process_wall_s=round(wall, 2), **json.loads(got.strip().splitlines()[-1]))
            else:
                row(name, rc=rc)

        workers = {"VOEBENCH_PREPROCESS": "workers"}
        if a.part == "static":  # the default path from the store, dynamic against static KV cache (brief s5_h28b)
            store = os.path.join(a.work, "store-default-small")
            evaluate("cold", [], {"VOEBENCH_FRAME_STORE": store})
            many = ["--repeats", "4", "--frame-store", store]
            for batch in ("32", "auto"):
                suffix = "" if batch == "32" else "-auto"
                evaluate(f"second-dynamic{suffix}", many, {}, batch=batch)
                static_env = {"VOEBENCH_KV_CACHE": "static", "TORCH_LOGS": "recompiles"}
                evaluate(f"second-static{suffix}", many, static_env, batch=batch, timeout=a.static_timeout)
                dyn, sta = (answers(os.path.join(a.work, f"{tag}-second-{k}{suffix}")) for k in ("dynamic", "static"))
                both = sorted(set(dyn) & set(sta))
                same = sum(dyn[k] == sta[k] for k in both)
                row(f"answers-equal{suffix}", compared=len(both), equal=same, differ=len(both) - same)
        elif a.part == "small":
            store = os.path.join(a.work, "store-default-small")
            evaluate("cold", [], {"VOEBENCH_FRAME_STORE": store})
            evaluate("cold-nowarm", ["--frame-store", "off"], {"VOEBENCH_WARMUP": "off"})
            bench("bench", HERE / "bench_hf_adapter.py")
            many = ["--repeats", "4", "--frame-store", store]
            evaluate("second-thread", many, {})
            evaluate("second-workers", many, workers)
            evaluate("second-workers-gpu-positions", many, {**workers, "VOEBENCH_CPU_POSITIONS": "0"})
            profile("profile", store)
            static = ["--repeats", "2", "--frame-store", store]
            env = {**workers, "VOEBENCH_KV_CACHE": "static"}
            evaluate("second-workers-static", static, env, timeout=a.static_timeout)
            evaluate("second-workers-dynamic-256", static, workers)
        else:
            if a.legacy:  # its own voebench/ first on the path: an installed voebench must not stand in for it
                legacy = os.path.abspath(a.legacy)
                bench("legacy-bench", Path(legacy) / "bench" / "bench_hf_adapter.py", {"PYTHONPATH": legacy})
            bench("bench", HERE / "bench_hf_adapter.py")
            store = os.path.join(a.work, "store-default-7b")
            evaluate("cold", [], {"VOEBENCH_FRAME_STORE": store})
            profile("profile", store, (True,))
        import torch

        out["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
        out["transformers"] = __import__("transformers").__version__
        out["torch"] = torch.__version__
        save()
    finally:
        if smi is not None:
            smi.terminate()


if __name__ == "__main__":
    main()
