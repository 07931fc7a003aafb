"""Relational Position: a ball lies to the left or right of a black barrier standing on the table
(as seen by the camera, which looks across the table from its far side)."""

from voebench.generator.params import Balanced, Range
from voebench.scenes.common import POLE_GREY, hsv_color, pitched, table_room
from voebench.scenes.grasp_l1 import other_label

LABELS = ("left", "right")
STATEMENT = "The ball is on the {} side of the black barrier."
OPEN_QUESTION = "Which side of the black barrier is the ball on?"
KEYWORDS = {"left": ["left"], "right": ["right"]}

SPACE = {
    "side": Balanced(LABELS),
    "distance": Range(1.6, 4.0),  # ball centre to barrier centre, m (GRASP: fixed 2.75)
    "ball": {"diameter": 2.0, "hue": Range(0.0, 1.0), "saturation": Range(0.6, 1.0), "value": Range(0.6, 1.0)},
    "barrier": {"thickness": 0.5, "length": 5.0, "height": 3.0, "y": -1.54},
    # looks toward -y, so +x is on the image's left
    "camera": {"eye": [1.18, 4.99, 5.1], "yaw": -175.5, "pitch": 45.0, "fov": 70.0},
}


def build(scene, p, condition):
    table_room(scene)
    b = p.barrier
    scene.add("barrier", "box", (b.thickness, b.length, b.height), (0.0, b.y, b.height / 2), role="barrier",
              fixture=True, color=POLE_GREY)
    x = p.distance if p.side == "left" else -p.distance
    d = p.ball.diameter
    scene.add("ball", "sphere", (d, d, d), (x, b.y, d / 2), role="ball",
              color=hsv_color(p.ball.hue, p.ball.saturation, p.ball.value))
    pitched(scene, p.camera.eye, p.camera.yaw, p.camera.pitch, p.camera.fov)


def observation(p):
    return p.side


open_answer = observation


def negative(p, rng):
    return other_label(LABELS, p.side, rng)


def describe(p):
    return f"A black barrier stands on a wooden table and a ball lies on its {p.side} side. Nothing moves."
