"""Dynamic objects at rest drawn into the background (issue 29, sixth step): `DirtyRegions.rest` and `view`,
`DirtyRGB.frames` over one background per rest key.

A big dynamic object (t16's and t12's end cover, AVoE's screens) that holds still while a ball moves is drawn
once into a background of its own for that stretch, and each state draws only the other objects' rectangles, with
the resting object as a receiver of their shadows. Outside those rectangles (widened by the filter's reach) the
frame must equal a full render exactly; a background without the resting object fails that (the last test)."""

from __future__ import annotations

import numpy as np
import pytest

from test_dirty import FLIP_SHARE, check_dirty_against_full, l2_scene
from test_dirty_avoe import INSIDE_SHARE, avoe_scene

SIZE_L2 = (64, 48)
SIZE_AVOE = (192, 108)


def regions_of(scene, size):
    from voebench.generator.blender.dirty import geometry
    from voebench.generator.blender.render import Renderer, RenderSettings
    from voebench.generator.dirty_regions import DirtyRegions

    r = Renderer(scene, RenderSettings(*size))
    try:
        corners, light = geometry(r)
    finally:
        r.close()
    return DirtyRegions(scene, corners, light, *size)


def resting_states(scene, size, n: int) -> list[int]:
    """Up to n distinct states spread over those whose background holds a resting object, and one that holds none
    where there is one (so a video's two kinds of background meet in one call)."""
    regions = regions_of(scene, size)
    ts = scene.first_frames()
    rest = [t for t in ts if regions.rest(t)]
    assert rest, "no state at rest: the test would not exercise the rest backgrounds"
    picked = rest[:: max(1, len(rest) // n)][:n]
    plain = [t for t in ts if not regions.rest(t)]
    return sorted(picked + plain[:1])


CASES = [
    ("grasp-l2", "t16_inertia_corner", SIZE_L2, FLIP_SHARE),
    ("grasp-l2", "t01_unchangeableness", SIZE_L2, FLIP_SHARE),
    ("grasp-l2", "t12_continuity_tray", SIZE_L2, FLIP_SHARE),
    ("avoe", "B1", SIZE_AVOE, INSIDE_SHARE),
    ("avoe", "E1", SIZE_AVOE, INSIDE_SHARE),
]


def scene_of(suite: str, test: str):
    return l2_scene(test) if suite == "grasp-l2" else avoe_scene(test)


@pytest.mark.parametrize(("suite", "test", "size", "share"), CASES)
def test_frames_over_rest_backgrounds_equal_full_renders(suite, test, size, share):
    scene = scene_of(suite, test)
    check_dirty_against_full(test, scene, resting_states(scene, size, 4), size, share)


@pytest.mark.parametrize(("suite", "test", "size"), [(c[0], c[1], c[2]) for c in CASES])
def test_rest_is_a_pure_function_of_the_timeline(suite, test, size):
    """The same keys however the states are asked; a resting object is unchanged from its rest's first frame to
    the state; the view draws less than the plain regions and still covers every other visible object with its
    shadows (its `_object_rect` with the resting objects as receivers)."""
    scene = scene_of(suite, test)
    a, b = regions_of(scene, size), regions_of(scene, size)
    ts = scene.first_frames()
    keys = {t: a.rest(t) for t in ts}
    assert {t: b.rest(t) for t in reversed(ts)} == keys
    saved = 0
    for t, key in keys.items():
        view = a.view(key)
        assert view is a.view(key)
        for name, start in key:
            assert start <= t and name not in view.dynamic
            o = scene.objects[name]
            for arr in (o.position, o.quaternion, o.color, o.visible):
                arr = np.asarray(arr)
                assert (arr[start : t + 1] == arr[start]).all(), f"{name} moves during its rest"
        drawn = view.rects(t)
        saved += sum(r.area for r in a.rects(t)) - sum(r.area for r in drawn)
        for name in view.corners:
            if view.visible[name][t]:
                own = view.own_rect(name, t)
                assert own.empty or any(
                    r.x0 <= own.x0 and r.y0 <= own.y0 and r.x1 >= own.x1 and r.y1 >= own.y1 for r in drawn
                ), f"frame {t}: {name}'s rectangle {own} is not drawn"
    assert saved > 0


def test_a_background_without_the_resting_object_fails(monkeypatch):
    """Compositing the view's rectangles over the static objects' background (the resting cover left out) differs
    outside the rectangles: the check above catches a wrong background."""
    from voebench.generator.blender import dirty

    scene = l2_scene("t16_inertia_corner")
    plain = dirty.DirtyRGB.background

    def static_only(self, t=0, resting=()):
        return plain(self, t, ())

    monkeypatch.setattr(dirty.DirtyRGB, "background", static_only)
    with pytest.raises(AssertionError, match="outside the dirty rectangles"):
        check_dirty_against_full("t16", scene, resting_states(scene, SIZE_L2, 2), SIZE_L2, FLIP_SHARE)


@pytest.mark.parametrize(("suite", "test", "size"), [(c[0], c[1], c[2]) for c in CASES])
def test_truth_over_rest_backgrounds_equals_the_whole_frame_pass(suite, test, size):
    """Segmentation and depth over a rest key's background are the whole-frame pass's, bit for bit, and draw
    fewer pixels than the static objects' background would (the resting object is drawn once, not per state)."""
    from test_dirty_truth import assert_equal, truth

    scene = scene_of(suite, test)
    ts = resting_states(scene, size, 4)
    dirty, stats = truth(scene, ts, "dirty", size)
    full, _ = truth(scene, ts, "full", size)
    for t in ts:
        assert_equal(dirty[t], full[t], f"{test} frame {t}")
    assert stats is not None and stats["backgrounds"] >= 2
    regions = regions_of(scene, size)
    plain = regions.full.area + sum(regions.object_rect(t).area for t in ts)
    assert stats["pixels_drawn"] - stats["backgrounds"] * regions.full.area < plain - regions.full.area


def test_a_truth_background_without_the_resting_object_fails(monkeypatch):
    from test_dirty_truth import assert_equal, truth

    from voebench.generator.blender import dirty

    scene = l2_scene("t16_inertia_corner")
    ts = resting_states(scene, SIZE_L2, 2)
    full, _ = truth(scene, ts, "full", SIZE_L2)
    plain = dirty.DirtyTruth.background
    monkeypatch.setattr(dirty.DirtyTruth, "background", lambda self, resting=(): plain(self, ()))
    wrong, _ = truth(scene, ts, "dirty", SIZE_L2)
    with pytest.raises(AssertionError, match="pixels differ"):
        for t in ts:
            assert_equal(wrong[t], full[t], f"frame {t}")


def test_dropped_backgrounds_are_drawn_again_with_the_same_bytes(monkeypatch):
    """With room for one rest background, states of two rest keys asked in turn draw each key's background again
    each time (memory stays bounded) and give the same frames as with room for all."""
    from voebench.generator.blender import dirty
    from voebench.generator.blender.render import Renderer, RenderSettings

    scene = l2_scene("t12_continuity_tray")
    regions = regions_of(scene, SIZE_L2)
    by_key: dict = {}
    for t in scene.first_frames():
        by_key.setdefault(regions.rest(t), []).append(t)
    keys = [k for k in by_key if k and len(by_key[k]) >= 2][:2]
    assert len(keys) == 2, f"t12 should rest in two ways: {[(k, len(v)) for k, v in by_key.items()]}"
    batches = [[by_key[keys[i % 2]][i // 2]] for i in range(4)]  # key A, key B, key A, key B

    def frames(kept: int):
        monkeypatch.setattr(dirty, "KEPT_BACKGROUNDS", kept)
        r = Renderer(scene, RenderSettings(*SIZE_L2, render_path="dirty"))
        try:
            out = {t: v[0] for batch in batches for t, v in r.render_batch(batch, ("rgb",)).items()}
            assert r.dirty is not None
            return out, r.dirty.stats["backgrounds"], len(r.dirty._backgrounds)
        finally:
            r.close()

    roomy, drawn_roomy, kept_roomy = frames(8)
    tight, drawn_tight, kept_tight = frames(1)
    assert (drawn_roomy, kept_roomy) == (2, 2)
    assert drawn_tight == 4 and kept_tight == 1
    for t in roomy:
        assert np.array_equal(roomy[t], tight[t]), f"frame {t}"
