"""`fake:<kind>` models and judges for predict runs: answers without a model, for tests and sanity checks.

Models (they see the sample's ground truth, as the shared `fake:oracle` does):
- ``oracle``: the true outcome as an enumerated answer (exact F1 = 1);
- ``never``: "no two objects will collide" every time (the chance level of docs/predict.md);
- ``all``: every pair of objects collides;
- ``random``: each pair collides with probability 1/2, seeded by (repeat seed, sample).

Judges (they see the judged item: the prediction and the truth):
- ``exact``: the seed's answer format with scores from the exact scorer (accuracy = the strict rate; specificity
  and logical consistency = 5 x F1, rounded);
- ``messy``: the same scores written in one of several untidy formats (markdown, "4/5", JSON, missing brackets),
  to exercise the judge-output parser;
- ``constant``: always 3, 3 and 1.
"""

from __future__ import annotations

import itertools
import random

from voebench.evaluate.models.base import Adapter, Request
from voebench.evaluate.predict import exact

MODEL_KINDS = ("oracle", "never", "all", "random")
JUDGE_KINDS = ("exact", "messy", "constant")


def describe_pairs(pairs: list, labels: list) -> str:
    hit = {x for p in pairs for x in p}
    lines = [f"The {a} will collide with the {b}." for a, b in pairs]
    lines += [f"The {x} will continue unscathed." for x in labels if x not in hit]
    if not pairs:
        lines.insert(0, "No two objects will collide.")
    return "\n".join(f"{k}. {s}" for k, s in enumerate(lines, 1))


class FakePredictModel(Adapter):
    def __init__(self, kind: str, temperature: float | None = None):
        if kind not in MODEL_KINDS:
            raise ValueError(kind)
        self.kind, self.temperature = kind, temperature
        self.name = f"fake:{kind}"
        self.batch_size = 64

    def settings(self) -> dict:
        return {"kind": self.kind, "temperature": self.temperature}

    def answer(self, r: Request) -> str:
        s = r.sample
        if self.kind == "oracle":
            return describe_pairs(s.true_pairs, s.labels)
        if self.kind == "never":
            return describe_pairs([], s.labels)
        pairs = [list(p) for p in itertools.combinations(s.labels, 2)]
        if self.kind == "random":
            rng = random.Random(f"{r.seed}/{s.sample_id}")
            pairs = [p for p in pairs if rng.random() < 0.5]
        return describe_pairs(pairs, s.labels)

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        return [self.answer(r) for r in requests]


MESSY = (
    "**Specificity**: {s}/5 - names the objects.\n**Logical Consistency**: {l} out of 5\n**Accuracy**: {a}",
    "Specificity: score: [{s}]. Logical Consistency: score: [{l}]. Accuracy: score: [{a}].",
    'Here is my evaluation.\n```json\n{{"specificity": {s}, "logical_consistency": {l}, "accuracy": {a}}}\n```',
    "1. Specificity (0-5): score {s}. reason: fine.\n2. Logical consistency (0-5) - {l}\n3. Accuracy (0 or 1) = {a}",
    "specificity score=[ {s} ]\nlogical-consistency score: {l}.0\naccuracy score: [{a}] (the prediction matches)",
)


class FakeJudge(Adapter):
    def __init__(self, kind: str):
        if kind not in JUDGE_KINDS:
            raise ValueError(kind)
        self.kind = kind
        self.name = f"fake:{kind}"
        self.batch_size = 64

    def settings(self) -> dict:
        return {"kind": self.kind}

    def answer(self, r: Request) -> str:
        item = r.sample  # judge.JudgeItem
        if self.kind == "constant":
            s, lc, a = 3, 3, 1
        else:
            _, sc = exact.score(item.prediction, item.sample.labels, item.sample.true_pairs, item.sample.true_unhit)
            s = lc = int(round(5 * sc.f1))
            a = int(sc.strict)
        if self.kind == "messy":
            style = MESSY[hash_index(item.key)]
            return style.format(s=s, l=lc, a=a)
        return f"Specificity: score: [{s}].\n\nLogical Consistency: score: [{lc}]. Accuracy: score: [{a}]."

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        return [self.answer(r) for r in requests]


def hash_index(key: str) -> int:
    """A stable choice of messy style per judged item."""
    return sum(key.encode()) % len(MESSY)
