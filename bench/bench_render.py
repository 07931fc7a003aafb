"""Rendering benchmarks for docs/performance.md. Every ratio is measured within one invocation.

    .venv/bin/python bench/bench_render.py paths --json bench/results/paths.json     # today's path vs the new one
    .venv/bin/python bench/bench_render.py quality --json bench/results/quality.json # anti-aliasing vs 4x reference
    .venv/bin/python bench/bench_render.py project --paths-from bench/results/paths.json --unique-from U.json

  paths         today's render path (Blender FXAA, one render() per state) against the new one (aliased render +
                numpy FXAA, one render(animation=True) per batch and pass, frames shared within a trial) on a
                still Level 1 video, a Level 2 video, a Level 2 pair and an AVoE video at 960x540
  quality       mean absolute error of Blender's FXAA, the aliased render and the numpy FXAA against a 4x4
                supersampled render; writes side-by-side crops to docs/img/
  project       core-hours of the full default GRASP (L1 + L2) and of the AVoE 10% subset, per path
  reuse-still   10 s, 50 fps still Level 1 video, frame reuse vs naive; asserts bit-identical output   (was a)
  reuse-l2      a typical Level 2 video, reuse vs naive, with where the time goes                      (was b)
  warm          warm worker (one process, many videos) vs a fresh process per video                     (was c)
  workers       workers x LP_NUM_THREADS in {1x1, 1x2, 2x1}: frames/s and frames/s per core             (was d)
  memory        resident memory of one worker after 30 and after 300 videos                            (was e)
  project-reuse projection of the previous round (reuse vs naive wall time), from reuse-l2 and workers  (was f)

Times are wall seconds and CPU seconds (this process + ffmpeg children); on a shared machine CPU seconds are the
steadier number, so both are printed, with the load average. Where the time goes is measured with explicit
timers (`Timers`) around named functions, found by reference: a renamed function fails loudly instead of
timing nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VOEBENCH = [os.path.join(os.path.dirname(sys.executable), "voebench")]
RESULTS: dict = {}
WARM: list = []


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cpu_now() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def load() -> float:
    return round(os.getloadavg()[0], 1)


# ------------------------------------------------------------------------------------------ in-process videos


class FrameClock:
    """Wraps Renderer.frames to time each yielded frame (render + the caller's encode/write), split into
    rendered and copied frames."""

    def __init__(self):
        from voebench.generator.blender import render

        self.render, self.orig = render, render.Renderer.frames
        self.rendered, self.copied = [], []

    def __enter__(self):
        clock, orig = self, self.orig

        def frames(renderer, *a, **k):
            t = time.perf_counter()
            for fr in orig(renderer, *a, **k):
                yield fr
                now = time.perf_counter()
                (clock.rendered if fr.rendered else clock.copied).append(now - t)
                t = now

        self.render.Renderer.frames = frames
        return self

    def __exit__(self, *exc):
        self.render.Renderer.frames = self.orig


class Timers:
    """Explicit timers, each around one function or method given as (owner, attribute name). The attribute is
    looked up when the timers start, so a renamed function raises AttributeError instead of reporting 0.
    CPU time is this process's (Blender draws in it, on llvmpipe threads); ffmpeg runs in a child process.
    A generator function is timed over its `next()` calls only, not over the caller's work between them."""

    def __init__(self, targets: dict):
        self.targets = targets
        self.cpu = dict.fromkeys(targets, 0.0)
        self.wall = dict.fromkeys(targets, 0.0)
        self.calls = dict.fromkeys(targets, 0)
        self._saved = []

    def _wrap(self, label, fn):
        import functools
        import inspect

        timers = self

        def add(c0, w0):
            timers.cpu[label] += time.process_time() - c0
            timers.wall[label] += time.perf_counter() - w0

        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def gen(*a, **k):
                timers.calls[label] += 1
                it = fn(*a, **k)
                while True:
                    c0, w0 = time.process_time(), time.perf_counter()
                    try:
                        x = next(it)
                    except StopIteration:
                        add(c0, w0)
                        return
                    add(c0, w0)
                    yield x

            return gen

        @functools.wraps(fn)
        def call(*a, **k):
            timers.calls[label] += 1
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                add(c0, w0)

        return call

    def __enter__(self):
        for label, (owner, attr) in self.targets.items():
            fn = getattr(owner, attr)  # AttributeError if it was renamed: fix the target, do not drop it
            self._saved.append((owner, attr, owner.__dict__[attr] if isinstance(owner, type) else fn))
            setattr(owner, attr, self._wrap(label, fn))
        return self

    def __exit__(self, *exc):
        for owner, attr, orig in reversed(self._saved):
            setattr(owner, attr, orig)
        self._saved.clear()

    def table(self) -> dict:
        return {
            k: {"cpu_s": round(self.cpu[k], 4), "wall_s": round(self.wall[k], 4), "calls": self.calls[k]}
            for k in self.targets
        }


def pipeline_timers() -> Timers:
    """The pieces of producing a video. Nested pieces overlap (the renderer contains the Blender calls)."""
    from voebench.generator.blender import render  # first: it loads bpy, which provides bmesh for build
    from voebench.generator.blender import build
    from voebench.generator.io import hdf5, video
    from voebench.generator.suite import Suite

    return Timers(
        {
            "renderer total (Renderer.frames)": (render.Renderer, "frames"),
            "Blender render, batched (Renderer._animate, per pass)": (render.Renderer, "_animate"),
            "Blender render, one state (Renderer.render_state)": (render.Renderer, "render_state"),
            "numpy FXAA (antialias.fxaa)": (render, "fxaa"),
            "read_bmp (RGB and segmentation)": (render, "read_bmp"),
            "depth EXR read (Renderer._read_depth)": (render.Renderer, "_read_depth"),
            "apply state to Blender (Renderer.apply)": (render.Renderer, "apply"),
            "mp4 pipe write (VideoWriter.write)": (video.VideoWriter, "write"),
            "mp4 close, waits for ffmpeg (VideoWriter.close)": (video.VideoWriter, "close"),
            "HDF5 add_frame (StatesWriter.add_frame)": (hdf5.StatesWriter, "add_frame"),
            "HDF5 close (StatesWriter.close)": (hdf5.StatesWriter, "close"),
            "build Blender scene (build.build)": (build, "build"),
            "factory reset (build.reset)": (build, "reset"),
            "make_scene: sample, simulate (Suite.make_scene)": (Suite, "make_scene"),
        }
    )


def make_video(cfg, job, profile: bool = False) -> dict:
    """Produce one video; `profile` adds where its time went (explicit timers)."""
    from voebench.generator.runner import produce_video

    c0, w0 = cpu_now(), time.perf_counter()
    timers = pipeline_timers() if profile else None
    with FrameClock() as clock:
        if timers is not None:
            timers.__enter__()
        try:
            result = produce_video(job, cfg)
        finally:
            if timers is not None:
                timers.__exit__()
    out = {
        "wall_s": time.perf_counter() - w0,
        "cpu_s": cpu_now() - c0,
        "frames": result.frames,
        "rendered": result.rendered_frames,
        "ms_per_rendered_frame": 1000 * float(np.mean(clock.rendered)) if clock.rendered else None,
        "ms_per_copied_frame": 1000 * float(np.mean(clock.copied)) if clock.copied else None,
        "load": load(),
    }
    out["fixed_s"] = out["wall_s"] - sum(clock.rendered) - sum(clock.copied)
    if timers is not None:
        out["profile"] = {k: v["wall_s"] for k, v in timers.table().items()}
        out["profile"]["(wall total)"] = round(out["wall_s"], 3)
    return out


def compare_outputs(out_a: str, out_b: str, relpath: str) -> dict:
    """Everything a user reads: RGB frames (decoded and mp4 bytes), depth and segmentation of every frame,
    every states array and attribute of the HDF5 file."""
    import h5py

    from voebench.generator.io.video import read_video

    res = {}
    fa, fb = os.path.join(out_a, relpath), os.path.join(out_b, relpath)
    va, vb = read_video(fa + ".mp4"), read_video(fb + ".mp4")
    res["rgb_frames_equal"] = bool(va.shape == vb.shape and np.array_equal(va, vb))
    res["mp4_bytes_equal"] = open(fa + ".mp4", "rb").read() == open(fb + ".mp4", "rb").read()
    diffs = []
    with h5py.File(fa + ".h5", "r") as a, h5py.File(fb + ".h5", "r") as b:
        for name in ("depth", "segmentation"):
            if not np.array_equal(a[name][()], b[name][()]):
                diffs.append(name)

        def walk(g, h, path=""):
            for k in g:
                if path == "" and k == "_unique":
                    continue  # storage layout (distinct frames) legitimately differs
                if isinstance(g[k], h5py.Group):
                    walk(g[k], h[k], f"{path}/{k}")
                elif (k not in ("depth", "segmentation") or path) and not np.array_equal(g[k][()], h[k][()]):
                    diffs.append(f"{path}/{k}")
            for k, v in g.attrs.items():
                if not np.array_equal(v, h.attrs[k]):
                    diffs.append(f"{path}@{k}")

        walk(a, b)
    res["depth_segmentation_states_equal"] = not diffs
    res["differences"] = diffs
    return res


def single_video_cfg(out, suite, test, index=0, **kw):
    from voebench.generator.runner import RunConfig, plan, prepare_output
    from voebench.scenes import REGISTRY

    s = REGISTRY.get(suite)
    cfg = RunConfig(out=out, suite=suite, tests=[test], trials=index + 8, **kw)
    prepare_output(cfg, s)
    jobs = [j for j in plan(cfg, s) if j.index >= index]  # (some AVoE trials have no video of a condition)
    return cfg, jobs[0]


def reuse_vs_naive(tag: str, suite: str, test: str, repeats: int, width=320, height=240, profile=False, **kw) -> dict:
    import dataclasses

    tmp = tempfile.mkdtemp(prefix=f"vb-bench-{tag}-")
    try:
        cfg, job = single_video_cfg(os.path.join(tmp, "reuse"), suite, test, width=width, height=height, **kw)
        ncfg = dataclasses.replace(cfg, out=os.path.join(tmp, "naive"), reuse_frames=False)
        from voebench.generator.runner import prepare_output
        from voebench.scenes import REGISTRY

        prepare_output(ncfg, REGISTRY.get(suite))
        if not WARM:  # the first render of a process compiles shaders: not part of any video's cost
            make_video(cfg, job)
            WARM.append(True)
        reuse = [make_video(cfg, job, profile=profile and i == 0) for i in range(repeats)]
        log(f"[{tag}] reuse: {[round(r['wall_s'], 2) for r in reuse]} s; naive ...")
        naive = make_video(ncfg, job, profile=profile)
        log(f"[{tag}] naive: {naive['wall_s']:.1f} s")
        same = compare_outputs(cfg.out, ncfg.out, job.relpath)
        med = lambda k: statistics.median(r[k] for r in reuse)  # noqa: E731
        res = {
            "video": job.id,
            "resolution": f"{width}x{height}",
            "frames": naive["frames"],
            "distinct_frames": reuse[0]["rendered"],
            "reuse_runs": reuse,
            "naive": naive,
            "reuse_wall_s_median": med("wall_s"),
            "reuse_cpu_s_median": med("cpu_s"),
            "ratio_wall": naive["wall_s"] / med("wall_s"),
            "ratio_cpu": naive["cpu_s"] / med("cpu_s"),
            "identical": same,
        }
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------------------------------ parts


def part_a(args):
    r = reuse_vs_naive("a", "grasp-l1", "shape", args.repeats, seconds=10.0, fps=50.0)
    ok = r["identical"]
    assert ok["rgb_frames_equal"] and ok["mp4_bytes_equal"] and ok["depth_segmentation_states_equal"], ok
    return r


def part_b(args):
    return reuse_vs_naive("b", "grasp-l2", args.l2_test, 1, seconds=10.0, fps=50.0, profile=True)


def cli_render(out, extra, env=None) -> dict:
    t0, c0 = time.perf_counter(), cpu_now()
    cmd = VOEBENCH + ["render", "--out", out, "--quiet"] + extra
    p = subprocess.run(cmd, cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd)}\n{p.stderr[-3000:]}")
    return {"wall_s": time.perf_counter() - t0, "cpu_s": cpu_now() - c0, "load": load()}


