"""GRASP Level 2 (intuitive physics): 16 tests, each a scene script `tNN_<name>.py` rendered twice from one
sampled trial, plausible and implausible, which differ only by the designed violation.

A Level 2 scene script provides, besides `SPACE` and `build(scene, p, condition)`:

    NUMBER = 9                                   # as numbered in GRASP supplementary Section 5
    PRINCIPLES = ["gravity"]                     # the principle(s) the implausible video violates
    def describe(scene, p, condition) -> str     # the scene in words (text-only control, Section 6)
    DELAYS = ("start_delay", "hold")             # pause keys, scaled down in videos shorter than 10 s (timing.py)
    BINARY = ""                                  # why its violation has no size to grade ("" where it is graded)
    level_key = graded                           # the Level leaf grading a draw's violation (`binary`: none)

and, when `condition == "implausible"`, calls one edit of `voebench.generator.edits` so the violation is
recorded on the scene (and written to the HDF5 `violation` group). What its prompt asks about (the observation,
test 14's assumption) is data in `prompts.py`, outside the code fingerprint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from voebench.generator.contracts import SceneModule
from voebench.generator.params import FRACTION, SEED, Choice, Params, Range
from voebench.generator.scene import Scene
from voebench.generator.suite import Job, Suite, Timing
from voebench.scenes.grasp_l2 import prompts

TESTS = (
    "t01_unchangeableness",
    "t02_unchangeableness_color",
    "t03_solidity_continuity",
    "t04_solidity_two_levels",
    "t05_permanence_pin",
    "t06_permanence_occluder",
    "t07_permanence_drawbridge",
    "t08_inertia_bounce",
    "t09_gravity_incline",
    "t10_gravity_inertia_hover",
    "t11_gravity_inertia_ledge",
    "t12_continuity_tray",
    "t13_gravity_continuity_gap",
    "t14_collision",
    "t15_support_pin",
    "t16_inertia_corner",
)

# Visual randomization shared by every test (GRASP paper Section 3.2): include with `**VISUAL` in SPACE.
VISUAL = {
    "background": {
        "r": Range(0.0, 1.0, domain=FRACTION),
        "g": Range(0.0, 1.0, domain=FRACTION),
        "b": Range(0.0, 1.0, domain=FRACTION),
    },  # back-wall tint
    "wood_seed": Range(0, 2**31 - 1, integer=True, domain=SEED),  # the apparatus' wood texture (one per video)
    "mirror": Choice((False, True)),  # orientation: the setup mirrored left/right
}


class Level2Module(SceneModule, Protocol):
    """A Level 2 test: a plausible and an implausible video of one draw (its prompt's words: `prompts.py`)."""

    @property
    def NUMBER(self) -> int:
        """The test's number in GRASP supplementary Section 5."""
        ...

    @property
    def PRINCIPLES(self) -> list[str]: ...

    @property
    def DELAYS(self) -> tuple[str, ...]:
        """The pause keys of SPACE, scaled down in videos shorter than 10 s (timing.py)."""
        ...

    @property
    def BINARY(self) -> str:
        """Why the violation has no size to grade or sweep; "" where it is graded."""
        ...

    def level_key(self, p: Params) -> str | None:
        """The Level leaf that grades this draw's violation; None where it is binary (`graded`, `binary`)."""
        ...


def graded(p: Params) -> str | None:
    """`level_key` of a test whose every violation is graded by its `violation` leaf."""
    return "violation"


def binary(p: Params) -> str | None:
    """`level_key` of a test whose violation has no size (its `BINARY` says why)."""
    return None


class GraspLevel2(Suite[Level2Module]):
    name = "grasp-l2"
    package = "voebench.scenes.grasp_l2"
    tests = TESTS
    contract = Level2Module
    default_trials = 128
    default_resolution = (640, 480)  # the Unity original's
    default_render_path = "dirty"  # what makes 640x480 cost no more than 320x240 did (docs/performance.md)
    violated_condition = "implausible"

    def conditions(self, test: str, p: Params, options: dict) -> list[str]:
        return ["plausible", "implausible"]

    def binary_reason(self, test: str) -> str:
        return self.module(test).BINARY

    def level_key(self, test: str, p: Params) -> str | None:
        return self.module(test).level_key(p)

    def make_scene(self, job: Job, p: Params, timing: Timing) -> Scene:
        # pauses shrink in videos shorter than GRASP's 10 s (timing.py); the build sees the scaled values
        return super().make_scene(job, self._timed(job.test, p, timing.n_frames / timing.fps), timing)

    def _timed(self, test: str, p: Params, seconds: float) -> Params:
        from voebench.scenes.grasp_l2.timing import timed

        return timed(p, self.module(test).DELAYS, seconds)

    def question_text(self, test: str, p: Params, prompt: dict) -> str:
        """The plausibility prompt of `test` (the same for both videos of a trial)."""
        return prompts.PROMPT.format(observation=prompts.OBSERVATION[test], assumption=prompts.ASSUMPTION.get(test, ""))

    def entry(self, job: Job, p: Params, scene: Scene) -> dict:
        m = self.module(job.test)
        p = self._timed(job.test, p, scene.n_frames / scene.fps)  # describe the pauses the video shows
        prompt = {"kind": "plausibility", "text": "", "answer": "yes" if job.condition == "plausible" else "no"}
        prompt["text"] = self.question_text(job.test, p, prompt)
        return {
            "test_number": m.NUMBER,
            "principles": list(m.PRINCIPLES),
            "prompts": [prompt],
            "description": m.describe(scene, p, job.condition),
        }


if TYPE_CHECKING:  # mypy holds every test module to the contract (load_suite checks the same at run time)
    from voebench.scenes.grasp_l2 import (
        t01_unchangeableness,
        t02_unchangeableness_color,
        t03_solidity_continuity,
        t04_solidity_two_levels,
        t05_permanence_pin,
        t06_permanence_occluder,
        t07_permanence_drawbridge,
        t08_inertia_bounce,
        t09_gravity_incline,
        t10_gravity_inertia_hover,
        t11_gravity_inertia_ledge,
        t12_continuity_tray,
        t13_gravity_continuity_gap,
        t14_collision,
        t15_support_pin,
        t16_inertia_corner,
    )

    _MODULES: tuple[Level2Module, ...] = (
        t01_unchangeableness,
        t02_unchangeableness_color,
        t03_solidity_continuity,
        t04_solidity_two_levels,
        t05_permanence_pin,
        t06_permanence_occluder,
        t07_permanence_drawbridge,
        t08_inertia_bounce,
        t09_gravity_incline,
        t10_gravity_inertia_hover,
        t11_gravity_inertia_ledge,
        t12_continuity_tray,
        t13_gravity_continuity_gap,
        t14_collision,
        t15_support_pin,
        t16_inertia_corner,
    )
