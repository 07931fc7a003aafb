"""Test 13, Gravity & continuity: in a plywood box there are two parallel planks, one above the other. A ball
comes out of a small start box on the left and rolls slowly along the upper plank, slowing slightly, until
it disappears behind an occluder covering the right part of the box. The occluder then drops into a slot
below, revealing a gap in the upper plank wider than the ball. Plausible: the ball fell through the gap
(tipping over the edge, then a parabola that clears the far edge of the gap), landed on the lower plank and
rolled on to the end wall,
where it lies at rest. Implausible: the ball rolled on across the gap as if the plank were continuous and
lies at rest at the end wall on the upper plank, beyond the gap.

The two balls part at the moment the ball's centre passes the gap's edge, behind the occluder (checked
geometrically), until both are at rest, still before the occluder moves: that window is the recorded hidden
violation. Unity original (reference Part 3, Test 13):
the ball moves on a straight kinematic line to a target just past the gap on the lower plank, and the
implausible ball is teleported to the opposite spawn point. Built unmirrored, mirrored by `apparatus.finish`.

Binary (`BINARY`), not graded: the crossing happens behind the occluder, and what the video shows is where the
ball lies, on the upper plank beyond the gap or on the lower one: two places the apparatus fixes. No end state
lies between them (a ball cannot rest over the gap), and a partial crossing would end where the plausible ball
ends or have the ball hit the gap's far edge, another event.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import G
from voebench.generator.params import NON_NEGATIVE, POSITIVE, Fixed, Range
from voebench.scenes.common import add_ball, ball_space, camera_offsets
from voebench.scenes.grasp_l2 import VISUAL, binary
from voebench.scenes.grasp_l2.timing import need
from voebench.scenes.grasp_l2.apparatus import U, finish, look, must_hide
from voebench.scenes.grasp_l2.apparatus import COVER_SPEED, cover, dark, move_by, room, wood
from voebench.scenes.grasp_l2.motion import UP, orientations, over_the_edge
from voebench.scenes.grasp_l2.motion import over_the_edge_rotations, require, rolling_rotations

NUMBER = 13
PRINCIPLES = ["gravity", "continuity"]
DELAYS = ("start_delay", "reveal_wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)

X0 = U(3.811, 0, 0)[0]
LOWER_TOP = U(0, 11.328, 0)[2]
UPPER_TOP = U(0, 11.638, 0)[2]
LEFT, RIGHT = U(2.411, 0, 0)[0], U(5.211, 0, 0)[0]  # inner faces of the end walls
GAP_LEFT = U(4.11, 0, 0)[0]  # the gap's left edge (the ball rolls from the left)
BALL_Y = 8.30  # the ball's depth; the planks run from y 8.1 to the back panel
FRONT_Y = 8.10  # the occluder's plane
T_PLANK = 0.02

BINARY = (
    "the crossing is hidden and the ball ends either on the upper plank beyond the gap or on the lower one, two "
    "places the apparatus fixes; no end state lies between them"
)
level_key = binary

SPACE = {
    "gap": Range(0.28, 0.34, domain=NON_NEGATIVE),  # m, width of the gap (GRASP: 0.303; the ball is 0.1)
    "speed": Range(0.7, 1.1, domain=POSITIVE),  # m/s when it starts rolling (GRASP: 0.6-1.2 units/s)
    "rolling_resistance": Fixed(0.05, domain=NON_NEGATIVE),  # m/s^2
    "start_delay": Range(0.5, 2.0, domain=NON_NEGATIVE),  # s (GRASP: 50-150 frames)
    # s between the ball coming to rest and the occluder starting to drop
    "reveal_wait": Range(0.3, 0.8, domain=NON_NEGATIVE),
    "ball": ball_space(0.1),
    "camera": camera_offsets(dx=(-0.5, 0.5), dy=(0.0, 0.0), dz=(-0.5, 0.0), fov=70.0),  # GRASP: x +-0.5, y -0.5..0
    **VISUAL,
}
OCCLUDER = (1.4, 0.8)  # m: width, height (GRASP: 1.35 x 0.8)


def _course(p, t):
    """What both paths start from: the ball's radius, where it starts and where the end wall stops it (x of its
    centre), its deceleration, and the times clipped to its start."""
    r = p.ball.diameter / 2
    return r, LEFT + r + 0.02, RIGHT - r, p.rolling_resistance, np.clip(np.asarray(t, float), 0.0, None)


def plausible_path(p, t):
    """The plausible ball's centre (x, z) at times t (s since it starts): rolling along the upper plank,
    slowing; at the gap it tips over the edge (pivots until the edge can no longer hold it), flies, lands on
    the lower plank (the landing takes the vertical velocity) and rolls on, slowing, until the end wall stops
    it. Also returns the times it reaches the edge and the wall."""
    r, x0, x_end, dec, t = _course(p, t)
    need(
        p.speed**2 > 2 * dec * (GAP_LEFT - x0),
        "t13: the ball stops before it reaches the gap",
        ("speed", "rolling_resistance"),
    )
    v_edge = np.sqrt(p.speed**2 - 2 * dec * (GAP_LEFT - x0))
    t_edge = (p.speed - v_edge) / dec
    piv_t, piv_phi = over_the_edge(v_edge, r)
    phi_s = piv_phi[-1]
    v_s = np.sqrt(v_edge**2 + 10 / 7 * G * r * (1 - np.cos(phi_s)))
    cx, cz = GAP_LEFT + r * np.sin(phi_s), UPPER_TOP + r * np.cos(phi_s)
    vx, vz = v_s * np.cos(phi_s), -v_s * np.sin(phi_s)
    t_sep = t_edge + piv_t[-1]
    t_land = t_sep + (vz + np.sqrt(vz**2 + 2 * G * (cz - LOWER_TOP - r))) / G
    x_land = cx + vx * (t_land - t_sep)
    disc = vx**2 - 2 * dec * (x_end - x_land)
    need(disc > 0, "t13: the ball stops before the end wall", ("speed", "rolling_resistance"))
    t_wall = t_land + (vx - np.sqrt(disc)) / dec
    x, z = np.empty_like(t), np.empty_like(t)
    on_top, pivot, fly, below = t <= t_edge, (t > t_edge) & (t <= t_sep), (t > t_sep) & (t <= t_land), t > t_land
    x[on_top], z[on_top] = x0 + p.speed * t[on_top] - 0.5 * dec * t[on_top] ** 2, UPPER_TOP + r
    phi = np.interp(t[pivot] - t_edge, piv_t, piv_phi)
    x[pivot], z[pivot] = GAP_LEFT + r * np.sin(phi), UPPER_TOP + r * np.cos(phi)
    tau = t[fly] - t_sep
    x[fly], z[fly] = cx + vx * tau, cz + vz * tau - 0.5 * G * tau**2
    tau = np.minimum(t[below] - t_land, t_wall - t_land)
    x[below], z[below] = x_land + vx * tau - 0.5 * dec * tau**2, LOWER_TOP + r
    return x, z, t_edge, t_sep, t_land, t_wall, v_s / r


def crossing_path(p, t):
    """The implausible ball: rolls on along the upper level as if the plank had no gap, to the end wall.
    Returns (x, z, time it reaches the wall)."""
    r, x0, x_end, dec, t = _course(p, t)
    need(
        p.speed**2 > 2 * dec * (x_end - x0),
        "t13: the implausible ball stops before the end wall",
        ("speed", "rolling_resistance"),
    )
    t_wall = (p.speed - np.sqrt(p.speed**2 - 2 * dec * (x_end - x0))) / dec
    tc = np.minimum(t, t_wall)
    return x0 + p.speed * tc - 0.5 * dec * tc**2, np.full_like(t, UPPER_TOP + r), t_wall


def clears_gap(p) -> bool:
    """Whether the plausible ball keeps clear (by r) of both upper plank pieces while it drops through the
    gap, checked at 0.5 ms steps."""
    r = p.ball.diameter / 2
    x, z, t_edge, t_sep, t_land, _, _ = plausible_path(p, np.arange(0.0, 20.0, 0.0005))
    m = (np.arange(len(x)) * 0.0005 > t_edge) & (np.arange(len(x)) * 0.0005 <= t_land + 0.01)
    x, z = x[m], z[m]
    ok = True
    for lo, hi in ((LEFT, GAP_LEFT), (GAP_LEFT + p.gap, RIGHT)):
        dx = np.maximum.reduce([lo - x, x - hi, np.zeros_like(x)])
        dz = np.maximum.reduce([z - UPPER_TOP, (UPPER_TOP - T_PLANK) - z, np.zeros_like(z)])
        ok &= bool(np.all(np.hypot(dx, dz) >= r - 1e-4))
    return ok


def build(scene, p, condition):
    room(scene, p)
    r = p.ball.diameter / 2
    w = RIGHT - LEFT
    depth = 0.8
    y_mid = 8.9 - depth / 2
    dark(scene, "back_panel", (w + 0.2, 0.05, 1.6), (X0, 8.93, LOWER_TOP + 0.4))
    wood(scene, "lower_plank", (w, depth, 0.1), (X0, y_mid, LOWER_TOP - 0.05), p, role="plank")
    for name, a, b in (("upper_plank_left", LEFT, GAP_LEFT), ("upper_plank_right", GAP_LEFT + p.gap, RIGHT)):
        wood(scene, name, (b - a, depth, T_PLANK), ((a + b) / 2, y_mid, UPPER_TOP - T_PLANK / 2), p, role="plank")
    for side, x in (("left", LEFT - 0.05), ("right", RIGHT + 0.05)):
        wood(scene, f"end_wall_{side}", (0.1, depth, 1.0), (x, y_mid, LOWER_TOP + 0.4), p)
    wood(scene, "start_box", (0.5, 0.02, 0.2), (LEFT + 0.25, 8.12, UPPER_TOP + 0.1), p, role="occluder")
    ow, oh = OCCLUDER
    occ_bottom = LOWER_TOP - 0.15
    occ = cover(scene, "occluder", (ow, 0.01, oh), (RIGHT - ow / 2, FRONT_Y, occ_bottom + oh / 2))
    wood(scene, "front_skirt", (w + 0.2, 0.02, oh + 0.1), (X0, FRONT_Y - 0.03, occ_bottom - (oh + 0.1) / 2), p)

    start = scene.frame(p.start_delay)
    t = (np.arange(scene.n_frames) - start) / scene.fps
    x, z, t_edge, t_sep, t_land, t_wall, spin = plausible_path(p, t)
    # a fast ball flies over the gap (or hits its far edge): the plausible event, falling in, cannot happen
    need(clears_gap(p), "t13: the falling ball would touch an edge of the gap", ("speed", "gap"))
    pos = np.stack([x, np.full_like(x, BALL_Y), z], axis=1)
    ball = add_ball(scene, p, pos[0])
    rot = over_the_edge_rotations(pos, t, t_edge, t_sep, t_land, spin, r, scene.fps)  # in flight it keeps its spin
    ball.position[:] = pos
    ball.quaternion[:] = orientations(ball.quaternion[0], rot)
    xb, zb, t_wall_b = crossing_path(p, t)
    rest = int(min(start + np.ceil(max(t_wall, t_wall_b) * scene.fps), scene.n_frames - 1))
    drop = min(rest + max(2, scene.frame(p.reveal_wait)), scene.n_frames - 1)
    lowered = move_by(occ, (0, 0, -oh - 0.05), COVER_SPEED, drop, scene.fps)
    look(scene, p, U(3.811, 12.109, -2.203), U(3.811, 11.990, -0.130))

    # both conditions: the pair is built only where the reveal fits the video
    require(lowered < scene.n_frames, scene, "t13", "the reveal", ("start_delay", "speed", "reveal_wait"))
    if condition == "implausible":
        first = int(np.flatnonzero(t > t_edge)[0])
        bad = np.stack([xb, np.full_like(xb, BALL_Y), zb], axis=1)
        quat = orientations(ball.quaternion[0], rolling_rotations(bad, UP, r))
        why = "t13: the occluder does not hide the ball over the gap"
        hid = must_hide(scene, "occluder", 0.005, why, ("camera.dx", "camera.dz"))
        last = max(rest, first)
        edits.replace_track(scene, "ball", first, bad[first:], quat[first:], PRINCIPLES, "crosses_gap", hid, last)
    finish(scene, p, X0)


def describe(scene, p, condition):
    end = (
        "the ball lies at rest on the lower plank, below the gap's far side"
        if condition == "plausible"
        else "the ball lies at rest on the upper plank, on the far side of the gap"
    )
    return (
        f"After {p.start_delay:.1f} s a ball rolls slowly out of a small box along an upper plank, with a "
        f"second plank below it, until it disappears behind an occluder. The occluder is lowered, revealing a "
        f"gap in the upper plank wider than the ball: {end}."
    )
