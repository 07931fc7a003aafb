"""`fake:<kind>`: answers without a model, for tests and sanity checks (evaluate/models/fake.py), and
`fake:psychometric:...`, a simulated observer with a known psychometric curve (evaluate/models/fake_psychometric.py).
"""

from __future__ import annotations

import argparse

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter
from voebench.evaluate.models.kind import ModelKind, register

KINDS = ("yes", "no", "random", "oracle", "first")  # the answers of models/fake.py (which reads them here)
PSYCHOMETRIC = "psychometric"  # fake:psychometric:threshold=T,slope=S (docs/psychometrics.md)


@register("fake")
class Fake(ModelKind):
    spec = f"<{'|'.join(KINDS)}|{PSYCHOMETRIC}:...>"

    def build(self, options: argparse.Namespace) -> Adapter:
        from voebench.evaluate.models.fake import FakeAdapter

        if self.rest.partition(":")[0] == PSYCHOMETRIC:
            from voebench.evaluate.models.fake_psychometric import make  # numpy

            return make(self.rest)
        if self.rest not in KINDS:
            raise UsageError(
                f"--model fake:{self.rest}: kind must be one of {', '.join(KINDS)} "
                f"or {PSYCHOMETRIC}:threshold=T,slope=S"
            )
        return FakeAdapter(self.rest)
