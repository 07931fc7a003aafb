"""Test 8, Inertia: seen from above, a ball rolls out from under the start roof diagonally across a tray with a
white centre line, hits the far wall exactly at the line and bounces off. Plausible: the wall reverses only
the velocity component along the line (angle of reflection = angle of incidence), so the ball rolls back on
the other side of the line and disappears under the roof with the mirrored lateral offset. Implausible: it
rolls straight back along its incoming path, on the same side of the line, with the same offset.

Graded (`violation`, degrees): the implausible ball leaves the wall turned by this angle from the mirrored path,
toward its incoming side; today's straight-back return is twice the incidence angle (16-48 deg). The audit
measures the angle between the two videos' directions of travel just after the bounce.

The ball slows down by rolling resistance the whole way (it loses `speed_loss` of its speed by the time it
is back at the entry wall, where it stops, under the roof). Tray frame and camera: see `topdown.py`.
"""

import numpy as np

from voebench.generator import edits
from voebench.errors import Infeasible
from voebench.generator.params import FRACTION, INCLINE, NON_NEGATIVE, POSITIVE, SIGN, Choice, Level, Range
from voebench.scenes.common import camera_above
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2 import topdown as td
from voebench.scenes.grasp_l2.motion import UP, decelerate, frame_times
from voebench.scenes.grasp_l2.motion import orientations, polyline, require, rolling_rotations

NUMBER = 8
PRINCIPLES = ["inertia"]
DELAYS = ("start_delay",)  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

SPACE = {
    # deg, angle between the ball's path and the white line (deflection angle)
    "angle": Range(8.0, 24.0, domain=INCLINE),
    "side": Choice((-1, 1), domain=SIGN),  # which side of the line the ball enters on (+1 = +v)
    "speed": Range(1.5, 2.5, domain=POSITIVE),  # m/s when it starts rolling (GRASP: 1.5-2.5 units/s)
    # fraction of the speed lost to rolling resistance over the whole path
    "speed_loss": Range(0.1, 0.3, domain=FRACTION),
    "start_delay": Range(0.0, 1.5, domain=NON_NEGATIVE),  # s before the ball starts (GRASP: 0-100 frames)
    "ball": td.BALL,
    "camera": camera_above(-45.0, 45.0, td.CAMERA_HEIGHT),  # GRASP: the far wall is roughly at the top, +-54 deg
    **VISUAL,
    # deg between the implausible return path and the mirrored one (declared last: unset, it takes no draw)
    "violation": Level(
        "deg",
        "direction",
        "the return path's turn away from the mirrored path",
        default="2 x angle: straight back along the incoming path",
        hi=60.0,
        tol=0.5,
    ),
}

START_U = -td.INNER + 0.25  # the ball's resting place under the start roof (centre)


def level(p) -> float:
    """The violation's size in degrees: the one asked for, else today's straight-back return (2 x angle)."""
    return 2.0 * p.angle if p.violation is None else p.violation


def path(p, turn: float = 0.0):
    """Waypoints (u, v) of the ball centre: start, bounce point on the line, stop at the entry wall. `turn`
    (deg): the return path turned from the mirrored one toward the incoming side (0: the law of reflection)."""
    r = p.ball.diameter / 2
    bounce_u = td.INNER - r
    run = bounce_u - START_U
    v0 = p.side * run * np.tan(np.radians(p.angle))
    end_u = -td.INNER + r
    back = p.side * (bounce_u - end_u) * np.tan(np.radians(turn - p.angle))
    if abs(back) > td.INNER - r:
        raise Infeasible(
            f"t08: a return path turned {turn:g} deg from the mirrored one hits a side wall before the entry wall "
            "(at this incidence angle)",
            ("violation", "angle"),
        )
    return np.array([[START_U, v0], [bounce_u, 0.0], [end_u, back]])


def track(scene, p, tray, turn: float = 0.0):
    """The ball's positions along `path(p, turn)`, at the speeds of the plausible (mirrored) path, so that the
    two videos are identical up to the bounce whatever the turn."""
    mirrored = path(p)
    r = p.ball.diameter / 2
    length = np.linalg.norm(np.diff(mirrored, axis=0), axis=1).sum()
    decel = p.speed**2 * (1 - (1 - p.speed_loss) ** 2) / (2 * length)
    s, _ = decelerate(frame_times(scene.n_frames, scene.fps, scene.frame(p.start_delay)), p.speed, decel)
    uv, _ = polyline(path(p, turn), s)
    pos = tray.world(uv[:, 0], uv[:, 1], td.FLOOR_TOP + r)
    return pos, s, np.linalg.norm(mirrored[1] - mirrored[0])


def build(scene, p, condition):
    tray = td.build_tray(scene, p)
    r = p.ball.diameter / 2
    # the white line along the middle of the tray, from the roof to the far wall
    scene.add(
        "white_line",
        "box",
        (td.INNER + 1.4, 0.08, 0.004),
        tray.world((td.INNER - 1.4) / 2, 0.0, td.FLOOR_TOP + 0.002),
        role="marking",
        fixture=True,
        color=(1.0, 1.0, 1.0),
    )
    pts = path(p)
    ball = td.place_ball(scene, p, tray, *pts[0])
    pos, s, to_wall = track(scene, p, tray)
    ball.position[:] = pos
    ball.quaternion[:] = orientations(ball.quaternion[0], rolling_rotations(pos, UP, r))
    if condition == "implausible":
        turn = level(p)
        bad, _, _ = track(scene, p, tray, turn)
        require(bool(np.any(s[:-1] > to_wall)), scene, "t08", "the bounce", ("start_delay", "speed", "speed_loss"))
        first = int(np.flatnonzero(s > to_wall)[0])
        quat = orientations(ball.quaternion[0], rolling_rotations(bad, UP, r))
        edits.replace_track(scene, "ball", first, bad[first:], quat[first:], PRINCIPLES, kind="reverse")
        edits.grade(scene, turn)
    td.look_down(scene, p, tray)


def describe(scene, p, condition):
    if condition == "plausible":
        back = "on the other side of the line, at the same angle"
    elif abs(level(p) - 2.0 * p.angle) < 1e-9:
        back = "straight back along its incoming path, on the same side of the line"
    else:
        turn = level(p)
        side = "on the other side of the line" if turn < p.angle else "on the same side of the line"
        back = f"{side}, at {abs(turn - p.angle):.0f} degrees to it ({turn:.0f} degrees off the mirrored path)"
    return (
        f"Seen from above, a ball rolls out from under a roof at one end of a tray after {p.start_delay:.1f} s "
        f"and heads diagonally, at {p.angle:.0f} degrees to a white line along the middle of the tray, toward "
        f"the far wall, slowing down slightly. It hits the wall at the line and rolls back {back}, "
        f"disappearing under the roof again."
    )
