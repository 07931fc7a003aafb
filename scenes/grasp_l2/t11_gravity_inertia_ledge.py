"""Test 11, Gravity & inertia: in a plywood box with tall panels hiding both ends, a ball comes out from
behind the left panel rolling along the top of a block, slowing slightly (rolling resistance). Plausible:
at the block's edge it tips over the edge (pivoting on it until the edge can no longer hold it, as a real
rolling ball does) and falls in a parabola, keeping its sideways speed, lands on the floor and rolls on in the
same direction until it disappears behind the right panel (where the end wall stops it). Implausible,
one of two (supplementary Section 3): it floats on horizontally at the block's height at constant speed,
or it stops dead just past the edge, drops straight down and stays where it lands.

Graded (`violation`, s), the floating ball only: it floats on past the edge at the block's height for this long,
then falls in a parabola keeping its sideways speed, lands and rolls on toward the end wall; today's size floats
it until the end wall stops it (or the video ends; the last half metre lies behind the right panel). A level near
0 leaves it falling straight off the edge, close to the plausible ball (which first tips over the edge); a float
that would reach the end wall or outlast the video is infeasible. The dead stop (`implausible` = "drop") has no
size of this kind (the horizontal motion is gone at once): its videos are binary (`level_key` is None for them)
and a level asked for redraws to the floating ball. The audit measures how long the ball moves on at the block's
height while its twin is lower (`float_time`).

Unity original (reference Part 3, Test 11): block 1.3-2.0 long x 1.0-2.0 high, ball 0.2 m at 0.7-2.0 units/s
moving kinematically at constant speed. Built unmirrored (block on the left), mirrored by `apparatus.finish`.
"""

import numpy as np

from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.kinematics import G
from voebench.generator.params import NON_NEGATIVE, POSITIVE, Choice, Fixed, Level, Range
from voebench.scenes.common import add_ball, ball_space, camera_offsets
from voebench.scenes.grasp_l2 import VISUAL
from voebench.scenes.grasp_l2.apparatus import S, U, dark, finish, look, room, wood
from voebench.scenes.grasp_l2.motion import orientations, over_the_edge, over_the_edge_rotations, require

NUMBER = 11
PRINCIPLES = ["gravity", "inertia"]
DELAYS = ("start_delay",)  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)

X0 = U(3.811, 0, 0)[0]
FLOOR_TOP = U(0, 10.326, 0)[2]
WALL_LEFT, WALL_RIGHT = U(1.911, 0, 0)[0], U(5.711, 0, 0)[0]  # inner faces of the end walls
DEPTH_Y = U(0, 0, -0.13)[1]  # the block's depth (centre)
BALL_Y = DEPTH_Y - 0.25  # the ball runs near the block's front edge, close behind the end panels
FRONT_Y = DEPTH_Y - 0.42  # the end panels' plane, just in front of the block
PANEL_W = 0.6

SPACE = {
    "block": {
        "extra_length": Range(0.0, 0.7, domain=NON_NEGATIVE),
        "extra_height": Range(0.0, 1.0, domain=NON_NEGATIVE),
    },  # m added to 1.3 x 1.0
    "speed": Range(0.7, 2.0, domain=POSITIVE),  # m/s when it starts rolling (GRASP: 0.7-2.0 units/s)
    "rolling_resistance": Fixed(0.05, domain=NON_NEGATIVE),  # m/s^2
    "start_delay": Range(0.0, 2.0, domain=NON_NEGATIVE),  # s (GRASP: 0-100 frames)
    "implausible": Choice(("float", "drop")),  # what the implausible ball does past the edge
    "ball": ball_space(0.2),
    "camera": camera_offsets(dx=(-0.5, 0.5), dy=(0.0, 0.0), dz=(-0.5, 0.5), fov=70.0),  # GRASP: x, y +-0.5
    **VISUAL,
    # s the floating ball floats on past the edge before it falls (declared last: unset, it takes no draw)
    "violation": Level(
        "s",
        "float_time",
        "how long the ball floats on past the edge at the block's height before it falls",
        default="until the end wall stops it or the video ends (0.85-3.95 s); implausible=drop is binary",
        hi=4.0,  # the longest float to the end wall: 2.4 m at 0.61 m/s (shortest block, slowest ball): 3.95 s
        tol=0.1,  # one frame at 10 fps: the float ends between two frames
    ),
}


def level_key(p) -> str | None:
    """The floating ball's violation is graded; the dead stop is binary (see the module docstring)."""
    return "violation" if p.implausible == "float" else None


