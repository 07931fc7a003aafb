"""Test 7, Object permanence (drawbridge): a plank lies flat on a platform in front of a standing object (a
wide, thin block). A mechanism turns the plank up about a hinge at its back edge, at constant angular speed,
past vertical. Plausible: the plank comes to rest on the object's top edge, pauses and turns back, revealing
the object. Implausible: the plank turns on through the object's place until it lies flat on the platform
behind the hinge, pauses and turns back; the object is revealed again. The object does not exist from the
moment the upright plank hides it until the plank hides it again on the way back.

Graded (`violation`, deg): the implausible plank turns on this far past the angle at which it would rest on the
object's top edge, through the object's place, before it pauses and turns back; today's size turns it on until it
lies flat behind the hinge (180 deg - the contact angle: 41-57 deg for the 0.4-0.7 m objects). A level near 0
stops the plank just past the contact angle, close to the plausible video; a level that would turn it past flat
(for a low object, whose contact angle is larger) is infeasible. The audit measures how much farther the plank
turns from flat in front than its twin's (`extra_turn`).

Unity original (reference Part 3, Test 7): platform top y = 11.66, plank 5.0 x 1.0 (hinge at z = -1.63),
object 2.0 x h x 0.1 with h = U(0.4, 0.8) at x = 2.995 + U(-0.3, 0.3), z = -1.13, plank speed U(35, 50) deg/s.
Coordinates via apparatus.U.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import rotate_about
from voebench.errors import Infeasible
from voebench.generator.params import COORDINATE, NON_NEGATIVE, POSITIVE, Level, Range
from voebench.scenes.common import BRIGHT_HSV, camera_offsets, hsv_color
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.timing import need, within_video
from voebench.scenes.grasp_l2.apparatus import S, U, finish, hidden_frames, look
from voebench.scenes.grasp_l2.apparatus import COVER_TINT, dark, room, wood

NUMBER = 7
PRINCIPLES = ["object permanence"]
DELAYS = ("start_delay", "pause")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

X0 = U(3.745, 0, 0)[0]  # mirror plane (the camera looks from the right; mirroring moves it to the left)
TOP = U(0, 11.66, 0)[2]  # platform top
PLANK_T = 0.01
HINGE_UZ = -1.63
OBJ_UZ = -1.13
OBJ_DEPTH = 0.1
HI = 57.0  # deg: the plank flat behind the hinge past the tallest (0.7 m) object, 180 - 123.1 = 56.9 deg

SPACE = {
    # m (GRASP h U(0.4, 0.8)); Unity x 2.995 + x
    "object": {
        "height": Range(0.4, 0.7, domain=POSITIVE),
        "x": Range(-0.3, 0.3, domain=COORDINATE),
        **BRIGHT_HSV,
    },
    # deg/s, constant (GRASP U(35, 50): too slow for the implausible 2 x 180 deg in 10 s)
    "speed": Range(55.0, 70.0, domain=POSITIVE),
    "pause": Range(0.3, 0.8, domain=NON_NEGATIVE),  # s the plank rests before it turns back
    "start_delay": Range(0.6, 2.0, domain=NON_NEGATIVE),  # s (GRASP: 30-110 frames)
    "camera": camera_offsets(dx=(0.0, 0.0), dy=(0.0, 0.0), dz=(-0.5, 0.3)),  # GRASP: y +-0.5
    **VISUAL,
    # deg the plank turns on past resting on the object (declared last: unset, it takes no draw)
    "violation": Level(
        "deg",
        "extra_turn",
        "the plank's turn on past the object's top edge, through its place",
        default="until the plank lies flat behind the hinge (180 - contact angle: 41-57 deg)",
        hi=HI,
        tol=0.01,
    ),
}


def contact_angle(h: float) -> float:
    """Angle (deg from flat in front) at which the plank's upper face rests on the object's top front edge."""
    gap = (OBJ_UZ - OBJ_DEPTH / 2) - HINGE_UZ
    return 180.0 - np.degrees(np.arctan2(h - PLANK_T, gap))


def level(p) -> float:
    """The violation's size in deg: the one asked for, else today's turn on until flat (180 - contact angle)."""
    return 180.0 - contact_angle(p.object.height) if p.violation is None else p.violation


def target_angle(p, condition) -> float:
    """Where the plank pauses (deg from flat in front): on the object's top edge, or `level` past it."""
    if condition == "plausible":
        return contact_angle(p.object.height)
    if p.violation is None:
        return 180.0
    target = contact_angle(p.object.height) + p.violation
    if target > 180.0 + 1e-9:
        raise Infeasible(
            f"t07: a turn {p.violation:g} deg past the object's top edge takes the plank past flat behind the hinge",
            ("violation", "object.height"),
        )
    return target


