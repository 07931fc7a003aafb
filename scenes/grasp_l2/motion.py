"""Exact ball motion for the Level 2 scene scripts of tests 8-14 and 16: positions come from closed-form
kinematics (rolling with rolling resistance, rolling down an incline at a = 5/7 g sin(theta), free fall and
projectile flight), and the orientation follows from the positions, so a ball that rolls turns exactly as
much as it travels (rotation vector n x dp / r per frame, n the surface normal) and a ball in flight keeps
its spin. Pure numpy, no Blender.
"""

from __future__ import annotations

import numpy as np

from voebench.generator.kinematics import G, quat_from_axis_angle, quat_multiply
from voebench.scenes.grasp_l2.timing import within_video

ROLL_FACTOR = 5.0 / 7.0  # a solid sphere rolling without slipping down an incline: a = 5/7 g sin(theta)
UP = np.array([0.0, 0.0, 1.0])


def rolling_rotations(positions, normals, radius: float) -> np.ndarray:
    """Per-frame rotation vectors (T-1, 3) (axis * angle, radians) of a ball rolling without slipping along
    `positions` (T,3) on surfaces with unit `normals` ((T-1,3) or (3,)): angle |dp|/r about n x dp."""
    dp = np.diff(np.asarray(positions, float), axis=0)
    n = np.broadcast_to(np.asarray(normals, float), dp.shape)
    return np.cross(n, dp) / radius


def orientations(q0, rotations) -> np.ndarray:
    """Quaternions (T,4), T = len(rotations) + 1, from the initial orientation `q0` by composing the per-frame
    rotation vectors (`rotations[t]` turns frame t into frame t+1). Canonical sign (w >= 0)."""
    rotations = np.asarray(rotations, float)
    q = np.empty((len(rotations) + 1, 4))
    q[0] = q0
    for t, rv in enumerate(rotations):
        angle = float(np.linalg.norm(rv))
        q[t + 1] = q[t] if angle < 1e-12 else quat_multiply(quat_from_axis_angle(rv / angle, angle), q[t])
    q[q[:, 0] < 0] *= -1
    return q


def decelerate(t, speed: float, deceleration: float) -> tuple[np.ndarray, np.ndarray]:
    """Distance and speed after time t (>= 0) from `speed` under constant deceleration, stopping at zero."""
    t = np.maximum(np.asarray(t, float), 0.0)
    if deceleration <= 0:
        return speed * t, np.full_like(t, speed)
    tc = np.minimum(t, speed / deceleration)
    return speed * tc - 0.5 * deceleration * tc**2, speed - deceleration * tc


def polyline(points, s) -> tuple[np.ndarray, np.ndarray]:
    """Positions (T,3) at arc lengths `s` (T,) along the polyline through `points` (K,3), clipped to its
    ends, and the index of the segment each lies on."""
    pts = np.asarray(points, float)
    seg = np.diff(pts, axis=0)
    lengths = np.linalg.norm(seg, axis=1)
    cum = np.concatenate([[0.0], np.cumsum(lengths)])
    s = np.clip(np.asarray(s, float), 0.0, cum[-1])
    idx = np.clip(np.searchsorted(cum, s, side="right") - 1, 0, len(seg) - 1)
    frac = (s - cum[idx]) / lengths[idx]
    return pts[idx] + frac[:, None] * seg[idx], idx


def frame_times(n_frames: int, fps: float, start_frame: int) -> np.ndarray:
    """Seconds since `start_frame` for every frame (negative before it)."""
    return (np.arange(n_frames) - start_frame) / fps


def over_the_edge(v0: float, r: float):
    """A ball rolling at v0 over a square edge first pivots about it (its centre on a circle of radius r round
    the edge) until the edge can no longer hold it, g cos(phi) = v^2 / r with v^2 = v0^2 + 10/7 g r (1 - cos phi)
    (rolling sphere), then flies. Returns (times (N,), angles phi (N,)) of the pivot, sampled finely; a fast
    ball (v0^2 >= g r) leaves at once."""
    cos_sep = min(1.0, (7 * v0**2 / (G * r) + 10) / 17)
    ts, phis = [0.0], [0.0]
    t, phi, dt = 0.0, 0.0, 1e-4
    while np.cos(phi) > cos_sep:
        v = np.sqrt(v0**2 + 10 / 7 * G * r * (1 - np.cos(phi)))
        phi += v / r * dt
        t += dt
        ts.append(t)
        phis.append(phi)
    return np.array(ts), np.array(phis)


def over_the_edge_rotations(
    positions, t, t_edge: float, t_sep: float, t_land: float, spin: float, r: float, fps: float
):
    """Per-frame rotation vectors (T-1, 3) of a ball that rolls on a level surface (UP normal), pivots about a
    square edge along +x between t_edge and t_sep (turning by its arc length / r about y), flies until t_land
    keeping the spin it left the edge with (`spin` rad/s about y) and rolls on after landing. `t` (T,) the times
    of the frames (s), as `over_the_edge` times them."""
    rot = rolling_rotations(positions, UP, r)
    tt = np.asarray(t)[:-1]
    pivot = (tt >= t_edge) & (tt < t_sep)
    rot[pivot] = np.linalg.norm(np.diff(positions, axis=0)[pivot], axis=1)[:, None] / r * np.array([0.0, 1.0, 0.0])
    rot[(tt >= t_sep) & (tt < t_land)] = (0.0, spin / fps, 0.0)
    return rot


__all__ = [
    "G",
    "ROLL_FACTOR",
    "UP",
    "decelerate",
    "frame_times",
    "orientations",
    "over_the_edge",
    "over_the_edge_rotations",
    "polyline",
    "require",
    "rolling_rotations",
]


def require(ok: bool, scene, test: str, what: str, keys=("start_delay",)) -> None:
    """A trial whose event `what` does not happen within the video (e.g. `--seconds 2`) cannot be honoured: an
    implausible video whose violation falls outside it would be mislabelled. Raises Infeasible naming `seconds`
    and the drawn `keys` that lengthen the event (see timing.within_video)."""
    within_video(ok, scene, test, what, keys)
