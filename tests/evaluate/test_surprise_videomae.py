"""VideoMAE pixel-reconstruction surprise (evaluate/surprise/videomae.py) on a tiny random model, on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from voebench.errors import UsageError  # noqa: E402
from voebench.evaluate.surprise import videomae  # noqa: E402
from voebench.evaluate.surprise.run import make_scorer  # noqa: E402


def _windows(b: int = 2, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (b, 16, 36, 48, 3), dtype=np.uint8)  # 4:3, cropped


def test_targets_are_the_labels_transformers_trains_on():
    """MSE between the logits and our targets of the masked tokens is VideoMAEForPreTraining's own loss."""
    scorer = videomae.VideoMAEScorer(videomae.random_model("tiny", 1), device="cpu")
    x = scorer.preprocess(_windows())
    cfg = scorer.model.config
    tgt = videomae.pixel_targets(x, cfg.tubelet_size, cfg.patch_size)
    mask = videomae.future_mask(tgt.shape[1], 16, 6, cfg.tubelet_size, 2, x.device)
    with torch.no_grad():
        out = scorer.model(pixel_values=x, bool_masked_pos=mask)
    mine = ((out.logits - tgt[mask].reshape(2, -1, tgt.shape[-1])) ** 2).mean()
    assert float(mine) == pytest.approx(float(out.loss), rel=1e-5)


def test_the_context_is_the_first_frames_alone():
    """Changing a frame after the context leaves the reconstruction unchanged (the encoder never saw it) and
    changes the surprise; changing a context frame changes the reconstruction."""
    scorer = videomae.VideoMAEScorer(videomae.random_model("tiny", 2), device="cpu")
    clips = _windows(1)
    later, earlier = clips.copy(), clips.copy()
    later[0, 9] = 255 - later[0, 9]
    earlier[0, 1] = 255 - earlier[0, 1]
    cfg = scorer.model.config

    def logits(c):
        x = scorer.preprocess(c)
        n = (16 // cfg.tubelet_size) * (cfg.image_size // cfg.patch_size) ** 2
        with torch.no_grad():
            return scorer.model(pixel_values=x, bool_masked_pos=videomae.future_mask(n, 16, 8, 2, 1, x.device)).logits

    assert torch.equal(logits(clips), logits(later))
    assert not torch.equal(logits(clips), logits(earlier))
    s = scorer.surprise(np.concatenate([clips, later]), [8])
    assert s[0, 0] != s[1, 0]


def test_surprise_is_the_mean_l1_of_the_masked_tokens():
    scorer = videomae.VideoMAEScorer(videomae.random_model("tiny", 3), device="cpu")
    clips = _windows(3, seed=4)
    got = scorer.surprise(clips, [2, 10])
    assert got.shape == (3, 2)
    x = scorer.preprocess(clips)
    cfg = scorer.model.config
    tgt = videomae.pixel_targets(x, 2, cfg.patch_size)
    for j, c in enumerate((2, 10)):
        mask = videomae.future_mask(tgt.shape[1], 16, c, 2, 3, x.device)
        with torch.no_grad():
            lg = scorer.model(pixel_values=x, bool_masked_pos=mask).logits
        want = (lg - tgt[mask].reshape(3, -1, tgt.shape[-1])).abs().mean((1, 2)).numpy()
        assert np.allclose(got[:, j], want, rtol=1e-5)


def test_registered_kinds_and_bad_specs():
    s = make_scorer("videomae-random:tiny", device="cpu", seed=5)
    assert s.info()["kind"] == "videomae" and s.info()["parameters"] > 0
    with pytest.raises(ValueError, match="windows of 16"):
        s.check(8, [2, 4])
    with pytest.raises(UsageError, match="preset must be one of"):
        make_scorer("videomae-random:huge", device="cpu")
    a = make_scorer("videomae-random:tiny", device="cpu", seed=0).surprise(_windows(1), [4])
    b = make_scorer("videomae-random:tiny", device="cpu", seed=1).surprise(_windows(1), [4])
    assert a[0, 0] != b[0, 0]  # the seed sets the random weights
