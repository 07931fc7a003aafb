"""`videomae:<folder-or-hub-id>` (transformers' VideoMAEForPreTraining, scored by pixel-reconstruction surprise)
and `videomae-random:<tiny|base|base-128>` (random weights: the chance control)."""

from __future__ import annotations

from typing import ClassVar

from voebench.errors import UsageError
from voebench.evaluate.models.kind import WORLD_MODELS


def _module():
    try:
        from voebench.evaluate.surprise import videomae
    except ImportError as e:
        raise UsageError(
            f"--model videomae: needs torch and transformers (pip install 'voebench[eval]'): {e}"
        ) from None
    return videomae


@WORLD_MODELS.register("videomae")
class VideoMAE:
    spec: ClassVar[str] = "<path-or-id>"

    @classmethod
    def scorer(cls, rest: str, device: str = "auto", dtype: str = "auto", seed: int = 0):
        if not rest:
            raise UsageError("--model videomae: expected videomae:<path-or-id>")
        try:
            return _module().VideoMAEScorer.from_pretrained(rest, device=device, dtype=dtype)
        except OSError as e:
            raise UsageError(f"--model videomae:{rest}: cannot load ({str(e).splitlines()[0]})") from None


@WORLD_MODELS.register("videomae-random")
class VideoMAERandom:
    spec: ClassVar[str] = "<tiny|base|base-128>"

    @classmethod
    def scorer(cls, rest: str, device: str = "auto", dtype: str = "auto", seed: int = 0):
        m = _module()
        if rest not in m.PRESETS:
            raise UsageError(f"--model videomae-random:{rest}: preset must be one of {', '.join(m.PRESETS)}")
        return m.VideoMAEScorer(m.random_model(rest, seed), device, dtype, name=f"random-videomae-{rest}")
