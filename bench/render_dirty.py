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
  hdf5     depth and segmentation of consecutive distinct states written in each way of HDF5_WAYS (whole-frame
           chunks with gzip/shuffle/lzf/none, tiles and bands that compress only what changed): CPU ms per frame
           and bytes per frame
  avoe     one AVoE trial per sub-type at 960x540, today's path against the dirty one, interleaved: CPU s
  pair     a Level 2 pair (plausible + implausible, one FrameCache, as the runner makes it) made whole: 640x480 on
           the dirty path against 320x240 on today's path, interleaved, CPU s per pair, and the full default GRASP
           core-hours extrapolated from today's projection by the measured pair ratio (an estimate, stated so)
  encode   where the mp4 encoder's CPU goes on one video's frames (swscale, the pipe, x264 proper, repeated frames,
           the numpy yuv420p conversions), and the quality of swscale's conversion against numpy's
  grasp    every GRASP Level 1 and Level 2 test, one trial per path (today's 320x240, the dirty 640x480),
           interleaved per test; the sum weighted by each test's default number of videos, and the ratio times
           today's 320x240 projection (measured per test, projected by count)
  fxaa-reach  every distinct state of t15/t08 (640x480) and A1/E1 (960x540) composited by today's compositor
           (filter cut to within reach of changed pixels) and by the one before it: CPU ms per frame, bytes equal
  breakdown  per-stage CPU s (Blender RGB, composite, ground truth, HDF5, encoder, gate, fixed) of `grasp` runs
  rect-cost  the narrowed render's CPU ms per state against its pixels (the fixed cost `merge_rects` uses)
  slide    geometry only: pixels drawn per GRASP test (640x480) and AVoE sub-type (960x540) with a shadow's rectangle
           also bounded between its receiver's faces (dirty_regions.SLIDE) and without
  hdf5-deflate  the HDF5 bands deflated by zlib and by ISA-L (today's), on every distinct state of t15/t07
           (640x480) and E1/B2/D1 (960x540): CPU ms and bytes per frame, read back equal
  parts    RGB frames of t15/t05/t13 (640x480) and D1 (960x540) drawn per object against one union rectangle

    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py measure \
        --json bench/results/issue29-measure.json
    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py pair --json bench/results/issue29-pair-t15.json
    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py hdf5 --states 1000 --repeats 2
    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py avoe --json bench/results/issue29-avoe.json
    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py encode --json /tmp/encode.json
    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/render_dirty.py grasp --json /tmp/grasp.json

CPU is this process's (Blender draws in it; llvmpipe's thread included) plus, for `pair`, `encode` and `grasp`,
its children (ffmpeg).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from typing import Any

import numpy as np


def l2_scene(test: str, condition: str | None, seconds: float, fps: float):
    from voebench.generator.suite import Job, Timing, load_suite

    suite = load_suite("grasp-l2")
    seed, p = suite.sample(test, suite.space(test), 0, 0)
    conds = suite.conditions(test, p, {"seed": seed})
    job = Job("grasp-l2", test, 0, condition or conds[-1], seed, f"grasp-l2/{test}/00000")
    return suite.make_scene(job, p, Timing(seconds, fps))


def distinct_states(scene, n: int) -> list[int]:
    """`n` distinct states spread over the video (first frames)."""
    firsts = scene.first_frames()
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
            r._draw_truth(t)

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
        "dirty_groups": len(d._groups(ts, {t: d.regions.rects(t) for t in ts})),
    }
    r.close()
    return res


PAIR_PATHS = {  # name: (size, RunConfig fields)
    "today_320x240": ((320, 240), {}),
    "dirty_640x480": ((640, 480), {"render_path": "dirty"}),
    "full_640x480": ((640, 480), {}),  # today's path at the original's size: what the dirty path saves there
}


AVOE_PATHS = {  # name: (size, RunConfig fields): the AVoE default size on today's path and on the dirty path
    "full_960x540": ((960, 540), {}),
    "dirty_960x540": ((960, 540), {"render_path": "dirty"}),
}


