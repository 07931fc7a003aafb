"""Issue 29: does re-rendering only what moves make 640x480 as cheap as today's 320x240?

  measure  per distinct state, in one process and interleaved, CPU ms of: (a) today's full Workbench RGB frame
           (batched render(animation=True) + numpy FXAA), (b1) Blender's border render of a 4x4 corner (batched,
           cropped), (b2) the camera narrowed to an 8x8 rectangle (batched: the dirty path's floor) and the dirty
           path itself (`DirtyRGB.frames`: grouped narrowed renders + local FXAA; the background, drawn once per
           video, reported apart), (c) one GPU-module draw of the scene at the same size (the ground-truth pass:
           ids and depth, no shading; a lower bound for drawing RGB that way), and the numpy FXAA of a whole
           frame; for each size and test asked
  check    on every Level 2 test (or those asked), distinct states of the violated video on the dirty path
           against full renders at one size: pixels that differ inside and outside the dirty rectangle
  pair     a Level 2 pair (plausible + implausible, one FrameCache, as the runner makes it) made whole: 640x480 on
           the dirty path against 320x240 on today's path, interleaved, CPU s per pair, and the full default GRASP
           core-hours extrapolated from today's projection by the measured pair ratio (an estimate, stated so)

    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py measure \
        --json bench/results/issue29-measure.json
    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py pair --json bench/results/issue29-pair-t15.json

CPU is this process's (Blender draws in it; llvmpipe's thread included) plus, for `pair`, its children (ffmpeg).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import platform
import shutil
import statistics
import tempfile
import time

import numpy as np


def l2_scene(test: str, condition: str | None, seconds: float, fps: float):
    from voebench.generator.suite import Job, Timing, load_suite

    suite = load_suite("grasp-l2")
    seed, p = suite.sample(test, suite.space(test), 0, 0)
    conds = suite.conditions(test, p, {"seed": seed})
    job = Job("grasp-l2", test, 0, condition or conds[-1], seed, f"grasp-l2/{test}/00000")
    return suite.make_scene(job, p, Timing(seconds, fps))


def distinct_states(scene, n: int) -> list[int]:
    firsts, seen = [], set()
    for t, k in enumerate(scene.state_keys()):
        if k not in seen:
            seen.add(k)
            firsts.append(t)
    return firsts[:: max(1, len(firsts) // n)][:n]


def cpu() -> float:
    return time.process_time()


def cmd_measure(args) -> dict:
    os.environ.setdefault("LP_NUM_THREADS", "1")
    out: dict = {"machine": machine(), "tests": {}}
    for test in args.tests.split(","):
        scene = l2_scene(test, None, 10.0, 50.0)
        ts = distinct_states(scene, args.states)
        out["tests"][test] = {"states": ts, "sizes": {}}
        for size in args.sizes.split(","):
            w, h = (int(x) for x in size.split("x"))
            res = measure_size(scene, ts, w, h, args.repeats)
            out["tests"][test]["sizes"][size] = res
            print(test, size, json.dumps(res["cpu_ms_per_state_median"]), flush=True)
    return out


def measure_size(scene, ts: list[int], w: int, h: int, repeats: int) -> dict:
    """Every method's CPU ms per state at one size, interleaved `repeats` times (see the module docstring)."""
    from voebench.generator.antialias import fxaa
    from voebench.generator.blender import render
    from voebench.generator.dirty_regions import Rect

    r = render.Renderer(scene, render.RenderSettings(w, h, render_path="dirty"))
    d = r.dirty
    assert d is not None
    rects = [d.regions.rect(t) for t in ts]
    r.render_state(ts[0], ("segmentation",))  # GPU initialised, shaders compiled
    r._rgb_mode()
    r._animate(ts[:2], "rgb_")  # the render pipeline warm: no method pays first-call costs
    for f in glob.glob(os.path.join(r.tmp, "rgb_*")):
        os.remove(f)
    c0 = cpu()
    d.background()
    background_ms = 1000 * (cpu() - c0)

    def full_batch():
        r._rgb_mode()
        r._animate(ts, "rgb_")
        for i in range(1, len(ts) + 1):
            path = os.path.join(r.tmp, f"rgb_{i:04d}.bmp")
            fxaa(np.ascontiguousarray(render.read_bmp(path)[..., :3]))
            os.remove(path)

    def border_4x4_batched():  # Blender's border render of a 4x4 corner, cropped: the route not taken
        r._rgb_mode()
        rs = r.bscene.render
        rs.use_border, rs.use_crop_to_border = True, True
        rs.border_min_x, rs.border_max_x = 0.5 / w, 4.5 / w
        rs.border_min_y, rs.border_max_y = 0.5 / h, 4.5 / h
        try:
            r._animate(ts, "rgb_")
        finally:
            rs.use_border = False
        for i in range(1, len(ts) + 1):
            os.remove(os.path.join(r.tmp, f"rgb_{i:04d}.bmp"))

    def narrowed_8x8_batched():  # the dirty path's floor: the camera narrowed to an 8x8 rectangle
        d._draw(Rect(0, 0, 8, 8), ts)

    def dirty_path():
        d.frames(ts)

    def gpu_draw():
        for t in ts:
            r.apply(t)
            r._draw_truth()

    (frame,) = d._draw(None)

    def fxaa_full():
        for _ in ts:
            fxaa(frame)

    methods = {
        "a_full_frame_batched_today": full_batch,
        "b1_border_render_4x4_batched": border_4x4_batched,
        "b2_narrowed_camera_8x8_batched": narrowed_8x8_batched,
        "b2_dirty_path_frames": dirty_path,
        "c_gpu_module_draw_ids_depth": gpu_draw,
        "numpy_fxaa_full_frame": fxaa_full,
    }
    ms: dict[str, list[float]] = {k: [] for k in methods}
    for _ in range(repeats):
        for name, fn in methods.items():
            c0 = cpu()
            fn()
            ms[name].append(1000 * (cpu() - c0) / len(ts))
    area = [x.area / (w * h) for x in rects]
    res = {
        "cpu_ms_per_state_median": {k: round(statistics.median(v), 2) for k, v in ms.items()},
        "cpu_ms_per_state_all": {k: [round(x, 2) for x in v] for k, v in ms.items()},
        "background_once_ms": round(background_ms, 1),
        "dirty_area_fraction_mean": round(float(np.mean(area)), 4),
        "dirty_area_fraction_max": round(float(np.max(area)), 4),
        "dirty_groups": len(d._groups(ts, {t: x for t, x in zip(ts, rects)})),
    }
    r.close()
    return res


