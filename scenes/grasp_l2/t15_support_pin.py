"""Test 15, Support & gravity: a cube rests on a long block standing on a table. A pin comes out of a housing
at one end and pushes the cube along the block's top toward the other end, then is retracted. Plausible: the
pin stops before the cube reaches the edge; the cube rests there. Implausible: the pin pushes it more than
halfway over the edge (its centre of mass beyond the edge); the cube rests there at the same height, unsupported.

The pin accelerates and brakes at 2.5 m/s^2, below the 4.9 m/s^2 at which friction (mu = 0.5) can stop the
cube, so the cube stays against the pin and stops with it (exact quasi-static pushing). As in the description,
the two videos share the push until the plausible pin starts braking; the recorded window starts there (the
implausible push goes on) and lasts to the end; the cube's centre passes the edge a little later.

Graded (`violation`, m): how far the cube's centre ends beyond the block's edge, unsupported; today's size is
(overhang - 0.5) x size, 0.1-0.63 m. Level 0 (the centre right over the edge) is the balance point, the
furthest a real cube could be pushed and stay; the plausible twin stops `gap` short of the edge. The audit
measures, at the last frame, the horizontal distance from the cube's centre to the edge of the block's top (the
`overhang` measure).

Unity original (reference Part 3, Test 15): table top y = 11.794, block 3.5 x s x s (s ~ U(0.5, 0.9)) at
x = 3.728, cube of edge s, pin 3.5 x 0.2 x 0.2 at constant U(1.5, 2) units/s. Coordinates via apparatus.U.
"""

import numpy as np

from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.params import NON_NEGATIVE, POSITIVE, Fixed, Level, Range
from voebench.scenes.common import BRIGHT_HSV, camera_offsets, hsv_color
from voebench.scenes.grasp_l2 import VISUAL, graded, timing
from voebench.scenes.grasp_l2.apparatus import S, U, finish, look, smooth_profile
from voebench.scenes.grasp_l2.apparatus import FABRIC_TINT, dark, room, wood

NUMBER = 15
PRINCIPLES = ["support", "gravity"]
DELAYS = ("start_delay", "pin.pause")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

X0 = U(3.728, 0, 0)[0]  # mirror plane
TABLE_TOP = U(0, 11.794, 0)[2]
BLOCK_UX, BLOCK_LEN, BLOCK_UZ = 3.728, 3.5, -0.63
EDGE_UX = BLOCK_UX - BLOCK_LEN / 2  # the edge the cube is pushed toward (Unity x 1.978)
HOUSING_UX = 4.73  # inner (left) end of the pin's housing, Unity x
PIN_LEN = 3.5

SPACE = {
    "size": Range(0.5, 0.9, domain=POSITIVE),  # m, block height/depth = cube edge (GRASP U(0.5, 0.9))
    "cube": {
        **BRIGHT_HSV,
    },
    # m/s (GRASP U(1.5, 2)); m/s^2 start/stop (< friction 4.9)
    "pin": {
        "speed": Range(1.5, 2.0, domain=POSITIVE),
        "accel": Fixed(2.5, domain=POSITIVE),
        **BRIGHT_HSV,
        "pause": Range(0.2, 0.6, domain=NON_NEGATIVE),
    },  # s before the pin is retracted
    "gap": Range(0.1, 0.8, domain=NON_NEGATIVE),  # plausible: m left between the cube and the edge where the push ends
    # implausible: fraction of the cube's width pushed beyond the edge
    "overhang": Range(0.7, 1.2, domain=NON_NEGATIVE),
    "start_delay": Range(0.4, 2.0, domain=NON_NEGATIVE),  # s (GRASP: 20-100 frames)
    "camera": camera_offsets(dx=(-0.5, 0.5), dy=(0.0, 0.0), dz=(-0.5, 0.5), fov=50.0),  # GRASP fov 70
    **VISUAL,
    # m of the cube's centre beyond the block's edge where the push ends (declared last: unset, it takes no draw)
    "violation": Level(
        "m",
        "overhang",
        "how far the cube's centre is pushed beyond the block's edge",
        default="(overhang - 0.5) x size: 0.1-0.63 m",
        hi=0.9,  # the pin's far end stays inside its housing even for the smallest cube (0.5 m): 0.998 m
        tol=1e-6,
    ),
}


def level(p) -> float:
    """The violation's size in m: the one asked for, else today's (overhang - 0.5) x size."""
    return (p.overhang - 0.5) * p.size if p.violation is None else p.violation