def run_pair(name: str, test: str, seconds: float, fps: float, suite: str = "grasp-l2") -> dict:
    """Make both videos of the test's first paired trial as the runner does (one FrameCache, the gate), in this
    process: CPU s (this process and its ffmpeg children), wall s and the timers' table."""
    from render.common import children_cpu, cpu_now
    from render.paths import trial_jobs, trial_of

    from voebench.generator.runner import produce

    (w, h), fields = {**PAIR_PATHS, **AVOE_PATHS}[name]
    tmp = tempfile.mkdtemp(prefix="vb-bench-dirty-")
    try:
        kw = dict(width=w, height=h, seconds=seconds, fps=fps, **fields)
        try:
            cfg, jobs = trial_jobs(tmp, suite, test, True, **kw)
        except StopIteration:  # no trial of two videos among the first 8 (some AVoE sub-types): the first video
            cfg, jobs = trial_jobs(tmp, suite, test, False, **kw)
        timers = pair_timers()
        c0, w0, l0, k0 = cpu_now(), time.perf_counter(), os.getloadavg()[0], children_cpu()
        with timers:
            result = produce(trial_of(jobs[0], cfg), cfg)
        if cfg.render_path == "dirty" and not timers.calls[DIRTY_FRAMES]:
            raise RuntimeError("the dirty path drew no frame: the run did not take its settings")
        return {
            "path": name,
            "size": [w, h],
            "cpu_s": round(cpu_now() - c0, 2),
            "children_cpu_s (ffmpeg)": round(children_cpu() - k0, 2),
            "wall_s": round(time.perf_counter() - w0, 2),
            "load": [round(l0, 1), round(os.getloadavg()[0], 1)],
            "videos": [j.id for j in jobs],
            "frames": result.frames,
            "blender_distinct": result.rendered_frames,
            "timers": timers.table(),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


DIRTY_FRAMES = "dirty: RGB frames in all (DirtyRGB.frames)"


def pair_timers():
    """The pipeline's timers (bench/render/timers.py) and the dirty path's own pieces (nested in the renderer's)."""
    from render.timers import Timers, pipeline_timers

    from voebench.generator.blender import dirty

    targets = dict(pipeline_timers().targets)
    targets.update(
        {
            "dirty: narrowed Blender renders + BMP reads (DirtyRGB._draw)": (dirty.DirtyRGB, "_draw"),
            "dirty: local FXAA + paste (dirty.Compositor.frame_parts)": (
                dirty.Compositor,
                "frame_parts" if hasattr(dirty.Compositor, "frame_parts") else "frame",  # (before issue 29's 5th step)
            ),
            DIRTY_FRAMES: (dirty.DirtyRGB, "frames"),
        }
    )
    return Timers(targets)


def cmd_pair(args) -> dict:
    os.environ.setdefault("LP_NUM_THREADS", "1")
    names = args.paths.split(",") if args.paths else list(PAIR_PATHS)
    order = [n for i in range(args.repeats) for n in (names if i % 2 == 0 else names[::-1])]  # ABC CBA ...
    runs: dict[str, list[dict]] = {n: [] for n in names}
    for name in order:
        res = run_pair(name, args.test, args.seconds, args.fps)
        runs[name].append(res)
        print(name, res["cpu_s"], "CPU s", res["wall_s"], "wall s", "load", res["load"], flush=True)
    med = {n: statistics.median(r["cpu_s"] for r in runs[n]) for n in names}
    out = {
        "machine": machine(),
        "test": args.test,
        "seconds": args.seconds,
        "fps": args.fps,
        "runs": runs,
        "cpu_s_median": med,
    }
    today, dirty, full = (med.get(n) for n in ("today_320x240", "dirty_640x480", "full_640x480"))
    if today and dirty:
        out["dirty_640_over_today_320"] = round(dirty / today, 3)
        out["done_when_pair_640_le_today_320"] = dirty <= today
    if dirty and full:
        out["dirty_640_over_full_640"] = round(dirty / full, 3)
    return out


def cmd_avoe(args) -> dict:
    """One AVoE trial (both videos, 50 frames at 24 fps, the suite's; the first video where no trial among the first 8
    has two) per sub-type asked, at 960x540 on today's
    path and on the dirty path, interleaved per sub-type (full, dirty; then dirty, full): CPU s, and the dirty
    path's share of today's summed over the sub-types (each sub-type weighs alike, as in a per-sub-type sample)."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    names = list(AVOE_PATHS)
    runs: dict[str, dict[str, dict]] = {}
    for i, test in enumerate(args.tests.split(",")):
        runs[test] = {}
        for name in names if i % 2 == 0 else names[::-1]:
            res = run_pair(name, test, 50 / 24, 24.0, suite="avoe")
            runs[test][name] = res
            print(
                test, name, res["cpu_s"], "CPU s", res["blender_distinct"], "distinct", "load", res["load"], flush=True
            )
    total = {n: round(sum(r[n]["cpu_s"] for r in runs.values()), 2) for n in names}
    out = {
        "machine": machine(),
        "tests": args.tests.split(","),
        "runs": runs,
        "cpu_s_total": total,
        "dirty_over_full": round(total["dirty_960x540"] / total["full_960x540"], 3),
        "per_test_ratio": {
            t: round(r["dirty_960x540"]["cpu_s"] / r["full_960x540"]["cpu_s"], 3) for t, r in runs.items()
        },
    }
    out["done_when_half_of_today"] = out["dirty_over_full"] <= 0.5
    print(json.dumps({k: out[k] for k in ("cpu_s_total", "dirty_over_full", "per_test_ratio")}))
    return out


def cmd_check(args) -> dict:
    """Per test of the suite (Level 2 by default): `states` distinct states of its violated video drawn on the dirty
    path and as full renders
    at one size; pixels that differ, inside and outside the dirty rectangle (widened by the filter's reach)."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.blender.dirty import REACH
    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.suite import load_suite

    w, h = (int(x) for x in args.size.split("x"))
    suite = load_suite(args.suite)
    out: dict = {"machine": machine(), "suite": args.suite, "size": [w, h], "tests": {}}
    for test in args.tests.split(",") if args.tests else suite.tests:
        scene = violated_scene(test, args.seconds, args.fps, args.suite)
        ts = distinct_states(scene, args.states)
        got, rects, resting = {}, {}, {}
        for path in ("dirty", "full"):
            r = Renderer(scene, RenderSettings(w, h, render_path=path))
            try:
                got[path] = {t: v[0] for t, v in r.render_batch(ts, ("rgb",)).items()}
                if r.dirty is not None:  # the rectangles drawn (apart; over a rest's background, the view's)
                    rects = {t: r.dirty.drawn_rects(t) for t in ts}
                    resting = {t: [n for n, _ in r.dirty.regions.rest(t)] for t in ts}
            finally:
                r.close()
        rows: list[dict[str, Any]] = []
        for t in ts:
            diff = np.abs(got["dirty"][t].astype(int) - got["full"][t].astype(int)).max(-1)
            inside = np.zeros(diff.shape, bool)
            for rect in rects[t]:
                inside[rect.grow(REACH, w, h).slices] = True
            rows.append(
                {
                    "t": t,
                    "rects": len(rects[t]),
                    "at_rest": resting[t],
                    "rect_area_fraction": round(sum(x.area for x in rects[t]) / (w * h), 4),
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
        "frames_over_a_rest_background": sum(bool(x["at_rest"]) for x in all_rows),
        "mean_rect_area_fraction": float(np.mean([x["rect_area_fraction"] for x in all_rows])),
    }
    print(json.dumps(out["summary"]))
    return out


GZIP1_SHUFFLE: dict[str, Any] = {"compression": "gzip", "compression_opts": 1, "shuffle": True}
HDF5_WAYS: dict[
    str, tuple[tuple[int, int] | None, dict[str, Any], bool]
] = {  # name: (tile (rows, cols) or None for a whole frame per chunk, h5py filter options, TileWriter)
    "whole_gzip1_shuffle (today)": (None, GZIP1_SHUFFLE, False),
    "whole_gzip1": (None, {"compression": "gzip", "compression_opts": 1}, False),
    "whole_lzf_shuffle (h5py only)": (None, {"compression": "lzf", "shuffle": True}, False),
    "whole_lzf (h5py only)": (None, {"compression": "lzf"}, False),
    "whole_none": (None, {}, False),
    "tiles64_gzip1_shuffle, every tile": ((64, 64), GZIP1_SHUFFLE, False),
    "tiles32_changed_only": ((32, 32), {}, True),
    "tiles64_changed_only": ((64, 64), {}, True),
    "tiles128_changed_only": ((128, 128), {}, True),
    "tiles64x128_changed_only": ((64, 128), {}, True),
    "bands16_changed_only": ((16, 0), {}, True),  # 0 columns: the whole width
    "bands32_changed_only": ((32, 0), {}, True),
    "bands64_changed_only": ((64, 0), {}, True),
}


def cmd_hdf5(args) -> dict:
    """Depth and segmentation of `states` consecutive distinct states of the test's violated video (drawn on the
    dirty path at one size), written to an HDF5 file in each way of HDF5_WAYS, interleaved `repeats` times: CPU
    ms per distinct frame (both datasets, resize and write) and bytes per frame of the finished file."""
    import h5py

    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.io import hdf5

    w, h = (int(x) for x in args.size.split("x"))
    scene = violated_scene(args.test, args.seconds, args.fps)
    ts = scene.first_frames()[: args.states]
    r = Renderer(scene, RenderSettings(w, h, render_path="dirty"))
    try:
        frames = [(v[1], v[2]) for v in r.render_batch(ts, ("depth", "segmentation")).values()]
    finally:
        r.close()
    tmp = tempfile.mkdtemp(prefix="vb-bench-h5-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    ms: dict[str, list[float]] = {k: [] for k in HDF5_WAYS}
    size: dict[str, int] = {}
    compressed: dict[str, float] = {}
    try:
        for _ in range(args.repeats):
            for name, (tile, filters, changed_only) in HDF5_WAYS.items():
                path = os.path.join(tmp, "x.h5")
                c0 = cpu()
                with h5py.File(path, "w") as f:
                    dss, tws = [], []  # datasets, and their TileWriters where the way has them
                    for key, dtype in (("depth", np.float32), ("segmentation", np.uint16)):
                        chunks = (1, h, w) if tile is None else (1, min(h, tile[0]), min(w, tile[1] or w))
                        opts: dict[str, Any] = filters if not changed_only else hdf5.COMPRESSION
                        ds = f.create_dataset(key, (0, h, w), dtype, maxshape=(None, h, w), chunks=chunks, **opts)
                        dss.append(ds)
                        tws.append(hdf5.TileWriter(ds) if changed_only else None)
                    for u, pair in enumerate(frames):
                        for ds, tw, data in zip(dss, tws, pair):
                            ds.resize((u + 1, h, w))
                            if tw is not None:
                                tw.write(u, data)
                            else:
                                ds[u] = data
                ms[name].append(1000 * (cpu() - c0) / len(frames))
                size[name] = os.path.getsize(path) // len(frames)
                if changed_only:
                    done = [x for x in tws if x is not None]
                    compressed[name] = round(sum(x.compressed for x in done) / sum(x.written for x in done), 4)
                with h5py.File(path) as f:  # every way stores the same pixels
                    for key, i in (("depth", 0), ("segmentation", 1)):
                        got = f[key][:]
                        want = np.stack([p[i] for p in frames])
                        if not np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")):
                            raise RuntimeError(f"{name}: {key} read back differs")
                os.remove(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = {k: round(statistics.median(v), 2) for k, v in ms.items()}
    for k in HDF5_WAYS:
        print(f"{k:40s} {med[k]:7.2f} ms/frame {size[k]:9d} B/frame", compressed.get(k, ""), flush=True)
    return {
        "machine": machine(),
        "test": args.test,
        "size": [w, h],
        "states": ts,
        "cpu_ms_per_frame_median": med,
        "cpu_ms_per_frame_all": {k: [round(x, 2) for x in v] for k, v in ms.items()},
        "bytes_per_frame": size,
        "share_of_tiles_compressed": compressed,
    }


def cmd_hdf5_deflate(args) -> dict:
    """Issue 29, ninth step: the HDF5 bands deflated by zlib (as before) and by ISA-L (today's: `_deflate` in
    generator/io/hdf5.py), on the depth and segmentation of every distinct state of each case's violated video drawn
    on the dirty path (written by `TileWriter` as `StatesWriter` writes them), interleaved `repeats` times: CPU ms
    per distinct frame (both datasets, resize and write), bytes per frame of the finished file, and the frames read
    back through HDF5's own filter equal to those drawn."""
    import zlib

    import h5py

    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.io import hdf5

    ways = {"zlib": lambda: zlib.compress, "isal": hdf5._deflate}
    out: dict = {"machine": machine(), "cases": {}}
    for case in args.cases.split(","):
        suite, test, (w, h), seconds, fps = HDF5_DEFLATE_CASES[case]
        scene = violated_scene(test, seconds, fps, suite)
        ts = scene.first_frames()
        r = Renderer(scene, RenderSettings(w, h, render_path="dirty"))
        try:
            frames = [(v[1], v[2]) for v in r.render_batch(ts, ("depth", "segmentation")).values()]
        finally:
            r.close()
        tmp = tempfile.mkdtemp(prefix="vb-bench-h5-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        ms: dict[str, list[float]] = {k: [] for k in ways}
        size: dict[str, int] = {}
        real = hdf5._deflate
        try:
            for rep in range(args.repeats):
                for name in list(ways) if rep % 2 == 0 else list(ways)[::-1]:
                    hdf5._deflate = ways[name]  # type: ignore[assignment]
                    path = os.path.join(tmp, "x.h5")
                    try:
                        c0 = cpu()
                        with h5py.File(path, "w") as f:
                            dss, tws = [], []
                            for key, dtype in (("depth", np.float32), ("segmentation", np.uint16)):
                                chunks = hdf5.chunk_shape(w, h)
                                ds = f.create_dataset(
                                    key, (0, h, w), dtype, maxshape=(None, h, w), chunks=chunks, **hdf5.COMPRESSION
                                )
                                dss.append(ds)
                                tws.append(hdf5.TileWriter(ds))
                            for u, pair in enumerate(frames):
                                for ds, tw, data in zip(dss, tws, pair):
                                    ds.resize((u + 1, h, w))
                                    tw.write(u, data)
                        ms[name].append(1000 * (cpu() - c0) / len(frames))
                    finally:
                        hdf5._deflate = real  # type: ignore[assignment]
                    size[name] = os.path.getsize(path) // len(frames)
                    with h5py.File(path) as f:  # HDF5's own filter reads every way back to the frames drawn
                        for key, i in (("depth", 0), ("segmentation", 1)):
                            got = f[key][:]
                            want = np.stack([p[i] for p in frames])
                            if not np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")):
                                raise RuntimeError(f"{case} {name}: {key} read back differs")
                    os.remove(path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        med = {k: round(statistics.median(v), 3) for k, v in ms.items()}
        row = {
            "suite": suite,
            "test": test,
            "size": [w, h],
            "distinct_frames": len(frames),
            "cpu_ms_per_frame_median": med,
            "cpu_ms_per_frame_all": {k: [round(x, 3) for x in v] for k, v in ms.items()},
            "bytes_per_frame": size,
            "isal / zlib, CPU": round(med["isal"] / med["zlib"], 3),
            "isal / zlib, bytes": round(size["isal"] / size["zlib"], 3),
        }
        out["cases"][case] = row
        print(case, {k: v for k, v in row.items() if k != "cpu_ms_per_frame_all"}, flush=True)
    return out


#: `hdf5-deflate` cases: (suite, test, size, seconds, fps) at each suite's default timing and size
HDF5_DEFLATE_CASES = {
    "t15": ("grasp-l2", "t15_support_pin", (640, 480), 10.0, 50.0),
    "t07": ("grasp-l2", "t07_permanence_drawbridge", (640, 480), 10.0, 50.0),
    "E1": ("avoe", "E1", (960, 540), 50 / 24, 24.0),
    "B2": ("avoe", "B2", (960, 540), 50 / 24, 24.0),
    "D1": ("avoe", "D1", (960, 540), 50 / 24, 24.0),
}


def union_rects(regions):
    """A stand-in for `regions.rects`: each state as one union rectangle (`rect(t)`), as the dirty path drew before
    per-object rectangles; no rectangle where nothing dynamic is visible."""

    def rects(t: int) -> list:
        rect = regions.rect(t)
        return [] if rect.empty else [rect]

    return rects


def cmd_fxaa_reach(args) -> dict:
    """Every distinct state of each case's violated video drawn on the dirty path through one rectangle per state
    (the union, as before per-object rectangles); each composite finished twice, interleaved per frame: by
    `Compositor.frame` (the filter cut to within reach of changed pixels, its edge stage only near them) and by
    the compositor before this (`_compositor_before`: the filter on the whole rectangle grown by its reach). CPU ms
    per frame of each and the frames whose bytes differ (must be 0)."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.blender import dirty
    from voebench.generator.blender.render import Renderer, RenderSettings

    out: dict = {"machine": machine(), "cases": {}}
    for case in args.cases.split(","):
        suite, test, size, seconds, fps = CASES[case]
        scene = violated_scene(test, seconds, fps, suite)
        ts = scene.first_frames()
        times: dict[str, list[float]] = {"now": [], "before": []}
        differ = [0]
        original = dirty.Compositor.frame_parts

        def both(self, parts, _orig=original, times=times, differ=differ):
            ((px, union, rect),) = parts
            got = {}
            for way in ("now", "before") if len(times["now"]) % 2 == 0 else ("before", "now"):
                c0 = cpu()
                got[way] = _orig(self, parts) if way == "now" else _compositor_before(self, px, union, rect)
                times[way].append(cpu() - c0)
            differ[0] += int(not np.array_equal(got["now"], got["before"]))
            return got["now"]

        dirty.Compositor.frame_parts = both  # type: ignore[method-assign]
        r = Renderer(scene, RenderSettings(*size, render_path="dirty"))
        assert r.dirty is not None
        regions = r.dirty.regions

        regions.rects = union_rects(regions)  # type: ignore[method-assign]
        try:
            r.render_batch(ts, ("rgb",))
        finally:
            r.close()
            dirty.Compositor.frame_parts = original  # type: ignore[method-assign]
        row = {
            "size": list(size),
            "distinct_states": len(ts),
            "composited": len(times["now"]),
            "frames_differ": differ[0],
            "ms_per_frame_now": round(1000 * statistics.mean(times["now"] or [0]), 3),
            "ms_per_frame_before": round(1000 * statistics.mean(times["before"] or [0]), 3),
        }
        out["cases"][case] = row
        print(case, json.dumps(row), flush=True)
    return out


def _compositor_before(comp, px, union, rect):
    """`dirty.Compositor.frame` as it was before issue 29's fifth step (commit daa8760), for `fxaa-reach`."""
    from voebench.generator import antialias
    from voebench.generator.blender.dirty import REACH
    from voebench.generator.dirty_regions import Rect

    w, h, k = comp.width, comp.height, REACH
    inner, outer = rect.grow(REACH, w, h), rect.grow(2 * REACH, w, h)
    need = Rect(max(union.x0, outer.x0), max(union.y0, outer.y0), min(union.x1, outer.x1), min(union.y1, outer.y1))
    src = px[need.y0 - union.y0 : need.y1 - union.y0, need.x0 - union.x0 : need.x1 - union.x0]
    comp.raw[need.slices] = src
    rows = np.arange(need.y0 + k if need.y0 else 0, need.y1 + k if need.y1 < h else h + 2 * k)
    cols = np.arange(need.x0 + k if need.x0 else 0, need.x1 + k if need.x1 < w else w + 2 * k)
    luma = np.ascontiguousarray(src).astype(np.float32) @ antialias._LUMA
    ry = np.clip(rows - k, need.y0, need.y1 - 1) - need.y0
    cx = np.clip(cols - k, need.x0, need.x1 - 1) - need.x0
    padded = slice(rows[0], rows[-1] + 1), slice(cols[0], cols[-1] + 1)
    comp.luma[padded] = luma[ry][:, cx]
    try:
        out = comp.bg_aa.copy()
        out[inner.slices] = antialias.fxaa_window(comp.raw, comp.luma, inner.y0, inner.y1, inner.x0, inner.x1)
    finally:
        comp.raw[need.slices] = comp.bg_raw[need.slices]
        comp.luma[padded] = comp.bg_luma[padded]
    return out


def cmd_parts(args) -> dict:
    """RGB frames of every distinct state of each case's violated video on the dirty path (`DirtyRGB.frames`, one
    renderer, the background drawn before timing), drawn per-object (`DirtyRegions.rects`, merged by the cost
    model) and as one union rectangle per state (as before), interleaved repeats: CPU s, render calls, pixels drawn,
    and the pixels where the two ways' frames differ outside the rectangles apart (widened by the filter's reach):
    there the rectangles-apart way shows the filtered background, so these are the union way's own float32 flips
    (`check` compares both with full renders)."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.blender.dirty import REACH
    from voebench.generator.blender.render import Renderer, RenderSettings

    out: dict = {"machine": machine(), "cases": {}}
    for case in args.cases.split(","):
        suite, test, size, seconds, fps = CASES[case]
        scene = violated_scene(test, seconds, fps, suite)
        ts = scene.first_frames()
        r = Renderer(scene, RenderSettings(*size, render_path="dirty"))
        d = r.dirty
        assert d is not None
        regions, apart = d.regions, d.regions.rects
        union = union_rects(regions)
        d.background(ts[0])
        cpu_s: dict[str, list[float]] = {"apart": [], "union": []}
        stats: dict[str, dict] = {}
        frames: dict[str, dict] = {}
        try:
            for i in range(args.repeats):
                for way in ("apart", "union") if i % 2 == 0 else ("union", "apart"):
                    regions.rects = apart if way == "apart" else union  # type: ignore[method-assign]
                    before = dict(d.stats)
                    c0 = cpu()
                    frames[way] = d.frames(ts)
                    cpu_s[way].append(round(cpu() - c0, 3))
                    stats[way] = {k: d.stats[k] - before[k] for k in ("calls", "pixels_drawn", "parts")}
        finally:
            r.close()
        outside = 0
        for t in ts:
            inside = np.zeros(size[::-1], bool)
            for rect in apart(t):
                inside[rect.grow(REACH, *size).slices] = True
            outside += int(np.any(frames["apart"][t] != frames["union"][t], -1)[~inside].sum())
        row = {
            "size": list(size),
            "distinct_states": len(ts),
            "states_in_2plus_rects": sum(len(apart(t)) > 1 for t in ts),
            "cpu_s": cpu_s,
            "cpu_s_median": {k: statistics.median(v) for k, v in cpu_s.items()},
            "stats": stats,
            "pixels_differ_outside_rects": outside,
        }
        out["cases"][case] = row
        print(case, json.dumps({k: row[k] for k in ("states_in_2plus_rects", "cpu_s", "stats")}), flush=True)
    return out


def cmd_rect_cost(args) -> dict:
    """The narrowed render's cost model: t15's states drawn (batched, `DirtyRGB._draw`, BMP reads included) through
    centred rectangles of growing area at 640x480, interleaved repeats; CPU ms per state against pixels, and the
    least-squares line (fixed ms per state + us per pixel) that `dirty_regions.RENDER_FIXED_PIXELS` rounds."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.blender import render
    from voebench.generator.dirty_regions import Rect

    w, h = 640, 480
    scene = l2_scene("t15_support_pin", None, 10.0, 50.0)
    ts = distinct_states(scene, args.states)
    r = render.Renderer(scene, render.RenderSettings(w, h, render_path="dirty"))
    d = r.dirty
    assert d is not None
    sides = [(8, 8), (32, 24), (64, 48), (128, 96), (192, 144), (320, 240), (448, 336), (640, 480)]
    rects = [Rect((w - a) // 2, (h - b) // 2, (w - a) // 2 + a, (h - b) // 2 + b) for a, b in sides]
    d._draw(rects[2], ts[:2])  # warm
    ms: dict[int, list[float]] = {x.area: [] for x in rects}
    for i in range(args.repeats):
        for rect in rects if i % 2 == 0 else rects[::-1]:
            c0 = cpu()
            d._draw(rect, ts)
            ms[rect.area].append(1000 * (cpu() - c0) / len(ts))
    r.close()
    px = np.array(list(ms), float)
    med = np.array([statistics.median(v) for v in ms.values()])
    slope, fixed = np.polyfit(px, med, 1)
    out = {
        "machine": machine(),
        "states": len(ts),
        "ms_per_state_median": {str(int(a)): round(float(m), 3) for a, m in zip(px, med)},
        "ms_per_state_all": {str(a): [round(x, 3) for x in v] for a, v in ms.items()},
        "fit_fixed_ms": round(float(fixed), 3),
        "fit_us_per_pixel": round(1000 * float(slope), 4),
        "fixed_in_pixels": round(float(fixed / slope)),
    }
    keys = ("ms_per_state_median", "fit_fixed_ms", "fit_us_per_pixel", "fixed_in_pixels")
    print(json.dumps({k: out[k] for k in keys}))
    return out


CASES = {  # name: (suite, test, size, seconds, fps): the videos the exactness checks of this issue use
    "t15": ("grasp-l2", "t15_support_pin", (640, 480), 10.0, 50.0),
    "t05": ("grasp-l2", "t05_permanence_pin", (640, 480), 10.0, 50.0),
    "t13": ("grasp-l2", "t13_gravity_continuity_gap", (640, 480), 10.0, 50.0),
    "D1": ("avoe", "D1", (960, 540), 50 / 24, 24.0),
    "t08": ("grasp-l2", "t08_inertia_bounce", (640, 480), 10.0, 50.0),
    "A1": ("avoe", "A1", (960, 540), 50 / 24, 24.0),
    "E1": ("avoe", "E1", (960, 540), 50 / 24, 24.0),
}


def violated_scene(test: str, seconds: float, fps: float, suite_name: str = "grasp-l2"):
    """The violated (last) video of the first of the test's trials that builds at this frame rate."""
    from voebench.errors import Infeasible
    from voebench.generator.suite import Job, Timing, load_suite

    suite = load_suite(suite_name)
    for index in range(8):
        seed, p = suite.sample(test, suite.space(test), 0, index)
        try:
            cond = suite.conditions(test, p, {"seed": seed})[-1]
            job = Job(suite_name, test, index, cond, seed, f"{suite_name}/{test}/{index:05d}")
            return suite.make_scene(job, p, Timing(seconds, fps))
        except (Infeasible, RuntimeError, IndexError):  # IndexError: a draw with no condition
            continue
    raise RuntimeError(f"{test}: no buildable draw among the first 8")


def cmd_shares(args) -> dict:
    """Geometry only (no render): the mean share of the image drawn per distinct state of each test's violated
    video, as one union rectangle (`DirtyRegions.rect`) and as the rectangles drawn apart (`DirtyRegions.rects`:
    per object with its shadows, merged by `merge_rects`), and how many distinct states are drawn in 2+ rectangles.
    Level 2 at 640x480, 10 s at 25 fps; AVoE at 960x540, 50 frames at 24 fps."""
    from voebench.generator.blender.dirty import geometry
    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.dirty_regions import DirtyRegions
    from voebench.generator.suite import load_suite

    out: dict = {"machine": machine(), "tests": {}}
    for suite, size, seconds, fps in (("grasp-l2", (640, 480), 10.0, 25.0), ("avoe", (960, 540), 50 / 24, 24.0)):
        for test in load_suite(suite).tests:
            scene = violated_scene(test, seconds, fps, suite)
            r = Renderer(scene, RenderSettings(*size))
            corners, light = geometry(r)
            r.close()
            regions = DirtyRegions(scene, corners, light, *size)
            ts = scene.first_frames()
            area = size[0] * size[1] * len(ts)
            row = {
                "dynamic": len(regions.dynamic),
                "distinct_states": len(ts),
                "union": round(sum(regions.rect(t).area for t in ts) / area, 3),
                "apart": round(sum(x.area for t in ts for x in regions.rects(t)) / area, 3),
                "states_in_2plus_rects": sum(len(regions.rects(t)) > 1 for t in ts),
            }
            out["tests"][f"{suite} {test}"] = row
            print(
                f"{suite} {test} {row['dynamic']} dyn; {row['distinct_states']} states; union {row['union']:.3f}  "
                f"drawn apart {row['apart']:.3f}  states in 2+ rectangles {row['states_in_2plus_rects']}",
                flush=True,
            )
    return out


def pair_scenes(test: str, suite_name: str = "grasp-l2"):
    """The scenes of the first trial of the test that builds, in the runner's order, at the suite's default timing."""
    from voebench.errors import Infeasible
    from voebench.generator.suite import Job, load_suite

    suite = load_suite(suite_name)
    timing = suite.default_timing
    for index in range(8):
        seed, p = suite.sample(test, suite.space(test), 0, index)
        try:
            return [
                suite.make_scene(Job(suite_name, test, index, c, seed, f"{suite_name}/{test}/{index:05d}"), p, timing)
                for c in suite.conditions(test, p, {"seed": seed})
            ]
        except (Infeasible, RuntimeError, IndexError):
            continue
    raise RuntimeError(f"{test}: no buildable draw among the first 8")


def pose_bytes(o, t: int) -> bytes:
    """An object's pose, colour and visibility at frame t, as bytes (what a rest background shows of it)."""
    arrays = (o.position, o.quaternion, o.color, o.visible)
    return np.concatenate([np.asarray(a[t], np.float64).ravel() for a in arrays]).tobytes()


#: CPU s of one narrowed render per pixel drawn (`rect-cost`, t15 at 640x480: 0.31-0.40 us) and of one rest
#: background at 640x480 (a whole-frame Workbench render with its BMP read, 118 ms, its filter 13 ms, the compositor's
#: luma and the ground truth's, ~15 ms: issue29-measure.json): the estimates `leads` converts geometry with
US_PER_PIXEL = 0.35
BACKGROUND_S = 0.15


def grasp_pairs(tests: str | None):
    """Each GRASP test asked for (comma-separated; all where None), in order: its suite's name, the test, its default
    number of videos (as `plan` counts them), both scenes of its first paired trial (`pair_scenes`) and their
    `geometry` at 640x480."""
    from voebench.generator.blender.dirty import geometry
    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.runner import RunConfig, plan
    from voebench.scenes import REGISTRY

    for suite_name in GRASP_SUITES:
        suite = REGISTRY.get(suite_name)
        for test in suite.tests:
            if tests and test not in tests.split(","):
                continue
            weight = len(plan(RunConfig(out="-", suite=suite_name, tests=[test], trials=suite.default_trials), suite))
            scenes = pair_scenes(test, suite_name)
            r = Renderer(scenes[0], RenderSettings(640, 480))
            try:
                corners, light = geometry(r)
            finally:
                r.close()
            yield suite_name, test, weight, scenes, corners, light


def cmd_leads(args) -> dict:
    """Issue 29, seventh step, geometry only: what each lead could save per trial (both videos, as the runner makes
    them: the second takes the first's states from the FrameCache), at 640x480 and the suite's default timing.
    (a) long objects in slabs (`dirty_regions.SLABS`): pixels drawn per trial with SLABS = 1 against the default,
    and the CPU s the rectangle arithmetic takes each way; (b) rest backgrounds of the second video that the first
    drew with the same bytes (the same resting objects at the same pose: a rest that began before the videos part):
    how many, and the states they serve. Weighted by the default video counts as `grasp` weighs."""
    from voebench.generator import dirty_regions as dr

    out: dict = {"machine": machine(), "us_per_pixel": US_PER_PIXEL, "background_s": BACKGROUND_S, "tests": {}}
    tot = {"a_saved_s": 0.0, "a_arith_s": 0.0, "b_saved_s": 0.0}
    for suite_name, test, weight, scenes, corners, light in grasp_pairs(args.tests):
        seen: set[bytes] = set()
        drawn_bgs: set[bytes] = set()  # what the first video's backgrounds show: resting objects' states
        px = {1: 0, dr.SLABS: 0}
        arith = {1: 0.0, dr.SLABS: 0.0}
        bgs = shared = shared_states = 0
        for v, scene in enumerate(scenes):
            keys = scene.state_keys()
            ts = [t for t in scene.first_frames(keys) if keys[t] not in seen]
            seen.update(keys[t] for t in ts)
            for slabs in (1, dr.SLABS):
                saved, dr.SLABS = dr.SLABS, slabs
                try:
                    c0 = cpu()
                    regions = dr.DirtyRegions(scene, corners, light, 640, 480)
                    rects = {t: regions.view(regions.rest(t)).rects(t) for t in ts}
                    arith[slabs] += cpu() - c0
                finally:
                    dr.SLABS = saved
                px[slabs] += sum(x.area for rs in rects.values() for x in rs)
            by_key: dict = {}
            for t in ts:
                by_key.setdefault(regions.rest(t), []).append(t)
            for key, kts in by_key.items():
                if not key:
                    continue
                what = b"".join(pose_bytes(scene.objects[n], start) + n.encode() for n, start in key)
                if v == 0:
                    drawn_bgs.add(what)
                else:
                    bgs += 1
                    if what in drawn_bgs:
                        shared += 1
                        shared_states += len(kts)
        a_saved = (px[1] - px[dr.SLABS]) * US_PER_PIXEL * 1e-6
        row = {
            "suite": suite_name,
            "default_videos": weight,
            "videos": len(scenes),
            "a_pixels_drawn": {"slabs 1": px[1], f"slabs {dr.SLABS}": px[dr.SLABS]},
            "a_arith_cpu_s": {"slabs 1": round(arith[1], 3), f"slabs {dr.SLABS}": round(arith[dr.SLABS], 3)},
            "a_saved_s_est": round(a_saved, 2),
            "b_second_video_backgrounds": bgs,
            "b_shared_with_first": shared,
            "b_states_they_serve": shared_states,
            "b_saved_s_est": round(shared * BACKGROUND_S, 2),
        }
        per_video = weight / len(scenes)
        tot["a_saved_s"] += per_video * a_saved
        tot["a_arith_s"] += per_video * (arith[dr.SLABS] - arith[1])
        tot["b_saved_s"] += per_video * shared * BACKGROUND_S
        out["tests"][test] = row
        print(test, {k: v for k, v in row.items() if k not in ("suite",)}, flush=True)
    out["weighted (default videos / videos per trial x per trial)"] = {k: round(v, 1) for k, v in tot.items()}
    print(out["weighted (default videos / videos per trial x per trial)"])
    return out


def cmd_slabs(args) -> dict:
    """Issue 29, seventh step: one trial of each test asked (both videos, as `grasp` makes it) on the dirty 640x480
    path with long turned objects in slabs (the default) and without (`dirty_regions.SLABS` = 1), interleaved,
    `--repeats` times (the order flips each time), and today's 320x240 path once per repeat: CPU s, the narrowed
    renders' share of it, and the ratios."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator import dirty_regions as dr

    default = dr.SLABS
    out: dict = {"machine": machine(), "slabs": default, "tests": {}}
    for test in args.tests.split(","):
        runs: dict[str, list] = {"slabs": [], "no slabs": [], "today_320x240": []}
        for rep in range(args.repeats):
            order = ["slabs", "no slabs", "today_320x240"] if rep % 2 == 0 else ["no slabs", "slabs", "today_320x240"]
            for name in order:
                dr.SLABS = 1 if name == "no slabs" else default
                try:
                    run = run_pair("today_320x240" if name == "today_320x240" else "dirty_640x480", test, 10.0, 50.0)
                finally:
                    dr.SLABS = default
                row = {
                    "cpu_s": run["cpu_s"],
                    "narrowed_renders_cpu_s": round(run["timers"].get(DIRTY_DRAW, {}).get("cpu_s", 0.0), 2),
                    "load": run["load"],
                }
                runs[name].append(row)
                print(test, rep, name, row, flush=True)
        med = {k: statistics.median(r["cpu_s"] for r in v) for k, v in runs.items()}
        out["tests"][test] = {
            "runs": runs,
            "median_cpu_s": med,
            "ratio_to_today": {k: round(med[k] / med["today_320x240"], 3) for k in ("slabs", "no slabs")},
        }
        print(test, out["tests"][test]["median_cpu_s"], out["tests"][test]["ratio_to_today"], flush=True)
    return out


#: `occlude`'s timed tests by default: the largest weighted saving by geometry (`occlude --geometry`)
OCCLUDE_TESTS = "t01_unchangeableness,t04_solidity_two_levels,t10_gravity_inertia_hover"


def cmd_occlude(args) -> dict:
    """Issue 29, eighth step: pieces hidden behind solid static boxes cut from the rectangles
    (`dirty_regions.OCCLUDE`). `--geometry`: per GRASP test, both videos of the first trial as the runner makes them
    (the second takes the first's states from the FrameCache) at 640x480 and the suite's default timing, the pixels
    drawn and the CPU s of the rectangle arithmetic with and without, weighted by the default video counts as `grasp`
    weighs (CPU s estimated at `US_PER_PIXEL`). Otherwise: one trial of each test asked (both videos, as `grasp`
    makes it) on the dirty 640x480 path with and without, in alternating order, and today's 320x240 path once per
    repeat: CPU s, the narrowed renders' share of it, and the ratios."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator import dirty_regions as dr

    default = dr.OCCLUDE
    if args.geometry:
        return occlude_geometry(args)
    out: dict = {"machine": machine(), "tests": {}}
    for test in (args.tests or OCCLUDE_TESTS).split(","):
        runs: dict[str, list] = {"occlude": [], "no occlude": [], "today_320x240": []}
        for rep in range(args.repeats):
            order = ["occlude", "no occlude"] if rep % 2 == 0 else ["no occlude", "occlude"]
            for name in [*order, "today_320x240"][: 3 if args.today else 2]:
                dr.OCCLUDE = name != "no occlude"
                try:
                    run = run_pair("today_320x240" if name == "today_320x240" else "dirty_640x480", test, 10.0, 50.0)
                finally:
                    dr.OCCLUDE = default
                row = {
                    "cpu_s": run["cpu_s"],
                    "narrowed_renders_cpu_s": round(run["timers"].get(DIRTY_DRAW, {}).get("cpu_s", 0.0), 2),
                    "load": run["load"],
                }
                runs[name].append(row)
                print(test, rep, name, row, flush=True)
                if args.json:  # what is measured so far, so that a run cut short (a Blender crash) leaves its runs
                    with open(args.json, "w") as f:
                        json.dump(
                            {"partial": True, "machine": machine(), "tests": out["tests"], test: runs}, f, indent=1
                        )
        med = {k: statistics.median(r["cpu_s"] for r in v) for k, v in runs.items() if v}
        row_out: dict = {
            "runs": runs,
            "median_cpu_s": med,
            "occlude / no occlude": round(med["occlude"] / med["no occlude"], 3),
        }
        if "today_320x240" in med:
            row_out["ratio_to_today"] = {k: round(med[k] / med["today_320x240"], 3) for k in ("occlude", "no occlude")}
        out["tests"][test] = row_out
        print(test, med, {k: v for k, v in row_out.items() if k not in ("runs", "median_cpu_s")}, flush=True)
    return out


def pixels_with_and_without(dr, flag: str, scenes, corners, light, size) -> tuple[dict, dict]:
    """Pixels drawn and CPU s of the rectangle arithmetic over the distinct states of `scenes` (a trial's videos: a
    state the first video drew is not counted again, as the runner's FrameCache shares it), with the module flag
    `dr.<flag>` (a `dirty_regions` switch) off and on: ({False: px, True: px}, {False: s, True: s}). The flag is
    restored whatever happens."""
    default = getattr(dr, flag)
    px = {False: 0, True: 0}
    arith = {False: 0.0, True: 0.0}
    seen: set[bytes] = set()
    for scene in scenes:
        keys = scene.state_keys()
        ts = [t for t in scene.first_frames(keys) if keys[t] not in seen]
        seen.update(keys[t] for t in ts)
        for on in (False, True):
            setattr(dr, flag, on)
            try:
                c0 = cpu()
                regions = dr.DirtyRegions(scene, corners, light, *size)
                rects = [regions.view(regions.rest(t)).rects(t) for t in ts]
                arith[on] += cpu() - c0
            finally:
                setattr(dr, flag, default)
            px[on] += sum(x.area for rs in rects for x in rs)
    return px, arith


def occlude_geometry(args) -> dict:
    """`occlude --geometry` (see cmd_occlude)."""
    from voebench.generator import dirty_regions as dr

    out: dict = {"machine": machine(), "us_per_pixel": US_PER_PIXEL, "tests": {}}
    tot = {"saved_s_est": 0.0, "arith_s": 0.0}
    for suite_name, test, weight, scenes, corners, light in grasp_pairs(args.tests):
        px, arith = pixels_with_and_without(dr, "OCCLUDE", scenes, corners, light, (640, 480))
        saved = (px[False] - px[True]) * US_PER_PIXEL * 1e-6
        row = {
            "suite": suite_name,
            "default_videos": weight,
            "videos": len(scenes),
            "pixels_drawn": {"no occlude": px[False], "occlude": px[True]},
            "share_left": round(px[True] / px[False], 3) if px[False] else None,
            "arith_cpu_s": {"no occlude": round(arith[False], 3), "occlude": round(arith[True], 3)},
            "saved_s_est": round(saved, 2),
        }
        per_video = weight / len(scenes)
        tot["saved_s_est"] += per_video * saved
        tot["arith_s"] += per_video * (arith[True] - arith[False])
        out["tests"][test] = row
        print(test, {k: v for k, v in row.items() if k != "suite"}, flush=True)
    key = "weighted (default videos / videos per trial x per trial), CPU s"
    out[key] = {k: round(v, 1) for k, v in tot.items()}
    print(out[key])
    return out


def avoe_pairs(tests: str | None):
    """Each AVoE sub-type asked (comma-separated; all where None): ("avoe", the sub-type, 1, its first trial's scenes
    at the suite's default timing (`pair_scenes`; the violated video alone where the first trials build none), and
    their `geometry` at 960x540), as `grasp_pairs` yields GRASP's."""
    from voebench.generator.blender.dirty import geometry
    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.suite import load_suite

    suite = load_suite("avoe")
    for test in suite.tests:
        if tests and test not in tests.split(","):
            continue
        scenes = pair_scenes(test, "avoe") or [violated_scene(test, 50 / 24, 24.0, "avoe")]
        r = Renderer(scenes[0], RenderSettings(*AVOE_SIZE))
        try:
            corners, light = geometry(r)
        finally:
            r.close()
        yield "avoe", test, 1, scenes, corners, light


AVOE_SIZE = (960, 540)


def cmd_slide(args) -> dict:
    """Issue 29, ninth step, geometry only: a shadow's rectangle on a receiver also bounded by the sweep's part
    between the receiver's faces (`dirty_regions.SLIDE`, `_slid`). Per GRASP test (640x480, both videos of the first
    trial as the runner makes them, weighted by default video counts as `grasp` weighs) and per AVoE sub-type
    (960x540, its first trial), the pixels drawn with and without, and the CPU s of the rectangle arithmetic."""
    from voebench.generator import dirty_regions as dr

    out: dict = {"machine": machine(), "tests": {}}
    tot: dict[str, dict[str, float]] = {}
    pairs = []
    if args.suite in ("grasp", "all"):
        pairs.append((grasp_pairs(args.tests or None), (640, 480)))
    if args.suite in ("avoe", "all"):
        pairs.append((avoe_pairs(args.tests or None), AVOE_SIZE))
    for gen, size in pairs:
        for suite_name, test, weight, scenes, corners, light in gen:
            px, arith = pixels_with_and_without(dr, "SLIDE", scenes, corners, light, size)
            row = {
                "suite": suite_name,
                "size": list(size),
                "default_videos": weight,
                "videos": len(scenes),
                "pixels_drawn": {"no slide": px[False], "slide": px[True]},
                "share_left": round(px[True] / px[False], 3) if px[False] else None,
                "arith_cpu_s": {"no slide": round(arith[False], 3), "slide": round(arith[True], 3)},
            }
            group = "avoe (each sub-type alike)" if suite_name == "avoe" else "grasp (default video counts)"
            t = tot.setdefault(group, {"no slide": 0.0, "slide": 0.0})
            per_video = weight / len(scenes)
            t["no slide"] += per_video * px[False]
            t["slide"] += per_video * px[True]
            out["tests"][test] = row
            print(test, {k: v for k, v in row.items() if k != "suite"}, flush=True)
    key = "pixels drawn, slide / no slide"
    out[key] = {g: round(t["slide"] / t["no slide"], 3) for g, t in tot.items() if t["no slide"]}
    print(out[key])
    return out


def cmd_encode(args) -> dict:
    """Issue 29, fifth step: where the mp4 encoder's CPU goes, on one video's frames held in memory (rendered once
    on the asked path, repeated frames sent again as the runner sends them). CPU s of this process and ffmpeg for:
    RGB through the pipe with ffmpeg's swscale converting (the writer before this step), the same without x264
    (swscale and the pipe), prepared yuv420p without x264 (the pipe), prepared yuv420p into x264 (x264 proper),
    the distinct frames only into x264 (x264's cost of a repeated frame: the difference per repeated frame), yuv420p
    made in numpy for every frame (whole frames), once per distinct state (whole frames), by `VideoWriter` as it is
    now (`Yuv420Stream`: only what changed since the previous frame), and the two numpy conversions alone;
    interleaved repeats. Quality: PSNR against the RGB frames and the mean signed error per
    channel of the files written with swscale's conversion and with numpy's, decoded by imageio-ffmpeg."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    import imageio_ffmpeg
    from render.common import cpu_now

    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.io.video import CAUSAL_X264, VideoWriter, read_video
    from voebench.generator.io.yuv420 import Yuv420Stream, rgb_to_yuv420p

    w, h = map(int, args.size.split("x"))
    scene = violated_scene(args.test, args.seconds, args.fps, args.suite)
    r = Renderer(scene, RenderSettings(w, h, render_path=args.path))
    distinct: list[np.ndarray] = []
    unique: list[int] = []
    for fr in r.frames(("rgb",)):
        if fr.rendered:
            distinct.append(fr.rgb)
        unique.append(fr.unique)
    r.close()
    x264 = ["-preset", "veryfast", "-crf", "18", *CAUSAL_X264, "-threads", "1", "-f", "mp4"]
    null = ["-c:v", "rawvideo", "-f", "null"]
    tmp = tempfile.mkdtemp(prefix="vb-bench-encode-")
    mp4 = os.path.join(tmp, "v.mp4")

    def pipe(pix_in: str, params: list, path: str, frames) -> None:
        g = imageio_ffmpeg.write_frames(
            path, (w, h), pix_fmt_in=pix_in, fps=args.fps, codec="libx264", pix_fmt_out="yuv420p",
            macro_block_size=2, quality=None, output_params=params, ffmpeg_log_level="error",
        )  # fmt: skip
        g.send(None)
        for f in frames:
            g.send(f)
        g.close()

    yuv = [rgb_to_yuv420p(f) for f in distinct]
    rgb_seq = [distinct[u] for u in unique]

    def writer_now() -> None:
        v = VideoWriter(mp4, w, h, args.fps)
        for u in unique:
            v.write(distinct[u])
        v.close()

    def per_distinct():
        last, data = None, b""
        for u in unique:
            if u != last:
                last, data = u, rgb_to_yuv420p(distinct[u])
            yield data

    def stream_alone() -> None:
        s = Yuv420Stream(w, h)
        for u in unique:
            s.convert(distinct[u])

    ways = {
        "rgb24 -> swscale -> x264 (the writer before)": lambda: pipe("rgb24", x264, mp4, rgb_seq),
        "rgb24 -> swscale, no x264": lambda: pipe("rgb24", null, os.devnull, rgb_seq),
        "yuv420p prepared, no x264 (the pipe)": lambda: pipe("yuv420p", null, os.devnull, (yuv[u] for u in unique)),
        "yuv420p prepared -> x264": lambda: pipe("yuv420p", x264, mp4, (yuv[u] for u in unique)),
        "yuv420p prepared, distinct frames only -> x264": lambda: pipe("yuv420p", x264, mp4, yuv),
        "numpy yuv420p for every frame -> x264": lambda: pipe(
            "yuv420p", x264, mp4, (rgb_to_yuv420p(distinct[u]) for u in unique)
        ),
        "numpy yuv420p once per distinct state -> x264": lambda: pipe("yuv420p", x264, mp4, per_distinct()),
        "VideoWriter now (Yuv420Stream: what changed -> x264)": writer_now,
        "numpy whole-frame conversion alone, once per distinct state": lambda: [rgb_to_yuv420p(f) for f in distinct],
        "Yuv420Stream alone, every frame": stream_alone,
    }
    names = list(ways)
    cpu_s: dict[str, list[float]] = {n: [] for n in names}
    try:
        for i in range(args.repeats):
            for n in names if i % 2 == 0 else names[::-1]:
                c0 = cpu_now()
                ways[n]()
                cpu_s[n].append(round(cpu_now() - c0, 3))
            print("repeat", i + 1, {n: v[-1] for n, v in cpu_s.items()}, flush=True)
        src = np.stack(rgb_seq)
        quality = {}
        for n, fn in (("swscale", ways[names[0]]), ("numpy", writer_now)):
            fn()
            d = read_video(mp4).astype(np.int16) - src
            mse = float((d.astype(np.float64) ** 2).mean())
            quality[n] = {
                "frames": len(d),
                "bytes": os.path.getsize(mp4),
                "psnr_vs_rgb_db": round(10 * np.log10(255**2 / mse), 3),
                "mean_signed_error_rgb": [round(float(d[..., c].mean()), 3) for c in range(3)],
            }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    med = {n: round(statistics.median(v), 3) for n, v in cpu_s.items()}
    n_rep = len(unique) - len(distinct)
    pipe_per_frame = med["yuv420p prepared, no x264 (the pipe)"] / len(unique)
    x264_rep = med["yuv420p prepared -> x264"] - med["yuv420p prepared, distinct frames only -> x264"]
    x264_rep -= pipe_per_frame * n_rep
    x264_distinct = med["yuv420p prepared, distinct frames only -> x264"] - pipe_per_frame * len(distinct)
    out = {
        "machine": machine(),
        "video": f"{args.suite}/{args.test} last condition, {w}x{h}, {len(unique)} frames at {args.fps} fps",
        "render_path": args.path,
        "frames": len(unique),
        "distinct": len(distinct),
        "cpu_s": cpu_s,
        "cpu_s_median": med,
        "x264_ms_per_repeated_frame": round(1000 * x264_rep / max(n_rep, 1), 2),
        "x264_ms_per_distinct_frame (pipe taken out)": round(1000 * x264_distinct / len(distinct), 2),
        "quality_imageio_ffmpeg": quality,
    }
    print(json.dumps({k: out[k] for k in list(out)[3:] if k != "cpu_s"}, indent=1))
    return out


GRASP_SUITES = ("grasp-l1", "grasp-l2")


def cmd_grasp(args) -> dict:
    """Issue 29: every GRASP Level 1 and Level 2 test, one trial each (both videos of the first paired trial of a
    Level 2 test, the first video of a Level 1 test; as the runner makes them: one FrameCache, the gate) made by
    each of `--paths` (today's 320x240 path and the dirty 640x480 one), interleaved per test (the order flips
    from test to test), in this process: CPU s including ffmpeg. Each test's CPU per video is weighted by the
    test's number of videos in the full default GRASP (the count `plan` gives at the suite's default trials, as
    bench/unique_frames.py and bench/render/project.py count them); the ratio of the weighted sums, times today's
    measured per test, projected by count. `--merge`: the tests of earlier runs' JSON files (one process per
    test keeps a crash, such as Blender's rare segfault in a long run, to that test) summed without running."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.runner import RunConfig, plan
    from voebench.scenes import REGISTRY

    names = args.paths.split(",")
    if args.merge:
        merged: dict[str, dict] = {}
        for path in args.merge.split(","):
            with open(path) as f:
                got = json.load(f)
            for t, r in got["tests"].items():
                merged[t] = {**r, "runs": got.get("runs", {}).get(t, r.get("runs")), "from": path}
        return grasp_summary(merged, names, args.today_core_hours, 0.0)
    asked = set(args.tests.split(",")) if args.tests else None
    rows: dict[str, dict] = {}
    w0 = time.perf_counter()
    flip = 0
    for suite_name in GRASP_SUITES:
        suite = REGISTRY.get(suite_name)
        seconds = args.seconds or suite.default_timing.seconds
        fps = args.fps or suite.default_timing.fps
        for test in suite.tests:
            if asked is not None and test not in asked:
                continue
            default_videos = len(
                plan(RunConfig(out="-", suite=suite_name, tests=[test], trials=suite.default_trials), suite)
            )
            runs = {}
            for name in names if flip % 2 == 0 else names[::-1]:
                runs[name] = run_pair(name, test, seconds, fps, suite=suite_name)
            flip += 1
            videos = len(runs[names[0]]["videos"])
            row = {
                "suite": suite_name,
                "default_videos": default_videos,
                "videos_measured": videos,
                "seconds": seconds,
                "fps": fps,
                "cpu_s": {n: r["cpu_s"] for n, r in runs.items()},
                "cpu_s_per_video": {n: round(r["cpu_s"] / videos, 3) for n, r in runs.items()},
                "blender_distinct": {n: r["blender_distinct"] for n, r in runs.items()},
                "load": {n: r["load"] for n, r in runs.items()},
                "ratio": round(runs[names[1]]["cpu_s"] / runs[names[0]]["cpu_s"], 3),
                "runs": runs,
            }
            rows[test] = row
            print(test, row["cpu_s"], "ratio", row["ratio"], "load", row["load"], flush=True)
            if args.json:  # what is measured so far, so that a run cut short leaves its tests
                with open(args.json, "w") as f:
                    json.dump({"partial": True, "machine": machine(), "tests": rows}, f, indent=1)
    if not rows:
        raise SystemExit(f"no GRASP test among {args.tests!r}")
    return grasp_summary(rows, names, args.today_core_hours, time.perf_counter() - w0)


def grasp_summary(rows: dict[str, dict], names: list[str], today_core_hours: str, wall_s: float) -> dict:
    """The weighted sums, their ratio and the projection over the measured tests (see cmd_grasp)."""
    weighted = {n: sum(r["default_videos"] * r["cpu_s_per_video"][n] for r in rows.values()) for n in names}
    ratio = weighted[names[1]] / weighted[names[0]]
    by_suite = {
        s: {
            n: round(sum(r["default_videos"] * r["cpu_s_per_video"][n] for r in rows.values() if r["suite"] == s), 1)
            for n in names
        }
        for s in GRASP_SUITES
    }
    lo, hi = (float(x) for x in today_core_hours.split("-"))
    out = {
        "machine": machine(),
        "paths": names,
        "tests": {t: {k: v for k, v in r.items() if k != "runs"} for t, r in rows.items()},
        "runs": {t: r["runs"] for t, r in rows.items()},
        "weighted_cpu_s (sum over tests of default videos x CPU s per video)": {
            n: round(v, 1) for n, v in weighted.items()
        },
        "weighted_cpu_s_by_suite": by_suite,
        "ratio_weighted": round(ratio, 3),
        "today_core_hours_320x240 (docs/performance.md)": [lo, hi],
        "projected_core_hours (measured per test, projected by count)": [round(lo * ratio, 2), round(hi * ratio, 2)],
        "wall_s_total": round(wall_s, 1),
        "tests_measured": {s: sum(r["suite"] == s for r in rows.values()) for s in GRASP_SUITES},
    }
    print(json.dumps({k: v for k, v in out.items() if k not in ("runs", "tests", "machine")}, indent=1))
    return out


# Stages of one trial (both videos), from the timers `run_pair` records: label -> the timers summed (see
# `pair_timers`; nested timers are not summed twice: the renderer's own time minus the stages inside it is its
# bookkeeping).
STAGES = {
    "Blender RGB renders + BMP reads": (
        "Blender render, batched (Renderer._animate, per pass)",
        "read_bmp (RGB and segmentation)",
    ),
    "composite / FXAA": ("numpy FXAA (antialias.fxaa)", "dirty: local FXAA + paste (dirty.Compositor.frame_parts)"),
    "ground truth (GPU segmentation + depth)": ("segmentation + depth, GPU pass (GroundTruthPass.draw)",),
    "HDF5 (add_frame + close)": ("HDF5 add_frame (StatesWriter.add_frame)", "HDF5 close (StatesWriter.close)"),
    "encoder, this process (yuv420p, pipe)": (
        "mp4 pipe write (VideoWriter.write)",
        "mp4 close, waits for ffmpeg (VideoWriter.close)",
    ),
    "gate / audit": (
        "gate: states-only build, files, audit per attempt (trial.check_draw)",
        "gate: pixel checks and audit of the rendered files (trial.pixel_rejection)",
    ),
    "fixed: sample/simulate, build, reset": (
        "make_scene: sample, simulate (Suite.make_scene)",
        "build Blender scene (build.build)",
        "factory reset (build.reset)",
    ),
}
RENDERER = "renderer total (Renderer.frames)"
DIRTY_DRAW = "dirty: narrowed Blender renders + BMP reads (DirtyRGB._draw)"


def stage_breakdown(run: dict) -> dict[str, float]:
    """One `run_pair` result as CPU s per stage. On the dirty path the narrowed renders (`DirtyRGB._draw`, which
    holds its `_animate` calls and BMP reads) replace the batched-render and read_bmp timers; the renderer's
    remaining time (state apply outside a render, the dirty rectangles, the frame cache) is its own row; x264 is
    ffmpeg's CPU (the children's); what no timer holds (Python between stages, the runner) is the last row."""
    tm = {k: v["cpu_s"] for k, v in run["timers"].items()}
    out = {k: sum(tm.get(x, 0.0) for x in keys) for k, keys in STAGES.items()}
    if tm.get(DIRTY_DRAW, 0.0) > 0:
        out["Blender RGB renders + BMP reads"] = tm[DIRTY_DRAW]
    inside = sum(out[k] for k in list(STAGES)[:3])
    out["renderer bookkeeping (apply, rectangles, cache)"] = tm.get(RENDERER, 0.0) - inside
    out["encoder, ffmpeg/x264 (child CPU)"] = run["children_cpu_s (ffmpeg)"]
    out["untimed rest"] = run["cpu_s"] - sum(out.values())
    out["total"] = run["cpu_s"]
    return {k: round(v, 2) for k, v in out.items()}


def cmd_breakdown(args) -> dict:
    """Per-stage CPU s of one trial per test and path, from `grasp` runs' JSON (each test in a process of its
    own, as `grasp --tests T --json F` makes it): a markdown table per test (today's path, the dirty path, their
    difference) and the stages' JSON."""
    out: dict = {"machine": machine(), "from": args.runs.split(","), "tests": {}}
    lines = []
    for path in args.runs.split(","):
        with open(path) as f:
            got = json.load(f)
        for test, runs in got["runs"].items():
            names = list(runs)
            rows = {n: stage_breakdown(runs[n]) for n in names}
            out["tests"][test] = {"stages": rows, "load": {n: runs[n]["load"] for n in names}, "from": path}
            a, b = names
            lines.append(f"\n{test} (CPU s; load {runs[a]['load']} / {runs[b]['load']})\n")
            lines.append(f"| stage | {a} | {b} | difference |\n|---|---|---|---|")
            for k in rows[a]:
                lines.append(f"| {k} | {rows[a][k]:.2f} | {rows[b][k]:.2f} | {rows[b][k] - rows[a][k]:+.2f} |")
    text = "\n".join(lines)
    print(text)
    if args.table:
        with open(args.table, "w") as f:
            f.write(text.lstrip() + "\n")
    return out


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
    c.add_argument("--suite", default="grasp-l2", help="grasp-l2 or avoe (with --seconds 2.0833 --fps 24)")
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
    p.add_argument("--paths", default="", help=f"comma-separated, of {','.join(PAIR_PATHS)} (default: all)")
    p.add_argument("--json")
    v = sub.add_parser("avoe")
    v.add_argument("--tests", default="A1,A2,B1,B2,C1,C2,D1,D2,D3,E1,E2,E3")
    v.add_argument("--json")
    x = sub.add_parser("hdf5")
    x.add_argument("--test", default="t15_support_pin")
    x.add_argument("--size", default="640x480")
    x.add_argument("--states", type=int, default=40)
    x.add_argument("--seconds", type=float, default=10.0)
    x.add_argument("--fps", type=float, default=50.0)
    x.add_argument("--repeats", type=int, default=3)
    x.add_argument("--json")
    f = sub.add_parser("fxaa-reach")
    f.add_argument("--cases", default="t15,t08,A1,E1", help=f"comma-separated, of {','.join(CASES)}")
    pa = sub.add_parser("parts")
    pa.add_argument("--cases", default="t15,t05,t13,D1", help=f"comma-separated, of {','.join(CASES)}")
    pa.add_argument("--repeats", type=int, default=3)
    pa.add_argument("--json")
    f.add_argument("--json")
    sh = sub.add_parser("shares", help="share of the image drawn per state: union vs rectangles apart (geometry only)")
    sh.add_argument("--json")
    sl = sub.add_parser("slabs", help="a trial with and without slabs, interleaved, and today's (7th step)")
    sl.add_argument("--tests", default="t07_permanence_drawbridge,t12_continuity_tray")
    sl.add_argument("--repeats", type=int, default=2)
    sl.add_argument("--json")
    ld = sub.add_parser("leads", help="geometry only: slabs against none, and second-video backgrounds (7th step)")
    ld.add_argument("--tests", default="")
    ld.add_argument("--json")
    oc = sub.add_parser("occlude", help="pieces hidden behind solid static boxes, with and without (8th step)")
    oc.add_argument("--tests", default="", help=f"comma-separated (timing default: {OCCLUDE_TESTS})")
    oc.add_argument("--repeats", type=int, default=2)
    oc.add_argument("--today", action="store_true", help="also today's 320x240 path once per repeat")
    oc.add_argument("--geometry", action="store_true", help="pixels drawn only, every GRASP test (--tests: some)")
    oc.add_argument("--json")
    sd = sub.add_parser("slide", help="geometry only: shadows bounded between receivers' faces, or not (9th step)")
    sd.add_argument("--suite", choices=("grasp", "avoe", "all"), default="all")
    sd.add_argument("--tests", default="", help="comma-separated (default: every test of the suites asked)")
    sd.add_argument("--json")
    hd = sub.add_parser("hdf5-deflate", help="HDF5 bands deflated by zlib and by ISA-L, interleaved (9th step)")
    hd.add_argument("--cases", default=",".join(HDF5_DEFLATE_CASES), help="comma-separated, of: %(default)s")
    hd.add_argument("--repeats", type=int, default=4)
    hd.add_argument("--json")
    rc = sub.add_parser("rect-cost")
    rc.add_argument("--states", type=int, default=12)
    rc.add_argument("--repeats", type=int, default=3)
    rc.add_argument("--json")
    e = sub.add_parser("encode", help="where the mp4 encoder's CPU goes (issue 29, fifth step)")
    e.add_argument("--suite", default="grasp-l2")
    e.add_argument("--test", default="t15_support_pin")
    e.add_argument("--size", default="640x480")
    e.add_argument("--path", default="dirty", help="render path of the frames: full or dirty")
    e.add_argument("--seconds", type=float, default=10.0)
    e.add_argument("--fps", type=float, default=50.0)
    e.add_argument("--repeats", type=int, default=3)
    e.add_argument("--json")
    g = sub.add_parser("grasp", help="every GRASP L1 + L2 test, one trial per path, weighted by default counts")
    g.add_argument("--paths", default="today_320x240,dirty_640x480", help=f"two of {','.join(PAIR_PATHS)}")
    g.add_argument("--tests", default="", help="comma-separated (default: every Level 1 and Level 2 test)")
    g.add_argument("--seconds", type=float, default=0.0, help="video length (default: the suite's, 10 s)")
    g.add_argument("--fps", type=float, default=0.0, help="frame rate (default: the suite's, 50)")
    g.add_argument("--today-core-hours", default="5.9-6.2", help="today's 320x240 projection, LO-HI")
    g.add_argument("--merge", default="", help="comma-separated JSON files of earlier grasp runs: summed, no run")
    g.add_argument("--json")
    b = sub.add_parser("breakdown", help="per-stage CPU s of grasp runs' trials (issue 29, sixth step)")
    b.add_argument("--runs", required=True, help="comma-separated JSON files of `grasp` runs")
    b.add_argument("--table", help="write the markdown tables here")
    b.add_argument("--json")
    args = ap.parse_args()
    commands = {"measure": cmd_measure, "pair": cmd_pair, "check": cmd_check, "hdf5": cmd_hdf5, "avoe": cmd_avoe}
    commands["fxaa-reach"] = cmd_fxaa_reach
    commands["rect-cost"] = cmd_rect_cost
    commands["parts"] = cmd_parts
    commands["shares"] = cmd_shares
    commands["encode"] = cmd_encode
    commands["grasp"] = cmd_grasp
    commands["breakdown"] = cmd_breakdown
    commands["leads"] = cmd_leads
    commands["slabs"] = cmd_slabs
    commands["occlude"] = cmd_occlude
    commands["slide"] = cmd_slide
    commands["hdf5-deflate"] = cmd_hdf5_deflate
    out = commands[args.cmd](args)
    out["machine"]["loadavg_end"] = os.getloadavg()
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
