"""Test 14, Collision: in a plywood box, a ball rolls down an incline (its top hidden behind a tall panel on
the left), speeding up, and at the bottom hits a second ball of the same size and mass that rests directly
in its path. Plausible: the collision passes the first ball's motion to the second (equal masses: the
velocities are exchanged); the second ball shoots off toward the wall at the far end and stops there, and
the first ball, still spinning, is dragged forward by friction and comes to rest right behind it.
Implausible: the second ball stays exactly where it was, and the first ball stops dead next to it.

Motion is exact 1-D rigid-ball mechanics along the box: rolling without slipping down the incline
(a = 5/7 g sin(angle)); landing on the floor keeps the horizontal velocity and the spin, and sliding friction
(mu g) brings each ball back to rolling; rolling resistance slows rolling balls; ball-ball collisions
exchange the velocities (spins unchanged); the end wall stops a ball (restitution 0). The implausible
version runs the same simulation with the resting ball immovable and the collision absorbing the first
ball's motion.

Graded (`violation`, x): the fraction of the first ball's speed (and spin) that every collision between the
balls fails to pass on: the struck ball leaves at (1 - level) of the first ball's speed, and the first ball keeps
(1 - level) of its spin. 0 is the plausible exchange; today's size is 1 (nothing passed on: the struck ball stays
and the first ball stops dead). The audit measures 1 - the struck ball's speed just after the collision over the
twin's, each read from its first step after the collision as displacement + 2/5 r x turn, which the floor's
friction leaves unchanged (`speed_loss`; measured error under 0.0004 on 16 trials x 3 levels at 10 fps).

Unity original (reference Part 3, Test 14): frictionless sliding, the implausible target ball
has mass 1000. Built unmirrored (incline on the left), then `apparatus.finish` mirrors it when `p.mirror`.
"""

import numpy as np

from voebench.errors import Infeasible
from voebench.generator import edits
from voebench.generator.kinematics import G, quat_from_axis_angle
from voebench.generator.params import FRACTION, INCLINE, NON_NEGATIVE, POSITIVE, Fixed, Level, Range
from voebench.scenes.common import camera_offsets, hsv_color
from voebench.scenes.grasp_l2 import VISUAL, graded
from voebench.scenes.grasp_l2.apparatus import S, U, dark, finish, hidden_frames, look, room, wood
from voebench.scenes.grasp_l2.motion import ROLL_FACTOR, require

NUMBER = 14
PRINCIPLES = ["collision"]
DELAYS = ("start_delay",)  # pauses, scaled down in videos shorter than 10 s (timing.py)
BINARY = ""  # graded: its violation has a size (SPACE `violation`)
level_key = graded

X0 = U(3.811, 0, 0)[0]  # the box's centre line (mirror plane)
FLOOR_TOP = U(0, 10.326, 0)[2]
DEPTH_Y = U(0, 0, -0.13)[1]  # the balls' and the incline's depth (y)
WALL_LEFT, WALL_RIGHT = U(2.311, 0, 0)[0], U(5.311, 0, 0)[0]  # inner faces of the end walls
LOW_END = U(3.811, 0, 0)[0]  # the incline meets the floor at the box's centre
PANEL_W = 0.75  # wide enough to hide the ball where it appears for every sampled camera (0.6 was not)

SPACE = {
    "angle": Range(10.0, 40.0, domain=INCLINE),  # deg, the incline (supplementary Section 3: 10-40)
    # s before the first ball appears at the top (GRASP: 50-150 frames)
    "start_delay": Range(1.0, 3.0, domain=NON_NEGATIVE),
    "gap": Range(0.02, 0.1, domain=NON_NEGATIVE),  # m between the incline's foot and the resting ball
    "friction": Fixed(0.3, domain=NON_NEGATIVE),  # sliding friction coefficient, ball on floor
    "rolling_resistance": Fixed(0.05, domain=NON_NEGATIVE),  # m/s^2, deceleration of a rolling ball
    "balls": {
        "diameter": Fixed(0.2, domain=POSITIVE),
        "hue": Range(0.0, 1.0, domain=FRACTION),
        "hue_shift": Range(0.25, 0.75, domain=FRACTION),  # second ball's hue offset
        "saturation": Range(0.6, 1.0, domain=FRACTION),
        "value": Range(0.6, 1.0, domain=FRACTION),
    },
    "camera": camera_offsets(dx=(-0.3, 0.3), dy=(0.0, 0.0), dz=(-0.5, 0.5), fov=70.0),  # GRASP: x +-0.3, y +-0.5
    **VISUAL,
    # fraction of the speed a collision fails to pass on (declared last: unset, it takes no draw)
    "violation": Level(
        "x",
        "speed_loss",
        "the fraction of the first ball's speed the collision fails to pass on",
        default="1: nothing passed on (the struck ball stays, the first ball stops dead)",
        hi=1.0,
        tol=0.005,  # rolling resistance's share of the first step: at most 0.002 at 10 fps
    ),
}