def build(scene, p, condition):
    room(scene, p)
    fps, T = scene.fps, scene.n_frames
    s = p.size
    wood(scene, "table", S(10.0, 0.3, 2.0), U(3.728, 11.794 - 0.15, -0.63), p)
    dark(scene, "back_panel", S(9.98, 2.0, 0.05), U(3.728, 11.794 + 1.0, 0.34))
    scene.add(
        "block",
        "box",
        S(BLOCK_LEN, s, s),
        U(BLOCK_UX, 11.794 + s / 2, BLOCK_UZ),
        role="support",
        fixture=True,
        color=FABRIC_TINT,
        texture={"pattern": "fabric", "seed": 4},
    )
    # the pin's housing at the right end: front and top panels
    hh = s + 0.6
    wood(scene, "housing_front", S(4.0, hh, 0.02), U(HOUSING_UX + 2.0, 11.794 + hh / 2, -1.58), p)
    wood(scene, "housing_top", S(4.0, 0.02, 1.9), U(HOUSING_UX + 2.0, 11.794 + hh, -0.63), p)

    top = TABLE_TOP + s
    x_edge = U(EDGE_UX, 0, 0)[0]
    x_start = U(HOUSING_UX - 0.1, 0, 0)[0] - s / 2  # cube centre, left of the housing
    cube = scene.add(
        "cube",
        "box",
        (s, s, s),
        (x_start, U(0, 0, BLOCK_UZ)[1], top + s / 2),
        role="cube",
        color=hsv_color(p.cube.hue, p.cube.saturation, p.cube.value),
    )
    pin_color = hsv_color(p.pin.hue, p.pin.saturation, p.pin.value)
    tip0 = U(HOUSING_UX + 0.45, 0, 0)[0]  # deep enough inside the housing not to show through its open end
    pin = scene.add(
        "pin",
        "box",
        (PIN_LEN, 0.2, 0.2),
        (tip0 + PIN_LEN / 2, U(0, 0, BLOCK_UZ)[1], top + s / 2),
        role="pin",
        fixture=True,
        color=pin_color,
    )

    if condition == "plausible":
        x_end = x_edge + s / 2 + p.gap
    elif p.violation is None:
        x_end = x_edge + s / 2 - p.overhang * s
    else:
        x_end = x_edge - p.violation  # the edge is at x_edge, the cube pushed toward -x (before mirroring)
    push_len = (tip0 - (x_start + s / 2)) + (x_start - x_end)  # pin travel: reach the cube, then push it
    go = scene.frame(p.start_delay)
    sp, done = smooth_profile(push_len, p.pin.speed, p.pin.accel, T, go, fps)
    back = done + int(round(p.pin.pause * fps))
    sb, _ = smooth_profile(push_len, p.pin.speed, p.pin.accel, T, back, fps)
    tip = tip0 - sp + sb
    pin.position[:, 0] = tip + PIN_LEN / 2
    cube.position[:, 0] = np.minimum(x_start, np.minimum.accumulate(tip - s / 2))
    look(scene, p, U(3.728, 13.635, -5.691), U(3.728, 12.539, -0.130))

    if condition == "implausible":
        # the window starts where the implausible push goes on past the plausible one's braking point (the pair
        # is identical before); the cube's centre passes the edge later, and from then on it should tip and fall
        p_len = (tip0 - (x_start + s / 2)) + (x_start - (x_edge + s / 2 + p.gap))
        sp_p, _ = smooth_profile(p_len, p.pin.speed, p.pin.accel, T, go, fps)
        differs = np.flatnonzero(np.abs(sp - sp_p) > 1e-12)
        timing.within_video(
            differs.size > 0, scene, "t15", "the push past the plausible stopping point", ("start_delay", "pin.speed")
        )
        diverge = int(differs[0])
        if done >= T:
            raise Infeasible(
                f"t15: the push to {level(p):g} m beyond the edge does not end within the video",
                ("violation", "start_delay", "pin.speed"),
            )
        edits.record(scene, PRINCIPLES, "unsupported", "cube", diverge, T - 1, hidden=False)
        edits.grade(scene, level(p))
    finish(scene, p, X0)


def describe(scene, p, condition):
    side = "left" if not p.mirror else "right"
    text = (
        f"A box rests on an object that has a flat and solid surface. After {p.start_delay:.1f} s a pin pushes "
        f"the box sideways along that surface, to the {side}. "
    )
    if condition == "plausible":
        text += "Before the box reaches the edge of the surface the pin is retracted. "
    else:
        text += "After the box has been pushed more than halfway over the edge of the surface, the pin is retracted. "
        if p.violation is not None:
            text += f"Its centre is {level(p):.2f} m beyond the edge. "
    return (
        text
        + "The box rests at its new position. It has a different horizontal but the same vertical position as before."
    )
