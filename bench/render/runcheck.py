"""A real run against the same trials made one after another in this process: what a run pays beyond its
trials (process start, the feasibility probe, the pool), and how much one trial's CPU says about the others'.

The model of `project` prices every video by one measured trial (trial 0) and adds nothing for the run around
the trials; a real 2-worker run of grasp-l2/t15 cost 14% more than it predicted (docs/performance.md). This
measures the pieces in one invocation, in CPU seconds (user + system of every process, ffmpeg included):

  in-process  each trial of the run made by `runner.produce` in this process, as a worker makes it
  run         `voebench render ... --workers W` on the same trials, a fresh output folder
  start       one fresh worker process: import bpy and warm up (`workers.init_worker`), as the pool starts W
  probe       the feasibility probe the run makes first (`feasibility.check_feasible`), in this process

and checks that the run's files have the same bytes as the in-process files.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .common import RESULTS, VOEBENCH, children_cpu, cpu_now, load, log, machine, save
from .timers import GATE_PIXELS, GATE_STATES, Timers


def tree_hashes(out: str) -> dict:
    return {
        os.path.relpath(p, out): hashlib.sha256(open(p, "rb").read()).hexdigest()
        for p in sorted(glob.glob(os.path.join(out, "*", "*", "*.*")))
        if p.endswith((".mp4", ".h5"))
    }


def in_process(suite_name: str, test: str, trials: int, size, timing) -> dict:
    """Every trial of the run, made here one after another (warm: one throwaway trial first)."""
    from voebench.generator import trial as trial_mod
    from voebench.generator.feasibility import check_feasible
    from voebench.generator.runner import RunConfig, plan_trials, prepare_output, produce
    from voebench.generator.runner import suite_for as _suite

    suite = _suite(suite_name)
    out = tempfile.mkdtemp(prefix="vb-runcheck-inproc-")
    cfg = RunConfig(out=out, suite=suite_name, tests=[test], trials=trials, width=size[0], height=size[1])
    cfg.seconds, cfg.fps = timing
    warm = RunConfig(out=out + "-warm", suite="grasp-l1", tests=["shape"], trials=1, seconds=0.2, fps=10.0)
    prepare_output(warm, _suite("grasp-l1"))
    produce(plan_trials(warm, _suite("grasp-l1"))[0], warm)  # imports, shader compilation: no trial's cost
    shutil.rmtree(warm.out, ignore_errors=True)
    c0 = cpu_now()
    probes = check_feasible(suite, cfg)
    probe_cpu = cpu_now() - c0
    prepare_output(cfg, suite)
    rows = []
    for trial in plan_trials(cfg, suite):
        timers = Timers({GATE_STATES: (trial_mod, "check_draw"), GATE_PIXELS: (trial_mod, "pixel_rejection")})
        c0, w0, l0 = cpu_now(), time.perf_counter(), load()
        with timers:
            res = produce(trial, cfg, probes.known_rejection(trial))
        rows.append(
            {
                "trial": trial.id,
                "cpu_s": cpu_now() - c0,
                "wall_s": time.perf_counter() - w0,
                "load": [l0, load()],
                "videos": len(res.entries),
                "blender_distinct": res.rendered_frames,
                "attempt": res.attempt,
                "gate_cpu_s": timers.cpu[GATE_STATES] + timers.cpu[GATE_PIXELS],
            }
        )
        log(f"[run-check] in-process {trial.id}: CPU {rows[-1]['cpu_s']:.1f} s, {res.rendered_frames} drawn")
    return {"probe_cpu_s": probe_cpu, "trials": rows, "hashes": tree_hashes(out), "out": out}


def real_run(suite_name: str, test: str, trials: int, workers: int, size, timing) -> dict:
    out = tempfile.mkdtemp(prefix="vb-runcheck-run-")
    cmd = VOEBENCH + [
        "render", suite_name, "--tests", test, "--videos-per-test", str(trials), "--workers", str(workers),
        "--resolution", f"{size[0]}x{size[1]}", "--seconds", f"{timing[0]:g}", "--fps", f"{timing[1]:g}",
        "--out", out, "--quiet",
    ]  # fmt: skip
    c0, w0, l0 = children_cpu(), time.perf_counter(), load()
    subprocess.run(cmd, check=True, env={**os.environ, "LP_NUM_THREADS": "1"})
    res = {"cmd": " ".join(cmd[1:]), "cpu_s": children_cpu() - c0, "wall_s": time.perf_counter() - w0}
    res.update(load=[l0, load()], hashes=tree_hashes(out), out=out)
    return res


def worker_start() -> float:
    """CPU of starting one pool worker: a fresh interpreter that runs the pool's initializer."""
    code = "import os; from voebench.generator.workers import init_worker; init_worker(1, os.getppid())"
    c0 = children_cpu()
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "LP_NUM_THREADS": "1"})
    return children_cpu() - c0


