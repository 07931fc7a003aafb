"""Test 4, Solidity & continuity (two levels): a room with a lower floor and, 0.3 m above it, an upper floor
made of two plates with a gap in the middle that is narrower than the ball. A ball is dropped from above
(behind a top panel), falls into the room and disappears behind an occluder that covers the middle of both
levels. When the ball has come to rest, the occluder drops into a slot. Plausible: the ball lies on the upper
floor (in the gap, which is too narrow for it). Implausible: it fell through the upper floor (while hidden)
and lies on the lower floor.

Graded (`violation`, m): how far below its plausible resting place (on the gap's edges) the implausible ball
comes to rest. Up to the depth at which it would be wholly below the plates (0.23-0.28 m, by the gap) it is stuck
in the upper floor, sunk that far into the gap (it stops dead there, no bounce); today's default lets it through
to the lower floor, 0.26-0.31 m below (0.31 m less the gap's lift). Between the two there is nothing it could rest
on (it would hang under the plates), so such a level is Infeasible for the draw, as is one beyond the lower
floor. The audit measures the distance between the ball's positions in the two videos at the last frame
(`rest_offset`).

Motion is exact free fall with inelastic bounces (restitution `bounce`) on the plates' edges or the floor.

Unity original (reference Part 3, Test 4): room x 2.411-5.211, lower floor top y = 11.228, plates at
y = 11.533, gap U(0, d - 0.05), ball 0.25 dropped from y = 13.109, occluder 1.5 x 0.8 at z = -0.598.
Coordinates via apparatus.U.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import G
from voebench.generator.params import COORDINATE, FRACTION, NON_NEGATIVE, POSITIVE, Level, Range
from voebench.scenes.common import add_ball, ball_space, camera_offsets
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.timing import need, within_video
from voebench.scenes.grasp_l2.apparatus import S, U, cover, dark, finish, look, move_by, room, wood

NUMBER = 4
PRINCIPLES = ["solidity", "continuity"]
DELAYS = ("start_delay", "wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

X0 = U(3.811, 0, 0)[0]  # mirror plane (the room is symmetric but the holders are not)
LOWER_TOP = U(0, 11.228, 0)[2]
PLATE_T = 0.03  # upper-floor plate thickness, m (GRASP: 0.01, hard to see)
UPPER_TOP = U(0, 11.538, 0)[2]
BALL_UZ = -0.327
ROOM_Z = (-0.55, 0.30)  # Unity z extent of the floors (front, back)

SPACE = {
    "ball": ball_space(0.25),
    # m, gap in the upper floor (supplementary Section 3; GRASP: U(0, d - 0.05))
    "gap": Range(0.0, 0.2, domain=NON_NEGATIVE),
    # m, the two holders of the upper floor move apart/together by this
    "holder_shift": Range(-0.2, 0.2, domain=COORDINATE),
    "bounce": Range(0.2, 0.4, domain=FRACTION),  # coefficient of restitution of the ball's bounces
    # s after the ball is at rest (in either condition) until the occluder drops
    "wait": Range(0.5, 1.2, domain=NON_NEGATIVE),
    "occluder_speed": Range(0.4, 0.6, domain=POSITIVE),  # m/s (GRASP: 0.5)
    "start_delay": Range(1.0, 4.0, domain=NON_NEGATIVE),  # s before the ball is dropped (GRASP: 50-250 frames)
    "camera": camera_offsets(dx=(-0.5, 0.5), dy=(0.0, 0.0), dz=(-0.5, 0.5)),
    **VISUAL,
    # m the implausible ball rests below where the upper floor holds it (declared last: unset, it takes no draw)
    "violation": Level(
        "m",
        "rest_offset",
        "how far below its plausible resting place the ball comes to rest (stuck in the upper floor, or through)",
        default="through to the lower floor: 0.31 m less the gap's lift, 0.26-0.31 m",
        hi=UPPER_TOP - LOWER_TOP,  # lying on the lower floor under a gapless upper floor
        tol=0.005,
    ),
}


def rests(p) -> tuple[float, float, float]:
    """Ball centre heights (m): resting on the gap's edges (plausible), on the lower floor, and the lowest at
    which it still touches the plates' level (wholly below the plates under it)."""
    r = p.ball.diameter / 2
    return UPPER_TOP + np.sqrt(r**2 - (p.gap / 2) ** 2), LOWER_TOP + r, UPPER_TOP - PLATE_T - r


def level(p) -> float:
    """The violation's size in m: the one asked for, else today's drop to the lower floor."""
    z_upper, z_lower, _ = rests(p)
    return z_upper - z_lower if p.violation is None else p.violation


def fall(z0: float, z_rest: float, start: int, n: int, fps: float, e: float):
    """Height (n,) of a ball released at rest from z0 at frame `start`, bouncing on a support that holds its
    centre at z_rest with restitution e until the bounces are below 2 mm; and the frame it comes to rest."""
    t = (np.arange(n) - start) / fps
    z = np.full(n, z0, float)
    v = np.sqrt(2 * G * (z0 - z_rest))
    t_hit = v / G
    m = (t >= 0) & (t < t_hit)
    z[m] = z0 - 0.5 * G * t[m] ** 2
    z[t >= t_hit] = z_rest
    v *= e
    while v**2 / (2 * G) > 0.002:
        dur = 2 * v / G
        m = (t >= t_hit) & (t < t_hit + dur)
        tt = t[m] - t_hit
        z[m] = z_rest + v * tt - 0.5 * G * tt**2
        t_hit += dur
        v *= e
    return z, int(np.ceil(start + t_hit * fps))


