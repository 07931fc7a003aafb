"""`replay:<file>`: answers read back from a file (evaluate/models/replay.py)."""

from __future__ import annotations

import argparse
import os

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter
from voebench.evaluate.models.kind import ModelKind, register


@register("replay")
class Replay(ModelKind):
    """An earlier run's samples.jsonl or a JSONL of responses; a file that does not read is refused in one line."""

    spec = "<file>"

    def build(self, options: argparse.Namespace) -> Adapter:
        from voebench.evaluate.models.replay import ReplayAdapter

        if not os.path.isfile(self.rest):
            raise UsageError(f"--model replay:{self.rest}: no such file")
        try:
            return ReplayAdapter(self.rest)
        except ValueError as e:
            raise UsageError(f"--model replay: {e}") from None
