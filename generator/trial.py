"""One trial, made valid by construction: draw, build, check, and only then keep its files.

A *trial* is what one sampled parameter set becomes: one video (GRASP Level 1) or the videos of a pair (Level 2:
plausible + implausible; AVoE: expected, plus surprising outside the training split). A trial is produced by one
worker as a whole:

    for attempt k = 0, 1, ...:                       (k's seed derives from the trial's seed: `attempt_seed`)
        p = the space's draw for attempt k
        build every condition's scene from p         a scene raises `Infeasible` for a draw it cannot honour
        write states-only files, audit them           the project's own audit: physics, the violation, the pair
        check the suite's statements                  (Level 1: every statement true of the ground truth)
        render every condition to temporary files
        audit the rendered files where pixels matter  (a hidden edit shows no pixel)
        rename all files into place                   mp4s first, HDF5s last (an HDF5 marks a video done)
    -> the first attempt that passes everything; a trial with no such attempt in MAX_ATTEMPTS fails whole.

Every step is deterministic, so the attempt that is kept, and so every byte, is the same whatever the workers,
shards or resumes. The attempt and the reasons earlier draws were rejected are recorded in the manifest entry
and the HDF5 (`attempt`, `rejected`), and per test in `dataset.json` (`acceptance`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from voebench import __version__
from voebench.errors import Infeasible
from voebench.generator.audit import audit_trial
from voebench.generator.config import RunConfig
from voebench.generator.fingerprint import h5_attrs
from voebench.generator.frame_cache import FrameCache
from voebench.generator.params import Params, Space
from voebench.generator.suite import Job, Suite

if TYPE_CHECKING:
    from voebench.generator.scene import Scene

#: draws tried per trial before it fails. At the lowest acceptance a run accepts (MIN_ACCEPTANCE, 5%), a trial
#: finds a valid draw within 100 attempts with probability 1 - 0.95**100 = 99.4%.
MAX_ATTEMPTS = 100
#: rejection reasons kept per video (the count is always exact: `attempt`)
MAX_REASONS_RECORDED = 10


def attempt_seed(trial_seed: int, attempt: int) -> int:
    """The seed of a trial's k-th draw. Attempt 0 is the trial's own seed, so a trial whose first draw is valid
    is the same as it would be without the gate."""
    if attempt == 0:
        return trial_seed
    digest = hashlib.sha256(f"{trial_seed}/attempt/{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


@dataclass
class Trial:
    """One sampled trial: the videos (conditions) it is rendered in are fixed by its first draw (a Level 1
    label, an AVoE sub-type and split), and every later draw must keep them."""

    suite: str
    test: str
    index: int
    seed: int
    conditions: tuple
    paired: bool
    #: make only this condition's video (a benchmark timing one video); every check still sees the whole draw
    only: str | None = None
    #: a sweep (issue 24): the nonzero levels, ascending, each a video of the `violated` condition, set on the
    #: space's `level_key` leaf; () = one video per condition
    levels: tuple = ()
    level_key: str = "violation"
    violated: str | None = None

    @property
    def id(self) -> str:
        return f"{self.suite}/{self.test}/{self.index:05d}"

    @property
    def jobs(self) -> list[Job]:
        pair_id = self.id if self.paired else None
        conditions = self.conditions if self.only is None else (self.only,)
        jobs = []
        for c in conditions:
            if self.levels and c == self.violated:
                jobs += [
                    Job(self.suite, self.test, self.index, c, self.seed, pair_id, level, self.level_key, rank)
                    for rank, level in enumerate(self.levels, 1)
                ]
            else:
                jobs.append(Job(self.suite, self.test, self.index, c, self.seed, pair_id))
        return jobs


@dataclass
class Rejection:
    attempt: int
    kind: str  # infeasible | audit:<check> | statement | conditions
    reason: str
    keys: tuple = ()

    def as_dict(self) -> dict:
        return {"attempt": self.attempt, "kind": self.kind, "reason": self.reason, "keys": list(self.keys)}


@dataclass
class TrialResult:
    trial: Trial
    entries: list = field(default_factory=list)  # manifest entries, in condition order
    attempt: int = 0
    rejections: list = field(default_factory=list)
    frames: int = 0
    rendered_frames: int = 0
    seconds: float = 0.0


class TrialFailed(Exception):
    """No draw of the trial passed within MAX_ATTEMPTS (the summary names the most common reasons)."""


def first_trial(suite: Suite, test: str, space: Space, cfg: RunConfig, index: int) -> Trial:
    """Trial `index` of `test` as its first draw makes it: its seed, and the conditions (videos) that draw fixes
    (no conditions: the trial is another test's of the same stream, e.g. another AVoE sub-type's). A swept test's
    trial also carries the sweep's levels."""
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


