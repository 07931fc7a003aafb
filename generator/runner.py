"""Plan, produce and record a rendered set: resumable, atomic, the same bytes whatever the workers or shards.

- Every trial (one video, or the videos of a pair) has a seed from (base seed, suite, test, index), so any
  trial can be made alone, in any process, in any order; one worker makes a trial whole (`generator/trial.py`:
  drawn, built, audited, rendered, renamed into place), so a pair is written both or neither.
- Before anything is written, `feasibility.check_feasible` refuses a test whose space the run's settings leave
  (almost) no valid draw in.
- Files are written under a temporary name and renamed when complete; a finished trial is never redone
  (delete it, or let `voebench verify --repair` delete broken ones, to have it made again).
- Workers are warm: one process imports bpy once and renders many trials.
- `manifest.jsonl` gets one line per finished video as soon as it is done and is rewritten sorted at the end;
  a shard writes `manifest-shard-I-of-N.jsonl` instead, and `merge` combines shards.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
import traceback
from dataclasses import dataclass, field


from voebench import __version__
from voebench.errors import Infeasible
from voebench.parent_death import die_with_parent
from voebench.generator.params import Space
from voebench.generator.output import (  # noqa: F401  (re-exported: the output folder's API lived here)
    entry_from_h5,
    is_done,
    manifest_name,
    merge,
    mp4_complete,
    prepare_output,
    read_manifest,
    write_json_atomic,
    write_manifest,
)
from voebench.generator.suite import SUITE_REFS, Job, Suite, Timing, load_suite, register_suite
from voebench.generator.feasibility import check_feasible, record_acceptance
from voebench.generator.streams import trial_indices
from voebench.generator.trial import Trial, TrialFailed, TrialResult, produce_trial
from voebench.generator.fingerprint import code_identity, h5_attrs  # noqa: F401
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
    #: where the suite lives ("module:Class"), so worker processes load a suite registered only in the caller
    suite_ref: str | None = None
    #: graded sweeps (issue 24): test -> (its Level leaf's key, the nonzero levels ascending)
    sweep: dict = field(default_factory=dict)

    @property
    def timing(self) -> Timing:
        return Timing(self.seconds, self.fps)

    def identity(self, suite: Suite) -> dict:
        """What makes two runs the same dataset (everything but counts, workers and shards)."""
        return {
            "generator_version": __version__,
            "suite": self.suite,
            "base_seed": self.base_seed,
            "seconds": self.seconds,
            "fps": self.fps,
            "width": self.width,
            "height": self.height,
            "engine": self.engine,
            "samples": self.samples if self.engine != "workbench" else None,
            "passes": list(self.passes),
            "options": self.options,
            **({"sweep": self.sweep_identity()} if self.sweep else {}),
            "spaces": {t: effective_space(suite, t, self.overrides).describe() for t in suite.tests},
            "code": code_identity(suite),  # resuming with other code would mix two generators' videos
        }

    def sweep_identity(self) -> dict:
        return {t: {"key": k, "levels": list(v)} for t, (k, v) in sorted(self.sweep.items())}


def effective_space(suite: Suite, test: str, overrides: dict) -> Space:
    return suite.space(test).override(overrides.get(test, {}), where=f"{suite.name}/{test}: ")


# ------------------------------------------------------------------------------------------------ planning


def plan_trials(cfg: RunConfig, suite: Suite, indices: dict | None = None) -> list[Trial]:
    """All trials of the run in canonical order, this shard's share only. Trials are dealt to shards
    round-robin, so shards are disjoint and their union is the whole set. A trial's conditions come from its
    first draw (AVoE: a category's trial belongs to the sub-type its first draw shows; none = not this test's).
    `indices`: each test's trial indices (`streams.trial_indices`, computed here when not given): the first
    `cfg.trials`, or for tests asked apart from others of their stream the first `cfg.trials` that are theirs."""
    trials, trial_no = [], 0
    shard, n_shards = cfg.shard
    indices = trial_indices(cfg, suite) if indices is None else indices
    for test in cfg.tests:
        space = effective_space(suite, test, cfg.overrides)
        for index in indices[test]:
            mine = trial_no % n_shards == shard
            trial_no += 1
            if not mine:
                continue
            trial = first_trial(suite, test, space, cfg, index)
            if trial.conditions:
                trials.append(trial)
    return trials


def first_trial(suite: Suite, test: str, space: Space, cfg: RunConfig, index: int) -> Trial:
    seed = suite.trial_seed(test, cfg.base_seed, index)
    p = suite.draw(test, space, seed, index)
    try:
        conditions = tuple(suite.conditions(test, p, {**cfg.options, "seed": seed}))
    except Infeasible:
        if suite.paired():
            raise
        conditions = ("",)  # one video, labelled by the draw the gate keeps
    trial = Trial(suite.name, test, index, seed, conditions, suite.paired())
    if test in cfg.sweep:
        key, levels = cfg.sweep[test]
        trial = dataclasses.replace(trial, levels=tuple(levels), level_key=key, violated=suite.violated_condition)
    return trial


def plan(cfg: RunConfig, suite: Suite) -> list[Job]:
    """Every video of the run (the jobs of `plan_trials`), in canonical order."""
    return [job for trial in plan_trials(cfg, suite) for job in trial.jobs]


def trial_done(cfg: RunConfig, trial: Trial) -> bool:
    """A trial is done when every one of its videos is (a kill between two renames leaves a partial pair,
    which is made again whole: the same bytes)."""
    return all(is_done(cfg, job) for job in trial.jobs)


# ------------------------------------------------------------------------------------------------ producing

_SUITES: dict = {}


def _suite(name: str, ref: str | None = None) -> Suite:
    if name not in _SUITES:
        if ref is not None:
            register_suite(name, ref)
        _SUITES[name] = load_suite(name)
    return _SUITES[name]


def produce(trial: Trial, cfg: RunConfig, known_rejection=None) -> TrialResult:
    """Make one trial (every video of it), valid by construction: see `generator/trial.py`."""
    suite = _suite(cfg.suite, cfg.suite_ref)
    return produce_trial(trial, cfg, suite, effective_space(suite, trial.test, cfg.overrides), known_rejection)


def produce_video(job: Job, cfg: RunConfig) -> TrialResult:
    """One video of a trial, gated on its own: the trial restricted to this video's condition (benchmarks that
    time a single video; a run always makes whole trials)."""
    suite = _suite(cfg.suite, cfg.suite_ref)
    trial = first_trial(suite, job.test, effective_space(suite, job.test, cfg.overrides), cfg, job.index)
    return produce(dataclasses.replace(trial, only=job.condition), cfg)


def _safe_produce(args):
    trial, cfg, known_rejection = args
    try:
        return trial, produce(trial, cfg, known_rejection), None
    except TrialFailed as e:
        return trial, None, f"{e}"
    except Exception:  # noqa: BLE001 (any error of one trial is a recorded failure, not the worker's death)
        return trial, None, traceback.format_exc()


def _drop_bpy_script_paths() -> None:
    """A spawned worker inherits its parent's sys.path. If the parent had imported bpy, that starts with
    bpy's own script folders, whose `bpy/` package (no `_bpy` in it) shadows the real module: `import bpy`
    failed in every worker and Pool respawned them forever. bpy adds the folders again when it loads."""
    import sys

    marker = os.sep + "bpy" + os.sep
    sys.path[:] = [p for p in sys.path if not (marker in p and os.sep + "scripts" in p)]


def _init_worker(threads: int, parent_pid: int):
    # a render worker must not outlive the run that started it (kill -9 of `voebench render`)
    die_with_parent(parent_pid)
    # llvmpipe (Workbench's rasteriser) reads its thread count once, when bpy loads.
    os.environ["LP_NUM_THREADS"] = str(threads)
    _drop_bpy_script_paths()
    from voebench.generator.blender import warm_up

    warm_up()


# ------------------------------------------------------------------------------------------------ running


@dataclass
class RunResult:
    done: int
    skipped: int
    failed: list
    seconds: float
    frames: int
    rendered_frames: int
    #: selected tests that got no trial (an AVoE sub-type none of its category's first N trials shows, or none
    #: of the N trials of the sub-types asked together with it)
    empty_tests: list = field(default_factory=list)


def run(
    cfg: RunConfig, progress: bool = True, backend: str = "local", ray_address: str | None = None, upgrade: bool = False
) -> RunResult:
    """Refuse what cannot be honoured, then make every trial not yet done; returns counts of videos. With
    `upgrade`, the tests whose code changed since the folder was made are remade (`prepare_output`)."""
    suite = _suite(cfg.suite)
    cfg = dataclasses.replace(cfg, suite_ref=SUITE_REFS[cfg.suite])
    indices = trial_indices(cfg, suite)  # raises UsageError for an asked test the settings exclude
    probes = check_feasible(suite, cfg)  # raises UsageError before any file is touched
    prepare_output(cfg, suite, upgrade=upgrade)
    trials = plan_trials(cfg, suite, indices)
    todo = [t for t in trials if not trial_done(cfg, t)]
    mpath = os.path.join(cfg.out, manifest_name(cfg))
    entries = read_manifest(mpath)
    for t in trials:  # finished videos missing from the manifest (run killed between rename and append)
        if t not in todo:
            for j in t.jobs:
                if j.id not in entries:
                    entries[j.id] = entry_from_h5(os.path.join(cfg.out, j.relpath + ".h5"))
    n_videos = sum(len(t.jobs) for t in trials)
    n_todo = sum(len(t.jobs) for t in todo)

    from voebench.generator.progress import FailureLog, Progress

    frames, rendered = 0, 0
    t0 = time.perf_counter()
    bar = Progress(n_todo, cfg.suite, skipped=n_videos - n_todo, enabled=progress)
    failures = FailureLog(cfg.out, say=bar.write)
    tasks = [(t, probes.known_rejection(t)) for t in todo]
    trim_truncated_tail(mpath)  # a line cut short by a kill must not swallow the next one
    with open(mpath, "a") as mf:
        for trial, result, error in execute(tasks, cfg, backend, ray_address):
            if error is not None:
                failures.add(trial.id, error)
                bar.update(len(trial.jobs), failed=True)
            else:
                frames += result.frames
                rendered += result.rendered_frames
                for entry in result.entries:
                    entries[entry["id"]] = entry
                    mf.write(json.dumps(entry) + "\n")
                mf.flush()
                bar.update(len(trial.jobs), frames=result.frames)
    bar.close()
    failed = failures.failures
    write_manifest(mpath, entries.values())
    record_acceptance(cfg, entries.values())
    failed_videos = sum(len(t.jobs) for t in todo if t.id in {tid for tid, _ in failed})
    empty = [t for t in cfg.tests if not any(tr.test == t for tr in trials)] if cfg.shard[1] == 1 else []
    return RunResult(
        n_todo - failed_videos, n_videos - n_todo, failed, time.perf_counter() - t0, frames, rendered, empty
    )


def default_workers() -> int:
    """One single-threaded worker per core (threads default to cores // workers = 1): the fastest of
    {1x1, 1x2, 2x1} workers x threads measured on the 2-core machine (bench/bench_render.py d;
    docs/performance.md). llvmpipe gains only 1.55x from a second thread, while a second worker also
    overlaps scene building, simulation, HDF5 and encoding."""
    return os.cpu_count() or 1


def execute(tasks: list, cfg: RunConfig, backend: str = "local", ray_address: str | None = None):
    """Yield (trial, TrialResult, error) as trials finish; `tasks` are (trial, the
    probe's rejection of its first draw or None). Local: warm
    worker processes (or this process when workers == 1); ray: one Ray task per trial."""
    if not tasks:
        return
    if backend == "ray":
        from voebench.generator.distributed import execute_ray

        yield from execute_ray(tasks, cfg, ray_address)
        return
    workers = max(1, min(cfg.workers, len(tasks)))
    threads = cfg.threads or max(1, (os.cpu_count() or 1) // workers)
    if workers == 1:
        if "bpy" not in sys.modules:
            os.environ["LP_NUM_THREADS"] = str(threads)
        for trial, known in tasks:
            yield _safe_produce((trial, cfg, known))
        return
    yield from _execute_pool(tasks, cfg, workers, threads)


#: how often a trial is retried after the worker making it died (a Blender crash, an OOM kill)
WORKER_DEATH_RETRIES = 2


def _execute_pool(tasks, cfg, workers, threads):
    """Warm worker processes with at most 2 trials in flight per worker. A worker that dies does not hang
    the run: the pool is restarted and the trials that were in flight are retried, each at most
    WORKER_DEATH_RETRIES times (whichever of them killed the worker is then reported as failed)."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = mp.get_context("spawn")  # never fork a process that may hold Blender or GL state
    pending = list(reversed(tasks))
    deaths: dict[str, int] = {}
    while pending:
        init_args = (threads, os.getpid())  # the workers die with this process (voebench/parent_death.py)
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=init_args) as pool:
            running: dict = {}
            broken = False
            while (pending or running) and not broken:
                while pending and len(running) < 2 * workers:
                    task = pending.pop()
                    running[pool.submit(_safe_produce, (task[0], cfg, task[1]))] = task
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    task = running.pop(fut)
                    try:
                        yield fut.result()
                    except BrokenProcessPool:
                        broken = True
                        running[fut] = task  # retried below with the rest of the in-flight trials
            if broken:
                for task in running.values():
                    trial = task[0]
                    deaths[trial.id] = deaths.get(trial.id, 0) + 1
                    if deaths[trial.id] > WORKER_DEATH_RETRIES:
                        yield trial, None, f"the worker process died {deaths[trial.id]} times while making it"
                    else:
                        pending.append(task)
