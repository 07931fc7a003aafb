"""Level measures added for Level 2 tests 1-4 (issue 24), on hand-made tracks whose size is known.
`hue_turn`: the largest hue difference (deg, the shorter way round the HSV circle) of the object between the two
videos, whatever its saturation and value. `rest_offset`: the distance between the two videos' positions at the
video's last frame, where both rest, even where the record's window ends while the object still moves."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from voebench.generator.audit.levels import MEASURES
from voebench.generator.solids import Shape, Track
from voebench.scenes.common import hsv_color

FPS = 10.0


def _track(position, color) -> Track:
    position, color = np.asarray(position, float), np.asarray(color, np.float32)
    n = len(position)
    return Track(
        "ball",
        "ball",
        Shape("sphere", np.full(3, 0.2)),
        True,
        position,
        np.tile((1.0, 0.0, 0.0, 0.0), (n, 1)),
        color,
        np.ones(n, bool),
        np.full(n, -1),
        False,
    )


def _video(position, color) -> SimpleNamespace:
    return SimpleNamespace(tracks={"ball": _track(position, color)}, fps=FPS, n_frames=len(position))


def _recolored(hue: float, turn_deg: float, s: float, v: float, n: int = 6, at: int = 3):
    """Colours (n, 3) of an object whose hue turns forward by `turn_deg` at frame `at`, and its twin's."""
    before, after = hsv_color(hue, s, v), hsv_color((hue + turn_deg / 360.0) % 1.0, s, v)
    return np.array([before] * at + [after] * (n - at)), np.array([before] * n)


@pytest.mark.parametrize(
    ("hue", "turn", "s", "v", "expected"),
    [
        (0.1, 30.0, 0.8, 0.7, 30.0),
        (0.55, 120.0, 0.6, 0.6, 120.0),
        (0.9, 180.0, 1.0, 1.0, 180.0),
        (0.3, 300.0, 0.7, 0.9, 60.0),  # forward 300 deg is 60 deg the shorter way round
        (0.3, 0.0, 0.7, 0.9, 0.0),
    ],
)
def test_hue_turn_is_the_hue_angle_whatever_the_saturation_and_value(hue, turn, s, v, expected):
    mine, theirs = _recolored(hue, turn, s, v)
    still = np.zeros((len(mine), 3))
    rec = {"object": "ball", "first_frame": 3, "last_frame": 3}
    got = MEASURES["hue_turn"](_video(still, mine), _video(still, theirs), rec)
    assert got == pytest.approx(expected, abs=0.05)  # colours are stored as float32


def test_hue_turn_cannot_read_a_grey():
    grey = np.full((4, 3), 0.2)
    rec = {"object": "ball", "first_frame": 2, "last_frame": 2}
    assert MEASURES["hue_turn"](_video(np.zeros((4, 3)), grey), _video(np.zeros((4, 3)), grey), rec) is None


@pytest.mark.parametrize("past", [0.05, 0.4, 1.5])
def test_rest_offset_is_how_much_further_on_it_rests_even_if_the_window_ends_in_motion(past):
    # the twin stops at x = 1 (a barrier); the violated ball passes on and stops `past` further on
    x_twin = [0.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    x_mine = [0.0, 0.5, min(1.0 + past, 1.02), min(1.0 + past, 1.3), 1.0 + past, 1.0 + past, 1.0 + past, 1.0 + past]
    pos = lambda x: np.stack([x, np.zeros(8), np.zeros(8)], axis=1)  # noqa: E731
    color = np.ones((8, 3))
    rec = {"object": "ball", "first_frame": 2, "last_frame": 3}  # the window: the pass through the barrier
    v, twin = _video(pos(np.array(x_mine)), color), _video(pos(np.array(x_twin)), color)
    assert MEASURES["rest_offset"](v, twin, rec) == pytest.approx(past)
    # why a new measure: the window ends while the ball still moves, where it is only min(past, 0.3) further on
    assert MEASURES["end_offset"](v, twin, rec) == pytest.approx(min(past, 0.3))
