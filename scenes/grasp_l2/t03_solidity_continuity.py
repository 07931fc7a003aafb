"""Test 3, Solidity & continuity: a ball rolls out of a start box along a plank with a wall at its back. A
cover stands at the front edge of the plank; two barriers (walls across the plank) stick up above it. The
ball rolls behind the cover, then the cover drops into a slot. Plausible: the ball has come to rest at the
first barrier on its way. Implausible: it passed through the first barrier (hidden by the cover) and rests at
the second.

Graded (`violation`, m): how much further along the plank the implausible ball comes to rest than the first
barrier lets it (its rest place minus the plausible one): below the barrier's thickness plus the ball's diameter
it is stuck in the first barrier, further on it has passed through and stopped dead between the barriers (hidden
by the cover), and at the distance between the barriers (today's default, `outer - inner`, 0.75-2.55 m) it rests
at the second barrier. A level beyond the second barrier is Infeasible for the draw. The audit measures the
distance between the ball's positions in the two videos at the last frame (`rest_offset`).

Unity original (reference Part 3, Test 3): plank top y = 10.957, barriers 0.05 x 0.85 x 0.5, inner at
x = 4.025 + U(-0.4, 0.4), outer at 6.177 + U(-1, 0), cover 3.0 x 0.45 at z = -0.137. Coordinates via apparatus.U.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import roll
from voebench.generator.params import COORDINATE, NON_NEGATIVE, POSITIVE, Level, Range
from voebench.scenes.common import add_ball, ball_space, camera_offsets
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.timing import need, within_video
from voebench.scenes.grasp_l2.apparatus import S, U, finish, look, must_hide
from voebench.scenes.grasp_l2.apparatus import cover, dark, move_by, room, wood

NUMBER = 3
PRINCIPLES = ["solidity", "continuity"]
DELAYS = ("start_delay", "wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

PLANK_TOP_UY = 10.957  # Unity y of the plank top: parts standing on the plank are placed from it
PLANK_TOP = U(0, PLANK_TOP_UY, 0)[2]  # the same in our z
X0 = U(3.702, 0, 0)[0]  # mirror plane
PATH_UZ = 0.118  # Unity z of the ball's path (middle of the plank)
START_UX = 1.304
BARRIER_T = 0.05  # barrier thickness (m)
BACK_FACE_UZ = 0.315  # Unity z of the back wall's front face
PLANK_LEFT_UX = 1.202  # Unity x of the plank's left end

SPACE = {
    "ball": ball_space(0.2),
    # m, first barrier at Unity x 4.025 + this (supplementary Section 3)
    "inner_offset": Range(-0.4, 0.4, domain=COORDINATE),
    "outer_offset": Range(-1.0, 0.0, domain=COORDINATE),  # m, second barrier at Unity x 6.177 + this
    "speed": Range(1.2, 2.0, domain=POSITIVE),  # m/s when it leaves the start box (GRASP: constant U(1, 2))
    # m/s^2, rolling resistance (capped so it reaches the second barrier
    "deceleration": Range(0.05, 0.15, domain=NON_NEGATIVE),
    # with at least 60% of its start speed)
    # s between the ball reaching the second barrier's place and the cover dropping
    "wait": Range(0.4, 1.0, domain=NON_NEGATIVE),
    "cover_speed": Range(0.4, 0.6, domain=POSITIVE),  # m/s (GRASP: 0.5)
    "start_delay": Range(0.5, 2.0, domain=NON_NEGATIVE),  # s (GRASP: 50-150 frames)
    "camera": camera_offsets(dx=(-0.5, 0.5), dy=(0.0, 0.0), dz=(-0.5, 0.5)),
    **VISUAL,
    # m the implausible ball rests further along than the first barrier allows (declared last: unset, no draw)
    "violation": Level(
        "m",
        "rest_offset",
        "how much further along the ball comes to rest than the first barrier lets it",
        default="the distance between the barriers, outer - inner: 0.75-2.55 m (it rests at the second)",
        hi=6.177 - (4.025 - 0.4),  # the barriers' largest distance apart
        tol=0.005,
    ),
}


def level(p) -> float:
    """The violation's size in m: the one asked for, else today's, the distance between the barriers."""
    inner, outer = barriers(p)
    return outer - inner if p.violation is None else p.violation


def barriers(p):
    """Unity x of the first and the second barrier on the ball's way."""
    return 4.025 + p.inner_offset, 6.177 + p.outer_offset


