"""The top-down tray of Level 2 tests 8, 12 and 16: a 5 x 5 m tray with a dark floor and four low plywood
walls on the table, a plywood start roof over the entry end that hides where the ball starts, and a camera
straight above with a random in-plane rotation. All four room walls get the random background tint (as in
the Unity originals of these three tests).

Tray frame (documented for the scene scripts): origin at the tray centre on the table top (world origin);
`u` runs from the entry end (under the start roof, u < 0) to the far wall (u > 0) along world -x; `v` is
lateral, along world +y, or -y when the trial is mirrored. Heights are world z.
"""

from __future__ import annotations

import numpy as np

from voebench.generator.kinematics import quat_from_euler_z
from voebench.generator.params import (
    FRACTION,
    NON_NEGATIVE,
    POSITIVE,
    SIGN,
    SIGNED_FRACTION,
    Choice,
    Fixed,
    Range,
)
from voebench.scenes.common import POLE_GREY, TABLE_HEIGHT, add_ball, ball_space, camera_above, room, table
from voebench.scenes.grasp_l2.apparatus import COVER_TINT, background_color, wood_tint
from voebench.scenes.grasp_l2.motion import UP, orientations, polyline, require, rolling_rotations
from voebench.scenes.grasp_l2.timing import need

SIZE = 5.0  # outer size of the tray, m
WALL_T = 0.1  # wall thickness
WALL_H = 0.5  # wall height above the tray floor
FLOOR_TOP = 0.1  # the tray floor's top above the table
INNER = SIZE / 2 - WALL_T  # inner faces of the walls at |u|, |v| = 2.4
ROOF_Z = FLOOR_TOP + WALL_H + 0.06  # underside of the start roof and the end cover, just above the walls
ROOF_INNER_U = -1.4  # the start roof covers the tray from its entry wall to here
CAMERA_HEIGHT = 5.5  # m above the table (Unity: 15.774 - 10.274)

BALL = ball_space(0.3)


class Tray:
    """Maps tray coordinates (u, v, z) to the world for one trial."""

    def __init__(self, mirror: bool):
        self.sign = -1.0 if mirror else 1.0

    def world(self, u, v, z) -> np.ndarray:
        u, v, z = np.broadcast_arrays(np.asarray(u, float), np.asarray(v, float), np.asarray(z, float))
        return np.stack([-u, self.sign * v, z], axis=-1)

    def yaw(self, angle_uv: float) -> float:
        """World yaw of a direction at `angle_uv` radians from +u toward +v."""
        d = self.world(np.cos(angle_uv), np.sin(angle_uv), 0.0)
        return float(np.arctan2(d[1], d[0]))


def build_tray(scene, p, start_roof: bool = True) -> Tray:
    tray = Tray(bool(p.mirror))
    table(scene)
    room(scene, floor_z=-TABLE_HEIGHT, wall_color=background_color(p), wall_texture_seed=int(p.wood_seed) % 97)
    wood = {"pattern": "wood", "seed": int(p.wood_seed)}
    scene.add(
        "tray_floor",
        "box",
        (SIZE, SIZE, FLOOR_TOP),
        (0.0, 0.0, FLOOR_TOP / 2),
        role="tray",
        fixture=True,
        color=POLE_GREY,
    )
    z = FLOOR_TOP + WALL_H / 2
    half = SIZE / 2 - WALL_T / 2
    for name, u, v, du, dv in [
        ("wall_far", half, 0.0, WALL_T, SIZE),
        ("wall_entry", -half, 0.0, WALL_T, SIZE),
        ("wall_side_a", 0.0, half, SIZE, WALL_T),
        ("wall_side_b", 0.0, -half, SIZE, WALL_T),
    ]:
        scene.add(
            f"tray_{name}",
            "box",
            (du, dv, WALL_H),
            tray.world(u, v, z),
            role="wall",
            fixture=True,
            color=wood_tint(p),
            texture=wood,
        )
    if start_roof:
        u0, u1 = -SIZE / 2 - 0.15, ROOF_INNER_U
        scene.add(
            "start_roof",
            "box",
            (u1 - u0, SIZE + 0.3, 0.03),
            tray.world((u0 + u1) / 2, 0.0, ROOF_Z + 0.015),
            role="occluder",
            fixture=True,
            color=wood_tint(p),
            texture=wood,
        )
    return tray


def place_ball(scene, p, tray: Tray, u: float, v: float):
    """The ball (`common.add_ball`) resting on the tray floor at tray coordinates (u, v)."""
    return add_ball(scene, p, tray.world(u, v, FLOOR_TOP + p.ball.diameter / 2))


def end_cover(scene, p, tray: Tray, depth: float, lift_frame: int, speed: float):
    """A rusty-metal cover over the far end of the tray (from the far wall's outer face `depth` m inward),
    which slides out beyond the far wall at `speed` m/s from `lift_frame` until it has cleared the tray.
    Returns the frame at which the far end is fully uncovered (may lie beyond the video)."""
    u1 = SIZE / 2 + 0.1
    u0 = INNER - depth
    centre = tray.world((u0 + u1) / 2, 0.0, ROOF_Z + 0.015)
    cover = scene.add(
        "end_cover",
        "box",
        (u1 - u0, SIZE + 0.3, 0.03),
        centre,
        role="occluder",
        fixture=True,
        color=COVER_TINT,
        texture={"pattern": "rust", "seed": int(p.wood_seed) + 1},
    )
    travel = u1 - u0 + 0.1
    t = (np.arange(scene.n_frames) - lift_frame) / scene.fps
    shift = np.clip(t * speed, 0.0, travel)
    cover.position[:] = tray.world((u0 + u1) / 2 + shift, 0.0, ROOF_Z + 0.015)
    return int(lift_frame + np.ceil(travel / speed * scene.fps))


