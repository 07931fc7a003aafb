"""`motion-energy`: no model, the frame-difference energy of the frames to predict (motion.py)."""

from __future__ import annotations

from typing import ClassVar

from voebench.errors import UsageError
from voebench.evaluate.models.kind import WORLD_MODELS


@WORLD_MODELS.register("motion-energy")
class MotionEnergy:
    spec: ClassVar[str] = ""

    @classmethod
    def scorer(cls, rest: str, device: str = "auto", dtype: str = "auto", seed: int = 0):
        if rest:
            raise UsageError(f"--model motion-energy:{rest}: motion-energy takes nothing after its name")
        from voebench.evaluate.surprise.motion import MotionEnergyScorer

        return MotionEnergyScorer()
