"""Plan, produce and record a rendered set: resumable, atomic, the same bytes whatever the workers or shards.

- Every video is a `Job` whose seed comes from (base seed, suite, test, index), so any video can be made
  alone, in any process, in any order.
- Files are written under a temporary name and renamed when complete; a finished video is never redone
  (delete it, or let `voebench verify --repair` delete broken ones, to have it made again).
- Workers are warm: one process imports bpy once and renders many videos.
- `manifest.jsonl` gets one line per finished video as soon as it is done and is rewritten sorted at the end;
  a shard writes `manifest-shard-I-of-N.jsonl` instead, and `merge` combines shards.
"""

from __future__ import annotations

import json
import os
import time
import traceback
from dataclasses import dataclass, field


from voebench import __version__
from voebench.errors import UsageError
from voebench.generator.params import Params, Space
from voebench.generator.output import (  # noqa: F401  (re-exported: the output folder's API lived here)
    entry_from_h5, is_done, manifest_name, merge, mp4_complete, prepare_output, read_manifest, write_json_atomic,
    write_manifest)
from voebench.generator.fingerprint import code_identity, h5_attrs
from voebench.generator.suite import Job, Suite, Timing
from voebench.contract.manifest import trim_truncated_tail

PASSES = ("rgb", "depth", "segmentation")


@dataclass
class RunConfig:
    out: str
    suite: str
    tests: list
    trials: int
    base_seed: int = 0
    seconds: float = 10.0
    fps: float = 50.0
    width: int = 320
    height: int = 240
    engine: str = "workbench"
    samples: int = 32
    device: str = "cpu"
    passes: tuple = PASSES
    overrides: dict = field(default_factory=dict)  # test -> {dotted key: value}
    options: dict = field(default_factory=dict)  # suite-specific switches (e.g. AVoE both_conditions)
    workers: int = 1
    threads: int = 0  # llvmpipe threads per worker; 0 = cores // workers
    shard: tuple = (0, 1)
    reuse_frames: bool = True

    @property
    def timing(self) -> Timing:
        return Timing(self.seconds, self.fps)

    def identity(self, suite: Suite) -> dict:
        """What makes two runs the same dataset (everything but counts, workers and shards)."""
        return {
            "generator_version": __version__, "suite": self.suite, "base_seed": self.base_seed,
            "seconds": self.seconds, "fps": self.fps, "width": self.width, "height": self.height,
            "engine": self.engine, "samples": self.samples if self.engine != "workbench" else None,
            "passes": list(self.passes), "options": self.options,
            "spaces": {t: effective_space(suite, t, self.overrides).describe() for t in suite.tests},
            "code": code_identity(suite),  # resuming with other code would mix two generators' videos
        }


def effective_space(suite: Suite, test: str, overrides: dict) -> Space:
    return suite.space(test).override(overrides.get(test, {}), where=f"{suite.name}/{test}: ")


# ------------------------------------------------------------------------------------------------ planning


def plan(cfg: RunConfig, suite: Suite) -> list[Job]:
    """All jobs of the run in canonical order, this shard's share only. Trials (both videos of a pair)
    are dealt to shards round-robin, so shards are disjoint and their union is the whole set."""
    jobs, trial_no = [], 0
    shard, n_shards = cfg.shard
    for test in cfg.tests:
        space = effective_space(suite, test, cfg.overrides)
        for index in range(cfg.trials):
            mine = trial_no % n_shards == shard
            trial_no += 1
            if not mine:
                continue
            seed, p = suite.sample(test, space, cfg.base_seed, index)
            pair_id = f"{suite.name}/{test}/{index:05d}" if suite.paired() else None
            for condition in suite.conditions(test, p, {**cfg.options, "seed": seed}):
                jobs.append(Job(suite.name, test, index, condition, seed, pair_id))
    return jobs


# ------------------------------------------------------------------------------------------------ producing

_SUITES: dict = {}


def _suite(name: str) -> Suite:
    if name not in _SUITES:
        from voebench.scenes import REGISTRY

        _SUITES[name] = REGISTRY.get(name)
    return _SUITES[name]


