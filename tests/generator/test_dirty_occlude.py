"""Pixels hidden behind solid static boxes cut from the dirty rectangles (issue 29, eighth step):
`DirtyRegions._occluders`, `_inside`, `dirty_regions._cut`.

A moving object (or the part of its shadow volume on a receiver) that lies strictly beyond the far face of a solid
static box, seen from the camera, is hidden wherever that face projects (t01's screen behind the front panel; on
t04 the rectangles drawn shrink most). The frames must still equal full renders outside the rectangles drawn; cutting
what lies in front of an occluder instead of beyond it fails that (the last test)."""

from __future__ import annotations

import numpy as np
import pytest

from test_dirty import FLIP_SHARE, check_dirty_against_full, l2_scene, spread_states
from test_dirty_rest import regions_of

from voebench.generator import dirty_regions
from voebench.generator.dirty_regions import _cut

T04 = "t04_solidity_two_levels"
T01 = "t01_unchangeableness"


def drawn_pixels(scene, size) -> int:
    regions = regions_of(scene, size)
    return sum(x.area for t in scene.first_frames() for x in regions.view(regions.rest(t)).rects(t))


def test_cut_takes_off_only_bands_that_leave_one_rectangle():
    r = (10, 10, 50, 40)
    assert _cut(r, [0, 0, 60, 20]) == (10, 20, 50, 40)  # across the width, at the top
    assert _cut(r, [5, 30, 55, 45]) == (10, 10, 50, 30)  # at the bottom
    assert _cut(r, [40, 0, 60, 45]) == (10, 10, 40, 40)  # across the height, at the right
    assert _cut(r, [0, 5, 15, 45]) == (15, 10, 50, 40)  # at the left
    x0, y0, x1, y1 = _cut(r, [0, 0, 60, 60])  # holds it: nothing left
    assert x0 >= x1 or y0 >= y1
    assert _cut(r, [20, 20, 30, 30]) == r  # in its middle: two pieces would be left, so nothing is cut
    assert _cut(r, [20, 0, 30, 60]) == r  # across its middle
    assert _cut(r, [0, 0, 60, 5]) == r  # apart from it


def test_occluder_rectangles_lie_inside_the_projected_face_by_the_margin():
    """Random planar quads in front of the camera: every point of the returned pixels, widened by the margin, lies
    inside the quad's projection (so the face covers each of those pixels with room for rasterization)."""
    regions = regions_of(l2_scene(T04), (160, 120))
    e, k, m = regions.extrinsics, regions.intrinsics, regions.margin
    c2w = np.linalg.inv(e)
    rng = np.random.default_rng(4)
    found = 0
    for _ in range(300):
        centre = c2w[:3, :3] @ np.array([*rng.uniform(-1.5, 1.5, 2), rng.uniform(2, 8)]) + c2w[:3, 3]
        axis = int(rng.integers(3))
        half = rng.uniform(0.2, 3.0, 2)
        a, b = [j for j in range(3) if j != axis]
        quad = np.repeat(centre[None], 4, 0)
        quad[:, a] += [-half[0], half[0], half[0], -half[0]]
        quad[:, b] += [-half[1], -half[1], half[1], half[1]]
        r = regions._inside(quad)
        if r.empty:
            continue
        found += 1
        cam = (e[:3, :3] @ quad.T).T + e[:3, 3]
        uv = (k @ cam.T).T
        u, v = uv[:, 0] / uv[:, 2], uv[:, 1] / uv[:, 2]
        xs, ys = np.meshgrid(np.linspace(r.x0 - m, r.x1 + m, 9), np.linspace(r.y0 - m, r.y1 + m, 9))
        cross = np.stack(
            [(u[(i + 1) % 4] - u[i]) * (ys - v[i]) - (v[(i + 1) % 4] - v[i]) * (xs - u[i]) for i in range(4)]
        )
        assert (cross >= -1e-6).all() or (cross <= 1e-6).all(), (quad, r)
    assert found > 50


def test_t04_hidden_pieces_are_cut_and_frames_equal_full_renders():
    """On t04 the rectangles drawn over the video shrink by more than a third (the same code without occluders
    draws them whole), and the frames outside them equal full renders."""
    scene = l2_scene(T04)
    with_occluders = drawn_pixels(scene, (64, 48))
    saved = dirty_regions.OCCLUDE
    dirty_regions.OCCLUDE = False
    try:
        without = drawn_pixels(scene, (64, 48))
    finally:
        dirty_regions.OCCLUDE = saved
    assert with_occluders < 0.65 * without, (with_occluders, without)
    regions = regions_of(scene, (64, 48))
    assert regions.occluders is not None
    ts = scene.first_frames()
    check_dirty_against_full(T04, scene, ts[:: max(1, len(ts) // 6)], (64, 48), FLIP_SHARE)


def test_t01_screen_behind_the_front_panel_equals_full_renders():
    scene = l2_scene(T01)
    check_dirty_against_full(T01, scene, spread_states(scene, 4), (160, 120), FLIP_SHARE)


def test_cutting_what_lies_in_front_fails(monkeypatch):
    """With the side of each occluder's plane flipped, hulls in front of the far face are cut where they are seen:
    the check above fails, so it can catch a wrong occlusion rule."""
    real = dirty_regions._cull

    def flipped(pts, x0, y0, x1, y1, may, occluders):
        axes, planes, sides, rects = occluders
        return real(pts, x0, y0, x1, y1, may, (axes, planes, -sides, rects))

    monkeypatch.setattr(dirty_regions, "_cull", flipped)
    scene = l2_scene(T04)
    ts = scene.first_frames()
    with pytest.raises(AssertionError, match="differ"):
        check_dirty_against_full(T04, scene, ts[:: max(1, len(ts) // 6)], (64, 48), FLIP_SHARE)
