"""What `voebench render` costs at its defaults, on two versions of the code, alternating in one run.

Each run is the real command line (`python -m voebench render SUITE ARGS --out NEW_FOLDER --workers 1`) in a fresh
process whose import root is one of two folders (a checkout's `src/`, or any folder holding a `voebench` package);
its CPU is the process's and its children's (ffmpeg) user + system seconds. The versions alternate (A B B A A B ...)
so a drift in the machine's speed falls on both. Issue 29 uses it to put the new default (640x480 on the dirty path)
against the code the issue was filed on (320x240 on the full path):

    git worktree add /tmp/before a04148e^          # the code issue 29 was filed on
    # that checkout predates src/: give it a folder whose voebench package links that checkout's voebench
    # folder's files and its generator, scenes and evaluate folders
    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/default_before_after.py --before /tmp/oldroot \\
        --after src --suite avoe --args "--trials 2" --repeats 2 --json /tmp/x.json

Only CPU seconds are compared; the files are deleted after each run (`--keep` keeps them). A run killed by a signal
(a rare segfault inside libc in a long Blender process) is recorded under `crashed_runs` and made again.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from render.common import children_cpu


def run_once(root: str, suite: str, args: list[str], keep: bool) -> dict:
    out = tempfile.mkdtemp(prefix="voebench-before-after-")
    os.rmdir(out)  # voebench refuses a folder it did not write; let it make this one
    env = {**os.environ, "PYTHONPATH": os.path.abspath(root)}
    cmd = [sys.executable, "-m", "voebench", "render", suite, *args, "--out", out, "--workers", "1", "--quiet"]
    cpu0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    cpu, wall = children_cpu() - cpu0, time.perf_counter() - t0
    if proc.returncode < 0:  # killed by a signal (the rare segfault in a long Blender process): not a measurement
        shutil.rmtree(out, ignore_errors=True)
        return {"crashed": f"signal {-proc.returncode}", "cpu_s": round(cpu, 2), "wall_s": round(wall, 2)}
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    with open(os.path.join(out, "dataset.json")) as f:
        identity = json.load(f)["suites"][suite]["identity"]
    videos = sum(1 for _, _, files in os.walk(out) for n in files if n.endswith(".mp4"))
    if not keep:
        shutil.rmtree(out)
    return {
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "videos": videos,
        "size": [identity["width"], identity["height"]],
        "render_path": identity.get("render_path", "full"),
        "load": [round(x, 1) for x in os.getloadavg()[:1]],
        **({"out": out} if keep else {}),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="import root of the code before (holds voebench/)")
    ap.add_argument("--after", required=True, help="import root of the code after (e.g. src)")
    ap.add_argument("--suite", required=True)
    ap.add_argument("--args", default="", help="more `voebench render` arguments, one string (the same for both)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    extra = shlex.split(a.args)
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    crashes: list[dict] = []
    for i in range(a.repeats):
        for name in ("before", "after") if i % 2 == 0 else ("after", "before"):
            for _attempt in range(3):  # a run killed by a signal is recorded and made again, at most twice
                res = run_once(a.before if name == "before" else a.after, a.suite, extra, a.keep)
                print(name, res, flush=True)
                if "crashed" not in res:
                    break
                crashes.append({"version": name, "repeat": i, **res})
            runs[name].append(res)
    med = {n: statistics.median(r["cpu_s"] for r in rs if "crashed" not in r) for n, rs in runs.items()}
    out = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "command": f"voebench render {a.suite} {a.args} --workers 1 (defaults otherwise)",
        "LP_NUM_THREADS": os.environ.get("LP_NUM_THREADS"),
        "affinity": sorted(os.sched_getaffinity(0)),
        "runs": runs,
        "crashed_runs (made again)": crashes,
        "cpu_s_median": med,
        "after_over_before": round(med["after"] / med["before"], 3),
    }
    print(json.dumps({k: out[k] for k in ("cpu_s_median", "after_over_before")}))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
