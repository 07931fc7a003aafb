"""Object Ordering: two to four distinct objects (each a ball or a cube of one pure colour, no two alike)
stand in a row on the table; the statement lists them from left to right as seen by the camera."""

import itertools

import numpy as np

from voebench.errors import Infeasible
from voebench.generator.params import ANGLE, COORDINATE, COUNT, FOV, POSITIVE, SEED, Balanced, Fixed, Pool, Range
from voebench.scenes.common import COLORS, pitched, table_room

KEYWORDS: dict[str, list[str]] = {}  # no open question: GRASP has none for Ordering

SPACE = {
    "count": Balanced((2, 3, 4), domain=COUNT),
    # pools the objects are drawn from; narrow them with e.g. `--set ordering.colors=[red,green,blue]`
    "colors": Pool(("red", "green", "blue", "black", "white", "yellow", "purple")),
    "shapes": Pool(("ball", "cube")),
    "arrangement": Range(0, 2**31 - 1, integer=True, domain=SEED),  # which distinct colour-shape pairs, in which order
    "size": Fixed(2.0, domain=POSITIVE),  # ball diameter / cube edge, m
    "spacing": Fixed(3.0, domain=POSITIVE),  # m between neighbouring centres
    "row_y": Fixed(3.68, domain=COORDINATE),  # distance of the row behind the table's centre line, m
    "camera": {
        "eye": Fixed([0.0, -2.63, 6.2], domain=COORDINATE),
        "yaw": Fixed(0.0, domain=ANGLE),
        "pitch": Fixed(45.0, domain=ANGLE),
        "fov": Fixed(70.0, domain=FOV),
    },
}


def arrangement(p):
    """The objects left to right: `count` distinct (colour, shape) pairs drawn by `p.arrangement`."""
    pairs = list(itertools.product(p.colors, p.shapes))
    if len(pairs) < p.count:
        raise Infeasible(
            f"{p.count} distinct objects cannot be drawn from {len(pairs)} colour-shape pairs",
            ("colors", "shapes", "count"),
        )
    rng = np.random.default_rng(p.arrangement)
    picks = rng.choice(len(pairs), size=p.count, replace=False)
    return [pairs[i] for i in picks]


def build(scene, p, condition):
    table_room(scene)
    row = arrangement(p)
    for i, (color, shape) in enumerate(row):
        x = (i - (len(row) - 1) / 2) * p.spacing
        scene.add(
            f"object{i}",
            "sphere" if shape == "ball" else "box",
            (p.size,) * 3,
            (x, p.row_y, p.size / 2),
            role=shape,
            color=COLORS[color],
        )
    pitched(scene, p.camera.eye, p.camera.yaw, p.camera.pitch, p.camera.fov)


def observation(p):
    return ", ".join(f"{c} {s}" for c, s in arrangement(p))


def open_answer(p) -> None:
    """No open question, so no open answer."""
    return None


def negative(p, rng):
    row = arrangement(p)
    while True:  # a different order of the same objects (objects are never replaced)
        perm = [row[i] for i in rng.permutation(len(row))]
        if perm != row:
            return ", ".join(f"{c} {s}" for c, s in perm)


def describe(scene, p, condition):
    return f"On a wooden table, these objects stand in a row, from left to right: {observation(p)}. Nothing moves."
