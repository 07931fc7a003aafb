"""The dirty render path on GRASP Level 1, the default there since issue 29: outside each frame's dirty rectangles
(widened by the filter's reach) every Level 1 test's frames equal a full render exactly, the still tests (one
picture: nothing moves, so nothing is redrawn after the background) and the moving ones (directionality, movement)
alike."""

from __future__ import annotations

import pytest

from test_dirty import FLIP_SHARE, check_dirty_against_full, first_scene, spread_states

SIZE = (96, 72)


def l1_tests() -> list[str]:
    from voebench.generator.suite import load_suite

    return list(load_suite("grasp-l1").tests)


@pytest.mark.parametrize("test", l1_tests())
def test_dirty_frames_equal_full_renders_on_every_level1_test(test):
    scene = first_scene("grasp-l1", test, 10.0, 25.0)  # a Level 1 test has one condition
    check_dirty_against_full(test, scene, spread_states(scene, 3), SIZE, FLIP_SHARE)


def test_the_grasp_suites_default_to_the_dirty_path_that_these_tests_check():
    from voebench.generator.suite import load_suite

    for name in ("grasp-l1", "grasp-l2", "avoe"):
        assert load_suite(name).default_render_path == "dirty"
    assert load_suite("grasp-l1").default_resolution == load_suite("grasp-l2").default_resolution == (640, 480)
