"""`fake:<kind>`: answers without a model, for tests and sanity checks of the harness.

- ``yes`` / ``no``: always that word ("Yes." / "No.").
- ``random``: yes or no (open questions: a random class), from a generator seeded by (repeat seed, sample, turn).
- ``oracle``: the correct answer from the ground truth (open questions: the true class's first keyword).
- ``first``: the first option offered (choice questions); "Yes." elsewhere, the first of GRASP's yes/no.
Earlier turns of CoT / one-shot get a short neutral reply ("I see a video." / "Understood.").
"""

from __future__ import annotations

import random

from voebench.evaluate.models.base import Adapter, Request
from voebench.evaluate.models.kinds.fake import KINDS
from voebench.evaluate.parsing import OPEN_CHOICES, open_family


class FakeAdapter(Adapter):
    def __init__(self, kind: str):
        if kind not in KINDS:
            raise ValueError(kind)
        self.kind = kind
        self.name = f"fake:{kind}"
        self.batch_size = 64

    def settings(self) -> dict:
        return {"kind": self.kind}

    def _final(self, r: Request) -> str:
        s = r.sample
        if s.kind == "choice":  # NEWTON-style options: answer with an option's label
            labels = s.choices["labels"]
            if self.kind == "oracle":
                return f"{s.truth}."
            if self.kind == "first":
                return f"{labels[0]}."
            if self.kind == "random":
                return f"{random.Random(f'{r.seed}/{s.sample_id}/{r.turn}').choice(labels)}."
            return "Yes." if self.kind == "yes" else "No."
        if s.kind == "open":
            choices = s.choices
            if not choices:
                family = open_family(s.test)
                if family is None:
                    raise ValueError(f"test {s.test!r} has no open-answer choices")
                choices = OPEN_CHOICES[family]
            if self.kind == "oracle":
                return f"The answer is {choices[s.truth][0]}."
            if self.kind == "random":
                rng = random.Random(f"{r.seed}/{s.sample_id}/{r.turn}")
                return f"{choices[rng.choice(sorted(choices))][0]}"
            return "Yes." if self.kind == "yes" else "No."
        if self.kind == "oracle":
            return "Yes." if s.truth == "yes" else "No."
        if self.kind == "first":
            return "Yes."
        if self.kind == "random":
            rng = random.Random(f"{r.seed}/{s.sample_id}/{r.turn}")
            return rng.choice(["Yes.", "No."])
        return "Yes." if self.kind == "yes" else "No."

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        out: list[str | BaseException] = []
        for r in requests:
            if r.turn < r.n_turns - 1:
                out.append(
                    "Understood." if r.sample is not None and r.sample.strategy == "one-shot" else "I see a video."
                )
            else:
                out.append(self._final(r))
        return out