def level(p) -> float:
    """The violation's size, a fraction: the one asked for, else today's 1 (nothing passed on)."""
    return 1.0 if p.violation is None else p.violation


def simulate(p, n_frames: int, fps: float, start_frame: int, immovable: bool, substeps: int = 40, loss: float = 0.0):
    """(x1, z1, phi1, x2, phi2) per frame: the first ball's centre (x, z) and roll angle, the second ball's
    centre x and roll angle (rotation about +y, radians). `immovable`: the second ball never moves once hit
    (today's implausible video); `loss`: each collision passes on only (1 - loss) of the first ball's speed, and
    the first ball keeps (1 - loss) of its spin (the graded violation; 0 is the plausible exchange)."""
    r = p.balls.diameter / 2
    a = np.radians(p.angle)
    # the first ball's centre runs parallel to the incline at distance r; it lands where its centre is r above
    # the floor while touching the incline
    x_land = LOW_END + r * (1 - np.cos(a)) / np.sin(a)
    x_top = WALL_LEFT + r  # touching the left wall at the top
    slope_len = (x_land - x_top) / np.cos(a)
    acc = ROLL_FACTOR * G * np.sin(a)
    mu_g, crr = p.friction * G, p.rolling_resistance
    out = np.zeros((n_frames, 5))
    x2 = x_land + 2 * r + p.gap
    st = {
        "x1": x_top,
        "v1": 0.0,
        "w1": 0.0,
        "x2": x2,
        "v2": 0.0,
        "w2": 0.0,
        "phi1": 0.0,
        "phi2": 0.0,
        "on_slope": True,
        "s": 0.0,
        "t": 0.0,
        "hit": False,
    }
    dt = 1.0 / fps / substeps

    def ball(v, w):
        """One step of a ball on the floor: sliding friction toward rolling, or rolling resistance."""
        slip = v - w
        if abs(slip) > 1e-9:
            dv = -np.sign(slip) * mu_g * dt
            dw = np.sign(slip) * 2.5 * mu_g * dt
            if abs(dv - dw) >= abs(slip):  # reaches rolling within this step
                v = w = v + (-slip) * (1 / 3.5)  # angular momentum about the contact point is conserved
            else:
                v, w = v + dv, w + dw
        else:
            speed = max(v - crr * dt, 0.0) if v > 0 else min(v + crr * dt, 0.0)
            v = w = speed
        return v, w

    for f in range(n_frames):
        for _ in range(substeps if f > start_frame else 0):
            if st["on_slope"]:
                st["t"] += dt
                s = min(0.5 * acc * st["t"] ** 2, slope_len)
                st["phi1"] += (s - st["s"]) / r
                st["s"] = s
                st["x1"] = x_top + s * np.cos(a)
                if s >= slope_len:  # lands on the floor: the normal impulse takes the vertical velocity
                    v = acc * st["t"]
                    st.update(on_slope=False, v1=v * np.cos(a), w1=v)
                continue
            st["v1"], st["w1"] = ball(st["v1"], st["w1"])
            if not (immovable and st["hit"]):
                st["v2"], st["w2"] = ball(st["v2"], st["w2"])
            st["x1"] += st["v1"] * dt
            st["x2"] += st["v2"] * dt
            st["phi1"] += st["w1"] * dt / r
            st["phi2"] += st["w2"] * dt / r
            if st["x2"] >= WALL_RIGHT - r and st["v2"] > 0:  # the end wall stops it
                st.update(x2=WALL_RIGHT - r, v2=0.0, w2=0.0)
            if st["x2"] - st["x1"] <= 2 * r and st["v1"] > st["v2"]:
                st["x1"] = st["x2"] - 2 * r
                if immovable or st["x2"] >= WALL_RIGHT - r - 1e-9:  # nothing can move on: both stop
                    st.update(v1=0.0, w1=0.0, v2=0.0, w2=0.0)
                elif loss:  # graded: only (1 - loss) of the first ball's speed passes on, and of its spin stays
                    st["v1"], st["v2"], st["w1"] = st["v2"], (1 - loss) * st["v1"], (1 - loss) * st["w1"]
                else:  # equal masses: the velocities are exchanged, the spins stay
                    st["v1"], st["v2"] = st["v2"], st["v1"]
                st["hit"] = True
        z1 = FLOOR_TOP + r + (max(x_land - st["x1"], 0.0) * np.tan(a))
        out[f] = st["x1"], z1, st["phi1"], st["x2"], st["phi2"]
    return out