def layout(d: float) -> dict:
    """The apparatus built around a ball of diameter `d` (m), so that nothing starts inside anything and the
    cover hides the ball: GRASP's sizes for its 0.2 m ball (and smaller), grown for a larger one. The ball's
    path moves forward to keep it 3 cm clear of the back wall, and everything in front of it (plank, cover,
    front panel, start box) moves forward as far; the start box, its lintel, the cover, the barriers and the
    back wall grow with the ball's height. Returns Unity coordinates and sizes."""
    r = d / 2
    path_uz = min(PATH_UZ, BACK_FACE_UZ - r - 0.03)
    forward = max(0.0, (PATH_UZ - 0.1) - (path_uz - r))  # how much further forward the ball reaches than GRASP's
    start_ux = max(START_UX, PLANK_LEFT_UX + r + 0.002)  # its centre over the plank
    lintel_ux = max(1.544, start_ux + r + 0.04)  # the start box's inner side, 3 cm clear of the ball
    grow = max(0.0, d - 0.2)  # the heights below grow with the ball beyond GRASP's 0.2 m
    box_h = 0.5 + grow  # start box height above the plank
    cover_h = 0.45 + grow
    barrier_h = 0.85 + grow
    panel_h = 0.6 + grow  # the front panel that hides the dropped cover
    return {
        "path_uz": path_uz,
        "forward": forward,
        "start_ux": start_ux,
        "lintel_ux": lintel_ux,
        "box_h": box_h,
        "lintel_bottom": d + 0.03,
        "cover_h": cover_h,
        "barrier_h": barrier_h,
        "panel_h": panel_h,
        "lower_top": 10.457 - grow,
        "back_h": 1.45 + grow,
    }


