#!/usr/bin/env python3
"""Issue 28: what a cold `voebench evaluate --model hf:DIR` imports, what of it the hf path needs, and the process's
exit, measured on the CPU in fresh processes (alternating, medians).

Parts (all on this machine's CPU, the tiny random Qwen2.5-VL of `build_tiny_qwen25vl`, the synthetic set):

`importtime`  one `voebench evaluate` under `python -X importtime`: the largest cumulative imports, each with the
              chain that first imported it (`importtime.txt`);
`imports`     fresh pythons importing, in rounds (every snippet once per round, in turn): `torch`; `torch` and
              `torch._dynamo`; the model's side (`transformers.masking_utils`, which imports torch._dynamo itself,
              and the Qwen2.5-VL modeling module, without torchvision); the hf path's imports (that, plus the
              checkpoint's processor loaded: torchvision through transformers' image utilities); each the import
              seconds in the process and which of torch._dynamo / torchvision ended up loaded;
`finalize`    fresh pythons importing torch, torch._dynamo and transformers.masking_utils, then exiting plainly or
              after `gc.freeze()`, alternating: seconds from the last atexit handler to the process's end (the
              interpreter's teardown, its last full garbage collection among it);
`cli`         `voebench evaluate` on the tiny model on the CPU, the default (`exit` on) against
              `VOEBENCH_COLD_START=cuda,direct` (the default before: the interpreter's last full collection at exit),
              alternating: process wall, the process's age when its last file was written, the exit after it, and
              whether samples.jsonl is the same.

    python bench/evaluate_imports.py --out bench/results/issue28-imports --set runs/h28/set --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

SNIPPETS = {
    "torch": "import torch",
    "torch+dynamo": "import torch, torch._dynamo",
    "model-side": "import torch, transformers.masking_utils\n"
    "import transformers.models.qwen2_5_vl.modeling_qwen2_5_vl\n"
    "from transformers import AutoModelForImageTextToText",
    "hf-path": "import torch, transformers.masking_utils\n"
    "import transformers.models.qwen2_5_vl.modeling_qwen2_5_vl\n"
    "from transformers import AutoModelForImageTextToText, AutoProcessor\n"
    "AutoProcessor.from_pretrained({model!r})",
}
PROBE = """import sys, time, json
t = time.perf_counter()
{code}
print(json.dumps({{"import_s": round(time.perf_counter() - t, 3),
                  "dynamo": "torch._dynamo" in sys.modules, "torchvision": "torchvision" in sys.modules,
                  "modules": len(sys.modules)}}))
