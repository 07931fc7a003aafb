#!/usr/bin/env python3
"""Issue 28, a cold run's first batch: where a fresh `voebench evaluate` process spends its time before its first
answer, and what overlapping its fixed costs with the model's load (evaluate/cold_start.py) saves.

Every run is a fresh process (evaluate_cold.evaluate), 128 plausibility questions on synthetic 320x240 50 fps 10 s
videos, 16 frames, bf16, 8 new tokens (min pinned), batch 32, the machine's default decoding workers.

`breakdown` (the 418M random Qwen2.5-VL; with `--7b` also the 7B architecture, written to disk):
  phases-lazy   one process that does what a cold run does, step by step, timed with CUDA syncs: workers start,
                imports, processor, weights, copy to the GPU; then for batch 1, batch 2 and batch 1 again: its
                clips' decoding (wall), the processor (on the GPU, as the pipelined thread runs it), and `generate`
                split by hooks into the vision tower, the prefill and the decode steps; then the weights loaded
                straight onto the GPU (`device_map`) against the CPU load and copy;
  phases-eager  the same with CUDA_MODULE_LOADING=EAGER (every kernel loaded at context creation: how much of the
                first batch is lazy kernel loading; a diagnostic, not a setting);
  phases-warm   the same with the CUDA warm-up thread on (VOEBENCH_COLD_START=cuda);
  eval-off/-on  `voebench evaluate --frame-store off` with VOEBENCH_COLD_START=off and on (the default).
`final`: against the bench's steady rate measured in the same call (first, per model), each `voebench evaluate`
  with VOEBENCH_COLD_START=off and =on (all three parts) alternating: the 418M with `--frame-store off` (twice
  each, then `decode` alone and `cuda,direct` alone) and with an empty default store, and (`--7b`) the 7B
  architecture with an empty store (twice each, then `decode,cuda`); process wall clock, time from process start
  to the first answer (run.json's `time_to_first_answer_from_start_s`), the run's samples/s, the process's
  timeline (`timing.process`).

`default`: the default (VOEBENCH_COLD_START unset) against off, alternating (call 3 of issue28-cold2).
`decode` (issue28-cold3; issue28-cold4 with early decoding's clips held until the imports are done): whether early
  decoding should be on by default. `VOEBENCH_COLD_START=cuda,direct,exit` (rows `nodecode`; in the committed
  cold3 and cold4 results, `default`: VOEBENCH_COLD_START unset, which was that then) against `on` (the same plus
  early decoding, the default since cold4), in pairs ordered ABBA (`nodecode` first, then `on` first, ...): the
  418M with `--frame-store off` (`--pairs` pairs), the 7B architecture with an empty store (2 pairs, with `--7b`),
  then the 418M with an empty store (2 pairs), each model's bench first; per process also the seconds from its
  last file written to its exit (`exit_after_last_file_s`).

    python bench/evaluate_cold_start.py breakdown --json OUT/breakdown.json --work /tmp/i28c --set runs/h28/set
    python bench/evaluate_cold_start.py final --json OUT/final.json --work /tmp/i28c --set runs/h28/set --7b
    python bench/evaluate_cold_start.py decode --json OUT/decode.json --work /tmp/i28e --set runs/h28/set --7b
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PHASES = r"""
import json, os, sys, time
sys.path.insert(0, {here!r})
from checkout import import_evaluate
import_evaluate()
from voebench.evaluate import cold_start
ages = {{}}
def mark(k):
    ages[k] = round(cold_start.process_age(), 3)
mark("script_start")
from voebench.evaluate import frames
from voebench.evaluate.run import EvalConfig, EvalJob, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select
m = load_manifest({set_dir!r})
samples = build_samples(m, select(m), "zero-shot")[:64]
r = EvalRunner.__new__(EvalRunner)
r.cfg, r._frames = EvalConfig("zero-shot", num_frames=16), {{}}
reqs = [r._request(EvalJob(s, 0, 7)) for s in samples]
batches = [reqs[:32], reqs[32:64], reqs[:32]]
frames.use_store(None)
frames.ensure_cache_size(8)  # batch 1 again decodes again: its clips are not kept
t = time.perf_counter(); frames.use_workers({workers}); out = {{"workers_start_s": round(time.perf_counter() - t, 3)}}
mark("workers_started")
import torch
mark("torch_imported")
import transformers
from transformers import AutoModelForImageTextToText
mark("transformers_imported")
from voebench.evaluate.models import make_adapter
a = make_adapter("hf:{model}", batch_size=32, max_new_tokens=8, do_sample=False, packed_vision_attention="auto")
mark("adapter_built")
out["load_s"] = a.load_stats
out["cold_start_marks"] = dict(cold_start.MARKS)
cuda = a.device.type == "cuda"
def sync():
    if cuda:
        torch.cuda.synchronize()
