"""Rendering benchmarks for docs/performance.md (issue 7). Every ratio is measured within one invocation.

    .venv/bin/python bench/bench_render.py a b c d e f --json /tmp/bench.json     # all (about 15 min here)
    .venv/bin/python bench/bench_render.py a                                       # one part

  a  10 s, 50 fps still Level 1 video (grasp-l1/shape), frame reuse vs naive; asserts bit-identical output
  b  a typical Level 2 video (320x240, Workbench) reuse vs naive, with a profile of where the time goes
  c  warm worker (one process, many videos) vs a fresh process per video
  d  workers x LP_NUM_THREADS in {1x1, 1x2, 2x1}: frames/s and frames/s per core
  e  resident memory of one worker after 30 and after 300 videos
  f  projection of full default GRASP L1+L2 and AVoE 10% wall time, here and on a 16-core machine

"Naive" renders RGB, depth and segmentation for every frame with the same settings (`--no-reuse`,
`Renderer.frames(reuse=False)`). Times are wall seconds and CPU seconds (this process + ffmpeg children);
on a shared machine CPU seconds are the steadier number, so both are printed, with the load average.
"""

from __future__ import annotations

import argparse
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


def make_video(cfg, job, profile: bool = False) -> dict:
    from voebench.generator.runner import produce

    c0, w0 = cpu_now(), time.perf_counter()
    prof = None
    with FrameClock() as clock:
        if profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        entry = produce(job, cfg)
        if prof is not None:
            prof.disable()
    out = {"wall_s": time.perf_counter() - w0, "cpu_s": cpu_now() - c0, "frames": entry["_timing"]["frames"],
           "rendered": entry["_timing"]["rendered_frames"],
           "ms_per_rendered_frame": 1000 * float(np.mean(clock.rendered)) if clock.rendered else None,
           "ms_per_copied_frame": 1000 * float(np.mean(clock.copied)) if clock.copied else None,
           "build_s": entry["_timing"]["build_s"], "load": load()}
    out["fixed_s"] = out["wall_s"] - sum(clock.rendered) - sum(clock.copied)
    if prof is not None:
        out["profile"] = profile_table(prof, out["wall_s"])
    return out


def profile_table(prof, wall: float) -> dict:
    """Cumulative seconds of the hot-path pieces."""
    import pstats

    st = pstats.Stats(prof).stats
    want = {
        "bpy render calls (RGB + segmentation)": ("ops.py", "__call__"),
        "read_bmp": ("render.py", "read_bmp"),
        "depth EXR read": ("render.py", "_read_depth"),
        "apply state to Blender": ("render.py", "apply"),
        "build scene (Blender objects, textures)": ("build.py", "build"),
        "factory reset": ("build.py", "reset"),
        "mp4 pipe write": ("video.py", "write"),
        "HDF5 add_frame (gzip)": ("hdf5.py", "add_frame"),
        "HDF5 close": ("hdf5.py", "close"),
        "make_scene (sample, simulate)": ("suite.py", "make_scene"),
    }
    out = {}
    for label, (file, fn) in want.items():
        tot = sum(v[3] for k, v in st.items() if k[0].endswith(file) and (k[2] == fn or (file == "~" and fn in k[2])))
        out[label] = round(tot, 3)
    out["(wall total)"] = round(wall, 3)
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
                elif k not in ("depth", "segmentation") or path:
                    if not np.array_equal(g[k][()], h[k][()]):
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