def corner(tray: Tray, side: float, radius: float, gap: float = 0.002) -> np.ndarray:
    """(u, v) of a ball of `radius` resting in the far corner on side +1 (v > 0) or -1."""
    c = INNER - radius - gap
    return np.array([c, side * c])


def look_down(scene, p, tray: Tray) -> None:
    """Camera straight above the tray centre (shifted by the offsets), image rotated by `camera.roll`."""
    c = p.camera
    up_angle = np.radians(c.roll)
    up = tray.world(np.cos(up_angle), np.sin(up_angle), 0.0)
    eye = np.array([c.offset_x, c.offset_y, c.height])
    scene.look(eye, eye * (1, 1, 0), fov_deg=c.fov, up=tuple(up))


def plank_pose(tray: Tray, side: float, leg: float, thickness: float, height: float):
    """Centre and yaw quaternion of a plank cutting off the far corner on `side` so that it meets both walls
    `leg` m from the corner: the walls and the plank form a triangle."""
    # hypotenuse from (INNER - leg, side*INNER) to (INNER, side*(INNER - leg)), pushed out by half the thickness
    mid = np.array([INNER - leg / 2, side * (INNER - leg / 2)])
    normal = np.array([-1.0, -side]) / np.sqrt(2)  # into the tray
    mid = mid + normal * thickness / 2
    yaw = tray.yaw(np.arctan2(-side, 1.0))  # along the hypotenuse
    return tray.world(mid[0], mid[1], FLOOR_TOP + height / 2), quat_from_euler_z(yaw)


# --------------------------------------------------------------------------- tests 12 and 16: roll into a corner

CORNER_SPACE = {
    "corner": Choice((-1, 1), domain=SIGN),  # the far corner the ball rolls toward: +1 = +v side, -1 = -v side
    # lateral start position under the roof, fraction of the half width
    "start": Range(-0.9, 0.9, domain=SIGNED_FRACTION),
    "speed": Range(1.5, 2.5, domain=POSITIVE),  # m/s when it starts rolling (GRASP: 1.5-2.5 units/s)
    # fraction of the speed left when it reaches the corner and stops there
    "arrival_speed": Range(0.35, 0.6, domain=FRACTION),
    "start_delay": Range(0.0, 1.0, domain=NON_NEGATIVE),  # s before the ball starts (GRASP: 0-100 frames)
    # s between the ball's arrival and the cover starting to slide away
    "cover_wait": Range(0.3, 0.8, domain=NON_NEGATIVE),
    # m/s of the cover's slide (GRASP: 0.5; faster so that 10 s hold the whole event)
    "cover_speed": Fixed(1.0, domain=POSITIVE),
    "ball": BALL,
    "camera": camera_above(0.0, 360.0, CAMERA_HEIGHT),  # GRASP: camera straight above, in-plane rotation random
}


def require_reveal(scene, test: str, arrive: int, lift: int, opened: int) -> None:
    """For `corner_run`'s tests, both conditions: the pair is built only where the ball arrives, the cover
    starts moving and the far end is uncovered in that order within the video."""
    require(
        arrive < lift < opened < scene.n_frames,
        scene,
        test,
        "the reveal",
        ("start_delay", "speed", "arrival_speed", "cover_wait"),
    )


def corner_run(scene, p, tray: Tray, cover_depth: float):
    """A ball rolls from under the start roof to the far corner `p.corner`, slowing down, and stops there,
    under the end cover, which then slides away. Returns (ball, arrival frame, frame the cover starts
    moving, frame the far end is uncovered)."""
    r = p.ball.diameter / 2
    # beyond +-1 of the half width the ball would start inside a side wall
    need(
        abs(p.start) <= 1.0,
        f"the ball's start {p.start:.2f} (fraction of the half width) is outside the tray",
        ("start",),
    )
    start = np.array([-INNER + 0.25, p.start * (INNER - r - 0.1)])
    goal = corner(tray, p.corner, r)
    ball = place_ball(scene, p, tray, *start)
    dist = float(np.linalg.norm(goal - start))
    k = p.arrival_speed
    decel = p.speed**2 * (1 - k**2) / (2 * dist)
    t_arrive = dist / (p.speed * (1 + k) / 2)
    t = (np.arange(scene.n_frames) - scene.frame(p.start_delay)) / scene.fps
    s = np.minimum(p.speed * np.clip(t, 0, None) - 0.5 * decel * np.clip(t, 0, None) ** 2, dist)
    s[t >= t_arrive] = dist  # the corner stops it
    uv, _ = polyline([start, goal], s)
    pos = tray.world(uv[:, 0], uv[:, 1], FLOOR_TOP + r)
    ball.position[:] = pos
    ball.quaternion[:] = orientations(ball.quaternion[0], rolling_rotations(pos, UP, r))
    arrive = int(np.flatnonzero(s >= dist)[0]) if np.any(s >= dist) else scene.n_frames - 1
    lift = min(arrive + max(4, scene.frame(p.cover_wait)), scene.n_frames - 1)
    open_ = end_cover(scene, p, tray, cover_depth, lift, p.cover_speed)
    return ball, arrive, lift, open_
