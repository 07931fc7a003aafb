"""A self-trained world model keeps both V-JEPA encoders and scores with each in its role (issue 30, fix 1): the
online encoder encodes the context, the EMA encoder the targets, as facebookresearch/jepa-intuitive-physics does.
An old folder (train.json, no online encoder) loads with a warning and the EMA encoder in both roles."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from voebench.evaluate.surprise import checkpoint  # noqa: E402
from voebench.evaluate.surprise.vjepa2 import VJEPA2Scorer, random_model  # noqa: E402

CONTEXTS = [2, 4, 6]


def _clips() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, (2, 8, 32, 32, 3), dtype=np.uint8)


def _by_hand(model, context_enc, target_enc, x: torch.Tensor) -> np.ndarray:
    """The reference's computation written out with transformers' modules only: targets = layer-normed tokens of
    the whole window from the target encoder; context = the first C frames through the context encoder."""
    with torch.no_grad():
        h = target_enc(pixel_values_videos=x).last_hidden_state
        h = torch.nn.functional.layer_norm(h, (h.shape[-1],))
        per_step = h.shape[1] // (x.shape[1] // 2)
        out = []
        for c in CONTEXTS:
            n = (c // 2) * per_step
            idx = torch.arange(h.shape[1])
            ctx = context_enc(pixel_values_videos=x[:, :c]).last_hidden_state
            pred = model.predictor(
                encoder_hidden_states=ctx,
                context_mask=[idx[:n].expand(len(x), -1)],
                target_mask=[idx[n:].expand(len(x), -1)],
            ).last_hidden_state
            out.append((pred - h[:, n:]).abs().mean((1, 2)))
    return torch.stack(out, 1).numpy()


def test_scoring_uses_the_online_encoder_for_the_context_and_the_ema_encoder_for_the_targets(tmp_path):
    model = random_model("tiny", seed=0)
    ema = model.encoder
    online = random_model("tiny", seed=1).encoder  # an online encoder far from the EMA one
    assert checkpoint.encoder_gap(online, ema) > 0.01
    folder = str(tmp_path / "wm")
    checkpoint.save(model, online, ema, folder)
    assert os.path.isfile(os.path.join(folder, checkpoint.ONLINE_ENCODER))

    scorer = VJEPA2Scorer.from_pretrained(folder, device="cpu")
    assert scorer.info()["encoders"] == "online+ema"
    assert checkpoint.encoder_gap(scorer.context_encoder, online) == 0.0
    assert checkpoint.encoder_gap(scorer.model.encoder, ema) == 0.0
    clips = _clips()
    got = scorer.surprise(clips, CONTEXTS)
    x = scorer.preprocess(clips)
    right = _by_hand(scorer.model, online, ema, x)
    np.testing.assert_allclose(got, right, rtol=1e-5, atol=1e-6)
    # each wrong assignment of the roles gives other numbers, so the check above can fail
    for ctx_enc, tgt_enc in ((ema, ema), (online, online), (ema, online)):
        assert np.abs(_by_hand(scorer.model, ctx_enc, tgt_enc, x) - got).max() > 1e-3


def test_an_old_folder_without_the_online_encoder_loads_with_a_warning(tmp_path):
    model = random_model("tiny", seed=0)
    folder = str(tmp_path / "old")
    model.save_pretrained(folder)
    with open(os.path.join(folder, "train.json"), "w") as fh:  # written by voebench's training
        json.dump({"steps": 1}, fh)
    with pytest.warns(checkpoint.OldCheckpointWarning, match="EMA encoder encodes the context too"):
        scorer = VJEPA2Scorer.from_pretrained(folder, device="cpu")
    assert scorer.context_encoder is None and scorer.info()["encoders"] == "ema-only"
    clips = _clips()
    want = _by_hand(scorer.model, scorer.model.encoder, scorer.model.encoder, scorer.preprocess(clips))
    np.testing.assert_allclose(scorer.surprise(clips, CONTEXTS), want, rtol=1e-5, atol=1e-6)
    # a plain save_pretrained folder (a released or random checkpoint) has one encoder and no warning
    os.remove(os.path.join(folder, "train.json"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", checkpoint.OldCheckpointWarning)
        assert VJEPA2Scorer.from_pretrained(folder, device="cpu").info()["encoders"] == "single"
    # an online file that is not an encoder of this model is refused
    from safetensors.torch import save_file

    save_file({"x": torch.zeros(1)}, os.path.join(folder, checkpoint.ONLINE_ENCODER))
    with pytest.raises(ValueError, match="not an encoder of this model"):
        checkpoint.load(folder)


def test_training_saves_both_encoders(tmp_path):
    from voebench.evaluate.surprise import train
    from voebench.evaluate.surprise.protocol import Protocol

    videos = [np.random.default_rng(i).integers(0, 256, (10, 32, 32, 3), dtype=np.uint8) for i in range(2)]
    proto = Protocol(window=8, context_lengths=(2, 4, 6), fixed_context=4, frame_step=1)
    info = train.train_world_model(
        videos, str(tmp_path / "wm"), proto, preset="tiny", steps=3, batch=2, lr=1e-2, device="cpu"
    )
    gap = info["encoders"]["max_abs_weight_difference"]
    assert gap > 0  # after steps with momentum 0.99 the EMA encoder trails the online one
    scorer = VJEPA2Scorer.from_pretrained(str(tmp_path / "wm"), device="cpu")
    assert scorer.info()["encoders"] == "online+ema"
    assert checkpoint.encoder_gap(scorer.context_encoder, scorer.model.encoder) == pytest.approx(gap)