def produce(job: Job, cfg: RunConfig) -> dict:
    """Make one video: sample, build (and simulate), render, write atomically. Returns its manifest entry."""
    from voebench.generator.io.hdf5 import StatesWriter

    t0 = time.perf_counter()
    suite = _suite(cfg.suite)
    space = effective_space(suite, job.test, cfg.overrides)
    seed, p = suite.sample(job.test, space, cfg.base_seed, job.index)
    assert seed == job.seed
    scene = suite.make_scene(job, p, cfg.timing)
    entry = manifest_entry(cfg, suite, job, p, scene, space)
    t_build = time.perf_counter() - t0

    base = os.path.join(cfg.out, job.relpath)
    os.makedirs(os.path.dirname(base), exist_ok=True)
    tmp_h5, tmp_mp4 = f"{base}.h5.tmp-{os.getpid()}", f"{base}.mp4.tmp-{os.getpid()}"
    attrs = {
        "id": job.id, "suite": job.suite, "test": job.test, "index": job.index, "condition": job.condition,
        "pair_id": job.pair_id or "", "seed": job.seed, "fps": cfg.fps, "n_frames": scene.n_frames,
        "width": cfg.width, "height": cfg.height, "engine": cfg.engine, "generator_version": __version__,
        "params": json.dumps(entry["params"]), **h5_attrs(suite, job.test),
    }
    passes = tuple(cfg.passes)
    writer = StatesWriter(tmp_h5, scene, cfg.width, cfg.height, attrs, passes)
    video = None
    n_rendered = 0
    try:
        if passes:
            from voebench.generator.blender.render import Renderer, RenderSettings
            from voebench.generator.io.video import VideoWriter

            renderer = Renderer(scene, RenderSettings(cfg.width, cfg.height, cfg.engine, cfg.samples, cfg.device))
            try:
                if "rgb" in passes:
                    video = VideoWriter(tmp_mp4, cfg.width, cfg.height, cfg.fps)
                for frame in renderer.frames(passes, reuse=cfg.reuse_frames):
                    if video is not None:
                        video.write(frame.rgb)
                    writer.add_frame(frame.index, frame.unique, frame.depth, frame.segmentation)
                    n_rendered += frame.rendered
            finally:
                renderer.close()
            if video is not None:
                video.close()
                video = None
        else:
            for t in range(scene.n_frames):
                writer.add_frame(t, 0, None, None)
        writer.f.attrs["manifest_entry"] = json.dumps(entry)
        writer.f.attrs["complete"] = True
        writer.close(suite.extra_groups(job, p, scene))
        if "rgb" in passes:
            os.replace(tmp_mp4, base + ".mp4")
        os.replace(tmp_h5, base + ".h5")  # last: its presence marks the video as done
    except BaseException:
        writer.abort()
        if video is not None:
            try:
                video.close()
            except Exception:
                pass
        for tmp in (tmp_h5, tmp_mp4):
            if os.path.exists(tmp):
                os.remove(tmp)
        raise
    entry["_timing"] = {"build_s": t_build, "total_s": time.perf_counter() - t0, "frames": scene.n_frames,
                        "rendered_frames": int(n_rendered)}
    return entry


def manifest_entry(cfg: RunConfig, suite: Suite, job: Job, p: Params, scene, space: Space) -> dict:
    entry = {
        "id": job.id, "suite": job.suite, "test": job.test, "index": job.index, "condition": job.condition,
        "pair_id": job.pair_id, "seed": job.seed, "video": job.relpath + ".mp4" if "rgb" in cfg.passes else None,
        "states": job.relpath + ".h5", "n_frames": scene.n_frames, "fps": cfg.fps, "width": cfg.width,
        "height": cfg.height,
    }
    entry.update(suite.entry(job, p, scene))
    entry["violation"] = scene.violation.as_dict() if scene.violation is not None else None
    if job.pair_id is not None:  # which videos make this trial whole (AVoE train trials: `expected` only)
        entry["pair_conditions"] = suite.conditions(job.test, p, {**cfg.options, "seed": job.seed})
    entry["params"] = {"sampled": p, "config": {
        "space": space.describe(), "base_seed": cfg.base_seed,
        "seconds": cfg.seconds, "fps": cfg.fps, "width": cfg.width, "height": cfg.height,
        "engine": cfg.engine, "passes": list(cfg.passes), "options": cfg.options}}
    return entry


def _safe_produce(args):
    job, cfg = args
    try:
        return job, produce(job, cfg), None
    except Exception:
        return job, None, traceback.format_exc()


def _drop_bpy_script_paths() -> None:
    """A spawned worker inherits its parent's sys.path. If the parent had imported bpy, that starts with
    bpy's own script folders, whose `bpy/` package (no `_bpy` in it) shadows the real module: `import bpy`
    failed in every worker and Pool respawned them forever. bpy adds the folders again when it loads."""
    import sys

    marker = os.sep + "bpy" + os.sep
    sys.path[:] = [p for p in sys.path if not (marker in p and os.sep + "scripts" in p)]


def _init_worker(threads: int):
    # llvmpipe (Workbench's rasteriser) reads its thread count once, when bpy loads.
    os.environ["LP_NUM_THREADS"] = str(threads)
    _drop_bpy_script_paths()
    import bpy  # noqa: F401  (warm: imported once per worker, reused for every video)


