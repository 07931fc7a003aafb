"""Test 10, Gravity & inertia: a ball is released behind a panel at the top of a plywood box and falls into
view, speeding up, toward the box's floor, until it disappears behind an occluder standing in front of the
floor. It lands (a few small bounces, all behind the occluder) and comes to rest; then the occluder drops
into a slot below the floor. Plausible: the ball lies on the floor. Implausible: the ball stopped falling in
mid-air behind the occluder (gravity switched off, velocity zeroed) and is revealed hovering above the floor,
level with two small holder blocks.

The hover starts at the first frame the falling ball is at the hover height (hidden behind the occluder;
checked geometrically) and the recorded window runs until the plausible ball has come to rest, still before
the occluder moves.

Graded (`violation`, m): the ball hovers this far above the floor (from its bottom to the floor, where the
plausible ball lies); today's size is `hover_gap` (0.25-0.4 m, GRASP 0.3). A level near 0 leaves it just above
the floor, close to the plausible video. The audit measures the distance between the ball's positions in the two
videos at the record's last frame, when the plausible ball has come to rest (`end_offset`).

Unity original (reference Part 3, Test 10): ball 0.25 m dropped from 1.88 m above the
floor, occluder 1.5 x 0.8 dropping at 0.5 units/s. Built unmirrored, mirrored by `apparatus.finish`.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import G
from voebench.generator.params import FRACTION, NON_NEGATIVE, POSITIVE, Level, Range
from voebench.scenes.common import add_ball, ball_space, camera_offsets
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.motion import require
from voebench.scenes.grasp_l2.apparatus import U, finish, look, must_hide
from voebench.scenes.grasp_l2.apparatus import COVER_SPEED, cover, dark, move_by, room, wood

NUMBER = 10
PRINCIPLES = ["gravity", "inertia"]
DELAYS = ("start_delay", "reveal_wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

X0 = U(3.811, 0, 0)[0]
FLOOR_TOP = U(0, 11.228, 0)[2]
DEPTH_Y = U(0, 0, -0.327)[1]  # the ball's depth
FRONT_Y = U(0, 0, -0.80)[1]  # the occluder's and the front panels' plane

SPACE = {
    "start_delay": Range(1.0, 3.0, domain=NON_NEGATIVE),  # s before the ball is released (GRASP: 50-250 frames)
    "drop_height": Range(1.6, 1.9, domain=POSITIVE),  # m from the floor to the ball's bottom at release (GRASP: 1.88)
    "restitution": Range(0.2, 0.4, domain=FRACTION),  # of the ball's bounce on the floor
    # implausible: m between the hovering ball and the floor (GRASP: 0.3)
    "hover_gap": Range(0.25, 0.4, domain=NON_NEGATIVE),
    "holder_x": Range(0.45, 0.6, domain=POSITIVE),  # m from the centre to each holder block
    # s between the ball coming to rest and the occluder starting to drop
    "reveal_wait": Range(0.3, 1.0, domain=NON_NEGATIVE),
    "ball": ball_space(0.25),
    "camera": camera_offsets(dx=(-0.5, 0.5), dy=(0.0, 0.0), dz=(-0.3, 0.5), fov=70.0),  # GRASP: x, y +-0.5
    **VISUAL,
    # m between the hovering ball's bottom and the floor (declared last: unset, it takes no draw)
    "violation": Level(
        "m",
        "end_offset",
        "the height the ball hovers above the floor it should lie on",
        default="hover_gap (0.25-0.4 m)",
        hi=0.75,  # the 0.25 m ball's top level with the 1.0 m occluder's (OCCLUDER)
        tol=1e-6,
    ),
}
TOP_PANEL = (1.35, 2.8)  # m above the floor: bottom and top edge of the panel hiding the release point
OCCLUDER = (
    1.5,
    1.0,
)  # m, width and height above the floor (GRASP: 1.5 x 0.8; taller so the hovering ball is hidden from every camera)


def level(p) -> float:
    """The violation's size in m: the one asked for, else today's `hover_gap`."""
    return p.hover_gap if p.violation is None else p.violation


def fall(n_frames: int, fps: float, start_frame: int, z0: float, z_rest: float, e: float) -> tuple[np.ndarray, int]:
    """Height of the centre per frame: at rest at z0 until start_frame, free fall, bounces with restitution e
    until the bounce speed is negligible, then rest at z_rest. Returns (z, first frame at rest)."""
    t = (np.arange(n_frames) - start_frame) / fps
    z = np.full(n_frames, z0, float)
    # impacts: first after falling z0 - z_rest from rest; then arcs of duration 2 v / g
    v = np.sqrt(2 * G * (z0 - z_rest))
    t_hit = v / G
    fall_mask = (t > 0) & (t <= t_hit)
    z[fall_mask] = z0 - 0.5 * G * t[fall_mask] ** 2
    rest_t = t_hit
    v *= e
    while v > 0.05:
        arc = 2 * v / G
        m = (t > rest_t) & (t <= rest_t + arc)
        tau = t[m] - rest_t
        z[m] = z_rest + v * tau - 0.5 * G * tau**2
        rest_t += arc
        v *= e
    z[t > rest_t] = z_rest
    rest_frame = int(min(start_frame + np.ceil(rest_t * fps), n_frames - 1))
    return z, rest_frame


def build(scene, p, condition):
    room(scene, p)
    r = p.ball.diameter / 2
    w = 2.8
    # the box: floor, dark back panel, side walls, a front skirt below the floor hiding the lowered occluder,
    # a top front panel hiding where the ball is released, and two small holder blocks on the floor
    wood(scene, "box_floor", (w, 1.0, 0.1), (X0, 8.4, FLOOR_TOP - 0.05), p)
    dark(scene, "back_panel", (w, 0.05, 3.0), (X0, 8.93, FLOOR_TOP + 1.5))
    for side, sx in (("left", -1), ("right", 1)):
        wood(scene, f"side_{side}", (0.1, 1.0, 3.0), (X0 + sx * (w / 2 + 0.05), 8.4, FLOOR_TOP + 1.5), p)
        wood(
            scene,
            f"holder_{side}",
            (0.1, 0.4, 0.3),
            (X0 + sx * p.holder_x, DEPTH_Y, FLOOR_TOP + 0.15),
            p,
            role="holder",
        )
    wood(scene, "front_skirt", (w, 0.02, 1.1), (X0, FRONT_Y - 0.03, FLOOR_TOP - 0.55), p)
    # the top panel stands just in front of the fall line, so it hides the released ball even from low cameras
    wood(
        scene,
        "top_panel",
        (w, 0.02, TOP_PANEL[1] - TOP_PANEL[0]),
        (X0, DEPTH_Y - 0.17, FLOOR_TOP + sum(TOP_PANEL) / 2),
        p,
        role="occluder",
    )
    ow, oh = OCCLUDER
    occ = cover(scene, "occluder", (ow, 0.01, oh), (X0, FRONT_Y, FLOOR_TOP + oh / 2))

    z_rest = FLOOR_TOP + r
    z0 = FLOOR_TOP + p.drop_height + r
    start = scene.frame(p.start_delay)
    z, rest = fall(scene.n_frames, scene.fps, start, z0, z_rest, p.restitution)
    ball = add_ball(scene, p, (X0, DEPTH_Y, z0))
    ball.position[:, 2] = z
    drop = min(rest + max(2, scene.frame(p.reveal_wait)), scene.n_frames - 1)
    lowered = move_by(occ, (0, 0, -oh - 0.02), COVER_SPEED, drop, scene.fps)
    look(scene, p, U(3.811, 11.945, -2.309), U(3.811, 11.8, -0.13))

    # both conditions: the pair is built only where the reveal fits the video
    require(lowered < scene.n_frames, scene, "t10", "the reveal", ("start_delay", "drop_height", "reveal_wait"))
    if condition == "implausible":
        z_hover = FLOOR_TOP + level(p) + r
        f = int(np.flatnonzero((np.arange(scene.n_frames) > start) & (z <= z_hover))[0])
        hover = ball.position[f:].copy()
        hover[:, 2] = z_hover
        why = "t10: the occluder does not hide the ball where it stops"
        keys = ("hover_gap" if p.violation is None else "violation", "camera.dz", "camera.dx")
        hid = must_hide(scene, "occluder", 0.01, why, keys)
        edits.replace_track(scene, "ball", f, hover, principles=PRINCIPLES, kind="freeze", hidden=hid, last=rest)
        edits.grade(scene, level(p))
    finish(scene, p, X0)


def describe(scene, p, condition):
    if condition == "plausible":
        end = "the ball lies on the floor"
    elif p.violation is None:
        end = "the ball hovers in mid-air above the floor, level with the small blocks"
    else:
        end = f"the ball hovers in mid-air, {level(p):.2f} m above the floor"
    return (
        f"After {p.start_delay:.1f} s a ball falls from the top of a box into view, speeding up, and disappears "
        f"behind an occluder standing in front of the floor. The occluder is lowered: {end}."
    )