def parent_start() -> float:
    """CPU of the command line up to its first trial, without the probe: import, plan (a states-only run of
    zero trials would still probe, so this is the interpreter, bpy and the suite's import)."""
    code = "import voebench.cli, voebench.generator.blender.render, voebench.scenes"
    c0 = children_cpu()
    subprocess.run([sys.executable, "-c", code], check=True)
    return children_cpu() - c0


def cmd_run_check(args):
    size = tuple(int(x) for x in args.resolution.split("x"))
    timing = (args.seconds, args.fps)
    res = {"machine": machine(), "test": f"{args.suite}/{args.test}", "trials": args.trials, "workers": args.workers}
    run = real_run(args.suite, args.test, args.trials, args.workers, size, timing)
    log(f"[run-check] run: CPU {run['cpu_s']:.1f} s, wall {run['wall_s']:.1f} s (load {run['load']})")
    inproc = in_process(args.suite, args.test, args.trials, size, timing)
    starts = [worker_start() for _ in range(2)]
    parent = parent_start()
    try:
        rows = inproc["trials"]
        videos = sum(r["videos"] for r in rows)
        trials_cpu = sum(r["cpu_s"] for r in rows)
        fixed = args.workers * min(starts) + parent + inproc["probe_cpu_s"]
        res.update(
            run={k: v for k, v in run.items() if k not in ("hashes", "out")},
            in_process={k: v for k, v in inproc.items() if k not in ("hashes", "out")},
            worker_start_cpu_s=starts,
            parent_start_cpu_s=parent,
            same_bytes=run["hashes"] == inproc["hashes"] and len(run["hashes"]) == 2 * videos,
            files=len(run["hashes"]),
            videos=videos,
            summary={
                "run_cpu_s_per_video": run["cpu_s"] / videos,
                "trials_in_process_cpu_s_per_video": trials_cpu / videos,
                "fixed_cpu_s": fixed,
                "fixed_cpu_s_per_video": fixed / videos,
                "unexplained_cpu_s_per_video": (run["cpu_s"] - trials_cpu - fixed) / videos,
                "run_over_in_process": run["cpu_s"] / trials_cpu,
                "trial0_cpu_s_per_video": rows[0]["cpu_s"] / rows[0]["videos"],
                "trial0_drawn_per_video": rows[0]["blender_distinct"] / rows[0]["videos"],
                "drawn_per_video": sum(r["blender_distinct"] for r in rows) / videos,
                "gate_cpu_s_per_video": sum(r["gate_cpu_s"] for r in rows) / videos,
            },
        )
        s = res["summary"]
        # what trial 0 predicts for all trials: its CPU per drawn frame, with the trials' own drawn frames
        per_drawn = (rows[0]["cpu_s"] - rows[0]["gate_cpu_s"]) / rows[0]["blender_distinct"]
        s["trial0_model_cpu_s_per_video"] = (
            sum(r["gate_cpu_s"] + per_drawn * r["blender_distinct"] for r in rows) / videos
        )
    finally:
        shutil.rmtree(run["out"], ignore_errors=True)
        shutil.rmtree(inproc["out"], ignore_errors=True)
    RESULTS["run-check"] = res
    save(args)
    return res
