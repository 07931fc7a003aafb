"""Test 9, Gravity: in a plywood box, a plank lies diagonally from high on the left to the floor on the right;
both ends of the box are hidden behind tall side panels. Plausible: a ball appears behind the left panel at
the plank's high end and rolls down the plank, speeding up (rolling without slipping: a = 5/7 g sin(angle)),
until it disappears behind the right panel, where the box's end wall stops it. Implausible: the ball appears
behind the right panel at the plank's low end and rolls *up* the plank, speeding up at the same rate, until
it disappears behind the left panel.

The ball comes into existence at the start delay in both conditions (behind a panel, where it cannot be
seen), so the pair is identical up to that frame; the violation is the whole uphill trajectory from it.

Binary (issue 24): the violation is the direction of the roll, up instead of down; the climb is fixed by the plank,
so no size of it shrinks toward the plausible video. (A speed ratio was tried as the level: on a rendered sweep the
share of pixels that differ from the plausible twin fell as the ratio grew, 0.0008 of the frame at 0.6x to 0.0005
at 1.8x, because a faster ball leaves the view sooner: it measured how fast, not how implausible.)
Unity original (reference Part 3, Test 9): floor 3.8 x 0.5, plank over 3.6 m at 10-30 degrees, end panels
0.6 wide; the implausible ball there moves up at constant speed with gravity off. Built unmirrored (high end
on the left), then `apparatus.finish` mirrors it when `p.mirror`.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import G, quat_from_axis_angle
from voebench.generator.params import INCLINE, NON_NEGATIVE, Range
from voebench.scenes.common import add_ball, ball_space, camera_offsets
from voebench.scenes.grasp_l2 import VISUAL, binary
from voebench.scenes.grasp_l2.apparatus import S, U, dark, finish, look, room, wood
from voebench.scenes.grasp_l2.motion import ROLL_FACTOR, frame_times, orientations, require, rolling_rotations

NUMBER = 9
PRINCIPLES = ["gravity"]
BINARY = (
    "the ball rolls up the plank instead of down: the climb is fixed by the plank, and no size of the roll shrinks "
    "toward the plausible video"
)
level_key = binary
DELAYS = ("start_delay",)  # pauses, scaled down in videos shorter than 10 s (timing.py)

X0 = U(3.811, 0, 0)[0]  # the box's centre line (mirror plane)
FLOOR_TOP = U(0, 10.326, 0)[2]
DEPTH_Y = U(0, 0, -0.13)[1]  # the plank's and the ball's depth (y)
WALL_LEFT, WALL_RIGHT = U(1.911, 0, 0)[0], U(5.711, 0, 0)[0]  # inner faces of the box's end walls
LOW_END = U(5.611, 0, 0)[0]  # where the plank meets the floor
PANEL_W = 0.6  # the end panels cover 0.6 m at each end (Unity x 1.811-2.411 and 5.211-5.811)

SPACE = {
    "angle": Range(10.0, 30.0, domain=INCLINE),  # deg, the plank's inclination (supplementary Section 3: 10-30)
    "start_delay": Range(1.0, 3.0, domain=NON_NEGATIVE),  # s before the ball appears (GRASP: 50-150 frames)
    "ball": ball_space(0.2),
    "camera": camera_offsets(dx=(-0.3, 0.3), dy=(0.0, 0.0), dz=(0.0, 1.0), fov=70.0),  # GRASP: x +-0.3, up 0-1
    **VISUAL,
}


def geometry(p):
    """The plank's surface: high point (x, z), unit direction down the slope, unit normal, length."""
    a = np.radians(p.angle)
    run = LOW_END - WALL_LEFT
    high = np.array([WALL_LEFT, FLOOR_TOP + run * np.tan(a)])
    down = np.array([np.cos(a), -np.sin(a)])
    normal = np.array([np.sin(a), np.cos(a)])
    return high, down, normal, run / np.cos(a)