def build(scene, p, condition):
    room(scene, p)
    d = p.ball.diameter
    r = d / 2
    g = layout(d)
    fw = g["forward"]
    wood(scene, "plank", S(5.0, 0.1, 0.5 + fw), U(3.702, 10.907, PATH_UZ - fw / 2), p)
    wood(scene, "lower_plank", S(5.0, 0.1, 0.55 + fw), U(3.702, g["lower_top"] - 0.05, PATH_UZ - 0.025 - fw / 2), p)
    ph = g["panel_h"]
    # the front panel hides the dropped cover
    wood(scene, "front_panel", S(5.02, ph, 0.02), U(3.702, PLANK_TOP_UY - ph / 2, -0.175 - fw), p)
    back_h = g["back_h"]
    dark(scene, "back_wall", S(5.02, back_h, 0.05), U(3.702, 10.357 + back_h / 2, 0.34))
    # the start box: front, top and a lintel on the inner side (the ball rolls out under it)
    bh, lx = g["box_h"], g["lintel_ux"]
    bw = 0.9 + (lx - 1.544)  # GRASP's 0.9 m box, longer when the lintel moves in
    bx = 1.104 + (lx - 1.544) / 2
    wood(scene, "start_front", S(bw, bh, 0.02), U(bx, PLANK_TOP_UY + bh / 2, -0.16 - fw), p)
    wood(scene, "start_top", S(bw, 0.02, 0.55 + fw), U(bx, PLANK_TOP_UY + bh, 0.105 - fw / 2), p)
    lh = bh - g["lintel_bottom"]  # from the top down to 3 cm over the ball
    wood(
        scene,
        "start_lintel",
        S(0.02, lh, 0.55 + fw),
        U(lx, PLANK_TOP_UY + g["lintel_bottom"] + lh / 2, 0.105 - fw / 2),
        p,
        collider=False,
    )
    inner, outer = barriers(p)
    h_b = g["barrier_h"]
    for name, ux in (("barrier_first", inner), ("barrier_second", outer)):
        wood(
            scene, name, S(BARRIER_T, h_b, 0.5 + fw), U(ux, PLANK_TOP_UY + h_b / 2, PATH_UZ - fw / 2), p, role="barrier"
        )
    h = g["cover_h"]
    cov = cover(scene, "cover", S(3.0, h, 0.01), U(4.702, PLANK_TOP_UY + h / 2, -0.137 - fw))

    start_ux = g["start_ux"]
    start = U(start_ux, 0, g["path_uz"])
    start[2] = PLANK_TOP + r
    ball = add_ball(scene, p, start)
    d_first = inner - BARRIER_T / 2 - r - start_ux  # rolled distance when it touches the first barrier
    d_second = outer - BARRIER_T / 2 - r - start_ux
    need(
        d_first > 0 and d_second > d_first + 2 * r + BARRIER_T,
        "t03: the ball does not fit between the start box and the first barrier, or between the barriers",
        ("ball.diameter", "inner_offset", "outer_offset"),
    )
    a = min(p.deceleration, p.speed**2 * (1 - 0.6**2) / (2 * d_second))
    f0 = scene.fps
    go = scene.frame(p.start_delay)
    # the ball stops where it touches a barrier (inelastic contact); the implausible one ignores the first
    if condition == "plausible":
        stop = d_first
    elif p.violation is None:
        stop = d_second
    else:
        stop = d_first + p.violation
        need(
            stop <= d_second + 1e-9,
            f"t03: a ball resting {p.violation:g} m past the first barrier would pass the second one too "
            f"({d_second - d_first:.2f} m further on)",
            ("violation", "inner_offset", "outer_offset"),
        )
    s = roll(ball, start, (1.0, 0.0, 0.0), p.speed, a, go, f0, max_distance=stop)
    # the cover drops at the same time in both conditions: `wait` after the ball would reach the second barrier
    v1 = np.sqrt(p.speed**2 - 2 * a * d_second)
    arrive = go + (p.speed - v1) / a * f0
    lowered = move_by(cov, (0, 0, -h), p.cover_speed, int(np.ceil(arrive + p.wait * f0)), f0)
    within_video(lowered < scene.n_frames, scene, "t03", "the reveal", ("start_delay", "speed", "wait", "cover_speed"))
    look(scene, p, U(3.702, 11.726, -2.735), U(3.702, PLANK_TOP_UY, 0.118))

    if condition == "implausible":
        # from the first frame it is past the first barrier's face (where the pair starts to differ; at a low frame
        # rate it may have passed it completely between two frames) to the last frame it overlaps the barrier
        past = np.flatnonzero(s > d_first + 1e-9)
        overlap = np.flatnonzero((s > d_first + 1e-9) & (s < d_first + 2 * r + BARRIER_T))
        first = int(past[0])
        last = max(first, int(overlap[-1]) if len(overlap) else first)
        if stop < d_second - 1e-9:
            # short of the second barrier it stops with nothing to stop it (or inside the first): the window
            # runs to the frame it comes to rest (the stop is part of the violation)
            last = max(first, int(np.flatnonzero(s >= stop - 1e-9)[0]))
        why = "t03: the cover does not hide the ball where it passes through the barrier"
        hid = must_hide(scene, "cover", 0.0, why, ("ball.diameter", "camera.dz", "camera.dx"))
        edits.record(scene, PRINCIPLES, "pass_through", "ball", first, last, hidden=hid)
        edits.grade(scene, level(p))
    finish(scene, p, X0)


def describe(scene, p, condition):
    side, other = ("right", "left") if p.mirror else ("left", "right")
    inner, outer = barriers(p)
    text = (
        f"A sphere rolls on a flat, solid plank with a wall at its back. After {p.start_delay:.1f} s it comes "
        f"into view on the {side} and rolls towards the {other}. An occluder stands at the front edge of the "
        f"plank; it is higher than the sphere but does not reach the ceiling. Two walls, {outer - inner:.1f} m "
        f"apart, are visible above the occluder and extend from the front to the back of the plank. The sphere "
        f"rolls along the plank until it disappears behind the occluder. After a short while the occluder is "
        f"removed by a mechanism, revealing the bottom parts of the two walls, which reach all the way down to "
        f"the plank. "
    )
    if condition == "implausible" and p.violation is not None and p.violation < outer - inner - 1e-9:
        stuck = p.violation < p.ball.diameter + BARRIER_T
        where = "stuck partly inside the first wall" if stuck else "between the two walls, past the first one"
        return text + (
            f"The sphere has come to rest {where}, {p.violation:.2f} m further along its trajectory than where the "
            "first wall would have stopped it."
        )
    where = "first" if condition == "plausible" else "second"
    return text + f"The sphere has come to rest at the {where} wall along its trajectory."
