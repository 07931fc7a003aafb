"""Test 3, Solidity & continuity: a ball rolls out of a start box along a plank with a wall at its back. A
cover stands at the front edge of the plank; two barriers (walls across the plank) stick up above it. The
ball rolls behind the cover, then the cover drops into a slot. Plausible: the ball has come to rest at the
first barrier on its way. Implausible: it passed through the first barrier (hidden by the cover) and rests at
the second.

Unity original (reference Part 3, Test 3): plank top y = 10.957, barriers 0.05 x 0.85 x 0.5, inner at
x = 4.025 + U(-0.4, 0.4), outer at 6.177 + U(-1, 0), cover 3.0 x 0.45 at z = -0.137. Coordinates via apparatus.U.
"""

import numpy as np

from voebench.generator import edits
from voebench.generator.kinematics import roll
from voebench.generator.params import Range
from voebench.scenes.common import hsv_color
from voebench.scenes.grasp_l2 import VISUAL
from voebench.scenes.grasp_l2.apparatus import S, U, camera_space, cover, dark, finish, look, \
    move_by, room, wood

NUMBER = 3
OBSERVATION = "the final position of the ball"
PRINCIPLES = ["solidity", "continuity"]
DELAYS = ("start_delay", "wait")  # pauses, scaled down in videos shorter than 10 s (timing.py)

PLANK_TOP = U(0, 10.957, 0)[2]
X0 = U(3.702, 0, 0)[0]  # mirror plane
PATH_UZ = 0.118  # Unity z of the ball's path (middle of the plank)
START_UX = 1.304
BARRIER_T = 0.05  # barrier thickness (m)

SPACE = {
    "ball": {"diameter": 0.2, "hue": Range(0.0, 1.0), "saturation": Range(0.6, 1.0), "value": Range(0.6, 1.0)},
    "inner_offset": Range(-0.4, 0.4),  # m, first barrier at Unity x 4.025 + this (supplementary Section 3)
    "outer_offset": Range(-1.0, 0.0),  # m, second barrier at Unity x 6.177 + this
    "speed": Range(1.2, 2.0),  # m/s when it leaves the start box (GRASP: constant U(1, 2))
    "deceleration": Range(0.05, 0.15),  # m/s^2, rolling resistance (capped so it reaches the second barrier
    # with at least 60% of its start speed)
    "wait": Range(0.4, 1.0),  # s between the ball reaching the second barrier's place and the cover dropping
    "cover_speed": Range(0.4, 0.6),  # m/s (GRASP: 0.5)
    "start_delay": Range(0.5, 2.0),  # s (GRASP: 50-150 frames)
    "camera": camera_space(dx=(-0.5, 0.5), dy=(0.0, 0.0), dz=(-0.5, 0.5)),
    **VISUAL,
}


def barriers(p):
    """Unity x of the first and the second barrier on the ball's way."""
    return 4.025 + p.inner_offset, 6.177 + p.outer_offset


def build(scene, p, condition):
    room(scene, p)
    d = p.ball.diameter
    r = d / 2
    wood(scene, "plank", S(5.0, 0.1, 0.5), U(3.702, 10.907, PATH_UZ), p)
    wood(scene, "lower_plank", S(5.0, 0.1, 0.55), U(3.702, 10.407, PATH_UZ - 0.025), p)
    wood(scene, "front_panel", S(5.02, 0.6, 0.02), U(3.702, 10.657, -0.175), p)  # hides the dropped cover
    dark(scene, "back_wall", S(5.02, 1.45, 0.05), U(3.702, 10.357 + 0.725, 0.34))
    # the start box: front, top and a lintel on the inner side (the ball rolls out under it)
    wood(scene, "start_front", S(0.9, 0.5, 0.02), U(1.104, 10.957 + 0.25, -0.16), p)
    wood(scene, "start_top", S(0.9, 0.02, 0.55), U(1.104, 11.457, 0.105), p)
    wood(scene, "start_lintel", S(0.02, 0.27, 0.55), U(1.544, 11.457 - 0.135, 0.105), p, collider=False)  # 2 cm over the ball
    inner, outer = barriers(p)
    for name, ux in (("barrier_first", inner), ("barrier_second", outer)):
        wood(scene, name, S(BARRIER_T, 0.85, 0.5), U(ux, 10.957 + 0.425, PATH_UZ), p, role="barrier")
    h = 0.45
    cov = cover(scene, "cover", S(3.0, h, 0.01), U(4.702, 10.957 + h / 2, -0.137))

    start = U(START_UX, 0, PATH_UZ)
    start[2] = PLANK_TOP + r
    ball = scene.add("ball", "sphere", (d,) * 3, start, role="ball",
                     color=hsv_color(p.ball.hue, p.ball.saturation, p.ball.value))
    d_first = inner - BARRIER_T / 2 - r - START_UX  # rolled distance when it touches the first barrier
    d_second = outer - BARRIER_T / 2 - r - START_UX
    a = min(p.deceleration, p.speed**2 * (1 - 0.6**2) / (2 * d_second))
    f0 = scene.fps
    go = scene.frame(p.start_delay)
    # the ball stops where it touches a barrier (inelastic contact); the implausible one ignores the first
    stop = d_first if condition == "plausible" else d_second
    s = roll(ball, start, (1.0, 0.0, 0.0), p.speed, a, go, f0, max_distance=stop)
    # the cover drops at the same time in both conditions: `wait` after the ball would reach the second barrier
    v1 = np.sqrt(p.speed**2 - 2 * a * d_second)
    arrive = go + (p.speed - v1) / a * f0
    move_by(cov, (0, 0, -h), p.cover_speed, int(np.ceil(arrive + p.wait * f0)), f0)
    look(scene, p, U(3.702, 11.726, -2.735), U(3.702, 10.957, 0.118))

    if condition == "implausible":
        overlap = np.flatnonzero((s > d_first + 1e-9) & (s < d_first + 2 * r + BARRIER_T))
        edits.record(scene, PRINCIPLES, "pass_through", "ball", overlap[0], overlap[-1], hidden=True)
    finish(scene, p, X0)


def describe(p, condition):
    side, other = ("right", "left") if p.mirror else ("left", "right")
    inner, outer = barriers(p)
    text = (f"A sphere rolls on a flat, solid plank with a wall at its back. After {p.start_delay:.1f} s it comes "
            f"into view on the {side} and rolls towards the {other}. An occluder stands at the front edge of the "
            f"plank; it is higher than the sphere but does not reach the ceiling. Two walls, {outer - inner:.1f} m "
            f"apart, are visible above the occluder and extend from the front to the back of the plank. The sphere "
            f"rolls along the plank until it disappears behind the occluder. After a short while the occluder is "
            f"removed by a mechanism, revealing the bottom parts of the two walls, which reach all the way down to "
            f"the plank. ")
    where = "first" if condition == "plausible" else "second"
    return text + f"The sphere has come to rest at the {where} wall along its trajectory."