# ------------------------------------------------------------------------------------------------ running


@dataclass
class RunResult:
    done: int
    skipped: int
    failed: list
    seconds: float
    frames: int
    rendered_frames: int


def run(cfg: RunConfig, progress: bool = True, backend: str = "local", ray_address: str | None = None) -> RunResult:
    from voebench.scenes import REGISTRY

    suite = REGISTRY.get(cfg.suite)
    prepare_output(cfg, suite)
    jobs = plan(cfg, suite)
    todo = [j for j in jobs if not is_done(cfg, j)]
    mpath = os.path.join(cfg.out, manifest_name(cfg))
    entries = read_manifest(mpath)
    for j in jobs:  # finished videos missing from the manifest (run killed between rename and append)
        if j not in todo and j.id not in entries:
            entries[j.id] = entry_from_h5(os.path.join(cfg.out, j.relpath + ".h5"))

    failed, frames, rendered = [], 0, 0
    t0 = time.perf_counter()
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="video", desc=f"{cfg.suite}", dynamic_ncols=True,
                   initial=0, postfix={"skipped": len(jobs) - len(todo)})
    trim_truncated_tail(mpath)  # a line cut short by a kill must not swallow the next one
    with open(mpath, "a") as mf:
        for job, entry, error in execute(todo, cfg, backend, ray_address):
            if error is not None:
                failed.append((job.id, error))
            else:
                timing = entry.pop("_timing")
                frames += timing["frames"]
                rendered += timing["rendered_frames"]
                entries[job.id] = entry
                mf.write(json.dumps(entry) + "\n")
                mf.flush()
            if bar is not None:
                bar.update(1)
                elapsed = time.perf_counter() - t0
                bar.set_postfix({"frames/s": f"{frames / max(elapsed, 1e-9):.0f}", "failed": len(failed)})
    if bar is not None:
        bar.close()
    write_manifest(mpath, entries.values())
    return RunResult(len(todo) - len(failed), len(jobs) - len(todo), failed, time.perf_counter() - t0, frames,
                     rendered)


def default_workers() -> int:
    """One single-threaded worker per core (threads default to cores // workers = 1): the fastest of
    {1x1, 1x2, 2x1} workers x threads measured on the 2-core machine (bench/bench_render.py d;
    docs/performance.md). llvmpipe gains only 1.55x from a second thread, while a second worker also
    overlaps scene building, simulation, HDF5 and encoding."""
    return os.cpu_count() or 1


def execute(jobs: list[Job], cfg: RunConfig, backend: str = "local", ray_address: str | None = None):
    """Yield (job, entry, error) as videos finish. Local: warm worker processes (or this process when
    workers == 1); ray: one Ray task per video."""
    if not jobs:
        return
    if backend == "ray":
        from voebench.generator.distributed import execute_ray

        yield from execute_ray(jobs, cfg, ray_address)
        return
    workers = max(1, min(cfg.workers, len(jobs)))
    threads = cfg.threads or max(1, (os.cpu_count() or 1) // workers)
    if workers == 1:
        if "bpy" not in __import__("sys").modules:
            os.environ["LP_NUM_THREADS"] = str(threads)
        for job in jobs:
            yield _safe_produce((job, cfg))
        return
    yield from _execute_pool(jobs, cfg, workers, threads)


#: how often a video is retried after the worker rendering it died (a Blender crash, an OOM kill)
WORKER_DEATH_RETRIES = 2


def _execute_pool(jobs, cfg, workers, threads):
    """Warm worker processes with at most 2 jobs in flight per worker. A worker that dies does not hang
    the run: the pool is restarted and the videos that were in flight are retried, each at most
    WORKER_DEATH_RETRIES times (whichever of them killed the worker is then reported as failed)."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = mp.get_context("spawn")  # never fork a process that may hold Blender or GL state
    pending = list(reversed(jobs))
    deaths: dict[str, int] = {}
    while pending:
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(threads,)) as pool:
            running = {}
            broken = False
            while (pending or running) and not broken:
                while pending and len(running) < 2 * workers:
                    job = pending.pop()
                    running[pool.submit(_safe_produce, (job, cfg))] = job
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    job = running.pop(fut)
                    try:
                        yield fut.result()
                    except BrokenProcessPool:
                        broken = True
                        running[fut] = job  # retried below with the rest of the in-flight jobs
            if broken:
                for job in running.values():
                    deaths[job.id] = deaths.get(job.id, 0) + 1
                    if deaths[job.id] > WORKER_DEATH_RETRIES:
                        yield job, None, f"the worker process died {deaths[job.id]} times while rendering it"
                    else:
                        pending.append(job)


