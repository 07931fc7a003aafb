"""Relational Position: a ball lies to the left or right of a black barrier standing on the table
(as seen by the camera, which looks across the table from its far side)."""

from voebench.errors import Infeasible
from voebench.generator.params import ANGLE, COORDINATE, FOV, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import POLE_GREY, TABLE_SIZE, ball_space, hsv_color, pitched, table_room
from voebench.scenes.grasp_l1 import other_label

LABELS = ("left", "right")
KEYWORDS = {"left": ["left"], "right": ["right"]}

SPACE = {
    "side": Balanced(LABELS),
    "distance": Range(1.6, 4.0, domain=POSITIVE),  # ball centre to barrier centre, m (GRASP: fixed 2.75)
    "ball": ball_space(2.0),
    "barrier": {
        "thickness": Fixed(0.5, domain=POSITIVE),
        "length": Fixed(5.0, domain=POSITIVE),
        "height": Fixed(3.0, domain=POSITIVE),
        "y": Fixed(-1.54, domain=COORDINATE),
    },
    # looks toward -y, so +x is on the image's left
    "camera": {
        "eye": Fixed([1.18, 4.99, 5.1], domain=COORDINATE),
        "yaw": Fixed(-175.5, domain=ANGLE),
        "pitch": Fixed(45.0, domain=ANGLE),
        "fov": Fixed(70.0, domain=FOV),
    },
}


def build(scene, p, condition):
    table_room(scene)
    b = p.barrier
    scene.add(
        "barrier",
        "box",
        (b.thickness, b.length, b.height),
        (0.0, b.y, b.height / 2),
        role="barrier",
        fixture=True,
        color=POLE_GREY,
    )
    d = p.ball.diameter
    # the ball must clear the barrier and rest on the table (its centre above the table top)
    if not b.thickness / 2 + d / 2 < p.distance <= TABLE_SIZE[0] / 2:
        raise Infeasible(
            f"a {d:g} m ball {p.distance:g} m from the barrier's centre would touch the barrier or fall off the table",
            ("distance", "ball.diameter", "barrier.thickness"),
        )
    x = p.distance if p.side == "left" else -p.distance
    scene.add(
        "ball",
        "sphere",
        (d, d, d),
        (x, b.y, d / 2),
        role="ball",
        color=hsv_color(p.ball.hue, p.ball.saturation, p.ball.value),
    )
    pitched(scene, p.camera.eye, p.camera.yaw, p.camera.pitch, p.camera.fov)


def observation(p):
    return p.side


open_answer = observation


def negative(p, rng):
    return other_label(LABELS, p.side, rng)


def describe(scene, p, condition):
    return f"A black barrier stands on a wooden table and a ball lies on its {p.side} side. Nothing moves."
