"""One video produced in this process, timed (and profiled with the explicit timers), and the same video with
frame reuse against without it, with a check that both write the same bytes a user reads."""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time

import numpy as np

from .common import WARM, cpu_now, load, log
from .timers import FrameClock, pipeline_timers


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
