"""Multimodal rotary positions computed on the CPU, before a batch goes to the GPU (issue 28).

Qwen2-VL and Qwen2.5-VL number a prompt's tokens in three axes (time, height, width) for video tokens and in one for
text (`get_rope_index`). `generate` computes these positions itself, on the model's device, when it is not given
`position_ids`: a Python loop over the batch that reads the GPU back about ten times per sample (boolean masks,
`.tolist()`, `.item()`), so a batch of 32 waits on the GPU some 300 times before its first token, most of the 376
host syncs counted in one 418M `generate` (docs/evaluate.md). The same function on the CPU copies of the processor's
output costs no sync, runs where the batch is prepared (the prefetch thread, a batch ahead), and gives the same
integers: `generate` then takes them as `position_ids` and skips its own computation. The model's own method
(`_prepare_position_ids_for_generation`, the one `generate` calls) computes them, so they follow the installed
transformers; a model without it, or another family, is left to `generate`.

The method also stores the batch's `rope_deltas` on the model. `generate` only reads that value when continuing
from an earlier cache or when called without `position_ids`, and then it computes it afresh at the first step, so
the value stored here is never read by a call of ours.
"""

from __future__ import annotations

from typing import Any

#: model types whose `generate` computes 3D rotary positions from these processor outputs
FAMILIES = ("qwen2_vl", "qwen2_5_vl")
#: the processor outputs the positions depend on
KEYS = ("attention_mask", "mm_token_type_ids", "image_grid_thw", "video_grid_thw", "second_per_grid_ts")


def supported(model: Any) -> bool:
    """The model computes multimodal positions in generate's own method, which we can call on CPU tensors."""
    kind = getattr(getattr(model, "config", None), "model_type", "")
    inner = getattr(model, "model", None)
    return (
        kind in FAMILIES
        and callable(getattr(model, "_prepare_position_ids_for_generation", None))
        and callable(getattr(inner, "get_rope_index", None))
    )


def cpu_position_ids(model: Any, inputs: dict) -> Any | None:
    """`position_ids` for `model.generate(**inputs)`, computed from the CPU copies of `inputs` (None: nothing to
    compute, e.g. a text-only batch, where generate's own text positions cost no sync)."""
    ids = inputs.get("input_ids")
    if ids is None or inputs.get("mm_token_type_ids") is None:
        return None
    if inputs.get("video_grid_thw") is None and inputs.get("image_grid_thw") is None:
        return None
    kwargs = {k: inputs[k].cpu() if hasattr(inputs[k], "cpu") else inputs[k] for k in KEYS if inputs.get(k) is not None}
    return model._prepare_position_ids_for_generation(ids.cpu(), kwargs)
