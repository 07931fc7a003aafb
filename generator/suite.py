"""Suites and tests: how scene scripts plug into the generator.

A *scene script* is a module in `scenes/<suite>/` with:

    SPACE = {...}                                 # its randomization space (generator.params leaves)
    def build(scene, p, condition) -> None        # add objects, camera, motion to `scene` from Params `p`
    def describe(scene, p, condition) -> str      # the video in words (text-only controls, docs)

plus whatever its suite asks for: the suite's `contract`, a Protocol extending `contracts.SceneModule`
(prompt texts, labels, measures). A `Suite[M]` lists its scene scripts in order, returns them typed as its
Protocol `M`, and says which conditions a sampled trial is rendered in and what the manifest says about each
video. `load_suite` imports every scene module of a suite and checks it against the contract, so a broken scene
fails when the suite loads, not mid-render; mypy checks the same Protocol where a suite lists its modules.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Generic, TypeVar, cast

import numpy as np

from voebench.errors import Infeasible, UsageError
from voebench.generator.contracts import SceneModule, Want, contract_of, contract_problems
from voebench.generator.params import Level, Params, Space, derive_seed
from voebench.generator.scene import Scene
from voebench.generator.suite_refs import SUITE_REFS
from voebench.generator.suite_refs import register_suite as register_suite  # re-exported (runner, tests)


@dataclass(frozen=True)
class Timing:
    seconds: float = 10.0
    fps: float = 50.0

    @property
    def n_frames(self) -> int:
        return max(1, int(round(self.seconds * self.fps)))


@dataclass
class Job:
    """One video to produce."""

    suite: str
    test: str
    index: int
    condition: str
    seed: int
    pair_id: str | None
    #: in a sweep (`voebench render --sweep`): the violated video's level, the Level leaf it sets, and its 1-based
    #: rank among the trial's nonzero levels (which names its file: `00003-implausible-2`)
    level: float | None = None
    level_key: str = "violation"
    rank: int = 0

    @property
    def stem(self) -> str:
        if self.pair_id is None:
            return f"{self.index:05d}"
        return f"{self.index:05d}-{self.condition}" + (f"-{self.rank}" if self.rank else "")

    @property
    def id(self) -> str:
        return f"{self.suite}/{self.test}/{self.stem}"

    @property
    def relpath(self) -> str:
        return f"{self.suite}/{self.test}/{self.stem}"


M = TypeVar("M", bound=SceneModule, covariant=True)


class Suite(Generic[M]):
    """Base class. Subclasses set `name`, `package` (the scenes package), `tests` (names of its modules in
    order), `contract` (the Protocol `M` its modules implement) and implement `conditions` and `entry`."""

    name: str = ""
    package: str = ""
    tests: tuple[str, ...] = ()
    default_trials: int = 128
    default_timing = Timing()
    default_resolution = (320, 240)
    #: how Workbench draws RGB unless `--render-path` says: "full" (every distinct state whole) or "dirty" (a cached
    #: background plus what moved, generator/blender/dirty.py; a suite sets it once its tests are checked on it)
    default_render_path = "full"
    #: the condition whose build must record a violation (all other conditions must record none)
    violated_condition: str | None = None
    #: the Protocol (extending `contracts.SceneModule`) every scene module of the suite implements
    contract: type = SceneModule

    def __init__(self) -> None:
        self._modules: dict[str, ModuleType] = {}

    @property
    def module_contract(self) -> dict[str, Want]:
        """What every scene module must define, read off `contract`: a name -> its parameter names (a function)
        or the types its value may have."""
        return contract_of(self.contract)

    def module(self, test: str) -> M:
        """The scene module of `test`, typed as the suite's contract (`check_modules` holds it to it)."""
        if test not in self.tests:
            raise UsageError(f"unknown test {test!r} in suite {self.name}; one of: {', '.join(self.tests)}")
        return self._import(test)

    def _import(self, name: str) -> M:
        if name not in self._modules:
            self._modules[name] = importlib.import_module(f"{self.package}.{name}")
        return cast(M, self._modules[name])

    def check_modules(self) -> None:
        """Import every scene module and check it against the contract (TypeError naming what is wrong)."""
        contract = self.module_contract
        for test in self.tests:
            problems = contract_problems(cast(ModuleType, self.module(test)), contract, self.name)
            if problems:
                raise TypeError("; ".join(problems))

    def space(self, test: str) -> Space:
        return Space(self.module(test).SPACE)

    # ------------------------------------------------------------------ per suite

    def conditions(self, test: str, p: Params, options: dict) -> list[str]:
        """The conditions this trial is rendered in (Level 1: its label; Level 2: both)."""
        raise NotImplementedError

    def paired(self) -> bool:
        return True

    def entry(self, job: Job, p: Params, scene: Scene) -> dict:
        """Suite-specific manifest fields for one video (prompts, description, labels...)."""
        raise NotImplementedError

    def question_text(self, test: str, p: Params, prompt: dict) -> str:
        """The text of one prompt of a video of `test` in the wording of the suite's `prompts` module, from the
        sampled values `p` and the prompt's other fields only (never the scene), so that `render --upgrade` can
        reword a finished set without rendering it (generator/rewording.py). The default, for a suite without a
        prompts module: the text the prompt has."""
        return str(prompt["text"])

    def extra_groups(self, job: Job, p: Params, scene: Scene, entry: dict) -> dict:
        """Extra HDF5 groups (name -> attributes) from the video's manifest entry, e.g. AVoE `labels`."""
        return {}

    # ------------------------------------------------------------------ command-line hooks (defaults)

    def select_tests(self, tests_arg: str | None, categories_arg: str | None = None) -> list[str]:
        """The tests named by `--tests` (comma-separated), in canonical order; all when none is named."""
        if categories_arg:
            raise UsageError(f"--categories: suite {self.name} has no categories (use --tests)")
        if not tests_arg:
            return list(self.tests)
        names = list(dict.fromkeys(t.strip() for t in tests_arg.split(",") if t.strip()))  # a repeat once
        if not names:
            raise UsageError(f"--tests {tests_arg!r}: no test names; `voebench params {self.name}` lists them")
        for t in names:
            self.module(t)  # raises UsageError for unknown names
        return [t for t in self.tests if t in names]

    def options_from_args(self, args) -> dict:
        """Suite-specific switches from the command line (recorded in the dataset identity)."""
        return {}

    def partial_streams(self, tests: list[str]) -> list[tuple[str, list[str]]]:
        """Selected tests that share one stream of trials with tests not selected (AVoE: some but not all
        sub-types of a category), as (the stream's name, those tests). A run then makes `--trials` trials of the
        stream that belong to those tests, not their share of its first `--trials` (generator/streams.py)."""
        return []

    # ------------------------------------------------------------------ shared

    def trial_seed(self, test: str, base_seed: int, index: int) -> int:
        """A trial's seed, from which all its draws derive (AVoE: one stream per category)."""
        return derive_seed(base_seed, self.name, test, index)

    def draw(self, test: str, space: Space, seed: int, index: int) -> Params:
        """The draw of `space` for one seed (a trial's attempt k uses `trial.attempt_seed(seed, k)`)."""
        return space.sample(np.random.default_rng(seed), index)

    def sample(self, test: str, space: Space, base_seed: int, index: int) -> tuple[int, Params]:
        """A trial's seed and its first draw."""
        seed = self.trial_seed(test, base_seed, index)
        return seed, self.draw(test, space, seed, index)

    def statement_problems(
        self, job: Job, p: Params, scene: Scene, entry: dict, width: int, height: int
    ) -> Sequence[str | Infeasible]:
        """What is false in the manifest entry's statements about this video (Level 1 checks its statements
        against the ground truth; Level 2 and AVoE statements are the audit's to check). Empty = all true.
        A problem may carry `keys` (the parameters or settings it depends on), as `Infeasible` does."""
        return []

    def pixel_problems(self, job: Job, scene: Scene, visible_pixels: dict) -> Sequence[str | Infeasible]:
        """After rendering: what the rendered pixels contradict (`visible_pixels`: object name -> per-frame pixel
        counts from the segmentation), e.g. an object a statement is about that is hidden or out of view."""
        return []

    def level_key(self, test: str, p: Params) -> str | None:
        """The Level leaf that grades this trial's violation (issue 24), or None where it is binary: `violation`
        if the space's `violation` is a Level (AVoE overrides this: its modules grade per sub-type)."""
        return "violation" if isinstance(self.module(test).SPACE.get("violation"), Level) else None

    def binary_reason(self, test: str) -> str:
        """Why `test`'s violation has no size to grade or sweep; "" where it has one (or the suite has none)."""
        return ""

    def level_leaf(self, test: str, key: str) -> Level:
        node = self.module(test).SPACE
        for part in key.split("."):
            node = node[part]
        if not isinstance(node, Level):
            raise TypeError(f"{test}: {key} is not a Level leaf")
        return node

    @staticmethod
    def job_params(job: Job, p: Params) -> Params:
        """The parameters one video is made from: the trial's draw, with a swept video's level in place of the
        Level leaf's (its build, description, labels and recorded params all see it)."""
        return p if job.level is None else with_leaf(p, job.level_key, job.level)

    def make_scene(self, job: Job, p: Params, timing: Timing) -> Scene:
        p = self.job_params(job, p)
        scene = Scene(timing.n_frames, timing.fps)
        self.module(job.test).build(scene, p, job.condition)
        if scene.camera is None:
            raise RuntimeError(f"{job.test}: build() set no camera")
        violated = job.condition == self.violated_condition
        if violated and scene.violation is None:
            raise RuntimeError(f"{job.test}: the {job.condition} build recorded no violation")
        if not violated and scene.violation is not None:
            raise RuntimeError(f"{job.test}: the {job.condition} build recorded a violation")
        if violated:
            self._complete_level(job, p, scene)
        return scene

    def _complete_level(self, job: Job, p: Params, scene: Scene) -> None:
        """A graded test's violated build must record its size (`edits.grade`), the one asked for where one was;
        the record takes the unit, measure and tolerance from the Level leaf."""
        v = scene.violation
        assert v is not None
        key = self.level_key(job.test, p)
        if key is None:
            if v.level is not None:
                raise RuntimeError(f"{job.test}: a binary violation recorded a level")
            return
        if v.level is None:
            raise RuntimeError(f"{job.test}: the {job.condition} build of a graded test did not grade its violation")
        asked = leaf_value(p, key)
        if asked is not None and abs(v.level - asked) > 1e-9 * max(1.0, abs(asked)):
            raise RuntimeError(f"{job.test}: asked for level {asked}, the build recorded {v.level}")
        leaf = self.level_leaf(job.test, key)
        v.level_key, v.unit, v.measure, v.tol = key, leaf.unit, leaf.measure, leaf.tol


def leaf_value(p: Params, key: str):
    node = p
    for part in key.split("."):
        node = node[part]
    return node


def with_leaf(p: Params, key: str, value) -> Params:
    """A copy of `p` with one dotted leaf replaced."""
    out = Params.wrap(copy.deepcopy(dict(p)))
    node = out
    *parents, last = key.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    return out


def load_suite(name: str) -> Suite:
    if name not in SUITE_REFS:
        raise UsageError(f"unknown suite {name!r}; one of: {', '.join(SUITE_REFS)}")
    module, cls = SUITE_REFS[name].split(":")
    suite = getattr(importlib.import_module(module), cls)()
    suite.check_modules()
    return suite


@dataclass
class SuiteRegistry:
    suites: dict[str, Suite] = field(default_factory=dict)

    def get(self, name: str) -> Suite:
        if name not in self.suites:
            raise UsageError(f"unknown suite {name!r}; one of: {', '.join(self.suites)}")
        return self.suites[name]