def tracks(scene, p):
    """The plausible ball: centre positions (T,3), the first frame past the edge, the block top z, the edge x,
    the spin (rad/s) it keeps in flight, seconds since the start per frame, the time it reaches the edge,
    the time it leaves the edge, the time it lands."""
    r = p.ball.diameter / 2
    top = FLOOR_TOP + 1.0 + p.block.extra_height
    edge = WALL_LEFT + 1.3 + p.block.extra_length
    x0, x_end = WALL_LEFT + r, WALL_RIGHT - r
    dec = p.rolling_resistance
    start = scene.frame(p.start_delay)
    t_all = (np.arange(scene.n_frames) - start) / scene.fps
    # phase 1: rolling on the block top until the centre is over the edge
    d1 = edge - x0
    v_edge = np.sqrt(p.speed**2 - 2 * dec * d1)
    t1 = (p.speed - v_edge) / dec
    # phase 2: pivoting about the edge, then flight until the centre is r above the floor
    piv_t, piv_phi = over_the_edge(v_edge, r)
    phi_s = piv_phi[-1]
    v_s = np.sqrt(v_edge**2 + 10 / 7 * G * r * (1 - np.cos(phi_s)))
    c_s = np.array([edge + r * np.sin(phi_s), top + r * np.cos(phi_s)])
    vx, vz = v_s * np.cos(phi_s), -v_s * np.sin(phi_s)
    drop = c_s[1] - (FLOOR_TOP + r)
    t_fly = (vz + np.sqrt(vz**2 + 2 * G * drop)) / G
    t_sep = t1 + piv_t[-1]
    t_land = t_sep + t_fly
    x_land = c_s[0] + vx * t_fly
    # phase 3: rolling on the floor at the landing's horizontal speed, slowing, until the end wall
    x, z = np.empty(scene.n_frames), np.empty(scene.n_frames)
    for i, t in enumerate(t_all):
        if t <= 0:
            x[i], z[i] = x0, top + r
        elif t <= t1:
            x[i], z[i] = x0 + p.speed * t - 0.5 * dec * t * t, top + r
        elif t <= t_sep:
            phi = np.interp(t - t1, piv_t, piv_phi)
            x[i], z[i] = edge + r * np.sin(phi), top + r * np.cos(phi)
        elif t <= t_land:
            tau = t - t_sep
            x[i], z[i] = c_s[0] + vx * tau, c_s[1] + vz * tau - 0.5 * G * tau * tau
        else:
            tau = min(t - t_land, vx / dec)
            x[i], z[i] = min(x_land + vx * tau - 0.5 * dec * tau * tau, x_end), FLOOR_TOP + r
    pos = np.stack([x, np.full_like(x, BALL_Y), z], axis=1)
    past = int(np.flatnonzero(t_all > t1)[0]) if np.any(t_all > t1) else scene.n_frames - 1
    return pos, past, top, edge, v_edge, v_s / r, t_all, t1, t_sep, t_land


def fall_after_float(scene, p, bad, rot_bad, t_all, t1, edge, v_edge, top) -> None:
    """Overwrite the floating ball's track (`bad`, `rot_bad`, in place) from `p.violation` s past the edge on:
    a fall from rest vertically keeping the sideways speed, then rolling on the floor, slowing, to the end wall.
    Infeasible where the float would reach the end wall or outlast the video."""
    r = p.ball.diameter / 2
    x_end = WALL_RIGHT - r
    float_t = p.violation
    if float_t > (x_end - edge) / v_edge or t1 + float_t >= t_all[-1]:
        raise Infeasible(
            f"t11: a float of {float_t:g} s past the edge reaches the end wall or outlasts the video",
            ("violation", "speed", "block.extra_length", "start_delay", "seconds"),
        )
    x_f = edge + v_edge * float_t
    t_fall = np.sqrt(2 * (top - FLOOR_TOP) / G)
    after = np.flatnonzero(t_all - t1 > float_t)
    for i in after:
        u = t_all[i] - t1 - float_t
        if u <= t_fall:
            x, z = x_f + v_edge * u, top + r - 0.5 * G * u * u
        else:
            w = min(u - t_fall, v_edge / p.rolling_resistance)
            x, z = x_f + v_edge * (t_fall + w) - 0.5 * p.rolling_resistance * w * w, FLOOR_TOP + r
        bad[i, 0], bad[i, 2] = min(x, x_end), z
    # rolling (or, in flight, keeping the spin it floated with) by the sideways step
    steps = np.diff(bad[after[0] - 1 :, 0])
    rot_bad[after[0] - 1 :] = 0.0
    rot_bad[after[0] - 1 :, 1] = steps / r