def holders(p):
    return 3.086 - p.holder_shift, 4.536 + p.holder_shift


def build(scene, p, condition):
    room(scene, p)
    r = p.ball.diameter / 2
    zc = (ROOM_Z[0] + ROOM_Z[1]) / 2
    depth = ROOM_Z[1] - ROOM_Z[0]
    wood(scene, "lower_floor", S(2.9, 0.1, depth), U(3.811, 11.178, zc), p)
    dark(scene, "back_wall", S(2.8, 2.1, 0.05), U(3.811, 11.228 + 1.05, ROOM_Z[1] + 0.025))
    for side, ux in (("left", 2.361), ("right", 5.261)):
        wood(scene, f"side_{side}", S(0.1, 2.1, depth), U(ux, 11.228 + 1.05, zc), p)
    wood(scene, "ceiling", S(2.9, 0.05, depth + 0.1), U(3.811, 13.301, zc - 0.05), p)
    wood(scene, "top_panel", S(2.9, 0.55, 0.02), U(3.811, 13.276 - 0.275, ROOM_Z[0] - 0.06), p)  # hides the drop
    wood(scene, "front_panel", S(2.9, 1.0, 0.02), U(3.811, 11.228 - 0.5, -0.64), p)  # hides the dropped occluder
    # upper floor: two plates meeting in the middle, a gap opened between them, on two holders
    w = 1.4 - p.gap / 2
    for side, sign in (("left", -1), ("right", 1)):
        wood(
            scene,
            f"upper_floor_{side}",
            S(w, PLATE_T, depth),
            U(3.811 + sign * (p.gap / 2 + w / 2), 11.538 - PLATE_T / 2, zc),
            p,
            role="floor_upper",
        )
    for side, ux in zip(("left", "right"), holders(p)):
        hh = 11.538 - PLATE_T - 11.228
        wood(scene, f"holder_{side}", S(0.01, hh, depth), U(ux, 11.228 + hh / 2, zc), p)
    h = 0.8
    occ = cover(scene, "occluder", S(1.5, h, 0.01), U(3.811, 11.145 + h / 2, -0.598))

    start = U(3.811, 13.08, BALL_UZ)
    ball = add_ball(scene, p, start)
    go, T, fps = scene.frame(p.start_delay), scene.n_frames, scene.fps
    z_upper = UPPER_TOP + np.sqrt(r**2 - (p.gap / 2) ** 2)  # resting on the gap's edges (or flat on the plate)
    z_lower = LOWER_TOP + r
    zu, rest_u = fall(start[2], z_upper, go, T, fps, p.bounce)
    zl, rest_l = fall(start[2], z_lower, go, T, fps, p.bounce)
    stuck = condition == "implausible" and p.violation is not None
    if stuck:  # sunk into the upper floor by the level and stuck there (no bounce)
        through = z_upper - rests(p)[2]
        need(
            p.violation < through,
            f"t04: a ball {p.violation:g} m below the gap's edges is not stuck in the upper floor (at most "
            f"{through:.3f} m for this gap) and would hang under it or lie below the lower floor",
            ("violation", "gap"),
        )
        zl, stop = fall(start[2], z_upper - p.violation, go, T, fps, 0.0)
    ball.position[:, 2] = zu if condition == "plausible" else zl
    # the occluder drops at the same time in both conditions, once the ball would be at rest in either
    lowered = move_by(occ, (0, 0, -h), p.occluder_speed, max(rest_u, rest_l) + int(round(p.wait * fps)), fps)
    within_video(lowered < T, scene, "t04", "the reveal", ("start_delay", "wait", "occluder_speed"))
    look(scene, p, U(3.811, 11.794, -2.166), U(3.811, 11.726, -0.130))

    if condition == "implausible":
        # from the first frame the ball is lower than the upper floor allows (where the pair starts to differ;
        # at a low frame rate it may already be below the plates there) to the last frame it overlaps the
        # plates' level (its bounces on the lower floor may reach back up into them)
        below = (np.arange(T) > go) & (zl < z_upper - 1e-9)
        first = int(np.flatnonzero(below)[0])
        overlap = np.flatnonzero(below & (zl + r > UPPER_TOP - PLATE_T))
        last = max(first, int(overlap[-1]) if len(overlap) else first)
        if stuck:  # the window runs to the frame it stops dead inside the plates (then it stays so)
            last = max(first, min(stop, T - 1))
        edits.record(scene, PRINCIPLES, "pass_through", "ball", first, last, hidden=True)
        edits.grade(scene, level(p))
    finish(scene, p, X0)


def describe(scene, p, condition):
    text = (
        "There is a room enclosed by walls at the sides and at the back, with a lower floor at the very bottom "
        "and an upper floor parallel to it a certain height above. Both floors are solid and extend to the "
        f"back wall and the side walls; the upper floor has a gap of {p.gap * 100:.0f} cm in the middle, "
        "narrower than the sphere. An occluder at the front of the room starts at the lower floor and "
        f"extends over the upper floor. After {p.start_delay:.1f} s a sphere falls into the room from above "
        "and disappears behind the occluder. The part of the occluder that reaches over the upper floor is "
        "higher and wider than the diameter of the sphere. The occluder is removed by a mechanism and both "
        "floors are completely visible. "
    )
    if condition == "implausible" and p.violation is not None:
        return text + (
            f"The sphere is stuck in the gap of the upper floor, sunk {p.violation * 100:.0f} cm lower into it than "
            "the gap's edges can hold it."
        )
    return text + (
        "The sphere lies on the upper floor." if condition == "plausible" else "The sphere lies on the lower floor."
    )