calls = []
def find(suffix):
    for name, mod in a.model.named_modules():
        if name.endswith(suffix):
            return mod
for tag, mod in (("vision", find("visual")), ("language", find("language_model"))):
    if mod is None:
        continue
    def pre(module, args, kwargs=None, tag=tag):
        sync(); calls.append([tag, time.perf_counter()])
    def post(module, args, output, tag=tag):
        sync(); calls[-1].append(time.perf_counter())
    mod.register_forward_pre_hook(pre)
    mod.register_forward_hook(post)
a.pipelined = True
gen = dict(max_new_tokens=8, min_new_tokens=8, do_sample=False)
rows = []
for k, batch in enumerate(batches):
    row = {{"batch": ["first", "second", "first again"][k]}}
    frames.clear_cache()
    t0 = time.perf_counter()
    clips = [(v["path"], v["indices"]) for q in batch for msg in q.messages if (v := msg.get("video"))]
    frames.prefetch(clips)
    for p, i in clips:
        frames.read_frames(p, i)
    t1 = time.perf_counter()
    inputs = a._inputs(batch, on_gpu=cuda)
    sync()
    t2 = time.perf_counter()
    del calls[:]
    torch.manual_seed(7)
    with torch.inference_mode():
        a.model.generate(**inputs, **gen)
    sync()
    t3 = time.perf_counter()
    lang = [c[2] - c[1] for c in calls if c[0] == "language" and len(c) == 3]
    vis = [c[2] - c[1] for c in calls if c[0] == "vision" and len(c) == 3]
    row.update(decode_wall_s=round(t1 - t0, 3), processor_s=round(t2 - t1, 3), generate_s=round(t3 - t2, 3),
               vision_s=round(sum(vis), 3), prefill_s=round(lang[0], 3) if lang else None,
               decode_steps_s=round(sum(lang[1:]), 3), decode_steps=len(lang) - 1,
               generate_other_s=round(t3 - t2 - sum(vis) - sum(lang), 3))
    rows.append(row)
    mark(f"batch{{k + 1}}_done")
out["batches"] = rows
frames.use_workers(0)
del a
import gc; gc.collect()
if cuda and {device_map}:
    torch.cuda.empty_cache()
    dtype = torch.bfloat16
    t = time.perf_counter()
    model = AutoModelForImageTextToText.from_pretrained({model!r}, dtype=dtype)
    t1 = time.perf_counter(); model = model.to("cuda"); torch.cuda.synchronize(); t2 = time.perf_counter()
    del model; gc.collect(); torch.cuda.empty_cache()
    t3 = time.perf_counter()
    try:
        model = AutoModelForImageTextToText.from_pretrained({model!r}, dtype=dtype, device_map="cuda")
        torch.cuda.synchronize()
        direct = round(time.perf_counter() - t3, 3)
    except Exception as e:
        direct = f"{{type(e).__name__}}: {{str(e)[:200]}}"
    out["load_again_s"] = {{"cpu_then_to_cuda": [round(t1 - t, 3), round(t2 - t1, 3)], "device_map_cuda": direct}}
