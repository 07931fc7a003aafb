"""Surface smoothness: three cubes of the same size, one colour each, sit side by side at the top of a wooden
plank tilted toward the camera and are let go at the same moment. Each slides down with its own sampled
coefficient of sliding friction mu, accelerating at g (sin a - mu cos a), until it reaches the stop at the foot
of the plank. The smoother cube (lower friction) slides down faster.

Motion is exact: constant acceleration along the plank from rest, then resting against the stop. Every sampled
friction stays below tan(angle), so every cube slides.
"""

import numpy as np

from voebench.errors import Infeasible
from voebench.generator.kinematics import G, quat_from_axis_angle
from voebench.generator.params import INCLINE, NON_NEGATIVE, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import camera_fixed
from voebench.scenes.newton import world

SHAPE = "cube"
ATTRIBUTE = "surface smoothness"
VALUE = "friction"  # the recorded value behind the answers; LESS friction = smoother
LEVELS = ("low", "mid", "high")

SPACE = {
    "friction": {
        "low": Range(0.02, 0.1, domain=NON_NEGATIVE),
        "mid": Range(0.2, 0.28, domain=NON_NEGATIVE),
        "high": Range(0.36, 0.42, domain=NON_NEGATIVE),
    },
    "order": Balanced(world.ORDERS3),  # the friction level of each cube, left to right
    "angle": Range(26.0, 34.0, domain=INCLINE),  # deg; tan(26 deg) = 0.49 > every friction: all cubes slide
    "start_delay": Range(0.0, 0.2, domain=NON_NEGATIVE),
    "cube": Fixed(0.3, domain=POSITIVE),  # edge, m
    "plank_length": Fixed(3.0, domain=POSITIVE),
    "spacing": Fixed(0.8, domain=POSITIVE),
    **world.COLOR_SPACE,
    "camera": camera_fixed((0.0, -5.5, 3.0), (0.0, 0.0, 0.6), 45.0),
}
PLANK_T = 0.05
STOP_T, STOP_H = 0.06, 0.15


def amounts(p) -> list[float]:
    """Smoothness as a number: minus the friction (more = smoother)."""
    return [-mu for mu in world.levels(p, "friction", LEVELS)]


def frames(p):
    """The plank's frame: its top edge's centre, the downhill direction along it and its upward normal. The
    plank falls toward -y (the camera) and its foot rests on the table at z = 0."""
    a = np.radians(p.angle)
    down = np.array([0.0, -np.cos(a), -np.sin(a)])
    normal = np.array([0.0, -np.sin(a), np.cos(a)])
    top = np.array([0.0, p.plank_length * np.cos(a) / 2, p.plank_length * np.sin(a)])
    return top, down, normal


def build(scene, p, condition):
    world.stage(scene, p)
    a = np.radians(p.angle)
    if np.tan(a) <= max(p.friction.values()):
        raise Infeasible("smoothness: a cube would not slide (friction >= tan(angle))", ("angle", "friction.high"))
    top, down, normal = frames(p)
    L, c = p.plank_length, p.cube
    tilt = quat_from_axis_angle((1.0, 0.0, 0.0), a)  # local +y (the plank's length) points uphill
    width = 3 * p.spacing + 0.4
    scene.add(
        "plank",
        "box",
        (width, L, PLANK_T),
        top + down * L / 2 - normal * PLANK_T / 2,
        role="plank",
        fixture=True,
        color=(0.62, 0.5, 0.36),
        quaternion=tilt,
        texture={"pattern": "wood", "seed": 3},
    )
    scene.add(
        "stop",
        "box",
        (width, STOP_T, STOP_H),
        top + down * (L - STOP_T / 2) + normal * STOP_H / 2,
        role="support",
        fixture=True,
        color=(0.35, 0.22, 0.12),
        quaternion=tilt,
    )
    s0, s_end = c / 2 + 0.05, L - STOP_T - c / 2
    start = scene.frame(p.start_delay)
    t = np.clip((np.arange(scene.n_frames) - start) / scene.fps, 0.0, None)
    for j, (color, mu) in enumerate(zip(world.colors(p, 3), world.levels(p, "friction", LEVELS))):
        acc = G * (np.sin(a) - mu * np.cos(a))
        s = np.minimum(s0 + 0.5 * acc * t * t, s_end)
        across = np.array([(j - 1) * p.spacing, 0.0, 0.0])
        cube = scene.add(f"cube{j}", "box", (c, c, c), top + across, role="cube", color=color, quaternion=tilt)
        cube.position[:] = top + across + s[:, None] * down + normal * c / 2


def measured(scene, p) -> list[float] | None:
    """From the states: each cube's distance down the plank averaged over the video (m; whoever gets down
    sooner has the larger mean), or None when no cube has moved by the end."""
    top, down, _ = frames(p)
    out = []
    for j in range(3):
        pos = scene[f"cube{j}"].position
        s = (pos - pos[0]) @ down
        out.append(float(np.mean(s)))
    return None if max(out) <= 0 else [float(v) for v in out]


MEASURE_KEYS = ("seconds", "start_delay", "angle", "friction.low", "friction.mid", "friction.high")


def describe(scene, p, condition):
    a, b, c = world.color_names(p, 3)
    return (
        f"Three cubes of the same size, {a}, {b} and {c} from left to right, sit side by side at the top of a "
        f"wooden plank tilted {p.angle:.0f} degrees toward the viewer, with a stop at its foot, and are let go at "
        f"the same moment."
    )
