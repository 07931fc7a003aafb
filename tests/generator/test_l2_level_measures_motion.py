"""Level measures added for Level 2 tests 7, 10 and 11 (issue 24), on hand-made tracks whose size is known.
`end_offset`: the distance between the two videos' positions at the record's last frame (a hover above where the
twin lies), whatever the twin did before. `extra_turn`: how much farther any object turns from its first
orientation than in the twin (a plank swinging on past where it should have stopped), not the largest gap between
the two orientations at one moment. `float_time`: how long the object moves on at its onset height while its twin
is lower."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from voebench.generator.audit.levels import MEASURES
from voebench.generator.solids import Shape, Track
from voebench.generator.kinematics import quat_from_axis_angle

FPS = 10.0


def _track(name: str, position, quaternion=None) -> Track:
    position = np.asarray(position, float)
    n = len(position)
    quaternion = np.tile((1.0, 0.0, 0.0, 0.0), (n, 1)) if quaternion is None else np.asarray(quaternion, float)
    return Track(
        name,
        name,
        Shape("sphere", np.full(3, 0.2)),
        True,
        position,
        quaternion,
        np.zeros((n, 3)),
        np.ones(n, bool),
        np.full(n, -1),
        False,
    )


def _video(**tracks) -> SimpleNamespace:
    n = len(next(iter(tracks.values())).position)
    return SimpleNamespace(tracks=tracks, fps=FPS, n_frames=n)


def _path(x, z) -> np.ndarray:
    return np.stack([np.asarray(x, float), np.zeros(len(x)), np.asarray(z, float)], axis=1)


@pytest.mark.parametrize("gap", [0.02, 0.3, 0.6])
def test_end_offset_is_the_hover_height_even_where_the_twin_bounced_higher(gap):
    # the twin bounces 0.5 m back up before it rests at 0.1; the hovering ball stops at 0.1 + gap
    twin_z = [1.0, 0.5, 0.1, 0.6, 0.35, 0.1, 0.1]
    hover_z = [1.0, 0.5, 0.1 + gap, 0.1 + gap, 0.1 + gap, 0.1 + gap, 0.1 + gap]
    v = _video(ball=_track("ball", _path(np.zeros(7), hover_z)))
    twin = _video(ball=_track("ball", _path(np.zeros(7), twin_z)))
    rec = {"object": "ball", "first_frame": 2, "last_frame": 5}
    assert MEASURES["end_offset"](v, twin, rec) == pytest.approx(gap)
    assert MEASURES["displacement"](v, twin, rec) == pytest.approx(max(gap, 0.5 - gap))  # why a new measure


def _turning(angles_deg) -> np.ndarray:
    return np.array([np.asarray(quat_from_axis_angle((-1.0, 0.0, 0.0), np.radians(a)), float) for a in angles_deg])


@pytest.mark.parametrize("extra", [1.0, 20.0, 45.0])
def test_extra_turn_is_the_farther_peak_not_the_largest_gap(extra):
    # the twin's plank turns to 130 deg and back early; the violated one turns on to 130 + extra and back later,
    # so at one moment the two differ by more than `extra`
    twin_a = [0, 60, 130, 130, 60, 0, 0, 0]
    bad_a = [0, 60, 130, 130 + extra, 130 + extra, 130 + extra, 60, 0]
    still = np.zeros((8, 3))
    v = _video(plank=_track("plank", still, _turning(bad_a)), object=_track("object", still))
    twin = _video(plank=_track("plank", still, _turning(twin_a)), object=_track("object", still))
    rec = {"object": "object", "first_frame": 2, "last_frame": 6}
    assert MEASURES["extra_turn"](v, twin, rec) == pytest.approx(extra, abs=1e-4)


@pytest.mark.parametrize("frames", [0, 1, 4])
def test_float_time_counts_the_frames_it_moves_on_at_its_height(frames):
    n = 10
    x = np.arange(n) * 0.1
    top = 1.0
    twin_z = [top, top, top - 0.01, top - 0.05, top - 0.2, top - 0.4, 0.1, 0.1, 0.1, 0.1]
    bad_z = [top] * 2 + [top] * frames + [top - 0.1 * (k + 1) for k in range(n - 2 - frames)]
    v = _video(ball=_track("ball", _path(x, bad_z)))
    twin = _video(ball=_track("ball", _path(x, twin_z)))
    rec = {"object": "ball", "first_frame": 2, "last_frame": n - 1}
    assert MEASURES["float_time"](v, twin, rec) == pytest.approx(frames / FPS)