def set_tracks(scene, track):
    y = (0.0, 1.0, 0.0)
    for name, x, z, phi in (
        ("ball1", track[:, 0], track[:, 1], track[:, 2]),
        ("ball2", track[:, 3], None, track[:, 4]),
    ):
        b = scene[name]
        b.position[:, 0] = x
        if z is not None:
            b.position[:, 2] = z
        b.quaternion[:] = quat_from_axis_angle(y, phi)


def build(scene, p, condition):
    room(scene, p)
    r = p.balls.diameter / 2
    a = np.radians(p.angle)
    # the box: floor, dark back panel, end walls, the incline, the tall panel hiding the incline's top
    wood(scene, "box_floor", S(3.0, 0.1, 0.9), U(3.811, 10.276, -0.13), p)
    dark(scene, "back_panel", S(3.0, 3.0, 0.05), U(3.811, 10.326 + 1.5, 0.345))
    wood(scene, "end_wall_left", (0.1, 0.9, 3.0), (WALL_LEFT - 0.05, DEPTH_Y, FLOOR_TOP + 1.5), p)
    wood(scene, "end_wall_right", (0.1, 0.9, 0.5), (WALL_RIGHT + 0.05, DEPTH_Y, FLOOR_TOP + 0.25), p)
    run = LOW_END - WALL_LEFT
    length, t = run / np.cos(a), 0.02
    mid = np.array([WALL_LEFT + run / 2, FLOOR_TOP + run * np.tan(a) / 2]) - t / 2 * np.array([np.sin(a), np.cos(a)])
    wood(scene, "incline", (length, 0.9, t), (mid[0], DEPTH_Y, mid[1]), p, role="plank").quaternion[:] = (
        quat_from_axis_angle((0, 1, 0), a)
    )
    wood(
        scene,
        "panel_left",
        (PANEL_W, 0.02, 3.0),
        (WALL_LEFT - 0.1 + PANEL_W / 2, U(0, 0, -0.60)[1], FLOOR_TOP + 1.5),
        p,
        role="occluder",
    )

    colors = [hsv_color((p.balls.hue + k * p.balls.hue_shift) % 1.0, p.balls.saturation, p.balls.value) for k in (0, 1)]
    for k, name in enumerate(("ball1", "ball2")):
        scene.add(name, "sphere", (2 * r,) * 3, (0.0, DEPTH_Y, FLOOR_TOP + r), role="ball", color=colors[k])
    start = scene.frame(p.start_delay)
    track = simulate(p, scene.n_frames, scene.fps, start, immovable=False)
    set_tracks(scene, track)
    scene["ball1"].visible[:start] = False  # it comes into existence at the top, behind the panel
    if condition == "implausible":
        good = {n: (scene[n].position.copy(), scene[n].quaternion.copy()) for n in ("ball1", "ball2")}
        if p.violation is None:
            set_tracks(scene, simulate(p, scene.n_frames, scene.fps, start, immovable=True))
        else:
            set_tracks(scene, simulate(p, scene.n_frames, scene.fps, start, immovable=False, loss=p.violation))
        differs = [
            np.any(scene[n].position != good[n][0], axis=1) | np.any(scene[n].quaternion != good[n][1], axis=1)
            for n in ("ball1", "ball2")
        ]
        changed = np.flatnonzero(differs[0] | differs[1])
        require(
            len(changed) > 0 and changed[0] < scene.n_frames - 10,
            scene,
            "t14",
            "the collision",
            ("start_delay", "angle"),
        )
        first = int(changed[0])
        edits.record(scene, PRINCIPLES, "no_transfer", "ball2", first, scene.n_frames - 1)
        edits.grade(scene, level(p))
    look(scene, p, U(3.811, 11.656, -2.544), (X0, U(0, 0, -0.130)[1], FLOOR_TOP + 0.8))  # GRASP aims 1.4 m up
    finish(scene, p, X0)
    if start > 0 and not hidden_frames(scene, "ball1", "panel_left", margin=0.02)[start]:
        raise Infeasible("t14: the ball would come into existence in view", ("camera.dx", "camera.dz"))


def describe(scene, p, condition):
    if condition == "plausible":
        what = (
            "it pushes that ball away toward the wall at the end of the box, where it stops; the first ball rolls "
            "on behind it and comes to rest right behind it"
        )
    elif p.violation is None or level(p) >= 1.0:
        what = "that ball stays exactly where it was, and the first ball stops next to it"
    else:
        what = (
            f"that ball moves off at only {100 * (1 - level(p)):.0f}% of the first ball's speed, and the first "
            "ball keeps only that share of its spin"
        )
    return (
        f"After {p.start_delay:.1f} s a ball rolls down an incline of {p.angle:.0f} degrees, speeding up. "
        f"At the bottom it hits a second ball of the same size and mass lying in its path: {what}."
    )
