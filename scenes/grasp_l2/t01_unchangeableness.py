"""Test 1, Unchangeableness: one to three objects (balls and cubes of different colours) rest on the floor of a
plywood box. A screen rises from a slot behind the box's front panel until the objects cannot be seen, stays
up for a moment and goes down again. Plausible: every object is as before. Implausible: one object has
changed its colour or its shape (ball <-> cube) while the screen hid it.

Graded (`violation`, deg), for the colour change only: the hue turn of the changed object's colour on the HSV
colour circle (0-180 deg; saturation and value stay), turned forward from its hue; today's colour change turns
the hue by `new_hue_shift` of the circle, 108-180 deg (the shorter way round). The audit measures the largest hue
difference of the object between the two videos (`hue_turn`). A shape change (ball -> cube -> cylinder) is
binary, with no size: a trial that draws one is ungraded (`level_key` is None, no `violation_level`), and a trial
asked for a level is a colour change (a shape-change draw is Infeasible, and the gate redraws).

Unity original (reference Part 3, Test 1): platform top y = 11.228, 7 candidate spawn points, screen 2.8 wide
rising at 0.5 units/s behind a 1.0 high front panel. Coordinates via apparatus.U (Unity -> ours).
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.thresholds import COLOR_TOL
from voebench.generator.params import (
    COORDINATE,
    COUNT,
    FRACTION,
    INDEX,
    NON_NEGATIVE,
    POSITIVE,
    SIGNED_FRACTION,
    Choice,
    Domain,
    Level,
    Range,
)
from voebench.errors import Infeasible
from voebench.scenes.common import camera_offsets, hsv_color
from voebench.scenes.grasp_l2 import VISUAL
from voebench.scenes.grasp_l2.timing import need, within_video
from voebench.scenes.grasp_l2.apparatus import S, U, finish, hidden_frames, look
from voebench.scenes.grasp_l2.apparatus import cover, dark, move_by, room, wood

NUMBER = 1
PRINCIPLES = ["unchangeableness"]
DELAYS = ("start_delay", "hold")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)

# The 7 spawn points of the Unity scene (Unity x, z) on the platform, in their order.
SPAWNS = (
    (2.907, -0.127),
    (3.368, -0.639),
    (4.200, -0.229),
    (4.702, -0.784),
    (4.189, -1.243),
    (3.437, -1.243),
    (2.799, -1.403),
)
PLATFORM_TOP = U(0, 11.228, 0)[2]  # z of the box floor
X0 = U(3.811, 0, 0)[0]  # the box's centre line (mirror plane)
FRONT_UZ = -1.54  # Unity z of the front-most object face (the screen rises at z = -1.6)
SIZE = 0.3  # ball diameter / cube edge / cylinder diameter and height, m
SOLIDS = ("sphere", "box", "cylinder")  # GRASP uses balls and cubes; a cylinder makes three different shapes
NOUN = {"sphere": "ball", "box": "cube", "cylinder": "cylinder"}

# the build has three object slots (o0-o2) and len(SPAWNS) spawn points
N_OBJECTS = Domain("a number of objects", 1, 3, integer=True)
SPAWN = Domain("a spawn point index", 0, len(SPAWNS) - 1, integer=True)

SPACE = {
    "n_objects": Range(1, 3, integer=True, domain=N_OBJECTS),  # how many objects (supplementary Section 3: 1-3)
    # which spawn point each object takes (indices into the 7 Unity spawns; a taken one moves on to the next free)
    "slots": {f"o{i}": Range(0, len(SPAWNS) - 1, integer=True, domain=SPAWN) for i in range(3)},
    "jitter": {
        f"o{i}": {"x": Range(-0.06, 0.06, domain=COORDINATE), "y": Range(-0.06, 0.06, domain=COORDINATE)}
        for i in range(3)
    },  # m, around the spawn
    "shape0": Choice(SOLIDS),  # the first object's shape; the others take the next shapes in turn, so all differ
    "shape_step": Choice((1, 2), domain=COUNT),  # the order in which the others take the shapes
    # implausible shape change: the changed object becomes the shape this far on
    "new_shape_step": Choice((1, 2), domain=COUNT),
    "hue0": Range(0.0, 1.0, domain=FRACTION),  # the objects' hues are hue0 + i/n (+ jitter), so their colours differ
    "hue_jitter": {f"o{i}": Range(-0.06, 0.06, domain=SIGNED_FRACTION) for i in range(3)},
    # HSV of the objects (GRASP: s, v ~ U(0.6, 1))
    "saturation": Range(0.6, 1.0, domain=FRACTION),
    "value": Range(0.6, 1.0, domain=FRACTION),
    "changed": Range(0, 2, integer=True, domain=INDEX),  # implausible: which object changes (modulo the count)
    "change": Choice(("color", "shape")),  # implausible: what changes
    # implausible colour change: hue turns by this much (of the circle)
    "new_hue_shift": Range(0.3, 0.7, domain=FRACTION),
    "start_delay": Range(1.0, 4.0, domain=NON_NEGATIVE),  # s before the screen starts rising (GRASP P: 50-250 frames)
    "screen_speed": Range(0.4, 0.6, domain=POSITIVE),  # m/s, constant (GRASP: 0.5 units/s)
    "hold": Range(0.4, 1.2, domain=NON_NEGATIVE),  # s the screen stays fully up
    "camera": camera_offsets(dx=(-0.5, 0.5), dy=(-0.5, 0.0), dz=(-0.2, 0.2), fov=50.0),  # GRASP: fov 70, no dz
    **VISUAL,
    # deg the changed object's hue turns, for a colour change (declared last: unset, it takes no draw)
    "violation": Level(
        "deg",
        "hue_turn",
        "the hue turn of the changed object's colour on the colour circle (colour changes only)",
        default="new_hue_shift x 360, the shorter way round: 108-180 deg (a shape change: ungraded)",
        hi=180.0,
        tol=0.5,
    ),
}


def level_key(p) -> str | None:
    """The colour change is graded by its hue turn; the shape change is binary (a ball is a cube or not)."""
    return "violation" if p.change == "color" else None


def level(p) -> float:
    """The colour change's size in degrees of hue: the one asked for, else today's turn by `new_hue_shift`."""
    return 360.0 * min(p.new_hue_shift, 1.0 - p.new_hue_shift) if p.violation is None else p.violation


def new_hue(hue: float, p) -> float:
    """The changed colour's hue (0-1): today's `new_hue_shift` on, or the asked level's turn forward."""
    return (hue + (p.new_hue_shift if p.violation is None else p.violation / 360.0)) % 1.0


