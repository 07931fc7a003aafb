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


def _changed_pairs(rng: np.random.Generator, h: int, w: int):
    """(background, changed image, changed-pixel mask) pairs: small patches and long nearly horizontal and vertical
    staircase edges (whose ends the filter searches for up to `ChangedReach.ALONG` pixels away) changed."""
    bg = _scene_image(rng, h, w)
    yy, xx = np.mgrid[:h, :w]
    bg[np.abs(yy - 0.04 * xx - 20) < 0.5] = (20, 30, 240)  # runs of ~25 pixels
    bg[np.abs(xx - 0.045 * yy - 60) < 0.5] = (240, 30, 20)
    for _ in range(30):
        img = bg.copy()
        y, x = rng.integers(0, h), rng.integers(0, w)
        dy, dx = rng.integers(1, 4), rng.integers(1, 4)
        img[y : y + dy, x : x + dx] = rng.integers(0, 256, 3)
        yield bg, img, np.any(img != bg, -1)


def _filtered_with_reach(bg: np.ndarray, img: np.ndarray, mask: np.ndarray, block: int = 8) -> np.ndarray:
    """The filter of `img` with the edge stage only within reach of `mask` (given as its bounding box's part)."""
    h, w, _ = img.shape
    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    reach = antialias.ChangedReach(mask[y0:y1, x0:x1], y0, x0, block)
    return antialias.fxaa_window(img, antialias.padded_luma(img), 0, h, 0, w, reach, antialias.fxaa(bg))


def test_edge_stage_only_within_reach_of_a_change_gives_the_same_bytes():
    rng = np.random.default_rng(3)
    n = 0
    for bg, img, mask in _changed_pairs(rng, 70, 110):
        for block in (1, 3, 8):
            assert np.array_equal(_filtered_with_reach(bg, img, mask, block), antialias.fxaa(img)), block
        n += 1
    assert n == 30


def test_a_reach_one_pixel_short_misses_a_change(monkeypatch):
    """The reach is the filter's: one pixel shorter and some output near a long edge keeps the background's."""
    monkeypatch.setattr(antialias.ChangedReach, "ALONG", antialias.ChangedReach.ALONG - 1)
    rng = np.random.default_rng(3)
    wrong = sum(
        not np.array_equal(_filtered_with_reach(bg, i, m, 1), antialias.fxaa(i))
        for bg, i, m in _changed_pairs(rng, 70, 110)
    )
    assert wrong > 0


def test_reach_counts_the_plus_shape():
    mask = np.zeros((60, 60), bool)
    mask[30, 30] = True
    a = antialias.ChangedReach.ALONG
    ys = np.array([30, 31, 29, 30, 30, 30 - a, 30 + a, 31, 30 - a - 1, 32, 30 + a, 31])
    xs = np.array([30, 30 + a, 30 - a, 30 + a + 1, 30 - a - 1, 31, 29, 30 + a + 1, 30, 32, 32, 29])
    want = [True] * 3 + [False] * 2 + [True] * 2 + [False] * 4 + [True]
    assert antialias.ChangedReach(mask[20:, 20:], 20, 20, block=1).reaches(ys, xs).tolist() == want
    for block in (2, 8, 16):  # blocks: never False where the shape holds the change, True only near it
        got = antialias.ChangedReach(mask[20:, 20:], 20, 20, block).reaches(ys, xs)
        assert got[np.array(want)].all()
    big = np.zeros((100, 100), bool)
    big[50, 50] = True
    yy, xx = np.mgrid[:100, :100]
    near = antialias.ChangedReach(big, 0, 0, 8).reaches(yy.ravel(), xx.ravel()).reshape(100, 100)
    assert near[50, 50 - a] and near[50 + a, 50]
    assert not near[:11].any() and not near[:, 90:].any()  # more than ALONG + 2 blocks away


def test_compositor_parts_equal_the_whole_frame_filter_of_their_composite():
    """A state drawn in two or three parts: the finished frame is the whole-frame filter of the background with
    each part's used pixels pasted (and each rectangle from its own draw, where another part's draw covers it)
    within reach of the rectangles, the filtered background elsewhere; the buffers hold the background again."""
    from voebench.generator.blender.dirty import _intersect

    rng = np.random.default_rng(13)
    h, w = 100, 160
    bg = _scene_image(rng, h, w)
    bg_aa = antialias.fxaa(bg)
    comp = Compositor(bg, bg_aa)
    layouts = [
        [Rect(5, 5, 30, 25), Rect(120, 60, 150, 95)],  # far apart
        [Rect(40, 30, 60, 50), Rect(62, 30, 80, 50)],  # side by side: each within the other's reach
        [Rect(0, 0, 10, 100), Rect(150, 0, 160, 100), Rect(70, 40, 90, 60)],  # borders
    ]
    for rects in layouts:
        for grow in (0, 9, 200):  # drawn through the rectangle, or wider (a draw covering the other rectangle)
            parts, draws = [], []
            for rect in rects:
                union = rect.grow(grow, w, h)
                drawn = bg.copy()  # a draw shows the static objects outside its state's rectangle...
                drawn[rect.slices] = rng.integers(0, 256, (rect.y1 - rect.y0, rect.x1 - rect.x0, 3))
                for other in rects:  # ...and another value inside another rectangle: that one's own draw wins
                    if other != rect:
                        drawn[other.slices] = 7
                draws.append(drawn)
                parts.append((np.ascontiguousarray(drawn[union.slices]), union, rect))
            composite = bg.copy()
            for (_, union, rect), drawn in zip(parts, draws):
                need = _intersect(union, rect.grow(2 * REACH, w, h))
                composite[need.slices] = drawn[need.slices]
            for (_, _, rect), drawn in zip(parts, draws):
                composite[rect.slices] = drawn[rect.slices]
            want = bg_aa.copy()
            whole = antialias.fxaa(composite)
            for rect in rects:
                inner = rect.grow(REACH, w, h)
                want[inner.slices] = whole[inner.slices]
            assert np.array_equal(comp.frame_parts(parts), want), (rects, grow)
            assert np.array_equal(comp.raw, bg) and np.array_equal(comp.luma, comp.bg_luma)
