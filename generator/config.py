"""The run's configuration: built once, in the process that starts the run, and sent whole to every worker.

`RunConfig` is what a run makes and how: the suite, tests and trial counts, the video's `timing` (length and frame
rate), resolution, engine and passes, the user's overrides of the randomization spaces, and the worker layout. It
also carries every test's *resolved* space (`spaces`): the suite's space with the run's `--set` / `--config`
overrides parsed and applied (`effective_space`). The parent resolves them once (`resolve`, called by the command
line and by `runner.run`); the configuration is a plain picklable dataclass, so a local worker process or a Ray task
receives the spaces already parsed and never parses an override again.

The spaces are a cache of `overrides`: `space` resolves them again, once, only if they are missing or were
resolved from other overrides (a configuration copied with `dataclasses.replace(cfg, overrides=...)`), so a stale
space is never used.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field

from voebench import __version__
from voebench.generator.fingerprint import code_identity, prompts_version
from voebench.generator.params import Space
from voebench.generator.suite import Suite, Timing

#: the render passes a run can ask for (`--passes`)
PASSES = ("rgb", "depth", "segmentation")


def effective_space(suite: Suite, test: str, overrides: dict) -> Space:
    """`test`'s space with the overrides of that test (`overrides`: test -> {dotted key: value}) parsed and
    applied; raises UsageError, naming the test, for an unknown key or a value its leaf does not accept."""
    return suite.space(test).override(overrides.get(test, {}), where=f"{suite.name}/{test}: ")


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
    #: RGB drawn whole ("full") or as a cached background plus what changed ("dirty", generator/blender/dirty.py)
    render_path: str = "full"
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
    #: every test of the suite -> its space under `overrides`, parsed once (`resolve`); {} until resolved
    spaces: dict = field(default_factory=dict, compare=False, repr=False)
    #: the overrides `spaces` were resolved from (a copy), so spaces of other overrides are never used
    spaces_from: dict | None = field(default=None, compare=False, repr=False)

    @property
    def timing(self) -> Timing:
        return Timing(self.seconds, self.fps)

    def resolve(self, suite: Suite) -> RunConfig:
        """This configuration with every test's space resolved: each override is parsed here, once, and the
        spaces travel with the configuration to the workers (itself when they already are). Raises UsageError for
        a bad override."""
        if self.spaces_from == self.overrides and set(suite.tests) <= set(self.spaces):
            return self
        spaces = {t: effective_space(suite, t, self.overrides) for t in suite.tests}
        return dataclasses.replace(self, spaces=spaces, spaces_from=copy.deepcopy(self.overrides))

    def space(self, suite: Suite, test: str) -> Space:
        """`test`'s space under this run's overrides: the resolved one; resolved now (and kept) when the
        configuration was never resolved or was resolved from other overrides."""
        if self.spaces_from != self.overrides:
            self.spaces, self.spaces_from = {}, copy.deepcopy(self.overrides)
        if test not in self.spaces:
            self.spaces[test] = effective_space(suite, test, self.overrides)
        return self.spaces[test]

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
            # the dirty path's pixels differ from the full path's inside what it redraws (docs/performance.md)
            **({"render_path": self.render_path} if self.render_path != "full" else {}),
            "passes": list(self.passes),
            "options": self.options,
            **({"sweep": self.sweep_identity()} if self.sweep else {}),
            "spaces": {t: self.space(suite, t).describe() for t in suite.tests},
            "code": code_identity(suite),  # resuming with other code would mix two generators' videos
            "prompts": prompts_version(suite),  # the wording its questions carry (apart from the code)
        }

    def sweep_identity(self) -> dict:
        return {t: {"key": k, "levels": list(v)} for t, (k, v) in sorted(self.sweep.items())}
