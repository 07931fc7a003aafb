"""Test 2, Unchangeableness (colour): a ball rolls out from behind a side panel across the floor of a plywood
casing, slowing down (rolling resistance), passes behind a narrow occluder in the foreground and rolls on
until it reaches the far side wall, where it comes to rest. Plausible: it reappears looking the same.
Implausible: it reappears with a different colour (changed while it was completely hidden).

Graded (`violation`, deg): the hue turn of the changed colour on the HSV colour circle (0-180 deg; saturation
and value stay), turned forward from the ball's hue; today's change turns the hue by `new_hue_shift` of the
circle, 108-180 deg (the shorter way round). The audit measures the largest hue difference of the ball between
the two videos (`hue_turn`).

Unity original (reference Part 3, Test 2): floor top y = 11.326, ball 0.2 from x 2.511 to 5.111, occluder
0.4 x 0.7 at (3.811, 11.676, -0.407), entry panel 0.6 x 2.0. Coordinates via apparatus.U.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import roll
from voebench.generator.thresholds import COLOR_TOL
from voebench.generator.params import FRACTION, NON_NEGATIVE, POSITIVE, Level, Range
from voebench.scenes.common import ball_space, camera_offsets, hsv_color
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.timing import need
from voebench.scenes.grasp_l2.apparatus import S, U, cover, dark, finish, hidden_frames, look, room, wood

NUMBER = 2
PRINCIPLES = ["unchangeableness"]
DELAYS = ("start_delay",)  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

FLOOR_TOP = U(0, 11.326, 0)[2]
X0 = U(3.811, 0, 0)[0]  # mirror plane
BALL_Z = -0.271  # Unity z of the ball's path
START_UX, END_UX = 2.511, 5.111  # ball centre touching the left / right inner side wall (Unity x)

SPACE = {
    "ball": ball_space(0.2),
    "speed": Range(0.8, 1.4, domain=POSITIVE),  # m/s when it starts rolling (GRASP: constant U(0.5, 1.2))
    # speed at the far wall as a fraction of the start speed (rolling resistance)
    "arrive_fraction": Range(0.25, 0.5, domain=FRACTION),
    "new_hue_shift": Range(0.3, 0.7, domain=FRACTION),  # implausible: the hue turns by this much (of the colour circle)
    "start_delay": Range(1.0, 3.0, domain=NON_NEGATIVE),  # s (GRASP: 50-150 frames)
    "camera": camera_offsets(dx=(-0.4, 0.4), dy=(0.0, 0.0), dz=(-0.4, 0.4)),  # GRASP: x, y offsets +-0.4
    **VISUAL,
    # deg the implausible ball's hue turns (declared last: unset, it takes no draw)
    "violation": Level(
        "deg",
        "hue_turn",
        "the hue turn of the ball's colour on the colour circle",
        default="new_hue_shift x 360, the shorter way round: 108-180 deg",
        hi=180.0,
        tol=0.5,
    ),
}


def level(p) -> float:
    """The violation's size in degrees of hue: the one asked for, else today's turn by `new_hue_shift`."""
    return 360.0 * min(p.new_hue_shift, 1.0 - p.new_hue_shift) if p.violation is None else p.violation


def new_hue(hue: float, p) -> float:
    """The changed colour's hue (0-1): today's `new_hue_shift` on, or the asked level's turn forward."""
    return (hue + (p.new_hue_shift if p.violation is None else p.violation / 360.0)) % 1.0


def build(scene, p, condition):
    room(scene, p)
    d = p.ball.diameter
    wood(scene, "floor_plank", S(3.0, 0.1, 0.9), U(3.811, 11.276, -0.27), p)
    dark(scene, "back_panel", S(2.8, 1.8, 0.05), U(3.811, 11.326 + 0.9, 0.205))
    for side, ux in (("left", 2.361), ("right", 5.261)):
        wood(scene, f"side_{side}", S(0.1, 1.8, 0.9), U(ux, 11.326 + 0.9, -0.27), p)
    wood(scene, "top_panel", S(3.0, 0.1, 0.9), U(3.811, 13.176, -0.27), p)
    wood(scene, "start_box", S(0.6, 2.0, 0.05), U(2.611, 11.226 + 1.0, -0.745), p)  # hides where the ball starts
    cover(scene, "occluder", S(0.4, 0.7, 0.05), U(3.811, 11.676, -0.407))

    start = U(START_UX, 0, BALL_Z)
    start[2] = FLOOR_TOP + d / 2
    hue = p.ball.hue
    ball = scene.add(
        "ball", "sphere", (d,) * 3, start, role="ball", color=hsv_color(hue, p.ball.saturation, p.ball.value)
    )
    length = END_UX - START_UX
    v1 = p.arrive_fraction * p.speed
    deceleration = (p.speed**2 - v1**2) / (2 * length)
    # rolls without slipping, slowing down, until it touches the far wall, where it stops (inelastic contact)
    roll(
        ball, start, (1.0, 0.0, 0.0), p.speed, deceleration, scene.frame(p.start_delay), scene.fps, max_distance=length
    )
    look(scene, p, U(3.811, 12.183, -2.259), U(3.811, 11.990, -0.130))

    if condition == "implausible":
        hidden = np.flatnonzero(hidden_frames(scene, "ball", "occluder", margin=0.02))
        hidden = hidden[hidden > scene.frame(p.start_delay)]
        need(
            len(hidden) >= 2,
            "t02: the ball is never completely behind the occluder for 2 frames (too fast for "
            "the frame rate, or the video ends first)",
            ("fps", "seconds", "speed", "start_delay", "camera.dx", "camera.dz"),
        )
        f = int(hidden[len(hidden) // 2])
        new = hsv_color(new_hue(hue, p), p.ball.saturation, p.ball.value)
        need(
            np.abs(np.subtract(new, ball.color[f])).max() > COLOR_TOL,
            f"t02: a hue turn of {level(p):g} deg does not change the ball's colour",
            ("violation",),
        )
        edits.recolor(scene, "ball", f, new, PRINCIPLES, hidden=True)
        edits.grade(scene, level(p))
    finish(scene, p, X0)


def describe(scene, p, condition):
    side, other = ("right", "left") if p.mirror else ("left", "right")
    text = (
        f"After {p.start_delay:.1f} s a sphere rolls into view from the {side} and rolls towards the {other}, "
        f"slowing down on the way. There is an occluding object, larger than the sphere, in the foreground. "
        f"When the sphere rolls behind that object it disappears from view and then reappears on the other side "
        f"of the object. "
    )
    if condition == "plausible":
        text += "When the sphere reappears it looks exactly the same as before."
    else:
        text += "When the sphere reappears it has a different color" + (
            "." if p.violation is None else f" (its hue turned by {level(p):.0f} degrees on the color circle)."
        )
    return text + " The sphere continues to roll until it reaches a wall where it comes to rest."
