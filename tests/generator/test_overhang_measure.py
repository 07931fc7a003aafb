"""The `overhang` level measure (issue 24, Level 2 test 15): how far an object's centre lies beyond the edge of the
box it rests on, read from the states at the record's last frame, whatever way the support is turned about the
vertical; nothing to rest on reads as None (the check then fails with its reason)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from voebench.generator.audit.levels import MEASURES
from voebench.generator.audit.shapes import Shape, Track
from voebench.generator.kinematics import quat_from_axis_angle


def _track(name: str, dims, centre, quat=(1.0, 0.0, 0.0, 0.0), n: int = 3) -> Track:
    return Track(
        name,
        name,
        Shape("box", dims),
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
