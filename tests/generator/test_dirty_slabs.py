"""Long dynamic objects bounded in slabs (issue 29, seventh step): `dirty_regions.slab_boxes`, `DirtyRegions.own_rect`.

A long object turned off the world axes (t07's tilting plank) has a world bounding box far larger than itself; cut
across its longest side, each slab's world box is close to the slab, so the object's rectangle (and its shadow's)
shrinks. The slabs' union holds the object, so the frame outside the rectangles must still equal a full render
exactly; a slab left out fails that (the last test)."""

from __future__ import annotations

import numpy as np
import pytest

from test_dirty import FLIP_SHARE, check_dirty_against_full, l2_scene
from test_dirty_rest import regions_of

from voebench.generator import dirty_regions
from voebench.generator.dirty_regions import EMPTY, slab_boxes

SIZE = (64, 48)
T07 = "t07_permanence_drawbridge"


def test_slab_boxes_cut_only_long_boxes_and_hold_every_point():
    rng = np.random.default_rng(0)
    plank = rng.uniform([-2.0, -0.3, -0.05], [2.0, 0.3, 0.05], (200, 3))
    boxes = slab_boxes(plank, 4)
    assert boxes.shape == (4, 8, 3)
    lo, hi = boxes.min(1), boxes.max(1)  # (4, 3) each
    inside = ((plank[:, None] >= lo[None]) & (plank[:, None] <= hi[None])).all(2)
    assert inside.any(1).all()  # every point lies in some slab
    assert (hi[:, 0] - lo[:, 0] < plank[:, 0].ptp() / 3).all()  # cut across x, the longest side
    np.testing.assert_array_equal(lo[:, 1:], np.broadcast_to(plank.min(0)[1:], (4, 2)))
    assert slab_boxes(rng.uniform(-1, 1, (50, 3)), 4).shape == (1, 8, 3)  # not long: the box whole
    assert slab_boxes(plank, 1).shape == (1, 8, 3)


def test_slabs_shrink_t07s_rectangles_and_never_grow_any():
    """On t07 the plank is long: with slabs each object's rectangle lies within the one without and, summed over the
    video, is smaller; each still holds the plank's own projected vertices."""
    scene = l2_scene(T07)
    with_slabs = regions_of(scene, (640, 480))
    assert with_slabs.slabs, "t07's plank is not cut: the test would not exercise slabs"
    saved = dirty_regions.SLABS
    dirty_regions.SLABS = 1
    try:
        plain = regions_of(scene, (640, 480))
    finally:
        dirty_regions.SLABS = saved
    assert not plain.slabs
    a = b = 0
    for t in scene.first_frames()[::7]:
        for name in with_slabs.corners:
            if not with_slabs.visible[name][t]:
                continue
            r, q = with_slabs.own_rect(name, t), plain.own_rect(name, t)
            assert r == EMPTY or (q.x0 <= r.x0 and q.y0 <= r.y0 and q.x1 >= r.x1 and q.y1 >= r.y1), (t, name)
            verts = with_slabs.corners[name][t]
            own = with_slabs._project(verts)  # the hull of the object's own vertices
            assert own.empty or (r.x0 <= own.x0 and r.y0 <= own.y0 and r.x1 >= own.x1 and r.y1 >= own.y1)
            a, b = a + r.area, b + q.area
    assert a < 0.8 * b, (a, b)


def test_t07_with_slabs_equals_full_renders():
    scene = l2_scene(T07)
    ts = scene.first_frames()
    check_dirty_against_full(T07, scene, ts[5 :: max(1, len(ts) // 6)], SIZE, FLIP_SHARE)


def test_a_slab_left_out_fails(monkeypatch):
    """Bounding the plank by its first slabs only (one left out) leaves its pixels outside the rectangles: the check
    above fails, so it can catch slabs that do not hold the object."""
    real = dirty_regions.slab_boxes

    def missing_one(local, slabs=None, long=dirty_regions.LONG):
        boxes = real(local, slabs, long)
        return boxes[:-1] if len(boxes) > 1 else boxes

    monkeypatch.setattr(dirty_regions, "slab_boxes", missing_one)
    scene = l2_scene(T07)
    ts = scene.first_frames()
    with pytest.raises(AssertionError, match="differ"):
        check_dirty_against_full(T07, scene, ts[5 :: max(1, len(ts) // 6)], SIZE, FLIP_SHARE)