def draw(suite: Suite, space: Space, trial: Trial, attempt: int) -> Params:
    return suite.draw(trial.test, space, attempt_seed(trial.seed, attempt), trial.index)


# ------------------------------------------------------------------------------------------------ checking


def check_draw(
    suite: Suite, trial: Trial, p: Params, cfg: RunConfig, space: Space, attempt: int, workdir: str
) -> tuple[Trial, dict, Rejection | None]:
    """Build every condition from `p` and run every check that needs no pixels. Returns the trial as this draw
    makes it (an unpaired trial's one video is labelled by its draw), its scenes by job stem, and None or the
    rejection."""
    try:
        conditions = tuple(suite.conditions(trial.test, p, {**cfg.options, "seed": trial.seed}))
    except Infeasible as e:
        return trial, {}, Rejection(attempt, "infeasible", e.reason, e.keys)
    if not suite.paired():  # one video, whose condition is its label (Level 1): the kept draw's
        trial = dataclasses.replace(trial, conditions=conditions)
    elif conditions != trial.conditions:  # the videos of a pair are fixed by the first draw (AVoE sub-type)
        return (
            trial,
            {},
            Rejection(
                attempt,
                "conditions",
                f"the draw is a {list(conditions) or 'different'} trial "
                f"(another sub-type or split), not {list(trial.conditions)}",
            ),
        )
    scenes = {}
    try:
        for job in trial.jobs:
            scenes[job.stem] = suite.make_scene(job, p, cfg.timing)
    except Infeasible as e:
        return trial, {}, Rejection(attempt, "infeasible", e.reason, e.keys)
    files = []
    for job in trial.jobs:
        entry = manifest_entry(cfg, suite, job, p, scenes[job.stem], space, attempt, [])
        path = os.path.join(workdir, f"{job.stem}.h5")
        write_files(
            job,
            cfg,
            suite,
            scenes[job.stem],
            entry,
            suite.extra_groups(job, suite.job_params(job, p), scenes[job.stem], entry),
            path,
            None,
            passes=(),
        )
        files.append((entry, path))
        jp = suite.job_params(job, p)
        for problem in suite.statement_problems(job, jp, scenes[job.stem], entry, cfg.width, cfg.height):
            return trial, {}, Rejection(attempt, "statement", str(problem), getattr(problem, "keys", ()))
    rejection = audit_files(files, attempt)
    return (trial, scenes, None) if rejection is None else (trial, {}, rejection)


def audit_files(files: list, attempt: int) -> Rejection | None:
    """The project's audit (`voebench audit`) on one trial's files; the first failed check as a rejection."""
    for result in audit_trial(files):
        if not result.ok:
            f = result.findings[0]
            return Rejection(attempt, f"audit:{f.check}", f"{result.condition}: {f.check}: {f.detail}")
    return None


def needs_pixel_audit(scenes: dict) -> bool:
    """Only hidden edits are checked on pixels (the rest of the audit reads states, already checked)."""
    return any(s.violation is not None and s.violation.hidden for s in scenes.values())


# ------------------------------------------------------------------------------------------------ producing


