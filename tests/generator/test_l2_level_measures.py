"""Level measures added for Level 2 tests 14 and 15 (issue 24). `overhang`: how far an object's centre lies beyond
the edge of the box it rests on, read from the states at the record's last frame, whatever way the support is
turned about the vertical; nothing to rest on reads as None (the check then fails with its reason). `speed_loss`:
1 - the object's speed at the onset over its twin's, read from its first step (displacement + 2/5 r x turn for a
ball, which friction with the floor leaves unchanged)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from voebench.generator.audit.levels import MEASURES
from voebench.generator.solids import Shape, Track
from voebench.generator.kinematics import quat_from_axis_angle


def _track(name: str, dims, centre, quat=(1.0, 0.0, 0.0, 0.0), n: int = 3, kind: str = "box") -> Track:
    return Track(
        name,
        name,
        Shape(kind, dims),
        False,
        np.tile(np.asarray(centre, float), (n, 1)),
        np.tile(np.asarray(quat, float), (n, 1)),
        np.zeros((n, 3)),
        np.ones(n, bool),
        np.full(n, -1),
        name != "cube",
    )


def _video(cube_x: float, yaw: float = 0.0, block_top: float = 1.0) -> SimpleNamespace:
    """A 2 m block (top at `block_top`, centred at the origin, turned by `yaw` rad) and a 0.5 m cube resting at
    height 1 whose centre is `cube_x` m along the block's long axis."""
    axis = np.array([np.cos(yaw), np.sin(yaw), 0.0])
    q = tuple(np.asarray(quat_from_axis_angle((0.0, 0.0, 1.0), yaw), float).reshape(4))
    block = _track("block", (2.0, 0.5, 0.5), (0.0, 0.0, block_top - 0.25), q)
    cube = _track("cube", (0.5, 0.5, 0.5), axis * cube_x + (0.0, 0.0, 1.25))
    return SimpleNamespace(tracks={"block": block, "cube": cube})


REC = {"object": "cube", "first_frame": 0, "last_frame": 2}


@pytest.mark.parametrize("yaw", [0.0, 0.7, np.pi])
@pytest.mark.parametrize("cube_x, beyond", [(0.5, 0.0), (1.0, 0.0), (1.3, 0.3), (-1.6, 0.6)])
def test_overhang_is_the_distance_beyond_the_edge(yaw, cube_x, beyond):
    v = _video(cube_x, yaw)
    assert MEASURES["overhang"](v, v, REC) == pytest.approx(beyond, abs=1e-12)


def test_nothing_level_with_the_bottom_reads_none():
    v = _video(1.3, block_top=0.9)
    assert MEASURES["overhang"](v, v, REC) is None


def _mover(x, kind: str = "box") -> SimpleNamespace:
    """A ball (or a box) at x (m, per frame) along the x axis."""
    ball = _track("ball", (0.2, 0.2, 0.2), (0.0, 0.0, 0.0), n=len(x), kind=kind)
    ball.position[:, 0] = x
    return SimpleNamespace(tracks={"ball": ball})


def test_speed_loss_compares_the_first_step_with_the_twins():
    twin, v = _mover([0.0, 0.0, 0.0, 0.04, 0.14, 0.24]), _mover([0.0, 0.0, 0.0, 0.01, 0.04, 0.07])
    rec = {"object": "ball", "first_frame": 3, "last_frame": 5}
    assert MEASURES["speed_loss"](v, twin, rec) == pytest.approx(0.75)
    assert MEASURES["speed_loss"](twin, twin, rec) == pytest.approx(0.0)
    assert MEASURES["speed_loss"](v, twin, {**rec, "first_frame": 2}) is None  # the twin does not move yet


def test_speed_loss_counts_a_balls_spin_up():
    """A ball that slides while friction spins it up: displacement plus 2/5 r x turn is the speed it started with."""
    twin, v = _mover([0.0, 0.0, 0.08], "sphere"), _mover([0.0, 0.0, 0.03], "sphere")
    v.tracks["ball"].quaternion[2] = quat_from_axis_angle((0.0, 1.0, 0.0), 0.25)  # turned 0.25 rad: 0.01 m more
    rec = {"object": "ball", "first_frame": 2, "last_frame": 2}
    assert MEASURES["speed_loss"](v, twin, rec) == pytest.approx(0.5)