def _slots(p):
    taken = []
    for i in range(p.n_objects):
        s = int(p.slots[f"o{i}"])
        while s in taken:
            s = (s + 1) % len(SPAWNS)
        taken.append(s)
    return taken


def _objects(p):
    """(name, shape, position, hue) per object."""
    n = p.n_objects
    out = []
    for i, s in enumerate(_slots(p)):
        ux, uz = SPAWNS[s]
        j = p.jitter[f"o{i}"]
        pos = U(ux, 0, uz) + (j.x, j.y, 0.0)
        pos[1] = max(pos[1], U(0, 0, FRONT_UZ + SIZE / 2)[1])  # keep clear of the screen's slot
        pos[2] = PLATFORM_TOP + SIZE / 2
        shape = SOLIDS[(SOLIDS.index(p.shape0) + i * int(p.shape_step)) % 3]
        out.append((f"object{i}", shape, pos, (p.hue0 + i / n + p.hue_jitter[f"o{i}"]) % 1.0))
    return out


def build(scene, p, condition):
    room(scene, p)
    # the box: floor, dark back panel, plywood sides, a front panel hiding the lowered screen
    wood(scene, "platform", S(2.8, 0.1, 1.82), U(3.811, 11.178, -0.64), p)  # Unity z -1.55..0.27
    dark(scene, "back_panel", S(2.8, 3.0, 0.1), U(3.811, 11.2 + 1.5, 0.315))
    for side, ux in (("left", 2.361), ("right", 5.261)):
        wood(scene, f"side_{side}", S(0.1, 1.6, 2.05), U(ux, 10.226 + 0.8, -0.655), p)
    wood(scene, "front_panel", S(2.8, 1.0, 0.02), U(3.811, 10.726, -1.635), p)
    # the screen, lowered behind the front panel (top 2 cm below the panel's top edge)
    h = 1.0
    screen = cover(scene, "screen", S(2.8, h, 0.01), U(3.811, 11.206 - h / 2, -1.6))

    objs = _objects(p)
    for name, shape, pos, hue in objs:
        color = hsv_color(hue, p.saturation, p.value)
        scene.add(name, shape, (SIZE,) * 3, pos, role="object", color=color)
    # the object a shape change turns into (exists in both conditions, shown only after an implausible swap)
    k = int(p.changed) % p.n_objects
    name_k, shape_k, pos_k, hue_k = objs[k]
    alt = scene.add(
        f"{name_k}_changed",
        SOLIDS[(SOLIDS.index(shape_k) + int(p.new_shape_step)) % 3],
        (SIZE,) * 3,
        pos_k,
        role="object",
        color=hsv_color(hue_k, p.saturation, p.value),
        visible=False,
    )

    up = move_by(screen, (0, 0, h), p.screen_speed, scene.frame(p.start_delay), scene.fps)
    down = up + int(round(p.hold * scene.fps))
    lowered = move_by(screen, (0, 0, -h), p.screen_speed, down, scene.fps)
    # the reveal (screen back down) must fit, in both conditions: 2 h / screen_speed s plus the pauses
    within_video(
        lowered < scene.n_frames, scene, "t01", "the screen going down again", ("start_delay", "screen_speed", "hold")
    )
    look(scene, p, U(3.811, 12.347, -3.345), U(3.811, 11.699, -0.130))

    if condition == "implausible":
        if p.violation is not None and p.change != "color":
            raise Infeasible(
                "t01: a graded level is a colour change's hue turn; this draw changes the shape",
                ("violation", "change"),
            )
        # the change happens mid-way through the frames in which the screen hides the object completely
        hidden = np.flatnonzero(
            hidden_frames(scene, name_k, "screen", margin=0.03) & hidden_frames(scene, alt.name, "screen", margin=0.03)
        )
        hidden = hidden[(hidden >= up - 1) & (hidden <= down + 1)]
        need(
            len(hidden) >= 2,
            "t01: the screen never hides the changed object completely (for 2 frames)",
            ("hold", "fps", "camera.dx", "camera.dy", "camera.dz"),
        )
        f = int(hidden[len(hidden) // 2])
        if p.change == "color":
            new = hsv_color(new_hue(hue_k, p), p.saturation, p.value)
            need(
                np.abs(np.subtract(new, scene[name_k].color[f])).max() > COLOR_TOL,
                f"t01: a hue turn of {level(p):g} deg does not change the object's colour",
                ("violation",),
            )
            edits.recolor(scene, name_k, f, new, PRINCIPLES, hidden=True)
            edits.grade(scene, level(p))
        else:
            edits.swap(scene, name_k, alt.name, f, PRINCIPLES, hidden=True)
    finish(scene, p, X0)


def describe(scene, p, condition):
    objs = _objects(p)
    n = len(objs)
    kinds = ", ".join(f"a {NOUN[s]}" for _, s, _, _ in objs)
    if n > 1:
        what = (
            f"{n} objects of different shapes and colors ({kinds}) sit on the flat floor of a box at different "
            "positions"
        )
    else:
        what = f"One object ({kinds}) sits on the flat floor of a box"
    text = (
        f"{what}. After {p.start_delay:.1f} s a screen "
        f"rises at the front of the box so that the objects cannot be seen for a short while, then it goes "
        f"down again. "
    )
    if condition == "plausible":
        return text + "All objects are still in the same position as before and have the same shape and color."
    k = int(p.changed) % n
    change = "color" if p.change == "color" else "shape"
    turn = "" if p.violation is None else f" (its hue turned by {level(p):.0f} degrees on the color circle)"
    return text + (
        f"All objects are still in the same position as before, but one "
        f"(the {NOUN[objs[k][1]]}) has changed its {change}{turn}."
    )
