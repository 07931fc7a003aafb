"""Segmentation and depth on the dirty path (generator/blender/dirty.py `DirtyTruth`: the static objects drawn once,
then per state only the rectangle where dynamic objects can be, through a scissor) equal the whole-frame GPU pass
exactly, bit for bit, on every Level 2 test: a missed object or a scissored pixel that got another value fails."""

from __future__ import annotations

import numpy as np
import pytest

from test_dirty import l2_scene, l2_tests, spread_states

SIZE = (160, 120)


def truth(scene, ts, path: str, size: tuple[int, int] = SIZE):
    """({t: (segmentation, depth)}, the DirtyTruth's stats or None) of states ts on one render path."""
    from voebench.generator.blender.render import Renderer, RenderSettings

    r = Renderer(scene, RenderSettings(size[0], size[1], render_path=path))
    try:
        out = {t: (v[2], v[1]) for t, v in r.render_batch(ts, ("depth", "segmentation")).items()}
        return out, dict(r.dirty_truth.stats) if r.dirty_truth is not None else None
    finally:
        r.close()


def assert_equal(a, b, what: str) -> None:
    (sa, da), (sb, db) = a, b
    assert sa.dtype == sb.dtype == np.uint16 and da.dtype == db.dtype == np.float32, what
    assert sa.shape == sb.shape and da.shape == db.shape, what
    assert np.array_equal(sa, sb), f"{what}: {(sa != sb).sum()} segmentation pixels differ"
    assert np.array_equal(da.view(np.uint32), db.view(np.uint32)), f"{what}: {(da != db).sum()} depth pixels differ"


@pytest.mark.parametrize("test", l2_tests())
def test_dirty_truth_equals_the_whole_frame_pass(test):
    scene = l2_scene(test)
    ts = spread_states(scene, 4)
    dirty, stats = truth(scene, ts, "dirty")
    full, _ = truth(scene, ts, "full")
    assert stats is not None and stats["frames"] == len(ts)
    # the camera stays put in Level 2: every state was drawn through a rectangle (or not at all), never whole
    assert stats["full"] == 0
    for t in ts:
        assert_equal(dirty[t], full[t], f"{test} frame {t}")


def test_hidden_objects_and_an_empty_rectangle():
    """A static object hidden throughout stays out of the background; a state whose dynamic object is hidden draws
    nothing and is the background."""
    scene = l2_scene("t08_inertia_bounce")
    scene.objects["tray_wall_far"].visible[:] = False
    ts = spread_states(scene, 3)
    scene.objects["ball"].visible[ts[1]] = False
    dirty, stats = truth(scene, ts, "dirty")
    full, _ = truth(scene, ts, "full")
    assert stats is not None and stats["empty"] == 1
    for t in ts:
        assert_equal(dirty[t], full[t], f"frame {t}")


def test_a_moving_camera_draws_whole_frames():
    scene = l2_scene("t08_inertia_bounce")
    ts = spread_states(scene, 2)
    scene.camera.position[ts[1] :, 2] += 0.05
    dirty, stats = truth(scene, ts, "dirty")
    full, _ = truth(scene, ts, "full")
    assert stats is not None and stats["full"] == len(ts)
    for t in ts:
        assert_equal(dirty[t], full[t], f"frame {t}")


def test_a_rectangle_at_640x480_draws_a_fraction_of_the_frame():
    scene = l2_scene("t08_inertia_bounce")
    ts = spread_states(scene, 3)
    dirty, stats = truth(scene, ts, "dirty", (640, 480))
    full, _ = truth(scene, ts, "full", (640, 480))
    for t in ts:
        assert_equal(dirty[t], full[t], f"frame {t}")
    assert stats is not None
    # the background once, then each state's rectangle: a small ball is a few percent of the frame
    assert stats["pixels_drawn"] < 640 * 480 * 1.2
