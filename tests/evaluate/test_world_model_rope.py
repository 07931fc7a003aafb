"""evaluate/surprise/rope.py: cached rotary tables give transformers' own outputs and gradients, bit for bit."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from voebench.evaluate.surprise import rope  # noqa: E402
from voebench.evaluate.surprise.vjepa2 import TINY, prediction_error, random_model, targets  # noqa: E402

#: tiny with a head size (32) whose three rotary axes (10 each) leave 2 features unrotated, as in small (64: 3 x 20 + 4)
CFG = dict(TINY, hidden_size=64, num_attention_heads=2)


def _run(model, x, autocast):
    """Targets (encoder, no mask), the predictor's error at two context lengths (masked positions), and the
    gradients of their sum with respect to every weight."""
    model.zero_grad(set_to_none=True)
    tgt = targets(model.encoder, x, autocast)
    errs = [prediction_error(model, tgt, x, c, autocast) for c in (4, 8)]
    sum(e.sum() for e in errs).backward()
    grads = {k: p.grad.clone() for k, p in model.named_parameters() if p.grad is not None}
    return [tgt, *errs], grads


@pytest.mark.parametrize("dtype", [None, torch.bfloat16])
def test_cached_rotary_equals_transformers_bit_for_bit(dtype):
    model = random_model(CFG, seed=1).train()
    x = torch.randn(2, 16, 3, 32, 32, generator=torch.Generator().manual_seed(0))

    def autocast():
        return torch.autocast("cpu", dtype=dtype, enabled=dtype is not None)

    want, want_grads = _run(model, x, autocast)
    with rope.cached_rotary() as state:
        assert state["applied"]
        got, got_grads = _run(model, x, autocast)
        again, _ = _run(model, x, autocast)  # the second pass reads the cached tables
    for a, b, c in zip(want, got, again):
        assert a.dtype == b.dtype and torch.equal(a, b) and torch.equal(a, c)
    assert want_grads.keys() == got_grads.keys() and len(want_grads) > 10
    assert all(torch.equal(want_grads[k], got_grads[k]) for k in want_grads)
    # the class is restored on leaving the context
    from transformers.models.vjepa2 import modeling_vjepa2 as mv

    assert mv.VJEPA2RopeAttention.apply_rotary_embeddings.__qualname__.startswith("VJEPA2RopeAttention.")


def test_the_cache_is_used_and_a_new_mask_is_not_served_an_old_entry():
    """Fewer operators with the cache (the test fails if the patch does nothing); predictor masks of another
    content in a new tensor get their own tables (a stale entry would change the output)."""
    from torch.profiler import ProfilerActivity, profile

    model = random_model(CFG, seed=2).eval()
    x = torch.randn(1, 16, 3, 32, 32, generator=torch.Generator().manual_seed(1))

    def ops() -> int:
        with torch.no_grad(), profile(activities=[ProfilerActivity.CPU]) as prof:
            targets(model.encoder, x)
        return sum(1 for e in prof.events() if e.cpu_parent is None and e.name.startswith("aten::"))

    plain = ops()
    with rope.cached_rotary():
        ops()  # fills the cache
        cached = ops()
        with torch.no_grad():
            tgt = targets(model.encoder, x)
            got = [prediction_error(model, tgt, x, c) for c in (2, 4, 6, 8, 10)]
    with torch.no_grad():
        want = [prediction_error(model, tgt, x, c) for c in (2, 4, 6, 8, 10)]
    assert cached < plain * 0.6, (cached, plain)
    assert all(torch.equal(a, b) for a, b in zip(want, got))


def test_other_transformers_code_is_left_alone(monkeypatch):
    monkeypatch.setattr(rope, "KNOWN_SOURCE", "another version")
    from transformers.models.vjepa2 import modeling_vjepa2 as mv

    before = mv.VJEPA2RopeAttention.apply_rotary_embeddings
    with rope.cached_rotary() as state:
        assert state["applied"] is False
        assert mv.VJEPA2RopeAttention.apply_rotary_embeddings is before


def test_masks_of_the_same_shape_and_other_content_get_their_own_tables():
    """Position masks made one after another (a freed tensor's id is often reused) with the same shape and other
    positions: each output must equal transformers' own for that mask."""
    model = random_model(CFG, seed=3).eval()
    attn = model.predictor.layer[0].attention
    h = torch.randn(2, 12, CFG["pred_hidden_size"], generator=torch.Generator().manual_seed(2))
    masks = [torch.randperm(128, generator=torch.Generator().manual_seed(k))[:12].expand(2, -1) for k in range(6)]
    with torch.no_grad():
        want = [attn(h, position_mask=m.clone())[0] for m in masks]
        with rope.cached_rotary():
            got = [attn(h, position_mask=m.clone())[0] for m in masks]
    assert not torch.equal(want[0], want[1])  # the positions matter
    assert all(torch.equal(a, b) for a, b in zip(want, got))
