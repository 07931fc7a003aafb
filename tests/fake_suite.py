"""A tiny paired suite for testing the generation gate without Blender: a ball resting on a floor, recoloured in
the implausible video. Two kinds of bad draws on purpose: a ball too big for the scene (`size` > 0.5, the build
raises Infeasible) and a ball that floats above the floor (`lift` > 0.8, which the audit rejects: an unsupported
body at rest)."""

from __future__ import annotations

from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.params import Balanced, Range
from voebench.generator.suite import Suite, Timing


class FakeSuite(Suite):
    name = "fake"
    package = "fake_suite"
    tests = ("ball",)
    default_trials = 4
    default_timing = Timing(1.0, 10.0)
    default_resolution = (32, 24)
    violated_condition = "implausible"

    def module(self, test):
        import sys

        return sys.modules[__name__]

    def conditions(self, test, p, options):
        return ["plausible", "implausible"]

    def entry(self, job, p, scene):
        return {
            "prompts": [
                {
                    "kind": "plausibility",
                    "text": "Is the ball's colour plausible?",
                    "answer": "yes" if job.condition == "plausible" else "no",
                }
            ],
            "description": describe(scene, p, job.condition),
        }


# `tint` cycles with the trial index (a label, as in Level 1); `blue_fits` set to false makes every blue draw
# infeasible, which the probe must refuse although half the draws (the red ones) are valid.
SPACE = {"size": Range(0.2, 0.7), "lift": Range(0.0, 1.0), "tint": Balanced(("red", "blue")), "blue_fits": True}


def build(scene, p, condition):
    if p.size > 0.5:
        raise Infeasible("the ball does not fit", keys=("size",))
    if p.tint == "blue" and not p.blue_fits:
        raise Infeasible("no blue ball fits", keys=("blue_fits",))
    scene.add("floor", "box", (4.0, 4.0, 1.0), (0.0, 0.0, -0.5), role="floor", fixture=True)
    height = p.size / 2 + (0.5 if p.lift > 0.8 else 0.0)  # floating: the audit must reject it
    scene.add("ball", "sphere", (p.size,) * 3, (0.0, 0.0, height), role="ball", color=(0.8, 0.1, 0.1))
    scene.look((0.0, -4.0, 2.0), (0.0, 0.0, 0.0), fov_deg=50.0)
    if condition == "implausible":
        edits.recolor(scene, "ball", scene.n_frames // 2, (0.1, 0.1, 0.8), ["unchangeableness"])


def describe(scene, p, condition):
    return f"A ball {p.size:.2f} m across rests on a floor" + (
        " and changes colour." if condition == "implausible" else "."
    )
