"""GRASP Level 1 (grounding): six tests, each a static or simple scene with one true label per video.

Every video gets the binary statement of GRASP supplementary 1.1 twice: filled with the true observation
(answer yes) and with a different, false one (answer no; for Ordering a permutation of the true order), plus
the open question of supplementary 1.2 where the test has one. "Left/right/forward/backward" are as seen in
the image; forward is up in the image (the top-down camera of Directionality and Movement). The statements'
and questions' words are data in `prompts.py`, outside the code fingerprint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from voebench.generator.contracts import SceneModule
from voebench.generator.params import Params
from voebench.generator.scene import Scene
from voebench.generator.suite import Job, Suite
from voebench.scenes.grasp_l1 import prompts

TESTS = ("shape", "color", "directionality", "movement", "ordering", "relational")


class Level1Module(SceneModule, Protocol):
    """A Level 1 test: one true label per video, stated true and false, and an open question where GRASP has
    one (where `KEYWORDS` is not empty; the words of both: `prompts.py`)."""

    @property
    def KEYWORDS(self) -> dict[str, list[str]]:
        """Each open answer -> the words that count as it; empty: the test has no open question."""
        ...

    def observation(self, p: Params) -> str:
        """The true observation (the video's label)."""
        ...

    def negative(self, p: Params, rng: np.random.Generator) -> str:
        """A false observation, drawn with `rng`."""
        ...

    def open_answer(self, p: Params) -> str | None:
        """The open question's answer (None where there is no open question)."""
        ...


class GraspLevel1(Suite[Level1Module]):
    name = "grasp-l1"
    package = "voebench.scenes.grasp_l1"
    tests = TESTS
    contract = Level1Module
    default_trials = 128
    default_resolution = (640, 480)  # the Unity original's
    default_render_path = "dirty"  # what makes 640x480 cost no more than 320x240 did (docs/performance.md)

    def paired(self) -> bool:
        return False

    def conditions(self, test: str, p: Params, options: dict) -> list[str]:
        return [self.module(test).observation(p)]

    def entry(self, job: Job, p: Params, scene: Scene) -> dict:
        m = self.module(job.test)
        truth = m.observation(p)
        # The false statement is drawn from the video's own seed, so it is reproducible (the original's
        # was not: prepare_data.py sets no seed).
        false = m.negative(p, np.random.default_rng([job.seed, 1]))
        assert false != truth
        asked: list[dict[str, Any]] = [
            {"kind": "binary", "polarity": "positive", "observation": truth, "text": "", "answer": "yes"},
            {"kind": "binary", "polarity": "negative", "observation": false, "text": "", "answer": "no"},
        ]
        if m.KEYWORDS:
            asked.append({"kind": "open", "text": "", "answer": m.open_answer(p), "choices": m.KEYWORDS})
        for prompt in asked:
            prompt["text"] = self.question_text(job.test, p, prompt)
        return {"prompts": asked, "label": truth, "description": m.describe(scene, p, job.condition)}

    def question_text(self, test: str, p: Params, prompt: dict) -> str:
        """A binary statement filled with the prompt's observation, or the test's open question."""
        if prompt["kind"] == "open":
            return prompts.OPEN_QUESTION[test]
        return prompts.STATEMENT[test].format(prompt["observation"]) + prompts.YES_NO

    def statement_problems(self, job, p, scene, entry, width, height):
        from voebench.scenes.grasp_l1 import truth

        return truth.check(job.test, scene, p, entry, width, height)

    def pixel_problems(self, job, scene, visible_pixels):
        from voebench.scenes.grasp_l1 import truth

        return truth.check_pixels(job.test, scene, visible_pixels)


def other_label(labels, truth: str, rng: np.random.Generator) -> str:
    """A uniformly chosen label other than the truth (GRASP's negative sampling)."""
    others = [lab for lab in labels if lab != truth]
    return others[int(rng.integers(len(others)))]


if TYPE_CHECKING:  # mypy holds every test module to the contract (load_suite checks the same at run time)
    from voebench.scenes.grasp_l1 import color, directionality, movement, ordering, relational, shape

    _MODULES: tuple[Level1Module, ...] = (shape, color, directionality, movement, ordering, relational)
