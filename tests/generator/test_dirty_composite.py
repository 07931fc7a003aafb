"""The dirty path's compositor (generator/blender/dirty.py `Compositor`) and the windowed filter it uses
(`antialias.fxaa_window`): bit for bit the whole-frame filter, wherever the rectangle lies (image borders
included), and its working buffers hold the background again after every frame."""

from __future__ import annotations

import numpy as np

from voebench.generator import antialias
from voebench.generator.blender.dirty import REACH, Compositor
from voebench.generator.dirty_regions import Rect


def _scene_image(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Flat-shaded boxes and a few thin lines on a background: the aliased edges the filter works on."""
    img = np.full((h, w, 3), 90, np.uint8)
    for _ in range(12):
        y0, x0 = rng.integers(0, h - 2), rng.integers(0, w - 2)
        y1, x1 = rng.integers(y0 + 1, h + 1), rng.integers(x0 + 1, w + 1)
        img[y0:y1, x0:x1] = rng.integers(0, 256, 3)
    yy, xx = np.mgrid[:h, :w]
    img[np.abs(yy - 0.37 * xx - 5) < 0.6] = (250, 240, 30)  # a slanted staircase edge
    return img


def test_fxaa_window_is_the_whole_frame_filter_on_any_window():
    rng = np.random.default_rng(7)
    img = _scene_image(rng, 61, 83)
    whole = antialias.fxaa(img)
    p = antialias.padded_luma(img)
    for y0, y1, x0, x1 in [(0, 61, 0, 83), (0, 1, 0, 83), (60, 61, 82, 83), (5, 40, 0, 9), (13, 14, 20, 70)]:
        assert np.array_equal(antialias.fxaa_window(img, p, y0, y1, x0, x1), whole[y0:y1, x0:x1])


def test_compositor_frames_equal_the_whole_frame_filter():
    rng = np.random.default_rng(11)
    h, w = 90, 120
    bg = _scene_image(rng, h, w)
    comp = Compositor(bg, antialias.fxaa(bg))
    cases = 0
    rects = [Rect(40, 30, 60, 50), Rect(0, 0, 12, 9), Rect(100, 70, 120, 90), Rect(0, 35, 120, 41), Rect(3, 3, 5, 5)]
    for rect in rects:
        for grow in (0, 7, 70):  # the drawn rectangle is the state's, or a group's union around it
            union = rect.grow(grow, w, h)
            frame = bg.copy()
            frame[rect.slices] = rng.integers(0, 256, (rect.y1 - rect.y0, rect.x1 - rect.x0, 3))  # what moved
            frame[rect.y0 + 1 : rect.y1 - 1 :, rect.x0 : rect.x0 + 1] = 255
            got = comp.frame(np.ascontiguousarray(frame[union.slices]), union, rect)
            assert np.array_equal(got, antialias.fxaa(frame)), (rect, grow)
            assert np.array_equal(comp.raw, bg) and np.array_equal(comp.luma, comp.bg_luma)  # buffers restored
            cases += 1
    assert cases == 15


def test_compositor_keeps_the_background_beyond_the_filters_reach():
    """Pixels drawn in the union but farther than the filter's reach from the state's rectangle are the background's
    (there the draw shows static objects): a frame whose union holds other pixels there still keeps the filtered
    background's, as the rule says, and differs from the filter of what was drawn only there."""
    rng = np.random.default_rng(5)
    h, w = 80, 100
    bg = _scene_image(rng, h, w)
    bg_aa = antialias.fxaa(bg)
    comp = Compositor(bg, bg_aa)
    rect, union = Rect(10, 10, 20, 20), Rect(0, 0, 100, 80)
    drawn = bg.copy()
    drawn[60:70, 80:90] = 0  # far from rect: not the state's change
    got = comp.frame(drawn, union, rect)
    inner = rect.grow(REACH, w, h)
    assert np.array_equal(got[60:70, 80:90], bg_aa[60:70, 80:90])
    assert np.array_equal(got[inner.slices], antialias.fxaa(drawn)[inner.slices])