def angles(n: int, fps: float, go: int, speed: float, target: float, pause: float):
    """Plank angle per frame (deg): 0 until `go`, up at `speed` to `target`, rest `pause` s, back to 0."""
    t = (np.arange(n) - go) / fps
    t_up = target / speed
    a = np.where(t < 0, 0.0, np.where(t < t_up, speed * t, target))
    t_back = t_up + pause
    back = t >= t_back
    a[back] = np.maximum(target - speed * (t[back] - t_back), 0.0)
    return a


def build(scene, p, condition):
    room(scene, p)
    o = p.object
    wood(scene, "platform", S(5.0, 0.3, 3.0), U(3.745, 11.51, -1.13), p)
    dark(scene, "back_panel", S(5.0, 1.1, 0.05), U(3.745, 11.66 + 0.55, 0.34))
    h = o.height
    ux = 2.995 + o.x
    scene.add(
        "object",
        "box",
        S(2.0, h, OBJ_DEPTH),
        U(ux, 11.66 + h / 2, OBJ_UZ),
        role="object",
        color=hsv_color(o.hue, o.saturation, o.value),
    )
    plank = scene.add(
        "plank",
        "box",
        S(5.0, PLANK_T, 1.0),
        U(3.745, 11.66 + PLANK_T / 2, HINGE_UZ - 0.5),
        role="plank",
        fixture=True,
        color=COVER_TINT,
        texture={"pattern": "rust", "seed": 5},
    )
    hinge = U(3.745, 11.66 + PLANK_T, HINGE_UZ)
    go = scene.frame(p.start_delay)
    target = target_angle(p, condition)
    a = angles(scene.n_frames, scene.fps, go, p.speed, target, p.pause)
    # the implausible plank turns 180 deg over and back: the pair is built only where that fits the video
    within_video(
        go + (2 * 180.0 / p.speed + p.pause) * scene.fps < scene.n_frames,
        scene,
        "t07",
        "the plank's turn over and back",
        ("start_delay", "speed", "pause"),
    )
    # turning about -x lifts the front edge up and over toward the back
    rotate_about(plank, hinge, (-1.0, 0.0, 0.0), np.radians(a))
    look(scene, p, U(4.330, 12.950, -5.001), U(2.995, 11.665, -1.672))

    if condition == "implausible":
        # the object stops existing while the plank hides it on the way up, and is back once the plank hides it
        # again on the way down; the plank sweeps through its place in between
        hidden = hidden_frames(scene, "object", "plank", margin=0.02)
        c = contact_angle(h)
        peak = int(np.argmax(a))
        up = np.flatnonzero(hidden[:peak] & (a[:peak] < c - 1.0))
        down = np.flatnonzero(hidden[peak:] & (a[peak:] < c - 1.0)) + peak
        need(
            len(up) > 0 and len(down) > 0,
            "t07: the upright plank never hides the object completely, on the way up and on the way down",
            ("object.height", "camera.dz", "fps"),
        )
        up_run = np.split(up, np.flatnonzero(np.diff(up) > 1) + 1)[-1]  # the last contiguous run on the way up
        down_run = np.split(down, np.flatnonzero(np.diff(down) > 1) + 1)[0]  # the first one on the way down
        # vanish and reappear in the middle of those runs, so the frames around both moments are hidden too
        edits.vanish(
            scene, "object", int(up_run[len(up_run) // 2]), int(down_run[len(down_run) // 2]), PRINCIPLES, hidden=True
        )
        edits.grade(scene, level(p))
    finish(scene, p, X0)


def describe(scene, p, condition):
    text = (
        "A solid object is standing on a solid and flat surface. A mechanism moves a plank in a rotating motion. "
        f"The plank starts out flat on the surface in front of the object. After {p.start_delay:.1f} s it is "
        "rotated upwards until it stands vertically on the surface and occludes the object, "
    )
    if condition == "plausible":
        text += "and rotated further until it rests on top of the object. "
    elif p.violation is None:
        text += (
            "and rotated further until it lies flat on the surface again on the other side, where the object was "
            "standing before. "
        )
    else:
        text += (
            f"and rotated further, {p.violation:.0f} degrees past the angle at which it would rest on the object, "
            "through the place where the object was standing. "
        )
    return text + (
        "Its movement stops and then it is rotated back until it lies flat in its initial position again. "
        "While the plank is rotating back the object is revealed in its initial position."
    )
