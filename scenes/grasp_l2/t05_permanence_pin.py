"""Test 5, Object permanence (pin): two occluders, 2 m apart, slide together from right to left on a shelf.
Plausible: a little cube stands left of both occluders; the left occluder slides over it. Implausible: the
cube stands between the occluders; the right occluder slides over it. Then a pin comes out of a housing on
the left, moves right behind the occluders and pushes the cube out from behind the LEFT occluder to the
middle between the occluders, and is retracted. In the implausible video the cube is moved (hidden) from
behind the right occluder to behind the left one the moment the pin starts: the `teleport` violation.

As in the description (and the Unity scene), the two videos differ from the first frame in where the cube
stands, so the recorded window runs from frame 0 to the teleport (`hidden` is False for the window as a whole;
the teleport itself, frames push-1 -> push, happens behind the occluders, checked in tests/scenes/test_level2_a.py).

Graded (`violation`, m): how far the implausible cube jumps to the left occluder's place when the pin starts, i.e.
how far right of the plausible cube it stood until then; today's default is the right occluder's place, 2.0 m
(hi), where the right occluder hides it. At a smaller level the cube stands between the occluders' final places,
in view (fully from 0.5 m to 1.5 m, partly behind an occluder nearer them), and its jump is seen; a jump no faster
than a real motion in one frame (level x fps <= MAX_SPEED) is Infeasible. The audit measures the largest distance
between the cube's positions in the two videos over the window (`displacement`).

Unity original (reference Part 3, Test 5, mirror index 1): occluders 0.5 x 1.0 start at x 4.542 and 6.542 and
move -1 at 1 unit/s; shelf top y = 11.79; cube 0.3 x 0.4 x 0.3 at z = 0.07; pin 2.0 x 0.1 x 0.1 at U(1, 1.5)
units/s. Coordinates via apparatus.U.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.thresholds import MAX_SPEED
from voebench.generator.params import COORDINATE, NON_NEGATIVE, POSITIVE, Fixed, Level, Range
from voebench.scenes.common import BRIGHT_HSV, camera_offsets, hsv_color
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.timing import need, within_video
from voebench.scenes.grasp_l2.apparatus import S, U, finish, look, smooth_profile
from voebench.scenes.grasp_l2.apparatus import FABRIC_TINT, dark, move_by, room, wood

NUMBER = 5
PRINCIPLES = ["object permanence"]
DELAYS = ("start_delay", "pin_delay", "pin.pause")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

X0 = U(3.728, 0, 0)[0]  # mirror plane
SHELF_TOP = U(0, 11.79, 0)[2]
CUBE = S(0.3, 0.4, 0.3)  # x, depth, height (m)
CUBE_UZ = 0.07
SLOT_UZ = -0.13  # the occluders' plane
PIN_LEN = 2.0
CAM_UX = 4.3  # camera x (GRASP 3.728): nearer the middle of the two cube places, so parallax cannot reveal it

SPACE = {
    # Unity x where the left occluder starts (GRASP 4.542); the right one is 2 m on
    "left_start": Range(4.442, 4.642, domain=COORDINATE),
    # m and m/s (GRASP: 0.5 wide, 1.0 unit/s)
    "occluder": {
        "width": Fixed(0.7, domain=POSITIVE),
        "speed": Range(0.8, 1.2, domain=POSITIVE),
        **BRIGHT_HSV,
    },
    # m/s (GRASP U(1, 1.5)); m/s^2 start/stop (< friction 4.9)
    "pin": {
        "speed": Range(1.0, 1.5, domain=POSITIVE),
        "accel": Fixed(2.5, domain=POSITIVE),
        **BRIGHT_HSV,
        "pause": Range(0.2, 0.6, domain=NON_NEGATIVE),
    },  # s between the end of the push and the retraction
    "start_delay": Range(1.0, 3.0, domain=NON_NEGATIVE),  # s before the occluders move (GRASP: 50-150 frames)
    "pin_delay": Range(0.3, 0.8, domain=NON_NEGATIVE),  # s after the occluders stop until the pin moves
    "camera": camera_offsets(
        dx=(-0.3, 0.3), dy=(0.0, 0.0), dz=(-0.5, 0.5), fov=60.0
    ),  # GRASP: x +-0.5 (narrowed: parallax), fov 70
    **VISUAL,
    # m the implausible cube jumps when the pin starts (declared last: unset, it takes no draw)
    "violation": Level(
        "m",
        "displacement",
        "how far right of the plausible cube the implausible one stands until it jumps when the pin starts",
        default="2.0 m: from the right occluder's place to the left one's",
        hi=2.0,
        tol=0.005,
    ),
}

SPAN = 2.0  # m between the occluders (and between the places they stop at)


def level(p) -> float:
    """The violation's size in m: the one asked for, else today's jump from the right occluder's place."""
    return SPAN if p.violation is None else p.violation