def roll_track(scene, p, downhill: bool, start_frame: int):
    """Centre positions (T,3) of the ball rolling from rest at one end of the plank to the other, speeding
    up at 5/7 g sin(angle), and stopping at the end it rolls to (behind that end's panel)."""
    r = p.ball.diameter / 2
    high, down, normal, length = geometry(p)
    # centre line: the surface offset by r along the normal, from touching the left wall to touching the right
    c0 = high + r * normal
    s_lo = (WALL_LEFT + r - c0[0]) / down[0]  # centre touching the left end wall
    s_hi = (WALL_RIGHT - r - c0[0]) / down[0]  # centre touching the right end wall (bottom of the plank)
    travel = s_hi - s_lo
    acc = ROLL_FACTOR * G * np.sin(np.radians(p.angle))
    t = np.clip(frame_times(scene.n_frames, scene.fps, start_frame), 0.0, None)
    d = np.minimum(0.5 * acc * t**2, travel)
    s = s_lo + d if downhill else s_hi - d
    xz = c0 + s[:, None] * down
    pos = np.stack([xz[:, 0], np.full(len(s), DEPTH_Y), xz[:, 1]], axis=1)
    return pos, np.array([normal[0], 0.0, normal[1]])


def build(scene, p, condition):
    room(scene, p)
    high, down, normal, length = geometry(p)
    a = np.radians(p.angle)
    # the box: floor, dark back panel, end walls, the plank, and the two tall end panels in front
    wood(scene, "box_floor", S(3.8, 0.1, 0.5), U(3.811, 10.276, -0.13), p)
    dark(scene, "back_panel", S(4.0, 3.0, 0.05), U(3.811, 10.326 + 1.5, 0.145))
    for side, ux in (("left", 1.911 - 0.05), ("right", 5.711 + 0.05)):
        wood(scene, f"end_wall_{side}", S(0.1, 3.0, 0.5), U(ux, 10.326 + 1.5, -0.13), p)
    t = 0.02
    mid = high + down * length / 2 - normal * t / 2
    wood(scene, "plank", (length, 0.5, t), (mid[0], DEPTH_Y, mid[1]), p, role="plank").quaternion[:] = (
        quat_from_axis_angle((0, 1, 0), a)
    )
    for side, x in (("left", WALL_LEFT - 0.1 + PANEL_W / 2), ("right", WALL_RIGHT + 0.1 - PANEL_W / 2)):
        wood(scene, f"panel_{side}", (PANEL_W, 0.02, 3.0), (x, U(0, 0, -0.40)[1], FLOOR_TOP + 1.5), p, role="occluder")

    r = p.ball.diameter / 2
    start = scene.frame(p.start_delay)
    pos, n = roll_track(scene, p, True, start)
    ball = add_ball(scene, p, pos[0])
    ball.position[:] = pos
    ball.quaternion[:] = orientations(ball.quaternion[0], rolling_rotations(pos, n, r))
    ball.visible[:start] = False  # it comes into existence behind the left panel
    if condition == "implausible":
        up, _ = roll_track(scene, p, False, start)
        require(
            up[-1, 2] > up[0, 2] + 0.5 * (geometry(p)[0][1] - FLOOR_TOP),
            scene,
            "t09",
            "the climb up the plank",
            ("start_delay", "angle"),
        )
        quat = orientations(ball.quaternion[0], rolling_rotations(up, n, r))
        edits.replace_track(scene, "ball", start, up[start:], quat[start:], PRINCIPLES, kind="rolls_uphill")
    look(scene, p, U(3.811, 11.726, -2.257), U(3.811, 11.726, -0.130))
    finish(scene, p, X0)


def describe(scene, p, condition):
    how = (
        "rolls down the plank, speeding up, and disappears behind the panel at the low end"
        if condition == "plausible"
        else "appears at the low end and rolls up the plank, speeding up, and disappears behind the panel at the "
        "high end"
    )
    return (
        f"A plank lies diagonally in a box, inclined at {p.angle:.0f} degrees; tall panels hide both ends. "
        f"After {p.start_delay:.1f} s a ball {'appears at the high end and ' if condition == 'plausible' else ''}"
        f"{how}."
    )
