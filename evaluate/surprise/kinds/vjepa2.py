"""`vjepa2:<folder-or-hub-id>` (transformers' VJEPA2Model, a self-trained folder with both encoders) and
`vjepa2-random:<tiny|small|vitl|vitl-128>` (random weights: the chance control)."""

from __future__ import annotations

from typing import ClassVar

from voebench.errors import UsageError
from voebench.evaluate.models.kind import WORLD_MODELS


def _module():
    try:
        from voebench.evaluate.surprise import vjepa2
    except ImportError as e:
        raise UsageError(f"--model vjepa2: needs torch and transformers (pip install 'voebench[eval]'): {e}") from None
    return vjepa2


@WORLD_MODELS.register("vjepa2")
class VJEPA2:
    spec: ClassVar[str] = "<path-or-id>"

    @classmethod
    def scorer(cls, rest: str, device: str = "auto", dtype: str = "auto", seed: int = 0):
        if not rest:
            raise UsageError("--model vjepa2: expected vjepa2:<path-or-id>")
        try:
            return _module().VJEPA2Scorer.from_pretrained(rest, device=device, dtype=dtype)
        except OSError as e:
            raise UsageError(f"--model vjepa2:{rest}: cannot load ({str(e).splitlines()[0]})") from None


@WORLD_MODELS.register("vjepa2-random")
class VJEPA2Random:
    spec: ClassVar[str] = "<tiny|small|vitl|vitl-128>"

    @classmethod
    def scorer(cls, rest: str, device: str = "auto", dtype: str = "auto", seed: int = 0):
        m = _module()
        if rest not in m.PRESETS:
            raise UsageError(f"--model vjepa2-random:{rest}: preset must be one of {', '.join(m.PRESETS)}")
        return m.VJEPA2Scorer(m.random_model(rest, seed), device, dtype, name=f"random-{rest}")