def build(scene, p, condition):
    room(scene, p)
    fps, T = scene.fps, scene.n_frames
    # shelf with a slot in which the occluders slide, dark panel behind
    wood(scene, "shelf_back", S(6.5, 0.3, 0.4), U(3.728, 11.79 - 0.15, 0.12), p)
    wood(scene, "shelf_front", S(6.5, 0.3, 0.25), U(3.728, 11.79 - 0.15, -0.325), p)
    wood(scene, "shelf_slot_floor", S(6.5, 0.05, 0.1), U(3.728, 11.445, SLOT_UZ), p)  # below the occluders
    dark(scene, "back_panel", S(6.5, 1.6, 0.05), U(3.728, 11.79 + 0.8, 0.335))
    # the pin's housing at the left end: front and top panels
    wood(scene, "housing_front", S(2.5, 2.0, 0.02), U(0.478 + 1.25, 11.79 + 1.0, -0.30), p)
    wood(scene, "housing_top", S(2.5, 0.02, 0.6), U(0.478 + 1.25, 13.79, 0.0), p)

    w = p.occluder.width
    ocolor = hsv_color(p.occluder.hue, p.occluder.saturation, p.occluder.value)
    xl0 = p.left_start
    occ_l = scene.add(
        "occluder_left", "box", S(w, 1.0, 0.01), U(xl0, 11.975, SLOT_UZ), role="occluder", fixture=True, color=ocolor
    )
    occ_r = scene.add(
        "occluder_right",
        "box",
        S(w, 1.0, 0.01),
        U(xl0 + 2.0, 11.975, SLOT_UZ),
        role="occluder",
        fixture=True,
        color=ocolor,
    )
    go = scene.frame(p.start_delay)
    arrive = move_by(occ_l, (-1.0, 0, 0), p.occluder.speed, go, fps)
    move_by(occ_r, (-1.0, 0, 0), p.occluder.speed, go, fps)

    # the cube: P left of both occluders (where the left one ends), IP between them (where the right one ends)
    x_left_end, x_right_end = U(xl0 - 1.0, 0, 0)[0], U(xl0 + 1.0, 0, 0)[0]
    x_mid_end = U(xl0, 0, 0)[0]  # between the occluders' final places
    cz = SHELF_TOP + CUBE[2] / 2
    cube = scene.add(
        "cube",
        "box",
        CUBE,
        (x_left_end, U(0, 0, CUBE_UZ)[1], cz),
        role="cube",
        color=FABRIC_TINT,
        texture={"pattern": "fabric", "seed": 3},
    )

    # the pin: starts inside the housing, pushes the cube from the left occluder's place to the middle, retracts
    pin_color = hsv_color(p.pin.hue, p.pin.saturation, p.pin.value)
    tip0 = U(0.478 + 2.5 - 0.45, 0, 0)[0]  # deep enough inside the housing not to show through its open end
    tip1 = x_mid_end - CUBE[0] / 2
    pin = scene.add(
        "pin",
        "box",
        (PIN_LEN, 0.1, 0.1),
        (tip0 - PIN_LEN / 2, U(0, 0, CUBE_UZ)[1], cz),
        role="pin",
        fixture=True,
        color=pin_color,
    )
    push = arrive + int(round(p.pin_delay * fps))
    s, done = smooth_profile(tip1 - tip0, p.pin.speed, p.pin.accel, T, push, fps)
    back = done + int(round(p.pin.pause * fps))
    s_back, _ = smooth_profile(tip1 - tip0, p.pin.speed, p.pin.accel, T, back, fps)
    tip = tip0 + s - s_back
    pin.position[:, 0] = tip - PIN_LEN / 2
    # pushed quasi-statically (the pin brakes more gently than friction would stop the cube): stays in contact
    pushed = np.maximum(x_left_end, np.maximum.accumulate(tip + CUBE[0] / 2))
    cube.position[:, 0] = pushed
    look(scene, p, U(CAM_UX, 13.191, -3.650), U(CAM_UX, 12.539, -0.130))

    within_video(back < T, scene, "t05", "the pin's push", ("start_delay", "pin_delay", "occluder.speed", "pin.speed"))
    # the implausible cube jumps from the right occluder's place to the left one's in one frame; below
    # MAX_SPEED / jump frames per second that is indistinguishable (to the audit, and to a model at that frame
    # rate) from the cube being launched from rest, so the teleport would not be a teleport
    x_start = x_right_end if p.violation is None else x_left_end + p.violation  # the implausible cube's place
    jump = abs(x_start - pushed[min(push, T - 1)])
    need(
        jump * fps > MAX_SPEED,
        f"t05: a {jump:.1f} m jump in one frame at {fps:g} fps is no faster than a real motion ({MAX_SPEED:g} m/s)",
        ("fps",) if p.violation is None else ("fps", "violation"),
    )
    if condition == "implausible":
        cube.position[:push, 0] = x_start  # stood right of the plausible place until the pin starts
        # The pair differs from frame 0 (where the cube stands), so the record's window starts there and ends
        # with the teleport; the teleport itself (push-1 -> push) happens behind the occluders (see tests).
        edits.record(scene, PRINCIPLES, "teleport", "cube", 0, push, hidden=False)
        edits.grade(scene, level(p))
    finish(scene, p, X0)


def describe(scene, p, condition):
    left, right = ("right", "left") if p.mirror else ("left", "right")
    where = f"on the {left} side of the two occluders" if condition == "plausible" else "between the two occluders"
    which = left if condition == "plausible" else right
    until = f" until the {which} occluder covers the cube"
    if condition == "implausible" and p.violation is not None:
        d = p.violation  # the cube's place from where the left occluder stops; each occluder 0.7 m, the cube 0.3 m
        where = f"{d:.2f} m to the {right} of the place where the {left} occluder stops"
        if d <= 0.2:
            until = f" until the {left} occluder covers the cube"
        elif 0.5 <= d <= 1.5:
            until = "; they stop with the cube between them, in view"
        elif d < 1.8:
            until = f"; they stop with the cube partly behind the {left if d < 1.0 else right} occluder"
    return (
        f"There is a mechanism moving two occluders in parallel. There is a little cube {where}. The cube is "
        f"smaller than the occluders. After {p.start_delay:.1f} s the occluders are moved sideways from {right} to "
        f"{left}{until}. Another mechanism moves a pin horizontally from "
        f"{left} to {right} behind the occluders. It pushes out the cube from behind the {left} occluder to a "
        f"position between the two occluders. After pushing out the cube, the pin is retracted."
    )