def same_tree(a: str, b: str) -> bool:
    import filecmp

    fa = sorted(os.path.relpath(p, a) for p in glob.glob(os.path.join(a, "*", "*", "*.*")))
    fb = sorted(os.path.relpath(p, b) for p in glob.glob(os.path.join(b, "*", "*", "*.*")))
    return fa == fb and all(filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False) for f in fa)


def part_c(args):
    n = args.videos_c
    base = [
        "grasp-l1",
        "--tests",
        "directionality",
        "--videos-per-test",
        str(n),
        "--seconds",
        "2",
        "--fps",
        "25",
        "--workers",
        "1",
    ]
    rows = {"warm": [], "process_per_video": []}
    for rep in range(args.repeats_c):
        tmp = tempfile.mkdtemp(prefix="vb-bench-c-")
        try:
            rows["warm"].append(cli_render(os.path.join(tmp, "warm"), base))
            t0, c0 = time.perf_counter(), cpu_now()
            for i in range(n):  # --shard i/n of n trials is exactly one video per process
                cli_render(os.path.join(tmp, "cold"), base + ["--shard", f"{i}/{n}"])
            subprocess.run(VOEBENCH + ["merge", os.path.join(tmp, "cold")], cwd=ROOT, capture_output=True)
            rows["process_per_video"].append(
                {"wall_s": time.perf_counter() - t0, "cpu_s": cpu_now() - c0, "load": load()}
            )
            rows.setdefault("identical", []).append(same_tree(os.path.join(tmp, "warm"), os.path.join(tmp, "cold")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        log(
            f"[c] rep {rep}: warm {rows['warm'][-1]['wall_s']:.1f} s, "
            f"per-video {rows['process_per_video'][-1]['wall_s']:.1f} s"
        )
    med = {k: statistics.median(r["wall_s"] for r in rows[k]) for k in ("warm", "process_per_video")}
    return {
        "videos": n,
        "video": "grasp-l1/directionality, 320x240, 2 s at 25 fps",
        "runs": rows,
        "median_wall_s": med,
        "ratio": med["process_per_video"] / med["warm"],
    }


def part_d(args):
    combos = [(1, 1), (1, 2), (2, 1)]
    n = args.videos_d
    base = [
        "grasp-l1",
        "--tests",
        "directionality,movement",
        "--videos-per-test",
        str(n),
        "--seconds",
        "2",
        "--fps",
        "25",
    ]
    runs = {f"{w}x{t}": [] for w, t in combos}
    frames = rendered = None
    for rep in range(args.repeats_d):
        order = combos if rep % 2 == 0 else combos[::-1]
        for w, t in order:
            tmp = tempfile.mkdtemp(prefix="vb-bench-d-")
            try:
                r = cli_render(tmp, base + ["--workers", str(w), "--threads", str(t)])
                ents = [json.loads(x) for x in open(os.path.join(tmp, "manifest.jsonl"))]
                frames = sum(e["n_frames"] for e in ents)
                rendered = _rendered_frames(tmp)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            runs[f"{w}x{t}"].append(r)
            log(f"[d] {w}x{t}: {r['wall_s']:.1f} s (load {r['load']})")
    cores = os.cpu_count()
    table = {}
    for k, rs in runs.items():
        wall = statistics.median(r["wall_s"] for r in rs)
        table[k] = {
            "wall_s": wall,
            "frames_per_s": frames / wall,
            "rendered_frames_per_s": rendered / wall,
            "frames_per_s_per_core": frames / wall / cores,
            "rendered_frames_per_s_per_core": rendered / wall / cores,
        }
    best = min(table, key=lambda k: table[k]["wall_s"])
    return {
        "videos": 2 * n,
        "frames": frames,
        "rendered_frames": rendered,
        "cores": cores,
        "runs": runs,
        "table": table,
        "fastest": best,
    }


def _rendered_frames(out: str) -> int:
    import h5py

    n = 0
    for p in glob.glob(os.path.join(out, "*", "*", "*.h5")):
        with h5py.File(p, "r") as f:
            n += len(f["_unique/depth"])
    return n


def part_e(args):
    script = r"""
import json, os, sys, time, resource
os.environ["LP_NUM_THREADS"] = "1"
from voebench.generator.runner import RunConfig, plan, produce_video, prepare_output
from voebench.scenes import REGISTRY
out, n = sys.argv[1], int(sys.argv[2])
jobs = []
for suite in ("grasp-l1", "grasp-l2"):
    s = REGISTRY.get(suite)
    cfg = RunConfig(out=out, suite=suite, tests=list(s.tests), trials=n, seconds=10.0, fps=2.0, width=64, height=48)
    prepare_output(cfg, s)
    jobs += [(cfg, j) for j in plan(cfg, s)]
# interleave suites and tests so that every stretch of the run sees every kind of scene
jobs.sort(key=lambda cj: (cj[1].index, cj[1].test, cj[1].condition))
rss, failed = [], 0
def vmrss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
t0 = time.time()
for i, (cfg, job) in enumerate(jobs[: int(sys.argv[3])]):
    try:
        produce_video(job, cfg)
    except Exception:
        failed += 1  # a scene that cannot be built at this tiny timing; memory is still measured
    rss.append(vmrss())
print(json.dumps({"rss_mb": rss, "failed": failed, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "seconds": time.time() - t0}))
"""
    tmp = tempfile.mkdtemp(prefix="vb-bench-e-")
    try:
        n_videos = args.videos_e
        per_suite_trials = n_videos // (6 + 32) + 2
        p = subprocess.run(
            [sys.executable, "-c", script, tmp, str(per_suite_trials), str(n_videos)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if p.returncode:
            raise RuntimeError(p.stderr[-3000:])
        r = json.loads(p.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rss = r["rss_mb"]
    at = lambda i: rss[min(i, len(rss)) - 1]  # noqa: E731
    return {
        "videos": len(rss),
        "failed": r["failed"],
        "video": "grasp-l1 + grasp-l2 tests interleaved, 64x48, 10 s at 2 fps",
        "rss_mb_after": {str(k): round(at(k), 1) for k in (1, 10, 30, 100, 200, 300) if k <= len(rss)},
        "ratio_300_vs_30": at(300) / at(30),
        "peak_mb": r["peak_mb"],
        "seconds": r["seconds"],
    }


def part_f(args):
    """Projection. Per video: wall = fixed + distinct * c_render + copied * c_copy, with c_render, c_copy and
    fixed measured in (b) at 320x240 (one worker, 2 threads) and scaled by the measured throughput of the
    fastest workers x threads setting (d). AVoE renders at 960x540: c_render there is measured on one AVoE
    video. Distinct-frame counts per test come from building and simulating 2 trials of every test."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from unique_frames import survey

    b = RESULTS.get("b") or part_b(args)
    d = RESULTS.get("d") or part_d(args)
    reuse = b["reuse_runs"][0]
    c_render = reuse["ms_per_rendered_frame"] / 1000
    c_copy = reuse["ms_per_copied_frame"] / 1000
    fixed = reuse["fixed_s"]
    # one AVoE video at its default size, for the per-frame cost at 960x540
    av = reuse_vs_naive("f-avoe", "avoe", args.avoe_test, 1, width=960, height=540, seconds=50 / 24, fps=24.0)
    av_run = av["reuse_runs"][0]
    c_render_avoe = av_run["ms_per_rendered_frame"] / 1000
    fixed_avoe = av_run["fixed_s"]
    # throughput gain of the fastest setting over a single 1x2 worker (what (b) measured)
    gain_here = d["table"]["1x2"]["wall_s"] / d["table"][d["fastest"]]["wall_s"]
    # 16 cores: 16 workers x 1 thread, each as fast as one 1x1 worker here (independent videos, no shared
    # bottleneck; about 0.5 GB RAM each). A 1x1 worker's speed relative to 1x2 is measured in (d) only with the
    # other core idle, so use the 2x1 run: each of its two workers is one 1x1 worker running next to another.
    per_worker_1x1 = d["table"]["1x2"]["wall_s"] / (d["table"]["2x1"]["wall_s"] * 2)
    gain_16 = 16 * per_worker_1x1
    if args.unique_from:  # output of bench/unique_frames.py --json
        with open(args.unique_from) as f:
            suites = json.load(f)
    else:
        suites = {
            "grasp-l1": survey("grasp-l1", 2),
            "grasp-l2": survey("grasp-l2", 2),
            "avoe": survey("avoe", 2, fraction=0.1),
        }
    proj = {}
    for name, s in suites.items():
        cr, fx = (c_render_avoe, fixed_avoe) if name == "avoe" else (c_render, fixed)
        tests = {t: v for t, v in s["tests"].items() if v["videos"]}
        per_video = statistics.mean(
            fx + v["unique"] * cr + (v["frames"] - v["unique"]) * c_copy for v in tests.values()
        )
        naive_per_video = statistics.mean(fx + v["frames"] * cr for v in tests.values())
        serial = s["videos"] * per_video
        proj[name] = {
            "videos": s["videos"],
            "fraction": s["fraction"],
            "s_per_video_one_worker": per_video,
            "naive_s_per_video_one_worker": naive_per_video,
            "hours_here": serial / gain_here / 3600,
            "hours_16_cores": serial / gain_16 / 3600,
            "naive_hours_here": s["videos"] * naive_per_video / gain_here / 3600,
        }
    # CPU model (steadier on a shared machine): CPU s per video = F + u*r + (n-u)*c, from (b)'s reuse and naive
    # CPU seconds (this process + ffmpeg); c from the copied-frame time of (b). One single-threaded worker per
    # core keeps every core busy, so wall = total CPU / cores.
    n_b, u_b = b["frames"], b["distinct_frames"]
    c_cpu = c_copy
    r_cpu = (b["naive"]["cpu_s"] - b["reuse_cpu_s_median"] + (n_b - u_b) * c_cpu) / (n_b - u_b)
    f_cpu = max(0.0, b["naive"]["cpu_s"] - n_b * r_cpu)
    r_cpu_avoe = av_run["cpu_s"] / av_run["rendered"]  # all AVoE frames of that video are distinct; includes F
    cores = os.cpu_count() or 1
    for name, s in suites.items():
        tests = {t: v for t, v in s["tests"].items() if v["videos"]}
        if name == "avoe":
            cpu = statistics.mean(
                v["unique"] * r_cpu_avoe + (v["frames"] - v["unique"]) * c_cpu for v in tests.values()
            )
        else:
            cpu = statistics.mean(
                f_cpu + v["unique"] * r_cpu + (v["frames"] - v["unique"]) * c_cpu for v in tests.values()
            )
        proj[name].update(
            {
                "cpu_s_per_video": cpu,
                "cpu_hours_here": s["videos"] * cpu / cores / 3600,
                "cpu_hours_16_cores": s["videos"] * cpu / 16 / 3600,
            }
        )
    cpu_model = {
        "r_cpu_s_320x240": r_cpu,
        "f_cpu_s": f_cpu,
        "c_cpu_s": c_cpu,
        "r_cpu_s_960x540": r_cpu_avoe,
        "total_hours_here": sum(p["cpu_hours_here"] for p in proj.values()),
        "total_hours_16_cores": sum(p["cpu_hours_16_cores"] for p in proj.values()),
    }
    total_here = sum(p["hours_here"] for p in proj.values())
    total_16 = sum(p["hours_16_cores"] for p in proj.values())
    return {
        "model": part_f.__doc__.strip(),
        "c_render_s_320x240": c_render,
        "c_copy_s": c_copy,
        "fixed_s_per_video": fixed,
        "c_render_s_960x540": c_render_avoe,
        "fixed_s_avoe": fixed_avoe,
        "throughput_gain_here_vs_1x2": gain_here,
        "throughput_gain_16_cores_vs_1x2": gain_16,
        "suites": proj,
        "cpu_model": cpu_model,
        "total_hours_here": total_here,
        "total_hours_16_cores": total_16,
        "avoe_reuse_vs_naive": {k: av[k] for k in ("ratio_wall", "ratio_cpu", "identical", "distinct_frames")},
    }


# ------------------------------------------------------------------------------------------ today's path vs new

PATHS = {  # RenderSettings fields per path; "new" is the default
    "today": {"antialias": "blender", "batch": 0},  # Blender's FXAA, one render() call per state and pass
    "new": {},  # aliased render + numpy FXAA, one render(animation=True) per batch and pass; trial-wide cache
}


@contextlib.contextmanager
def render_path(path: str, cache=None):
    """Make runner.produce render with `path`'s settings (and this FrameCache), as a runner that produces a
    whole trial in one worker will pass it. runner.produce imports Renderer and RenderSettings from the render
    module when it runs, so patching the module's names reaches it."""
    from voebench.generator.blender import render

    real_settings, real_renderer = render.RenderSettings, render.Renderer
    kw = PATHS[path]

    def settings(*a, **k):
        return real_settings(*a, **{**kw, **k})

    def renderer(scene, settings, *a, **k):
        return real_renderer(scene, settings, *a, **{**k, "cache": cache})  # this path's cache, not the runner's

    render.RenderSettings, render.Renderer = settings, renderer
    try:
        yield
    finally:
        render.RenderSettings, render.Renderer = real_settings, real_renderer


def trial_jobs(out, suite, test, pair: bool, **kw):
    """(cfg, jobs): the first video of trial 0 (or of the first trial that has one), or both videos of it."""
    from voebench.generator.runner import RunConfig, plan, prepare_output
    from voebench.scenes import REGISTRY

    s = REGISTRY.get(suite)
    cfg = RunConfig(out=out, suite=suite, tests=[test], trials=8, **kw)
    prepare_output(cfg, s)
    jobs = plan(cfg, s)
    if pair:
        first = next(j.index for j in jobs if sum(k.index == j.index for k in jobs) == 2)
        return cfg, [j for j in jobs if j.index == first]
    return cfg, jobs[:1]


def sha256_tree(out: str) -> dict:
    import hashlib

    return {
        os.path.relpath(p, out): hashlib.sha256(open(p, "rb").read()).hexdigest()
        for p in sorted(glob.glob(os.path.join(out, "*", "*", "*.*")))
    }


def run_path(path: str, item: dict) -> dict:
    """Produce the item's videos (one video, or both videos of a pair with a FrameCache on the new path) in this
    process. Returns CPU/wall seconds, distinct frames rendered by Blender and by the cache, timers, hashes."""
    from voebench.generator.frame_cache import FrameCache
    from voebench.generator.runner import produce_video

    tmp = tempfile.mkdtemp(prefix="vb-bench-paths-")
    try:
        cfg, jobs = trial_jobs(
            tmp,
            item["suite"],
            item["test"],
            item.get("pair", False),
            width=item["size"][0],
            height=item["size"][1],
            seconds=item["seconds"],
            fps=item["fps"],
        )
        cache = FrameCache() if path == "new" else None
        timers = pipeline_timers()
        c0, w0, l0 = cpu_now(), time.perf_counter(), load()
        with timers, render_path(path, cache):
            results = [produce_video(job, cfg) for job in jobs]
        res = {
            "path": path,
            "cpu_s": cpu_now() - c0,
            "wall_s": time.perf_counter() - w0,
            "load": [l0, load()],
            "videos": [j.id for j in jobs],
            "frames": sum(r.frames for r in results),
            "shared": cache.hits if cache is not None else 0,
            "timers": timers.table(),
            "sha256": sha256_tree(tmp),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["blender_distinct"] = sum(r.rendered_frames for r in results)  # frames Blender drew (not from the cache)
    res["distinct"] = res["blender_distinct"] + res["shared"]
    res["renderer_ms_per_blender_frame"] = (
        1000 * timers.cpu["renderer total (Renderer.frames)"] / max(1, res["blender_distinct"])
    )
    return res


def paths_items(args) -> dict:
    l2 = dict(suite="grasp-l2", test=args.l2_test, size=(320, 240), seconds=10.0, fps=50.0)
    items = {
        "l1-still": dict(suite="grasp-l1", test="shape", size=(320, 240), seconds=10.0, fps=50.0),
        "l2": l2,
        "l2-pair": dict(l2, pair=True),
        "avoe-960x540": dict(suite="avoe", test=args.avoe_test, size=(960, 540), seconds=50 / 24, fps=24.0),
        "l2-640x480": dict(l2, size=(640, 480), paths=("new",)),
    }
    return {k: v for k, v in items.items() if k in args.items}


def cmd_paths(args):
    """Today's path against the new one, interleaved (today, new, new, today, ...) so that a change in the
    shared machine's load hits both; the medians of the reps are compared."""
    items = paths_items(args)
    for path in PATHS:  # the first render of a process compiles shaders: not part of any video's cost
        run_path(path, dict(suite="grasp-l1", test="shape", size=(64, 48), seconds=0.2, fps=10.0))
    out = {"machine": machine(), "lp_num_threads": os.environ.get("LP_NUM_THREADS"), "items": {}}
    for name, item in items.items():
        order = list(item.get("paths", PATHS))
        runs = {p: [] for p in order}
        for rep in range(args.repeats):
            for path in order if rep % 2 == 0 else order[::-1]:
                r = run_path(path, item)
                runs[path].append(r)
                log(
                    f"[paths] {name} {path}: CPU {r['cpu_s']:.1f} s, wall {r['wall_s']:.1f} s, "
                    f"{r['blender_distinct']} distinct by Blender + {r['shared']} shared (load {r['load']})"
                )
        summary = {}
        for path, rs in runs.items():
            summary[path] = {
                k: statistics.median(r[k] for r in rs) for k in ("cpu_s", "wall_s", "renderer_ms_per_blender_frame")
            }
            summary[path].update(
                distinct=rs[0]["distinct"],
                blender_distinct=rs[0]["blender_distinct"],
                shared=rs[0]["shared"],
                frames=rs[0]["frames"],
                same_bytes_every_rep=all(r["sha256"] == rs[0]["sha256"] for r in rs),
            )
        if "today" in summary:
            summary["ratio_cpu"] = summary["today"]["cpu_s"] / summary["new"]["cpu_s"]
            summary["ratio_wall"] = summary["today"]["wall_s"] / summary["new"]["wall_s"]
            summary["ratio_renderer_ms_per_frame"] = (
                summary["today"]["renderer_ms_per_blender_frame"] / summary["new"]["renderer_ms_per_blender_frame"]
            )
        out["items"][name] = {"item": {k: v for k, v in item.items() if k != "paths"}, "runs": runs, "summary": summary}
        RESULTS["paths"] = out
        save(args)
    return out


def machine() -> dict:
    return {
        "cores": os.cpu_count(),
        "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
    }


# ------------------------------------------------------------------------------------------ anti-aliasing quality


def srgb_to_linear(c):
    c = np.asarray(c, np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c):
    return 255.0 * np.where(c <= 0.0031308, c * 12.92, 1.055 * np.maximum(c, 0) ** (1 / 2.4) - 0.055)


QUALITY_SCENES = [  # (suite, test, trial index); the filter's two constants were tuned on index 0 of
    # grasp-l1/shape, grasp-l2/t02 and grasp-l2/t15 (frame at the middle of a 2 s, 10 fps clip): held out here
    ("grasp-l1", "directionality", 1),
    ("grasp-l1", "shape", 2),
    ("grasp-l2", "t02_unchangeableness_color", 1),
    ("grasp-l2", "t08_inertia_bounce", 1),
    ("grasp-l2", "t12_continuity_tray", 1),
    ("grasp-l2", "t15_support_pin", 1),
    ("grasp-l2", "t16_inertia_corner", 1),
    ("avoe", "B2", 1),
]


def cmd_quality(args):
    """Blender's FXAA (today), the aliased render and numpy FXAA (new) against a 4x4 supersampled render (an
    aliased render at 4x the width and height, averaged over each 4x4 block in linear light)."""
    from voebench.generator import antialias
    from voebench.generator.blender import render
    from voebench.generator.runner import _suite, effective_space
    from voebench.generator.suite import Job

    W, H = 320, 240
    rows, crops = [], []
    real_fxaa = render.fxaa
    for suite_name, test, index in QUALITY_SCENES:
        suite = _suite(suite_name)
        seed, p = suite.sample(test, effective_space(suite, test, {}), 0, index)
        conds = suite.conditions(test, p, {"seed": seed})
        if not conds:
            continue
        job = Job(suite_name, test, index, conds[0], seed, None)
        scene = suite.make_scene(job, p, suite.default_timing)
        frames = [scene.n_frames // 4, scene.n_frames // 2, 3 * scene.n_frames // 4]
        imgs = {}
        for name, (w, h, kw) in {
            "today": (W, H, PATHS["today"]),
            "aliased": (W, H, {}),
            "reference": (4 * W, 4 * H, {}),
        }.items():
            r = render.Renderer(scene, render.RenderSettings(w, h, **kw))
            render.fxaa = lambda rgb: rgb.copy()  # the aliased render itself; new = antialias.fxaa of it
            try:
                imgs[name] = [r.render_state(t, ("rgb",))[0] for t in frames]
            finally:
                render.fxaa = real_fxaa
                r.close()
        for k, t in enumerate(frames):
            ref = linear_to_srgb(srgb_to_linear(imgs["reference"][k]).reshape(H, 4, W, 4, 3).mean((1, 3)))
            aliased = imgs["aliased"][k]
            new = antialias.fxaa(aliased)
            err = {
                name: np.abs(img.astype(np.float64) - ref)
                for name, img in (("today", imgs["today"][k]), ("aliased", aliased), ("new", new))
            }
            edges = err["aliased"].max(-1) > 8  # pixels where aliasing shows
            row = {"video": f"{suite_name}/{test}/{index:05d}-{conds[0]}", "frame": t}
            for name, e in err.items():
                row[f"mae_{name}"] = float(e.mean())
                row[f"mae_edges_{name}"] = float(e[edges].mean()) if edges.any() else 0.0
            rows.append(row)
            log(
                f"[quality] {row['video']} frame {t}: MAE today {row['mae_today']:.3f}, "
                f"aliased {row['mae_aliased']:.3f}, new {row['mae_new']:.3f}"
            )
            crops.append(
                (
                    float(err["aliased"].max(-1).sum()),
                    row["video"],
                    t,
                    imgs["today"][k],
                    new,
                    np.clip(np.round(ref), 0, 255).astype(np.uint8),
                    err["aliased"].max(-1),
                )
            )
    summary = {k: float(np.mean([r[k] for r in rows])) for k in rows[0] if k.startswith("mae")}
    summary["new_better_or_equal_frames"] = sum(r["mae_new"] <= r["mae_today"] for r in rows)
    summary["frames"] = len(rows)
    files = write_crops(crops, args.img_dir, args.crops) if args.img_dir else []
    RESULTS["quality"] = {"rows": rows, "summary": summary, "crops": files, "machine": machine()}
    save(args)
    return RESULTS["quality"]


def write_crops(crops, img_dir: str, n: int) -> list:
    """For the n frames with the most aliasing: a 64x48 crop around the worst 16x16 block, magnified 4x
    (nearest), side by side: today (Blender FXAA) | new (numpy FXAA) | 4x supersampled reference."""
    import imageio.v3 as iio

    os.makedirs(img_dir, exist_ok=True)
    files, seen = [], set()
    for _, video, t, today, new, ref, alias_err in sorted(crops, key=lambda c: -c[0]):
        if video in seen:
            continue
        seen.add(video)
        h, w = alias_err.shape
        blocks = alias_err[: h // 16 * 16, : w // 16 * 16].reshape(h // 16, 16, w // 16, 16).sum((1, 3))
        by, bx = np.unravel_index(int(np.argmax(blocks)), blocks.shape)
        y0 = int(np.clip(by * 16 + 8 - 24, 0, h - 48))
        x0 = int(np.clip(bx * 16 + 8 - 32, 0, w - 64))
        tiles = [np.kron(img[y0 : y0 + 48, x0 : x0 + 64], np.ones((4, 4, 1), np.uint8)) for img in (today, new, ref)]
        gap = np.full((tiles[0].shape[0], 6, 3), 255, np.uint8)
        strip = np.concatenate([tiles[0], gap, tiles[1], gap, tiles[2]], axis=1)
        path = os.path.join(img_dir, f"aa-{video.split('/')[1]}-{t}.png")
        iio.imwrite(path, strip)
        files.append({"file": os.path.relpath(path, ROOT), "video": video, "frame": t, "crop_xywh": [x0, y0, 64, 48]})
        if len(files) == n:
            break
    return files


# ------------------------------------------------------------------------------------------ projection


def cmd_project(args):
    """CPU model per path, from whole-video CPU seconds measured by `paths` (one core per worker):
    a 500-frame GRASP video costs cpu(still L1 video) + (distinct - 1) * r, where r, the marginal CPU of a
    distinct frame, is (cpu(L2 video) - cpu(still L1 video)) / (distinct(L2) - 1); it includes depth,
    segmentation, gzip and every per-frame cost. On the new path the second video of a pair does not render
    the states it shares with the first (bench/unique_frames.py counts them). An AVoE video (50 frames, almost
    all distinct) costs cpu(AVoE video) / distinct(AVoE video) per distinct frame, its fixed cost included."""
    with open(args.paths_from) as f:
        paths = json.load(f)
    paths = paths.get("paths", paths)
    if args.unique_from:
        with open(args.unique_from) as f:
            suites = json.load(f)
        suites = suites.get("unique_frames", suites)
    else:
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        from unique_frames import survey

        suites = {
            "grasp-l1": survey("grasp-l1", 2),
            "grasp-l2": survey("grasp-l2", 2),
            "avoe": survey("avoe", 2, fraction=0.1),
        }
    it = {k: v["summary"] for k, v in paths["items"].items()}
    out = {"model": cmd_project.__doc__.strip(), "paths": {}}
    for path in PATHS:
        still, l2 = it["l1-still"][path], it["l2"][path]
        r = (l2["cpu_s"] - still["cpu_s"]) / (l2["blender_distinct"] - 1)
        av = it.get("avoe-960x540", {}).get(path)
        r_avoe = av["cpu_s"] / av["blender_distinct"] if av else None
        proj = {}
        for name, s in suites.items():
            tests = [v for v in s["tests"].values() if v.get("videos")]
            if not tests or (name == "avoe" and r_avoe is None):
                continue
            cpu = statistics.mean(video_cpu(path, name, v, still["cpu_s"], r, r_avoe) for v in tests)
            proj[name] = {
                "videos": s["videos"],
                "fraction": s.get("fraction", 1.0),
                "cpu_s_per_video": cpu,
                "core_hours": s["videos"] * cpu / 3600,
            }
        grasp = sum(proj[k]["core_hours"] for k in ("grasp-l1", "grasp-l2") if k in proj)
        res = {
            "r_ms_per_distinct_frame_320x240": 1000 * r,
            "still_video_cpu_s": still["cpu_s"],
            "r_ms_per_distinct_frame_960x540": 1000 * r_avoe if r_avoe else None,
            "suites": proj,
            "grasp_core_hours": grasp,
            "grasp_hours_2_cores": grasp / 2,
            "grasp_hours_16_cores": grasp / 16,
        }
        big = it.get("l2-640x480", {}).get(path)
        if big:  # the same model with r measured at 640x480 (the fixed part measured at 320x240)
            r640 = (big["cpu_s"] - still["cpu_s"]) / (big["blender_distinct"] - 1)
            res["r_ms_per_distinct_frame_640x480"] = 1000 * r640
            res["grasp_core_hours_640x480"] = (
                sum(
                    suites[k]["videos"]
                    * statistics.mean(
                        video_cpu(path, k, v, still["cpu_s"], r640, None)
                        for v in suites[k]["tests"].values()
                        if v.get("videos")
                    )
                    for k in ("grasp-l1", "grasp-l2")
                )
                / 3600
            )
        out["paths"][path] = res
    t, n = out["paths"]["today"], out["paths"]["new"]
    out["ratio_grasp"] = t["grasp_core_hours"] / n["grasp_core_hours"]
    if "avoe" in t["suites"] and "avoe" in n["suites"]:
        out["ratio_avoe"] = t["suites"]["avoe"]["core_hours"] / n["suites"]["avoe"]["core_hours"]
    RESULTS["project"] = out
    save(args)
    return out


def video_cpu(path, suite, v, still_cpu, r, r_avoe) -> float:
    """CPU seconds of one video of a test with v["unique"] distinct states, v["shared"] of them (mean over
    the trial's videos) already rendered for the other video of its trial."""
    saved = v.get("shared", 0.0) if path == "new" else 0.0
    if suite == "avoe":
        return (v["unique"] - saved) * r_avoe
    return still_cpu + (v["unique"] - 1 - saved) * r


def save(args):
    if getattr(args, "json", None):
        with open(args.json, "w") as f:
            json.dump(RESULTS, f, indent=1, default=float)


def markdown(res: dict) -> str:
    lines = [f"Machine: {os.cpu_count()} cores; load average at the end {os.getloadavg()}"]
    if "paths" in res:
        lines += [
            "",
            "| video | path | frames | distinct: by Blender + shared | CPU s (median) | wall s | "
            "renderer CPU ms per distinct frame | same bytes every rep | CPU ratio today/new |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, v in res["paths"]["items"].items():
            sm = v["summary"]
            for path in PATHS:
                if path in sm:
                    x = sm[path]
                    ratio = f"{sm['ratio_cpu']:.2f}x" if path == "new" and "ratio_cpu" in sm else ""
                    lines.append(
                        f"| {name} | {path} | {x['frames']} | {x['blender_distinct']} + {x['shared']} | "
                        f"{x['cpu_s']:.2f} | {x['wall_s']:.2f} | {x['renderer_ms_per_blender_frame']:.1f} | "
                        f"{x['same_bytes_every_rep']} | {ratio} |"
                    )
    if "quality" in res:
        q = res["quality"]["summary"]
        lines += [
            "",
            f"Anti-aliasing, mean abs error against the 4x4 supersampled render over {q['frames']} frames "
            f"(0-255 per channel): today (Blender FXAA) {q['mae_today']:.3f}, aliased "
            f"{q['mae_aliased']:.3f}, new (numpy FXAA) {q['mae_new']:.3f}; on edge pixels "
            f"{q['mae_edges_today']:.2f} / {q['mae_edges_aliased']:.2f} / {q['mae_edges_new']:.2f}; "
            f"new <= today on {q['new_better_or_equal_frames']} of {q['frames']} frames",
        ]
    if "project" in res:
        pr = res["project"]
        lines += [
            "",
            "| path | ms CPU per distinct frame 320x240 | 960x540 | GRASP L1+L2 core-hours | "
            "AVoE 10% core-hours | GRASP at 640x480 core-hours |",
            "|---|---|---|---|---|---|",
        ]
        for path, x in pr["paths"].items():
            av = x["suites"].get("avoe", {}).get("core_hours")
            r9 = x["r_ms_per_distinct_frame_960x540"]
            lines.append(
                f"| {path} | {x['r_ms_per_distinct_frame_320x240']:.1f} | {r9:.0f} | "
                if r9
                else f"| {path} | {x['r_ms_per_distinct_frame_320x240']:.1f} | - | "
            )
            lines[-1] += f"{x['grasp_core_hours']:.1f} | {av:.1f} | " if av else f"{x['grasp_core_hours']:.1f} | - | "
            lines[-1] += f"{x['grasp_core_hours_640x480']:.1f} |" if "grasp_core_hours_640x480" in x else "- |"
        lines.append(
            f"\nGRASP ratio today/new {pr['ratio_grasp']:.2f}x"
            + (f", AVoE ratio {pr['ratio_avoe']:.2f}x" if "ratio_avoe" in pr else "")
        )
    if "a" in res or "b" in res:
        lines += [
            "",
            "| video | frames | distinct | reuse wall s (median) | naive wall s | ratio wall | ratio CPU | "
            "identical (RGB frames, mp4 bytes, depth/seg/states) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for k in ("a", "b"):
            if k in res:
                r = res[k]
                i = r["identical"]
                lines.append(
                    f"| ({k}) {r['video']} {r['resolution']} | {r['frames']} | {r['distinct_frames']} | "
                    f"{r['reuse_wall_s_median']:.2f} | {r['naive']['wall_s']:.1f} | {r['ratio_wall']:.1f}x | "
                    f"{r['ratio_cpu']:.1f}x | {i['rgb_frames_equal']}, {i['mp4_bytes_equal']}, "
                    f"{i['depth_segmentation_states_equal']} |"
                )
    if "b" in res:
        lines += [
            "",
            "Where the time of the Level 2 video goes (explicit timers, wall s):",
            "",
            "| piece | reuse | naive |",
            "|---|---|---|",
        ]
        pr, pn = res["b"]["reuse_runs"][0]["profile"], res["b"]["naive"]["profile"]
        for k in pr:
            lines.append(f"| {k} | {pr[k]} | {pn[k]} |")
        r0 = res["b"]["reuse_runs"][0]
        lines.append(
            f"\nPer rendered frame {r0['ms_per_rendered_frame']:.1f} ms, per copied frame "
            f"{r0['ms_per_copied_frame']:.2f} ms, fixed per video {r0['fixed_s']:.2f} s."
        )
    if "c" in res:
        c = res["c"]
        lines += [
            "",
            f"(c) {c['videos']} videos ({c['video']}): warm one process "
            f"{c['median_wall_s']['warm']:.1f} s, a process per video "
            f"{c['median_wall_s']['process_per_video']:.1f} s: {c['ratio']:.2f}x (median of "
            f"{len(c['runs']['warm'])}); outputs identical: {c['runs'].get('identical')}",
        ]
    if "d" in res:
        d = res["d"]
        lines += [
            "",
            f"(d) {d['videos']} videos, {d['frames']} frames ({d['rendered_frames']} rendered), "
            f"{d['cores']} cores; fastest: {d['fastest']}",
            "",
            "| workers x threads | wall s (median) | frames/s | rendered frames/s | frames/s per core | "
            "rendered frames/s per core |",
            "|---|---|---|---|---|---|",
        ]
        for k, v in d["table"].items():
            lines.append(
                f"| {k} | {v['wall_s']:.1f} | {v['frames_per_s']:.1f} | {v['rendered_frames_per_s']:.1f} | "
                f"{v['frames_per_s_per_core']:.1f} | {v['rendered_frames_per_s_per_core']:.2f} |"
            )
    if "e" in res:
        e = res["e"]
        lines += [
            "",
            f"(e) RSS of one worker over {e['videos']} videos ({e['video']}; {e['failed']} not buildable "
            f"at this timing): {e['rss_mb_after']} MB; "
            f"after 300 / after 30 = {e['ratio_300_vs_30']:.3f}; peak {e['peak_mb']:.0f} MB",
        ]
    if "f" in res:
        f = res["f"]
        lines += [
            "",
            "(f) projection (hours)",
            "",
            "| suite | videos | s/video (1 worker) | naive s/video | "
            "hours here | naive hours here | hours on 16 cores |",
            "|---|---|---|---|---|---|---|",
        ]
        for k, v in f["suites"].items():
            lines.append(
                f"| {k} ({v['fraction']:.0%}) | {v['videos']} | {v['s_per_video_one_worker']:.1f} | "
                f"{v['naive_s_per_video_one_worker']:.1f} | {v['hours_here']:.1f} | "
                f"{v['naive_hours_here']:.1f} | {v['hours_16_cores']:.2f} |"
            )
        lines.append(f"| total | | | | {f['total_hours_here']:.1f} | | {f['total_hours_16_cores']:.2f} |")
        cm = f["cpu_model"]
        lines += [
            "",
            f"CPU model: r = {cm['r_cpu_s_320x240'] * 1000:.0f} ms CPU per distinct 320x240 frame, "
            f"{cm['r_cpu_s_960x540'] * 1000:.0f} ms at 960x540, F = {cm['f_cpu_s']:.2f} s per video, "
            f"c = {cm['c_cpu_s'] * 1000:.1f} ms per copied frame; all cores busy",
            "",
            "| suite | CPU s/video | hours here | hours on 16 cores |",
            "|---|---|---|---|",
        ]
        for k, v in f["suites"].items():
            lines.append(
                f"| {k} | {v['cpu_s_per_video']:.1f} | {v['cpu_hours_here']:.1f} | {v['cpu_hours_16_cores']:.2f} |"
            )
        lines.append(f"| total | | {cm['total_hours_here']:.1f} | {cm['total_hours_16_cores']:.2f} |")
    return "\n".join(lines)


COMMANDS = {
    "paths": cmd_paths,
    "quality": cmd_quality,
    "project": cmd_project,
    "reuse-still": part_a,
    "reuse-l2": part_b,
    "warm": part_c,
    "workers": part_d,
    "memory": part_e,
    "project-reuse": part_f,
}
OLD_NAMES = {"reuse-still": "a", "reuse-l2": "b", "warm": "c", "workers": "d", "memory": "e", "project-reuse": "f"}


def main():
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", help="write all results here (rewritten after each step)")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("paths", parents=[common], help="today's render path vs the new one")
    p.add_argument(
        "--items",
        nargs="+",
        default=["l1-still", "l2", "l2-pair", "avoe-960x540", "l2-640x480"],
        choices=["l1-still", "l2", "l2-pair", "avoe-960x540", "l2-640x480"],
    )
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--l2-test", default="t15_support_pin", help="the Level 2 test (t15: a median Level 2 test)")
    p.add_argument("--avoe-test", default="C1", help="AVoE test (C1: all 50 frames distinct)")
    p = sub.add_parser("quality", parents=[common], help="anti-aliasing error against a 4x supersampled render")
    p.add_argument("--img-dir", default=os.path.join(ROOT, "docs", "img"), help="where the crops go ('' for none)")
    p.add_argument("--crops", type=int, default=3)
    p = sub.add_parser("project", parents=[common], help="core-hours of the default suites, per path")
    p.add_argument("--paths-from", required=True, help="JSON written by `paths --json`")
    p.add_argument("--unique-from", help="distinct-frame survey from bench/unique_frames.py --json")
    p = sub.add_parser("reuse-still", parents=[common], help="(a) still L1 video, reuse vs naive")
    p.add_argument("--repeats", type=int, default=3, help="reuse runs (naive runs once)")
    p = sub.add_parser("reuse-l2", parents=[common], help="(b) a Level 2 video, reuse vs naive")
    p.add_argument("--l2-test", default="t15_support_pin")
    p = sub.add_parser("warm", parents=[common], help="(c) warm worker vs a process per video")
    p.add_argument("--videos-c", type=int, default=4)
    p.add_argument("--repeats-c", type=int, default=2)
    p = sub.add_parser("workers", parents=[common], help="(d) workers x threads")
    p.add_argument("--videos-d", type=int, default=3, help="trials per test (2 tests)")
    p.add_argument("--repeats-d", type=int, default=2)
    p = sub.add_parser("memory", parents=[common], help="(e) resident memory over many videos")
    p.add_argument("--videos-e", type=int, default=300)
    p = sub.add_parser("project-reuse", parents=[common], help="(f) previous round's projection")
    p.add_argument(
        "--results-from",
        action="append",
        default=[],
        help="JSON of an earlier run whose reuse-l2 (b) and workers (d) results to use",
    )
    p.add_argument("--unique-from", help="distinct-frame survey from bench/unique_frames.py --json")
    p.add_argument("--l2-test", default="t15_support_pin")
    p.add_argument("--avoe-test", default="C1")
    p.add_argument("--repeats", type=int, default=1)
    p.set_defaults(videos_d=3, repeats_d=2)
    args = ap.parse_args()
    for path in getattr(args, "results_from", []):
        with open(path) as f:
            RESULTS.update(json.load(f))
    # one single-threaded worker per core is the default (docs/performance.md (d)); set before bpy loads
    os.environ.setdefault("LP_NUM_THREADS", "1")
    log(f"== {args.command} (LP_NUM_THREADS={os.environ['LP_NUM_THREADS']}; {machine()['uptime']})")
    res = COMMANDS[args.command](args)
    if args.command in OLD_NAMES:
        RESULTS[OLD_NAMES[args.command]] = res
    save(args)
    print(markdown(RESULTS))


if __name__ == "__main__":
    main()