def produce_trial(
    trial: Trial, cfg: RunConfig, suite: Suite, space: Space, known_rejection: Rejection | None = None
) -> TrialResult:
    """Make one trial's files, valid by construction (module docstring). `known_rejection`: the feasibility
    probe's rejection of the trial's first draw, if it made one (the files are the same either way)."""
    t0 = time.perf_counter()
    rejections: list[Rejection] = [known_rejection] if known_rejection is not None else []
    first_attempt = len(rejections)
    workdir = tempfile.mkdtemp(prefix="voebench-check-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        for attempt in range(first_attempt, MAX_ATTEMPTS):
            p = draw(suite, space, trial, attempt)
            drawn, scenes, rejection = check_draw(suite, trial, p, cfg, space, attempt, workdir)
            if rejection is None:
                result, rejection = _write_trial(drawn, cfg, suite, space, p, scenes, attempt, rejections)
                if rejection is None:
                    result.seconds = time.perf_counter() - t0
                    return result
            rejections.append(rejection)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    kinds: dict[str, int] = {}
    for r in rejections:
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    common = max(kinds, key=lambda k: kinds[k]) if kinds else "-"
    example = next((r.reason for r in reversed(rejections) if r.kind == common), "")
    raise TrialFailed(
        f"no valid draw in {MAX_ATTEMPTS} attempts (most often {common}, {kinds.get(common, 0)}x: {example})"
    )


def _write_trial(trial, cfg, suite, space, p, scenes, attempt, rejections):
    """Render every condition to temporary files, audit pixels where they matter, then rename into place."""
    jobs = trial.jobs
    result = TrialResult(trial, attempt=attempt, rejections=list(rejections))
    recorded = [r.as_dict() for r in rejections[-MAX_REASONS_RECORDED:]]
    tmp = {}  # job id -> (tmp h5, tmp mp4, final base)
    # the videos of a pair are identical up to the onset: each state is rendered once for the whole trial
    cache = FrameCache() if cfg.reuse_frames and cfg.passes else None
    try:
        files = []
        for job in jobs:
            scene = scenes[job.stem]
            entry = manifest_entry(cfg, suite, job, p, scene, space, attempt, recorded)
            base = os.path.join(cfg.out, job.relpath)
            os.makedirs(os.path.dirname(base), exist_ok=True)
            tmp_h5, tmp_mp4 = f"{base}.h5.tmp-{os.getpid()}", f"{base}.mp4.tmp-{os.getpid()}"
            tmp[job.id] = (tmp_h5, tmp_mp4, base)
            rendered = write_files(
                job,
                cfg,
                suite,
                scene,
                entry,
                suite.extra_groups(job, suite.job_params(job, p), scene, entry),
                tmp_h5,
                tmp_mp4 if "rgb" in cfg.passes else None,
                tuple(cfg.passes),
                cache,
            )
            result.frames += scene.n_frames
            result.rendered_frames += rendered
            result.entries.append(entry)
            files.append((entry, tmp_h5))
        rejection = pixel_rejection(suite, jobs, scenes, files, attempt) if "segmentation" in cfg.passes else None
        if rejection is not None:
            _remove(tmp)
            return None, rejection
        for _, tmp_mp4, base in tmp.values():  # mp4s first: an HDF5 in place marks its video done
            if "rgb" in cfg.passes:
                os.replace(tmp_mp4, base + ".mp4")
        for tmp_h5, _, base in tmp.values():
            os.replace(tmp_h5, base + ".h5")
    except BaseException:
        _remove(tmp)
        raise
    return result, None


def pixel_rejection(suite: Suite, jobs: list, scenes: dict, files: list, attempt: int) -> Rejection | None:
    """The checks that need rendered pixels: the suite's (e.g. a Level 1 subject in view), and the audit's
    hidden-edit check where an edit is hidden."""
    import h5py

    for job, (_, path) in zip(jobs, files):
        with h5py.File(path, "r") as f:
            counts = {name: g["visible_pixels"][()] for name, g in f["objects"].items()}
        for problem in suite.pixel_problems(job, scenes[job.stem], counts):
            return Rejection(attempt, "pixels", f"{job.condition}: {problem}", getattr(problem, "keys", ()))
    return audit_files(files, attempt) if needs_pixel_audit(scenes) else None


def _remove(tmp: dict) -> None:
    for paths in tmp.values():
        for path in paths[:2]:
            if os.path.exists(path):
                os.remove(path)


def write_files(
    job: Job,
    cfg: RunConfig,
    suite: Suite,
    scene: Scene,
    entry: dict,
    extra_groups: dict,
    h5_path: str,
    mp4_path: str | None,
    passes: tuple,
    cache: FrameCache | None = None,
) -> int:
    """Write one video's HDF5 (and mp4) at the given paths; with no passes, ground truth only. `cache`: frames
    already rendered for another video of the trial. Returns the number of frames Blender rendered."""
    from voebench.generator.io.hdf5 import StatesWriter

    attrs = {
        "id": job.id,
        "suite": job.suite,
        "test": job.test,
        "index": job.index,
        "condition": job.condition,
        "pair_id": job.pair_id or "",
        "seed": job.seed,
        "attempt": entry["attempt"],
        "fps": cfg.fps,
        "n_frames": scene.n_frames,
        "width": cfg.width,
        "height": cfg.height,
        "engine": cfg.engine,
        "generator_version": __version__,
        "params": json.dumps(entry["params"]),
        **h5_attrs(suite, job.test),
    }
    writer = StatesWriter(h5_path, scene, cfg.width, cfg.height, attrs, passes)
    video = None
    n_rendered = 0
    try:
        if passes:
            from voebench.generator.blender.render import Renderer, RenderSettings
            from voebench.generator.io.video import VideoWriter

            renderer = Renderer(
                scene,
                RenderSettings(cfg.width, cfg.height, cfg.engine, cfg.samples, cfg.device, render_path=cfg.render_path),
                cache=cache,
            )
            try:
                if "rgb" in passes:
                    assert mp4_path is not None, "an rgb pass needs an mp4 path"
                    video = VideoWriter(mp4_path, cfg.width, cfg.height, cfg.fps)
                for frame in renderer.frames(passes, reuse=cfg.reuse_frames):
                    if video is not None:
                        video.write(frame.rgb)
                    writer.add_frame(frame.index, frame.unique, frame.depth, frame.segmentation)
                    n_rendered += frame.rendered and not frame.shared
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
        writer.close(extra_groups)
    except BaseException:
        writer.abort()
        if video is not None:
            with contextlib.suppress(Exception):  # the error being raised matters, not a second one from cleanup
                video.close()
        raise
    return int(n_rendered)


def manifest_entry(
    cfg: RunConfig, suite: Suite, job: Job, p: Params, scene: Scene, space: Space, attempt: int, rejected: list
) -> dict:
    p = suite.job_params(job, p)
    entry = {
        "id": job.id,
        "suite": job.suite,
        "test": job.test,
        "index": job.index,
        "condition": job.condition,
        "pair_id": job.pair_id,
        "seed": job.seed,
        "attempt": attempt,
        "rejected": rejected,
        "video": job.relpath + ".mp4" if "rgb" in cfg.passes else None,
        "states": job.relpath + ".h5",
        "n_frames": scene.n_frames,
        "fps": cfg.fps,
        "width": cfg.width,
        "height": cfg.height,
    }
    entry.update(suite.entry(job, p, scene))
    entry["violation"] = scene.violation.as_dict() if scene.violation is not None else None
    key = suite.level_key(job.test, p)
    if key is not None:  # a graded test (issue 24): every video's level, 0 for the plausible twin
        entry["violation_level"] = scene.violation.level if scene.violation is not None else 0.0
        entry["violation_unit"] = suite.level_leaf(job.test, key).unit
    if job.pair_id is not None:  # which videos make this trial whole (AVoE train trials: `expected` only)
        conditions = list(suite.conditions(job.test, p, {**cfg.options, "seed": job.seed}))
        swept = sweep_levels(cfg, job.test)
        if swept:
            violated = suite.violated_condition
            conditions = [
                x for c in conditions for x in ([f"{c}-{k}" for k in range(1, len(swept))] if c == violated else [c])
            ]
            entry["sweep_levels"] = swept
            if job.rank:
                entry["sweep_rank"] = job.rank
        entry["pair_conditions"] = conditions
    entry["params"] = {
        "sampled": p,
        "config": {
            "space": space.describe(),
            "base_seed": cfg.base_seed,
            "seconds": cfg.seconds,
            "fps": cfg.fps,
            "width": cfg.width,
            "height": cfg.height,
            "engine": cfg.engine,
            "passes": list(cfg.passes),
            "options": cfg.options,
        },
    }
    return json.loads(json.dumps(entry, default=_plain))


def sweep_levels(cfg: RunConfig, test: str) -> list[float]:
    """A swept test's levels with the plausible twin's 0 first, e.g. [0.0, 5.0, 10.0]; [] when not swept."""
    sweep = cfg.sweep.get(test)
    return [0.0, *sweep[1]] if sweep else []


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(type(v).__name__)