def reuse_vs_naive(tag: str, suite: str, test: str, repeats: int, width=320, height=240, profile=False,
                   **kw) -> dict:
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
        res = {"video": job.id, "resolution": f"{width}x{height}", "frames": naive["frames"],
               "distinct_frames": reuse[0]["rendered"], "reuse_runs": reuse, "naive": naive,
               "reuse_wall_s_median": med("wall_s"), "reuse_cpu_s_median": med("cpu_s"),
               "ratio_wall": naive["wall_s"] / med("wall_s"), "ratio_cpu": naive["cpu_s"] / med("cpu_s"),
               "identical": same}
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
    base = ["grasp-l1", "--tests", "directionality", "--videos-per-test", str(n), "--seconds", "2", "--fps", "25",
            "--workers", "1"]
    rows = {"warm": [], "process_per_video": []}
    for rep in range(args.repeats_c):
        tmp = tempfile.mkdtemp(prefix="vb-bench-c-")
        try:
            rows["warm"].append(cli_render(os.path.join(tmp, "warm"), base))
            t0, c0 = time.perf_counter(), cpu_now()
            for i in range(n):  # --shard i/n of n trials is exactly one video per process
                cli_render(os.path.join(tmp, "cold"), base + ["--shard", f"{i}/{n}"])
            subprocess.run(VOEBENCH + ["merge", os.path.join(tmp, "cold")], cwd=ROOT, capture_output=True)
            rows["process_per_video"].append({"wall_s": time.perf_counter() - t0, "cpu_s": cpu_now() - c0,
                                              "load": load()})
            rows.setdefault("identical", []).append(same_tree(os.path.join(tmp, "warm"), os.path.join(tmp, "cold")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        log(f"[c] rep {rep}: warm {rows['warm'][-1]['wall_s']:.1f} s, "
            f"per-video {rows['process_per_video'][-1]['wall_s']:.1f} s")
    med = {k: statistics.median(r["wall_s"] for r in rows[k]) for k in ("warm", "process_per_video")}
    return {"videos": n, "video": "grasp-l1/directionality, 320x240, 2 s at 25 fps", "runs": rows,
            "median_wall_s": med, "ratio": med["process_per_video"] / med["warm"]}


def part_d(args):
    combos = [(1, 1), (1, 2), (2, 1)]
    n = args.videos_d
    base = ["grasp-l1", "--tests", "directionality,movement", "--videos-per-test", str(n), "--seconds", "2",
            "--fps", "25"]
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
        table[k] = {"wall_s": wall, "frames_per_s": frames / wall, "rendered_frames_per_s": rendered / wall,
                    "frames_per_s_per_core": frames / wall / cores,
                    "rendered_frames_per_s_per_core": rendered / wall / cores}
    best = min(table, key=lambda k: table[k]["wall_s"])
    return {"videos": 2 * n, "frames": frames, "rendered_frames": rendered, "cores": cores, "runs": runs,
            "table": table, "fastest": best}


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
from voebench.generator.runner import RunConfig, plan, produce, prepare_output
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
        produce(job, cfg)
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
        p = subprocess.run([sys.executable, "-c", script, tmp, str(per_suite_trials), str(n_videos)], cwd=ROOT,
                           capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError(p.stderr[-3000:])
        r = json.loads(p.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rss = r["rss_mb"]
    at = lambda i: rss[min(i, len(rss)) - 1]  # noqa: E731
    return {"videos": len(rss), "failed": r["failed"],
            "video": "grasp-l1 + grasp-l2 tests interleaved, 64x48, 10 s at 2 fps",
            "rss_mb_after": {str(k): round(at(k), 1) for k in (1, 10, 30, 100, 200, 300) if k <= len(rss)},
            "ratio_300_vs_30": at(300) / at(30), "peak_mb": r["peak_mb"], "seconds": r["seconds"]}


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
        suites = {"grasp-l1": survey("grasp-l1", 2), "grasp-l2": survey("grasp-l2", 2),
                  "avoe": survey("avoe", 2, fraction=0.1)}
    proj = {}
    for name, s in suites.items():
        cr, fx = (c_render_avoe, fixed_avoe) if name == "avoe" else (c_render, fixed)
        tests = {t: v for t, v in s["tests"].items() if v["videos"]}
        per_video = statistics.mean(fx + v["unique"] * cr + (v["frames"] - v["unique"]) * c_copy
                                    for v in tests.values())
        naive_per_video = statistics.mean(fx + v["frames"] * cr for v in tests.values())
        serial = s["videos"] * per_video
        proj[name] = {"videos": s["videos"], "fraction": s["fraction"], "s_per_video_one_worker": per_video,
                      "naive_s_per_video_one_worker": naive_per_video,
                      "hours_here": serial / gain_here / 3600, "hours_16_cores": serial / gain_16 / 3600,
                      "naive_hours_here": s["videos"] * naive_per_video / gain_here / 3600}
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
            cpu = statistics.mean(v["unique"] * r_cpu_avoe + (v["frames"] - v["unique"]) * c_cpu
                                  for v in tests.values())
        else:
            cpu = statistics.mean(f_cpu + v["unique"] * r_cpu + (v["frames"] - v["unique"]) * c_cpu
                                  for v in tests.values())
        proj[name].update({"cpu_s_per_video": cpu, "cpu_hours_here": s["videos"] * cpu / cores / 3600,
                           "cpu_hours_16_cores": s["videos"] * cpu / 16 / 3600})
    cpu_model = {"r_cpu_s_320x240": r_cpu, "f_cpu_s": f_cpu, "c_cpu_s": c_cpu, "r_cpu_s_960x540": r_cpu_avoe,
                 "total_hours_here": sum(p["cpu_hours_here"] for p in proj.values()),
                 "total_hours_16_cores": sum(p["cpu_hours_16_cores"] for p in proj.values())}
    total_here = sum(p["hours_here"] for p in proj.values())
    total_16 = sum(p["hours_16_cores"] for p in proj.values())
    return {"model": part_f.__doc__.strip(), "c_render_s_320x240": c_render, "c_copy_s": c_copy,
            "fixed_s_per_video": fixed, "c_render_s_960x540": c_render_avoe, "fixed_s_avoe": fixed_avoe,
            "throughput_gain_here_vs_1x2": gain_here, "throughput_gain_16_cores_vs_1x2": gain_16,
            "suites": proj, "cpu_model": cpu_model, "total_hours_here": total_here, "total_hours_16_cores": total_16,
            "avoe_reuse_vs_naive": {k: av[k] for k in ("ratio_wall", "ratio_cpu", "identical", "distinct_frames")}}


PARTS = {"a": part_a, "b": part_b, "c": part_c, "d": part_d, "e": part_e, "f": part_f}


def markdown(res: dict) -> str:
    lines = [f"Machine: {os.cpu_count()} cores; load average at the end {os.getloadavg()}"]
    if "a" in res or "b" in res:
        lines += ["", "| video | frames | distinct | reuse wall s (median) | naive wall s | ratio wall | ratio CPU | "
                      "identical (RGB frames, mp4 bytes, depth/seg/states) |", "|---|---|---|---|---|---|---|---|"]
        for k in ("a", "b"):
            if k in res:
                r = res[k]
                i = r["identical"]
                lines.append(f"| ({k}) {r['video']} {r['resolution']} | {r['frames']} | {r['distinct_frames']} | "
                             f"{r['reuse_wall_s_median']:.2f} | {r['naive']['wall_s']:.1f} | {r['ratio_wall']:.1f}x | "
                             f"{r['ratio_cpu']:.1f}x | {i['rgb_frames_equal']}, {i['mp4_bytes_equal']}, "
                             f"{i['depth_segmentation_states_equal']} |")
    if "b" in res:
        lines += ["", "Where the time of the Level 2 video goes (cProfile, cumulative s):", "",
                  "| piece | reuse | naive |", "|---|---|---|"]
        pr, pn = res["b"]["reuse_runs"][0]["profile"], res["b"]["naive"]["profile"]
        for k in pr:
            lines.append(f"| {k} | {pr[k]} | {pn[k]} |")
        r0 = res["b"]["reuse_runs"][0]
        lines.append(f"\nPer rendered frame {r0['ms_per_rendered_frame']:.1f} ms, per copied frame "
                     f"{r0['ms_per_copied_frame']:.2f} ms, fixed per video {r0['fixed_s']:.2f} s.")
    if "c" in res:
        c = res["c"]
        lines += ["", f"(c) {c['videos']} videos ({c['video']}): warm one process "
                      f"{c['median_wall_s']['warm']:.1f} s, a process per video "
                      f"{c['median_wall_s']['process_per_video']:.1f} s: {c['ratio']:.2f}x (median of "
                      f"{len(c['runs']['warm'])}); outputs identical: {c['runs'].get('identical')}"]
    if "d" in res:
        d = res["d"]
        lines += ["", f"(d) {d['videos']} videos, {d['frames']} frames ({d['rendered_frames']} rendered), "
                      f"{d['cores']} cores; fastest: {d['fastest']}", "",
                  "| workers x threads | wall s (median) | frames/s | rendered frames/s | frames/s per core | "
                  "rendered frames/s per core |", "|---|---|---|---|---|---|"]
        for k, v in d["table"].items():
            lines.append(f"| {k} | {v['wall_s']:.1f} | {v['frames_per_s']:.1f} | {v['rendered_frames_per_s']:.1f} | "
                         f"{v['frames_per_s_per_core']:.1f} | {v['rendered_frames_per_s_per_core']:.2f} |")
    if "e" in res:
        e = res["e"]
        lines += ["", f"(e) RSS of one worker over {e['videos']} videos ({e['video']}; {e['failed']} not buildable "
                      f"at this timing): {e['rss_mb_after']} MB; "
                      f"after 300 / after 30 = {e['ratio_300_vs_30']:.3f}; peak {e['peak_mb']:.0f} MB"]
    if "f" in res:
        f = res["f"]
        lines += ["", "(f) projection (hours)", "", "| suite | videos | s/video (1 worker) | naive s/video | "
                  "hours here | naive hours here | hours on 16 cores |", "|---|---|---|---|---|---|---|"]
        for k, v in f["suites"].items():
            lines.append(f"| {k} ({v['fraction']:.0%}) | {v['videos']} | {v['s_per_video_one_worker']:.1f} | "
                         f"{v['naive_s_per_video_one_worker']:.1f} | {v['hours_here']:.1f} | "
                         f"{v['naive_hours_here']:.1f} | {v['hours_16_cores']:.2f} |")
        lines.append(f"| total | | | | {f['total_hours_here']:.1f} | | {f['total_hours_16_cores']:.2f} |")
        cm = f["cpu_model"]
        lines += ["", f"CPU model: r = {cm['r_cpu_s_320x240'] * 1000:.0f} ms CPU per distinct 320x240 frame, "
                      f"{cm['r_cpu_s_960x540'] * 1000:.0f} ms at 960x540, F = {cm['f_cpu_s']:.2f} s per video, "
                      f"c = {cm['c_cpu_s'] * 1000:.1f} ms per copied frame; all cores busy", "",
                  "| suite | CPU s/video | hours here | hours on 16 cores |", "|---|---|---|---|"]
        for k, v in f["suites"].items():
            lines.append(f"| {k} | {v['cpu_s_per_video']:.1f} | {v['cpu_hours_here']:.1f} | "
                         f"{v['cpu_hours_16_cores']:.2f} |")
        lines.append(f"| total | | {cm['total_hours_here']:.1f} | {cm['total_hours_16_cores']:.2f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("parts", nargs="*", default=list(PARTS), choices=list(PARTS))
    ap.add_argument("--json", help="write all results here")
    ap.add_argument("--repeats", type=int, default=3, help="(a) reuse runs (naive runs once)")
    ap.add_argument("--l2-test", default="t15_support_pin",
                    help="(b) the Level 2 test; t15 has the median distinct-frame fraction (bench/unique_frames.py)")
    ap.add_argument("--avoe-test", default="C1", help="(f) AVoE test whose per-frame cost is measured")
    ap.add_argument("--videos-c", type=int, default=4)
    ap.add_argument("--repeats-c", type=int, default=2)
    ap.add_argument("--videos-d", type=int, default=3, help="(d) trials per test (2 tests)")
    ap.add_argument("--repeats-d", type=int, default=2)
    ap.add_argument("--videos-e", type=int, default=300)
    ap.add_argument("--results-from", action="append", default=[],
                    help="JSON of an earlier run whose parts (f) may use instead of measuring (b) and (d) again")
    ap.add_argument("--unique-from", help="(f) distinct-frame survey from bench/unique_frames.py --json")
    args = ap.parse_args()
    for path in args.results_from:
        with open(path) as f:
            RESULTS.update({k: v for k, v in json.load(f).items() if k not in args.parts})
    os.environ.setdefault("LP_NUM_THREADS", str(os.cpu_count() or 1))  # as one local worker gets by default
    for k in args.parts:
        log(f"== part {k} (load {load()})")
        RESULTS[k] = PARTS[k](args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(RESULTS, f, indent=1, default=float)
    print(markdown(RESULTS))


if __name__ == "__main__":
    main()
