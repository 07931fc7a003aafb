"""`fake:<kind>` models and judges for predict runs: answers without a model, for tests and sanity checks.

Models (they see the sample's ground truth, as the shared `fake:oracle` does):
- ``oracle``: the true outcome as an enumerated answer (exact F1 = 1);
- ``never``: "no two objects will collide" every time (the chance level of docs/predict.md);
- ``all``: every pair of objects collides;
- ``random``: each pair collides with probability 1/2, seeded by (repeat seed, sample).
Event questions (GRASP Level 2 / AVoE, events.py): ``oracle`` picks the right option, ``random`` either,
the others always option A.

Judges (they see the judged item: the prediction and the truth):
- ``exact``: the seed's answer format with scores from the exact scorer (accuracy = the strict rate; specificity
  and logical consistency = 5 x F1, rounded);
- ``messy``: the same scores written in one of several untidy formats (markdown, "4/5", JSON, missing brackets),
  to exercise the judge-output parser;
- ``constant``: always 3, 3 and 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from voebench.evaluate.models.base import Adapter, Request
from voebench.evaluate.registry import Registry

#: `voebench predict --model fake:<name>`: the name -> what it answers (the sample's `fake_answer` reads the name)
MODELS: Registry[str] = Registry("fake predict model", flag="--model")
MODELS.add("oracle", "the true outcome")
MODELS.add("never", "no two objects collide")
MODELS.add("all", "every pair collides")
MODELS.add("random", "each pair collides with probability 1/2")
#: `voebench predict --judge fake:<name>`: the name -> the judge's reply to a judged item (judge.JudgeItem)
JUDGES: Registry[Callable[[Any], str]] = Registry("fake judge", flag="--judge")


class FakePredictModel(Adapter):
    def __init__(self, kind: str, temperature: float | None = None):
        if kind not in MODELS:
            raise ValueError(kind)
        self.kind, self.temperature = kind, temperature
        self.name = f"fake:{kind}"
        self.batch_size = 64

    def settings(self) -> dict:
        return {"kind": self.kind, "temperature": self.temperature}

    def answer(self, r: Request) -> str:
        return r.sample.fake_answer(self.kind, random.Random(f"{r.seed}/{r.sample.sample_id}"))

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        return [self.answer(r) for r in requests]


MESSY = (
    "**Specificity**: {s}/5 - names the objects.\n**Logical Consistency**: {l} out of 5\n**Accuracy**: {a}",
    "Specificity: score: [{s}]. Logical Consistency: score: [{l}]. Accuracy: score: [{a}].",
    'Here is my evaluation.\n```json\n{{"specificity": {s}, "logical_consistency": {l}, "accuracy": {a}}}\n```',
    "1. Specificity (0-5): score {s}. reason: fine.\n2. Logical consistency (0-5) - {l}\n3. Accuracy (0 or 1) = {a}",
    "specificity score=[ {s} ]\nlogical-consistency score: {l}.0\naccuracy score: [{a}] (the prediction matches)",
)


REPLY = "Specificity: score: [{s}].\n\nLogical Consistency: score: [{l}]. Accuracy: score: [{a}]."


def _exact_scores(item: Any) -> dict[str, int]:
    _, sc = item.sample.score(item.prediction)
    return {"s": int(round(5 * sc.f1)), "l": int(round(5 * sc.f1)), "a": int(sc.strict)}


@JUDGES.register("exact")
def exact(item: Any) -> str:
    return REPLY.format(**_exact_scores(item))


@JUDGES.register("messy")
def messy(item: Any) -> str:
    return MESSY[hash_index(item.key)].format(**_exact_scores(item))


@JUDGES.register("constant")
def constant(item: Any) -> str:
    return REPLY.format(s=3, l=3, a=1)


class FakeJudge(Adapter):
    def __init__(self, kind: str):
        if kind not in JUDGES:
            raise ValueError(kind)
        self.kind = kind
        self.name = f"fake:{kind}"
        self.batch_size = 64

    def settings(self) -> dict:
        return {"kind": self.kind}

    def answer(self, r: Request) -> str:
        return JUDGES.get(self.kind)(r.sample)  # r.sample: a judge.JudgeItem

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        return [self.answer(r) for r in requests]


def hash_index(key: str) -> int:
    """A stable choice of messy style per judged item."""
    return sum(key.encode()) % len(MESSY)
