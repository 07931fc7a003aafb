"""The dirty render path on AVoE (generator/blender/dirty.py): outside each frame's dirty rectangle (widened by the
filter's reach) the frame equals a full render exactly, on every sub-type, moving screens (B, E) included.

Inside, AVoE differs from a full render at more pixels than Level 2 does (bench/render_dirty.py check --suite avoe
at 960x540: up to 1.1% of a frame's pixels, against Level 2's 0.03%, with the shadow bounds of before and after
issue 29's second step alike); that share is bounded here, and its cause checked: one-level differences of the
ground plane's lighting, not texture sampling (the last test)."""

from __future__ import annotations

import numpy as np
import pytest

from test_dirty import check_dirty_against_full, spread_states

SIZE = (192, 108)
INSIDE_SHARE = 0.03  # of a frame's pixels


def avoe_scene(test: str):
    """The last video of the sub-type's first trial that builds (50 frames at 24 fps, the suite's)."""
    from voebench.errors import Infeasible
    from voebench.generator.suite import Job, Timing, load_suite

    suite = load_suite("avoe")
    for index in range(8):
        seed, p = suite.sample(test, suite.space(test), 0, index)
        try:
            cond = suite.conditions(test, p, {"seed": seed})[-1]
            job = Job("avoe", test, index, cond, seed, f"avoe/{test}/{index:05d}")
            return suite.make_scene(job, p, Timing(50 / 24, 24.0))
        except (Infeasible, RuntimeError, IndexError):
            continue
    raise AssertionError(f"{test}: no buildable draw among the first 8")


@pytest.mark.parametrize("test", ["A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2", "D3", "E1", "E2", "E3"])
def test_dirty_frames_equal_full_renders_outside_the_rectangle(test):
    scene = avoe_scene(test)
    check_dirty_against_full(test, scene, spread_states(scene, 3), SIZE, INSIDE_SHARE)


def test_avoe_differences_are_one_level_shading_of_the_ground_not_texture_sampling():
    """Why AVoE differs inside the rectangle more than Level 2: not Closest texture sampling (no AVoE object is
    textured), but the ground plane's lighting, which the narrowed projection's float32 rounding moves across an
    8-bit step at some pixels: most differing pixels lie on the ground and differ by one level (A1 and E1 at
    480x270: 93-99% on the ground, 95-97% by one level; bench/results/issue29-avoe-diff-cause.txt)."""
    from voebench.generator.blender.render import Renderer, RenderSettings

    scene = avoe_scene("A1")
    assert not any(o.texture for o in scene.objects.values())  # nothing is sampled from a texture
    ts = spread_states(scene, 3)
    got = {}
    for path in ("dirty", "full"):
        r = Renderer(scene, RenderSettings(*SIZE, render_path=path))
        try:
            got[path] = r.render_batch(ts, ("rgb", "segmentation"))
        finally:
            r.close()
    ground = scene.objects["ground"].id
    differ = on_ground = one_level = 0
    for t in ts:
        d = np.abs(got["dirty"][t][0].astype(int) - got["full"][t][0].astype(int)).max(-1)
        differ += int((d > 0).sum())
        on_ground += int(((d > 0) & (got["full"][t][2] == ground)).sum())
        one_level += int((d == 1).sum())
    assert differ > 0  # the case is there to explain
    assert on_ground >= 0.8 * differ and one_level >= 0.8 * differ, (differ, on_ground, one_level)
