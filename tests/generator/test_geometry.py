"""generator/geometry.py: the geometry the scenes, the renderer and the audit share."""

from __future__ import annotations

import numpy as np

from voebench.generator import geometry as geo
from voebench.generator.kinematics import quat_from_axis_angle


def test_quat_to_matrix_single_and_batched_agree_and_rotate():
    q = quat_from_axis_angle((0, 0, 1), np.array([0.0, np.pi / 2, 1.234]))  # (3,4)
    batch = geo.quat_to_matrix(q)
    assert batch.shape == (3, 3, 3)
    for k in range(3):
        assert np.array_equal(batch[k], geo.quat_to_matrix(q[k]))  # bit for bit: the scenes' poses stay as they were
        assert np.allclose(batch[k] @ batch[k].T, np.eye(3))
    assert np.allclose(batch[1] @ (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))  # a quarter turn about z takes x to y


def test_segments_hit_box():
    eye = np.array([0.0, -10.0, 0.0])
    centre, rot, half = np.zeros(3), np.eye(3), np.array([1.0, 0.1, 1.0])  # a screen in the plane y = 0
    pts = np.array(
        [
            [0.0, 5.0, 0.0],  # behind the screen
            [3.0, 5.0, 0.0],  # beside it
            [0.0, -5.0, 0.0],  # in front of it
            [0.0, -0.1, 0.0],
        ]
    )  # on its front face
    assert geo.segments_hit_box(eye, pts, centre, rot, half).tolist() == [True, False, False, True]
    assert geo.segments_hit_box(eye, pts, centre, rot, half, end=1 - 1e-6).tolist() == [True, False, False, False]
    turned = geo.quat_to_matrix(quat_from_axis_angle((0, 0, 1), np.pi / 2))  # now edge-on: a thin wall along y
    assert geo.segments_hit_box(eye, pts[:2], centre, turned, half).tolist() == [True, False]
    # a segment parallel to a pair of faces hits only if it runs between them
    side = np.array([[5.0, 0.05, 0.0]])
    assert geo.segments_hit_box((-5.0, 0.05, 0.0), side, centre, rot, half).tolist() == [True]
    assert geo.segments_hit_box((-5.0, 0.5, 0.0), side + (0, 0.45, 0), centre, rot, half).tolist() == [False]


def test_surface_samples():
    s = geo.fibonacci_sphere(160)
    assert s.shape == (160, 3) and np.allclose(np.linalg.norm(s, axis=1), 1.0)
    b = geo.box_surface((1.0, 2.0, 3.0), n=5)
    assert len(b) == 5**3 - 3**3  # the grid's shell, each point once
    assert np.allclose(np.abs(b).max(axis=0), (1.0, 2.0, 3.0))
    assert np.all(np.isclose(np.abs(b), (1.0, 2.0, 3.0)).any(axis=1))  # every point on a face
    r = geo.revolution_surface(lambda z: 1.0, -1.0, 1.0, n_angle=8, n_z=3, n_rings=2)
    assert len(r) == 8 * 3 + 2 * 8 and np.allclose(np.hypot(r[:24, 0], r[:24, 1]), 1.0)


def test_gravity_is_the_scenes_and_the_audits():
    from voebench.generator import audit, kinematics
    from voebench.generator.scene import Scene

    s = Scene(2, 10.0)
    assert np.array_equal(s.gravity, geo.GRAVITY) and s.gravity is not geo.GRAVITY  # a scene may change its own
    assert -geo.GRAVITY[2] == kinematics.G and audit.GRAVITY is geo.GRAVITY
