"""World-model preprocessing takes the central square of a frame, then resizes it (issue 30, fix 2), as the
reference's evaluation transform and transformers' V-JEPA 2 processor do; a 16:9 or 4:3 frame is never squashed.

The frames have a red left border and a blue right border exactly as wide as the part the crop must cut away,
and a pattern inside: the crop must keep the pattern pixel for pixel and no border pixel."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from voebench.evaluate.surprise.vjepa2 import (  # noqa: E402
    IMAGENET_MEAN,
    IMAGENET_STD,
    VJEPA2Scorer,
    center_square,
    random_model,
    square_box,
)

RED, BLUE = (255, 0, 0), (0, 0, 255)


def _framed(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """A (1, 2, h, w, 3) clip: the central square holds a pattern with neither pure red nor pure blue, the columns
    (or rows) outside it are red before and blue after; and the pattern itself."""
    top, left, side = square_box(h, w)
    rng = np.random.default_rng(h * 1000 + w)
    inside = rng.integers(20, 200, (2, side, side, 3), dtype=np.uint8)
    clip = np.empty((2, h, w, 3), np.uint8)
    clip[:] = BLUE
    if w > h:
        clip[:, :, :left] = RED
    else:
        clip[:, :top] = RED
    clip[:, top : top + side, left : left + side] = inside
    return clip[None], inside[None]


def _unnormalise(x: torch.Tensor) -> np.ndarray:
    mean = torch.tensor(IMAGENET_MEAN).view(1, 1, 3, 1, 1)
    std = torch.tensor(IMAGENET_STD).view(1, 1, 3, 1, 1)
    return np.rint(((x * std + mean) * 255).permute(0, 1, 3, 4, 2).numpy()).astype(int)


@pytest.mark.parametrize(
    ("h", "w", "box"), [(36, 64, (0, 14, 36)), (48, 64, (0, 8, 48)), (64, 48, (8, 0, 48)), (36, 65, (0, 14, 36))]
)
def test_the_central_square_is_cut_exactly(h, w, box):
    """16:9 (64x36), 4:3 (64x48), portrait 3:4, and an odd margin (the extra column goes right, as the reference's
    `(width - w) // 2` puts it)."""
    assert square_box(h, w) == box
    clip, inside = _framed(h, w)
    np.testing.assert_array_equal(center_square(clip), inside)
    np.testing.assert_array_equal(center_square(torch.from_numpy(clip)).numpy(), inside)


@pytest.mark.parametrize(("h", "w"), [(32, 57), (32, 43)])  # ~16:9 and ~4:3 frames 32 px high: no resize
def test_the_scorer_sees_the_central_square_pixel_for_pixel(h, w):
    scorer = VJEPA2Scorer(random_model("tiny"), device="cpu")  # crop 32
    clip, inside = _framed(h, w)
    np.testing.assert_array_equal(_unnormalise(scorer.preprocess(clip)), inside.astype(int))


@pytest.mark.parametrize(("h", "w"), [(72, 128), (72, 96)])  # 16:9 and 4:3, resized 72 -> 32
def test_a_resized_crop_holds_no_border_pixel_and_is_not_squashed(h, w):
    scorer = VJEPA2Scorer(random_model("tiny"), device="cpu")
    clip, inside = _framed(h, w)
    got = scorer.preprocess(clip)
    want = scorer.preprocess(inside)  # the square alone, resized the same way
    assert got.shape == (1, 2, 3, 32, 32)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    # a squashed frame (the whole 16:9 or 4:3 frame resized to a square) would carry the red and blue borders
    px = _unnormalise(got)
    assert not ((px[..., 0] > 230) & (px[..., 2] < 20)).any() and not ((px[..., 2] > 230) & (px[..., 0] < 20)).any()
