"""The dirty render path on AVoE (generator/blender/dirty.py): outside each frame's dirty rectangle (widened by the
filter's reach) the frame equals a full render exactly, on every sub-type, moving screens (B, E) included.

Inside, AVoE differs from a full render at more pixels than Level 2 does (bench/render_dirty.py check --suite avoe
at 960x540: up to 1.1% of a frame's pixels, against Level 2's 0.03%, with the shadow bounds of before and after
issue 29's second step alike); that share is measured and bounded here, not explained."""

from __future__ import annotations

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
