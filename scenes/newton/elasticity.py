"""Elasticity: three balls of the same size, one colour each, are held side by side above the table and dropped
at the same moment. Each bounces with its own sampled coefficient of restitution e (the ratio of the speed after
an impact to the speed before): it rises again to e^2 of its drop height, then bounces lower and lower and comes
to rest. The more elastic ball is the one that bounces back higher.

Motion is exact: free fall at g between impacts, the speed times e at each impact, rest once a rebound would be
slower than 5 cm/s.
"""

import numpy as np

from voebench.generator.kinematics import G
from voebench.generator.params import FRACTION, NON_NEGATIVE, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import camera_fixed
from voebench.scenes.newton import world

SHAPE = "ball"
ATTRIBUTE = "elasticity"
VALUE = "restitution"  # the recorded value behind the answers (params.sampled); more = more elastic
LEVELS = ("low", "mid", "high")
REST_SPEED = 0.05  # m/s: a rebound slower than this ends the bouncing

SPACE = {
    "restitution": {
        "low": Range(0.1, 0.3, domain=FRACTION),
        "mid": Range(0.45, 0.6, domain=FRACTION),
        "high": Range(0.75, 0.9, domain=FRACTION),
    },
    "order": Balanced(world.ORDERS3),  # the level of each ball, left to right (cycles with the trial index)
    "drop_height": Range(0.4, 0.7, domain=POSITIVE),  # m, from the balls' bottom to the table
    "start_delay": Range(0.0, 0.1, domain=NON_NEGATIVE),  # s, held before the drop
    "diameter": Fixed(0.3, domain=POSITIVE),
    "spacing": Fixed(1.0, domain=POSITIVE),  # m between the balls' centres
    **world.COLOR_SPACE,
    "camera": camera_fixed((0.0, -5.0, 1.2), (0.0, 0.0, 0.5), 45.0),
}


def bounce_heights(n_frames: int, fps: float, start: int, drop: float, e: float) -> np.ndarray:
    """Height of the ball's bottom above the table per frame: held until frame `start`, then dropped."""
    t_all = (np.arange(n_frames) - start) / fps
    out = np.full(n_frames, drop)
    # the flights: (start time, launch speed up, start height); the first is the drop from rest
    flights = [(0.0, 0.0, drop)]
    t_hit = np.sqrt(2 * drop / G)
    v = G * t_hit * e
    while v >= REST_SPEED and t_hit < t_all[-1]:
        flights.append((t_hit, v, 0.0))
        t_hit += 2 * v / G
        v *= e
    t_rest = t_hit
    for k, t in enumerate(t_all):
        if t <= 0:
            continue
        if t >= t_rest:
            out[k] = 0.0
            continue
        t0, v0, h0 = max(f for f in flights if f[0] <= t)
        dt = t - t0
        out[k] = max(h0 + v0 * dt - 0.5 * G * dt * dt, 0.0)
    return out


def amounts(p) -> list[float]:
    return world.levels(p, "restitution", LEVELS)


def build(scene, p, condition):
    world.stage(scene, p)
    r = p.diameter / 2
    start = scene.frame(p.start_delay)
    for j, (color, e) in enumerate(zip(world.colors(p, 3), amounts(p))):
        x = (j - 1) * p.spacing
        ball = scene.add(f"ball{j}", "sphere", (2 * r,) * 3, (x, 0.0, r + p.drop_height), role="ball", color=color)
        ball.position[:, 2] = r + bounce_heights(scene.n_frames, scene.fps, start, p.drop_height, e)


def measured(scene, p) -> list[float] | None:
    """From the states: how high each ball rises again after its first impact (m; the highest frame of the
    first rebound), or None when a ball's first rebound does not reach its top within the video. Impacts fall
    between frames: the first impact is where the falling ball's height stops decreasing."""
    r = p.diameter / 2
    out = []
    for j in range(3):
        z = scene[f"ball{j}"].position[:, 2] - r
        n = len(z)
        low = next((i for i in range(1, n - 1) if z[i] < z[i - 1] and z[i + 1] >= z[i]), None)
        if low is None:  # still falling at the end
            return None
        top = low
        while top + 1 < n and z[top + 1] > z[top]:
            top += 1
        if top == n - 1:  # still rising in the last frame
            return None
        out.append(float(z[top]))
    return out


MEASURE_KEYS = ("seconds", "start_delay", "drop_height", "restitution.high")


def describe(scene, p, condition):
    a, b, c = world.color_names(p, 3)
    return (
        f"Three balls of the same size, {a}, {b} and {c} from left to right, are held side by side "
        f"{p.drop_height:.1f} m above a wooden table and dropped at the same moment."
    )