def build(scene, p, condition):
    if p.violation is not None and p.implausible != "float":
        raise Infeasible("t11: only the floating ball's violation has a level", ("violation", "implausible"))
    room(scene, p)
    r = p.ball.diameter / 2
    # the box: floor, dark back panel, end walls, the block, the two tall end panels
    wood(scene, "box_floor", S(4.0, 0.1, 1.0), U(3.811, 10.276, -0.13), p)
    dark(scene, "back_panel", S(3.8, 2.8, 0.05), (X0, 8.95, FLOOR_TOP + 1.4))
    for side, x in (("left", WALL_LEFT - 0.05), ("right", WALL_RIGHT + 0.05)):
        wood(scene, f"end_wall_{side}", (0.1, 1.0, 2.8), (x, DEPTH_Y, FLOOR_TOP + 1.4), p)
    pos, past, top, edge, v_edge, spin, t_all, t1, t_sep, t_land = tracks(scene, p)
    length = edge - WALL_LEFT
    wood(
        scene,
        "block",
        (length, 0.8, top - FLOOR_TOP),
        (WALL_LEFT + length / 2, DEPTH_Y, (top + FLOOR_TOP) / 2),
        p,
        role="ledge",
    )
    for side, x in (("left", WALL_LEFT - 0.1 + PANEL_W / 2), ("right", WALL_RIGHT + 0.1 - PANEL_W / 2)):
        wood(scene, f"panel_{side}", (PANEL_W, 0.02, 2.8), (x, FRONT_Y, FLOOR_TOP + 1.4), p, role="occluder")

    ball = add_ball(scene, p, pos[0])
    # rolling on the block, round the edge and on the floor; in flight it keeps the spin it left the edge with
    rot = over_the_edge_rotations(pos, t_all, t1, t_sep, t_land, spin, r, scene.fps)
    ball.position[:] = pos
    ball.quaternion[:] = orientations(ball.quaternion[0], rot)

    if condition == "implausible":
        require(past + 10 < scene.n_frames, scene, "t11", "the ball passing the edge", ("start_delay", "speed"))
        bad = pos.copy()
        x_end = WALL_RIGHT - r
        if p.implausible == "float":  # no gravity: on at the edge speed and height until the end wall
            tau = np.clip(t_all[past:] - t1, 0.0, None)
            bad[past:, 0] = np.minimum(edge + v_edge * tau, x_end)
            bad[past:, 2] = top + r
            rot_bad = np.zeros((len(pos) - 1, 3))
            rot_bad[:past] = rot[:past]
            moving = np.flatnonzero(np.diff(bad[:, 0]) > 0)
            rot_bad[moving[moving >= past]] = (0.0, v_edge / r / scene.fps, 0.0)
            if p.violation is not None:
                fall_after_float(scene, p, bad, rot_bad, t_all, t1, edge, v_edge, top)
            level = p.violation if p.violation is not None else np.count_nonzero(moving >= past) / scene.fps
        else:  # stops dead once clear of the edge, drops straight down, stays where it lands
            stop_x = edge + r + 0.02
            beyond = np.flatnonzero(edge + v_edge * np.clip(t_all[past:] - t1, 0, None) >= stop_x)
            require(len(beyond) > 0, scene, "t11", "the ball clearing the edge", ("start_delay", "speed"))
            f_stop = past + int(beyond[0])
            tau_stop = (stop_x - edge) / v_edge
            bad[past:f_stop, 0] = edge + v_edge * (t_all[past:f_stop] - t1)
            bad[past:f_stop, 2] = top + r
            bad[f_stop:, 0] = stop_x
            tau = t_all[f_stop:] - t1 - tau_stop
            bad[f_stop:, 2] = np.maximum(top + r - 0.5 * G * tau**2, FLOOR_TOP + r)
            rot_bad = np.zeros((len(pos) - 1, 3))
            rot_bad[:past] = rot[:past]
            rot_bad[past:f_stop] = (0.0, v_edge / r / scene.fps, 0.0)
        quat = orientations(ball.quaternion[0], rot_bad)
        edits.replace_track(
            scene,
            "ball",
            past,
            bad[past:],
            quat[past:],
            PRINCIPLES,
            kind="floats" if p.implausible == "float" else "drops_straight",
        )
        if p.implausible == "float":
            edits.grade(scene, float(level))
    look(scene, p, U(3.811, 11.726, -2.692), U(3.811, 11.726, 0.320))
    finish(scene, p, X0)


def describe(scene, p, condition):
    if condition == "plausible":
        end = (
            "past the edge it falls in a curve, keeping its sideways motion, lands on the floor and rolls on in "
            "the same direction until it disappears behind the panel at the other end"
        )
    elif p.implausible == "float" and p.violation is not None:
        end = (
            f"past the edge it keeps moving sideways at the same height, floating in the air, for {p.violation:.2f} s; "
            "then it falls in a curve, keeping its sideways motion, lands on the floor and rolls on in the same "
            "direction"
        )
    elif p.implausible == "float":
        end = "past the edge it keeps moving sideways at the same height, floating in the air, until it disappears"
    else:
        end = "just past the edge it stops, drops straight down and stays where it lands"
    return (
        f"After {p.start_delay:.1f} s a ball comes out from behind a panel, rolling along the top of a block "
        f"at {p.speed:.1f} m/s; {end}."
    )
