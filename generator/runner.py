"""Plan, produce and record a rendered set: resumable, atomic, the same bytes whatever the workers or shards.

- Every trial (one video, or the videos of a pair) has a seed from (base seed, suite, test, index), so any
  trial can be made alone, in any process, in any order; one worker makes a trial whole (`generator/trial.py`:
  drawn, built, audited, rendered, renamed into place), so a pair is written both or neither.
- Before anything is written, `feasibility.check_feasible` refuses a test whose space the run's settings leave
  (almost) no valid draw in.
- Files are written under a temporary name and renamed when complete; a finished trial is never redone
  (delete it, or let `voebench verify --repair` delete broken ones, to have it made again).
- The configuration (`config.RunConfig`, every test's space resolved once) is built here, in the parent, and
  sent whole to the workers (`generator/workers.py`: this process, warm local worker processes, or Ray tasks).
- Workers are warm: one process imports bpy once and renders many trials.
- `manifest.jsonl` gets one line per finished video as soon as it is done and is rewritten sorted at the end;
  a shard writes `manifest-shard-I-of-N.jsonl` instead, and `merge` combines shards.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass, field

from voebench.contract.manifest import trim_truncated_tail
from voebench.generator.config import PASSES, RunConfig, effective_space  # noqa: F401  (re-exported)
from voebench.generator.feasibility import check_feasible
from voebench.generator.output import (  # noqa: F401  (re-exported: the output folder's API lived here)
    entry_from_h5,
    is_done,
    manifest_name,
    merge,
    mp4_complete,
    prepare_output,
    read_manifest,
    record_acceptance,
    write_json_atomic,
    write_manifest,
)
from voebench.generator.streams import trial_indices
from voebench.generator.suite import SUITE_REFS, Job, Suite
from voebench.generator.trial import Trial, first_trial
from voebench.generator.workers import (  # noqa: F401  (re-exported: making trials lived here)
    default_workers,
    execute,
    init_worker,
    produce,
    produce_video,
    suite_for,
)

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
        space = cfg.space(suite, test)
        for index in indices[test]:
            mine = trial_no % n_shards == shard
            trial_no += 1
            if not mine:
                continue
            trial = first_trial(suite, test, space, cfg, index)
            if trial.conditions:
                trials.append(trial)
    return trials


def plan(cfg: RunConfig, suite: Suite) -> list[Job]:
    """Every video of the run (the jobs of `plan_trials`), in canonical order."""
    return [job for trial in plan_trials(cfg, suite) for job in trial.jobs]


def trial_done(cfg: RunConfig, trial: Trial) -> bool:
    """A trial is done when every one of its videos is (a kill between two renames leaves a partial pair,
    which is made again whole: the same bytes)."""
    return all(is_done(cfg, job) for job in trial.jobs)


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
    `upgrade`, the tests whose code changed since the folder was made are remade (`prepare_output`). The
    configuration is completed here, once (the suite's reference, every test's space resolved), and sent as it
    is to every worker."""
    suite = suite_for(cfg.suite)
    cfg = dataclasses.replace(cfg, suite_ref=SUITE_REFS[cfg.suite]).resolve(suite)  # (the command line's: resolved)
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
            if error is not None or result is None:
                failures.add(trial.id, error or "no result")
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
