"""Shadows bounded between their receiver's faces (issue 29, ninth step): `dirty_regions._slid`, `SLIDE`.

The part of a box's shadow volume inside a receiver's box lies, along each axis the shadow moves on, between the
planes of the receiver's two faces across that axis, so within the hull of the box's corners slid along the shadow
to both planes. On a thin receiver (AVoE's ground) that hull is the shadow's footprint, far smaller than the sweep's
own hull, which reaches the box's height above it: a moving screen's rectangle shrinks most. The frames must still
equal full renders outside the rectangles drawn (test_dirty_avoe.py checks every AVoE sub-type with it on); sliding
the corners against the light instead fails that (the last test)."""

from __future__ import annotations

import numpy as np
import pytest

from test_dirty import FLIP_SHARE, check_dirty_against_full, spread_states
from test_dirty_avoe import SIZE, avoe_scene
from test_dirty_rest import regions_of

from voebench.generator import dirty_regions
from voebench.generator.dirty_regions import _box_corners_many, _slid


def drawn_pixels(scene, size) -> int:
    regions = regions_of(scene, size)
    return sum(x.area for t in scene.first_frames() for x in regions.view(regions.rest(t)).rects(t))


def test_shadow_points_inside_a_receiver_lie_in_every_slid_hulls_rectangle():
    """Random boxes, receivers (flat ones among them) and light directions in front of an AVoE camera: every point
    p + s d (p in the box, any s) that lies inside the receiver projects inside the rectangle of each hull `_slid`
    returns, for every axis (the hull of the (A, M, 16, 3) array)."""
    regions = regions_of(avoe_scene("E2"), SIZE)
    c2w = np.linalg.inv(regions.extrinsics)
    rng = np.random.default_rng(29)
    checked = 0
    for _ in range(400):
        d = rng.normal(size=3)
        d[rng.integers(3)] *= rng.choice([0.0, 1.0])  # some directions along a plane
        d /= np.linalg.norm(d)
        centre = c2w[:3, :3] @ np.array([*rng.uniform(-2, 2, 2), rng.uniform(8, 20)]) + c2w[:3, 3]
        blo = centre + rng.uniform(-2, 0, 3)
        bhi = centre + rng.uniform(0, 2, 3)
        rc = centre + rng.uniform(-4, 4, 3)
        half = rng.uniform(0, 3, 3)
        half[rng.integers(3)] *= rng.choice([0.0, 1.0])  # some receivers flat
        lo, hi = rc - half, rc + half
        box = _box_corners_many(blo[None], bhi[None])  # (1, 8, 3)
        hulls = _slid(box, lo[None], hi[None], d)[:, 0]  # (A, 16, 3)
        assert len(hulls) == int((np.abs(d) >= 1e-12).sum())
        p = rng.uniform(blo, bhi, (4000, 3))
        s = rng.uniform(-40, 40, (4000, 1))
        q = p + s * d
        q = q[((q >= lo) & (q <= hi)).all(1)]
        if not len(q):
            continue
        u, v, behind = regions._uv(q)
        for hull in hulls:
            (x0, y0, x1, y1), off = regions._project_many(hull[None])
            if off[0] or behind.any():
                continue
            m = regions.margin  # the rectangle holds the hull's pixels, widened by the margin, clipped
            inside = (u >= x0[0] + m - 1e-6) | (x0[0] == 0)
            inside &= (u <= x1[0] - m + 1e-6) | (x1[0] == regions.width)
            inside &= (v >= y0[0] + m - 1e-6) | (y0[0] == 0)
            inside &= (v <= y1[0] - m + 1e-6) | (y1[0] == regions.height)
            assert inside.all(), (d, blo, bhi, lo, hi)
            checked += 1
    assert checked > 100


def test_a_moving_screens_shadow_on_the_ground_shrinks_the_rectangles():
    """E2 (the screen comes down and goes up): with the slid hulls the rectangles drawn over the video shrink by
    more than a sixth (at 960x540, bench/render_dirty.py slide: 23%), and the frames equal full renders outside."""
    scene = avoe_scene("E2")
    with_slide = drawn_pixels(scene, SIZE)
    saved = dirty_regions.SLIDE
    dirty_regions.SLIDE = False
    try:
        without = drawn_pixels(scene, SIZE)
    finally:
        dirty_regions.SLIDE = saved
    assert with_slide < 0.83 * without, (with_slide, without)


def test_sliding_along_another_direction_fails(monkeypatch):
    """With the corners slid along a wrong direction (the light's x component turned round; the direction's sign
    alone changes nothing, a line is a line) the shadows' rectangles miss the shadows: the check that frames equal
    full renders outside the rectangles fails, so it can catch a wrong bound."""
    real = dirty_regions._slid
    monkeypatch.setattr(dirty_regions, "_slid", lambda box, lo, hi, d: real(box, lo, hi, np.asarray(d) * [-1, 1, 1]))
    scene = avoe_scene("E2")
    with pytest.raises(AssertionError, match="differ"):
        check_dirty_against_full("E2", scene, spread_states(scene, 3), SIZE, FLIP_SHARE)
