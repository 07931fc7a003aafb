"""Directionality: a ball rolls across a tray forward, backward, left or right (as seen by the top-down
camera: forward = up in the image), after a random delay, slowing down by rolling resistance until it stops."""

import numpy as np

from voebench.errors import Infeasible
from voebench.generator.kinematics import roll
from voebench.generator.params import FOV, FRACTION, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import (
    TRAY_BALL_SPAN,
    TRAY_CENTER,
    TRAY_FLOOR_TOP,
    add_ball,
    table_room,
    top_down,
    tray,
    tray_point,
    ball_space,
)
from voebench.scenes.grasp_l1 import other_label

LABELS = ("forward", "backward", "left", "right")
KEYWORDS = {
    "forward": ["forward", "forwards", "up", "upward", "upwards"],
    "backward": ["backward", "backwards", "down", "downward", "downwards"],
    "left": ["left"],
    "right": ["right"],
}
# unit direction in the world (x right, y forward in the image) and where on the tray the ball starts
HEADINGS = {"forward": (0, 1), "backward": (0, -1), "left": (-1, 0), "right": (1, 0)}

SPACE = {
    "direction": Balanced(LABELS),
    "lateral": Range(0.0, 1.0, domain=FRACTION),  # where along the start edge the ball starts (fraction)
    "speed": Range(1.5, 2.5, domain=POSITIVE),  # initial speed, m/s (GRASP: 1.5-2.5 units/s)
    # fraction of the 4.4 m span covered before rolling resistance stops it
    "travel": Range(0.6, 0.95, domain=FRACTION),
    "start_delay": Range(
        0.0, 0.3, domain=FRACTION
    ),  # fraction of the video before the ball starts (GRASP: 0-3 s of 10 s)
    "ball": ball_space(0.4),
    "camera": {"height": Fixed(4.17, domain=POSITIVE), "fov": Fixed(70.0, domain=FOV)},
}


def tray_ball(scene, p, xy):
    """The ball (`common.add_ball`) resting on the tray floor at `xy`."""
    return add_ball(scene, p, (xy[0], xy[1], TRAY_FLOOR_TOP + p.ball.diameter / 2))


def start_frame(scene, p) -> int:
    """The frame the ball starts rolling: `start_delay` is a fraction of the video, so the ball rolls inside
    the video at any length and frame rate (GRASP's 0-3 s delay was 0-30% of its 10 s videos)."""
    return scene.frame(p.start_delay * scene.n_frames / scene.fps)


def roll_ball(scene, ball, start_xy, heading, p, distance):
    """Roll from rest-at-start with the sampled speed; the deceleration makes it stop after `distance`.
    Raises Infeasible when the video would not show the ball rolling long enough to judge its motion
    (`truth.MIN_MOTION_FRAMES` steps and `truth.MIN_MOTION_SECONDS`)."""
    from voebench.scenes.grasp_l1.truth import MIN_MOTION_FRAMES, MIN_MOTION_SECONDS

    if not 0.0 <= p.start_delay < 1.0:
        raise Infeasible(f"start_delay {p.start_delay:g} is not a fraction of the video in [0, 1)", ("start_delay",))
    if distance <= 0 or p.speed <= 0:
        raise Infeasible(f"the ball must roll: speed {p.speed:g} m/s over {distance:g} m", ("speed", "travel"))
    first = start_frame(scene, p)
    stop_s = 2 * distance / p.speed  # uniform deceleration from `speed` to rest over `distance`
    steps = min(scene.n_frames - 1 - first, int(np.floor(stop_s * scene.fps)))
    if steps < MIN_MOTION_FRAMES or steps / scene.fps < MIN_MOTION_SECONDS:
        keys = ("speed", "travel") if stop_s < MIN_MOTION_SECONDS else ("start_delay", "seconds", "fps")
        raise Infeasible(
            f"the ball would be seen rolling for {steps} frame steps ({steps / scene.fps:.2f} s) of "
            f"a {scene.n_frames}-frame video; a statement about its motion needs {MIN_MOTION_FRAMES} "
            f"and {MIN_MOTION_SECONDS:g} s",
            keys,
        )
    deceleration = p.speed**2 / (2 * distance)
    start = np.array([*start_xy, ball.position[0, 2]])
    roll(ball, start, (*heading, 0.0), p.speed, deceleration, first, scene.fps)


def build(scene, p, condition):
    table_room(scene)
    tray(scene)
    if not (0.0 <= p.lateral <= 1.0 and 0.0 < p.travel <= 1.0):
        raise Infeasible(
            "the ball must start on the tray's edge (lateral in [0, 1]) and stop before the far "
            f"wall (travel in (0, 1]); got lateral {p.lateral:g}, travel {p.travel:g}",
            ("lateral", "travel"),
        )
    hx, hy = HEADINGS[p.direction]
    # start on the edge the ball rolls away from, at `lateral` along it
    fx = 0.5 - 0.5 * hx if hx else p.lateral
    fy = 0.5 - 0.5 * hy if hy else p.lateral
    start = tray_point(fx, fy)
    ball = tray_ball(scene, p, start)
    roll_ball(scene, ball, start, (hx, hy), p, p.travel * TRAY_BALL_SPAN)
    top_down(scene, (*TRAY_CENTER, 0.0), p.camera.height, p.camera.fov)


def observation(p):
    return p.direction


open_answer = observation


def negative(p, rng):
    return other_label(LABELS, p.direction, rng)


def describe(scene, p, condition):
    seen = {
        "forward": "away from the viewer (up in the view)",
        "backward": "toward the viewer (down in the view)",
        "left": "to the left",
        "right": "to the right",
    }[p.direction]
    return f"Seen from above, a ball lies in a square tray. {rolling(p, scene, seen)}"


def rolling(p, scene, where):
    """The roll in words, with the times this video shows (the ball may still be rolling when it ends)."""
    ball = scene["ball"]
    first = start_frame(scene, p)
    stopped = np.linalg.norm(ball.position[-1] - ball.position[-2]) == 0 if scene.n_frames > 1 else True
    end = "slows down and stops" if stopped else "slows down; the video ends before it stops"
    return f"After {first / scene.fps:.1f} s it rolls {where} at {p.speed:.1f} m/s, {end}."
