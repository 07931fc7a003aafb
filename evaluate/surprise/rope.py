"""V-JEPA 2's rotary position tables computed once per shape, not in every attention layer (training speed).

transformers' `VJEPA2RopeAttention` recomputes, in every layer and for queries and keys separately, the token
positions (`get_position_ids`) and, per axis (frame, row, column), the sine and cosine tables of the rotary
embedding (`rotate_queries_or_keys`: an `arange`, a power, an outer product, `sin`, `cos`, two `repeat`s). For the
small world model that is about 2,000 of the 2,800 operators of a training step's forward passes (counted on the
CPU, bench/results/issue30-fast/rope_share.py), each a kernel launch on a GPU, where the host, not the GPU, then
sets the pace.

`cached_rotary()` (a context manager; train.py trains inside it) patches the two methods of the class for its
duration. Positions are cached per (token count, grid) for an encoder (no mask: the positions are those of
`arange`) and per mask tensor for the predictor (the same tensor reaches every layer; held by a weak reference,
so a new mask never matches an old entry); the sine and cosine tables per (positions, axis sizes, dtype, device,
autocast state, inference mode), computed by the same operations in the same autocast state as transformers
computes them, so the values are the same bit for bit; the rotation is applied to the three axes at once (the
pairs it swaps never cross an axis: each axis has an even size). Outputs and gradients equal transformers' own,
bit for bit (tests/evaluate/test_world_model_rope.py).

The patch applies only where transformers' code is the code it was written against (the source of the three
functions hashed; transformers 5.17 and 5.24 have the same); otherwise the context changes nothing and says so
(`cached_rotary().applied`).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import weakref
from collections import OrderedDict
from collections.abc import Iterator

import torch

#: sha256 of the sources of rotate_queries_or_keys, VJEPA2RopeAttention.get_position_ids and .apply_rotary_embeddings
#: (transformers 5.17.0 and 5.24.0).
KNOWN_SOURCE = "e0b70b02a1f50a4d7a245ff3af78987b9c03149a4126fa2007446eb60be120a8"
_MAX_MASK_ENTRIES = 8


def source_hash() -> str:
    from transformers.models.vjepa2 import modeling_vjepa2 as mv

    parts = [
        inspect.getsource(mv.rotate_queries_or_keys),
        inspect.getsource(mv.VJEPA2RopeAttention.get_position_ids),
        inspect.getsource(mv.VJEPA2RopeAttention.apply_rotary_embeddings),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class _Positions(tuple):
    """(frame, row, column) position ids with the cache key they were stored under."""

    key: tuple


class _Cache:
    """Position ids and tables. Mask-keyed entries hold a weak reference to their mask and are few (LRU)."""

    def __init__(self) -> None:
        self.fixed: dict[tuple, object] = {}
        self.masked: OrderedDict[tuple, tuple[weakref.ref, object]] = OrderedDict()

    def get(self, key: tuple, mask: torch.Tensor | None):
        if mask is None:
            return self.fixed.get(key)
        hit = self.masked.get(key)
        if hit is None or hit[0]() is not mask:
            return None
        self.masked.move_to_end(key)
        return hit[1]

    def put(self, key: tuple, mask: torch.Tensor | None, value) -> None:
        if mask is None:
            self.fixed[key] = value
            return
        for k in [k for k, (ref, _) in self.masked.items() if ref() is None]:
            del self.masked[k]  # entries of freed masks: never served again, their tables freed now
        self.masked[key] = (weakref.ref(mask), value)
        while len(self.masked) > _MAX_MASK_ENTRIES:
            self.masked.popitem(last=False)


def _mode(x: torch.Tensor) -> tuple:
    """What decides the tables' dtype and autograd status besides their shape."""
    dev = x.device.type
    return (x.dtype, str(x.device), torch.is_autocast_enabled(dev), torch.get_autocast_dtype(dev),
            torch.is_inference_mode_enabled())  # fmt: skip


def _tables(pos: torch.Tensor, dim: int, like: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of transformers' rotate_queries_or_keys for positions `pos` and `dim` features, by its ops."""
    omega = torch.arange(dim // 2, dtype=like.dtype, device=like.device)
    omega /= dim / 2.0
    omega = 1.0 / 10000**omega
    freq = pos.unsqueeze(-1) * omega
    return freq.cos().repeat(1, 1, 1, 2), freq.sin().repeat(1, 1, 1, 2)


@contextlib.contextmanager
def cached_rotary() -> Iterator[dict]:
    """Within the context, VJEPA2RopeAttention caches its positions and rotary tables; yields {"applied": bool}."""
    from transformers.models.vjepa2 import modeling_vjepa2 as mv

    state = {"applied": source_hash() == KNOWN_SOURCE}
    if not state["applied"]:
        yield state
        return
    cls = mv.VJEPA2RopeAttention
    get_position_ids, apply_rotary = cls.get_position_ids, cls.apply_rotary_embeddings
    cache = _Cache()

    def cached_position_ids(self, x, masks=None):
        key: tuple
        if masks is None:
            key = ("arange", x.size(1), self.grid_size, str(x.device), torch.is_inference_mode_enabled())
        else:
            key = ("mask", id(masks), masks._version, tuple(masks.shape), self.grid_size, self.num_attention_heads,
                   torch.is_inference_mode_enabled())  # fmt: skip
        pos = cache.get(key, masks)
        if pos is None:
            pos = _Positions(get_position_ids(self, x, masks=masks))
            pos.key = key
            cache.put(key, masks, pos)
        return pos

    def cached_apply(self, qk, pos_ids):
        key = getattr(pos_ids, "key", None)
        if key is None:
            return apply_rotary(self, qk, pos_ids)
        mask = None if key[0] == "arange" else _owner(cache, key)
        if key[0] == "mask" and mask is None:
            return apply_rotary(self, qk, pos_ids)
        tkey = ("tables", key, self.d_dim, self.h_dim, self.w_dim, _mode(qk))
        tables = cache.get(tkey, mask)
        if tables is None:
            parts = [_tables(p, d, qk) for p, d in zip(pos_ids, (self.d_dim, self.h_dim, self.w_dim))]
            tables = (torch.cat([c for c, _ in parts], dim=-1), torch.cat([s for _, s in parts], dim=-1))
            cache.put(tkey, mask, tables)
        cos, sin = tables
        r = self.d_dim + self.h_dim + self.w_dim
        x = qk[..., :r]
        y1, y2 = x.unflatten(-1, (-1, 2)).unbind(dim=-1)
        out = (x * cos) + (torch.stack((-y2, y1), dim=-1).flatten(-2) * sin)
        return torch.cat([out, qk[..., r:]], dim=-1) if r < self.attention_head_size else out

    cls.get_position_ids, cls.apply_rotary_embeddings = cached_position_ids, cached_apply
    try:
        yield state
    finally:
        cls.get_position_ids, cls.apply_rotary_embeddings = get_position_ids, apply_rotary


def _owner(cache: _Cache, key: tuple) -> torch.Tensor | None:
    """The mask tensor a mask-keyed position entry was made from (None when it is gone)."""
    hit = cache.masked.get(key)
    return hit[0]() if hit is not None else None


__all__ = ["KNOWN_SOURCE", "cached_rotary", "source_hash"]
