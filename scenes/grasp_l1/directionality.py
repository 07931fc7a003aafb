"""Directionality: a ball rolls across a tray forward, backward, left or right (as seen by the top-down
camera: forward = up in the image), after a random delay, slowing down by rolling resistance until it stops."""

import numpy as np

from voebench.generator.kinematics import roll
from voebench.generator.params import FOV, FRACTION, NON_NEGATIVE, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import TRAY_BALL_SPAN, TRAY_CENTER, TRAY_FLOOR_TOP, hsv_color, table_room, top_down, tray, tray_point
from voebench.scenes.grasp_l1 import other_label

LABELS = ("forward", "backward", "left", "right")
STATEMENT = "The ball is rolling {}."
OPEN_QUESTION = "Which direction is the ball rolling?"
KEYWORDS = {"forward": ["forward", "forwards", "up", "upward", "upwards"],
            "backward": ["backward", "backwards", "down", "downward", "downwards"],
            "left": ["left"], "right": ["right"]}
# unit direction in the world (x right, y forward in the image) and where on the tray the ball starts
HEADINGS = {"forward": (0, 1), "backward": (0, -1), "left": (-1, 0), "right": (1, 0)}

SPACE = {
    "direction": Balanced(LABELS),
    "lateral": Range(0.0, 1.0, domain=FRACTION),  # where along the start edge the ball starts (fraction)
    "speed": Range(1.5, 2.5, domain=POSITIVE),  # initial speed, m/s (GRASP: 1.5-2.5 units/s)
    # fraction of the 4.4 m span covered before rolling resistance stops it
    "travel": Range(0.6, 0.95, domain=FRACTION),
    "start_delay": Range(0.0, 3.0, domain=NON_NEGATIVE),  # s (GRASP: 0-150 frames at 50 fps)
    "ball": {"diameter": Fixed(0.4, domain=POSITIVE), "hue": Range(0.0, 1.0, domain=FRACTION),
             "saturation": Range(0.6, 1.0, domain=FRACTION), "value": Range(0.6, 1.0, domain=FRACTION)},
    "camera": {"height": Fixed(4.17, domain=POSITIVE), "fov": Fixed(70.0, domain=FOV)},
}


def add_ball(scene, p, xy):
    r = p.ball.diameter / 2
    return scene.add("ball", "sphere", (p.ball.diameter,) * 3, (xy[0], xy[1], TRAY_FLOOR_TOP + r), role="ball",
                     color=hsv_color(p.ball.hue, p.ball.saturation, p.ball.value))


def roll_ball(scene, ball, start_xy, heading, p, distance):
    """Roll from rest-at-start with the sampled speed; the deceleration makes it stop after `distance`."""
    deceleration = p.speed**2 / (2 * distance)
    start = np.array([*start_xy, ball.position[0, 2]])
    roll(ball, start, (*heading, 0.0), p.speed, deceleration, scene.frame(p.start_delay), scene.fps)


def build(scene, p, condition):
    table_room(scene)
    tray(scene)
    hx, hy = HEADINGS[p.direction]
    # start on the edge the ball rolls away from, at `lateral` along it
    fx = 0.5 - 0.5 * hx if hx else p.lateral
    fy = 0.5 - 0.5 * hy if hy else p.lateral
    start = tray_point(fx, fy)
    ball = add_ball(scene, p, start)
    roll_ball(scene, ball, start, (hx, hy), p, p.travel * TRAY_BALL_SPAN)
    top_down(scene, (*TRAY_CENTER, 0.0), p.camera.height, p.camera.fov)


def observation(p):
    return p.direction


open_answer = observation


def negative(p, rng):
    return other_label(LABELS, p.direction, rng)


def describe(scene, p, condition):
    seen = {"forward": "away from the viewer (up in the view)", "backward": "toward the viewer (down in the view)",
            "left": "to the left", "right": "to the right"}[p.direction]
    return (f"Seen from above, a ball lies in a square tray. After {p.start_delay:.1f} s it rolls {seen} "
            f"at {p.speed:.1f} m/s, slows down and stops.")
