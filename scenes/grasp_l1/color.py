"""Color: one pure red, green, blue or black ball of random size at a random place on the table; the same
setup as Shape."""

from voebench.generator.params import COORDINATE, FOV, FRACTION, POSITIVE, Balanced, Fixed, Range
from voebench.scenes.common import COLORS, table_room
from voebench.scenes.grasp_l1 import other_label
from voebench.scenes.grasp_l1.shape import place_on_table

LABELS = ("red", "green", "blue", "black")
KEYWORDS = {c: [c] for c in LABELS}

SPACE = {
    "color": Balanced(LABELS),
    "size": Range(0.8, 2.0, domain=POSITIVE),
    "place": {"x": Range(0.2, 0.8, domain=FRACTION), "y": Range(0.2, 0.8, domain=FRACTION)},
    # GRASP's eye point; it looks at the table centre (the original looked past the spawn area, see docs/differences.md)
    "camera": {
        "eye": Fixed([5.88, 4.6, 5.28], domain=COORDINATE),
        "look_at": Fixed([0.0, 0.0, 0.0], domain=COORDINATE),
        "fov": Fixed(70.0, domain=FOV),
    },
}


def build(scene, p, condition):
    table_room(scene)
    place_on_table(scene, "ball", "ball", p.size, p.place.x, p.place.y, COLORS[p.color], role="ball")
    scene.look(p.camera.eye, p.camera.look_at, fov_deg=p.camera.fov)


def observation(p):
    return p.color


open_answer = observation


def negative(p, rng):
    return other_label(LABELS, p.color, rng)


def describe(scene, p, condition):
    return f"A {p.color} ball {p.size:.1f} m across rests on a wooden table. Nothing moves."
