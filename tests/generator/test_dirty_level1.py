"""The dirty render path on GRASP Level 1, the default there since issue 29: outside each frame's dirty rectangles
(widened by the filter's reach) every Level 1 test's frames equal a full render exactly, the still tests (one
picture: nothing moves, so nothing is redrawn after the background) and the moving ones (directionality, movement)
alike."""

from __future__ import annotations

import pytest

from test_dirty import FLIP_SHARE, check_dirty_against_full, spread_states

SIZE = (96, 72)


def l1_tests() -> list[str]:
    from voebench.generator.suite import load_suite

    return list(load_suite("grasp-l1").tests)


def l1_scene(test: str):
    """The test's first video whose draw builds, at 10 s and 25 fps."""
    from voebench.errors import Infeasible
    from voebench.generator.suite import Job, Timing, load_suite

    suite = load_suite("grasp-l1")
    for index in range(8):
        seed, p = suite.sample(test, suite.space(test), 0, index)
        try:
            cond = suite.conditions(test, p, {"seed": seed})[0]
            job = Job("grasp-l1", test, index, cond, seed, f"grasp-l1/{test}/{index:05d}")
            return suite.make_scene(job, p, Timing(10.0, 25.0))
        except (Infeasible, RuntimeError):
            continue
    raise AssertionError(f"{test}: no buildable draw among the first 8")


@pytest.mark.parametrize("test", l1_tests())
def test_dirty_frames_equal_full_renders_on_every_level1_test(test):
    scene = l1_scene(test)
    check_dirty_against_full(test, scene, spread_states(scene, 3), SIZE, FLIP_SHARE)


def test_the_grasp_suites_default_to_the_dirty_path_that_these_tests_check():
    from voebench.generator.suite import load_suite

    for name in ("grasp-l1", "grasp-l2", "avoe"):
        assert load_suite(name).default_render_path == "dirty"
    assert load_suite("grasp-l1").default_resolution == load_suite("grasp-l2").default_resolution == (640, 480)