"""
CLI = [
    "-m",
    "voebench",
    "evaluate",
    "{set}",
    "--model",
    "hf:{model}",
    "--out",
    "{out}",
    "--limit",
    "8",
    "--batch-size",
    "4",
    "--num-frames",
    "4",
    "--max-new-tokens",
    "3",
    "--repeats",
    "1",
    "--frame-store",
    "off",
    "--no-progress",
    "--device",
    "cpu",
]
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def uptime() -> float:
    with open("/proc/uptime") as fh:
        return float(fh.read().split()[0])


def cli_cmd(set_dir: str, model: str, out: str) -> list[str]:
    return [sys.executable, *(a.format(set=set_dir, model=model, out=out) for a in CLI)]


def importtime(set_dir: str, model: str, work: str, dest: str, top: int = 40) -> None:
    """The CLI under -X importtime: the `top` largest cumulative imports, each with the chain that imported it."""
    out = os.path.join(work, "importtime-run")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run(
        [sys.executable, "-X", "importtime", *cli_cmd(set_dir, model, out)[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
    )
    rows = []
    for line in p.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m[1]), int(m[2]), len(m[3]) // 2, m[4]))
    lines = [
        f"# python -X importtime {' '.join(CLI[:3])} ... (rc {p.returncode}); "
        f"self total {sum(r[0] for r in rows) / 1e6:.2f} s"
    ]
    lines.append("# cumulative s, self s, module  <- the imports that first pulled it in (cumulative s)")
    for i, r in sorted(enumerate(rows), key=lambda x: -x[1][1])[:top]:
        chain, depth = [], r[2]
        for j in range(i + 1, len(rows)):
            if rows[j][2] < depth:
                chain.append(f"{rows[j][3]} ({rows[j][1] / 1e6:.2f})")
                depth = rows[j][2]
                if depth == 0:
                    break
        lines.append(f"{r[1] / 1e6:6.2f} {r[0] / 1e6:6.2f} {r[3]}  <- {' <- '.join(chain[:4]) or '(top level)'}")
    with open(dest, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines[:25]))


def run_imports(model: str, rounds: int) -> dict:
    got: dict[str, list[dict]] = {k: [] for k in SNIPPETS}
    for _ in range(rounds):
        for name, code in SNIPPETS.items():
            t0 = uptime()
            p = subprocess.run(
                [sys.executable, "-c", PROBE.format(code=code.format(model=model))],
                cwd=ROOT,
                capture_output=True,
                text=True,
                env={**os.environ, **ENV},
            )
            wall = uptime() - t0
            if p.returncode != 0:
                got[name].append({"rc": p.returncode, "error": p.stderr[-800:]})
                continue
            got[name].append({**json.loads(p.stdout.strip().splitlines()[-1]), "process_wall_s": round(wall, 2)})
            print(name, got[name][-1], flush=True)
    return {k: {"runs": v, **medians(v, ("import_s", "process_wall_s"))} for k, v in got.items()}


FINALIZE = """import atexit, sys
atexit.register(lambda: print("last_atexit", open("/proc/uptime").read().split()[0]))  # registered first: runs last
import torch, torch._dynamo, transformers.masking_utils
{extra}
"""


def run_finalize(rounds: int) -> dict:
    arms = {"plain": "", "gc.freeze": "import gc; gc.freeze()"}
    got: dict[str, list[dict]] = {k: [] for k in arms}
    for _ in range(rounds):
        for name, extra in arms.items():
            p = subprocess.run([sys.executable, "-c", FINALIZE.format(extra=extra)], capture_output=True, text=True)
            end = uptime()
            last = float(p.stdout.split("last_atexit")[-1].split()[0]) if "last_atexit" in p.stdout else None
            row = {"rc": p.returncode, "teardown_s": round(end - last, 2) if last is not None else None}
            got[name].append(row)
            print("finalize", name, row, flush=True)
    return {k: {"runs": v, **medians(v, ("teardown_s",))} for k, v in got.items()}


def medians(runs: list[dict], keys: tuple[str, ...]) -> dict:
    out = {}
    for k in keys:
        vals = [r[k] for r in runs if isinstance(r.get(k), (int, float))]
        if vals:
            out[f"median_{k}"] = round(statistics.median(vals), 3)
            out[f"mean_{k}"] = round(statistics.mean(vals), 3)
    return out


def run_cli(set_dir: str, model: str, work: str, rounds: int) -> dict:
    arms = {"default": {}, "exit-off": {"VOEBENCH_COLD_START": "cuda,direct"}}
    got: dict[str, list[dict]] = {k: [] for k in arms}
    samples: dict[str, list[str]] = {}
    for k in range(rounds):
        for name, env in arms.items():
            out = os.path.join(work, f"cli-{name}")
            shutil.rmtree(out, ignore_errors=True)
            base = {k2: v for k2, v in os.environ.items() if k2 != "VOEBENCH_COLD_START"}
            t0 = time.time()
            u0 = uptime()
            p = subprocess.run(
                cli_cmd(set_dir, model, out), cwd=ROOT, capture_output=True, text=True, env={**base, **ENV, **env}
            )
            wall = uptime() - u0
            if p.returncode not in (0, 1):
                got[name].append({"rc": p.returncode, "error": p.stderr[-800:]})
                continue
            last = max(os.path.getmtime(os.path.join(out, f)) for f in os.listdir(out))
            with open(os.path.join(out, "run.json")) as fh:
                ages = json.load(fh)["timing"]["process"]["ages_s"]
            with open(os.path.join(out, "samples.jsonl")) as fh:
                rows = [{k2: r[k2] for k2 in ("sample_id", "repeat", "responses")} for r in map(json.loads, fh)]
            samples.setdefault(name, [json.dumps(rows)])
            row = {
                "process_wall_s": round(wall, 2),
                "last_file_written_s": round(last - t0, 2),  # from the launch (time.time: mtimes' clock)
                "exit_after_last_file_s": round(wall - (last - t0), 2),
                "imports_done_age_s": ages.get("imports_done"),
                "runner_start_age_s": ages.get("runner_start"),
                "same_samples_as_first_default": json.dumps(rows) == samples.get("default", [None])[0],
            }
            got[name].append(row)
            print(name, k, row, flush=True)
    keys = ("process_wall_s", "exit_after_last_file_s", "imports_done_age_s", "runner_start_age_s")
    return {k: {"runs": v, **medians(v, keys)} for k, v in got.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--out", required=True, help="results folder (results.json, importtime.txt)")
    ap.add_argument("--set", required=True, help="a rendered or synthetic set (runs/h28/set)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--parts", default="importtime,imports,finalize,cli")
    a = ap.parse_args()
    parts = set(a.parts.split(","))
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="voebench-imports-")
    os.environ.update(ENV)
    from voebench.evaluate.models.tiny import build_tiny_qwen25vl

    model = build_tiny_qwen25vl(os.path.join(work, "tiny"))
    import torch
    import transformers

    old = os.path.join(a.out, "results.json")
    res: dict = json.load(open(old)) if os.path.exists(old) else {}  # parts run separately add to one file
    res |= {
        "rounds": a.rounds,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
    }
    try:
        if "importtime" in parts:
            importtime(a.set, model, work, os.path.join(a.out, "importtime.txt"))
        if "imports" in parts:
            res["imports"] = run_imports(model, a.rounds)
        if "finalize" in parts:
            res["finalize"] = run_finalize(a.rounds)
        if "cli" in parts:
            res["cli"] = run_cli(a.set, model, work, a.rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        with open(os.path.join(a.out, "results.json"), "w") as fh:
            json.dump(res, fh, indent=1)


if __name__ == "__main__":
    main()