out["ages_s"] = ages
print(json.dumps(out))
"""


def _digest(run_dir: str, res: dict) -> dict:
    """The cold-start fields of a run's run.json: ages, load split, first and second generate call."""
    path = os.path.join(run_dir, "run.json")
    if "error" in res or not os.path.exists(path):
        return res
    with open(path) as fh:
        t = json.load(fh)["timing"]
    iv = t.get("generate_intervals") or []
    res["generate_calls_s"] = [round(b - a, 3) for a, b in iv[:4]]
    res["time_to_first_answer_from_start_s"] = t.get("time_to_first_answer_from_start_s")
    res["process"] = t.get("process")
    res["decode_s"] = (t.get("stages") or {}).get("decode", {}).get("seconds")
    if res.get("process_wall_s") and res.get("samples"):
        res["samples_per_s_process"] = round(res["samples"] / res["process_wall_s"], 2)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("part", choices=("breakdown", "final", "default", "decode"))
    ap.add_argument("--json", required=True)
    ap.add_argument("--work", required=True, help="working folder (the set and models are reused)")
    ap.add_argument("--set", help="the synthetic set (default: made in --work)")
    ap.add_argument("--7b", dest="big", action="store_true", help="also the 7B architecture (16 GB written)")
    ap.add_argument("--preset", default="base", help="the small model's preset (tiny: a CPU check of this script)")
    ap.add_argument("--skip", default="", help="comma-separated run names to leave out")
    ap.add_argument("--budget", type=float, help="seconds from the start: no run starts later than 30 s before it")
    ap.add_argument("--smi-log", help="nvidia-smi log written here (100 ms)")
    ap.add_argument("--pairs", type=int, default=4, help="decode: the 418M's pairs without a store")
    ap.add_argument("--pairs-7b", type=int, default=2, help="decode: the 7B's pairs (with --7b), empty store")
    ap.add_argument("--pairs-store", type=int, default=2, help="decode: the 418M's pairs with an empty store")
    a = ap.parse_args()
    if a.part in ("default", "decode") and "VOEBENCH_COLD_START" in os.environ:
        ap.error(f"the {a.part} part measures runs without VOEBENCH_COLD_START: unset it")
    import evaluate_issue28_final as fin

    fin.measurement_env()
    import evaluate_cold as cold

    os.makedirs(a.work, exist_ok=True)
    log = os.path.join(a.work, f"log-{a.part}.txt")
    skip = set(filter(None, a.skip.split(",")))
    started = time.time()
    out: dict = {"part": a.part, "rows": [], "workers": cold.workers()}
    rows = fin.Rows(a.json, out)
    row, save = rows.row, rows.save

    def late(name: str, tag: str = "") -> bool:
        if name in skip or f"{tag}-{name}" in skip:
            return True
        if a.budget is not None and a.budget - (time.time() - started) < 30:
            row(name, skipped="budget")
            return True
        return False

    import bench_hf_adapter as b

    smi = fin.start_smi(a.smi_log)
    set_dir = a.set or os.path.join(a.work, "set")
    if not os.path.exists(os.path.join(set_dir, "manifest.jsonl")):
        b.make_set(set_dir, 128, 50, 10.0, 320, 240)
    presets = [a.preset] + (["qwen2.5-vl-7b"] if a.big else [])
    if a.part == "decode":
        presets = []  # its own order: decode_part
        decode_part(a, cold, fin, set_dir, log, rows.row, late)
    for preset in presets:
        folder = os.path.join(a.work, preset)
        if not os.path.exists(os.path.join(folder, "generation_config.json")):
            t = time.perf_counter()
            folder = cold.build_model(preset, a.work)
            out[f"model_build_s_{preset}"] = round(time.perf_counter() - t, 1)
        tag = "7b" if preset == "qwen2.5-vl-7b" else "small"

        def evaluate(name: str, extra: list[str], env: dict, fresh_store: str | None = None, tag=tag, folder=folder):
            if late(name, tag):
                return
            run_dir = os.path.join(a.work, f"{a.part}-{tag}-{name}")
            shutil.rmtree(run_dir, ignore_errors=True)
            if fresh_store:
                shutil.rmtree(fresh_store, ignore_errors=True)
            res = cold.evaluate(set_dir, folder, run_dir, extra, log, env=env)
            row(f"{tag}-{name}", **_digest(run_dir, res))

        def phases(name: str, env: dict, device_map: bool, tag=tag, folder=folder) -> None:
            if late(name, tag):
                return
            code = PHASES.format(
                here=str(HERE), set_dir=set_dir, model=folder, workers=cold.workers(), device_map=device_map
            )
            rc, got, wall = fin._run([sys.executable, "-c", code], log, timeout=300, env=env)
            if rc == 0:
                row(f"{tag}-{name}", env=env, process_wall_s=round(wall, 2), **json.loads(got.strip().splitlines()[-1]))
            else:
                row(f"{tag}-{name}", env=env, rc=rc)

        off, on = {"VOEBENCH_COLD_START": "off"}, {"VOEBENCH_COLD_START": "on"}
        if a.part == "breakdown":
            phases("phases-lazy", off, True)
            phases("phases-eager", {**off, "CUDA_MODULE_LOADING": "EAGER"}, False)
            phases("phases-warm", {"VOEBENCH_COLD_START": "cuda"}, False)
            evaluate("eval-off", ["--frame-store", "off"], off)
            evaluate("eval-on", ["--frame-store", "off"], on)
        elif a.part == "default":  # the default (no VOEBENCH_COLD_START) against off, alternating, more repeats
            default: dict[str, str] = {}  # VOEBENCH_COLD_START is unset here (checked in main): the default
            store = os.path.join(a.work, f"store-{tag}")
            if tag == "small":
                if not late("bench"):
                    fin_bench(fin, cold, preset, set_dir, log, row)
                for k in ("", "-2", "-3"):
                    evaluate(f"nostore-off{k}", ["--frame-store", "off"], off)
                    evaluate(f"nostore-default{k}", ["--frame-store", "off"], default)
            else:
                if not late("bench-7b"):
                    fin_bench(fin, cold, preset, set_dir, log, row, "bench-7b")
                for k in ("", "-2"):
                    evaluate(f"store-off{k}", [], {**off, "VOEBENCH_FRAME_STORE": store}, fresh_store=store)
                    evaluate(f"store-default{k}", [], {"VOEBENCH_FRAME_STORE": store}, fresh_store=store)
        else:  # off and on alternate, so that a drift of the machine does not favour either
            if tag == "small":
                if not late("bench"):
                    fin_bench(fin, cold, preset, set_dir, log, row)
                for k in ("", "-2"):
                    evaluate(f"nostore-off{k}", ["--frame-store", "off"], off)
                    evaluate(f"nostore-on{k}", ["--frame-store", "off"], on)
                evaluate("nostore-decode-only", ["--frame-store", "off"], {"VOEBENCH_COLD_START": "decode"})
                evaluate("nostore-cuda-direct-only", ["--frame-store", "off"], {"VOEBENCH_COLD_START": "cuda,direct"})
            if tag == "7b" and not late("bench-7b"):
                fin_bench(fin, cold, preset, set_dir, log, row, "bench-7b")
            store = os.path.join(a.work, f"store-{tag}")
            for k in ("", "-2") if tag == "7b" else ("",):
                evaluate(f"store-off{k}", [], {**off, "VOEBENCH_FRAME_STORE": store}, fresh_store=store)
                evaluate(f"store-on{k}", [], {**on, "VOEBENCH_FRAME_STORE": store}, fresh_store=store)
            if tag == "7b":
                no_direct = {"VOEBENCH_COLD_START": "decode,cuda", "VOEBENCH_FRAME_STORE": store}
                evaluate("store-on-not-direct", [], no_direct, fresh_store=store)
    import torch

    out["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    out["transformers"] = __import__("transformers").__version__
    out["torch"] = torch.__version__
    save()
    if smi is not None:
        smi.terminate()


def decode_part(a, cold, fin, set_dir: str, log: str, row, late) -> None:
    """Early decoding against `cuda,direct,exit` (module docstring, `decode`): pairs in ABBA order, so that neither arm
    always runs first; the 418M without a store, then the 7B and the 418M with an empty store."""
    on = {"VOEBENCH_COLD_START": "on"}
    without = {"VOEBENCH_COLD_START": "cuda,direct,exit"}  # the default before issue28-cold4

    def model(preset: str) -> str:
        folder = os.path.join(a.work, preset)
        if not os.path.exists(os.path.join(folder, "generation_config.json")):
            folder = cold.build_model(preset, a.work)
        return folder

    def pairs(tag: str, folder: str, n: int, store: bool) -> None:
        for k in range(n):
            arms = [("nodecode", without), ("decode", on)]
            for name, env in arms if k % 2 == 0 else arms[::-1]:
                run = f"{'store' if store else 'nostore'}-{name}-{k + 1}"
                if late(run, tag):
                    continue
                run_dir = os.path.join(a.work, f"decode-{tag}-{run}")
                shutil.rmtree(run_dir, ignore_errors=True)
                extra, env = (["--frame-store", "off"], dict(env)) if not store else ([], dict(env))
                if store:
                    env["VOEBENCH_FRAME_STORE"] = os.path.join(a.work, f"store-{tag}")
                    shutil.rmtree(env["VOEBENCH_FRAME_STORE"], ignore_errors=True)
                t0 = time.time()
                res = _digest(run_dir, cold.evaluate(set_dir, folder, run_dir, extra, log, env=env))
                if os.path.isdir(run_dir) and res.get("process_wall_s"):
                    last = max(os.path.getmtime(os.path.join(run_dir, f)) for f in os.listdir(run_dir))
                    res["exit_after_last_file_s"] = round(t0 + res["process_wall_s"] - last, 2)
                row(f"{tag}-{run}", **res)

    small = model(a.preset)
    if not late("bench"):
        fin_bench(fin, cold, a.preset, set_dir, log, row)
    pairs("small", small, a.pairs, store=False)
    if a.big:
        big = model("qwen2.5-vl-7b")
        if not late("bench-7b"):
            fin_bench(fin, cold, "qwen2.5-vl-7b", set_dir, log, row, "bench-7b")
        pairs("7b", big, a.pairs_7b, store=True)
    pairs("small", small, a.pairs_store, store=True)


def fin_bench(fin, cold, preset: str, set_dir: str, log: str, row, name: str = "bench") -> None:
    """bench/bench_hf_adapter.py's steady rate (after its discarded run), batch 32, in its own process."""
    cmd = [sys.executable, str(HERE / "bench_hf_adapter.py"), "--preset", preset, "--set", set_dir]
    cmd += ["--batch-sizes", "32", "--samples", "128", "--num-frames", "16", "--num-workers", str(cold.workers())]
    cmd += ["--dtype", "bfloat16", "--packed-vision-attention"]
    rc, got, wall = fin._run(cmd, log)
    if rc != 0:
        row(name, rc=rc, process_wall_s=round(wall, 2))
        return
    r = json.loads(got.strip().splitlines()[-1])["results"][0]
    row(name, process_wall_s=round(wall, 2), samples_per_s=r["samples_per_s"], stages_s=r.get("stages_s"))


if __name__ == "__main__":
    main()
