"""Where trials are made: in this process, in warm local worker processes, or as Ray tasks.

`execute` takes the run's (trial, probe rejection) tasks and yields (trial, TrialResult, error) as trials finish,
whatever the backend. Every backend makes a trial the same way (`produce`: the trial whole, by `trial.produce_trial`)
from the same `RunConfig`, which the parent built once and which arrives in the worker with every test's space
already resolved (`config.py`), so the bytes are the same whatever the backend, the workers or their order.

- inline (one worker): in this process.
- local pool: warm worker processes, spawned once (bpy imported once per process), at most 2 trials in flight
  per worker; a worker that dies does not hang the run (the trials in flight are retried, WORKER_DEATH_RETRIES
  times each).
- Ray (`--backend ray`): one Ray task per trial, each running `ray_task`; the cluster side (a private local
  instance, resources, retries) is `distributed.py`'s.

A worker process keeps the suites it loaded (`suite_for`): a suite registered only in the caller is loaded by
its reference (`RunConfig.suite_ref`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import os
import sys
import traceback
from collections.abc import Iterable, Iterator

from voebench.parent_death import die_with_parent
from voebench.generator.config import RunConfig
from voebench.generator.suite import Job, Suite, load_suite, register_suite
from voebench.generator.trial import Rejection, Trial, TrialFailed, TrialResult, first_trial, produce_trial

#: what a worker is given: a trial and the feasibility probe's rejection of its first draw (or None)
Task = tuple[Trial, Rejection | None]
#: what a worker gives back: the trial, and its result or the error that stopped it
Outcome = tuple[Trial, TrialResult | None, str | None]

#: how often a trial is retried after the worker making it died (a Blender crash, an OOM kill)
WORKER_DEATH_RETRIES = 2

_SUITES: dict[str, Suite] = {}


def suite_for(name: str, ref: str | None = None) -> Suite:
    """The suite `name`, loaded once per process (by `ref`, "module:Class", when it is not registered here)."""
    if name not in _SUITES:
        if ref is not None:
            register_suite(name, ref)
        _SUITES[name] = load_suite(name)
    return _SUITES[name]


def default_workers() -> int:
    """One single-threaded worker per core (threads default to cores // workers = 1): the fastest of
    {1x1, 1x2, 2x1} workers x threads measured on the 2-core machine (bench/bench_render.py d;
    docs/performance.md). llvmpipe gains only 1.55x from a second thread, while a second worker also
    overlaps scene building, simulation, HDF5 and encoding."""
    return os.cpu_count() or 1


# ------------------------------------------------------------------------------------------------ in a worker


def produce(trial: Trial, cfg: RunConfig, known_rejection: Rejection | None = None) -> TrialResult:
    """Make one trial (every video of it), valid by construction: see `generator/trial.py`."""
    suite = suite_for(cfg.suite, cfg.suite_ref)
    return produce_trial(trial, cfg, suite, cfg.space(suite, trial.test), known_rejection)


def produce_video(job: Job, cfg: RunConfig) -> TrialResult:
    """One video of a trial, gated on its own: the trial restricted to this video's condition (benchmarks that
    time a single video; a run always makes whole trials)."""
    suite = suite_for(cfg.suite, cfg.suite_ref)
    trial = first_trial(suite, job.test, cfg.space(suite, job.test), cfg, job.index)
    return produce(dataclasses.replace(trial, only=job.condition), cfg)


def safe_produce(task: Task, cfg: RunConfig) -> Outcome:
    """`produce`, with any error of the trial returned as its recorded failure instead of ending the worker."""
    trial, known_rejection = task
    try:
        return trial, produce(trial, cfg, known_rejection), None
    except TrialFailed as e:
        return trial, None, f"{e}"
    except Exception:  # noqa: BLE001 (any error of one trial is a recorded failure, not the worker's death)
        return trial, None, traceback.format_exc()


def drop_bpy_script_paths() -> None:
    """A spawned worker inherits its parent's sys.path. If the parent had imported bpy, that starts with
    bpy's own script folders, whose `bpy/` package (no `_bpy` in it) shadows the real module: `import bpy`
    failed in every worker and Pool respawned them forever. bpy adds the folders again when it loads."""
    marker = os.sep + "bpy" + os.sep
    sys.path[:] = [p for p in sys.path if not (marker in p and os.sep + "scripts" in p)]


def init_worker(threads: int, parent_pid: int) -> None:
    """Start a local pool's worker process: it dies with the run, and imports bpy once, with llvmpipe's thread
    count set first."""
    # a render worker must not outlive the run that started it (kill -9 of `voebench render`)
    die_with_parent(parent_pid)
    # llvmpipe (Workbench's rasteriser) reads its thread count once, when bpy loads.
    os.environ["LP_NUM_THREADS"] = str(threads)
    drop_bpy_script_paths()
    from voebench.generator.blender import warm_up

    warm_up()


def ray_task(task: Task, cfg: RunConfig, threads: int) -> Outcome:
    """One trial in a Ray worker. Ray keeps its worker processes, so bpy is imported once per worker; a task
    retried after its worker died first removes the temporary files that worker left."""
    if "bpy" not in sys.modules:
        os.environ["LP_NUM_THREADS"] = str(threads)
        drop_bpy_script_paths()
    crash_dir = os.environ.get("VOEBENCH_RAY_CRASH_ONCE")  # fault injection for tests: one worker dies once
    if crash_dir:
        try:
            os.close(os.open(os.path.join(crash_dir, "crashed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            os._exit(1)
        except FileExistsError:
            pass
    for job in task[0].jobs:
        base = os.path.join(cfg.out, job.relpath)
        for stale in glob.glob(base + ".*.tmp-*"):  # left by an earlier attempt whose worker died
            with contextlib.suppress(OSError):
                os.remove(stale)
    return safe_produce(task, cfg)


# ------------------------------------------------------------------------------------------------ dispatching


def execute(
    tasks: list[Task], cfg: RunConfig, backend: str = "local", ray_address: str | None = None
) -> Iterator[Outcome]:
    """Yield (trial, TrialResult, error) as trials finish. Local: warm worker processes (or this process when
    workers == 1); ray: one Ray task per trial."""
    if not tasks:
        return
    if backend == "ray":
        from voebench.generator.distributed import execute_ray

        yield from execute_ray(ray_task, tasks, cfg, ray_address)
        return
    workers = max(1, min(cfg.workers, len(tasks)))
    threads = cfg.threads or max(1, (os.cpu_count() or 1) // workers)
    if workers == 1:
        if "bpy" not in sys.modules:
            os.environ["LP_NUM_THREADS"] = str(threads)
        for task in tasks:
            yield safe_produce(task, cfg)
        return
    yield from execute_pool(tasks, cfg, workers, threads)


def execute_pool(tasks: Iterable[Task], cfg: RunConfig, workers: int, threads: int) -> Iterator[Outcome]:
    """Warm worker processes with at most 2 trials in flight per worker. A worker that dies does not hang
    the run: the pool is restarted and the trials that were in flight are retried, each at most
    WORKER_DEATH_RETRIES times (whichever of them killed the worker is then reported as failed)."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    ctx = mp.get_context("spawn")  # never fork a process that may hold Blender or GL state
    pending = list(reversed(list(tasks)))
    deaths: dict[str, int] = {}
    while pending:
        init_args = (threads, os.getpid())  # the workers die with this process (src/voebench/parent_death.py)
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=init_worker, initargs=init_args) as pool:
            running: dict[Future, Task] = {}
            broken = False
            while (pending or running) and not broken:
                while pending and len(running) < 2 * workers:
                    task = pending.pop()
                    running[pool.submit(safe_produce, task, cfg)] = task
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
