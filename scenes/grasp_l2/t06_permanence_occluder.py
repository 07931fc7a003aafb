"""Test 6, Object permanence (occluder with a low middle): a ball rolls out from behind a side panel across
a box floor, slowing down, and passes behind an occluder that is tall at both ends and low in the middle.
The camera looks straight from the front with its line of sight at the top of the low middle part.

Both videos use the same occluder, whose low middle is lower than the ball, so the two differ only by the
violation. Plausible: the ball disappears behind the first tall part, its top is seen passing behind the low
middle, and it reappears from behind the second tall part. Implausible: the ball stays entirely out of sight
behind the low middle (it stops existing from behind the first tall part until behind the second one).

Graded (`violation`, s): the ball is gone for this long, from the middle of its passage fully behind the
first tall part on; today's size runs until the middle of its passage fully behind the second tall part (about
1.06-1.64 s over 40 default draws). A shorter absence ends in view: the ball's top reappears above the low middle (or,
for the shortest, while the first tall part still hides it, the limit where the two videos look alike). An
absence that would end after the ball has come out from behind the second tall part is infeasible. The audit
measures how long the ball is invisible where its twin exists (`absence_time`).

The supplementary's plausible video instead has a middle taller than the ball (and the Unity scene uses a
smaller ball and a taller occluder in P than in IP); see docs/differences-l2a.md.

Unity original (reference Part 3, Test 6): floor top y = 11.326, occluder at z = -0.305 with a 1.5 wide base
and two 0.5 wide blocks at x 3.311 and 4.311, ball 0.3 (IP) rolling at constant U(0.7, 1.5).
Coordinates via apparatus.U.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import roll
from voebench.errors import Infeasible
from voebench.generator.params import COORDINATE, FRACTION, NON_NEGATIVE, POSITIVE, Fixed, Level, Range
from voebench.scenes.common import add_ball, ball_space, camera_offsets
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.timing import need
from voebench.scenes.grasp_l2.apparatus import S, U, cover, dark, finish, hidden_frames, look, room, wood

NUMBER = 6
PRINCIPLES = ["object permanence"]
DELAYS = ("start_delay",)  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

X0 = U(3.811, 0, 0)[0]  # mirror plane
FLOOR_TOP = U(0, 11.326, 0)[2]
BALL_UZ = -0.10  # Unity z of the ball's path (GRASP: ~0; moved nearer the occluder so the tall parts hide it)
OCC_UZ = -0.305
START_UX = 1.561  # ball centre touching the left wall
HI = 2.0  # s, bound on the longest absence a draw allows (slowest ball, nearest stop; 1.2-1.93 s over 60 draws)

SPACE = {
    "ball": ball_space(0.3),
    # height of the low middle as a fraction of the ball's diameter
    "middle_fraction": Range(0.35, 0.55, domain=FRACTION),
    "block_width": Fixed(0.6, domain=POSITIVE),  # m, width of each tall part (GRASP 0.5); the low middle is 0.5 wide
    "speed": Range(1.4, 2.0, domain=POSITIVE),  # m/s at the start (GRASP: constant U(0.7, 1.5))
    # Unity x where rolling resistance stops it (past the occluder, before the wall)
    "stop_x": Range(4.8, 5.2, domain=COORDINATE),
    "start_delay": Range(1.0, 2.5, domain=NON_NEGATIVE),  # s (GRASP: 50-150 frames)
    # the camera looks horizontally from the height of the low middle's top (plus dz), straight from the front
    "camera": camera_offsets(dx=(-0.3, 0.3), dy=(-0.3, 0.3), dz=(0.0, 0.03), fov=60.0),
    **VISUAL,
    # s the ball is gone, from behind the first tall part on (declared last: unset, it takes no draw)
    "violation": Level(
        "s",
        "absence_time",
        "how long the ball is gone, from behind the first tall part on",
        default="until it is behind the second tall part (about 1.0-1.7 s)",
        hi=HI,
        tol=0.06,  # the absence is whole frames: half a frame at 10 fps, and some
    ),
}


def gone(scene, p, first: int, hidden_right) -> int:
    """The last frame (inclusive) the ball is gone when it vanishes at `first`: today's middle of its passage
    behind the second tall part, or `p.violation` s (whole frames) later; Infeasible where that is no frame or
    later than the second tall part hides it."""
    if p.violation is None:
        return int(hidden_right[len(hidden_right) // 2])
    n = int(round(p.violation * scene.fps))
    if n < 1:
        raise Infeasible(f"t06: an absence of {p.violation:g} s is shorter than half a frame", ("violation", "fps"))
    if first + n - 1 > hidden_right[-1]:
        raise Infeasible(
            f"t06: an absence of {p.violation:g} s ends after the ball has come out from behind the second tall part",
            ("violation", "speed", "stop_x"),
        )
    return first + n - 1


def build(scene, p, condition):
    room(scene, p)
    d, r = p.ball.diameter, p.ball.diameter / 2
    wood(scene, "floor_plank", S(5.0, 0.1, 0.7), U(3.811, 11.276, -0.05), p)
    dark(scene, "back_panel", S(5.0, 1.5, 0.05), U(3.811, 11.326 + 0.75, 0.325))
    for side, ux in (("left", 1.361), ("right", 6.261)):
        wood(scene, f"side_{side}", S(0.1, 1.5, 0.7), U(ux, 11.326 + 0.75, -0.05), p)
    wood(scene, "start_box", S(0.7, 2.0, 0.02), U(1.661, 11.226 + 1.0, -0.45), p)

    h_mid = p.middle_fraction * d
    h_tall = d + 0.12
    bw = p.block_width
    sunk = 0.05  # the occluder stands in a groove of the floor, 5 cm deep
    cover(scene, "occluder_base", S(0.5, h_mid + sunk, 0.05), U(3.811, 11.326 + (h_mid - sunk) / 2, OCC_UZ))
    for name, sign in (("occluder_left", -1), ("occluder_right", 1)):
        cover(
            scene,
            name,
            S(bw, h_tall + sunk, 0.05),
            U(3.811 + sign * (0.25 + bw / 2), 11.326 + (h_tall - sunk) / 2, OCC_UZ),
        )

    start = U(START_UX, 0, BALL_UZ)
    start[2] = FLOOR_TOP + r
    ball = add_ball(scene, p, start)
    dist = p.stop_x - START_UX
    roll(ball, start, (1.0, 0.0, 0.0), p.speed, p.speed**2 / (2 * dist), scene.frame(p.start_delay), scene.fps)
    eye = U(3.811, 11.326 + h_mid, -2.4)  # GRASP: z -2.921, higher, looking down
    look(scene, p, eye, eye + (0.0, 3.0, 0.0))

    if condition == "implausible":
        runs = []
        for block in ("occluder_left", "occluder_right"):
            h = np.flatnonzero(hidden_frames(scene, "ball", block, margin=0.02))
            need(
                len(h) > 0,
                f"t06: the ball is never completely behind {block} (it stops first, the video ends "
                "first, or it passes between two frames)",
                ("seconds", "fps", "start_delay", "speed", "stop_x", "camera.dx"),
            )
            runs.append(h)
        first = int(runs[0][len(runs[0]) // 2])
        last = gone(scene, p, first, runs[1])
        edits.vanish(scene, "ball", first, last, PRINCIPLES, hidden=False)
        edits.grade(scene, (last - first + 1) / scene.fps if p.violation is None else p.violation)
    finish(scene, p, X0)


def describe(scene, p, condition):
    side, other = ("right", "left") if p.mirror else ("left", "right")
    text = (
        f"After {p.start_delay:.1f} s a sphere rolls from the {side} side to the {other} side, slowing down, "
        f"passing behind an occluder on the way. The occluder is higher on the left and the right side and lower "
        f"in the middle. At the low part in the middle, the height of the occluder is less than the diameter of "
        f"the sphere. The sphere disappears behind the occluder on one side and reappears on the other side. "
    )
    if condition == "plausible":
        text += "While it is behind the low middle part, the top of the sphere can be seen above it."
    elif p.violation is None:
        text += "While it is behind the occluder, it remains entirely out of sight."
    else:
        text += (
            f"Once it is behind the first high part it is gone for {p.violation:.2f} s: for that long not even "
            "its top can be seen above the low middle part."
        )
    return text + (
        " The scene is viewed right from the front, with a line of sight exactly at the top of the lower "
        "part of the occluder."
    )
