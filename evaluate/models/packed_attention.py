"""Packed attention for windowed vision towers (Qwen2-VL, Qwen2.5-VL), for machines without flash-attn.

Qwen2.5-VL's vision tower attends within windows of 8x8 patches. With flash-attn, transformers runs all windows of
a batch in one variable-length kernel (``cu_seqlens``); with ``sdpa`` or ``eager`` it loops over the windows in
Python, one attention call per window per layer: a batch of 32 videos of 16 frames has about 2,300 windows, so
about 30,000 (418M preset) to 65,000 (7B) tiny calls per batch, and the GPU idles while Python launches them
(measured: bench/results/issue13-*.json). This module packs the windows into one padded batch and makes one
``scaled_dot_product_attention`` call per layer instead: same maths (padding is masked out), different kernels.

It plugs into transformers' attention registry under a name containing "flash", which is what selects the
``cu_seqlens`` code path in the vision attention, and is set on the vision tower's config only (the language model
keeps its own attention). On by default on CUDA (`--packed-vision-attention auto|on|off`, `HFAdapter(...,
packed_vision_attention=True|"auto")`).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

NAME = "voebench_packed_flash_sdpa"


class _Layout:
    """Where each token of a packed batch goes in the padded one: computed once per `cu_seqlens` tensor.

    A vision forward passes the same `cu_seqlens` tensor (one for the full-attention layers, one for the windowed
    ones) to every layer, so the index tensors below, and the one host sync that reads the longest window, are made
    once per batch instead of once per layer (issue 28: the per-layer `int(max_len)` and index arithmetic were 16 of
    the 376 host syncs and about 130 of the launches of one 418M generate). Keyed by the tensor's identity with a weak
    reference (a freed tensor whose id is reused is recomputed) and its version counter (an in-place change is too)."""

    def __init__(self, cu: Any, n_tok: int, device: Any, max_len: Any) -> None:
        import torch

        cu = cu.to(device).long()
        lengths = cu[1:] - cu[:-1]
        self.n = int(lengths.numel())
        self.max_len = int(max_len) if max_len is not None else int(lengths.max())
        seq = torch.repeat_interleave(torch.arange(self.n, device=device), lengths, output_size=n_tok)
        self.slot = seq * self.max_len + (torch.arange(n_tok, device=device) - cu[:-1][seq])
        valid = torch.zeros(self.n * self.max_len, dtype=torch.bool, device=device)
        valid[self.slot] = True
        self.mask = valid.view(self.n, 1, 1, self.max_len)


_LAYOUTS: dict[int, tuple[Any, int, int, Any, _Layout]] = {}  # id(cu) -> (weakref(cu), version, n_tok, device, ..)
_LAYOUTS_LOCK = threading.Lock()


def _version(t: Any) -> int:
    """The tensor's in-place version counter; -1 for an inference tensor, which has none."""
    return -1 if t.is_inference() else int(t._version)


def _layout(cu: Any, n_tok: int, device: Any, max_len: Any) -> _Layout:
    with _LAYOUTS_LOCK:
        got = _LAYOUTS.get(id(cu))
        if got is not None:
            ref, version, tok, dev, lay = got
            if ref() is cu and version == _version(cu) and tok == n_tok and dev == device:
                return lay
        lay = _Layout(cu, n_tok, device, max_len)
        for k in [k for k, v in _LAYOUTS.items() if v[0]() is None]:  # tensors freed since: forget them
            del _LAYOUTS[k]
        _LAYOUTS[id(cu)] = (weakref.ref(cu), _version(cu), n_tok, device, lay)
        return lay


def packed_sdpa(
    module: Any,
    query: Any,
    key: Any,
    value: Any,
    attention_mask: Any = None,
    scaling: float | None = None,
    dropout: float = 0.0,
    is_causal: bool | None = None,
    **kwargs: Any,
) -> tuple[Any, None]:
    """query/key/value (1, heads, tokens, dim) holding several sequences back to back (`cu_seq_lens_q` gives their
    bounds); returns (1, tokens, heads, dim) as transformers' attention functions do."""
    import torch.nn.functional as F

    cu = kwargs.get("cu_seq_lens_q", kwargs.get("cu_seqlens"))
    if cu is None or query.shape[0] != 1 or is_causal:
        raise ValueError("packed attention needs one packed batch with cu_seq_lens_q and no causal mask")
    q, k, v = query[0], key[0], value[0]  # (heads, tokens, dim)
    heads, n_tok, dim = q.shape
    lay = _layout(cu, n_tok, q.device, kwargs.get("max_length_q"))
    n, max_len, slot = lay.n, lay.max_len, lay.slot

    def pad(x):
        out = x.new_zeros(heads, n * max_len, dim)
        out[:, slot] = x
        return out.view(heads, n, max_len, dim).transpose(0, 1)  # (sequences, heads, max_len, dim)

    out = F.scaled_dot_product_attention(pad(q), pad(k), pad(v), attn_mask=lay.mask, dropout_p=dropout, scale=scaling)
    out = out.transpose(0, 1).reshape(heads, n * max_len, dim)[:, slot]  # (heads, tokens, dim)
    return out.transpose(0, 1).unsqueeze(0).contiguous(), None


def use_packed_vision_attention(model: Any) -> bool:
    """Switch the model's windowed vision attention to `packed_sdpa`; False when the model has no such tower or
    already uses a flash kernel."""
    from transformers import AttentionInterface

    configs = {
        id(m.config): m.config
        for m in model.modules()
        if type(m).__name__.endswith("VisionAttention") and hasattr(m, "config")
    }
    todo = [c for c in configs.values() if getattr(c, "_attn_implementation", None) in ("sdpa", "eager", None)]
    if not todo:
        return False
    AttentionInterface.register(NAME, packed_sdpa)
    for c in todo:
        c._attn_implementation = NAME
    return True
