"""Predictive reasoning (issue 16): multi-object scenes simulated with Bullet, shown to a model only up to a cut
before the first collision, with the outcome after the cut as exact ground truth.

One video per trial (unpaired, like GRASP Level 1): its condition is its outcome, `collision` or
`no_collision`, balanced. The manifest entry's `prediction` object holds everything a scorer needs (the cut, the
objects by the colour and shape words used here, the colliding pairs and when, the objects never hit, where every
object ends up); evaluate/predict reads it from the manifest and never imports this package. The prompt is the
seed's CLEVRER video query; the image query (N frames) is made by the evaluator, which chooses N.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from voebench.generator.contracts import SceneModule
from voebench.generator.params import Params
from voebench.generator.scene import Scene, project
from voebench.generator.suite import Job, Suite, Timing
from voebench.scenes.predict import prompts
from voebench.scenes.predict.truth import Analysis, Collision

VIEW_MARGIN = 0.02  # of the image size: object centres stay this far inside the frame up to the cut


def answer_text(labels: dict[str, str], collisions: list[Collision], unhit: list[str], fps: float) -> str:
    """The true label as a sentence (what the judge compares the prediction with)."""
    if not collisions:
        return "No objects collide: " + ", ".join(f"the {x}" for x in unhit) + " all continue unscathed."
    hits = [f"The {labels[c.a]} collides with the {labels[c.b]} at {c.frame / fps:.1f} s." for c in collisions]
    rest = (
        " "
        + " and ".join(f"the {x}" for x in unhit).capitalize()
        + (" is" if len(unhit) == 1 else " are")
        + " never hit."
        if unhit
        else ""
    )
    return " ".join(hits) + rest


class PredictModule(SceneModule, Protocol):
    """A predictive test: its outcome is its condition, and its ground truth is read off the built scene."""

    def analyse(self, scene: Scene, p: Params) -> Analysis:
        """The labels, collisions, event and cut of a built scene."""
        ...


class Predict(Suite[PredictModule]):
    name = "predict"
    package = "voebench.scenes.predict"
    tests = ("collisions",)
    contract = PredictModule
    default_trials = 64
    default_timing = Timing(4.0, 25.0)

    def paired(self) -> bool:
        return False

    def conditions(self, test: str, p: Params, options: dict) -> list[str]:
        return [p.outcome]

    def entry(self, job: Job, p: Params, scene: Scene) -> dict:
        m = self.module(job.test)
        a = m.analyse(scene, p)
        hit = {n for c in a.collisions for n in (c.a, c.b)}
        unhit = [label for n, label in a.labels.items() if n not in hit]
        answer = answer_text(a.labels, a.collisions, unhit, scene.fps)
        prediction = {
            "outcome": job.condition,
            "cut_frame": a.cut_frame,
            "cut_time": round(a.cut_frame / scene.fps, 4),
            "event_frame": a.event_frame,
            # each object as the last frame shown leaves it (the judge prompt's "Attributes")
            "objects": [
                {
                    "name": n,
                    "label": label,
                    "color": label.split()[0],
                    "shape": label.split()[1],
                    "position_at_cut": [round(float(v), 3) for v in scene[n].position[a.cut_frame, :2]],
                    "velocity_at_cut": [
                        round(float(v), 3)
                        for v in (scene[n].position[a.cut_frame, :2] - scene[n].position[a.cut_frame - 1, :2])
                        * scene.fps
                    ],
                }
                for n, label in a.labels.items()
            ],
            "collisions": [
                {
                    "objects": [a.labels[c.a], a.labels[c.b]],
                    "names": [c.a, c.b],
                    "frame": c.frame,
                    "time": round(c.frame / scene.fps, 4),
                }
                for c in a.collisions
            ],
            "unhit": unhit,
            "final_positions": {a.labels[n]: [round(float(v), 3) for v in scene[n].position[-1, :2]] for n in a.labels},
            "answer": answer,
        }
        return {
            "prompts": [{"kind": "prediction", "text": self.question_text(job.test, p, {}), "answer": answer}],
            "label": job.condition,
            "prediction": prediction,
            "description": m.describe(scene, p, job.condition),
        }

    def question_text(self, test: str, p: Params, prompt: dict) -> str:
        """The prediction prompt: the same query for every video."""
        return prompts.VIDEO_QUERY

    def statement_problems(self, job, p, scene, entry, width, height):
        """Every object must be in view in every frame the model sees (up to the cut)."""
        cut = entry["prediction"]["cut_frame"]
        K = scene.cam.intrinsics(width, height)
        E = scene.cam.extrinsics()
        lo, hi = np.array([width, height]) * VIEW_MARGIN, np.array([width, height]) * (1 - VIEW_MARGIN)
        for o in entry["prediction"]["objects"]:
            ob = scene[o["name"]]
            for t in range(cut + 1):
                uv, depth = project(ob.position[t : t + 1], K, E[t])
                if depth[0] <= 0 or np.any(uv[0] < lo) or np.any(uv[0] > hi):
                    return [f"predict: the {o['label']} is out of view at frame {t}, before the cut"]
        return []


if TYPE_CHECKING:  # mypy holds every test module to the contract (load_suite checks the same at run time)
    from voebench.scenes.predict import collisions

    _MODULES: tuple[PredictModule, ...] = (collisions,)
