"""Exact analytic motion for simple cases (a ball rolling with rolling resistance, scripted mechanisms), and
quaternion helpers. Pure numpy: no Blender needed, so it is tested directly."""

from __future__ import annotations

import numpy as np

from voebench.generator.geometry import G, quat_to_matrix  # noqa: F401 (defined once there; scenes import them here)
from voebench.generator.scene import SceneObject


def quat_from_axis_angle(axis, angle) -> np.ndarray:
    """(…,4) w x y z for rotations of `angle` (…,) radians about unit `axis` (3,)."""
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    angle = np.asarray(angle, float)
    half = angle[..., None] / 2.0
    return np.concatenate([np.cos(half), np.sin(half) * axis], axis=-1)


def quat_multiply(a, b) -> np.ndarray:
    aw, ax, ay, az = np.moveaxis(np.asarray(a, float), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.asarray(b, float), -1, 0)
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def quat_from_euler_z(yaw) -> np.ndarray:
    return quat_from_axis_angle((0, 0, 1), yaw)


def decelerating_distance(t, speed: float, deceleration: float) -> np.ndarray:
    """Distance covered after time t (>= 0) starting at `speed` under constant deceleration, stopping
    when the speed reaches zero."""
    t = np.maximum(np.asarray(t, float), 0.0)
    if deceleration <= 0:
        return speed * t
    t_stop = speed / deceleration
    tc = np.minimum(t, t_stop)
    return speed * tc - 0.5 * deceleration * tc**2


def roll(
    ball: SceneObject,
    start,
    direction,
    speed: float,
    deceleration: float,
    start_frame: int,
    fps: float,
    radius: float | None = None,
    max_distance: float | None = None,
) -> np.ndarray:
    """Roll `ball` without slipping along the ground from `start` in `direction` (horizontal), beginning at
    `start_frame` with `speed` m/s and slowing at `deceleration` m/s^2 (rolling resistance), stopping early
    if `max_distance` is reached. Writes position and quaternion from `start_frame` on (earlier frames rest
    at `start`) and returns the distance per frame."""
    direction = np.asarray(direction, float)
    direction = direction / np.linalg.norm(direction)
    radius = ball.dimensions[0] / 2.0 if radius is None else radius
    T = ball.n_frames
    t = (np.arange(T) - start_frame) / fps
    s = decelerating_distance(t, speed, deceleration)
    if max_distance is not None:
        s = np.minimum(s, max_distance)
    ball.position[:] = np.asarray(start, float) + s[:, None] * direction
    # Rolling without slipping: rotation angle s/r about the horizontal axis perpendicular to the motion.
    axis = np.cross((0.0, 0.0, 1.0), direction)
    ball.quaternion[:] = quat_multiply(quat_from_axis_angle(axis, s / radius), ball.quaternion[0])
    return s


def move_linear(obj: SceneObject, start, end, speed: float, start_frame: int, fps: float) -> int:
    """Scripted mechanism motion: from `start` to `end` at constant `speed` from `start_frame`, then hold.
    Returns the frame at which the object arrives."""
    start, end = np.asarray(start, float), np.asarray(end, float)
    length = float(np.linalg.norm(end - start))
    T = obj.n_frames
    t = (np.arange(T) - start_frame) / fps
    frac = np.clip(t * speed / length, 0.0, 1.0) if length > 0 else np.ones(T)
    obj.position[:] = start + frac[:, None] * (end - start)
    return int(start_frame + np.ceil(length / speed * fps)) if length > 0 else start_frame


def rotate_about(obj: SceneObject, pivot, axis, angles) -> None:
    """Set the object's pose for every frame to its frame-0 pose rotated by `angles[t]` about the line
    through `pivot` along `axis` (e.g. a drawbridge plank turning on its hinge)."""
    pivot = np.asarray(pivot, float)
    q = quat_from_axis_angle(axis, np.asarray(angles, float))
    p0, q0 = obj.position[0].copy(), obj.quaternion[0].copy()
    for t in range(obj.n_frames):
        obj.position[t] = pivot + quat_to_matrix(q[t]) @ (p0 - pivot)
        obj.quaternion[t] = quat_multiply(q[t], q0)


def smoothstep(t, t0: float, t1: float) -> np.ndarray:
    """0 before t0, 1 after t1, a smooth ramp in between (mechanisms that start and stop gently)."""
    x = np.clip((np.asarray(t, float) - t0) / max(t1 - t0, 1e-9), 0.0, 1.0)
    return x * x * (3 - 2 * x)
