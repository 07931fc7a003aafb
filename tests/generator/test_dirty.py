"""The dirty render path (generator/dirty_regions.py, generator/blender/dirty.py) against full renders.

On every Level 2 test: outside each frame's dirty rectangle (widened by the filter's reach) the dirty path's
frame must equal the full render exactly -- that is where the rectangle claims nothing changed, so a missed
shadow or object fails here. Inside, the narrowed camera's float32 projection may put a triangle edge on the
other side of a pixel centre: at most `FLIP_SHARE` of a frame's pixels may differ there (measured: 0-0.05% at
640x480, bench/results/issue29-*.json)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from voebench.generator.dirty_regions import EMPTY, Rect, _pieces, _sweep_cap, _sweep_range, merge_rects

FLIP_SHARE = 0.01  # of a frame's pixels; at 64x48 one flipped edge pixel is 0.03%
SIZE = (64, 48)


def l2_tests() -> list[str]:
    from voebench.generator.suite import load_suite

    return list(load_suite("grasp-l2").tests)


def l2_scene(test: str, seconds: float = 10.0, fps: float = 25.0):
    """The violated video of the test's first trial whose draw builds at this frame rate (the violated one has
    the disappearances and colour changes)."""
    return first_scene("grasp-l2", test, seconds, fps)


def first_scene(suite_name: str, test: str, seconds: float, fps: float):
    """The last condition's video (a Level 2 test's violated one; a Level 1 test's only one) of the test's first
    trial whose draw builds at this timing."""
    from voebench.errors import Infeasible
    from voebench.generator.suite import Job, Timing, load_suite

    suite = load_suite(suite_name)
    for index in range(8):
        seed, p = suite.sample(test, suite.space(test), 0, index)
        try:
            cond = suite.conditions(test, p, {"seed": seed})[-1]
            job = Job(suite_name, test, index, cond, seed, f"{suite_name}/{test}/{index:05d}")
            return suite.make_scene(job, p, Timing(seconds, fps))
        except (Infeasible, RuntimeError):
            continue
    raise AssertionError(f"{test}: no buildable draw among the first 8")


def spread_states(scene, n: int) -> list[int]:
    firsts = scene.first_frames()
    return firsts[:: max(1, len(firsts) // n)][:n]


def check_dirty_against_full(test: str, scene, ts: list[int], size: tuple[int, int], inside_share: float) -> None:
    """Draw states `ts` of `scene` by the dirty and the full path at `size`: outside each frame's dirty rectangle
    (widened by the filter's reach) the frames are equal, and at most `inside_share` of a frame's pixels differ."""
    from voebench.generator.blender.dirty import REACH
    from voebench.generator.blender.render import Renderer, RenderSettings

    got = {}
    for path in ("dirty", "full"):
        r = Renderer(scene, RenderSettings(*size, render_path=path))
        try:
            got[path] = {t: v[0] for t, v in r.render_batch(ts, ("rgb",)).items()}
            if path == "dirty":
                assert r.dirty is not None
                rects = {t: r.dirty.drawn_rects(t) for t in ts}
                stats = dict(r.dirty.stats)
        finally:
            r.close()
    assert stats["frames"] == len(ts)
    for t in ts:
        a, b = got["dirty"][t], got["full"][t]
        assert a.shape == b.shape == (size[1], size[0], 3) and a.dtype == np.uint8
        differ = np.any(a != b, -1)
        inside = np.zeros(differ.shape, bool)
        for rect in rects[t]:  # the rectangles drawn apart, each widened by the filter's reach
            inside[rect.grow(REACH, *size).slices] = True
        assert not differ[~inside].any(), f"{test} frame {t}: pixels outside the dirty rectangles {rects[t]} differ"
        assert differ.mean() <= inside_share, f"{test} frame {t}: {differ.sum()} pixels differ"


@pytest.mark.parametrize("test", l2_tests())
def test_dirty_frames_equal_full_renders(test):
    scene = l2_scene(test)
    check_dirty_against_full(test, scene, spread_states(scene, 3), SIZE, FLIP_SHARE)


def test_a_static_object_hidden_throughout_stays_out_of_the_background():
    from voebench.generator.blender.render import Renderer, RenderSettings

    scene = l2_scene("t08_inertia_bounce")
    scene.objects["tray_wall_far"].visible[:] = False  # static: hidden in every frame
    ts = spread_states(scene, 2)
    got = {}
    for path in ("dirty", "full"):
        r = Renderer(scene, RenderSettings(*SIZE, render_path=path))
        try:
            got[path] = r.render_batch(ts, ("rgb",))
        finally:
            r.close()
    for t in ts:
        differ = np.any(got["dirty"][t][0] != got["full"][t][0], -1)
        assert differ.mean() <= FLIP_SHARE, f"frame {t}: {differ.sum()} pixels differ"


def test_dirty_path_refuses_settings_it_cannot_composite():
    from voebench.generator.blender.render import Renderer, RenderSettings

    scene = l2_scene("t08_inertia_bounce")
    wrong: list[dict[str, Any]] = [{"antialias": "blender"}, {"ground_truth": "workbench"}, {"engine": "cycles"}]
    for kw in wrong:
        with pytest.raises(ValueError, match="render_path 'dirty'"):
            Renderer(scene, dataclasses.replace(RenderSettings(*SIZE, render_path="dirty"), **kw))
    with pytest.raises(ValueError, match="unknown render_path"):
        Renderer(scene, RenderSettings(*SIZE, render_path="fast"))


def test_hidden_object_leaves_no_rectangle_and_a_moving_camera_the_whole_image():
    from voebench.generator.dirty_regions import DirtyRegions

    scene = l2_scene("t08_inertia_bounce")
    unit = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    corners = {n: unit * o.dimensions for n, o in scene.objects.items()}
    regions = DirtyRegions(scene, corners, (0.577, 0.577, 0.577), *SIZE)
    assert regions.dynamic == ["ball"]
    assert not regions.rect(0).empty
    scene.objects["ball"].visible[1] = False
    assert DirtyRegions(scene, corners, (0.577, 0.577, 0.577), *SIZE).rect(1) == EMPTY
    scene.camera.position[2] = scene.camera.position[2] + 0.1
    assert DirtyRegions(scene, corners, (0.577, 0.577, 0.577), *SIZE).rect(0) == Rect(0, 0, *SIZE)


def test_sweep_range_and_cap_on_hand_made_boxes():
    d = np.array([0.0, 0.0, -1.0])  # light straight down
    blo, bhi = np.array([0.0, 0.0, 2.0]), np.array([1.0, 1.0, 3.0])
    lo = np.array([[-5.0, -5.0, -1.0], [3.0, 3.0, -1.0]])  # a table under the box, a box off to the side
    hi = np.array([[5.0, 5.0, 0.0], [4.0, 4.0, 0.0]])
    s0, s1 = _sweep_range(blo, bhi, d, lo, hi)
    assert (s0[0], s1[0]) == (2.0, 4.0)  # from the box's bottom reaching the top face to its top reaching the bottom
    assert s0[1] > s1[1]  # straight down never reaches the side box
    assert _sweep_cap(blo, bhi, d, lo[:1], hi[:1]) == 3.0  # past the top face every ray is in the table's shadow
    assert _sweep_cap(blo, bhi, d, lo[1:], hi[1:]) == float("inf")


def test_sweep_cap_through_any_face_and_pieces():
    """A solid wall caught through its side face: the cap is the farthest corner's entry; a ray that only grazes
    the wall's edge, or misses it, leaves no cap. The pieces of a box tile it exactly."""
    d = np.array([0.0, 1.0, 0.0])  # light along +y, into a wall at y in [5, 6]
    wall_lo, wall_hi = np.array([[-3.0, 5.0, 0.0]]), np.array([[3.0, 6.0, 4.0]])
    blo, bhi = np.array([0.0, 1.0, 1.0]), np.array([1.0, 2.0, 2.0])
    assert _sweep_cap(blo, bhi, d, wall_lo, wall_hi) == 4.0  # the near face y=1 reaches y=5 at s=4
    assert _sweep_cap(blo, bhi + [1.9, 0, 0], d, wall_lo, wall_hi) == 4.0  # x up to 2.9: inside the wall's width
    assert _sweep_cap(blo, bhi + [2.0, 0, 0], d, wall_lo, wall_hi) == float("inf")  # x up to 3: grazes its edge
    assert _sweep_cap(blo, bhi + [2.5, 0, 0], d, wall_lo, wall_hi) == float("inf")  # x beyond 3 misses the wall
    tilted = np.array([0.0, 0.6, -0.8])  # down and along +y: the low corners pass under the wall
    assert _sweep_cap(np.array([0.0, 1.0, 1.0]), np.array([1.0, 2.0, 2.0]), tilted, wall_lo, wall_hi) == float("inf")
    tall_hi = np.array([[3.0, 6.0, 10.0]])  # a taller wall catches every ray of a higher box through its face y=5
    cap = _sweep_cap(np.array([0.0, 1.0, 6.0]), np.array([1.0, 2.0, 7.0]), tilted, wall_lo, tall_hi)
    assert np.isclose(cap, 4.0 / 0.6)  # the near corners (y=1) enter last
    pieces = _pieces(blo, bhi, 2)
    assert len(pieces) == 8
    assert np.isclose(sum(np.prod(h - lo) for lo, h in pieces), np.prod(bhi - blo))
    assert np.array_equal(np.min([lo for lo, _ in pieces], 0), blo)
    assert np.array_equal(np.max([h for _, h in pieces], 0), bhi)


def _cap_by_hand(blo, bhi, d, lo, hi) -> float:
    """`_sweep_cap`'s rule, one corner and one box at a time in plain Python: the reference for the numpy form."""
    best = float("inf")
    corners = [(x, y, z) for x in (blo[0], bhi[0]) for y in (blo[1], bhi[1]) for z in (blo[2], bhi[2])]
    for k in range(len(lo)):
        entries = []
        for c in corners:
            enter, leave = 0.0, float("inf")
            for i in range(3):
                if abs(d[i]) < 1e-12:
                    if not lo[k][i] < c[i] < hi[k][i]:
                        leave = -float("inf")
                    continue
                a, b = (lo[k][i] - c[i]) / d[i], (hi[k][i] - c[i]) / d[i]
                enter, leave = max(enter, min(a, b)), min(leave, max(a, b))
            entries.append(enter if enter < leave else None)
        hits = [e for e in entries if e is not None]
        if len(hits) == len(entries):
            best = min(best, max(hits))
    return best


def test_sweeps_of_many_boxes_at_once_equal_one_at_a_time():
    """`_object_rect` bounds all pieces at once: the (P, 3) forms give each piece's range (as the one-box form) and
    cap (as the rule spelled out by hand) bit for bit."""
    from voebench.generator.dirty_regions import _sweep_cap_many

    rng = np.random.default_rng(3)
    lo = rng.uniform(-3, 2, (12, 3))
    hi = lo + rng.uniform(0.5, 4, (12, 3))
    finite = 0
    for d in (np.array([0.0, 0.0, -1.0]), np.array([-0.6, 0.0, -0.8]), np.array([-0.48, 0.6, -0.64])):
        blo = rng.uniform(-2, 2, (8, 3))
        bhi = blo + rng.uniform(0.05, 1, (8, 3))
        s0, s1 = _sweep_range(blo, bhi, d, lo, hi)
        caps = _sweep_cap_many(blo, bhi, d, lo, hi)
        for p in range(8):
            one0, one1 = _sweep_range(blo[p], bhi[p], d, lo, hi)
            assert np.array_equal(s0[p], one0) and np.array_equal(s1[p], one1)
            assert caps[p] == _cap_by_hand(blo[p], bhi[p], d, lo, hi)
        finite += int(np.isfinite(caps).sum())
    assert finite  # some pieces are caught by a box: the comparison covers the capped case


def test_merge_rects_keeps_apart_only_what_pays():
    """Overlapping rectangles merge; two far apart stay two; two close ones merge where their union costs no more
    than a render's fixed cost over their areas; the result covers every input pixel and nothing overlaps."""
    a, b = Rect(0, 0, 100, 100), Rect(300, 300, 400, 400)
    assert merge_rects([a, b], fixed_pixels=16_000) == [a, b]
    assert merge_rects([a, Rect(90, 90, 120, 120)], fixed_pixels=0) == [Rect(0, 0, 120, 120)]  # overlap
    near = Rect(110, 0, 210, 100)  # union 21,000 px against 20,000: merged when a render costs more than 1,000
    assert merge_rects([a, near], fixed_pixels=1_000) == [Rect(0, 0, 210, 100)]
    assert merge_rects([a, near], fixed_pixels=999) == [a, near]
    assert merge_rects([EMPTY, b, EMPTY]) == [b]
    assert merge_rects([]) == []
    # a chain: merging two makes the union overlap a third, which joins it
    chain = merge_rects([Rect(0, 0, 10, 10), Rect(50, 0, 60, 10), Rect(5, 5, 55, 6)], fixed_pixels=0)
    assert chain == [Rect(0, 0, 60, 10)]
    rng = np.random.default_rng(1)
    for _ in range(200):
        rs = []
        for _ in range(rng.integers(1, 6)):
            x0, y0 = (int(v) for v in rng.integers(0, 600, 2))
            rs.append(Rect(x0, y0, x0 + int(rng.integers(1, 150)), y0 + int(rng.integers(1, 150))))
        got = merge_rects(rs, fixed_pixels=int(rng.integers(0, 30_000)))
        cover = np.zeros((800, 800), int)
        for r in got:
            cover[r.slices] += 1
        assert cover.max() == 1  # no overlap left
        for r in rs:
            assert any(g.x0 <= r.x0 and g.y0 <= r.y0 and g.x1 >= r.x1 and g.y1 >= r.y1 for g in got)
        assert merge_rects(rs) == merge_rects(list(rs))  # pure


@pytest.mark.parametrize("test", ["t15_support_pin", "t05_permanence_pin"])
def test_rects_apart_hold_each_objects_shadows(test):
    """`rects(t)` covers each visible object's own rectangle with its shadow parts (`_object_rect`), their union
    is `rect(t)`, and on these tests (objects apart) some states are drawn in two or more rectangles. A merge that
    dropped an object's shadow, or an object, fails the containment."""
    from voebench.generator.blender.dirty import geometry
    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.dirty_regions import DirtyRegions

    scene = l2_scene(test)
    r = Renderer(scene, RenderSettings(640, 480))
    try:
        corners, light = geometry(r)
    finally:
        r.close()
    regions = DirtyRegions(scene, corners, light, 640, 480)
    apart = 0
    for t in range(0, scene.n_frames, 5):
        parts = regions.rects(t)
        union = EMPTY
        for p in parts:
            union = union.union(p)
        assert union == regions.rect(t)
        for name in regions.corners:
            if regions.visible[name][t]:
                own = regions.own_rect(name, t)  # with its shadows
                assert own.empty or any(
                    p.x0 <= own.x0 and p.y0 <= own.y0 and p.x1 >= own.x1 and p.y1 >= own.y1 for p in parts
                ), (t, name)
        apart += len(parts) > 1
    assert apart > 0
