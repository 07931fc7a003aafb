#!/usr/bin/env python3
"""How busy world-model training keeps the GPU (issue 30): clips/s and the GPU's busy share, per configuration.

`run` trains evaluate/surprise/train.py's model for a fixed number of steps in each phase (`--phases`, a comma
list of CODE:BATCH:STEPS; CODE is `new` for this checkout's train.py or `legacy` for an older copy of train.py
given by `--legacy FILE`, e.g. `git show 3355135:evaluate/surprise/train.py`) and writes, per phase, the local
wall-clock interval, the training seconds and clips/s (train.json `call_clips_per_s`: the device synchronised
before the clock stops). `--parallel K` runs K copies of every phase at once, seeds 0..K-1, in K processes (several
trainings sharing one GPU: each process's host overhead is hidden by the others' kernels). Start `nvidia-smi
--query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -lms 100 > smi.csv` beside it.

`busy` reads that nvidia-smi log and the intervals of `run`'s JSON (and of bench/world_model_train.py's
train-summary.json: `train_wall` of each segment) and adds each interval's mean utilisation: the share of time a
kernel was running. The first `--trim` seconds of an interval (start-up, first kernels) are left out.

    python bench/world_model_throughput.py run --train D1 [D2 ...] --out bench.json \\
        --phases legacy:64:120,new:64:200,new:256:100 [--legacy old_train.py] [--parallel 3] [--device cuda]
    python bench/world_model_throughput.py busy --smi smi.csv --intervals bench.json [train-summary.json ...]
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: nvidia-smi's timestamp format (local time of the machine), also used for the intervals written here.
STAMP = "%Y/%m/%d %H:%M:%S.%f"


def _now() -> str:
    return dt.datetime.now().strftime(STAMP)


def _earlier(end: str, seconds: float) -> str:
    """The local time `seconds` before `end` (STAMP)."""
    return (dt.datetime.strptime(end, STAMP) - dt.timedelta(seconds=seconds)).strftime(STAMP)


def _parse_phases(text: str) -> list[tuple[str, int, int]]:
    out = []
    for part in text.split(","):
        code, batch, steps = part.split(":")
        if code not in ("new", "legacy"):
            raise SystemExit(f"--phases: code must be new or legacy, got {code!r}")
        out.append((code, int(batch), int(steps)))
    return out


def _train_module(code: str, legacy: str | None):
    from voebench.evaluate.surprise import train

    if code == "new":
        return train
    if not legacy:
        raise SystemExit("a legacy phase needs --legacy FILE")
    spec = importlib.util.spec_from_file_location("legacy_train", legacy)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _videos(train_dirs: list[str]):
    from voebench.evaluate.surprise import train
    from voebench.evaluate.surprise.protocol import Protocol
    from voebench.evaluate.tasks import load_manifest

    videos = []
    for d in train_dirs:
        m = load_manifest(d)
        videos += train.load_videos(m, train.plausible_entries(m.entries), Protocol())
    return videos


def _one(args, phases, seed: int) -> list[dict]:
    """Train each phase from fresh weights in this process; one record per phase."""
    import torch

    from voebench.evaluate.surprise.protocol import Protocol

    videos = _videos(args.train)
    rows = []
    for code, batch, steps in phases:
        mod = _train_module(code, args.legacy)
        with tempfile.TemporaryDirectory() as tmp:
            start = _now()
            info = mod.train_world_model(videos, tmp, Protocol(), preset=args.preset, steps=args.planned,
                                         batch=batch, lr=args.lr, device=args.device, seed=seed, stop_at=steps,
                                         log_every=50)  # fmt: skip
            end = _now()
        loop = info.get("call_wall") or [_earlier(end, info["call_seconds"]), end]  # the legacy file has no call_wall
        rows.append({"code": code, "batch": batch, "steps": info["steps"], "seed": seed, "start": loop[0],
                     "end": loop[1], "process": [start, end],
                     "seconds": info["call_seconds"], "clips_per_s": info["call_clips_per_s"],
                     "loss": info["log"][-1]["loss"], "adamw": info.get("adamw", "for-loop (legacy)"),
                     "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None})  # fmt: skip
        print(json.dumps(rows[-1]), flush=True)
    return rows


def cmd_run(args) -> int:
    from checkout import import_evaluate

    import_evaluate()
    phases = _parse_phases(args.phases)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run `finally` blocks when stopped by `timeout`
    if args.parallel <= 1:
        rows = _one(args, phases, args.seed)
        result = {"phases": rows}
    else:
        rows = []
        for code, batch, steps in phases:  # K processes per phase, all started together
            start = _now()
            procs, outs = [], []
            for k in range(args.parallel):
                out = os.path.join(tempfile.mkdtemp(), "one.json")
                cmd = [sys.executable, __file__, "run", "--train", *args.train, "--out", out, "--phases",
                       f"{code}:{batch}:{steps}", "--preset", args.preset, "--planned", str(args.planned),
                       "--lr", str(args.lr), "--device", args.device, "--seed", str(k)]  # fmt: skip
                if args.legacy:
                    cmd += ["--legacy", args.legacy]
                procs.append(subprocess.Popen(cmd))
                outs.append(out)
            try:
                codes = [p.wait() for p in procs]
            finally:  # a `timeout` that ends this process ends its trainings too, not leaving them on the GPU
                for p in procs:
                    if p.poll() is None:
                        p.kill()
            end = _now()
            each = [json.load(open(o, encoding="utf-8"))["phases"][0] for o, c in zip(outs, codes) if c == 0]
            # the interval in which every process was in its training loop (not loading data, not saving)
            both = [max(e["start"] for e in each), min(e["end"] for e in each)] if each else [start, end]
            rows.append({"code": code, "batch": batch, "steps": steps, "parallel": args.parallel,
                         "failed": sum(c != 0 for c in codes), "start": both[0], "end": both[1],
                         "process": [start, end],
                         "clips_per_s": sum(e["clips_per_s"] for e in each), "each": each})  # fmt: skip
            print(json.dumps({k: v for k, v in rows[-1].items() if k != "each"}), flush=True)
        result = {"phases": rows}
    result.update({"preset": args.preset, "planned_steps": args.planned, "train": args.train})
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1)
    return 0


#: Operators that only make a view (no kernel on a GPU); the rest launch at least one kernel there, or copy.
VIEW_OPS = frozenset(f"aten::{n}" for n in (
    "view", "as_strided", "slice", "unsqueeze", "squeeze", "transpose", "t", "expand", "expand_as", "permute",
    "select", "narrow", "unflatten", "unbind", "flatten", "reshape", "detach", "alias", "_unsafe_view", "split",
    "chunk", "view_as", "resolve_conj", "resolve_neg", "result_type", "empty", "empty_strided", "size", "stride",
    "is_nonzero", "lift_fresh"))  # fmt: skip


def cmd_host(args) -> int:
    """Host-side cost of a training step, on the CPU: the model's depth and widths with 4 tokens a frame (crop 32,
    patch 16), batch 1, one thread, so that arithmetic is negligible and what is timed is Python and operator
    dispatch, the work a GPU waits for when the host cannot queue kernels fast enough (on a CPU the matrix products,
    convolutions and the for-loop AdamW still cost time: a rough proxy). Also the operators per step (torch.profiler,
    outermost aten calls of the forward, backward and update; `non_view`: without those that only make a view,
    each of the rest launches a kernel or more on CUDA, where AdamW is fused instead)."""
    from checkout import import_evaluate

    import_evaluate()
    import collections

    import numpy as np
    import torch
    from torch.profiler import ProfilerActivity, profile

    from voebench.evaluate.surprise.protocol import Protocol
    from voebench.evaluate.surprise.vjepa2 import PRESETS

    torch.set_num_threads(1)
    cfg = dict(PRESETS[args.preset], crop_size=32, patch_size=16)
    videos = [np.random.default_rng(k).integers(0, 256, (40, 32, 32, 3), dtype=np.uint8) for k in range(3)]
    rows = []
    for code in ("legacy", "new") if args.legacy else ("new",):
        mod = _train_module(code, args.legacy)
        with tempfile.TemporaryDirectory() as tmp:
            per_step = []
            for _ in range(args.repeats):
                info = mod.train_world_model(videos, tmp, Protocol(), preset=cfg, steps=args.steps, batch=1,
                                             device="cpu", seed=0, log_every=10**6)  # fmt: skip
                per_step.append(info["call_seconds"] / args.steps)

            def ops(steps: int, mod=mod, tmp=tmp) -> collections.Counter:
                with profile(activities=[ProfilerActivity.CPU]) as prof:
                    mod.train_world_model(videos, tmp, Protocol(), preset=cfg, steps=steps, batch=1, device="cpu",
                                          seed=0, log_every=10**6)  # fmt: skip
                return collections.Counter(  # outermost aten calls: forward, backward nodes, optimizer, EMA
                    ("optimizer:" if e.cpu_parent is not None and e.cpu_parent.name.startswith("Optimizer.") else "")
                    + e.name
                    for e in prof.events()
                    if e.name.startswith("aten::")
                    and (e.cpu_parent is None or not e.cpu_parent.name.startswith("aten::"))
                )

            per = ops(3)
            per.subtract(ops(1))  # two steps, without the set-up and saving
        compute = sum(n for name, n in per.items() if name.removeprefix("optimizer:") not in VIEW_OPS) / 2
        optimizer = sum(n for name, n in per.items() if name.startswith("optimizer:")) / 2
        rows.append({"code": code, "host_ms_per_step": 1000 * min(per_step), "non_view_aten_ops_per_step": compute,
                     "of_which_cpu_adamw_per_step": optimizer,
                     "repeats_ms": [1000 * x for x in per_step], "outermost_aten_ops_per_step": sum(per.values()) / 2,
                     "most_common_per_2_steps": per.most_common(12)})  # fmt: skip
        keys = (
            "code",
            "host_ms_per_step",
            "outermost_aten_ops_per_step",
            "non_view_aten_ops_per_step",
            "of_which_cpu_adamw_per_step",
        )
        print(json.dumps({k: rows[-1][k] for k in keys}))
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump({"preset": args.preset, "config": cfg, "steps": args.steps, "rows": rows}, fh, indent=1)
    return 0


def read_smi(path: str) -> list[tuple[dt.datetime, float]]:
    """(time, utilisation %) per line of `nvidia-smi --query-gpu=timestamp,utilization.gpu,... --format=csv,noheader`;
    lines that do not parse (a header, a cut last line) are skipped."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = [p.strip() for p in line.split(",")]
            try:
                rows.append((dt.datetime.strptime(parts[0], STAMP), float(parts[1].rstrip(" %"))))
            except (ValueError, IndexError):
                continue
    return rows


