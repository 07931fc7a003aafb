"""Heaviness: two cubes of the same size, one colour each, lie on the table in a line; the left one is pushed
and slides into the right one, which was at rest. Each has its own sampled mass; the collision conserves
momentum (restitution 0.5), so the lighter cube's velocity changes more: a heavy cube sends a light one flying
and slides on behind it, a light cube bounces back off a heavy one that barely moves. Both then slow down by
sliding friction and stop.

Motion is exact 1-D mechanics: deceleration mu g while sliding, the collision's velocities from momentum and
restitution (no second collision: after it the right cube is always the faster one).
"""

import numpy as np

from voebench.generator.kinematics import G
from voebench.generator.params import FRACTION, NON_NEGATIVE, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import camera_fixed
from voebench.scenes.newton import world

SHAPE = "cube"
ATTRIBUTE = "heaviness"
VALUE = "mass"  # the recorded value behind the answers; more = heavier
LEVELS = ("light", "heavy")

SPACE = {
    "mass": {
        "light": Range(0.5, 1.0, domain=POSITIVE),
        "ratio": Range(3.0, 6.0, domain=POSITIVE),
    },  # kg; heavy = ratio x light
    "order": Balanced(world.ORDERS2),  # "01": the pushed cube (left) is light; "10": it is heavy
    "speed": Range(2.5, 3.5, domain=POSITIVE),  # m/s, the left cube's speed when it is let go
    "gap": Range(0.4, 0.8, domain=NON_NEGATIVE),  # m between the cubes
    "friction": Fixed(0.15, domain=NON_NEGATIVE),
    "restitution": Fixed(0.5, domain=FRACTION),
    "start_delay": Range(0.0, 0.2, domain=NON_NEGATIVE),
    "cube": Fixed(0.4, domain=POSITIVE),
    **world.COLOR_SPACE,
    "camera": camera_fixed((0.0, -6.0, 1.8), (0.5, 0.0, 0.3), 50.0),
}
X_LEFT = -2.0
SUBSTEPS = 40


def masses(p) -> list[float]:
    heavy = p.mass.light * p.mass.ratio
    return [p.mass.light if ch == "0" else heavy for ch in str(p.order)]


def amounts(p) -> list[float]:
    return masses(p)


def simulate(p, n_frames: int, fps: float, start: int) -> np.ndarray:
    """(x_left, x_right) of the cubes' centres per frame."""
    m1, m2 = masses(p)
    c, decel, e = p.cube, p.friction * G, p.restitution
    x = [X_LEFT, X_LEFT + c + p.gap]
    v = [0.0, 0.0]
    out = np.zeros((n_frames, 2))
    dt = 1.0 / fps / SUBSTEPS
    for f in range(n_frames):
        if f == start:
            v[0] = p.speed
        for _ in range(SUBSTEPS if f > start else 0):
            for k in (0, 1):
                if v[k] != 0.0:
                    slowed = abs(v[k]) - decel * dt
                    v[k] = float(np.sign(v[k])) * slowed if slowed > 0 else 0.0
                x[k] += v[k] * dt
            if x[1] - x[0] <= c and v[0] > v[1]:  # contact: momentum conserved, restitution e
                x[0] = x[1] - c
                u1, u2 = v
                v[0] = (m1 * u1 + m2 * u2 - m2 * e * (u1 - u2)) / (m1 + m2)
                v[1] = (m1 * u1 + m2 * u2 + m1 * e * (u1 - u2)) / (m1 + m2)
        out[f] = x
    return out


def build(scene, p, condition):
    world.stage(scene, p)
    c = p.cube
    track = simulate(p, scene.n_frames, scene.fps, scene.frame(p.start_delay))
    for j, color in enumerate(world.colors(p, 2)):
        cube = scene.add(f"cube{j}", "box", (c, c, c), (track[0, j], 0.0, c / 2), role="cube", color=color)
        cube.position[:, 0] = track[:, j]


def measured(scene, p) -> list[float] | None:
    """From the states: minus each cube's velocity change in the collision (m/s; momentum is conserved, so the
    heavier cube's velocity changes less), or None when the collision is not in the video with two frames on
    either side."""
    x0, x1 = scene["cube0"].position[:, 0], scene["cube1"].position[:, 0]
    moved = np.flatnonzero(np.abs(x1 - x1[0]) > 1e-9)
    if len(moved) == 0:
        return None
    hit = int(moved[0])  # the first frame after the impact
    if hit < 2 or hit + 1 >= len(x0):
        return None
    fps = scene.fps
    before = [(x0[hit - 1] - x0[hit - 2]) * fps, 0.0]
    after = [(x0[hit + 1] - x0[hit]) * fps, (x1[hit + 1] - x1[hit]) * fps]
    return [-abs(after[k] - before[k]) for k in (0, 1)]


MEASURE_KEYS = ("seconds", "fps", "start_delay", "speed", "gap")


def describe(scene, p, condition):
    a, b = world.color_names(p, 2)
    return (
        f"Two cubes of the same size lie in a line on a wooden table, {a} on the left and {b} on the right, "
        f"{p.gap:.1f} m apart. The {a} cube is pushed toward the {b} one and slides into it."
    )
