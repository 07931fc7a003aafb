"""The `newton` suite (docs/newton.md): NEWTON's physical-attribute questions about objects whose attribute
the video shows through their motion, with exact answers from the sampled values.

Tests: `elasticity` (balls dropped side by side: restitution), `smoothness` (cubes sliding down a plank:
friction), `heaviness` (one cube slides into another: mass). Every video is one trial (no pairs, no
violation) and asks, about its objects named by colour and shape and listed left to right:

- Track 2 multiple choice, "Which object is the most <A>? Options: ..." and "... the least <A>? ...";
- Track 2 Boolean comparison of the leftmost and rightmost objects, "True/False: The x is more <A> than the
  y." and "... less <A> ..." (one true, one false);
- Track 3, a scenario that implies the attribute without naming it.

The answers come from the sampled values (`params.sampled`); the gate checks them against the states (each
scene's `measured`: the rebound heights, the distances slid, the velocity changes in the collision must order
the objects as the values do), so a draw whose video would not show the answer is redrawn. The text-only
control is `voebench evaluate --strategy text`: the description names the objects and the setup but no outcome.
The questions' words are data in `prompts.py`, outside the code fingerprint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from voebench.errors import Infeasible
from voebench.generator.contracts import SceneModule
from voebench.generator.params import Params
from voebench.generator.scene import Scene
from voebench.generator.suite import Job, Suite, Timing
from voebench.scenes.newton import prompts

TESTS = ("elasticity", "smoothness", "heaviness")
MARGIN = 0.05  # relative: the measured outcomes of two objects must differ by this share of the largest


def _meta(qid: str, track: int, qtype: str, attribute: str, polarity, position: int, n_options: int) -> dict:
    return {
        "qid": qid,
        "newton": {
            "question_id": qid,
            "track": track,
            "qtype": qtype,
            "stream": {"comparison": "boolean"}.get(qtype, qtype),
            "attribute": attribute,
            "polarity": polarity,
            "position": position,
            "n_options": n_options,
            "agreement": None,
            "variant": "v1",
            "source": "video",
        },
    }


class NewtonModule(SceneModule, Protocol):
    """A NEWTON attribute test: objects of one `SHAPE` whose `ATTRIBUTE` the motion shows, and the outcomes
    measured on the states that must order them as the sampled values do."""

    @property
    def SHAPE(self) -> str: ...

    @property
    def ATTRIBUTE(self) -> str: ...

    @property
    def VALUE(self) -> str:
        """The recorded value behind the answers (params.sampled)."""
        ...

    @property
    def MEASURE_KEYS(self) -> tuple[str, ...]:
        """The settings and parameters the measured outcome depends on (an Infeasible draw's keys)."""
        ...

    def amounts(self, p: Params) -> list[float]:
        """Each object's sampled value, left to right."""
        ...

    def measured(self, scene: Scene, p: Params) -> list[float] | None:
        """Each object's outcome measured on the states; None where it is not complete within the video."""
        ...


def questions(test: str, m: NewtonModule, p: Params) -> list[dict]:
    """The questions of one video of `test` from its scene module `m` and sampled values `p`."""
    from voebench.scenes.newton import world

    values = m.amounts(p)
    k = len(values)
    labels = world.names(p, k, m.SHAPE)
    choices = {"labels": labels, "letters": False}
    out = []
    for positive in (True, False):
        best = max(range(k), key=lambda j: values[j]) if positive else min(range(k), key=lambda j: values[j])
        qid = "most" if positive else "least"
        out.append(
            {
                "kind": "choice",
                "polarity": "positive" if positive else "negative",
                "text": "",
                "answer": labels[best],
                "choices": choices,
                "meta": _meta(
                    qid, 2, "multiple_choice", m.ATTRIBUTE, "positive" if positive else "negative", best + 1, k
                ),
            }
        )
    for positive in (True, False):
        truth = (values[0] > values[-1]) == positive
        word = "more" if positive else "less"
        out.append(
            {
                "kind": "choice",
                "polarity": "positive" if positive else "negative",
                "text": "",
                "answer": "True" if truth else "False",
                "choices": {"labels": ["True", "False"], "letters": False},
                "meta": _meta(
                    word, 2, "comparison", m.ATTRIBUTE, "positive" if positive else "negative", 1 if truth else 2, 2
                ),
            }
        )
    best = max(range(k), key=lambda j: values[j])
    out.append(
        {
            "kind": "choice",
            "text": "",
            "answer": labels[best],
            "choices": choices,
            "meta": _meta("scenario", 3, "scenario", m.ATTRIBUTE, None, best + 1, k),
        }
    )
    for prompt in out:
        prompt["text"] = question_text(test, m, p, prompt)
    return out


def question_text(test: str, m: NewtonModule, p: Params, prompt: dict) -> str:
    """One question's text from its `meta.qid` (most, least, more, less, scenario) in the words of `prompts.py`;
    the objects are named left to right as `world.names` names them from `p`."""
    from voebench.scenes.newton import world

    labels = world.names(p, len(m.amounts(p)), m.SHAPE)
    listed = ", ".join(labels)
    adjective = prompts.ADJECTIVE[test]
    qid = prompt["meta"]["qid"]
    if qid in ("most", "least"):
        return prompts.CHOICE.format(extreme=qid, adjective=adjective, options=listed)
    if qid in ("more", "less"):
        a, b = labels[0], labels[-1]
        return prompts.COMPARISON.format(a=a[0].upper() + a[1:], word=qid, adjective=adjective, b=b)
    context, question = prompts.SCENARIO[test]
    return f"{context} {question.format(objects=listed)}"


def _rank(xs) -> list[int]:
    return sorted(range(len(xs)), key=lambda j: xs[j])


class Newton(Suite[NewtonModule]):
    name = "newton"
    package = "voebench.scenes.newton"
    tests = TESTS
    contract = NewtonModule
    default_trials = 12  # a multiple of 6: every answer position equally often (world.py)
    default_timing = Timing(seconds=3.0, fps=25.0)
    default_resolution = (320, 240)

    def paired(self) -> bool:
        return False

    def conditions(self, test: str, p: Params, options: dict) -> list[str]:
        return ["observed"]  # one video per trial; its content is in params and prompts

    def entry(self, job: Job, p: Params, scene: Scene) -> dict:
        m = self.module(job.test)
        return {"prompts": questions(job.test, m, p), "description": m.describe(scene, p, job.condition)}

    def question_text(self, test: str, p: Params, prompt: dict) -> str:
        return question_text(test, self.module(test), p, prompt)

    def statement_problems(self, job, p, scene, entry, width, height):
        """The answers (from the values) against the states: the measured outcomes must order the objects as the
        values do, each two apart by MARGIN of the largest."""
        m = self.module(job.test)
        # Every object a question names must be seen throughout, judged on the states (so the up-front probe
        # refuses a framing that crops one, e.g. a portrait resolution) by the projection Level 1 statements use;
        # pixel_problems re-checks the rendered pixels.
        from voebench.scenes.grasp_l1.truth import View

        view = View(scene, width, height)
        for obj in scene.objects.values():
            if obj.role in ("ball", "cube"):
                for problem in view.seen(obj.name):
                    return [Infeasible(f"{job.test}: {problem}", problem.keys)]
        got = m.measured(scene, p)
        if got is None:
            return [Infeasible(f"{job.test}: the outcome is not complete within the video", m.MEASURE_KEYS)]
        want = m.amounts(p)
        if _rank(got) != _rank(want):
            return [Infeasible(f"{job.test}: the motion orders the objects {got}, the values {want}", m.MEASURE_KEYS)]
        spread = max(abs(x) for x in got) or 1.0
        ordered = sorted(got)
        if min(b - a for a, b in zip(ordered, ordered[1:])) < MARGIN * spread:
            return [Infeasible(f"{job.test}: the objects' outcomes are too close to tell apart", m.MEASURE_KEYS)]
        return []

    def pixel_problems(self, job, scene, visible_pixels):
        """After rendering: every object a question names covers at least one pixel in every frame (the camera
        frames the whole event by design; a portrait or tiny resolution could still crop or shrink one away)."""
        problems = []
        for name in sorted(visible_pixels):
            if name.startswith(("ball", "cube")) and scene[name].role in ("ball", "cube"):
                counts = visible_pixels[name]
                if min(counts) < 1:
                    t = int(min(range(len(counts)), key=lambda k: counts[k]))
                    problems.append(Infeasible(f"{job.test}: {name} is out of view at frame {t}", ("resolution",)))
        return problems


if TYPE_CHECKING:  # mypy holds every test module to the contract (load_suite checks the same at run time)
    from voebench.scenes.newton import elasticity, heaviness, smoothness

    _MODULES: tuple[NewtonModule, ...] = (elasticity, smoothness, heaviness)