PAIR_PATHS = {  # name: (size, RenderSettings fields)
    "today_320x240": ((320, 240), {}),
    "dirty_640x480": ((640, 480), {"render_path": "dirty"}),
    "full_640x480": ((640, 480), {}),  # today's path at the original's size: what the dirty path saves there
}


@contextlib.contextmanager
def settings_with(fields: dict):
    """Make the runner's RenderSettings carry `fields` (it looks the name up in the render module when it runs)."""
    from voebench.generator.blender import render

    real = render.RenderSettings

    def settings(*a, **k):
        return real(*a, **{**fields, **k})

    render.RenderSettings = settings  # type: ignore[misc,assignment]  # a bench-only patch of the runner's name
    try:
        yield
    finally:
        render.RenderSettings = real  # type: ignore[misc]


def run_pair(name: str, test: str, seconds: float, fps: float) -> dict:
    """Make both videos of the test's first paired trial as the runner does (one FrameCache, the gate), in this
    process: CPU s (this process and its ffmpeg children), wall s and the timers' table."""
    from render.common import cpu_now
    from render.paths import trial_jobs, trial_of
    from render.timers import pipeline_timers

    from voebench.generator.runner import produce

    (w, h), fields = PAIR_PATHS[name]
    tmp = tempfile.mkdtemp(prefix="vb-bench-dirty-")
    try:
        cfg, jobs = trial_jobs(tmp, "grasp-l2", test, True, width=w, height=h, seconds=seconds, fps=fps)
        timers = pipeline_timers()
        c0, w0, l0 = cpu_now(), time.perf_counter(), os.getloadavg()[0]
        with timers, settings_with(fields):
            result = produce(trial_of(jobs[0], cfg), cfg)
        return {
            "path": name,
            "size": [w, h],
            "cpu_s": round(cpu_now() - c0, 2),
            "wall_s": round(time.perf_counter() - w0, 2),
            "load": [round(l0, 1), round(os.getloadavg()[0], 1)],
            "videos": [j.id for j in jobs],
            "frames": result.frames,
            "blender_distinct": result.rendered_frames,
            "timers": timers.table(),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cmd_pair(args) -> dict:
    os.environ.setdefault("LP_NUM_THREADS", "1")
    names = list(PAIR_PATHS)
    order = [n for i in range(args.repeats) for n in (names if i % 2 == 0 else names[::-1])]  # ABC CBA ...
    runs: dict[str, list[dict]] = {n: [] for n in names}
    for name in order:
        res = run_pair(name, args.test, args.seconds, args.fps)
        runs[name].append(res)
        print(name, res["cpu_s"], "CPU s", res["wall_s"], "wall s", "load", res["load"], flush=True)
    med = {n: statistics.median(r["cpu_s"] for r in runs[n]) for n in names}
    today, dirty, full = med["today_320x240"], med["dirty_640x480"], med["full_640x480"]
    return {
        "machine": machine(),
        "test": args.test,
        "seconds": args.seconds,
        "fps": args.fps,
        "runs": runs,
        "cpu_s_median": med,
        "dirty_640_over_today_320": round(dirty / today, 3),
        "dirty_640_over_full_640": round(dirty / full, 3),
        "done_when_pair_640_le_today_320": dirty <= today,
    }


def cmd_check(args) -> dict:
    """Per Level 2 test: `states` distinct states of its violated video drawn on the dirty path and as full renders
    at one size; pixels that differ, inside and outside the dirty rectangle (widened by the filter's reach)."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.blender.dirty import REACH
    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.suite import load_suite

    w, h = (int(x) for x in args.size.split("x"))
    suite = load_suite("grasp-l2")
    out: dict = {"machine": machine(), "size": [w, h], "tests": {}}
    for test in args.tests.split(",") if args.tests else suite.tests:
        scene = violated_scene(test, args.seconds, args.fps)
        ts = distinct_states(scene, args.states)
        got, rects = {}, {}
        for path in ("dirty", "full"):
            r = Renderer(scene, RenderSettings(w, h, render_path=path))
            try:
                got[path] = {t: v[0] for t, v in r.render_batch(ts, ("rgb",)).items()}
                if r.dirty is not None:
                    rects = {t: r.dirty.regions.rect(t) for t in ts}
            finally:
                r.close()
        rows = []
        for t in ts:
            diff = np.abs(got["dirty"][t].astype(int) - got["full"][t].astype(int)).max(-1)
            inside = np.zeros(diff.shape, bool)
            inside[rects[t].grow(REACH, w, h).slices] = True
            rows.append(
                {
                    "t": t,
                    "rect_area_fraction": round(rects[t].area / (w * h), 4),
                    "differ_inside": int((diff[inside] > 0).sum()),
                    "differ_outside": int((diff[~inside] > 0).sum()),
                    "max_abs": int(diff.max()),
                }
            )
        out["tests"][test] = rows
        worst = max(x["differ_inside"] for x in rows) / (w * h)
        print(test, "outside", sum(x["differ_outside"] for x in rows), f"worst share {worst:.5f}", flush=True)
    all_rows = [x for rows in out["tests"].values() for x in rows]
    out["summary"] = {
        "frames": len(all_rows),
        "differ_outside_total": sum(x["differ_outside"] for x in all_rows),
        "worst_share_differing": max(x["differ_inside"] for x in all_rows) / (w * h),
        "mean_share_differing": float(np.mean([x["differ_inside"] for x in all_rows])) / (w * h),
        "frames_identical": sum(x["differ_inside"] == 0 for x in all_rows),
        "mean_rect_area_fraction": float(np.mean([x["rect_area_fraction"] for x in all_rows])),
    }
    print(json.dumps(out["summary"]))
    return out


def violated_scene(test: str, seconds: float, fps: float):
    """The violated video of the first of the test's trials that builds at this frame rate."""
    from voebench.errors import Infeasible
    from voebench.generator.suite import Job, Timing, load_suite

    suite = load_suite("grasp-l2")
    for index in range(8):
        seed, p = suite.sample(test, suite.space(test), 0, index)
        try:
            cond = suite.conditions(test, p, {"seed": seed})[-1]
            job = Job("grasp-l2", test, index, cond, seed, f"grasp-l2/{test}/{index:05d}")
            return suite.make_scene(job, p, Timing(seconds, fps))
        except (Infeasible, RuntimeError):
            continue
    raise RuntimeError(f"{test}: no buildable draw among the first 8")


def machine() -> dict:
    return {
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "affinity": sorted(os.sched_getaffinity(0)),
        "loadavg_start": os.getloadavg(),
        "LP_NUM_THREADS": os.environ.get("LP_NUM_THREADS"),
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--tests", default="t15_support_pin,t08_inertia_bounce")
    m.add_argument("--sizes", default="320x240,640x480")
    m.add_argument("--states", type=int, default=12)
    m.add_argument("--repeats", type=int, default=3)
    m.add_argument("--json")
    c = sub.add_parser("check")
    c.add_argument("--size", default="320x240")
    c.add_argument("--tests", default="")
    c.add_argument("--states", type=int, default=4)
    c.add_argument("--seconds", type=float, default=10.0)
    c.add_argument("--fps", type=float, default=25.0)
    c.add_argument("--json")
    p = sub.add_parser("pair")
    p.add_argument("--test", default="t15_support_pin")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--fps", type=float, default=50.0)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--json")
    args = ap.parse_args()
    out = {"measure": cmd_measure, "pair": cmd_pair, "check": cmd_check}[args.cmd](args)
    out["machine"]["loadavg_end"] = os.getloadavg()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
