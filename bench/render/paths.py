"""Today's render path (Blender's FXAA, one render() per state and pass) against the new one (aliased render +
numpy FXAA, one render(animation=True) per batch, segmentation and depth from the GPU ground-truth pass, frames
shared within a trial), each video produced in this
process under explicit timers, interleaved so that a change in the shared machine's load hits both."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import statistics
import tempfile
import time

from .common import RESULTS, cpu_now, load, log, machine, save
from .timers import GATE_PIXELS, GATE_STATES, pipeline_timers

PATHS = {  # RenderSettings fields per path; "new" is the default
    # Blender's FXAA, one render() call per state and pass, segmentation by a flat Workbench render and depth by the
    # compositor's EXR
    "today": {"antialias": "blender", "batch": 0, "ground_truth": "workbench"},
    # aliased render + numpy FXAA, one render(animation=True) per batch; segmentation and depth drawn by the GPU
    # module in memory; trial-wide cache
    "new": {},
}
#: paths whose generation gate audits with the previous np.einsum forms (generator/solids.py)
REFERENCE_AUDIT = {"today"}


@contextlib.contextmanager
def render_path(path: str, cache=None):
    """Make runner.produce render with `path`'s settings (and this FrameCache), and audit with `path`'s forms, as
    a runner that produces a whole trial in one worker will pass it. runner.produce imports Renderer and
    RenderSettings from the render module when it runs, so patching the module's names reaches it."""
    from voebench.generator.blender import render

    real_settings, real_renderer = render.RenderSettings, render.Renderer
    kw = PATHS[path]

    def settings(*a, **k):
        return real_settings(*a, **{**kw, **k})

    def renderer(scene, settings, *a, **k):
        return real_renderer(scene, settings, *a, **{**k, "cache": cache})  # this path's cache, not the runner's

    from voebench.generator import solids as shapes

    render.RenderSettings, render.Renderer = settings, renderer
    shapes.REFERENCE_FORMS = path in REFERENCE_AUDIT  # the same verdicts and floats; only its CPU differs
    try:
        yield
    finally:
        render.RenderSettings, render.Renderer = real_settings, real_renderer
        shapes.REFERENCE_FORMS = False


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


def trial_of(job, cfg):
    """The trial a job belongs to, with all its videos (as runner.produce_video finds it)."""
    from voebench.generator.runner import effective_space, first_trial
    from voebench.generator.runner import suite_for as _suite

    suite = _suite(cfg.suite, cfg.suite_ref)
    return first_trial(suite, job.test, effective_space(suite, job.test, cfg.overrides), cfg, job.index)


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
    from voebench.generator.runner import produce, produce_video

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
            if item.get("pair"):  # the whole trial, as a run makes it: the gate checks both videos once
                results = [produce(trial_of(jobs[0], cfg), cfg)]
            else:
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
            "gate_cpu_s": timers.cpu[GATE_STATES] + timers.cpu[GATE_PIXELS],
            "attempts": sum(r.attempt + 1 for r in results),
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
        # a whole AVoE trial (both videos): the generation gate's cost per trial, measured on the new path only
        "avoe-pair": dict(
            suite="avoe", test=args.avoe_test, size=(960, 540), seconds=50 / 24, fps=24.0, pair=True, paths=("new",)
        ),
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
                k: statistics.median(r[k] for r in rs)
                for k in ("cpu_s", "wall_s", "renderer_ms_per_blender_frame", "gate_cpu_s")
            }
            summary[path].update(
                distinct=rs[0]["distinct"],
                blender_distinct=rs[0]["blender_distinct"],
                shared=rs[0]["shared"],
                frames=rs[0]["frames"],
                attempts=rs[0]["attempts"],
                videos=len(rs[0]["videos"]),
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
