"""GRASP Level 1 (grounding): six tests, each a static or simple scene with one true label per video.

Every video gets the binary statement of GRASP supplementary 1.1 twice: filled with the true observation
(answer yes) and with a different, false one (answer no; for Ordering a permutation of the true order), plus
the open question of supplementary 1.2 where the test has one. "Left/right/forward/backward" are as seen in
the image; forward is up in the image (the top-down camera of Directionality and Movement).
"""

from __future__ import annotations

import numpy as np

from voebench.generator.suite import Suite

YES_NO = " Is this true? Answer only with yes or no."


class GraspLevel1(Suite):
    name = "grasp-l1"
    package = "voebench.scenes.grasp_l1"
    tests = ("shape", "color", "directionality", "movement", "ordering", "relational")
    default_trials = 128

    def paired(self) -> bool:
        return False

    def conditions(self, test, p, options):
        return [self.module(test).observation(p)]

    def entry(self, job, p, scene):
        m = self.module(job.test)
        truth = m.observation(p)
        # The false statement is drawn from the video's own seed, so it is reproducible (the original's
        # was not: prepare_data.py sets no seed).
        false = m.negative(p, np.random.default_rng([job.seed, 1]))
        assert false != truth
        prompts = [
            {
                "kind": "binary",
                "polarity": "positive",
                "observation": truth,
                "text": m.STATEMENT.format(truth) + YES_NO,
                "answer": "yes",
            },
            {
                "kind": "binary",
                "polarity": "negative",
                "observation": false,
                "text": m.STATEMENT.format(false) + YES_NO,
                "answer": "no",
            },
        ]
        if getattr(m, "OPEN_QUESTION", None):
            prompts.append({"kind": "open", "text": m.OPEN_QUESTION, "answer": m.open_answer(p), "choices": m.KEYWORDS})
        return {"prompts": prompts, "label": truth, "description": m.describe(scene, p, job.condition)}

    def statement_problems(self, job, p, scene, entry, width, height):
        from voebench.scenes.grasp_l1 import truth

        return truth.check(job.test, scene, p, entry, width, height)

    def pixel_problems(self, job, scene, visible_pixels):
        from voebench.scenes.grasp_l1 import truth

        return truth.check_pixels(job.test, scene, visible_pixels)


def other_label(labels, truth, rng) -> str:
    """A uniformly chosen label other than the truth (GRASP's negative sampling)."""
    others = [lab for lab in labels if lab != truth]
    return others[int(rng.integers(len(others)))]