def busy_share(smi: list[tuple[dt.datetime, float]], start: str, end: str, trim: float = 1.0) -> dict:
    """Mean utilisation (%) of the samples inside [start + trim s, end]; None where no sample falls inside."""
    a = dt.datetime.strptime(start, STAMP) + dt.timedelta(seconds=trim)
    b = dt.datetime.strptime(end, STAMP)
    vals = [u for t, u in smi if a <= t <= b]
    return {
        "busy_mean": sum(vals) / len(vals) if vals else None,
        "share_ge_80": sum(v >= 80 for v in vals) / len(vals) if vals else None,
        "samples": len(vals),
    }


def _intervals(doc: dict):
    """The records of a `run` JSON (phases) or a train-summary.json (points with `train_wall`) that hold an interval."""
    for row in doc.get("phases", []):
        yield row, row["start"], row["end"]
    for points in doc.get("runs", {}).values():
        for p in points:
            if p.get("train_wall"):
                yield p, p["train_wall"][0], p["train_wall"][1]


def cmd_busy(args) -> int:
    smi = read_smi(args.smi)
    if not smi:
        raise SystemExit(f"{args.smi}: no nvidia-smi sample read")
    for path in args.intervals:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        n = 0
        for row, start, end in _intervals(doc):
            row["gpu_busy"] = busy_share(smi, start, end, args.trim)
            n += 1
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
        print(f"{path}: {n} intervals")
        for row, _s, _e in _intervals(doc):
            what = {k: row.get(k) for k in ("code", "batch", "parallel", "step", "steps", "clips_per_s") if k in row}
            print(" ", json.dumps(what), json.dumps(row["gpu_busy"]))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--train", nargs="+", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--phases", default="new:64:200,new:256:100")
    r.add_argument("--legacy", default=None)
    r.add_argument("--parallel", type=int, default=1)
    r.add_argument("--preset", default="small-128")
    r.add_argument("--planned", type=int, default=8000, help="planned steps (the schedules read it)")
    r.add_argument("--lr", type=float, default=5e-4)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--device", default="auto")
    b = sub.add_parser("busy")
    b.add_argument("--smi", required=True)
    b.add_argument("--intervals", nargs="+", required=True)
    b.add_argument("--trim", type=float, default=1.0)
    h = sub.add_parser("host")
    h.add_argument("--out", required=True)
    h.add_argument("--preset", default="small-128")
    h.add_argument("--legacy", default=None)
    h.add_argument("--steps", type=int, default=20)
    h.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    return {"run": cmd_run, "busy": cmd_busy, "host": cmd_host}[args.cmd](args)


if __name__ == "__main__":
    raise SystemExit(main())
